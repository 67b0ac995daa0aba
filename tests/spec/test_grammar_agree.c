// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Every backend's two grammars must agree (tests/helpers/grammar_agree.h): the
 * whole-operand fast path either declines an operand, writing nothing,
 * or gives exactly the IR and end position of the token grammar.
 *
 * Operands, for every arch in the registry:
 *  - each operand of tests/corpus/specs.tsv (argv[1]), in its args
 *    string and alone, on every arch that shares the row's grammars (so
 *    riscv32 reads the riscv64 rows); rows of an arch without a backend
 *    are skipped and counted;
 *  - each register of the arch's table in every operand shape of any
 *    backend, alone and paired with every other register;
 *  - edge constants (INT64_MIN/MAX, one past them, 2^64, hex, -0, octal)
 *    in the constant and displacement shapes;
 *  - seeded random mutations of the corpus operands.
 * Each generated operand is checked alone and followed by another
 * argument, so both ways an operand can end are covered.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grammar_agree.h"

#define MAX_ARGS 64
#define MAX_PRINTED 40	/* FAIL lines per arch: every arch gets its say */
#define MUTATIONS 6000
#define OP_MAX 256

static long n_agreed, n_declined, n_failed, n_unprinted;

/* Whether another FAIL line of @arch may be printed. */
static bool may_print(const struct usdtkit_arch *arch)
{
	static const struct usdtkit_arch *seen[64];
	static int printed[64];
	size_t i;

	for (i = 0; i < 64 && seen[i] && seen[i] != arch; i++)
		;
	if (i == 64)
		return false;
	seen[i] = arch;
	return printed[i]++ < MAX_PRINTED;
}

static void record(const struct usdtkit_arch *arch, const char *spec,
		   const char *op, const char *end)
{
	struct ga_diff d;

	switch (ga_check(arch, spec, op, end, &d)) {
	case GA_AGREED:
		n_agreed++;
		break;
	case GA_DECLINED:
		n_agreed++;
		n_declined++;
		break;
	case GA_FAILED:
		n_failed++;
		if (may_print(arch))
			ga_print_fail(stdout, arch, op, &d);
		else
			n_unprinted++;
		break;
	}
}

/* Check one operand text: alone, and followed by another argument. */
static void check_op(const struct usdtkit_arch *arch, const char *op,
		     size_t len)
{
	static const char next[] = " -4@0";
	char buf[OP_MAX + sizeof(next)];

	if (len > OP_MAX)
		len = OP_MAX;
	memcpy(buf, op, len);
	record(arch, buf, buf, buf + len);
	memcpy(buf + len, next, sizeof(next) - 1);
	record(arch, buf, buf, buf + len + sizeof(next) - 1);
}

/* ---- the corpus ---- */

struct op_ref {
	const struct usdtkit_arch *arch;
	char *text;
	size_t len;
};

static struct op_ref *ops;
static size_t n_ops, cap_ops;

static void keep_op(const struct usdtkit_arch *arch, const char *s, size_t len)
{
	if (n_ops == cap_ops) {
		cap_ops = cap_ops ? 2 * cap_ops : 1024;
		ops = realloc(ops, cap_ops * sizeof(*ops));
		if (!ops) {
			perror("realloc");
			exit(2);
		}
	}
	ops[n_ops].arch = arch;
	ops[n_ops].text = strndup(s, len);
	ops[n_ops].len = len;
	if (!ops[n_ops].text) {
		perror("strndup");
		exit(2);
	}
	n_ops++;
}

