// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Round trip: parse, print each argument back as spec text, parse that,
 * and get the same IR. The first input byte picks the arch (every target
 * of the manifests),
 * the rest is an args string.
 *
 * usdtkit_arg_snprintf() writes a description ("s32 mem [rbp - 8]"), not
 * spec syntax, so the text the round trip re-parses comes from a printer
 * (print_arg, with each folder's usdtkit_check_ops of arch/arch_check.h)
 * that writes the arch's canonical spec syntax from the
 * IR alone: "-4@-8(%rbp)", "8@[x0, w2, uxtw #3]", "-8@r0". What must hold,
 * for every argument with status ok or bad_size whose kind is const, reg
 * or mem:
 *   - every IR field is equal (fz_arg_eq without positions): size,
 *     signedness, float, size_given, kind, status, message, value, disp,
 *     scale, pc_rel, and each register's id, table entry, offset, width
 *     and shift;
 *   - usdtkit_arg_snprintf() prints the same description for both;
 *   - the whole list printed with single blanks parses to as many
 *     arguments, each equal (when every argument is printable).
 * Positions (text_off, text_len, op_off, error_pos) differ by design.
 * Spellings that fold are equal by this definition and that is intended:
 * "-8+3+1(%rbp)" prints as "-4(%rbp)", "$0x10" as "$16", "xzr" and
 * "wzr" (constant 0) as "#0", "%r0" as an s390x base (none) is dropped.
 * Not round-tripped, because the IR does not hold what the text said:
 * invalid arguments (nothing parsed), unsupported ones (the reason, e.g.
 * a %fs: segment or an sxtw index, is not in the IR), and symbol and
 * unreadable ones (the IR keeps the name only as a span of the input).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>

#include "arch/arch_check.h"
#include "fuzz_check.h"
#include "fuzz_targets.h"

/* Append to @o; a too-small buffer is a harness bug. */
#define pr(o, ...)                                                          \
	do {                                                                 \
		usdtkit_out_printf((o), __VA_ARGS__);                        \
		FUZZ_ASSERT(!(o)->overflow, "printer buffer too small");     \
	} while (0)

static bool printable(const struct usdtkit_arg *a)
{
	if (a->status != USDTKIT_ARG_OK && a->status != USDTKIT_ARG_BAD_SIZE)
		return false;
	if (a->kind != USDTKIT_LOC_CONST && a->kind != USDTKIT_LOC_REG &&
	    a->kind != USDTKIT_LOC_MEM)
		return false;
	/* table entries name registers; only a pair's high half has none */
	return !(a->reg.id >= 0 && a->reg.entry < 0) &&
	       !(a->base.id >= 0 && a->base.entry < 0) &&
	       !(a->index.id >= 0 && a->index.entry < 0) && !a->pc_rel;
}

/* @a in the canonical spec syntax of @arch, or -1 when not printable. */
static int print_arg(struct usdtkit_out *o, const struct usdtkit_arch *arch,
		     const struct usdtkit_arg *a)
{
	/* the printer of the arch's folder (arch/<dir>/<dir>_check.c) */
	const struct usdtkit_check_ops *ops =
		usdtkit_check_ops_of(usdtkit_arch_name(arch));
	int rc;

	FUZZ_ASSERT(ops != NULL, "%s: no test support in its folder",
		    usdtkit_arch_name(arch));
	if (!printable(a))
		return -1;
	if (a->size_given)
		pr(o, "%s%u%s@", a->is_signed ? "-" : "", a->size,
		   a->is_float ? "f" : "");
	switch (a->kind) {
	case USDTKIT_LOC_CONST:
		pr(o, "%s%" PRId64, ops->const_prefix, a->value);
		return 0;
	case USDTKIT_LOC_REG:
		pr(o, "%s%s", ops->reg_prefix, usdtkit_check_rname(arch, &a->reg));
		return 0;
	default:
		rc = ops->print_mem(o, arch, a);
		FUZZ_ASSERT(!o->overflow, "printer buffer too small");
		return rc;
	}
}

static void check_same(const struct usdtkit_arch *arch, const char *s1,
		       const struct usdtkit_arg *a, const char *s2,
		       const struct usdtkit_arg *b, int i)
{
	struct usdtkit_arg a0 = *a, b0 = *b;
	char d1[512], d2[512];

	FUZZ_ASSERT(fz_arg_eq(a, b, false, 0),
		    "%s arg %d: \"%.*s\" printed as \"%.*s\" parses differently",
		    usdtkit_arch_name(arch), i, (int)a->text_len, s1 + a->text_off,
		    (int)b->text_len, s2 + b->text_off);
	/* the description names the error position: not part of the IR */
	a0.error_pos = b0.error_pos = 0;
	usdtkit_arg_snprintf(d1, sizeof(d1), arch, s1, &a0);
	usdtkit_arg_snprintf(d2, sizeof(d2), arch, s2, &b0);
	FUZZ_ASSERT(!strcmp(d1, d2), "%s arg %d: \"%s\" became \"%s\"",
		    usdtkit_arch_name(arch), i, d1, d2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char list[1 << 16];
	const struct usdtkit_arch *arch;
	struct usdtkit_arg *args, *again;
	struct usdtkit_out all = { list, sizeof(list), false };
	const char *text;
	bool whole = true;
	int n, m, i;

	if (size < 1 || size > 1024)
		return 0;
	arch = usdtkit_arch_by_name(fz_targets[data[0] % FZ_NTARGETS].name);
	text = (const char *)data + 1;
	n = fz_parse(arch, text, size - 1, &args, 64);
	for (i = 0; i < n && i < 64; i++) {
		struct usdtkit_arg one[2];
		char buf[256];
		struct usdtkit_out o = { buf, sizeof(buf), false };

		if (print_arg(&o, arch, &args[i])) {
			whole = false;
			continue;
		}
		m = usdtkit_args_parse(arch, buf, strlen(buf), one, 2);
		FUZZ_ASSERT(m == 1, "\"%s\" parses as %d args", buf, m);
		check_same(arch, text, &args[i], buf, &one[0], i);
		pr(&all, "%s%s", i ? " " : "", buf);
	}
	if (whole && n > 0 && n <= 64) {
		m = fz_parse(arch, list, strlen(list), &again, 64);
		FUZZ_ASSERT(m == n, "\"%s\": %d args, was %d", list, m, n);
		for (i = 0; i < n; i++)
			check_same(arch, text, &args[i], list, &again[i], i);
		free(again);
	}
	free(args);
	return 0;
}
