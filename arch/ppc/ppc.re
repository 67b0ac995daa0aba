// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * PowerPC operands (GAS syntax) for the ppc64le and ppc64 backends.
 * This file is the source: re2c turns it into C at build time.
 *
 * sys/sdt.h builds each operand with "%I[id]%[id]" and the constraint
 * "nZr": GCC prints registers by number, "i" before a constant (%I), and
 * a memory operand as a D-form or X-form address.
 *
 *   3  31                 general register, by number (never a constant)
 *   %r3  r3               general register, as -mregnames prints it
 *   i5  i-8  i0x10        constant (the "i" of %I)
 *   -16(31)  0(%r9)       memory, D-form: D + (RA|0)
 *   9,10  %r9,%r10        memory, X-form (indexed): (RA|0) + RB
 *   sym(9)                symbol-relative memory; @toc@l etc. unsupported
 *   %f1 %v2 %vs34         FP/vector/VSX registers: unreadable by BPF
 *   nip msr ctr lr xer ccr    the other pt_regs slots, by name
 *
 * In the RA field of D-form and X-form addresses register 0 means "no
 * register" (the hardware adds 0), as the ISA defines (RA|0); GCC keeps r0
 * out of RA for that reason. RB is always a register, r0 included.
 * An FP register printed without -mregnames is a bare number too, and
 * cannot be told from a general register; sdt.h's "nZr" never asks for
 * one.
 */
#include "spec/backends.h"
#include "ppc/ppc_regs.h"

#include <errno.h>
#include <string.h>

/*!include:re2c "prologue.re" */

/* does [s, e) contain @word? */
static bool has_part(const char *s, const char *e, const char *word)
{
	size_t k = strlen(word);

	for (; s + k <= e; s++)
		if (!memcmp(s, word, k))
			return true;
	return false;
}

/* "@toc@l", "@got@tprel" ... -> enum usdtkit_tok_reloc */
static int ppc_reloc_kind(const char *s, const char *e)
{
	size_t n = (size_t)(e - s);

	/* any part of the chain naming a TLS model: @tprel, @dtprel, @tls,
	 * @tlsgd, @tlsld, @got@tprel ... */
	if (has_part(s, e, "tprel") || has_part(s, e, "@tls"))
		return TREL_TLS;
	if (n == 4 && !memcmp(s, "@got", 4))
		return TREL_GOT;
	if (n == 4 && !memcmp(s, "@plt", 4))
		return TREL_PLT;
	/* @toc, @l, @ha, @got@l ...: parts of an address, not a data address */
	return TREL_OTHER;
}

/* decimal register number of a name that re2c already checked */
static int regnum(const char *s, const char *e)
{
	int n = 0;

	for (; s < e; s++)
		n = n * 10 + (*s - '0');
	return n;
}

/*
 * Register names, shared by the token scanner and the fast path's lookup
 * (ppc_reg_entry), so that tests/spec/test_registry, which checks every table
 * name, covers both. An action sets the entry of the name at
 * [start, lx->cur) and jumps to "reg" in the function that uses the rules.
 * Bare numbers are not here: the scanner must see them as numbers (they
 * are displacements too), and the grammar turns them into registers.
 */
/*!rules:re2c:ppc_regs
	"%"? "r" ([0-9] | [12][0-9] | "3" [01])	{
		entry = PPCE_R0 + regnum(start + 1 + (*start == '%'), lx->cur);
		goto reg;
	}
	"%"? "nip"	{ entry = PPCE_NIP; goto reg; }
	"%"? "msr"	{ entry = PPCE_MSR; goto reg; }
	"%"? "ctr"	{ entry = PPCE_CTR; goto reg; }
	"%"? "lr"	{ entry = PPCE_LR; goto reg; }
	"%"? "xer"	{ entry = PPCE_XER; goto reg; }
	"%"? "ccr"	{ entry = PPCE_CCR; goto reg; }
*/

