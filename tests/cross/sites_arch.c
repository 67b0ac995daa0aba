// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Per target: which nop sdt.h emitted, which trap replaces it, and how
 * the kernel's signal frame maps onto the target's uapi pt_regs. The
 * register images are built from <asm/ptrace.h> field names, never from
 * usdtkit's own offset tables, so a wrong table shows up as a mismatch.
 *
 * Traps: each one is no longer than the nop it replaces and changes no
 * general register (only the pc, which the handler sets past the nop).
 */
#include <errno.h>
#include <string.h>

#include <asm/ptrace.h>

#include "sites.h"

/* byte helpers: each arch uses some of them (clang warns of the rest) */

__attribute__((unused)) static inline uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

__attribute__((unused)) static inline uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

__attribute__((unused)) static inline void put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

__attribute__((unused)) static inline void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Copy the uapi struct @r into @buf. */
#define SITES_OUT(r)                                                         \
	(sizeof(r) > size ? 0 : (memcpy(buf, &(r), sizeof(r)), sizeof(r)))

#if !defined(__i386__) && !defined(__arm__)
size_t sites_arch_regs_compat(const ucontext_t *uc, void *buf, size_t size)
{
	(void)uc;
	(void)buf;
	(void)size;
	return 0;	/* a 64-bit task: no compat layout */
}
#endif

#if defined(__x86_64__) || defined(__i386__)

#ifdef __x86_64__
#define X86_REG_IP REG_RIP
const char sites_arch_name[] = "x86_64";
#else
#define X86_REG_IP REG_EIP
const char sites_arch_name[] = "i386";
#endif

int sites_arch_patch(uint8_t *site)
{
	if (site[0] != 0x90)	/* nop */
		return -ENOEXEC;
	site[0] = 0xcc;		/* int3: SIGTRAP, ip after it */
	return 1;
}

uintptr_t sites_arch_trap_pc(const siginfo_t *si, const ucontext_t *uc)
{
	(void)si;	/* int3 reports si_addr 0 */
	return uc->uc_mcontext.gregs[X86_REG_IP] - 1;
}

void sites_arch_resume(ucontext_t *uc, uintptr_t pc)
{
	uc->uc_mcontext.gregs[X86_REG_IP] = pc;
}

#endif

#if defined(__x86_64__)

size_t sites_arch_regs(const ucontext_t *uc, void *buf, size_t size)
{
	const greg_t *g = uc->uc_mcontext.gregs;
	struct pt_regs r = {
		.r15 = g[REG_R15], .r14 = g[REG_R14], .r13 = g[REG_R13],
		.r12 = g[REG_R12], .rbp = g[REG_RBP], .rbx = g[REG_RBX],
		.r11 = g[REG_R11], .r10 = g[REG_R10], .r9 = g[REG_R9],
		.r8 = g[REG_R8],   .rax = g[REG_RAX], .rcx = g[REG_RCX],
		.rdx = g[REG_RDX], .rsi = g[REG_RSI], .rdi = g[REG_RDI],
		.rip = g[REG_RIP] - 1, .eflags = g[REG_EFL],
		.rsp = g[REG_RSP],
	};

	return SITES_OUT(r);
}

#elif defined(__i386__)

size_t sites_arch_regs(const ucontext_t *uc, void *buf, size_t size)
{
	const greg_t *g = uc->uc_mcontext.gregs;
	/* REG_ESP is pusha's copy; the user stack pointer is REG_UESP */
	struct pt_regs r = {
		.ebx = g[REG_EBX], .ecx = g[REG_ECX], .edx = g[REG_EDX],
		.esi = g[REG_ESI], .edi = g[REG_EDI], .ebp = g[REG_EBP],
		.eax = g[REG_EAX], .eip = g[REG_EIP] - 1,
		.eflags = g[REG_EFL], .esp = g[REG_UESP],
	};

	return SITES_OUT(r);
}

/* x86-64's struct pt_regs (arch/x86/include/uapi/asm/ptrace.h), which an
 * x86-64 kernel gives BPF for an i386 task, registers zero-extended. The
 * i386 headers lack it; tests/layouts proves usdtkit's offsets against
 * the real header, this copy is written from it field by field. */
