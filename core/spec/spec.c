// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An args string -> arguments: bracket-aware splitting, the "SIZE@" prefix,
 * then the arch backend's one-pass fast path or, for other operands, its
 * token grammar, then checks that need both the size and the location
 * (register pairs, sizes BPF cannot read).
 */
#include <errno.h>
#include <string.h>

#include "spec/arch.h"
#include "spec/lex.h"

/* Byte classes for the splitter: one table load per byte instead of a
 * chain of compares (the splitter sees every byte of every spec). */
enum { C_SPACE = 1, C_OPEN = 2, C_CLOSE = 4 };
static const uint8_t cls[256] = {
	[' '] = C_SPACE, ['\t'] = C_SPACE, ['\n'] = C_SPACE, ['\r'] = C_SPACE,
	['\v'] = C_SPACE, ['\f'] = C_SPACE, ['('] = C_OPEN, ['['] = C_OPEN,
	[')'] = C_CLOSE, [']'] = C_CLOSE,
};

static inline bool is_space(char c)
{
	return cls[(unsigned char)c] & C_SPACE;
}

static inline bool is_digit(char c)
{
	return (unsigned char)(c - '0') < 10;
}

/*
 * End of the argument starting at @p, for arguments that did not parse
 * (valid ones end where their scanner's end token is, usdtkit__blank_ends()
 * applies the same rule). Whitespace splits arguments except
 * inside () or [] ("[sp, 8]", "[r0, r3, lsl #2]"). An unclosed bracket must
 * not swallow the arguments after it, so inside brackets a blank followed
 * by a new "SIZE@" prefix still ends the argument.
 */
static const char *arg_end(const char *p, const char *end)
{
	int depth = 0;

	for (; p < end; p++) {
		uint8_t c = cls[(unsigned char)*p];

		if (!c)
			continue;
		if (c & C_OPEN) {
			depth++;
		} else if (c & C_CLOSE) {
			if (depth > 0)
				depth--;
		} else {
			const char *q = p;

			if (depth == 0)
				return p;
			while (q < end && is_space(*q))
				q++;
			if (usdtkit__size_prefix_len(q, end))
				return p;
		}
	}
	return end;
}

/* A memcpy of a template: a dozen vector moves. A memset or a struct
 * assignment becomes "rep stosq" (gcc 12), and field-by-field stores cost
 * about 40 instructions: both measurably slower on the parse hot path. */
static inline void arg_init(struct usdtkit_arg *a, uint32_t off)
{
	static const struct usdtkit_arg blank = {
		.kind = USDTKIT_LOC_INVALID,
		.status = USDTKIT_ARG_OK,
		.reloc = USDTKIT_RELOC_NONE,
		.reg = { -1, -1, -1, 0, 0 },
		.reg_hi = { -1, -1, -1, 0, 0 },
		.base = { -1, -1, -1, 0, 0 },
		.index = { -1, -1, -1, 0, 0 },
	};

	memcpy(a, &blank, sizeof(*a));
	a->text_off = off;
	a->op_off = off;
}

/* Read an optional "SIZE@" prefix at @p (< @end) into @arg; returns the
 * operand start (@p itself for size-less asm operands). */
static const char *parse_size(struct usdtkit_lexer *lx, struct usdtkit_arg *arg,
			      const char *p, const char *end)
{
	const char *q = p + (*p == '-');
	uint32_t size = 0;
	bool big = false;

	/* nearly every size is one digit: "-4@", "8@" */
	if (end - q >= 2 && is_digit(q[0]) && q[1] == '@') {
		arg->size_given = true;
		arg->is_signed = q != p;
		arg->size = (uint16_t)(q[0] - '0');
		return q + 2;
	}
	if (q >= end || !is_digit(*q))
		return p;
	for (; q < end && is_digit(*q); q++) {
		size = size * 10 + (uint32_t)(*q - '0');
		if (size > UINT16_MAX) {
			big = true;
			size = UINT16_MAX;
		}
	}
	if (q < end && *q == 'f') {
		arg->is_float = true;
		q++;
	}
	if (q >= end || *q != '@') {
		arg->is_float = false;
		return p;	/* a bare number: a size-less constant */
	}
	arg->size_given = true;
	arg->is_signed = *p == '-';
	arg->size = big ? 0 : (uint16_t)size;
	if (big)
		usdtkit__fail(lx, arg, p, "argument size is absurd");
	return q + 1;
}

/* A register operand whose size is wider than the register named. */
static void check_pair(const struct usdtkit_arch *arch, struct usdtkit_lexer *lx,
		       struct usdtkit_arg *arg, const char *op)
{
	int hi = -1;

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
	if (arg->kind == USDTKIT_LOC_REG) {
		if (!arg->size_given)
			arg->size = arg->reg.width;
		else if (arg->size > arg->reg.width)
			check_pair(arch, lx, arg, op);
	} else if (!arg->size_given) {
		arg->size = arch->ptr_size;
	}
	/* bits 1, 2, 4 and 8 */
	if (arg->size > 8 || !((0x116u >> arg->size) & 1))
		usdtkit__flag(lx, arg, USDTKIT_ARG_BAD_SIZE, lx->spec + arg->text_off,
			      "size is not 1, 2, 4 or 8: not readable by BPF");
	if (arg->kind == USDTKIT_LOC_SYMBOL)
		usdtkit__flag(lx, arg, USDTKIT_ARG_UNRESOLVED,
			      lx->spec + arg->sym_off,
			      "symbol-relative: needs the ELF symbol table");
}

/* The token grammar, for the operands the fast path leaves: returns where
 * a valid operand ends (its end token), NULL for an invalid one. */
static const char *parse_tokens(const struct usdtkit_arch *arch,
				struct usdtkit_lexer *lx,
				struct usdtkit_arg *arg, const char *op,
				const char *end)
{
	if (op == end || is_space(*op)) {
		usdtkit__fail(lx, arg, op, "missing operand");
		return NULL;
	}
	lx->cur = op;
	lx->end = end;
	lx->arch = arch;
	arch->parse_operand(arch, lx, arg);
	if (arg->status == USDTKIT_ARG_INVALID || lx->tok.type != TOK_END)
		return NULL;
	return lx->tok.start;
}

/* Parse the argument at @p (< @end); returns where it ends. */
static const char *parse_one(const struct usdtkit_arch *arch, const char *spec,
			     const char *p, const char *end,
			     struct usdtkit_arg *arg)
{
	struct usdtkit_lexer lx;
	const char *op, *e;

	lx.spec = spec;
	arg_init(arg, (uint32_t)(p - spec));
	op = parse_size(&lx, arg, p, end);
	arg->op_off = (uint32_t)(op - spec);
	if (arg->status == USDTKIT_ARG_INVALID)
		goto bad;
	e = arch->parse_fast(arch, op, end, arg);
	if (!e)
		e = parse_tokens(arch, &lx, arg, op, end);
	/* a valid operand ends at its end token; a bad one where the
	 * splitter says, so that it never shifts the next arguments */
	if (!e)
		goto bad;
	arg->text_len = (uint32_t)(e - p);
	finish_arg(arch, &lx, arg, op);
	return e;
bad:
	e = arg_end(p, end);
	arg->text_len = (uint32_t)(e - p);
	return e;
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
		/* past max_args: only count */
		if (n < max_args)
			p = parse_one(arch, text, p, end, &args[n]);
		else
			p = arg_end(p, end);
		n++;
		while (p < end && is_space(*p))
			p++;
	}
	return n > INT32_MAX ? -E2BIG : (int)n;
}
