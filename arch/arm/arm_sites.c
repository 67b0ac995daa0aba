// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probe-site check on 32-bit Arm (tests/cross, manifest key "sites"): the
 * trap that replaces sdt.h's nop, and the kernel's signal frame as the
 * uapi pt_regs; see tests/cross/sites_arch.h. Built only for a host of
 * this folder's targets (tests/cross/CMakeLists.txt picks the folder).
 */
#include "sites_arch.h"

#ifndef __arm__
#error "built for a target of another folder"
#endif

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

/* cpsr keeps the Thumb bit across the resume */
SITES_ARCH_PC_FIELD(arm_pc)

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
