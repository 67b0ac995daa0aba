// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A compact, stable text form of one argument: what `usdtkit parse` and
 * `usdtkit list` print, and what the unit tests compare against.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "spec/arch.h"

struct out {
	char *buf;
	size_t size;
	size_t len;
};

static inline void put_n(struct out *o, const char *s, size_t n)
{
	if (o->len < o->size) {
		size_t room = o->size - o->len - 1;	/* keep the NUL */

		memcpy(o->buf + o->len, s, n < room ? n : room);
		o->buf[o->len + (n < room ? n : room)] = 0;
	}
	o->len += n;
}

static inline void put_s(struct out *o, const char *s)
{
	put_n(o, s, strlen(s));
}

static void put_u(struct out *o, uint64_t v)
{
	char b[24], *p = b + sizeof(b);

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	put_n(o, p, (size_t)(b + sizeof(b) - p));
}

static void put_i(struct out *o, int64_t v)
{
	if (v < 0) {
		put_n(o, "-", 1);
		put_u(o, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u(o, (uint64_t)v);
	}
}

/*
 * A constant as the probe delivers it: cut to the argument's size and
 * extended by its sign, as the evaluator and BPF read it ("8@$-1" is the
 * u64 18446744073709551615, "-1@$255" the s8 -1). A float's constant is
 * its bit pattern.
 */
static void put_const(struct out *o, const struct usdtkit_arg *a)
{
	unsigned int bits = a->size && a->size < 8 ? 64 - 8 * a->size : 0;
	uint64_t v = (uint64_t)a->value << bits;

	if (a->is_signed && !a->is_float)
		put_i(o, (int64_t)v >> bits);
	else
		put_u(o, v >> bits);
}

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->len < o->size ? o->buf + o->len : NULL,
		      o->len < o->size ? o->size - o->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static void put_reg(struct out *o, const struct usdtkit_arch *arch,
		    const struct usdtkit_reg *r)
{
	if (r->entry >= 0)
		put_s(o, arch->regs[r->entry].name);
	else
		put_s(o, usdtkit_arch_reg_name(arch, r->id));
}

/* "+ 8", "- 1204"; nothing for 0 unless it stands alone */
static void put_disp(struct out *o, int64_t d, bool alone)
{
	if (alone) {
		put_i(o, d);
	} else if (d < 0) {
		put_n(o, " - ", 3);
		put_u(o, (uint64_t)0 - (uint64_t)d);
	} else if (d > 0) {
		put_n(o, " + ", 3);
		put_i(o, d);
	}
}

static void put_sym(struct out *o, const char *spec,
		    const struct usdtkit_arg *a)
{
	static const char *const pre[USDTKIT_RELOC_GOT_OFST + 1] = {
		[USDTKIT_RELOC_LO12] = ":lo12:", [USDTKIT_RELOC_RISCV_LO] = "%lo(",
		[USDTKIT_RELOC_GOT_OFST] = "%got_ofst(",
	};
	static const char *const post[USDTKIT_RELOC_GOT_OFST + 1] = {
		[USDTKIT_RELOC_RISCV_LO] = ")", [USDTKIT_RELOC_GOT_OFST] = ")",
		[USDTKIT_RELOC_GOTOFF] = "@GOTOFF",
		[USDTKIT_RELOC_GOT] = "@GOT", [USDTKIT_RELOC_TLS] = "@TLS",
		[USDTKIT_RELOC_PCREL] = "(pc)",
	};

	put(o, "%s%.*s", pre[a->reloc] ? pre[a->reloc] : "", (int)a->sym_len,
	    spec + a->sym_off);
	if (a->disp)
		put(o, "%+" PRId64, a->disp);
	put(o, "%s", post[a->reloc] ? post[a->reloc] : "");
}

static void put_addr(struct out *o, const struct usdtkit_arch *arch,
		     const char *spec, const struct usdtkit_arg *a)
{
	bool first = true;

	if (a->kind == USDTKIT_LOC_SYMBOL) {
		put_sym(o, spec, a);
		first = false;
	} else if (a->pc_rel) {
		put_n(o, "ip", 2);
		first = false;
	}
	if (a->base.id >= 0) {
		if (!first)
			put_n(o, " + ", 3);
		put_reg(o, arch, &a->base);
		first = false;
	}
	if (a->index.id >= 0) {
		put(o, first ? "" : " + ");
		put_reg(o, arch, &a->index);
		put(o, "*%u", a->scale);
		first = false;
	}
	if (a->kind != USDTKIT_LOC_SYMBOL)
		put_disp(o, a->disp, first);
}

static void put_loc(struct out *o, const struct usdtkit_arch *arch,
		    const char *spec, const struct usdtkit_arg *a)
{
	put_n(o, " ", 1);
	put_s(o, usdtkit_loc_kind_str(a->kind));
	put_n(o, " ", 1);
	switch (a->kind) {
	case USDTKIT_LOC_CONST:
		if (a->pc_rel)
			put(o, "ip%+" PRId64, a->value);
		else
			put_const(o, a);
		break;
	case USDTKIT_LOC_REG:
		if (a->reg_hi.id >= 0) {
			put_reg(o, arch, &a->reg_hi);
			put(o, ":");
		}
		put_reg(o, arch, &a->reg);
		break;
	case USDTKIT_LOC_SYMBOL:
		if (!a->deref) {
			put_addr(o, arch, spec, a);
			break;
		}
		/* fallthrough */
	case USDTKIT_LOC_MEM:
		put_n(o, "[", 1);
		put_addr(o, arch, spec, a);
		put_n(o, "]", 1);
		break;
	case USDTKIT_LOC_UNREADABLE:
		put(o, "%.*s", (int)a->sym_len, spec + a->sym_off);
		break;
	default:
		put(o, "-");
		break;
	}
}

int usdtkit_arg_snprintf(char *buf, size_t size, const struct usdtkit_arch *arch,
			 const char *spec, const struct usdtkit_arg *a)
{
	struct out o = { .buf = buf, .size = size };

	if (size)
		buf[0] = 0;
	if (!arch || !spec || !a)
		return -1;
	put_n(&o, a->is_signed ? "s" : "u", 1);
	put_u(&o, a->size * 8u);
	if (a->is_float)
		put_n(&o, "f", 1);
	if (a->status != USDTKIT_ARG_INVALID)
		put_loc(&o, arch, spec, a);
	if (a->status != USDTKIT_ARG_OK)
		put(&o, " (%s at %u: %s)", usdtkit_arg_status_str(a->status),
		    a->error_pos, a->error ? a->error : "");
	return o.len > INT32_MAX ? INT32_MAX : (int)o.len;
}
