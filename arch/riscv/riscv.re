// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * RISC-V operands (GAS syntax) for the riscv64 and riscv32 backends.
 * This file is the source: re2c turns it into C at build time.
 *
 *   a0  s1  x10  fp     register (ABI or xN name)
 *   zero  x0            hard-wired zero: the constant 0
 *   -5  42  0x10        constant
 *   -24(s0)  (a0)       memory: disp(base); (zero) means no base
 *   %lo(sym+8)(a5)      symbol-relative: low 12 bits of sym + a5
 *   %tprel_lo(tls)(a5)  thread-local: decoded, flagged unsupported
 *   f0 ft0 fs0 fa0      FP registers: unreadable by BPF
 *   v0 .. v31           vector registers (RVV): unreadable by BPF
 */
#include "spec/backends.h"
#include "riscv/riscv_regs.h"

#include <string.h>

/*!include:re2c "prologue.re" */

/* the lexer maps a register number within a group to its entry */
_Static_assert(RVE_T2 == RVE_T0 + 2 && RVE_S1 == RVE_S0 + 1 &&
		       RVE_A7 == RVE_A0 + 7 && RVE_S11 == RVE_S2 + 9 &&
		       RVE_T6 == RVE_T3 + 3 && RVE_X31 == RVE_X1 + 30,
	       "riscv register groups must be contiguous");

/* "%name(" -> enum usdtkit_tok_reloc; @s..@e is the name */
static int riscv_reloc_kind(const char *s, const char *e)
{
	size_t n = (size_t)(e - s);

	if (n == 2 && memcmp(s, "lo", 2) == 0)
		return TREL_LO;
	if (n == 8 && memcmp(s, "tprel_lo", 8) == 0)
		return TREL_TPREL_LO;
	/* %hi %pcrel_hi %tprel_hi %got_pcrel_hi %tls_ie_pcrel_hi ... */
	if (n >= 2 && memcmp(e - 2, "hi", 2) == 0)
		return TREL_HI;
	/* %pcrel_lo needs the auipc it pairs with, %tprel_add ... */
	return TREL_OTHER;
}

/* The entry of the name at [start, cur): a one-letter group prefix and a
 * decimal number; number @first of the group is table entry @entry. */
static int riscv_group(const char *start, const char *cur, int entry,
		       int first)
{
	const char *p;
	int n = 0;

	for (p = start + 1; p < cur; p++)
		n = n * 10 + (*p - '0');
	return entry + n - first;
}

/*
 * Register names, shared by the token scanner and the fast path's lookup
 * (riscv_reg_entry), so that tests/spec/test_registry, which checks every table
 * name, covers both. An action sets the entry of the name at
 * [start, lx->cur) and jumps to "reg" in the function that uses the rules.
 * zero and x0 are not here: they read as the constant 0.
 */
/*!rules:re2c:riscv_regs
	"ra"	{ entry = RVE_RA; goto reg; }
	"sp"	{ entry = RVE_SP; goto reg; }
	"gp"	{ entry = RVE_GP; goto reg; }
	"tp"	{ entry = RVE_TP; goto reg; }
	"fp"	{ entry = RVE_FP; goto reg; }
	"t" [0-2]	{
		entry = riscv_group(start, lx->cur, RVE_T0, 0);
		goto reg;
	}
	"t" [3-6]	{
		entry = riscv_group(start, lx->cur, RVE_T3, 3);
		goto reg;
	}
	"s" [01]	{
		entry = riscv_group(start, lx->cur, RVE_S0, 0);
		goto reg;
	}
	"s" ([2-9] | "1" [01])	{
		entry = riscv_group(start, lx->cur, RVE_S2, 2);
		goto reg;
	}
	"a" [0-7]	{
		entry = riscv_group(start, lx->cur, RVE_A0, 0);
		goto reg;
	}
	"x" ([1-9] | [12][0-9] | "3" [01])	{
		entry = riscv_group(start, lx->cur, RVE_X1, 1);
		goto reg;
	}
*/

