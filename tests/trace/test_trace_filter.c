// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * trace --filter: EXPR compiled by trace/filter.c and run by the
 * interpreter the BPF program includes (trace/bpf/trace_filter_run.h), on
 * the host, with bpf_probe_read_user_str() emulated on host pointers.
 *   table:  expressions x sample hits, with the hits kept written out;
 *   errors: bad expressions, with their column and message;
 *   random: expressions generated with their truth value, against the
 *           compiled program, thousands of them from a fixed seed;
 *   soup:   random token sequences, which must never crash;
 * and every program compiled has forward jumps only and fits.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "trace/internal.h"

/* bpf_probe_read_user_str(): bytes copied with the NUL, cut at @size;
 * -EFAULT for NULL. The largest size asked for is kept, to check that
 * the interpreter never reads past its buffer. */
static unsigned int read_str_max;
static bool known_ptr(const char *s);

static long host_read_str(char *dst, unsigned int size, unsigned long long ptr)
{
	const char *s = (const char *)(uintptr_t)ptr;
	unsigned int i;

	if (size > read_str_max)
		read_str_max = size;
	/* a hit's other arguments are numbers: reading them faults */
	if (!s || !known_ptr(s))
		return -14;
	if (!size)
		return -22;
	for (i = 0; i + 1 < size && s[i]; i++)
		dst[i] = s[i];
	dst[i] = 0;
	return (long)i + 1;
}

#define USDTKIT_FILTER_READ_STR(dst, size, ptr) host_read_str(dst, size, ptr)
#define USDTKIT_FILTER_INLINE static inline
#include "trace/bpf/trace_filter_run.h"

#define A63 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

/* forward jumps only, within the program, every field in range */
static bool prog_ok(const struct usdtkit_filter *f, char *why, size_t size)
{
	unsigned int i, k, nstrs = 0;

	if (f->ninsns > USDTKIT_FILTER_MAX_INSNS) {
		snprintf(why, size, "ninsns %u", f->ninsns);
		return false;
	}
	for (i = 0; i < USDTKIT_FILTER_MAX_STRS; i++)
		if (f->strs[i].len || f->strs[i].s[0])
			nstrs = i + 1;
	for (i = 0; i < f->ninsns; i++) {
		const struct usdtkit_filter_insn *in = &f->insns[i];
		unsigned int j[2] = { in->jt, in->jf };

		for (k = 0; k < 2; k++) {
			if (j[k] == USDTKIT_FILTER_ACCEPT || j[k] == USDTKIT_FILTER_REJECT)
				continue;
			if (j[k] <= i || j[k] >= f->ninsns) {
				snprintf(why, size, "insn %u jumps to %u", i, j[k]);
				return false;
			}
		}
		if (in->op > USDTKIT_FOP_STR_PREFIX ||
		    (in->op >= USDTKIT_FOP_STR_EQ && in->str >= USDTKIT_FILTER_MAX_STRS) ||
		    (in->op >= USDTKIT_FOP_STR_EQ && in->str >= nstrs && f->strs[in->str].len)) {
			snprintf(why, size, "insn %u: op %u str %u", i, in->op, in->str);
			return false;
		}
	}
	for (i = 0; i < USDTKIT_FILTER_MAX_STRS; i++)
		if (f->strs[i].len >= USDTKIT_FILTER_STR_MAX) {
			snprintf(why, size, "pattern %u: len %u", i, f->strs[i].len);
			return false;
		}
	return true;
}

/* parse and compile @expr for @args; 0 or the error in @err */
static int build(const char *expr, const struct usdtkit_trace_type *args, int nargs,
		 struct usdtkit_filter *f, struct usdtkit_trace_filter_err *err)
{
	struct filter_expr *e;
	char why[80];
	int ret;

	memset(err, 0, sizeof(*err));
	ret = usdtkit__filter_parse(expr, &e, err);
	if (ret)
		return ret;
	ret = usdtkit__filter_compile(e, args, nargs, f, err);
	usdtkit__filter_free(e);
	if (!ret)
		CHECK(prog_ok(f, why, sizeof(why)), "%s: %s", expr, why);
	return ret;
}

/* ---- (a) the table ---- */

/* arg0 s64, arg1 u32, arg2 u64, arg3 s32, arg4 a string (u64), arg5 double */
static const struct usdtkit_trace_type probe_args[] = {
	{ 8, true, false }, { 4, false, false }, { 8, false, false },
	{ 4, true, false }, { 8, false, false }, { 8, true, true },
};

struct sample {
	long long a0;
	unsigned long long a1, a2;
	long long a3;
	const char *s;
	unsigned int pid, tid;
};

static const struct sample samples[] = {
	{ -5, 0xffffffff, 0x8000000000000000ULL, -1, "hello", 100, 101 },
	{ 7, 4, 1, 3, "help", 200, 200 },
	{ 0, 0, 0, 0, NULL, 1, 2 },
	{ INT64_MIN, 6, ~0ULL, 0x7fffffff, "", 100, 300 },
	{ 1, 1, 2, -2147483647LL - 1, A63, 5, 5 },
	{ -1, 0x80000000, 5, 5, A63 "a", 5, 6 },
};
#define NSAMPLES (sizeof(samples) / sizeof(samples[0]))

