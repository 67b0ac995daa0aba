// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probe-site check on x86-64 and i386 (tests/cross, manifest key
 * "sites"): the trap that replaces sdt.h's nop, and the kernel's signal
 * frame as the uapi pt_regs; see tests/cross/sites_arch.h. Built only for a host of
 * this folder's targets (tests/cross/CMakeLists.txt picks the folder).
 */
#include "sites_arch.h"

#if !defined(__x86_64__) && !defined(__i386__)
#error "built for a target of another folder"
#endif

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

#endif