static void riscv_next(struct usdtkit_lexer *lx, struct usdtkit_token *t)
{
	const char *YYMARKER = NULL;
	const char *start;
	int entry;

again:
	start = lx->cur;
	/*!re2c
	n32 = [0-9] | [12][0-9] | "3" [01];
	n12 = [0-9] | "1" [01];

	[\x00]		{ usdtkit__tok_nul(lx, t, start); return; }
	[ \t\n\r\v\f]+		{
		if (usdtkit__blank_ends(lx, t, start))
			return;
		goto again;
	}
	num		{ usdtkit__tok(lx, t, TOK_NUM, start); return; }

	// register names win over identifiers of the same length
	"zero" | "x0"	{ usdtkit__tok(lx, t, TOK_ZERO, start); return; }
	!use:riscv_regs;
	"f" n32 | "ft" n12 | "fs" n12 | "fa" [0-7] | "v" n32
			{ usdtkit__tok(lx, t, TOK_FPREG, start); return; }

	ident		{ usdtkit__tok(lx, t, TOK_SYM, start); return; }
	"%" [a-z_0-9]+ "("	{
		usdtkit__tok(lx, t, TOK_RELOC, start);
		t->reloc = riscv_reloc_kind(start + 1, lx->cur - 1);
		return;
	}
	"%" [a-z_0-9]*	{
		usdtkit__tok_err(lx, t, start, "expected '(' after a relocation operator");
		return;
	}
	"("	{ usdtkit__tok(lx, t, TOK_LPAREN, start); return; }
	")"	{ usdtkit__tok(lx, t, TOK_RPAREN, start); return; }
	"+"	{ usdtkit__tok(lx, t, TOK_PLUS, start); return; }
	"-"	{ usdtkit__tok(lx, t, TOK_MINUS, start); return; }
	*	{ usdtkit__tok_err(lx, t, start, "unexpected character"); return; }
	*/
reg:
	usdtkit__tok_reg(lx, t, start, entry);
}

/* The register-table entry that [s, e) names ("a0", "s11"), or -1. */
static int riscv_reg_entry(const char *s, const char *e)
{
	/* the rules' actions run on a lexer over just the name */
	struct usdtkit_lexer name = { .cur = s, .end = e };
	struct usdtkit_lexer *lx = &name;
	const char *start = s;
	int entry;

	/*!local:re2c
	!use:riscv_regs;
	*	{ return -1; }
	*/
reg:
	return lx->cur == e ? entry : -1;
}

/* a0, 42, disp(base) in one DFA pass */
const char *usdtkit__riscv_parse_fast(const struct usdtkit_arch *arch,
				      const char *op, const char *end,
				      struct usdtkit_arg *arg)
{
	/* the register rules' actions read lx->cur: a local lexer, whose
	 * cursor stays in a register */
	struct usdtkit_lexer scan = { .cur = op, .end = end };
	struct usdtkit_lexer *lx = &scan;
	const char *YYMARKER = NULL, *start = op;
	const char *n1, *n2, *r1, *r2, *e;
	struct usdtkit_reg base;
	uint64_t v = 0;
	int entry;
	/*!stags:re2c:riscv_fast format = "const char *@@;\n"; */

	/*!local:re2c:riscv_fast
	re2c:tags = 1;

	fname = [a-z] [a-z0-9]*;

	// a lone register: its rule jumps to "reg"; zero and x0 are not
	// among them (they read as 0), the token grammar handles those
	!use:riscv_regs;
	@n1 fdec @n2 @e feop	{
		if (!usdtkit__fast_eop(e, end) ||
		    !usdtkit__fast_num(n1, n2, &v))
			return NULL;
		arg->kind = USDTKIT_LOC_CONST;
		arg->value = (int64_t)v;
		return e;
	}
	(@n1 fdec @n2)? "(" @r1 fname @r2 ")" @e feop	{
		if (!usdtkit__fast_eop(e, end) ||
		    (n1 && !usdtkit__fast_num(n1, n2, &v)) ||
		    !usdtkit__reg_fill(arch, &base, riscv_reg_entry(r1, r2)))
			return NULL;
		arg->kind = USDTKIT_LOC_MEM;
		arg->disp = (int64_t)v;
		arg->base = base;
		return e;
	}
	*	{ return NULL; }
	*/
reg:
	/* the name must end the operand ("a0b" is not a0) */
	if (!usdtkit__fast_reg_end(lx->cur, end) ||
	    !usdtkit__reg_fill(arch, &arg->reg, entry))
		return NULL;
	arg->kind = USDTKIT_LOC_REG;
	return lx->cur;
}

