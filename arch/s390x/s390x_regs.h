/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * s390x register ids and register-table entries. Register id n is
 * gprs[n] of user_pt_regs; entry n is the name "rn".
 */
#ifndef USDTKIT_ARCH_S390X_REGS_H
#define USDTKIT_ARCH_S390X_REGS_H

/* X(n) for each general register, in order */
#define S390X_GPR_LIST(X)                                                     \
	X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12)  \
	X(13) X(14) X(15)

#define S390X_GPR_ENUM(n) S390XE_R##n,
enum s390x_reg_entry {
	S390X_GPR_LIST(S390X_GPR_ENUM)
	S390XE_NR
};
#undef S390X_GPR_ENUM

/* register ids equal the entries: id n is %rn */
#define S390X_NR_IDS S390XE_NR

#endif
