// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Round trip: parse, print each argument back as spec text, parse that,
 * and get the same IR. The first input byte picks the arch (all ten),
 * the rest is an args string.
 *
 * usdtkit_arg_snprintf() writes a description ("s32 mem [rbp - 8]"), not
 * spec syntax, so the text the round trip re-parses comes from a printer
 * here (print_arg) that writes the arch's canonical spec syntax from the
 * IR alone: "-4@-8(%rbp)", "8@[x0, w2, uxtw #3]", "-8@r0", "-4@16($sp)".
 * What must hold,
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
 * "wzr" (constant 0) as "#0", "%r0" as an s390x base (none) is dropped,
 * mips "$zero" prints as "0" and as a base as "$0".
 * Not round-tripped, because the IR does not hold what the text said:
 * invalid arguments (nothing parsed), unsupported ones (the reason, e.g.
 * a %fs: segment or an sxtw index, is not in the IR), and symbol and
 * unreadable ones (the IR keeps the name only as a span of the input).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>

#include "fuzz_check.h"
#include "fuzz_targets.h"

enum family { F_X86, F_ARM64, F_ARM, F_RISCV, F_S390X, F_MIPS, F_PPC };

static enum family family_of(const char *name)
{
	if (!strcmp(name, "aarch64"))
		return F_ARM64;
	if (!strcmp(name, "arm"))
		return F_ARM;
	if (!strncmp(name, "riscv", 5))
		return F_RISCV;
	if (!strcmp(name, "s390x"))
		return F_S390X;
	if (!strncmp(name, "mips", 4))
		return F_MIPS;
	if (!strncmp(name, "ppc64", 5))
		return F_PPC;
	return F_X86;
}

struct pr {
	char *p;
	size_t left;
};

__attribute__((format(printf, 2, 3)))
static void pr(struct pr *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->p, o->left, fmt, ap);
	va_end(ap);
	FUZZ_ASSERT(n >= 0 && (size_t)n < o->left, "printer buffer too small");
	o->p += n;
	o->left -= (size_t)n;
}

static const char *rname(const struct usdtkit_arch *arch,
			 const struct usdtkit_reg *r)
{
	return arch->regs[r->entry].name;
}

static int log2_scale(unsigned int s)
{
	return s == 8 ? 3 : s == 4 ? 2 : s == 2 ? 1 : 0;
}

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

static int print_mem(struct pr *o, const struct usdtkit_arch *arch,
		     enum family fam, const struct usdtkit_arg *a)
{
	bool b = a->base.id >= 0, x = a->index.id >= 0;
	int sh = log2_scale(a->scale);

	switch (fam) {
	case F_X86:
		if (!b && !x) {
			pr(o, "%" PRId64, a->disp);
			return 0;
		}
		if (a->disp)
			pr(o, "%" PRId64, a->disp);
		pr(o, "(");
		if (b)
			pr(o, "%%%s", rname(arch, &a->base));
		if (x)
			pr(o, ",%%%s,%u", rname(arch, &a->index), a->scale);
		pr(o, ")");
		return 0;
	case F_ARM64:
	case F_ARM:
		if (!b || (x && a->disp))
			return -1;
		pr(o, "[%s", rname(arch, &a->base));
		if (x) {
			pr(o, ", %s", rname(arch, &a->index));
			if (fam == F_ARM64 && a->index.width == 4)
				pr(o, ", uxtw #%d", sh);
			else if (sh)
				pr(o, ", lsl #%d", sh);
		} else if (a->disp) {
			pr(o, ", #%" PRId64, a->disp);
		}
		pr(o, "]");
		return 0;
	case F_RISCV:
		if (x)
			return -1;
		pr(o, "%" PRId64 "(%s)", a->disp, b ? rname(arch, &a->base) : "zero");
		return 0;
	case F_S390X:
		/* %r0 as base or index means none */
		pr(o, "%" PRId64 "(", a->disp);
		if (x)
			pr(o, "%%%s,", rname(arch, &a->index));
		pr(o, "%%%s)", b ? rname(arch, &a->base) : "r0");
		return 0;
	case F_MIPS:
		/* the names carry their '$'; $0 as a base means none */
		if (x)
			return -1;
		pr(o, "%" PRId64 "(%s)", a->disp, b ? rname(arch, &a->base) : "$0");
		return 0;
	case F_PPC:
		/* X-form RA,RB (no displacement), else D-form D(RA); register
		 * 0 as RA means none */
		if (x) {
			if (!b || a->disp || a->scale != 1)
				return -1;
			pr(o, "%s,%s", rname(arch, &a->base),
			   rname(arch, &a->index));
			return 0;
		}
		if (b && a->base.id == 0) {
			/* r0 as the only register: "0,0" ((0) + r0) is the
			 * one spelling, since D(0) means no base */
			if (a->disp)
				return -1;
			pr(o, "0,%s", rname(arch, &a->base));
			return 0;
		}
		pr(o, "%" PRId64 "(%s)", a->disp, b ? rname(arch, &a->base) : "0");
		return 0;
	}
	return -1;
}

/* @a in the canonical spec syntax of @arch, or -1 when not printable. */
static int print_arg(struct pr *o, const struct usdtkit_arch *arch,
		     const struct usdtkit_arg *a)
{
	enum family fam = family_of(usdtkit_arch_name(arch));
	const char *rp = fam == F_X86 || fam == F_S390X ? "%" : "";

	if (!printable(a))
		return -1;
	if (a->size_given)
		pr(o, "%s%u%s@", a->is_signed ? "-" : "", a->size,
		   a->is_float ? "f" : "");
	switch (a->kind) {
	case USDTKIT_LOC_CONST:
		pr(o, "%s%" PRId64, fam == F_X86 ? "$" : fam <= F_ARM ? "#" :
		   fam == F_PPC ? "i" : "", a->value);
		return 0;
	case USDTKIT_LOC_REG:
		pr(o, "%s%s", rp, rname(arch, &a->reg));
		return 0;
	default:
		return print_mem(o, arch, fam, a);
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
	struct pr all = { list, sizeof(list) };
	const char *text;
	bool whole = true;
	int n, m, i;

	if (size < 1 || size > 1024)
		return 0;
	arch = usdtkit_arch_by_name(fz_targets[data[0] % FZ_NTARGETS].arch);
	text = (const char *)data + 1;
	n = fz_parse(arch, text, size - 1, &args, 64);
	for (i = 0; i < n && i < 64; i++) {
		struct usdtkit_arg one[2];
		char buf[256];
		struct pr o = { buf, sizeof(buf) };

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