/* (base): a register, or zero for an absolute address */
static int riscv_parse_base(struct usdtkit_lexer *lx, struct usdtkit_arg *arg)
{
	usdtkit__advance(lx);	/* '(' */
	if (lx->tok.type == TOK_ZERO)
		usdtkit__advance(lx);
	else if (lx->tok.type == TOK_REG)
		usdtkit__take_reg(lx, &arg->base);
	else
		return usdtkit__fail_tok(lx, arg, "expected base register");
	return usdtkit__expect(lx, arg, TOK_RPAREN, "expected ')'");
}

/* %lo(expr): the operator token is current */
static int riscv_parse_reloc(struct usdtkit_lexer *lx, struct usdtkit_arg *arg,
			     struct usdtkit_expr *ex)
{
	int reloc = lx->tok.reloc;
	const char *at = lx->tok.start;

	usdtkit__advance(lx);
	/* inside the operator a name is a symbol, even one spelled like a
	 * register: GCC prints %lo(a0) for a global called a0 */
	if (lx->tok.type == TOK_REG || lx->tok.type == TOK_ZERO ||
	    lx->tok.type == TOK_FPREG)
		lx->tok.type = TOK_SYM;
	if (usdtkit__parse_expr(lx, arg, ex))
		return -1;
	if (!ex->sym) {
		int64_t lo = (int64_t)(ex->value & 0xfff);

		/* %lo(N) is just a number; others would need more context */
		if (reloc != TREL_LO)
			return usdtkit__fail(lx, arg, at,
					     "relocation operator needs a symbol");
		ex->value = (uint64_t)(lo >= 0x800 ? lo - 0x1000 : lo);
	} else {
		ex->reloc = reloc;
	}
	return usdtkit__expect(lx, arg, TOK_RPAREN, "expected ')'");
}

/* disp(base), (base), %lo(sym)(base) or a bare constant */
static void riscv_parse_mem(struct usdtkit_lexer *lx, struct usdtkit_arg *arg)
{
	struct usdtkit_expr ex = { 0 };
	const char *at = lx->tok.start;
	bool paren;

	if (lx->tok.type == TOK_RELOC) {
		if (riscv_parse_reloc(lx, arg, &ex))
			return;
		/* a %lo() value is only an address together with a base */
		if (lx->tok.type != TOK_LPAREN) {
			usdtkit__fail_tok(lx, arg, "expected '(' base register ')'");
			return;
		}
	} else if (lx->tok.type != TOK_LPAREN &&
		   usdtkit__parse_expr(lx, arg, &ex)) {
		return;
	}
	paren = lx->tok.type == TOK_LPAREN;
	if (paren && riscv_parse_base(lx, arg))
		return;
	if (usdtkit__expect_end(lx, arg))
		return;
	if (!paren && ex.sym) {
		/* no riscv operand is a bare symbol: a lone name is most
		 * likely a register this lexer does not know */
		if (ex.nterms == 1)
			usdtkit__fail(lx, arg, at, "unknown register");
		else
			usdtkit__fail(lx, arg, lx->end,
				      "expected '(' base register ')'");
		return;
	}
	usdtkit__apply_expr(lx, arg, &ex, paren);
}

void usdtkit__riscv_parse_operand(const struct usdtkit_arch *arch,
				  struct usdtkit_lexer *lx,
				  struct usdtkit_arg *arg)
{
	(void)arch;
	usdtkit__lex_begin(lx, riscv_next);
	switch (lx->tok.type) {
	case TOK_REG:
		arg->kind = USDTKIT_LOC_REG;
		usdtkit__take_reg(lx, &arg->reg);
		usdtkit__expect_end(lx, arg);
		return;
	case TOK_ZERO:
		/* x0 reads as 0 */
		arg->kind = USDTKIT_LOC_CONST;
		arg->value = 0;
		usdtkit__advance(lx);
		usdtkit__expect_end(lx, arg);
		return;
	case TOK_FPREG:
		usdtkit__take_fpreg(lx, arg);
		usdtkit__expect_end(lx, arg);
		return;
	default:
		riscv_parse_mem(lx, arg);
		return;
	}
}
