// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Grammar pieces every arch backend shares: literals, additive
 * displacement expressions (-8+3+1, sym+16, 40+sym@GOTOFF), error marking.
 * The arch grammars in arch/<a>/<a>.re compose these.
 */
#include <errno.h>

#include "spec/arch.h"
#include "spec/lex.h"

static int digit_val(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

int usdtkit__parse_num(const char *s, const char *e, uint64_t *out)
{
	unsigned int base = 10;
	uint64_t v = 0;

	if (e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	} else if (e - s > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
		base = 2;
		s += 2;
	} else if (e - s > 1 && s[0] == '0') {
		/* GAS reads a leading 0 as octal */
		base = 8;
		s++;
	}
	for (; s < e; s++) {
		unsigned int d = digit_val((unsigned char)*s);

		if (d >= base)
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

int usdtkit__fail(struct usdtkit_lexer *lx, struct usdtkit_arg *arg,
		  const char *at, const char *msg)
{
	if (arg->status != USDTKIT_ARG_INVALID) {
		arg->status = USDTKIT_ARG_INVALID;
		arg->kind = USDTKIT_LOC_INVALID;
		arg->error = msg;
		arg->error_pos = (uint32_t)(at - lx->spec);
	}
	return -EINVAL;
}

int usdtkit__fail_tok(struct usdtkit_lexer *lx, struct usdtkit_arg *arg,
		      const char *msg)
{
	if (lx->tok.type == TOK_ERR)
		msg = lx->tok.msg;
	if (lx->tok.type == TOK_END)
		return usdtkit__fail(lx, arg, lx->end, msg);
	return usdtkit__fail(lx, arg, lx->tok.start, msg);
}

void usdtkit__flag(struct usdtkit_lexer *lx, struct usdtkit_arg *arg,
		   enum usdtkit_arg_status st, const char *at, const char *msg)
{
	if (arg->status != USDTKIT_ARG_OK)
		return;
	arg->status = st;
	arg->error = msg;
	arg->error_pos = (uint32_t)(at - lx->spec);
}

int usdtkit__expect(struct usdtkit_lexer *lx, struct usdtkit_arg *arg,
		    enum usdtkit_tok type, const char *msg)
{
	if (lx->tok.type != type)
		return usdtkit__fail_tok(lx, arg, msg);
	usdtkit__advance(lx);
	return 0;
}

static int take_term(struct usdtkit_lexer *lx, struct usdtkit_arg *arg,
		     struct usdtkit_expr *ex, bool neg)
{
	const struct usdtkit_token *t = &lx->tok;

	if (t->type == TOK_NUM) {
		if (t->overflow)
			return usdtkit__fail_tok(lx, arg,
						 "number does not fit 64 bits");
		ex->value = neg ? ex->value - t->num : ex->value + t->num;
		usdtkit__advance(lx);
		return 0;
	}
	if (t->type != TOK_SYM)
		return usdtkit__fail_tok(lx, arg, "expected a number or symbol");
	if (ex->sym)
		return usdtkit__fail_tok(lx, arg,
					 "more than one symbol in an expression");
	if (neg)
		return usdtkit__fail_tok(lx, arg, "negated symbol");
	ex->sym = t->start;
	ex->sym_end = t->stop;
	usdtkit__advance(lx);
	/* sym@GOTOFF and friends bind to the symbol */
	if (lx->tok.type == TOK_RELOC) {
		ex->reloc = lx->tok.reloc;
		usdtkit__advance(lx);
	}
	return 0;
}

int usdtkit__parse_expr(struct usdtkit_lexer *lx, struct usdtkit_arg *arg,
			struct usdtkit_expr *ex)
{
	bool neg = false;
	int err;

	ex->value = 0;
	ex->sym = ex->sym_end = NULL;
	ex->reloc = 0;
	ex->nterms = 0;

	if (lx->tok.type == TOK_MINUS || lx->tok.type == TOK_PLUS) {
		neg = lx->tok.type == TOK_MINUS;
		usdtkit__advance(lx);
	}
	for (;;) {
		err = take_term(lx, arg, ex, neg);
		if (err)
			return err;
		ex->nterms++;
		if (lx->tok.type != TOK_PLUS && lx->tok.type != TOK_MINUS)
			return 0;
		neg = lx->tok.type == TOK_MINUS;
		usdtkit__advance(lx);
	}
}

static const char *const tls_msg =
	"thread-local symbol: the thread pointer is not in pt_regs";

int usdtkit__apply_expr(struct usdtkit_lexer *lx, struct usdtkit_arg *arg,
			const struct usdtkit_expr *ex, bool deref)
{
	if (!ex->sym) {
		if (deref) {
			arg->kind = USDTKIT_LOC_MEM;
			arg->disp = (int64_t)ex->value;
		} else {
			arg->kind = USDTKIT_LOC_CONST;
			arg->value = (int64_t)ex->value;
		}
		return 0;
	}
	arg->kind = USDTKIT_LOC_SYMBOL;
	arg->deref = deref;
	arg->disp = (int64_t)ex->value;
	arg->sym_off = (uint32_t)(ex->sym - lx->spec);
	arg->sym_len = (uint32_t)(ex->sym_end - ex->sym);
	switch (ex->reloc) {
	case 0:
		arg->reloc = USDTKIT_RELOC_NONE;
		break;
	case TREL_GOTOFF:
		arg->reloc = USDTKIT_RELOC_GOTOFF;
		break;
	case TREL_GOT:
		arg->reloc = USDTKIT_RELOC_GOT;
		break;
	case TREL_LO12:
		arg->reloc = USDTKIT_RELOC_LO12;
		break;
	case TREL_LO:
		arg->reloc = USDTKIT_RELOC_RISCV_LO;
		break;
	case TREL_GOT_OFST:
		arg->reloc = USDTKIT_RELOC_GOT_OFST;
		break;
	case TREL_TLS:
	case TREL_TPREL_LO:
		arg->reloc = USDTKIT_RELOC_TLS;
		usdtkit__flag(lx, arg, USDTKIT_ARG_UNSUPPORTED, ex->sym,
			      tls_msg);
		break;
	default:
		arg->reloc = USDTKIT_RELOC_NONE;
		usdtkit__flag(lx, arg, USDTKIT_ARG_UNSUPPORTED, ex->sym,
			      "relocation operator does not name a data address");
		break;
	}
	return 0;
}

void usdtkit__take_fpreg(struct usdtkit_lexer *lx, struct usdtkit_arg *arg)
{
	const char *name = lx->tok.start;

	/* the name without the AT&T '%' prefix, like register names */
	if (*name == '%')
		name++;
	arg->kind = USDTKIT_LOC_UNREADABLE;
	arg->sym_off = (uint32_t)(name - lx->spec);
	arg->sym_len = (uint32_t)(lx->tok.stop - name);
	usdtkit__flag(lx, arg, USDTKIT_ARG_UNREADABLE, lx->tok.start,
		      "FP/vector register: not in pt_regs, BPF cannot read it");
	usdtkit__advance(lx);
}

int usdtkit__set_scale(struct usdtkit_lexer *lx, struct usdtkit_arg *arg,
		       uint64_t scale, const char *at)
{
	if (scale != 1 && scale != 2 && scale != 4 && scale != 8)
		return usdtkit__fail(lx, arg, at, "scale must be 1, 2, 4 or 8");
	arg->scale = (uint8_t)scale;
	return 0;
}