static const char *const rand_strs[] = {
	"hello", "help", "he", "", NULL, "hel*", "hellos",
};
static const char soup_str[] = "abc";

static bool known_ptr(const char *s)
{
	size_t i;

	for (i = 0; i < NSAMPLES; i++)
		if (s == samples[i].s)
			return true;
	for (i = 0; i < sizeof(rand_strs) / sizeof(rand_strs[0]); i++)
		if (s == rand_strs[i])
			return true;
	return s == soup_str;
}

static void sample_hit(const struct sample *s, struct usdtkit_filter_hit *h)
{
	memset(h, 0, sizeof(*h));
	h->args[0] = s->a0;
	h->args[1] = (long long)s->a1;
	h->args[2] = (long long)s->a2;
	h->args[3] = s->a3;
	h->args[4] = (long long)(uintptr_t)s->s;
	h->args[5] = 0x4000000000000000LL;	/* 2.0 */
	h->pid = s->pid;
	h->tid = s->tid;
}

static const struct {
	const char *expr;
	const char *keep;	/* per sample: K kept, D dropped */
} table[] = {
	/* signed and unsigned arguments */
	{ "arg0 < 0", "KDDKDK" },
	{ "arg1 > 5", "KDDKDK" },
	{ "arg2 > 0x7fffffffffffffff", "KDDKDD" },
	{ "arg3 < 0", "KDDDKD" },
	{ "arg3 >= -2147483648", "KKKKKK" },
	{ "arg0 == -5", "KDDDDD" },
	{ "arg3 == -0x1", "KDDDDD" },
	{ "arg0 == -9223372036854775808", "DDDKDD" },
	{ "arg2 == 18446744073709551615", "DDDKDD" },
	/* folded: outside the other side's range */
	{ "arg2 < 0", "DDDDDD" },
	{ "arg2 >= -1", "KKKKKK" },
	{ "-1 < arg2", "KKKKKK" },
	{ "arg0 < 0x8000000000000000", "KKKKKK" },
	{ "0x8000000000000000 <= arg0", "DDDDDD" },
	{ "arg0 == 0xfffffffffffffffb", "DDDDDD" },
	{ "pid > -1", "KKKKKK" },
	/* two arguments */
	{ "arg0 > arg3", "DKDDKD" },
	{ "arg2 > arg1", "KDDKKD" },
	{ "arg0 < arg1", "KDDKDK" },	/* signed: one side is */
	/* masks */
	{ "arg1 & 4", "KKDKDD" },
	{ "arg1 & 4 == 4", "KKDKDD" },
	{ "4 & arg1 & 2", "DDDDDD" },
	{ "(arg1 & 0x6) == 6", "KDDKDD" },
	{ "arg0 & -2 == -6", "KDDDDD" },
	{ "arg0 & 0xff > 200", "KDDDDK" },
	{ "arg0 & 0x8000000000000000 > 0", "KDDKDK" },
	{ "arg0 & -1 < 0", "KDDKDK" },
	{ "0x10 & 0x11 == 16", "KKKKKK" },
	{ "-1 & -1 < 0", "KKKKKK" },
	{ "0xffffffffffffffff & -1 > 0", "KKKKKK" },
	/* pid, tid */
	{ "pid == 100", "KDDKDD" },
	{ "tid != pid", "KDKKDK" },
	{ "tid & 1", "KDDDKD" },
	/* strings */
	{ "str(arg4) == \"hello\"", "KDDDDD" },
	{ "str(arg4) == \"hel*\"", "KKDDDD" },
	{ "str(arg4) != \"hello\"", "DKKKKK" },
	{ "str(arg4) != \"hel*\"", "DDKKKK" },
	{ "str(arg4) == \"*\"", "KKDKKK" },
	{ "str(arg4) == \"\"", "DDDKDD" },
	{ "str(arg4) == \"" A63 "\"", "DDDDKD" },
	{ "str(arg4) == \"" A63 "*\"", "DDDDKK" },
	{ "str(arg4) == \"aa*\"", "DDDDKK" },
	{ "\"help\" == str(arg4)", "DKDDDD" },
	{ "str(arg4) == \"hel\\*\"", "DDDDDD" },
	{ "str(arg4) == \"he\\\\\"", "DDDDDD" },
	{ "str(arg4) == \"hello\" || str(arg4) == \"help\"", "KKDDDD" },
	/* precedence, short circuits, nesting */
	{ "arg0 < 0 || arg1 == 4 && pid == 1", "KDDKDK" },
	{ "(arg0 < 0 || arg1 == 4) && pid == 200", "DKDDDD" },
	{ "arg0 < 0 && str(arg4) == \"hel*\"", "KDDDDD" },
	{ "!arg2", "DDKDDD" },
	{ "!!arg2", "KKDKKK" },
	{ "!(arg0 < 0 && !(pid == 100))", "KKKKKD" },
	{ "!(!(!(arg1 & 4)))", "DDKDKK" },
	{ "!(str(arg4) == \"he*\") && !(arg0 == 0)", "DDDKKK" },
	{ "arg1 && arg2", "KKDKKK" },
	{ "arg0 || arg3", "KKDKKK" },
	{ "arg0 == 1 || arg0 == 7 || arg0 == -1", "DKDDKK" },
	{ "arg0 != 1 && arg0 != 7 && arg0 != -1", "KDKKDD" },
	{ "(pid == 5 || pid == 1) && (tid == 2 || tid == 6)", "DDKDDK" },
	/* constants */
	{ "1", "KKKKKK" },
	{ "0", "DDDDDD" },
	{ "-0 == 0", "KKKKKK" },
	{ "0 || pid == 5", "DDDDKK" },
	{ "1 && pid == 5", "DDDDKK" },
	{ "pid == 5 && 0", "DDDDDD" },
	{ "pid == 5 || 1", "KKKKKK" },
	{ "!0 && !(1 > 2) && (pid == 5)", "DDDDKK" },
	{ "  arg0<0||pid==5 ", "KDDKKK" },
	{ "\targ0\n<\r0", "KDDKDK" },
};