static void ppc_next(struct usdtkit_lexer *lx, struct usdtkit_token *t)
{
	const char *YYMARKER = NULL;
	const char *start;
	int entry;

again:
	start = lx->cur;
	/*!re2c

	n32 = [0-9] | [12][0-9] | "3" [01];
	n64 = [0-9] | [1-5][0-9] | "6" [0-3];

	[\x00]		{ usdtkit__tok_nul(lx, t, start); return; }
	[ \t\n\r\v\f]+		{
		if (usdtkit__blank_ends(lx, t, start))
			return;
		goto again;
	}
	num		{ usdtkit__tok(lx, t, TOK_NUM, start); return; }

	// %I's constant marker: "i" then a number. Listed before ident, so
	// it wins a tie ("i55"); a longer name ("i5x") is a symbol.
	"i" "-"? num	{
		lx->cur = start + 1;
		usdtkit__tok(lx, t, TOK_HASH, start);
		return;
	}

	// register names win over identifiers of the same length
	!use:ppc_regs;
	"%"? ("f" n32 | "v" n32 | "vs" n64)
			{ usdtkit__tok(lx, t, TOK_FPREG, start); return; }

	ident		{ usdtkit__tok(lx, t, TOK_SYM, start); return; }
	("@" [A-Za-z]+)+	{
		usdtkit__tok(lx, t, TOK_RELOC, start);
		t->reloc = ppc_reloc_kind(start, lx->cur);
		return;
	}
	"%" [a-z0-9]*	{
		usdtkit__tok_err(lx, t, start, "unknown register");
		return;
	}
	"("	{ usdtkit__tok(lx, t, TOK_LPAREN, start); return; }
	")"	{ usdtkit__tok(lx, t, TOK_RPAREN, start); return; }
	","	{ usdtkit__tok(lx, t, TOK_COMMA, start); return; }
	"+"	{ usdtkit__tok(lx, t, TOK_PLUS, start); return; }
	"-"	{ usdtkit__tok(lx, t, TOK_MINUS, start); return; }
	*	{ usdtkit__tok_err(lx, t, start, "unexpected character"); return; }
	*/
reg:
	usdtkit__tok_reg(lx, t, start, entry);
}

/* The register-table entry that [s, e) names ("%r15", "nip"), or -1. */
static int ppc_reg_entry(const char *s, const char *e)
{
	/* the rules' actions run on a lexer over just the name */
	struct usdtkit_lexer name = { .cur = s, .end = e };
	struct usdtkit_lexer *lx = &name;
	const char *YYMARKER = NULL, *start = s;
	int entry;

	/*!local:re2c
	!use:ppc_regs;
	*	{ return -1; }
	*/
reg:
	return lx->cur == e ? entry : -1;
}

/* A general register in an address, by number ("9") or by name ("%r9");
 * the fast path's pattern already checked a number's range. */
static int ppc_fast_gpr(const char *s, const char *e)
{
	int entry;

	if (*s >= '0' && *s <= '9')
		return PPCE_R0 + regnum(s, e);
	entry = ppc_reg_entry(s, e);
	return entry < PPC_NR_GPRS ? entry : -1;
}

/* D(RA) or RA,RB from the fast path's tags. RA = r0 means "none"; the
 * token grammar handles that. */
static const char *ppc_fast_mem(const struct usdtkit_arch *arch,
				const char *end, struct usdtkit_arg *arg,
				const char *n1, const char *n2,
				const char *r1, const char *r2,
				const char *b1, const char *b2, const char *e)
{
	struct usdtkit_reg ra, rb;
	uint64_t disp = 0;

	if (!usdtkit__fast_eop(e, end) ||
	    (n1 && !usdtkit__fast_num(n1, n2, &disp)) ||
	    !usdtkit__reg_fill(arch, &ra, ppc_fast_gpr(r1, r2)) || ra.id == 0 ||
	    (b1 && !usdtkit__reg_fill(arch, &rb, ppc_fast_gpr(b1, b2))))
		return NULL;
	arg->kind = USDTKIT_LOC_MEM;
	arg->disp = (int64_t)disp;
	arg->base = ra;
	if (b1) {
		arg->index = rb;
		arg->scale = 1;
	}
	return e;
}

