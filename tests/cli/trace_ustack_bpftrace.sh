#!/bin/sh
# usdtkit trace --count-by ustack against bpftrace 0.17's
# @[ustack(perf)] = count() on one run of tests/fixtures/fx_stack.c (a
# PIE with frame pointers), both ended while the process still runs:
# the same stacks, frame for frame, with the same counts. bpftrace prints
# "ADDR fx_stack_c+21 (/path)", usdtkit "fx_stack_c+0x15 (/path)" (the
# offset in decimal there, hex here); a frame neither names is its
# address in both. With --stack-fp, usdtkit walks the frame pointers as
# bpftrace does: equal. Unwound (the default), bpftrace's stack is where
# usdtkit's starts, and usdtkit's goes on through the C library, which
# has no frame pointers, down to _start. Root, BPF; skipped (77)
# without bpftrace.
# usage: trace_ustack_bpftrace.sh USDTKIT FX_STACK
set -u
u=$1
fx=$2
. "$(dirname "$0")/../helpers/fx_stack.sh"
"$u" trace --json --count-by ustack --stack-depth 127 --stack-fp -p "$fpid" \
	"$fx:fxstack:hit" >"$tmp/uk.out" 2>"$tmp/uk.err" &
upid=$!
"$u" trace --json --count-by ustack --stack-depth 127 -p "$fpid" "$fx:fxstack:hit" \
	>"$tmp/uw.out" 2>"$tmp/uw.err" &
wpid=$!
BPFTRACE_NO_CPP_DEMANGLE=1 __BPFTRACE_NOTIFY_PROBES_ATTACHED=1 bpftrace -p "$fpid" \
	-e "usdt:$fx:fxstack:hit { @[ustack(perf)] = count(); }" \
	>"$tmp/bt.out" 2>"$tmp/bt.err" &
bpid=$!
wait_for "$tmp/uk.err" '^Tracing ' 300 "$upid" && ok ||
	{ ko "usdtkit did not attach"; cat "$tmp/uk.err"; }
wait_for "$tmp/uw.err" '^Tracing ' 300 "$wpid" && ok ||
	{ ko "usdtkit (unwound) did not attach"; cat "$tmp/uw.err"; }
wait_for "$tmp/bt.err" '^__BPFTRACE_NOTIFY_PROBES_ATTACHED$' 300 "$bpid" && ok ||
	{ ko "bpftrace did not attach"; cat "$tmp/bt.err"; }
echo "hit 7" >&3
wait_for "$tmp/fx.out" '^ok$' 100 "$fpid" && ok || ko "no hits"
# both read their maps now, the process alive
kill -INT "$upid" "$wpid"
interrupt "$bpid"
wait "$upid" && ok || { ko "usdtkit: exit $?"; cat "$tmp/uk.err"; }
wait "$wpid" && ok || { ko "usdtkit (unwound): exit $?"; cat "$tmp/uw.err"; }
wait "$bpid" || { ko "bpftrace: exit $?"; cat "$tmp/bt.err"; }
upid="" wpid="" bpid=""

python3 - "$tmp" "$fx" <<'PY' && ok || { ko "stacks differ"; cat "$tmp/bt.out" "$tmp/uk.out"; }
import json, re, sys
from collections import Counter
tmp, fx = sys.argv[1], sys.argv[2]
bt = open(tmp + "/bt.out").read()
want = Counter()
for m in re.finditer(r"^@\[\n((?:\t.*\n)+?)\]: (\d+)$", bt, re.M):
    frames = []
    for l in m.group(1).splitlines():
        addr, _, rest = l.strip().partition(" ")
        s = re.match(r"^(\S+)\+(\d+) (.*)$", rest)
        frames.append("%s+0x%x %s" % (s.group(1), int(s.group(2)), s.group(3))
                      if s else "0x" + addr)
    want[tuple(frames)] += int(m.group(2))
def stacks(name):
    got = Counter()
    o = [json.loads(l) for l in open(tmp + name) if l.startswith("{")][-1]
    for k in o["top"]:
        st = k["parts"][0]
        assert not st.get("gone"), ("marked gone while the process runs", st)
        got[tuple(st["frames"])] += k["count"]
    return got
got = stacks("/uk.out")
assert want and got == want, ("bpftrace", want, "usdtkit --stack-fp", got)
deep = stacks("/uw.out")
assert len(deep) == 1 and sum(deep.values()) == sum(want.values()), deep
(w,), (d,) = want.keys(), deep.keys()
assert d[:len(w)] == w and len(d) > len(w), ("not bpftrace's and more", w, d)
assert d[-1].startswith("_start+0x") and d[-1].endswith("(%s)" % fx), d
names = [f for s in got for f in s]
for fn in ("fx_stack_c", "fx_stack_b", "fx_stack_a", "main"):
    assert any(f.startswith(fn + "+0x") and f.endswith("(%s)" % fx) for f in names), (fn, names)
print("trace_ustack_bpftrace: %d stack(s), %d hits, %d frames agree"
      % (len(got), sum(got.values()), len(names)))
PY
finish trace_ustack_bpftrace
