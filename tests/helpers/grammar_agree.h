/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Do an arch's two operand grammars agree? Each backend matches common
 * operands whole in one re2c pass (arch->parse_fast) and leaves the rest
 * to its token grammar (arch->parse_operand); the token grammar is the
 * reference. For one operand, the fast path must either decline (return
 * NULL and write nothing) or produce exactly the IR and end position the
 * token grammar produces.
 *
 * Header-only: shared by tests/spec/test_grammar_agree.c and the per-arch fuzz
 * harnesses (fuzz/fuzz_spec.c), which include core/ and arch/ too.
 */
#ifndef USDTKIT_TESTS_GRAMMAR_AGREE_H
#define USDTKIT_TESTS_GRAMMAR_AGREE_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "spec/arch.h"
#include "spec/lex.h"

/* Which field differs, and both values printed. */
struct ga_diff {
	char field[24];
	char fast[64];
	char token[64];
	const char *stop;	/* where the operand ends, for printing */
};

enum ga_result {
	GA_FAILED = -1,		/* the grammars disagree: see the diff */
	GA_DECLINED = 0,	/* the fast path declined, cleanly */
	GA_AGREED = 1,		/* both parsed it to the same IR */
};

/* The blank argument core/spec/spec.c starts every operand from (arg_init). */
static inline void ga_arg_blank(struct usdtkit_arg *a, uint32_t op_off)
{
	static const struct usdtkit_reg none = { -1, -1, -1, 0, 0 };

	memset(a, 0, sizeof(*a));
	a->reg = a->reg_hi = a->base = a->index = none;
	a->text_off = a->op_off = op_off;
}

/*
 * The token grammar as core/spec/spec.c runs it (parse_tokens): where a valid
 * operand ends, NULL for an invalid one. @spec is the whole args string,
 * which error and symbol positions are relative to.
 */
static inline const char *ga_token(const struct usdtkit_arch *arch,
				   const char *spec, const char *op,
				   const char *end, struct usdtkit_arg *arg)
{
	struct usdtkit_lexer lx = { .spec = spec, .cur = op, .end = end,
				    .arch = arch };

	if (op == end || op[0] == ' ' ||
	    (unsigned char)(op[0] - '\t') <= '\r' - '\t') {
		usdtkit__fail(&lx, arg, op, "missing operand");
		return NULL;
	}
	arch->parse_operand(arch, &lx, arg);
	if (arg->status == USDTKIT_ARG_INVALID || lx.tok.type != TOK_END)
		return NULL;
	return lx.tok.start;
}

static inline bool ga_int(struct ga_diff *d, const char *field, long long f,
			  long long t)
{
	if (f == t)
		return true;
	snprintf(d->field, sizeof(d->field), "%s", field);
	snprintf(d->fast, sizeof(d->fast), "%lld", f);
	snprintf(d->token, sizeof(d->token), "%lld", t);
	return false;
}

static inline bool ga_str(struct ga_diff *d, const char *field, const char *f,
			  const char *t)
{
	if (f == t || (f && t && !strcmp(f, t)))
		return true;
	snprintf(d->field, sizeof(d->field), "%s", field);
	snprintf(d->fast, sizeof(d->fast), "%s", f ? f : "(null)");
	snprintf(d->token, sizeof(d->token), "%s", t ? t : "(null)");
	return false;
}

static inline bool ga_reg(struct ga_diff *d, const char *field,
			  const struct usdtkit_reg *f,
			  const struct usdtkit_reg *t)
{
	static const char *const parts[] = { "id", "entry", "offset", "width",
					     "shift" };
	const long long fv[] = { f->id, f->entry, f->offset, f->width, f->shift };
	const long long tv[] = { t->id, t->entry, t->offset, t->width, t->shift };
	char name[24];
	size_t i;

	for (i = 0; i < 5; i++) {
		if (fv[i] == tv[i])
			continue;
		snprintf(name, sizeof(name), "%s.%s", field, parts[i]);
		return ga_int(d, name, fv[i], tv[i]);
	}
	return true;
}

/*
 * Every field of the IR, the positions too: the fast path must not touch
 * the size fields either, so they are compared as well (both sides start
 * from the same blank). Symbol and error spans count only where the kind
 * or status gives them a meaning.
 */
