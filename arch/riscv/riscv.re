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
 */
#include "backends.h"
#include "riscv/riscv_regs.h"

#include <string.h>

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

/* A register token for the name at [start, lx->cur): a one-letter group
 * prefix and a decimal number; number @first is table entry @entry. */
static void riscv_tok_reg(struct usdtkit_lexer *lx, struct usdtkit_token *t,
			  const char *start, int entry, int first)
{
	const char *p;
	int n = 0;

	for (p = start + 1; p < lx->cur; p++)
		n = n * 10 + (*p - '0');
	usdtkit__tok_reg(lx, t, start, entry + n - first);
}

static void riscv_next(struct usdtkit_lexer *lx, struct usdtkit_token *t)
{
	const char *YYMARKER = NULL;
	const char *start;

again:
	start = lx->cur;
	/*!re2c
	re2c:api = custom;
	re2c:api:style = free-form;
	re2c:define:YYCTYPE = "unsigned char";
	re2c:define:YYPEEK = "USDTKIT_PEEK(lx, lx->cur)";
	re2c:define:YYSKIP = "lx->cur++;";
	re2c:define:YYBACKUP = "YYMARKER = lx->cur;";
	re2c:define:YYRESTORE = "lx->cur = YYMARKER;";
	re2c:yyfill:enable = 0;

	ident = [A-Za-z_.][A-Za-z0-9_.$]*;
	num = "0" [xX] [0-9a-fA-F]+ | "0" [bB] [01]+ | [0-9]+;
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
	"ra"	{ usdtkit__tok_reg(lx, t, start, RVE_RA); return; }
	"sp"	{ usdtkit__tok_reg(lx, t, start, RVE_SP); return; }
	"gp"	{ usdtkit__tok_reg(lx, t, start, RVE_GP); return; }
	"tp"	{ usdtkit__tok_reg(lx, t, start, RVE_TP); return; }
	"fp"	{ usdtkit__tok_reg(lx, t, start, RVE_FP); return; }
	"t" [0-2]	{ riscv_tok_reg(lx, t, start, RVE_T0, 0); return; }
	"t" [3-6]	{ riscv_tok_reg(lx, t, start, RVE_T3, 3); return; }
	"s" [01]	{ riscv_tok_reg(lx, t, start, RVE_S0, 0); return; }
	"s" ([2-9] | "1" [01])	{ riscv_tok_reg(lx, t, start, RVE_S2, 2); return; }
	"a" [0-7]	{ riscv_tok_reg(lx, t, start, RVE_A0, 0); return; }
	"x" ([1-9] | [12][0-9] | "3" [01])
			{ riscv_tok_reg(lx, t, start, RVE_X1, 1); return; }
	"f" n32 | "ft" n12 | "fs" n12 | "fa" [0-7]
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
	lx->next = riscv_next;
	usdtkit__advance(lx);
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
