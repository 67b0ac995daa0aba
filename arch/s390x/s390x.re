// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * s390x operands (GAS syntax) for the s390x backend.
 * This file is the source: re2c turns it into C at build time.
 *
 *   %r0..%r15             general register
 *   -5  42  0x10          constant
 *   D(%rB)  (%rB)         memory: base + displacement
 *   D(%rX,%rB)  D(,%rB)   memory: index (scale 1) + base + displacement;
 *                         %r0 as index or base means "none" (reads as 0)
 *   sym  sym+8(%rB)       symbol-relative memory (relative-long forms)
 *   sym@GOTENT ...        GOT and TLS operators: flagged unsupported
 *   %f0 %v16              FP/vector registers: unreadable by BPF
 *   %a0..%a15             access registers: not in user_pt_regs
 */
#include "spec/backends.h"
#include "s390x/s390x_regs.h"

#include <string.h>

/*!include:re2c "prologue.re" */

static bool same_nocase(const char *a, const char *s, size_t n)
{
	size_t i;

	if (strlen(a) != n)
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		if (c != a[i])
			return false;
	}
	return true;
}

/* "@NAME" -> enum usdtkit_tok_reloc; @s..@e is the name */
static int s390x_reloc_kind(const char *s, const char *e)
{
	static const struct {
		const char *name;
		int kind;
	} tab[] = {
		{ "GOT", TREL_GOT },	    { "GOTENT", TREL_GOT },
		{ "GOTOFF", TREL_GOTOFF },  { "PLT", TREL_PLT },
		{ "PLTOFF", TREL_PLT },	    { "GOTPLT", TREL_PLT },
		{ "GOTPLTENT", TREL_PLT },  { "TLSGD", TREL_TLS },
		{ "TLSLDM", TREL_TLS },	    { "DTPOFF", TREL_TLS },
		{ "NTPOFF", TREL_TLS },	    { "GOTNTPOFF", TREL_TLS },
		{ "INDNTPOFF", TREL_TLS },
	};
	size_t n = (size_t)(e - s), i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (same_nocase(tab[i].name, s, n))
			return tab[i].kind;
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
 * (s390x_reg_entry), so that tests/spec/test_registry, which checks every table
 * name, covers both. An action sets the entry of the name at
 * [start, lx->cur) and jumps to "reg" in the function that uses the rules.
 */
/*!rules:re2c:s390x_regs
	"%r" ([0-9] | "1" [0-5])
		{ entry = S390XE_R0 + regnum(start + 2, lx->cur); goto reg; }
*/

static void s390x_next(struct usdtkit_lexer *lx, struct usdtkit_token *t)
{
	const char *YYMARKER = NULL;
	const char *start;
	int entry;

again:
	start = lx->cur;
	/*!re2c
	n16 = [0-9] | "1" [0-5];
	n32 = [0-9] | [12][0-9] | "3" [01];

	[\x00]		{ usdtkit__tok_nul(lx, t, start); return; }
	[ \t\n\r\v\f]+		{
		if (usdtkit__blank_ends(lx, t, start))
			return;
		goto again;
	}
	num		{ usdtkit__tok(lx, t, TOK_NUM, start); return; }
	ident		{ usdtkit__tok(lx, t, TOK_SYM, start); return; }
	"@" [A-Za-z_]+	{
		usdtkit__tok(lx, t, TOK_RELOC, start);
		t->reloc = s390x_reloc_kind(start + 1, lx->cur);
		return;
	}

	!use:s390x_regs;
	// access registers are told apart by their "%a" in the grammar
	"%f" n16 | "%v" n32 | "%a" n16
			{ usdtkit__tok(lx, t, TOK_FPREG, start); return; }
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

/* The register-table entry that [s, e) names ("%r15"), or -1. */
static int s390x_reg_entry(const char *s, const char *e)
{
	/* the rules' actions run on a lexer over just the name */
	struct usdtkit_lexer name = { .cur = s, .end = e };
	struct usdtkit_lexer *lx = &name;
	const char *YYMARKER = NULL, *start = s;
	int entry;

	/*!local:re2c
	!use:s390x_regs;
	*	{ return -1; }
	*/
reg:
	return lx->cur == e ? entry : -1;
}

/* a base or index register; %r0 there means "none", which the token
 * grammar handles */
static bool s390x_fast_xb(const struct usdtkit_arch *arch,
			  struct usdtkit_reg *r, const char *s, const char *e)
{
	return usdtkit__reg_fill(arch, r, s390x_reg_entry(s, e)) && r->id != 0;
}

/* D(B) or D(X,B) from the fast path's tags (NULL: absent) */
static const char *s390x_fast_mem(const struct usdtkit_arch *arch,
				  const char *end, struct usdtkit_arg *arg,
				  const char *n1, const char *n2,
				  const char *r1, const char *r2,
				  const char *b1, const char *b2, const char *e)
{
	struct usdtkit_reg first, base;
	uint64_t disp = 0;

	if (!usdtkit__fast_eop(e, end) ||
	    (n1 && !usdtkit__fast_num(n1, n2, &disp)) ||
	    !s390x_fast_xb(arch, &first, r1, r2) ||
	    (b1 && !s390x_fast_xb(arch, &base, b1, b2)))
		return NULL;
	arg->kind = USDTKIT_LOC_MEM;
	arg->disp = (int64_t)disp;
	if (b1) {
		/* D(X,B): the first register is the index */
		arg->base = base;
		arg->index = first;
		arg->scale = 1;
	} else {
		arg->base = first;
	}
	return e;
}

/* %r2, 42, D(%rB), D(%rX,%rB) in one DFA pass */
const char *usdtkit__s390x_parse_fast(const struct usdtkit_arch *arch,
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
	/*!stags:re2c:s390x_fast format = "const char *@@;\n"; */

	/*!local:re2c:s390x_fast
	re2c:tags = 1;

	fname = "%" [a-z0-9]+;

	// a lone register: its rule jumps to "reg"
	!use:s390x_regs;
	@n1 fdec @n2 @e feop	{
		if (!usdtkit__fast_eop(e, end) ||
		    !usdtkit__fast_num(n1, n2, &v))
			return NULL;
		arg->kind = USDTKIT_LOC_CONST;
		arg->value = (int64_t)v;
		return e;
	}
	(@n1 fdec @n2)? "(" @r1 fname @r2 ("," @b1 fname @b2)? ")"
	@e feop	{
		return s390x_fast_mem(arch, end, arg, n1, n2, r1, r2, b1, b2,
				      e);
	}
	*	{ return NULL; }
	*/
reg:
	/* the name must end the operand ("%r1x" is not %r1) */
	if (!usdtkit__fast_reg_end(lx->cur, end) ||
	    !usdtkit__reg_fill(arch, &arg->reg, entry))
		return NULL;
	arg->kind = USDTKIT_LOC_REG;
	return lx->cur;
}

/* (B), (X,B), (,B). In the base and index fields, register 0 stands for
 * "no register": the hardware adds 0, whatever %r0 holds. */
static int s390x_parse_xb(struct usdtkit_lexer *lx, struct usdtkit_arg *arg)
{
	struct usdtkit_reg first;

	usdtkit__reg_clear(&first);
	usdtkit__advance(lx);	/* '(' */
	if (lx->tok.type == TOK_REG)
		usdtkit__take_reg(lx, &first);
	else if (lx->tok.type != TOK_COMMA)
		return usdtkit__fail_tok(lx, arg, "expected register");
	if (lx->tok.type == TOK_COMMA) {
		/* D(X,B): the first register is the index */
		usdtkit__advance(lx);
		if (lx->tok.type != TOK_REG)
			return usdtkit__fail_tok(lx, arg, "expected base register");
		usdtkit__take_reg(lx, &arg->base);
		arg->index = first;
	} else {
		arg->base = first;
	}
	if (usdtkit__expect(lx, arg, TOK_RPAREN, "expected ')'"))
		return -1;
	if (arg->base.id == 0)
		usdtkit__reg_clear(&arg->base);
	if (arg->index.id == 0)
		usdtkit__reg_clear(&arg->index);
	if (arg->index.id >= 0)
		arg->scale = 1;
	return 0;
}

/* [D](X,B), a constant, or a symbol (memory at the symbol) */
static void s390x_parse_mem(struct usdtkit_lexer *lx, struct usdtkit_arg *arg)
{
	struct usdtkit_expr ex = { 0 };
	bool paren;

	if (lx->tok.type != TOK_LPAREN && usdtkit__parse_expr(lx, arg, &ex))
		return;
	paren = lx->tok.type == TOK_LPAREN;
	if (paren && s390x_parse_xb(lx, arg))
		return;
	if (usdtkit__expect_end(lx, arg))
		return;
	/* a bare number is an immediate; a bare symbol is a relative-long
	 * memory operand (lrl %r1,sym) */
	usdtkit__apply_expr(lx, arg, &ex, paren || ex.sym);
}

void usdtkit__s390x_parse_operand(const struct usdtkit_arch *arch,
				  struct usdtkit_lexer *lx,
				  struct usdtkit_arg *arg)
{
	const char *at;

	(void)arch;
	usdtkit__lex_begin(lx, s390x_next);
	switch (lx->tok.type) {
	case TOK_REG:
		arg->kind = USDTKIT_LOC_REG;
		usdtkit__take_reg(lx, &arg->reg);
		usdtkit__expect_end(lx, arg);
		return;
	case TOK_FPREG:
		if (lx->tok.start[1] != 'a') {
			usdtkit__take_fpreg(lx, arg);
			usdtkit__expect_end(lx, arg);
			return;
		}
		at = lx->tok.start;
		arg->kind = USDTKIT_LOC_UNREADABLE;
		arg->sym_off = (uint32_t)(at + 1 - lx->spec);
		arg->sym_len = (uint32_t)(lx->tok.stop - at - 1);
		usdtkit__advance(lx);
		if (usdtkit__expect_end(lx, arg))
			return;
		usdtkit__flag(lx, arg, USDTKIT_ARG_UNSUPPORTED, at,
			      "access register: not in user_pt_regs");
		return;
	default:
		s390x_parse_mem(lx, arg);
		return;
	}
}