struct x86_64_pt_regs {
	uint64_t r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8;
	uint64_t rax, rcx, rdx, rsi, rdi, orig_rax, rip, cs, eflags, rsp, ss;
};
_Static_assert(sizeof(struct x86_64_pt_regs) == 168, "x86-64 pt_regs");

size_t sites_arch_regs_compat(const ucontext_t *uc, void *buf, size_t size)
{
	const greg_t *g = uc->uc_mcontext.gregs;
	struct x86_64_pt_regs r = {
		.rbx = (uint32_t)g[REG_EBX], .rcx = (uint32_t)g[REG_ECX],
		.rdx = (uint32_t)g[REG_EDX], .rsi = (uint32_t)g[REG_ESI],
		.rdi = (uint32_t)g[REG_EDI], .rbp = (uint32_t)g[REG_EBP],
		.rax = (uint32_t)g[REG_EAX], .rip = (uint32_t)g[REG_EIP] - 1,
		.eflags = (uint32_t)g[REG_EFL], .rsp = (uint32_t)g[REG_UESP],
	};

	return SITES_OUT(r);
}

#elif defined(__aarch64__)

const char sites_arch_name[] = "aarch64";

int sites_arch_patch(uint8_t *site)
{
	if (get32(site) != 0xd503201f)		/* nop */
		return -ENOEXEC;
	put32(site, 0xd4200000);		/* brk #0: SIGTRAP */
	return 4;
}

uintptr_t sites_arch_trap_pc(const siginfo_t *si, const ucontext_t *uc)
{
	(void)si;
	return uc->uc_mcontext.pc;
}

void sites_arch_resume(ucontext_t *uc, uintptr_t pc)
{
	uc->uc_mcontext.pc = pc;
}

size_t sites_arch_regs(const ucontext_t *uc, void *buf, size_t size)
{
	struct user_pt_regs r;

	memcpy(r.regs, uc->uc_mcontext.regs, sizeof(r.regs));
	r.sp = uc->uc_mcontext.sp;
	r.pc = uc->uc_mcontext.pc;
	r.pstate = uc->uc_mcontext.pstate;
	return SITES_OUT(r);
}

#elif defined(__arm__)

const char sites_arch_name[] = "arm";

/* Debian's armhf compiler emits Thumb-2 by default; both states work.
 * The udf encodings here are not the kernel's ptrace breakpoints, so a
 * real kernel raises SIGILL for them, as qemu does. */
int sites_arch_patch(uint8_t *site)
{
#ifdef __thumb__
	if (get16(site) == 0xbf00) {		/* nop */
		put16(site, 0xde00);		/* udf #0 */
		return 2;
	}
	if (get16(site) == 0xf3af && get16(site + 2) == 0x8000) { /* nop.w */
		put16(site, 0xf7f0);		/* udf.w #0 */
		put16(site + 2, 0xa000);
		return 4;
	}
#else
	if (get32(site) == 0xe320f000 || get32(site) == 0xe1a00000) {
		put32(site, 0xe7f000f0);	/* udf #0 */
		return 4;
	}
#endif
	return -ENOEXEC;
}

uintptr_t sites_arch_trap_pc(const siginfo_t *si, const ucontext_t *uc)
{
	(void)si;
	return uc->uc_mcontext.arm_pc;
}

void sites_arch_resume(ucontext_t *uc, uintptr_t pc)
{
	uc->uc_mcontext.arm_pc = pc;	/* cpsr keeps the Thumb bit */
}