static bool is_blank(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Every operand of @text as core/spec/spec.c splits it, on @arch: in place
 * (the operand runs to the end of the args string) and alone. */
static void check_args(const struct usdtkit_arch *arch, const char *text,
		       size_t len, bool keep)
{
	struct usdtkit_arg args[MAX_ARGS];
	const char *end = text + len;
	int n, i;

	n = usdtkit_args_parse(arch, text, len, args, MAX_ARGS);
	while (end > text && is_blank(end[-1]))
		end--;
	for (i = 0; i < n && i < MAX_ARGS; i++) {
		const char *op = text + args[i].op_off;
		size_t oplen = args[i].text_off + args[i].text_len - args[i].op_off;

		record(arch, text, op, end);
		check_op(arch, op, oplen);
		if (keep)
			keep_op(arch, op, oplen);
	}
}

/* The arches whose grammars are @arch's: x86_64, i386 and x32 share one
 * backend, riscv64 and riscv32 another. */
static bool same_grammars(const struct usdtkit_arch *a,
			  const struct usdtkit_arch *b)
{
	return a->parse_fast == b->parse_fast &&
	       a->parse_operand == b->parse_operand;
}

static int split_tsv(char *line, char **cols, int max)
{
	int n = 0;

	cols[n++] = line;
	for (; *line && n < max; line++) {
		if (*line == '\t') {
			*line = 0;
			cols[n++] = line + 1;
		}
	}
	return n;
}

static int run_corpus(const char *path)
{
	char *line = NULL, *cols[8], skipped_names[256] = "";
	long rows = 0, skipped = 0;
	size_t cap = 0;
	ssize_t got;
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		return -1;
	}
	while ((got = getline(&line, &cap, f)) > 0) {
		const struct usdtkit_arch *arch, *other;
		size_t i;

		if (line[got - 1] == '\n')
			line[--got] = 0;
		if (split_tsv(line, cols, 8) < 5 || !strcmp(cols[0], "arch"))
			continue;
		rows++;
		arch = usdtkit_arch_by_name(cols[0]);
		if (!arch) {
			skipped++;
			if (!strstr(skipped_names, cols[0]) &&
			    strlen(skipped_names) + strlen(cols[0]) + 2 <
				    sizeof(skipped_names)) {
				strcat(skipped_names, " ");
				strcat(skipped_names, cols[0]);
			}
			continue;
		}
		for (i = 0; (other = usdtkit_arch_at(i)); i++)
			if (same_grammars(arch, other))
				check_args(other, cols[4], strlen(cols[4]),
					   other == arch);
	}
	free(line);
	fclose(f);
	printf("corpus: %ld rows, %ld skipped (no backend:%s), %zu operands\n",
	       rows, skipped, skipped_names, n_ops);
	return rows > skipped ? 0 : -1;
}

/* ---- generated operands ---- */

/*
 * Operand shapes of every backend: \1 and \2 stand for register names,
 * \3 for a number. Every arch gets all of them: a shape another backend
 * has is still an operand the grammars must agree on.
 */
static const char *const shapes1[] = {
	"\1", "$\1", "#\1", "\1:", "-\1", "\1+8", "\1 ", "\1x", "\1)",
	"(\1)", "8(\1)", "-8(\1)", "0(\1)", "-0(\1)", "08(\1)", "0x8(\1)",
	"( \1)", "(\1 )", "(\1,)", "(,\1)", "(,\1,4)", "(\1,\1)", "8(\1,\1,8)",
	"sym(\1)", "sym+8(\1)", "8+sym(\1)", "sym@GOTOFF(\1)", "%lo(sym)(\1)",
	"%lo(8)(\1)", "8(\1)x", "8(\1))", "8(\1", "%fs:8(\1)", "*\1",
	"[\1]", "[\1", "[\1]!", "[\1],", "[ \1]", "[\1 ]", "[\1, #8]",
	"[\1,#-8]", "[\1, 8]", "[\1,  #0]", "[\1, #-0]", "[\1, #08]",
	"[\1, #0x8]", "[\1, #:lo12:sym]", "[\1, :lo12:sym]", "[\1, \1]",
	"[\1, \1, lsl #2]", "[\1,\1,lsl #3]", "[\1, \1, lsl 1]",
	"[\1, \1, lsl #4]", "[\1, \1, lsl2]", "[\1,\1,lsl#2]", "[\1, \1,lsl0]", "[\1, \1, uxtw #2]", "[\1, \1, sxtw]",
	"[\1, \1, sxtx #3]", "[\1, -\1]", "[\1, +\1]", "[\1, \1, asr #2]",
	"[\1, #8]!", "[\1], #8",
};

static const char *const shapes2[] = {
	"(\1,\2)", "(\1,\2,4)", "-8(\1,\2,1)", "8(\1,\2,8)", "(,\2,2)",
	"(\1,\2,3)", "8(\2,\1)", "[\1, \2]", "[\1,\2]", "[\1, \2, lsl #2]",
	"[\1, \2, uxtw #3]", "[\1, \2, lsl #0]",
};

static const char *const shapes_num[] = {
	"\3", "$\3", "#\3", "\3(\1)", "\3(\1,\2,4)", "[\1, #\3]", "[\1, \3]",
	"$-\3", "#-\3",
};

