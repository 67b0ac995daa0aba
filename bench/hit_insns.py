#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""BPF instructions one hit of hit_bench's probes executes, per reader.

Runs the readers of a hit_uk BPF object (x86-64) in a small interpreter
over its `llvm-objdump -d` output: a fake pt_regs, the spec the attach
layer writes for each probe (hit:reg, hit:hot, hit:real), and user memory
holding the values; helpers are stubbed (cookie 1, the spec lookup, user
reads copy). A count, not a time: it does not move with the machine's
load. See bench/README.md, "Form switches, and what a hit executes".

usage: bench/hit_insns.py OBJ.bpf.o [llvm-objdump]
"""
import re
import struct
import subprocess
import sys

M64=(1<<64)-1
def parse(text, prog):
    lines=text.splitlines()
    out=[];on=False
    for l in lines:
        m=re.match(r'^[0-9a-f]+ <(\S+)>:',l)
        if m:
            name=m.group(1)
            if name==prog: on=True; continue
            if on and not name.startswith('LBB'): on=False
            continue
        if not on: continue
        m=re.match(r'^\s+(\d+):\s+(.*)$',l)
        if m: out.append((int(m.group(1)),m.group(2).strip()))
    base=out[0][0]
    return {i-base:t for i,t in out}
class Mem:
    def __init__(s): s.b={}
    def ld(s,a,n): return int.from_bytes(bytes(s.b.get(a+i,0) for i in range(n)),'little')
    def st(s,a,n,v):
        for i,x in enumerate((v&((1<<(8*n))-1)).to_bytes(n,'little')): s.b[a+i]=x
SZ={'u8':1,'u16':2,'u32':4,'u64':8}
def sx(v,bits=64):
    v&=(1<<bits)-1
    return v-(1<<bits) if v>>(bits-1) else v
def run(code, mem, ctx, spec_addr):
    r=[0]*11; r[1]=ctx; r[10]=0x7f000000
    pc=0;n=0
    while True:
        t=code[pc]; n+=1
        t=re.sub(r'\s+<.*>$','',t)
        def val(x):
            x=x.strip()
            if x.startswith('r'): return r[int(x[1:])]
            return int(x,0)&M64
        m=re.match(r'^r(\d+) = \*\((u\d+) \*\)\(r(\d+) ([+-]) (\d+)\)$',t)
        if m:
            d,sz,b,sg,o=m.groups(); a=(r[int(b)]+(int(o) if sg=='+' else -int(o)))&M64
            r[int(d)]=mem.ld(a,SZ[sz]); pc+=1; continue
        m=re.match(r'^\*\((u\d+) \*\)\(r(\d+) ([+-]) (\d+)\) = (\S+)$',t)
        if m:
            sz,b,sg,o,v=m.groups(); a=(r[int(b)]+(int(o) if sg=='+' else -int(o)))&M64
            mem.st(a,SZ[sz],val(v)); pc+=1; continue
        m=re.match(r'^r(\d+) = (-?\d+) ll$',t)
        if m: r[int(m.group(1))]=int(m.group(2))&M64; pc+=2; continue
        m=re.match(r'^if r(\d+) (s?[<>]=?|==|!=|&) (\S+) goto ([+-]\d+)$',t)
        if m:
            a,op,b,off=m.groups(); x=r[int(a)]; y=val(b)
            if op.startswith('s'): x,y,op=sx(x),sx(y),op[1:]
            c={'>':x>y,'>=':x>=y,'<':x<y,'<=':x<=y,'==':x==y,'!=':x!=y,'&':bool(x&y)}[op]
            pc+= 1+(int(off) if c else 0); continue
        m=re.match(r'^goto ([+-]\d+)$',t)
        if m: pc+=1+int(m.group(1)); continue
        if t=='exit': return n
        m=re.match(r'^call (\d+)$',t)
        if m:
            h=int(m.group(1))
            if h==174: r[0]=1
            elif h==1: r[0]=spec_addr
            elif h==112 or h==113:  # probe_read_user/kernel
                d,sz,s=r[1],r[2],r[3]
                for i in range(sz): mem.b[d+i]=mem.b.get(s+i,0)
                r[0]=0
            elif h==12: r[0]=0
            else: raise Exception('helper %d'%h)
            pc+=1; continue
        m=re.match(r'^r(\d+) = -r(\d+)$',t)
        if m: r[int(m.group(1))]=(-r[int(m.group(2))])&M64; pc+=1; continue
        m=re.match(r'^r(\d+) (s?>>=|<<=|>>=|[-+*/|&^%]?=) (\S+)$',t)
        if m:
            d,op,s=m.groups(); d=int(d); y=val(s); x=r[d]
            if op=='=': x=y
            elif op=='+=': x=x+y
            elif op=='-=': x=x-y
            elif op=='*=': x=x*y
            elif op=='/=': x=x//y if y else 0
            elif op=='%=': x=x%y if y else x
            elif op=='|=': x=x|y
            elif op=='&=': x=x&y
            elif op=='^=': x=x^y
            elif op=='<<=': x=x<<(y&63)
            elif op=='>>=': x=x>>(y&63)
            elif op=='s>>=': x=sx(x)>>(y&63)
            r[d]=x&M64; pc+=1; continue
        raise Exception('insn %d: %r'%(pc,t))
REGS=dict(r15=0,r14=8,r13=16,r12=24,bp=32,bx=40,r11=48,r10=56,r9=64,r8=72,ax=80,cx=88,dx=96,si=104,di=112,ip=128,sp=152)
def arg(kind,size,signed,base=None,index=None,disp=0,group=0,win_off=0):
    flags=4 if signed else 0
    bo=REGS[base] if base else -1; io=REGS[index] if index else -1
    return struct.pack('<qhhBBBBBBBBBB2x',disp,bo,io,kind,size,flags,0,8 if base else 0,0,8 if index else 0,0,group,win_off)
def spec(args,groups=()):
    s=struct.pack('<HHBB2xq',2,len(args),8,len(groups),7)
    s+=b''.join(args)+b'\0'*24*(12-len(args))
    for (disp,base,ln) in groups: s+=struct.pack('<qhBBBB2x',disp,REGS[base],8,0,ln,0)
    s+=b'\0'*16*(6-len(groups))
    assert len(s)==400,len(s)
    return s
def hit(path,prog,sp,regs,user):
    mem=Mem(); ctx=0x20000; sa=0x30000
    for k,v in regs.items(): mem.st(ctx+REGS[k],8,v)
    for i,x in enumerate(sp): mem.b[sa+i]=x
    for a,v,n in user: mem.st(a,n,v)
    n = run(parse(path, prog), mem, ctx, sa)
    # globals are relocated to 0: the reader's last[] is among the first words
    words = [sx(mem.ld(8 * i, 8)) for i in range(16)]
    return n, words
def main():
    objdump = sys.argv[2] if len(sys.argv) > 2 else 'llvm-objdump'
    dis = subprocess.run([objdump, '-d', '--no-show-raw-insn', sys.argv[1]],
                         check=True, capture_output=True, text=True).stdout
    path = dis
    SP=0x7ff000
    reg=spec([arg(1,8,1,'ax'),arg(1,8,1,'dx'),arg(1,8,1,'cx')])
    hot=spec([arg(1,8,1,'ax'),arg(2,8,1,'sp',disp=-8),arg(2,8,1,'si')])
    real=spec([arg(1,8,1,'ax'),arg(2,4,1,'sp',disp=-20,group=1,win_off=0),arg(2,8,1,'sp',disp=-16,group=1,win_off=4),
               arg(2,8,1,'sp',disp=-8,group=1,win_off=12),arg(1,8,1,'r8'),arg(2,8,1,'r9')],groups=[(-20,'sp',20)])
    # a = 5: hit:reg/hot pass a, 3a + 1, 7a + 2; hit:real a, -a - 1,
    # 3a + 1, -(7a + 2), 11a + 4, 13a + 5 (what the readers check)
    regs=dict(ax=5,dx=16,cx=37,sp=SP,si=0x600000,r8=59,r9=0x600100)
    user=[(SP-8,16,8),(0x600000,37,8)]
    user_real=[(SP-20,(-6)&0xffffffff,4),(SP-16,16,8),(SP-8,(-37)&M64,8),(0x600100,70,8)]
    want={3: [5, 16, 37], 6: [5, -6, 16, -37, 59, 70]}
    rc = 0
    for name,sp_,prog in (('reg',reg,'uk_read3'),('hot',hot,'uk_read3'),('real',real,'uk_read6'),('reg nc',reg,'uk_read3_nc'),('real nc',real,'uk_read6_nc')):
        n, words = hit(path, prog, sp_, regs, user_real if 'real' in name else user)
        w = want[6 if 'real' in name else 3]
        ok = any(words[i:i + len(w)] == w for i in range(16))
        rc |= not ok
        print('%-8s %-12s %d%s' % (name, prog, n, '' if ok else '  (values wrong)'))
    return rc


if __name__ == '__main__':
    sys.exit(main())