size_t sites_arch_regs(const ucontext_t *uc, void *buf, size_t size)
{
	const mcontext_t *m = &uc->uc_mcontext;
	struct pt_regs r = { { 0 } };

	r.ARM_r0 = m->arm_r0;	r.ARM_r1 = m->arm_r1;	r.ARM_r2 = m->arm_r2;
	r.ARM_r3 = m->arm_r3;	r.ARM_r4 = m->arm_r4;	r.ARM_r5 = m->arm_r5;
	r.ARM_r6 = m->arm_r6;	r.ARM_r7 = m->arm_r7;	r.ARM_r8 = m->arm_r8;
	r.ARM_r9 = m->arm_r9;	r.ARM_r10 = m->arm_r10;	r.ARM_fp = m->arm_fp;
	r.ARM_ip = m->arm_ip;	r.ARM_sp = m->arm_sp;	r.ARM_lr = m->arm_lr;
	r.ARM_pc = m->arm_pc;	r.ARM_cpsr = m->arm_cpsr;
	return SITES_OUT(r);
}

/* arm64's struct user_pt_regs (arch/arm64/include/uapi/asm/ptrace.h) as
 * an arm64 kernel fills it for an AArch32 task: r0..r14 in regs[0..14],
 * the pc in pc, cpsr in pstate. Written from the header; tests/layouts
 * proves usdtkit's offsets against the real one. */
struct arm64_user_pt_regs {
	uint64_t regs[31];
	uint64_t sp, pc, pstate;
};
_Static_assert(sizeof(struct arm64_user_pt_regs) == 272, "user_pt_regs");

size_t sites_arch_regs_compat(const ucontext_t *uc, void *buf, size_t size)
{
	const mcontext_t *m = &uc->uc_mcontext;
	struct arm64_user_pt_regs r = {
		.regs = { m->arm_r0, m->arm_r1, m->arm_r2, m->arm_r3,
			  m->arm_r4, m->arm_r5, m->arm_r6, m->arm_r7,
			  m->arm_r8, m->arm_r9, m->arm_r10, m->arm_fp,
			  m->arm_ip, m->arm_sp, m->arm_lr },
		.pc = m->arm_pc,
		.pstate = m->arm_cpsr,
	};

	return SITES_OUT(r);
}

#elif defined(__riscv) && __riscv_xlen == 64

const char sites_arch_name[] = "riscv64";

int sites_arch_patch(uint8_t *site)
{
	if (get16(site) == 0x0001) {		/* c.nop (RVC) */
		put16(site, 0x9002);		/* c.ebreak */
		return 2;
	}
	if (get32(site) == 0x00000013) {	/* nop = addi x0, x0, 0 */
		put32(site, 0x00100073);	/* ebreak */
		return 4;
	}
	return -ENOEXEC;
}

uintptr_t sites_arch_trap_pc(const siginfo_t *si, const ucontext_t *uc)
{
	(void)si;
	return uc->uc_mcontext.__gregs[REG_PC];
}

void sites_arch_resume(ucontext_t *uc, uintptr_t pc)
{
	uc->uc_mcontext.__gregs[REG_PC] = pc;
}

size_t sites_arch_regs(const ucontext_t *uc, void *buf, size_t size)
{
	const unsigned long *g = uc->uc_mcontext.__gregs;
	/* __gregs[0] is the pc, __gregs[n] is xn */
	struct user_regs_struct r = {
		.pc = g[0], .ra = g[1], .sp = g[2], .gp = g[3], .tp = g[4],
		.t0 = g[5], .t1 = g[6], .t2 = g[7], .s0 = g[8], .s1 = g[9],
		.a0 = g[10], .a1 = g[11], .a2 = g[12], .a3 = g[13],
		.a4 = g[14], .a5 = g[15], .a6 = g[16], .a7 = g[17],
		.s2 = g[18], .s3 = g[19], .s4 = g[20], .s5 = g[21],
		.s6 = g[22], .s7 = g[23], .s8 = g[24], .s9 = g[25],
		.s10 = g[26], .s11 = g[27], .t3 = g[28], .t4 = g[29],
		.t5 = g[30], .t6 = g[31],
	};

	return SITES_OUT(r);
}

#elif defined(__s390x__)

const char sites_arch_name[] = "s390x";

int sites_arch_patch(uint8_t *site)
{
	/* "nop 0" is bc 0,0: 47 00 00 00 */
	if (site[0] != 0x47 || site[1] || site[2] || site[3])
		return -ENOEXEC;
	put16(site, 0x0000);	/* an invalid opcode: SIGILL */
	return 4;
}