static void test_table(void)
{
	struct usdtkit_filter f;
	struct usdtkit_filter_hit h;
	struct usdtkit_trace_filter_err err;
	char got[NSAMPLES + 1];
	size_t i, k;
	int ret;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		ret = build(table[i].expr, probe_args, 6, &f, &err);
		CHECK(!ret, "%s: col %d: %s", table[i].expr, err.col, err.msg);
		if (ret)
			continue;
		for (k = 0; k < NSAMPLES; k++) {
			sample_hit(&samples[k], &h);
			got[k] = usdtkit_filter_run(&f, &h) ? 'K' : 'D';
		}
		got[NSAMPLES] = 0;
		CHECK(!strcmp(got, table[i].keep), "%s: kept %s, want %s",
		      table[i].expr, got, table[i].keep);
	}
	CHECK(read_str_max <= sizeof(h.buf), "read %u bytes into %zu",
	      read_str_max, sizeof(h.buf));
}

/* what compiles to what: folding, masks, the sign flag */
static void test_shapes(void)
{
	struct usdtkit_filter f;
	struct usdtkit_trace_filter_err err;

	CHECK(!build("1", probe_args, 6, &f, &err) && f.ninsns == 0, "1: %u", f.ninsns);
	CHECK(!build("arg2 < -1", probe_args, 6, &f, &err) && f.ninsns == 1 &&
	      f.insns[0].jt == USDTKIT_FILTER_REJECT &&
	      f.insns[0].jf == USDTKIT_FILTER_REJECT, "arg2 < -1: %u", f.ninsns);
	CHECK(!build("arg1 & 4 & 6", probe_args, 6, &f, &err) && f.ninsns == 1 &&
	      f.insns[0].op == USDTKIT_FOP_NE && f.insns[0].l.kind == USDTKIT_FSRC_ARG &&
	      f.insns[0].l.arg == 1 && f.insns[0].l.val == 4 &&
	      f.insns[0].r.kind == USDTKIT_FSRC_CONST && f.insns[0].r.val == 0,
	      "arg1 & 4 & 6");
	CHECK(!build("arg1 < 3", probe_args, 6, &f, &err) && f.insns[0].flags == 0,
	      "arg1 < 3: unsigned");
	CHECK(!build("arg1 < -3 || arg0 < 3 || arg1 < arg3", probe_args, 6, &f, &err) &&
	      f.ninsns == 2 && f.insns[0].flags == USDTKIT_FF_SIGNED &&
	      f.insns[1].flags == USDTKIT_FF_SIGNED, "signed");
	CHECK(!build("arg0 & 0xff < 3", probe_args, 6, &f, &err) && f.insns[0].flags == 0,
	      "a signed argument masked positive is unsigned");
	CHECK(!build("str(arg4) == \"ab*\" || str(arg4) != \"ab\"", probe_args, 6, &f, &err) &&
	      f.ninsns == 2 && f.insns[0].op == USDTKIT_FOP_STR_PREFIX &&
	      f.insns[1].op == USDTKIT_FOP_STR_EQ && f.insns[0].str == 0 &&
	      f.insns[1].str == 0 && f.strs[0].len == 2 && !strcmp(f.strs[0].s, "ab"),
	      "patterns share a slot");
	CHECK(!build("str(arg4) == \"a\\\"b\\\\c\"", probe_args, 6, &f, &err) &&
	      !strcmp(f.strs[0].s, "a\"b\\c") && f.strs[0].len == 5, "escapes: %s",
	      f.strs[0].s);
	/* 32 comparisons fit */
	{
		char e[1024];
		size_t n = 0;
		int i;

		for (i = 0; i < USDTKIT_FILTER_MAX_INSNS; i++)
			n += (size_t)snprintf(e + n, sizeof(e) - n, "%sarg1 == %d",
					      i ? " || " : "", i);
		CHECK(!build(e, probe_args, 6, &f, &err) &&
		      f.ninsns == USDTKIT_FILTER_MAX_INSNS, "32: %s", err.msg);
	}
}

