/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * PowerPC 64 register ids and register-table entries. A register id is
 * the slot of the uapi struct pt_regs (arch/powerpc/include/uapi/asm/
 * ptrace.h): gpr[0..31], then nip and the special registers, 8 bytes
 * each. Entries 0..31 are r0..r31 (id n), then the named specials.
 */
#ifndef USDTKIT_ARCH_PPC_REGS_H
#define USDTKIT_ARCH_PPC_REGS_H

/* X(n) for each general register, in order */
#define PPC_GPR_LIST(X)                                                       \
	X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12)  \
	X(13) X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23)    \
	X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31)

/* pt_regs slots after gpr[31], in struct order */
enum ppc_reg_id {
	PPC_ID_NIP = 32,	/* the IP */
	PPC_ID_MSR,
	PPC_ID_ORIG_GPR3,
	PPC_ID_CTR,
	PPC_ID_LINK,
	PPC_ID_XER,
	PPC_ID_CCR,
	PPC_ID_SOFTE,
	PPC_ID_TRAP,
	PPC_ID_DAR,
	PPC_ID_DSISR,
	PPC_ID_RESULT,
	PPC_NR_IDS
};

#define PPC_GPR_ENUM(n) PPCE_R##n,
enum ppc_reg_entry {
	PPC_GPR_LIST(PPC_GPR_ENUM)
	PPCE_NIP,
	PPCE_MSR,
	PPCE_CTR,
	PPCE_LR,
	PPCE_XER,
	PPCE_CCR,
	PPCE_NR
};
#undef PPC_GPR_ENUM

#define PPC_NR_GPRS 32

#endif