/* The psw already points past the 2-byte trap; si_addr is the trap. */
uintptr_t sites_arch_trap_pc(const siginfo_t *si, const ucontext_t *uc)
{
	(void)uc;
	return (uintptr_t)si->si_addr;
}

void sites_arch_resume(ucontext_t *uc, uintptr_t pc)
{
	uc->uc_mcontext.psw.addr = pc;
}

size_t sites_arch_regs(const ucontext_t *uc, void *buf, size_t size)
{
	user_pt_regs r;

	memset(&r, 0, sizeof(r));

	r.psw.mask = uc->uc_mcontext.psw.mask;
	r.psw.addr = uc->uc_mcontext.psw.addr;
	memcpy(r.gprs, uc->uc_mcontext.gregs, sizeof(r.gprs));
	return SITES_OUT(r);
}

#elif defined(__mips__) && _MIPS_SIM == _ABI64

#ifdef __MIPSEL__
const char sites_arch_name[] = "mips64el";
#else
const char sites_arch_name[] = "mips64";
#endif

int sites_arch_patch(uint8_t *site)
{
	/* sdt.h's nop is sll $0, $0, 0: all zero in either byte order */
	if (get32(site) != 0)
		return -ENOEXEC;
	put32(site, 0x0000000d);	/* break 0: SIGTRAP, pc at the break */
	return 4;
}

uintptr_t sites_arch_trap_pc(const siginfo_t *si, const ucontext_t *uc)
{
	(void)si;
	return uc->uc_mcontext.pc;
}

void sites_arch_resume(ucontext_t *uc, uintptr_t pc)
{
	uc->uc_mcontext.pc = pc;
}

size_t sites_arch_regs(const ucontext_t *uc, void *buf, size_t size)
{
	struct pt_regs r;
	int i;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < 32; i++)
		r.regs[i] = uc->uc_mcontext.gregs[i];
	r.lo = uc->uc_mcontext.mdlo;
	r.hi = uc->uc_mcontext.mdhi;
	r.cp0_epc = uc->uc_mcontext.pc;
	return SITES_OUT(r);
}

#elif defined(__powerpc64__)

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
const char sites_arch_name[] = "ppc64le";
#else
const char sites_arch_name[] = "ppc64";
#endif

int sites_arch_patch(uint8_t *site)
{
	if (get32(site) != 0x60000000)		/* nop = ori 0,0,0 */
		return -ENOEXEC;
	put32(site, 0x7fe00008);		/* trap = tw 31,0,0: SIGTRAP */
	return 4;
}

/* A trap leaves nip at the trap itself. */
uintptr_t sites_arch_trap_pc(const siginfo_t *si, const ucontext_t *uc)
{
	(void)si;
	return uc->uc_mcontext.gp_regs[PT_NIP];
}

void sites_arch_resume(ucontext_t *uc, uintptr_t pc)
{
	uc->uc_mcontext.gp_regs[PT_NIP] = pc;
}

size_t sites_arch_regs(const ucontext_t *uc, void *buf, size_t size)
{
	/* gp_regs[] holds the pt_regs slots in the ptrace order (PT_R0 ..
	 * PT_RESULT), but copy field by field: the check must not lean on
	 * that order either */
	const unsigned long *g = uc->uc_mcontext.gp_regs;
	struct pt_regs r;
	int i;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < 32; i++)
		r.gpr[i] = g[PT_R0 + i];
	r.nip = g[PT_NIP];
	r.msr = g[PT_MSR];
	r.orig_gpr3 = g[PT_ORIG_R3];
	r.ctr = g[PT_CTR];
	r.link = g[PT_LNK];
	r.xer = g[PT_XER];
	r.ccr = g[PT_CCR];
	r.softe = g[PT_SOFTE];
	r.trap = g[PT_TRAP];
	r.dar = g[PT_DAR];
	r.dsisr = g[PT_DSISR];
	r.result = g[PT_RESULT];
	return SITES_OUT(r);
}

#else
#error "sites_arch.c: no trap for this target"
#endif