static const char *const numbers[] = {
	"0", "-0", "00", "-00", "1", "-1", "010", "08", "0b101", "0B2",
	"0x10", "0X1f", "0x", "-0x10",
	"9223372036854775807", "-9223372036854775807",
	"9223372036854775808", "-9223372036854775808",
	"9223372036854775809", "-9223372036854775809",
	"18446744073709551615", "-18446744073709551615",
	"18446744073709551616", "-18446744073709551616",
	"99999999999999999999", "1234567890123456789",
	"-1234567890123456789", "12345678901234567890",
	"0x7fffffffffffffff", "0x8000000000000000", "0xffffffffffffffff",
	"0x10000000000000000", "01777777777777777777777",
	"02000000000000000000000", "0b1111111111111111111111111111111111111111111111111111111111111111",
	"0b10000000000000000000000000000000000000000000000000000000000000000",
	"+5", "--5", "-+5", "1.5", "1e3",
};

/* Expand @shape with register names @r1, @r2 and number @num. */
static size_t expand(char *out, size_t size, const char *shape,
		     const char *r1, const char *r2, const char *num)
{
	size_t n = 0;

	for (; *shape; shape++) {
		const char *s = *shape == '\1' ? r1 : *shape == '\2' ? r2 :
				*shape == '\3' ? num : NULL;
		size_t l = s ? strlen(s) : 1;

		if (n + l >= size)
			break;
		memcpy(out + n, s ? s : shape, l);
		n += l;
	}
	out[n] = 0;
	return n;
}

static void check_shape(const struct usdtkit_arch *arch, const char *shape,
			const char *r1, const char *r2, const char *num)
{
	char buf[OP_MAX];
	size_t n = expand(buf, sizeof(buf), shape, r1, r2, num);

	check_op(arch, buf, n);
}

/* A register as an operand may spell it: bare, %-prefixed (AT&T and
 * s390x) or in upper case (arm, arm64). */
#define SPELLINGS 3

static void spell(char *out, size_t size, const char *name, int how)
{
	size_t i;

	snprintf(out, size, "%s%s", how == 1 ? "%" : "", name);
	if (how == 2)
		for (i = 0; out[i]; i++)
			out[i] = (char)toupper((unsigned char)out[i]);
}

static void run_registers(const struct usdtkit_arch *arch)
{
	const struct usdtkit_regdef *r, *q;
	char a[32], b[32];
	size_t i, j, k;
	int how;

	for (i = 0; (r = usdtkit_arch_reg_at(arch, i)); i++) {
		for (how = 0; how < SPELLINGS; how++) {
			spell(a, sizeof(a), r->name, how);
			for (k = 0; k < sizeof(shapes1) / sizeof(shapes1[0]); k++)
				check_shape(arch, shapes1[k], a, a, "");
		}
		/* pairs: the spelling of the arch's own syntax is enough,
		 * both are tried */
		for (j = 0; (q = usdtkit_arch_reg_at(arch, j)); j++) {
			for (how = 0; how < 2; how++) {
				spell(a, sizeof(a), r->name, how);
				spell(b, sizeof(b), q->name, how);
				for (k = 0; k < sizeof(shapes2) / sizeof(shapes2[0]); k++)
					check_shape(arch, shapes2[k], a, b, "");
			}
		}
	}
}

/*
 * Names that are no table entry but that some lexer takes as a register
 * (GAS aliases, zero registers) or nearly so; every arch gets them all in
 * every one-register shape.
 */
static const char *const words[] = {
	"fp", "lr", "ip", "ip0", "ip1", "sb", "sl", "wr", "a1", "a4", "v1",
	"v8", "pc", "sp", "zero", "x0", "xzr", "wzr", "wsp", "FP", "Lr",
	"IP0", "WZR", "s0", "f0", "ft0", "d0", "q15", "st", "st(1)", "xmm0",
	"fs", "r0", "r16", "x31", "w31", "eiz", "rip", "a16", "v32",
};

static void run_words(const struct usdtkit_arch *arch)
{
	char a[32];
	size_t i, k;
	int how;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		for (how = 0; how < 2; how++) {
			spell(a, sizeof(a), words[i], how);
			for (k = 0; k < sizeof(shapes1) / sizeof(shapes1[0]); k++)
				check_shape(arch, shapes1[k], a, a, "");
		}
	}
}

