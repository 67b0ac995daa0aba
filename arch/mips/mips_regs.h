/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * MIPS64 (n64) register ids and register-table entries, shared by the
 * mips64el and mips64 backends (one lexer, two descriptors).
 *
 * Register id n (1..31) is regs[n] of the kernel's struct pt_regs. $0 is
 * hard-wired to 0: the lexer gives it a TOK_ZERO token, so it has no table
 * entry. Id MIPS_EPC is cp0_epc, the probe's IP, which no operand can
 * name (GAS has no such general register): it is in the layout only.
 */
#ifndef USDTKIT_ARCH_MIPS_REGS_H
#define USDTKIT_ARCH_MIPS_REGS_H

#define MIPS_EPC	32	/* cp0_epc: layout id past the 32 GPRs */
#define MIPS_NR_IDS	33

/*
 * X(entry suffix, name, id), in table order. The numeric names come first
 * and in register order, so that usdtkit_arch_reg_name() prefers them, as
 * GCC does when it prints sdt.h operands. The lexer relies on each group
 * (R1-R31, A0-A7, TA0-TA3, T0-T3, S0-S7, T8-T9, K0-K1, KT0-KT1) being
 * contiguous. The names are those GAS accepts with -mabi=64: a4-a7 and
 * ta0-ta3 are $8-$11 and t0-t3 are $12-$15 (o32's t4-t7 do not exist).
 */
#define MIPS_REG_LIST(X)                                                      \
	X(R1, "$1", 1) X(R2, "$2", 2) X(R3, "$3", 3) X(R4, "$4", 4)          \
	X(R5, "$5", 5) X(R6, "$6", 6) X(R7, "$7", 7) X(R8, "$8", 8)          \
	X(R9, "$9", 9) X(R10, "$10", 10) X(R11, "$11", 11)                   \
	X(R12, "$12", 12) X(R13, "$13", 13) X(R14, "$14", 14)                \
	X(R15, "$15", 15) X(R16, "$16", 16) X(R17, "$17", 17)                \
	X(R18, "$18", 18) X(R19, "$19", 19) X(R20, "$20", 20)                \
	X(R21, "$21", 21) X(R22, "$22", 22) X(R23, "$23", 23)                \
	X(R24, "$24", 24) X(R25, "$25", 25) X(R26, "$26", 26)                \
	X(R27, "$27", 27) X(R28, "$28", 28) X(R29, "$29", 29)                \
	X(R30, "$30", 30) X(R31, "$31", 31)                                  \
	X(AT, "$at", 1) X(V0, "$v0", 2) X(V1, "$v1", 3)                      \
	X(A0, "$a0", 4) X(A1, "$a1", 5) X(A2, "$a2", 6) X(A3, "$a3", 7)      \
	X(A4, "$a4", 8) X(A5, "$a5", 9) X(A6, "$a6", 10) X(A7, "$a7", 11)    \
	X(TA0, "$ta0", 8) X(TA1, "$ta1", 9) X(TA2, "$ta2", 10)               \
	X(TA3, "$ta3", 11)                                                   \
	X(T0, "$t0", 12) X(T1, "$t1", 13) X(T2, "$t2", 14) X(T3, "$t3", 15)  \
	X(S0, "$s0", 16) X(S1, "$s1", 17) X(S2, "$s2", 18) X(S3, "$s3", 19)  \
	X(S4, "$s4", 20) X(S5, "$s5", 21) X(S6, "$s6", 22) X(S7, "$s7", 23)  \
	X(T8, "$t8", 24) X(T9, "$t9", 25)                                    \
	X(K0, "$k0", 26) X(K1, "$k1", 27) X(KT0, "$kt0", 26)                 \
	X(KT1, "$kt1", 27)                                                   \
	X(GP, "$gp", 28) X(SP, "$sp", 29) X(FP, "$fp", 30) X(S8, "$s8", 30)  \
	X(RA, "$ra", 31)

#define MIPS_REG_ENUM(e, name, id) MIPSE_##e,
enum mips_reg_entry {
	MIPS_REG_LIST(MIPS_REG_ENUM)
	MIPSE_NR
};
#undef MIPS_REG_ENUM

#endif
