// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One architecture backend on raw args strings (a whole note's args, not
 * one operand): built once per backend with FUZZ_ARCHES naming the arches
 * that share it, and every input is parsed for each of them, so the
 * corpus stays plain spec text.
 *
 * Beyond the sanitizers it checks: the count does not depend on the room
 * given (snprintf-style), a shorter array gets the same leading
 * arguments, spans and error positions lie inside the input and in order
 * with only blanks between them, a valid argument parses the same alone,
 * the text form is consistent, the evaluator reads nothing but what its
 * reader allows, and the backend's two grammars agree on every operand
 * (tests/helpers/grammar_agree.h).
 */
#include <stdint.h>

#include "fuzz_check.h"
#include "grammar_agree.h"

#ifndef FUZZ_ARCHES
#error "FUZZ_ARCHES: the arch names of one backend"
#endif

static const char *const arches[] = { FUZZ_ARCHES };

/* A valid argument parsed from its own text alone is the same argument,
 * shifted: context never changes what an argument means. */
static void check_alone(const struct usdtkit_arch *arch, const char *text,
			const struct usdtkit_arg *a, int i)
{
	struct usdtkit_arg one[2];
	int n;

	if (a->status != USDTKIT_ARG_OK)
		return;
	n = usdtkit_args_parse(arch, text + a->text_off, a->text_len, one, 2);
	FUZZ_ASSERT(n == 1, "arg %d alone parses as %d args", i, n);
	FUZZ_ASSERT(fz_arg_eq(a, &one[0], true, a->text_off),
		    "arg %d differs when alone", i);
}

/* The fast path declines operand @i or gives the token grammar's IR and
 * end: where core/spec/spec.c hands it over (up to the end of the trimmed args
 * string) and alone. */
static void check_grammars(const struct usdtkit_arch *arch, const char *text,
			   size_t len, const struct usdtkit_arg *a, int i)
{
	const char *op = text + a->op_off, *end = text + len;
	const char *stop = text + a->text_off + a->text_len;
	struct ga_diff d;

	while (end > text && fz_blank(end[-1]))
		end--;
	fz_ctx = text;
	fz_ctx_len = len;
	if (ga_check(arch, text, op, end, &d) == GA_FAILED ||
	    ga_check(arch, op, op, stop, &d) == GA_FAILED) {
		ga_print_fail(stderr, arch, op, &d);
		FUZZ_ASSERT(0, "arg %d: the fast path and the token grammar disagree",
			    i);
	}
	fz_ctx = NULL;
	fz_ctx_len = 0;
}

static void fuzz_arch(const struct usdtkit_arch *arch, const char *text,
		      size_t len)
{
	struct usdtkit_arg *args, *few;
	int n, m, i;

	n = usdtkit_args_parse(arch, text, len, NULL, 0);
	FUZZ_ASSERT(n >= 0 && (size_t)n <= len, "%d args in %zu bytes", n, len);
	m = fz_parse(arch, text, len, &args, (size_t)n);
	FUZZ_ASSERT(m == n, "count %d with room, %d without", m, n);
	fz_check_args(arch, text, len, args, n);
	/* half the room: the same first half */
	m = fz_parse(arch, text, len, &few, (size_t)n / 2);
	FUZZ_ASSERT(m == n, "count %d with half the room, %d in all", m, n);
	for (i = 0; i < n / 2; i++)
		FUZZ_ASSERT(fz_arg_eq(&args[i], &few[i], true, 0),
			    "arg %d differs with a shorter array", i);
	free(few);
	for (i = 0; i < n; i++) {
		struct usdtkit_arg r = args[i];

		check_alone(arch, text, &args[i], i);
		check_grammars(arch, text, len, &args[i], i);
		fz_check_snprintf(arch, text, &args[i]);
		fz_check_eval(arch, &args[i], (uint64_t)len * 0x9e3779b97f4a7c15ull);
		/* symbol-relative: resolve at some address, then evaluate; a
		 * refused resolution leaves the argument as it was */
		if (r.kind != USDTKIT_LOC_SYMBOL)
			continue;
		if (usdtkit_arg_resolve(arch, &r, 0x1000, 0x1010, 0x1080)) {
			FUZZ_ASSERT(fz_arg_eq(&args[i], &r, true, 0),
				    "arg %d changed by a refused resolution", i);
		} else {
			FUZZ_ASSERT(r.kind == USDTKIT_LOC_MEM || r.kind == USDTKIT_LOC_CONST,
				    "resolved to %s", usdtkit_loc_kind_str(r.kind));
			fz_check_arg(arch, &r, len, i);
			fz_check_eval(arch, &r, (uint64_t)i);
		}
	}
	free(args);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t k;

	/* args strings come from notes: at most a few KiB in practice; the
	 * cap keeps executions fast (the 1 MB case is a unit test) */
	if (size > 4096)
		return 0;
	for (k = 0; k < sizeof(arches) / sizeof(arches[0]); k++) {
		const struct usdtkit_arch *arch = usdtkit_arch_by_name(arches[k]);

		FUZZ_ASSERT(arch, "no arch %s", arches[k]);
		fuzz_arch(arch, (const char *)data, size);
	}
	return 0;
}