/* ---- (b) errors ---- */

static void test_errors(void)
{
	static const struct {
		const char *expr;
		int nargs;
		int col;
		const char *msg;
	} bad[] = {
		{ "", 6, 1, "empty expression" },
		{ "   ", 6, 1, "empty expression" },
		{ "arg1 ==", 6, 8, "expected a value, found the end" },
		{ "arg1 > 1 &&", 6, 12, "expected a value" },
		{ "arg12 > 1", 6, 1, "'arg12' out of range: arguments are arg0 to arg11" },
		{ "arg99999999999 > 1", 6, 1, "out of range" },
		{ "foo > 1", 6, 1, "unknown identifier 'foo'" },
		{ "arg > 1", 6, 1, "unknown identifier 'arg'" },
		{ "arg1x > 1", 6, 1, "unknown identifier" },
		{ "arg1 > 1 arg2", 6, 10, "unexpected 'arg2' after a complete expression" },
		{ "pid == 1 )", 6, 10, "unexpected ')'" },
		{ "arg3 > 1", 2, 1, "arg3: probe has 2 arguments" },
		{ "pid == 1 || arg2", 2, 13, "probe has 2 arguments" },
		{ "0 && arg2 == 1", 2, 6, "probe has 2 arguments" },
		{ "arg1", 1, 1, "probe has 1 argument" },
		{ "str(arg9) == \"x\"", 2, 5, "arg9: probe has 2 arguments" },
		{ "arg5 == 1", 6, 1, "floating-point" },
		{ "arg5 & 1", 6, 1, "floating-point" },
		{ "arg1 & arg5", 6, 6, "one side of '&' must be a constant" },
		{ "str(arg1) == \"abc", 6, 14, "unterminated string" },
		{ "str(arg1) == \"abc\\", 6, 14, "unterminated string" },
		{ "str(arg1) == \"" A63 "a\"", 6, 14, "too long" },
		{ "str(arg1) == \"" A63 "a*\"", 6, 14, "too long" },
		{ "str(arg1) == \"a\\q\"", 6, 16, "unknown escape" },
		{ "arg1 > 18446744073709551616", 6, 8, "overflow" },
		{ "arg1 > 0x10000000000000000", 6, 8, "overflow" },
		{ "arg1 > -9223372036854775809", 6, 8, "overflow" },
		{ "arg1 > 012", 6, 8, "octal" },
		{ "arg1 > 0x", 6, 8, "bad number" },
		{ "arg1 > 12ab", 6, 8, "bad number" },
		{ "arg1 & arg2", 6, 6, "one side of '&' must be a constant" },
		{ "(arg1 > 2", 6, 10, "expected ')'" },
		{ "arg1 = 2", 6, 6, "'=='" },
		{ "arg1 | 2", 6, 6, "'||'" },
		{ "arg1 $ 2", 6, 6, "unexpected character '$'" },
		/* the words and quotes of other languages: the form here */
		{ "arg1 > 1 and arg2 < 2", 6, 10, "('and' is written && here)" },
		{ "arg1 > 1 OR arg2 < 2", 6, 10, "('OR' is written || here)" },
		{ "not arg1", 6, 1, "unknown identifier 'not' (argN, pid, tid or str(argN)) "
		  "('not' is written ! here)" },
		{ "(arg1 or arg2)", 6, 7, "found 'or' ('or' is written || here)" },
		{ "str(arg1) == 'x'", 6, 14, "strings are in double quotes" },
		{ "arg1 == \"x\"", 6, 9, "(the string arg1 points to is str(arg1))" },
		{ "\"x\" != arg2", 6, 1, "(the string arg2 points to is str(arg2))" },
		{ "/arg1 > 1/", 6, 1, "a bpftrace predicate /EXPR/ is EXPR here" },
		{ "arg1 >\x01", 6, 7, "unexpected byte 0x01" },
		{ "arg1 < 2 < 3", 6, 10, "do not chain" },
		{ "str(arg1) < \"a\"", 6, 11, "only with == or !=" },
		{ "str(arg1)", 6, 1, "str(arg1) is only compared" },
		{ "!str(arg1) == \"a\"", 6, 2, "str(arg1) is only compared" },
		{ "str(arg1) == arg2", 6, 1, "str(arg1) is only compared" },
		{ "\"a\" == arg1", 6, 1, "a string is only compared" },
		{ "\"a\"", 6, 1, "a string is only compared" },
		{ "str(pid) == \"a\"", 6, 5, "expected argN, found 'pid'" },
		{ "str arg1", 6, 5, "expected '(' after str" },
		{ "(arg1 > 2) == 1", 6, 2, "a condition is not a value" },
		{ "!arg1 & 4", 6, 1, "a condition is not a value" },
		{ "-arg1 > 0", 6, 1, "'-' applies only to a number" },
		{ "--1", 6, 1, "'-' applies only to a number" },
		{ "arg1 > 1 && (", 6, 14, "expected a value" },
	};
	struct usdtkit_filter f;
	struct usdtkit_trace_filter_err err;
	char e[2048];
	size_t i, n;
	int ret;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ret = build(bad[i].expr, probe_args, bad[i].nargs, &f, &err);
		CHECK(ret == -EINVAL && err.col == bad[i].col && strstr(err.msg, bad[i].msg),
		      "%s: %d, col %d: %s; want col %d: %s", bad[i].expr, ret, err.col,
		      err.msg, bad[i].col, bad[i].msg);
		CHECK(ret || f.ninsns, "%s", bad[i].expr);
	}
	/* a word that only begins like one gets no hint */
	ret = build("arg1 > 1 andy", probe_args, 6, &f, &err);
	CHECK(ret == -EINVAL && !strcmp(err.msg, "unexpected 'andy' after a complete expression"),
	      "andy: %s", err.msg);
	/* a failed compile leaves no program behind */
	ret = build("arg3 > 1", probe_args, 2, &f, &err);
	CHECK(ret && f.ninsns == 0, "no program after an error");

	/* too deep: the 65th '(' */
	memset(e, '(', 70);
	strcpy(e + 70, "arg1");
	memset(e + 74, ')', 70);
	e[144] = 0;
	ret = build(e, probe_args, 6, &f, &err);
	CHECK(ret == -EINVAL && err.col == 65 && strstr(err.msg, "nested too deeply"),
	      "deep: col %d: %s", err.col, err.msg);
	memset(e, '!', 1000);
	strcpy(e + 1000, "arg1");
	ret = build(e, probe_args, 6, &f, &err);
	CHECK(ret == -EINVAL && strstr(err.msg, "nested too deeply"), "!!!: %s", err.msg);

	/* 33 comparisons: the error is at the 33rd's operator */
	for (n = 0, i = 0; i < USDTKIT_FILTER_MAX_INSNS + 1; i++)
		n += (size_t)snprintf(e + n, sizeof(e) - n, "%sarg1 == 1", i ? " || " : "");
	ret = build(e, probe_args, 6, &f, &err);
	CHECK(ret == -EINVAL && err.col == 32 * 13 + 6 && strstr(err.msg, "too many comparisons"),
	      "33 comparisons: col %d: %s", err.col, err.msg);
	/* 5 patterns: the error is at the 5th str */
	ret = build("str(arg1) == \"a\" || str(arg1) == \"b\" || str(arg1) == \"c\" || "
		    "str(arg1) == \"d\" || str(arg1) == \"e\"", probe_args, 6, &f, &err);
	CHECK(ret == -EINVAL && err.col == 81 && strstr(err.msg, "too many strings"),
	      "5 strings: col %d: %s", err.col, err.msg);
	/* a very long expression fails, cleanly */
	for (n = 0, i = 0; n + 16 < sizeof(e); i++)
		n += (size_t)snprintf(e + n, sizeof(e) - n, "%s1", i ? " && " : "");
	ret = build(e, probe_args, 6, &f, &err);
	CHECK(ret == -EINVAL && strstr(err.msg, "too long"), "long: %s", err.msg);
	/* 63 bytes and a star is a prefix of 63 */
	ret = build("str(arg4) == \"" A63 "*\"", probe_args, 6, &f, &err);
	CHECK(!ret && f.strs[0].len == 63, "63*: %s", err.msg);
	CHECK(usdtkit__filter_parse(NULL, &(struct filter_expr *){ NULL }, &err) == -EINVAL,
	      "NULL");
}