/* 3, %r3, i5, -16(31), 9,10 in one DFA pass */
const char *usdtkit__ppc_parse_fast(const struct usdtkit_arch *arch,
				    const char *op, const char *end,
				    struct usdtkit_arg *arg)
{
	/* the register rules' actions read lx->cur: a local lexer, whose
	 * cursor stays in a register */
	struct usdtkit_lexer scan = { .cur = op, .end = end };
	struct usdtkit_lexer *lx = &scan;
	const char *YYMARKER = NULL, *start = op;
	const char *n1, *n2, *r1, *r2, *b1, *b2, *e;
	uint64_t v;
	int entry;
	/*!stags:re2c:ppc_fast format = "const char *@@;\n"; */

	/*!local:re2c:ppc_fast
	re2c:tags = 1;

	fnum = [0-9] | [12][0-9] | "3" [01];
	fgpr = fnum | "%"? "r" fnum;

	// a lone register name: its rule jumps to "reg"
	!use:ppc_regs;
	@r1 fnum @e feop	{
		if (!usdtkit__fast_eop(e, end) ||
		    !usdtkit__reg_fill(arch, &arg->reg, ppc_fast_gpr(r1, e)))
			return NULL;
		arg->kind = USDTKIT_LOC_REG;
		return e;
	}
	"i" @n1 fdec @n2 @e feop	{
		if (!usdtkit__fast_eop(e, end) ||
		    !usdtkit__fast_num(n1, n2, &v))
			return NULL;
		arg->kind = USDTKIT_LOC_CONST;
		arg->value = (int64_t)v;
		return e;
	}
	@n1 fdec @n2 "(" @r1 fgpr @r2 ")" @e feop	{
		b1 = b2 = NULL;
		return ppc_fast_mem(arch, end, arg, n1, n2, r1, r2, b1, b2, e);
	}
	@r1 fgpr @r2 "," @b1 fgpr @b2 @e feop	{
		n1 = n2 = NULL;
		return ppc_fast_mem(arch, end, arg, n1, n2, r1, r2, b1, b2, e);
	}
	*	{ return NULL; }
	*/
reg:
	/* the name must end the operand ("r1x" is not r1) */
	if (!usdtkit__fast_reg_end(lx->cur, end) ||
	    !usdtkit__reg_fill(arch, &arg->reg, entry))
		return NULL;
	arg->kind = USDTKIT_LOC_REG;
	return lx->cur;
}

/* A register number [0, 31] in @v, the text at @at: general register. */
static int ppc_gpr_num(struct usdtkit_lexer *lx, struct usdtkit_arg *arg,
		       uint64_t v, const char *at, struct usdtkit_reg *r)
{
	if (v >= PPC_NR_GPRS)
		return usdtkit__fail(lx, arg, at,
				     "register number out of range (0-31)");
	usdtkit__reg_set(lx->arch, r, PPCE_R0 + (int)v);
	return 0;
}

/* A general register in an address field: "9" or "%r9", consumed. */
static int ppc_take_gpr(struct usdtkit_lexer *lx, struct usdtkit_arg *arg,
			struct usdtkit_reg *r)
{
	const char *at = lx->tok.start;

	if (lx->tok.type == TOK_NUM) {
		if (ppc_gpr_num(lx, arg, lx->tok.overflow ? PPC_NR_GPRS :
				lx->tok.num, at, r))
			return -EINVAL;
		usdtkit__advance(lx);
		return 0;
	}
	if (lx->tok.type != TOK_REG)
		return usdtkit__fail_tok(lx, arg, "expected register");
	if (lx->tok.entry >= PPC_NR_GPRS)
		return usdtkit__fail_tok(lx, arg, "expected a general register");
	usdtkit__take_reg(lx, r);
	return 0;
}

/* RA,RB after RA (the comma is current): X-form, (RA|0) + RB */
static void ppc_parse_indexed(struct usdtkit_lexer *lx,
			      struct usdtkit_arg *arg,
			      const struct usdtkit_reg *ra)
{
	struct usdtkit_reg rb;

	usdtkit__advance(lx);	/* ',' */
	if (ppc_take_gpr(lx, arg, &rb) || usdtkit__expect_end(lx, arg))
		return;
	arg->kind = USDTKIT_LOC_MEM;
	arg->disp = 0;
	if (ra->id == 0) {
		/* RA = 0 adds nothing: the address is RB alone */
		arg->base = rb;
		return;
	}
	arg->base = *ra;
	arg->index = rb;
	arg->scale = 1;
}

