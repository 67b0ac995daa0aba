/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* aarch64 register ids (slots of struct user_pt_regs) and register-table
 * entries. x0..x30 and w0..w30 are consecutive runs: entry = run + N.
 * GAS also accepts fp, lr, ip0, ip1 and upper-case names: the lexer maps
 * them onto the x29, x30, x16, x17 (and lower-case) entries, the names GCC
 * prints. */
#ifndef USDTKIT_ARCH_ARM64_REGS_H
#define USDTKIT_ARCH_ARM64_REGS_H

enum arm64_reg_id {
	A64_X0 = 0,		/* x0..x30 are ids 0..30 */
	A64_X29 = 29,		/* fp */
	A64_X30 = 30,		/* lr */
	A64_SP = 31,
	A64_PC,
	A64_PSTATE,
	A64_NR_IDS
};

enum arm64_reg_entry {
	A64E_X0 = 0,		/* x0..x30: width 8 */
	A64E_W0 = A64E_X0 + 31,	/* w0..w30: width 4, same ids */
	A64E_SP = A64E_W0 + 31,
	A64E_WSP,
	A64E_NR
};

#endif