/* ---- (c) random expressions that know their truth ---- */

#define NHITS 8		/* each expression runs on this many hits */

struct rng {
	unsigned long long s;
};

static unsigned long long rnd(struct rng *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return r->s;
}

static unsigned int pick(struct rng *r, unsigned int n)
{
	return (unsigned int)(rnd(r) % n);
}

/* A value on every hit: a constant (sig: negative), or not (sig: it can
 * be negative: a signed argument, masked only by negative constants). */
struct gval {
	bool is_const, sig;
	unsigned long long v[NHITS];
};

struct gen {
	struct rng r;
	char buf[2048];
	size_t n;
	int leaves;
	bool sig[4];				/* arg0..arg3 */
	struct usdtkit_filter_hit hits[NHITS];
	const char *strs[NHITS];		/* arg4 */
};

static void put(struct gen *g, const char *tok)
{
	char last = g->n ? g->buf[g->n - 1] : ' ';
	size_t len = strlen(tok);
	bool word = (last >= '0' && last <= '9') || (last >= 'a' && last <= 'z') ||
		    (last >= 'A' && last <= 'Z') || last == '_';
	bool word2 = (tok[0] >= '0' && tok[0] <= '9') || (tok[0] >= 'a' && tok[0] <= 'z');

	if (g->n && ((word && word2) || pick(&g->r, 2)))
		g->buf[g->n++] = ' ';
	if (g->n + len + 2 >= sizeof(g->buf))
		return;
	memcpy(g->buf + g->n, tok, len);
	g->n += len;
	g->buf[g->n] = 0;
}

