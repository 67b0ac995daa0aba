/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A reference parser for USDT argument specs built the way libbpf (1.1 to
 * 1.4 era) builds its per-architecture parsers: for each argument, try a
 * short cascade of sscanf() patterns, then turn the register name into a
 * pt_regs offset with a linear strcmp() over a name table.
 *
 * It exists only as the "before" side of bench/parse_bench.c. It knows no
 * SIB addressing, symbols, relocations, floats, register pairs or shifted
 * operands -- those arguments count as failed, as they would in libbpf.
 *
 * Unlike libbpf, which gives up on the whole probe at the first bad
 * argument, it skips a failed argument and goes on, so that failures can
 * be counted per argument.
 */
#ifndef USDTKIT_BENCH_SSCANF_BASELINE_H
#define USDTKIT_BENCH_SSCANF_BASELINE_H

#include <stdint.h>

enum sb_kind {
	SB_FAILED = 0,	/* no pattern matched, unknown register or bad size */
	SB_CONST,	/* value in val_off */
	SB_REG,		/* read the register at reg_off */
	SB_REG_DEREF,	/* read memory at reg(reg_off) + val_off */
};

struct sb_arg {
	uint8_t kind;	/* enum sb_kind */
	uint8_t size;	/* 1, 2, 4 or 8 (0 when failed) */
	uint8_t is_signed;
	int16_t reg_off;/* byte offset in the arch's pt_regs, -1 for none */
	long val_off;	/* CONST: the value; REG_DEREF: the displacement */
};

struct sb_parser;

/*
 * The parser for a usdtkit architecture name: "x86_64", "x32", "i386",
 * "aarch64", "arm", "riscv64" or "s390x". NULL for anything else.
 */
const struct sb_parser *sb_parser_by_name(const char *name);
const char *sb_parser_name(const struct sb_parser *p);

/*
 * Parse the NUL-terminated args string @s. Fills at most @max entries of
 * @out and returns the number of arguments seen; *@nfailed gets how many
 * of them failed (kind SB_FAILED).
 */
int sb_args_parse(const struct sb_parser *p, const char *s, struct sb_arg *out,
		  int max, int *nfailed);

#endif /* USDTKIT_BENCH_SSCANF_BASELINE_H */
