/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `usdtkit trace --filter EXPR`: EXPR compiled (trace/filter.c) into a
 * short program of comparisons that the precompiled BPF program runs on
 * every hit. Nothing is compiled on the target: the program is data, one
 * copy per probe (its arguments' signs differ) in the probe's struct
 * usdtkit_trace_cfg.
 *
 * Each instruction compares two operands and jumps to jt when the
 * comparison holds, to jf when not; a jump is to a later instruction, or
 * to ACCEPT or REJECT. Forward jumps only: the program ends after at most
 * ninsns steps, and the interpreter's loop is bounded by the maximum.
 * `a && b`, `a || b` and `!a` are short-circuit jumps, so no stack is
 * needed.
 *
 * Shared by BPF and the host: fixed-width types, every pad explicit.
 */
#ifndef USDTKIT_TRACE_FILTER_H
#define USDTKIT_TRACE_FILTER_H

#define USDTKIT_FILTER_MAX_INSNS	32
#define USDTKIT_FILTER_MAX_STRS		4
#define USDTKIT_FILTER_STR_MAX		64	/* bytes of a pattern, with its NUL */

/* jump targets past the last instruction */
#define USDTKIT_FILTER_ACCEPT		0xfe
#define USDTKIT_FILTER_REJECT		0xff

/* usdtkit_filter_opnd.kind */
enum usdtkit_filter_src {
	USDTKIT_FSRC_CONST = 0,		/* val */
	USDTKIT_FSRC_ARG = 1,		/* argument `arg`, & val */
	USDTKIT_FSRC_PID = 2,		/* the process id (tgid), & val */
	USDTKIT_FSRC_TID = 3,		/* the thread id, & val */
};

/* usdtkit_filter_insn.op */
enum usdtkit_filter_op {
	USDTKIT_FOP_EQ = 0,
	USDTKIT_FOP_NE,
	USDTKIT_FOP_LT,
	USDTKIT_FOP_LE,
	USDTKIT_FOP_GT,
	USDTKIT_FOP_GE,
	/* l: the argument read as a user string; r unused; str: pattern */
	USDTKIT_FOP_STR_EQ,		/* the whole string is the pattern */
	USDTKIT_FOP_STR_PREFIX,		/* the string starts with it ("ab*") */
};

/* usdtkit_filter_insn.flags */
#define USDTKIT_FF_SIGNED	0x01	/* LT..GE compare as signed 64-bit */

struct usdtkit_filter_opnd {
	unsigned char kind;		/* enum usdtkit_filter_src */
	unsigned char arg;		/* FSRC_ARG: its number, 0-based */
	unsigned char pad[6];
	/* FSRC_CONST: the value; otherwise a mask ANDed to the value
	 * (~0: none), which is how `arg1 & 4` compiles */
	unsigned long long val __attribute__((aligned(8)));
};

struct usdtkit_filter_insn {
	unsigned char op;		/* enum usdtkit_filter_op */
	unsigned char flags;		/* USDTKIT_FF_* */
	unsigned char jt, jf;		/* next insn, or ACCEPT/REJECT */
	unsigned char str;		/* STR ops: index into strs[] */
	unsigned char pad[3];
	struct usdtkit_filter_opnd l, r;
};

struct usdtkit_filter_str {
	unsigned int len;		/* bytes of s before its NUL */
	unsigned int pad;
	char s[USDTKIT_FILTER_STR_MAX];
};

struct usdtkit_filter {
	unsigned int ninsns;		/* 0: no filter, every hit is kept */
	unsigned int pad;
	struct usdtkit_filter_insn insns[USDTKIT_FILTER_MAX_INSNS];
	struct usdtkit_filter_str strs[USDTKIT_FILTER_MAX_STRS];
};

_Static_assert(sizeof(struct usdtkit_filter_insn) == 40, "filter insn layout");
_Static_assert(sizeof(struct usdtkit_filter) ==
	       8 + 40 * USDTKIT_FILTER_MAX_INSNS + 72 * USDTKIT_FILTER_MAX_STRS,
	       "filter layout");

#endif