static const struct {
	unsigned long long v;
	bool neg;
} consts[] = {
	{ 0, false }, { 1, false }, { 2, false }, { 3, false }, { 4, false },
	{ 6, false }, { 100, false }, { 255, false }, { 0xffffffff, false },
	{ 0x80000000, false }, { 0x7fffffffffffffffULL, false },
	{ 0x8000000000000000ULL, false }, { ~0ULL, false },
	{ -1ULL, true }, { -2ULL, true }, { -5ULL, true },
	{ -0x80000000ULL, true }, { 0x8000000000000000ULL, true },
};

static const unsigned long long arg_pool[] = {
	0, 1, 2, 3, 4, 5, 6, 100, 255, 0xffffffff, 0x80000000, -1ULL, -2ULL,
	-5ULL, 0x7fffffffffffffffULL, 0x8000000000000000ULL, -0x80000000ULL,
};

static struct gval gen_const(struct gen *g)
{
	unsigned int i = pick(&g->r, sizeof(consts) / sizeof(consts[0])), h;
	unsigned long long mag = consts[i].neg ? -consts[i].v : consts[i].v;
	struct gval v = { .is_const = true, .sig = consts[i].neg };
	char t[40];

	if (!consts[i].neg && !mag && pick(&g->r, 4) == 0) {
		put(g, "-0");
	} else {
		snprintf(t, sizeof(t), pick(&g->r, 2) ? "%s%llu" : "%s0x%llx",
			 consts[i].neg ? "-" : "", mag);
		put(g, t);
	}
	for (h = 0; h < NHITS; h++)
		v.v[h] = consts[i].v;
	return v;
}

/* an atom: a constant, argN, pid, tid */
static struct gval gen_atom(struct gen *g)
{
	unsigned int k = pick(&g->r, 8), h;
	struct gval v = { 0 };
	char t[8];

	if (k < 2)
		return gen_const(g);
	if (k < 6) {
		snprintf(t, sizeof(t), "arg%u", k - 2);
		put(g, t);
		v.sig = g->sig[k - 2];
	} else {
		put(g, k == 6 ? "pid" : "tid");
	}
	for (h = 0; h < NHITS; h++) {
		if (k < 6)
			v.v[h] = (unsigned long long)g->hits[h].args[k - 2];
		else
			v.v[h] = k == 6 ? g->hits[h].pid : g->hits[h].tid;
	}
	return v;
}

/* x & c: two's complement on unbounded integers */
static struct gval band(struct gval a, const struct gval *b)
{
	unsigned int h;

	for (h = 0; h < NHITS; h++)
		a.v[h] &= b->v[h];
	a.sig = a.sig && b->sig;
	a.is_const = a.is_const && b->is_const;
	return a;
}

/* a value at the level of &; *top_and: it is `x & y` unparenthesized */
static struct gval gen_value(struct gen *g, bool *top_and)
{
	struct gval a, c;
	unsigned int k = pick(&g->r, 6);

	*top_and = false;
	if (k < 3)
		return gen_atom(g);
	if (k == 5) {
		put(g, "(");
		a = gen_value(g, top_and);
		put(g, ")");
		*top_and = false;
		return a;
	}
	*top_and = true;
	if (k == 3) {
		a = gen_atom(g);
		put(g, "&");
		c = gen_const(g);
	} else {
		c = gen_const(g);
		put(g, "&");
		a = gen_atom(g);
	}
	return band(a, &c);
}

static bool is_neg(const struct gval *v, unsigned int h)
{
	return v->sig && (long long)v->v[h] < 0;
}

/* the order of two values on hit @h, by the documented rule */
static int gorder(const struct gval *a, const struct gval *b, unsigned int h)
{
	unsigned long long x = a->v[h], y = b->v[h];
	bool sig = a->sig || b->sig;

	if (a->is_const || b->is_const) {
		if (is_neg(a, h) != is_neg(b, h))
			return is_neg(a, h) ? -1 : 1;
		sig = is_neg(a, h);
	}
	if (sig)
		return (long long)x < (long long)y ? -1 : x != y;
	return x < y ? -1 : x != y;
}

static unsigned int gen_or(struct gen *g, int depth);

static const char *const patterns[] = { "hello", "hel*", "help", "he*" };