static inline bool ga_same(struct ga_diff *d, const struct usdtkit_arg *f,
			   const struct usdtkit_arg *t)
{
	return ga_int(d, "kind", f->kind, t->kind) &&
	       ga_int(d, "status", f->status, t->status) &&
	       ga_str(d, "error", f->error, t->error) &&
	       ga_int(d, "error_pos", f->error_pos, t->error_pos) &&
	       ga_int(d, "reloc", f->reloc, t->reloc) &&
	       ga_int(d, "pc_rel", f->pc_rel, t->pc_rel) &&
	       ga_int(d, "deref", f->deref, t->deref) &&
	       ga_int(d, "scale", f->scale, t->scale) &&
	       ga_int(d, "value", f->value, t->value) &&
	       ga_int(d, "disp", f->disp, t->disp) &&
	       ga_reg(d, "reg", &f->reg, &t->reg) &&
	       ga_reg(d, "reg_hi", &f->reg_hi, &t->reg_hi) &&
	       ga_reg(d, "base", &f->base, &t->base) &&
	       ga_reg(d, "index", &f->index, &t->index) &&
	       ga_int(d, "sym_off", f->sym_off, t->sym_off) &&
	       ga_int(d, "sym_len", f->sym_len, t->sym_len) &&
	       ga_int(d, "size", f->size, t->size) &&
	       ga_int(d, "is_signed", f->is_signed, t->is_signed) &&
	       ga_int(d, "is_float", f->is_float, t->is_float) &&
	       ga_int(d, "size_given", f->size_given, t->size_given) &&
	       ga_int(d, "text_off", f->text_off, t->text_off) &&
	       ga_int(d, "text_len", f->text_len, t->text_len) &&
	       ga_int(d, "op_off", f->op_off, t->op_off);
}

/* The fast path declined: not one byte of @a may have changed. */
static inline bool ga_untouched(struct ga_diff *d, const unsigned char *a,
				size_t n, unsigned char fill)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (a[i] == fill)
			continue;
		snprintf(d->field, sizeof(d->field), "declined but wrote");
		snprintf(d->fast, sizeof(d->fast), "byte %zu = 0x%02x", i, a[i]);
		snprintf(d->token, sizeof(d->token), "0x%02x", fill);
		return false;
	}
	return true;
}

static inline void ga_pos(char *buf, size_t n, const char *p, const char *op)
{
	if (p)
		snprintf(buf, n, "+%td", p - op);
	else
		snprintf(buf, n, "NULL");
}

/*
 * Run the operand at @op (up to @end, the end of the args string @spec,
 * as core/spec/spec.c hands it over) through both grammars of @arch.
 */
static inline enum ga_result ga_check(const struct usdtkit_arch *arch,
				      const char *spec, const char *op,
				      const char *end, struct ga_diff *d)
{
	union {
		struct usdtkit_arg arg;
		unsigned char bytes[sizeof(struct usdtkit_arg)];
	} canary;
	struct usdtkit_arg fast, token;
	const char *fe, *te;
	uint32_t off = (uint32_t)(op - spec);

	/* first on a poisoned argument: a decline must leave it alone */
	d->stop = end;
	memset(&canary, 0xa5, sizeof(canary));
	fe = arch->parse_fast(arch, op, end, &canary.arg);
	if (!fe)
		return ga_untouched(d, canary.bytes, sizeof(canary), 0xa5) ?
			       GA_DECLINED : GA_FAILED;
	/* then both from the blank that core/spec/spec.c starts from */
	ga_arg_blank(&fast, off);
	ga_arg_blank(&token, off);
	fe = arch->parse_fast(arch, op, end, &fast);
	te = ga_token(arch, spec, op, end, &token);
	d->stop = te && te > fe ? te : fe;
	if (fe != te) {
		snprintf(d->field, sizeof(d->field), "end");
		ga_pos(d->fast, sizeof(d->fast), fe, op);
		ga_pos(d->token, sizeof(d->token), te, op);
		return GA_FAILED;
	}
	return ga_same(d, &fast, &token) ? GA_AGREED : GA_FAILED;
}

/* Print [s, e) quoted-safe: control bytes and quotes as \xNN. */
static inline void ga_print_text(FILE *f, const char *s, const char *e)
{
	for (; s < e; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'')
			fputc(c, f);
		else
			fprintf(f, "\\x%02x", c);
	}
}

/* "FAIL: arch 'operand': field fast=X token=Y" */
static inline void ga_print_fail(FILE *f, const struct usdtkit_arch *arch,
				 const char *op, const struct ga_diff *d)
{
	fprintf(f, "FAIL: %s '", usdtkit_arch_name(arch));
	ga_print_text(f, op, d->stop);
	fprintf(f, "': %s fast=%s token=%s\n", d->field, d->fast, d->token);
}

#endif /* USDTKIT_TESTS_GRAMMAR_AGREE_H */
