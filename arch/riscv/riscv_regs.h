/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * RISC-V register ids and register-table entries, shared by the riscv64
 * and riscv32 backends (one lexer, two descriptors).
 *
 * Register id = slot of struct user_regs_struct: slot 0 is pc and slot i
 * holds x<i> for i = 1..31. x0 ("zero") is hard-wired to 0: the lexer
 * gives it a TOK_ZERO token, so it has no table entry.
 */
#ifndef USDTKIT_ARCH_RISCV_REGS_H
#define USDTKIT_ARCH_RISCV_REGS_H

#define RISCV_PC	0	/* slot 0 of struct user_regs_struct */
#define RISCV_NR_IDS	32

/*
 * X(entry suffix, name, id), in table order. The ABI names come first and
 * in register order, so that usdtkit_arch_reg_name() prefers them; the
 * lexer relies on each group (t0-t2, s0-s1, a0-a7, s2-s11, t3-t6, x1-x31)
 * being contiguous.
 */
#define RISCV_REG_LIST(X)                                                     \
	X(RA, "ra", 1) X(SP, "sp", 2) X(GP, "gp", 3) X(TP, "tp", 4)          \
	X(T0, "t0", 5) X(T1, "t1", 6) X(T2, "t2", 7)                         \
	X(S0, "s0", 8) X(S1, "s1", 9)                                        \
	X(A0, "a0", 10) X(A1, "a1", 11) X(A2, "a2", 12) X(A3, "a3", 13)      \
	X(A4, "a4", 14) X(A5, "a5", 15) X(A6, "a6", 16) X(A7, "a7", 17)      \
	X(S2, "s2", 18) X(S3, "s3", 19) X(S4, "s4", 20) X(S5, "s5", 21)      \
	X(S6, "s6", 22) X(S7, "s7", 23) X(S8, "s8", 24) X(S9, "s9", 25)      \
	X(S10, "s10", 26) X(S11, "s11", 27)                                  \
	X(T3, "t3", 28) X(T4, "t4", 29) X(T5, "t5", 30) X(T6, "t6", 31)      \
	X(FP, "fp", 8)                                                       \
	X(X1, "x1", 1) X(X2, "x2", 2) X(X3, "x3", 3) X(X4, "x4", 4)          \
	X(X5, "x5", 5) X(X6, "x6", 6) X(X7, "x7", 7) X(X8, "x8", 8)          \
	X(X9, "x9", 9) X(X10, "x10", 10) X(X11, "x11", 11)                   \
	X(X12, "x12", 12) X(X13, "x13", 13) X(X14, "x14", 14)                \
	X(X15, "x15", 15) X(X16, "x16", 16) X(X17, "x17", 17)                \
	X(X18, "x18", 18) X(X19, "x19", 19) X(X20, "x20", 20)                \
	X(X21, "x21", 21) X(X22, "x22", 22) X(X23, "x23", 23)                \
	X(X24, "x24", 24) X(X25, "x25", 25) X(X26, "x26", 26)                \
	X(X27, "x27", 27) X(X28, "x28", 28) X(X29, "x29", 29)                \
	X(X30, "x30", 30) X(X31, "x31", 31)

#define RISCV_REG_ENUM(e, name, id) RVE_##e,
enum riscv_reg_entry {
	RISCV_REG_LIST(RISCV_REG_ENUM)
	RVE_NR
};
#undef RISCV_REG_ENUM

#endif
