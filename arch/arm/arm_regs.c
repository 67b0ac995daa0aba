// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * arm (32-bit) register table and the register files BPF sees:
 * - arm kernel: struct pt_regs { long uregs[18]; } of
 *   arch/arm/include/uapi/asm/ptrace.h: r0..r15, cpsr, orig_r0;
 * - an arm process on an arm64 kernel: struct user_pt_regs (aarch64),
 *   where an AArch32 task keeps r0..r14 in regs[0..14] (compat_sp is
 *   regs[13], compat_lr regs[14]), its pc in pc and cpsr in pstate.
 */
#include "spec/backends.h"
#include "arm/arm_regs.h"

#define R(n) [ARME_R0 + (n)] = { "r" #n, ARM_R0 + (n), 4, 0 }

static const struct usdtkit_regdef arm_regs[ARME_NR] = {
	R(0),  R(1),  R(2),  R(3),  R(4),  R(5),  R(6),	 R(7),
	R(8),  R(9),  R(10), R(11), R(12), R(13), R(14), R(15),
	[ARME_SB] = { "sb", ARM_SB, 4, 0 },
	[ARME_SL] = { "sl", ARM_SL, 4, 0 },
	[ARME_FP] = { "fp", ARM_FP, 4, 0 },
	[ARME_IP] = { "ip", ARM_IP, 4, 0 },
	[ARME_SP] = { "sp", ARM_SP, 4, 0 },
	[ARME_LR] = { "lr", ARM_LR, 4, 0 },
	[ARME_PC] = { "pc", ARM_PC, 4, 0 },
};

#undef R

static const int16_t arm_offsets[ARM_NR_IDS] = {
	0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60,
	[ARM_CPSR] = 64,
	[ARM_ORIG_R0] = 68,
};

static const int16_t arm_compat64_offsets[ARM_NR_IDS] = {
	0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112,
	[ARM_PC] = 256,
	[ARM_CPSR] = 264,
	[ARM_ORIG_R0] = -1,	/* orig_x0 is past struct user_pt_regs */
};

static const struct usdtkit_layout arm_pt_regs = {
	.name = "struct pt_regs (arm)",
	.size = 72,
	.slot_size = 4,
	.nregs = ARM_NR_IDS,
	.offsets = arm_offsets,
};

static const struct usdtkit_layout arm_compat64_regs = {
	.name = "struct user_pt_regs (aarch64, AArch32 task)",
	.size = 272,
	.slot_size = 8,
	.nregs = ARM_NR_IDS,
	.offsets = arm_compat64_offsets,
};

/* GCC keeps a 64-bit value in two consecutive core registers, the low
 * half in the lower-numbered one (little-endian): "-8@r0" is r1:r0. sp is
 * never allocated, so a pair starts at r0..r11 (r11 pairs with ip). */
static const int8_t arm_pair_hi[ARM_NR_IDS] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
	[ARM_IP] = -1,	 [ARM_SP] = -1,	  [ARM_LR] = -1,
	[ARM_PC] = -1,	 [ARM_CPSR] = -1, [ARM_ORIG_R0] = -1,
};

const struct usdtkit_arch usdtkit__arch_arm = {
	USDTKIT_MANIFEST_arm,
	.regs = arm_regs,
	.nregs = ARME_NR,
	.pair_hi = arm_pair_hi,
	.native = &arm_pt_regs,
	.compat64 = &arm_compat64_regs,
};