static unsigned int gen_str(struct gen *g)
{
	const char *p = patterns[pick(&g->r, 4)];
	bool ne = pick(&g->r, 2), rev = pick(&g->r, 4) == 0;
	size_t len = strlen(p);
	bool prefix = p[len - 1] == '*';
	unsigned int h, m = 0;
	char q[16];

	snprintf(q, sizeof(q), "\"%s\"", p);
	put(g, rev ? q : "str(arg4)");
	put(g, ne ? "!=" : "==");
	put(g, rev ? "str(arg4)" : q);
	for (h = 0; h < NHITS; h++) {
		const char *s = g->strs[h];
		bool eq = s && (prefix ? !strncmp(s, p, len - 1) : !strcmp(s, p));

		if (eq != ne)
			m |= 1u << h;
	}
	return m;
}

static unsigned int truth_of(const struct gval *v, bool zero)
{
	unsigned int h, m = 0;

	for (h = 0; h < NHITS; h++)
		if ((v->v[h] == 0) == zero)
			m |= 1u << h;
	return m;
}

/* `!` binds tightest: its operand is an atom, a parenthesized
 * condition or another `!` */
static unsigned int gen_not(struct gen *g, int depth)
{
	const unsigned int all = (1u << NHITS) - 1;
	unsigned int k = pick(&g->r, depth > 0 ? 3 : 1), m;
	struct gval a;

	put(g, "!");
	if (k == 0) {
		g->leaves++;
		a = gen_atom(g);
		return truth_of(&a, true);
	}
	if (k == 2)
		return ~gen_not(g, depth - 1) & all;
	put(g, "(");
	m = gen_or(g, depth - 1);
	put(g, ")");
	return ~m & all;
}

/* the level of comparisons and of `!` */
static unsigned int gen_cmp(struct gen *g, int depth)
{
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=" };
	unsigned int k = pick(&g->r, depth > 0 ? 6 : 4), op, h, m = 0;
	struct gval a, b;
	bool top;
	int o;

	g->leaves++;
	if (k == 0) {
		a = gen_value(g, &top);
		return truth_of(&a, false);
	}
	if (k == 1)
		return gen_str(g);
	if (k == 2 || k == 3) {
		a = gen_value(g, &top);
		op = pick(&g->r, 6);
		put(g, ops[op]);
		b = gen_value(g, &top);
		for (h = 0; h < NHITS; h++) {
			o = gorder(&a, &b, h);
			if ((op == 0 && o == 0) || (op == 1 && o != 0) ||
			    (op == 2 && o < 0) || (op == 3 && o <= 0) ||
			    (op == 4 && o > 0) || (op == 5 && o >= 0))
				m |= 1u << h;
		}
		return m;
	}
	g->leaves--;
	if (k == 4) {
		put(g, "(");
		m = gen_or(g, depth - 1);
		put(g, ")");
		return m;
	}
	return gen_not(g, depth - 1);
}

static unsigned int gen_and(struct gen *g, int depth)
{
	unsigned int m = gen_cmp(g, depth);

	while (depth > 0 && g->leaves < 20 && pick(&g->r, 3) == 0) {
		put(g, "&&");
		m &= gen_cmp(g, depth - 1);
	}
	return m;
}

static unsigned int gen_or(struct gen *g, int depth)
{
	unsigned int m = gen_and(g, depth);

	while (depth > 0 && g->leaves < 20 && pick(&g->r, 3) == 0) {
		put(g, "||");
		m |= gen_and(g, depth - 1);
	}
	return m;
}

static void random_hits(struct gen *g)
{
	static const unsigned int ids[] = { 1, 100, 200, 0x80000000, 0xffffffff };
	unsigned int h, k, np = sizeof(arg_pool) / sizeof(arg_pool[0]);

	memset(g->hits, 0, sizeof(g->hits));
	for (h = 0; h < NHITS; h++) {
		for (k = 0; k < 4; k++)
			g->hits[h].args[k] = (long long)arg_pool[pick(&g->r, np)];
		g->strs[h] = rand_strs[pick(&g->r, 7)];
		g->hits[h].args[4] = (long long)(uintptr_t)g->strs[h];
		g->hits[h].pid = ids[pick(&g->r, 5)];
		g->hits[h].tid = ids[pick(&g->r, 5)];
	}
}

static void test_random(void)
{
	struct usdtkit_trace_type args[5] = { { 8, false, false } };
	struct usdtkit_filter f;
	struct usdtkit_filter_hit hit;
	struct usdtkit_trace_filter_err err;
	struct gen g = { .r = { 0x9e3779b97f4a7c15ULL } };
	unsigned int want, got, h, k;
	int i, ret, bad = 0, ninsns = 0;

	for (i = 0; i < 20000 && bad < 10; i++) {
		for (k = 0; k < 4; k++) {
			g.sig[k] = pick(&g.r, 2);
			args[k].size = pick(&g.r, 2) ? 8 : 4;
			args[k].is_signed = g.sig[k];
		}
		args[4] = (struct usdtkit_trace_type){ 8, false, false };
		random_hits(&g);
		g.n = 0;
		g.buf[0] = 0;
		g.leaves = 0;
		want = gen_or(&g, 1 + pick(&g.r, 5));
		ret = build(g.buf, args, 5, &f, &err);
		if (ret) {
			CHECK(!ret, "%s: col %d: %s", g.buf, err.col, err.msg);
			bad++;
			continue;
		}
		ninsns += (int)f.ninsns;
		for (got = 0, h = 0; h < NHITS; h++) {
			hit = g.hits[h];
			if (usdtkit_filter_run(&f, &hit))
				got |= 1u << h;
		}
		if (got != want) {
			CHECK(got == want, "%s (signed %d%d%d%d): kept %02x, want %02x",
			      g.buf, g.sig[0], g.sig[1], g.sig[2], g.sig[3], got, want);
			bad++;
		} else {
			check_passed++;
		}
	}
	/* the generator made real programs, not only folded ones */
	CHECK(ninsns > i * 2, "%d instructions in %d programs", ninsns, i);
}

