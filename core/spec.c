// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An args string -> arguments: bracket-aware splitting, the "SIZE@" prefix,
 * then the arch backend's operand grammar, then checks that need both the
 * size and the location (register pairs, sizes BPF cannot read).
 */
#include <errno.h>
#include <string.h>

#include "arch.h"
#include "lex.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Length of a "SIZE@" prefix ("-4@", "8f@") at @p, 0 if there is none. */
static size_t size_prefix_len(const char *p, const char *end)
{
	const char *q = p;

	if (q < end && *q == '-')
		q++;
	if (q >= end || !is_digit(*q))
		return 0;
	while (q < end && is_digit(*q))
		q++;
	if (q < end && *q == 'f')
		q++;
	if (q < end && *q == '@')
		return (size_t)(q + 1 - p);
	return 0;
}

/*
 * End of the argument starting at @p. Whitespace splits arguments except
 * inside () or [] ("[sp, 8]", "[r0, r3, lsl #2]"). An unclosed bracket must
 * not swallow the arguments after it, so inside brackets a blank followed
 * by a new "SIZE@" prefix still ends the argument.
 */
static const char *arg_end(const char *p, const char *end)
{
	int depth = 0;

	for (; p < end; p++) {
		char c = *p;

		if (c == '(' || c == '[') {
			depth++;
		} else if (c == ')' || c == ']') {
			if (depth > 0)
				depth--;
		} else if (is_space(c)) {
			const char *q = p;

			if (depth == 0)
				return p;
			while (q < end && is_space(*q))
				q++;
			if (size_prefix_len(q, end))
				return p;
		}
	}
	return end;
}

static void arg_init(struct usdtkit_arg *arg)
{
	memset(arg, 0, sizeof(*arg));
	usdtkit__reg_clear(&arg->reg);
	usdtkit__reg_clear(&arg->reg_hi);
	usdtkit__reg_clear(&arg->base);
	usdtkit__reg_clear(&arg->index);
}

/* Read "SIZE@" into @arg; returns the operand start. */
static const char *parse_size(struct usdtkit_lexer *lx, struct usdtkit_arg *arg,
			      const char *p, const char *end)
{
	size_t n = size_prefix_len(p, end);
	const char *q = p;
	uint64_t size = 0;

	if (!n) {
		/* asm probes may give bare operands; size comes later */
		arg->size_given = false;
		return p;
	}
	arg->size_given = true;
	if (*q == '-') {
		arg->is_signed = true;
		q++;
	}
	while (is_digit(*q)) {
		size = size * 10 + (uint64_t)(*q - '0');
		if (size > UINT16_MAX) {
			usdtkit__fail(lx, arg, p, "argument size is absurd");
			size = 0;
			while (is_digit(*q))
				q++;
			break;
		}
		q++;
	}
	if (*q == 'f')
		arg->is_float = true;
	arg->size = (uint16_t)size;
	return p + n;
}

static void check_pair(const struct usdtkit_arch *arch, struct usdtkit_lexer *lx,
		       struct usdtkit_arg *arg, const char *op)
{
	int hi = -1;

	if (arg->size <= arg->reg.width)
		return;
	if (arch->pair_hi && arg->reg.shift == 0 &&
	    arg->size == 2 * arg->reg.width && arg->reg.width == 4)
		hi = arch->pair_hi[arg->reg.id];
	if (hi < 0) {
		usdtkit__flag(lx, arg, USDTKIT_ARG_UNSUPPORTED, op,
			      "value is wider than the register");
		return;
	}
	/* the value spans two registers: named one holds the low half */
	arg->reg_hi = arg->reg;
	arg->reg_hi.id = (int16_t)hi;
	arg->reg_hi.entry = -1;
	arg->reg_hi.offset = arch->native->offsets[hi];
}

static void finish_arg(const struct usdtkit_arch *arch, struct usdtkit_lexer *lx,
		       struct usdtkit_arg *arg, const char *op)
{
	if (arg->status == USDTKIT_ARG_INVALID)
		return;
	if (!arg->size_given) {
		if (arg->kind == USDTKIT_LOC_REG)
			arg->size = arg->reg.width;
		else
			arg->size = arch->ptr_size;
	}
	if (arg->kind == USDTKIT_LOC_REG)
		check_pair(arch, lx, arg, op);
	if (arg->size != 1 && arg->size != 2 && arg->size != 4 &&
	    arg->size != 8)
		usdtkit__flag(lx, arg, USDTKIT_ARG_BAD_SIZE, lx->spec + arg->text_off,
			      "size is not 1, 2, 4 or 8: not readable by BPF");
	if (arg->kind == USDTKIT_LOC_SYMBOL)
		usdtkit__flag(lx, arg, USDTKIT_ARG_UNRESOLVED,
			      lx->spec + arg->sym_off,
			      "symbol-relative: needs the ELF symbol table");
}

static void parse_one(const struct usdtkit_arch *arch, const char *spec,
		      const char *p, const char *end, struct usdtkit_arg *arg)
{
	struct usdtkit_lexer lx = {
		.spec = spec,
		.end = end,
		.arch = arch,
	};
	const char *op;

	arg_init(arg);
	arg->text_off = (uint32_t)(p - spec);
	arg->text_len = (uint32_t)(end - p);
	op = parse_size(&lx, arg, p, end);
	arg->op_off = (uint32_t)(op - spec);
	if (op == end) {
		usdtkit__fail(&lx, arg, op, "missing operand");
		return;
	}
	lx.cur = op;
	arch->parse_operand(arch, &lx, arg);
	finish_arg(arch, &lx, arg, op);
}

int usdtkit_args_parse(const struct usdtkit_arch *arch, const char *text,
		       size_t len, struct usdtkit_arg *args, size_t max_args)
{
	const char *p = text, *end = text + len;
	size_t n = 0;

	if (!arch || (!text && len) || (!args && max_args))
		return -EINVAL;
	if (len > INT32_MAX)
		return -E2BIG;
	while (p < end && is_space(*p))
		p++;
	while (end > p && is_space(end[-1]))
		end--;
	/* an old-style empty list is a lone ':' */
	if (end - p == 1 && *p == ':')
		return 0;
	while (p < end) {
		const char *e = arg_end(p, end);

		if (n < max_args)
			parse_one(arch, text, p, e, &args[n]);
		n++;
		p = e;
		while (p < end && is_space(*p))
			p++;
	}
	return n > INT32_MAX ? -E2BIG : (int)n;
}
