/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Every architecture's lexer stops at the length it is given, and a NUL
 * inside that length is an error, never the end: the specs come from
 * notes, not C strings. Each arch's unit test lists its own cases (a
 * register cut short, a memory operand cut before its ')' or ']', ...);
 * this checks them. Header only, as check.h.
 */
#ifndef USDTKIT_TESTS_BOUNDS_H
#define USDTKIT_TESTS_BOUNDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <usdtkit/usdtkit.h>

#include "check.h"

struct bound_case {
	const char *what;
	const char *spec;	/* may hold a NUL before @len */
	size_t len;		/* what the parser is given */
	bool ok;		/* parsed; else USDTKIT_ARG_INVALID */
	int reg;		/* ok: reg.id, or -1: not looked at */
	int index;		/* ok: index.id, or -1: not looked at */
	int64_t disp;		/* ok: disp */
	int error_pos;		/* invalid: error_pos, or -1: not looked at */
};

/* a register, or memory with @disp, read from the first @len bytes */
#define BOUND_OK(what, spec, len, reg, index, disp) \
	{ what, spec, len, true, reg, index, disp, -1 }
/* invalid, at @pos (-1: anywhere) */
#define BOUND_BAD(what, spec, len, pos) \
	{ what, spec, len, false, -1, -1, 0, pos }

static inline bool bound_holds(const struct bound_case *c,
			       const struct usdtkit_arg *a)
{
	if (!c->ok)
		return a->status == USDTKIT_ARG_INVALID &&
		       (c->error_pos < 0 || (int)a->error_pos == c->error_pos);
	return a->status == USDTKIT_ARG_OK &&
	       (c->reg < 0 || a->reg.id == c->reg) &&
	       (c->index < 0 || a->index.id == c->index) && a->disp == c->disp;
}

static inline void check_bounds(const char *arch, const struct bound_case *c,
				size_t n)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name(arch);
	struct usdtkit_arg arg[2];
	size_t i;

	for (i = 0; i < n; i++, c++) {
		int got = usdtkit_args_parse(a, c->spec, c->len, arg, 2);

		CHECK(got == 1 && bound_holds(c, &arg[0]),
		      "%s %s: '%.*s' parsed %d, status %d at %d, reg %d", arch,
		      c->what, (int)c->len, c->spec, got, arg[0].status,
		      (int)arg[0].error_pos, arg[0].reg.id);
	}
}

#endif