/* ---- (d) token soup: never a crash, every program sound ---- */

static void test_soup(void)
{
	static const char *const toks[] = {
		"arg0", "arg1", "arg4", "arg5", "arg11", "arg12", "pid", "tid",
		"str", "(", ")", "!", "-", "&", "&&", "||", "==", "!=", "<", "<=",
		">", ">=", "0", "1", "0x10", "-1", "18446744073709551615",
		"99999999999999999999", "\"ab\"", "\"ab*\"", "\"a\\\"", "\"", "=",
		"|", "$", "foo", "\\", "str(arg4)", "\x80", " ",
	};
	const unsigned int nt = sizeof(toks) / sizeof(toks[0]);
	struct rng r = { 12345 };
	struct usdtkit_filter f;
	struct usdtkit_filter_hit hit;
	struct usdtkit_trace_filter_err err;
	char e[512];
	int i, n, k, ok = 0;
	size_t len;

	for (i = 0; i < 20000; i++) {
		len = 0;
		e[0] = 0;
		n = 1 + (int)pick(&r, 12);
		for (k = 0; k < n; k++) {
			const char *t = toks[pick(&r, nt)];

			if (len + strlen(t) + 2 >= sizeof(e))
				break;
			len += (size_t)snprintf(e + len, sizeof(e) - len, "%s%s",
						pick(&r, 2) ? " " : "", t);
		}
		if (build(e, probe_args, (int)pick(&r, 7), &f, &err)) {
			CHECK(err.col >= 1 && err.col <= (int)len + 1 && err.msg[0],
			      "%s: col %d: %s", e, err.col, err.msg);
			continue;
		}
		ok++;
		memset(&hit, 0, sizeof(hit));
		hit.args[4] = (long long)(uintptr_t)soup_str;
		usdtkit_filter_run(&f, &hit);
	}
	CHECK(ok > 100, "%d of the soup compiled", ok);
}

/* the table's expressions cut, with bytes changed, inserted, removed */
static void test_mutants(void)
{
	static const char bytes[] = "()!&|=<>-\"\\*x0a9 \x01\xff";
	const size_t ntable = sizeof(table) / sizeof(table[0]);
	struct rng r = { 777 };
	struct usdtkit_filter f;
	struct usdtkit_filter_hit hit;
	struct usdtkit_trace_filter_err err;
	char e[256];
	size_t len, at;
	int i, k, ok = 0;

	for (i = 0; i < 50000; i++) {
		snprintf(e, sizeof(e), "%s", table[pick(&r, (unsigned int)ntable)].expr);
		for (k = 0; k < 1 + (int)pick(&r, 3); k++) {
			len = strlen(e);
			at = pick(&r, (unsigned int)len + 1);
			switch (pick(&r, 4)) {
			case 0:		/* cut */
				e[at] = 0;
				break;
			case 1:		/* change */
				if (at < len)
					e[at] = bytes[pick(&r, sizeof(bytes) - 1)];
				break;
			case 2:		/* insert */
				if (len + 2 < sizeof(e)) {
					memmove(e + at + 1, e + at, len - at + 1);
					e[at] = bytes[pick(&r, sizeof(bytes) - 1)];
				}
				break;
			default:	/* remove */
				if (at < len)
					memmove(e + at, e + at + 1, len - at);
			}
		}
		if (build(e, probe_args, (int)pick(&r, 7), &f, &err)) {
			CHECK(err.col >= 1 && err.col <= (int)strlen(e) + 1 && err.msg[0],
			      "%s: col %d: %s", e, err.col, err.msg);
			continue;
		}
		ok++;
		sample_hit(&samples[pick(&r, NSAMPLES)], &hit);
		usdtkit_filter_run(&f, &hit);
	}
	CHECK(ok > 1000, "%d mutants compiled", ok);
}

int main(void)
{
	test_table();
	test_shapes();
	test_errors();
	test_random();
	test_soup();
	test_mutants();
	CHECK(read_str_max <= sizeof(((struct usdtkit_filter_hit *)0)->buf),
	      "read %u bytes", read_str_max);
	return check_done();
}