/* a named register: the operand, or RA of an X-form address */
static void ppc_parse_named(struct usdtkit_lexer *lx, struct usdtkit_arg *arg)
{
	struct usdtkit_reg r;

	if (lx->tok.type == TOK_REG && lx->tok.entry < PPC_NR_GPRS) {
		usdtkit__reg_set(lx->arch, &r, lx->tok.entry);
		usdtkit__advance(lx);
		if (lx->tok.type == TOK_COMMA) {
			ppc_parse_indexed(lx, arg, &r);
			return;
		}
	} else {
		usdtkit__reg_set(lx->arch, &r, lx->tok.entry);
		usdtkit__advance(lx);
	}
	if (usdtkit__expect_end(lx, arg))
		return;
	arg->kind = USDTKIT_LOC_REG;
	arg->reg = r;
}

/* (RA) of a D-form address, '(' current; RA = 0 means no base */
static int ppc_parse_base(struct usdtkit_lexer *lx, struct usdtkit_arg *arg)
{
	struct usdtkit_reg ra;

	usdtkit__advance(lx);	/* '(' */
	if (ppc_take_gpr(lx, arg, &ra) ||
	    usdtkit__expect(lx, arg, TOK_RPAREN, "expected ')'"))
		return -1;
	if (ra.id != 0)
		arg->base = ra;
	return 0;
}

/* N (register), N,M (X-form), D(RA) (D-form) */
static void ppc_parse_mem(struct usdtkit_lexer *lx, struct usdtkit_arg *arg)
{
	struct usdtkit_expr ex = { 0 };
	const char *at = lx->tok.start;
	bool plain = lx->tok.type == TOK_NUM && !lx->tok.overflow;
	struct usdtkit_reg r;

	if (lx->tok.type != TOK_LPAREN && usdtkit__parse_expr(lx, arg, &ex))
		return;
	/* a lone unsigned number names a register, never a constant */
	plain = plain && ex.nterms == 1 && !ex.sym;
	switch (lx->tok.type) {
	case TOK_LPAREN:
		if (ppc_parse_base(lx, arg) || usdtkit__expect_end(lx, arg))
			return;
		usdtkit__apply_expr(lx, arg, &ex, true);
		return;
	case TOK_END:
		if (plain) {
			if (!ppc_gpr_num(lx, arg, ex.value, at, &arg->reg))
				arg->kind = USDTKIT_LOC_REG;
			return;
		}
		if (ex.sym && ex.nterms == 1)
			usdtkit__fail(lx, arg, at, "unknown register");
		else
			usdtkit__fail(lx, arg, at,
				      "expected a register number (constants take an 'i' prefix)");
		return;
	case TOK_COMMA:
		if (!plain) {
			usdtkit__fail(lx, arg, at, "expected register");
			return;
		}
		if (ppc_gpr_num(lx, arg, ex.value, at, &r))
			return;
		ppc_parse_indexed(lx, arg, &r);
		return;
	default:
		usdtkit__fail_tok(lx, arg, "unexpected text after operand");
		return;
	}
}

/* i5, i-8: %I's constant */
static void ppc_parse_imm(struct usdtkit_lexer *lx, struct usdtkit_arg *arg)
{
	struct usdtkit_expr ex;

	usdtkit__advance(lx);	/* 'i' */
	if (usdtkit__parse_expr(lx, arg, &ex) || usdtkit__expect_end(lx, arg))
		return;
	usdtkit__apply_expr(lx, arg, &ex, false);
}

void usdtkit__ppc_parse_operand(const struct usdtkit_arch *arch,
				struct usdtkit_lexer *lx,
				struct usdtkit_arg *arg)
{
	(void)arch;
	usdtkit__lex_begin(lx, ppc_next);
	switch (lx->tok.type) {
	case TOK_REG:
		ppc_parse_named(lx, arg);
		return;
	case TOK_FPREG:
		usdtkit__take_fpreg(lx, arg);
		usdtkit__expect_end(lx, arg);
		return;
	case TOK_HASH:
		ppc_parse_imm(lx, arg);
		return;
	default:
		ppc_parse_mem(lx, arg);
		return;
	}
}