/* Every number in every numeric shape, with the first table register. */
static void run_numbers(const struct usdtkit_arch *arch)
{
	const struct usdtkit_regdef *r0 = usdtkit_arch_reg_at(arch, 0);
	char a[32];
	size_t i, k;
	int how;

	for (how = 0; how < 2; how++) {
		spell(a, sizeof(a), r0 ? r0->name : "r0", how);
		for (i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++)
			for (k = 0; k < sizeof(shapes_num) / sizeof(shapes_num[0]); k++)
				check_shape(arch, shapes_num[k], a, a, numbers[i]);
	}
}

/* ---- mutations ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;	/* fixed: reproducible */

static uint64_t next_rand(void)
{
	/* xorshift64 */
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static size_t pick(size_t n)
{
	return n ? (size_t)(next_rand() % n) : 0;
}

/* bytes operand syntax is made of, plus some that no grammar accepts */
static const char alphabet[] = "0123456789abcdefxwrslpAXW%$#@:()[],+-! \t\n.";

static size_t mutate(char *buf, size_t len, size_t size)
{
	int edits = 1 + (int)pick(3), e;

	for (e = 0; e < edits; e++) {
		size_t at = pick(len + 1), from, n;

		switch (pick(6)) {
		case 0:	/* replace */
			if (at < len)
				buf[at] = alphabet[pick(sizeof(alphabet) - 1)];
			break;
		case 1:	/* insert */
			if (len + 1 < size) {
				memmove(buf + at + 1, buf + at, len - at);
				buf[at] = alphabet[pick(sizeof(alphabet) - 1)];
				len++;
			}
			break;
		case 2:	/* delete */
			if (at < len) {
				memmove(buf + at, buf + at + 1, len - at - 1);
				len--;
			}
			break;
		case 3:	/* duplicate a run of up to 4 bytes */
			from = pick(len);
			n = 1 + pick(4);
			if (from + n <= len && len + n < size) {
				char run[4];

				memcpy(run, buf + from, n);
				memmove(buf + at + n, buf + at, len - at);
				memcpy(buf + at, run, n);
				len += n;
			}
			break;
		case 4:	/* flip case */
			if (at < len && isalpha((unsigned char)buf[at]))
				buf[at] ^= 0x20;
			break;
		default:	/* a rare byte: NUL, high, quote */
			if (at < len)
				buf[at] = "\0\xff\x80'\"\\"[pick(6)];
			break;
		}
	}
	return len;
}

static void run_mutations(void)
{
	char buf[OP_MAX];
	int m;

	for (m = 0; m < MUTATIONS && n_ops; m++) {
		const struct op_ref *o = &ops[pick(n_ops)];
		const struct usdtkit_arch *other;
		size_t len = o->len < OP_MAX ? o->len : OP_MAX - 1, i;

		memcpy(buf, o->text, len);
		len = mutate(buf, len, sizeof(buf));
		for (i = 0; (other = usdtkit_arch_at(i)); i++)
			if (same_grammars(o->arch, other))
				check_op(other, buf, len);
	}
}

/* What one part of the run added to the counts. */
static void phase(const char *name)
{
	static long agreed, declined, failed;

	printf("%s: %ld agreed (%ld declined by the fast path), %ld failed\n",
	       name, n_agreed - agreed, n_declined - declined,
	       n_failed - failed);
	agreed = n_agreed;
	declined = n_declined;
	failed = n_failed;
}

int main(int argc, char **argv)
{
	const struct usdtkit_arch *arch;
	size_t i;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: %s specs.tsv\n", argv[0]);
		return 2;
	}
	err = run_corpus(argv[1]);
	phase("corpus");
	for (i = 0; (arch = usdtkit_arch_at(i)); i++) {
		run_registers(arch);
		run_words(arch);
		run_numbers(arch);
	}
	phase("generated");
	run_mutations();
	phase("mutated");
	if (n_unprinted)
		printf("(%ld more failures not printed)\n", n_unprinted);
	printf("%ld agreed (%ld declined by the fast path), %ld failed\n",
	       n_agreed, n_declined, n_failed);
	for (i = 0; i < n_ops; i++)
		free(ops[i].text);
	free(ops);
	return err || n_failed || !n_agreed ? 1 : 0;
}
