/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* arm (32-bit) register ids (slots of struct pt_regs: long uregs[18]) and
 * register-table entries. GAS also accepts a1-a4, v1-v8, wr and upper
 * case: the lexer maps those onto the entries below, the names GCC prints. */
#ifndef USDTKIT_ARCH_ARM_REGS_H
#define USDTKIT_ARCH_ARM_REGS_H

enum arm_reg_id {
	ARM_R0 = 0,		/* r0..r15 are ids 0..15 */
	ARM_SB = 9,
	ARM_SL = 10,
	ARM_FP = 11,
	ARM_IP = 12,
	ARM_SP = 13,
	ARM_LR = 14,
	ARM_PC = 15,
	ARM_CPSR,
	ARM_ORIG_R0,
	ARM_NR_IDS
};

enum arm_reg_entry {
	ARME_R0 = 0,		/* r0..r15 */
	ARME_SB = ARME_R0 + 16,	/* the APCS names of r9..r15 */
	ARME_SL,
	ARME_FP,
	ARME_IP,
	ARME_SP,
	ARME_LR,
	ARME_PC,
	ARME_NR
};

#endif
