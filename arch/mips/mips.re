// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * MIPS64 operands (GAS syntax, n64 ABI) for the mips64el and mips64
 * backends. This file is the source: re2c turns it into C at build time.
 *
 *   $2  $sp  $a0  $t9     register (number or n64 ABI name)
 *   $0  $zero             hard-wired zero: the constant 0
 *   -5  42  0x10          constant
 *   -24($fp)  ($4)        memory: disp(base); ($0) means no base
 *   sym  sym+8($2)        symbol-relative memory
 *   %got_ofst(sym)($3)    GOT-page relative: resolved like riscv's %lo()
 *                         (16 bits, core/spec/resolve.c); other GOT operators
 *                         (%got_disp, %got_page ...) flagged unsupported
 *   %tprel_lo(tls)($3)    thread-local (also %dtprel_lo ...): unsupported
 *   $f0 .. $f31           FP registers: unreadable by BPF
 */
#include "spec/backends.h"
#include "mips/mips_regs.h"

#include <string.h>

/*!include:re2c "prologue.re" */

/* the lexer maps a register number within a group to its entry */
_Static_assert(MIPSE_R31 == MIPSE_R1 + 30 && MIPSE_A7 == MIPSE_A0 + 7 &&
		       MIPSE_TA3 == MIPSE_TA0 + 3 && MIPSE_T3 == MIPSE_T0 + 3 &&
		       MIPSE_S7 == MIPSE_S0 + 7 && MIPSE_T9 == MIPSE_T8 + 1 &&
		       MIPSE_K1 == MIPSE_K0 + 1 && MIPSE_KT1 == MIPSE_KT0 + 1,
	       "mips register groups must be contiguous");

static bool name_is(const char *s, const char *e, const char *name)
{
	size_t n = strlen(name);

	return (size_t)(e - s) == n && memcmp(s, name, n) == 0;
}

/* "%name(" -> enum usdtkit_tok_reloc; @s..@e is the name */
static int mips_reloc_kind(const char *s, const char *e)
{
	static const char *const tls[] = {
		"dtprel_lo", "dtprel_hi", "tprel_hi", "gottprel", "tlsgd",
		"tlsldm",
	};
	static const char *const got[] = {
		"got_page", "got_disp", "got", "got_lo", "got_hi",
		"call16", "call_lo", "call_hi",
	};
	size_t i;

	if (name_is(s, e, "tprel_lo"))
		return TREL_TPREL_LO;
	if (name_is(s, e, "got_ofst"))
		return TREL_GOT_OFST;
	for (i = 0; i < sizeof(tls) / sizeof(tls[0]); i++)
		if (name_is(s, e, tls[i]))
			return TREL_TLS;
	for (i = 0; i < sizeof(got) / sizeof(got[0]); i++)
		if (name_is(s, e, got[i]))
			return TREL_GOT;
	/*
	 * %lo %hi %higher %highest %gp_rel %neg ...: parts of an address
	 * that other instructions complete; an n64 %lo is 16 bits, not the
	 * 12 of riscv's, so it is not read as USDTKIT_RELOC_RISCV_LO.
	 */
	return TREL_OTHER;
}

/* The entry of the name at [start, cur): "$" and a group prefix of
 * @skip bytes in all, then a decimal number; number @first of the group
 * is table entry @entry. */
static int mips_group(const char *start, const char *cur, int skip,
		      int entry, int first)
{
	const char *p;
	int n = 0;

	for (p = start + skip; p < cur; p++)
		n = n * 10 + (*p - '0');
	return entry + n - first;
}

/*
 * Register names, shared by the token scanner and the fast path's lookup
 * (mips_reg_entry), so that tests/spec/test_registry, which checks every table
 * name, covers both. An action sets the entry of the name at
 * [start, lx->cur) and jumps to "reg" in the function that uses the rules.
 * $0 and $zero are not here: they read as the constant 0.
 */
/*!rules:re2c:mips_regs
	"$" ([1-9] | [12][0-9] | "3" [01])	{
		entry = mips_group(start, lx->cur, 1, MIPSE_R1, 1);
		goto reg;
	}
	"$a" [0-7]	{ entry = mips_group(start, lx->cur, 2, MIPSE_A0, 0); goto reg; }
	"$ta" [0-3]	{ entry = mips_group(start, lx->cur, 3, MIPSE_TA0, 0); goto reg; }
	"$t" [0-3]	{ entry = mips_group(start, lx->cur, 2, MIPSE_T0, 0); goto reg; }
	"$s" [0-7]	{ entry = mips_group(start, lx->cur, 2, MIPSE_S0, 0); goto reg; }
	"$t" [89]	{ entry = mips_group(start, lx->cur, 2, MIPSE_T8, 8); goto reg; }
	"$k" [01]	{ entry = mips_group(start, lx->cur, 2, MIPSE_K0, 0); goto reg; }
	"$kt" [01]	{ entry = mips_group(start, lx->cur, 3, MIPSE_KT0, 0); goto reg; }
	"$at"	{ entry = MIPSE_AT; goto reg; }
	"$v0"	{ entry = MIPSE_V0; goto reg; }
	"$v1"	{ entry = MIPSE_V1; goto reg; }
	"$gp"	{ entry = MIPSE_GP; goto reg; }
	"$sp"	{ entry = MIPSE_SP; goto reg; }
	"$fp"	{ entry = MIPSE_FP; goto reg; }
	"$s8"	{ entry = MIPSE_S8; goto reg; }
	"$ra"	{ entry = MIPSE_RA; goto reg; }
*/

static void mips_next(struct usdtkit_lexer *lx, struct usdtkit_token *t)
{
	const char *YYMARKER = NULL;
	const char *start;
	int entry;

again:
	start = lx->cur;
	/*!re2c
	n32 = [0-9] | [12][0-9] | "3" [01];

	[\x00]		{ usdtkit__tok_nul(lx, t, start); return; }
	[ \t\n\r\v\f]+		{
		if (usdtkit__blank_ends(lx, t, start))
			return;
		goto again;
	}
	num		{ usdtkit__tok(lx, t, TOK_NUM, start); return; }

	"$0" | "$zero"	{ usdtkit__tok(lx, t, TOK_ZERO, start); return; }
	!use:mips_regs;
	"$f" n32	{ usdtkit__tok(lx, t, TOK_FPREG, start); return; }
	// o32's $t4-$t7 and anything else: not an n64 register
	"$" [a-z0-9_]*	{
		usdtkit__tok_err(lx, t, start, "unknown register");
		return;
	}

	ident		{ usdtkit__tok(lx, t, TOK_SYM, start); return; }
	"%" [a-z_0-9]+ "("	{
		usdtkit__tok(lx, t, TOK_RELOC, start);
		t->reloc = mips_reloc_kind(start + 1, lx->cur - 1);
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

/* The register-table entry that [s, e) names ("$2", "$sp"), or -1. */
static int mips_reg_entry(const char *s, const char *e)
{
	/* the rules' actions run on a lexer over just the name */
	struct usdtkit_lexer name = { .cur = s, .end = e };
	struct usdtkit_lexer *lx = &name;
	const char *YYMARKER = NULL, *start = s;
	int entry;

	/*!local:re2c
	!use:mips_regs;
	*	{ return -1; }
	*/
reg:
	return lx->cur == e ? entry : -1;
}

/* $2, 42, disp($base) in one DFA pass */
const char *usdtkit__mips_parse_fast(const struct usdtkit_arch *arch,
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
	/*!stags:re2c:mips_fast format = "const char *@@;\n"; */

	/*!local:re2c:mips_fast
	re2c:tags = 1;

	fname = "$" [a-z0-9]+;

	// a lone register: its rule jumps to "reg"; $0 and $zero are not
	// among them (they read as 0), the token grammar handles those
	!use:mips_regs;
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
		    !usdtkit__reg_fill(arch, &base, mips_reg_entry(r1, r2)))
			return NULL;
		arg->kind = USDTKIT_LOC_MEM;
		arg->disp = (int64_t)v;
		arg->base = base;
		return e;
	}
	*	{ return NULL; }
	*/
reg:
	/* the name must end the operand ("$2x" is not $2) */
	if (!usdtkit__fast_reg_end(lx->cur, end) ||
	    !usdtkit__reg_fill(arch, &arg->reg, entry))
		return NULL;
	arg->kind = USDTKIT_LOC_REG;
	return lx->cur;
}

/* (base): a register, or $0 for an absolute address */
static int mips_parse_base(struct usdtkit_lexer *lx, struct usdtkit_arg *arg)
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

/* %op(sym+N): the operator token is current */
static int mips_parse_reloc(struct usdtkit_lexer *lx, struct usdtkit_arg *arg,
			    struct usdtkit_expr *ex)
{
	int reloc = lx->tok.reloc;
	const char *at = lx->tok.start;

	usdtkit__advance(lx);
	if (usdtkit__parse_expr(lx, arg, ex))
		return -1;
	/* a number needs the other half of the pair to mean an address */
	if (!ex->sym)
		return usdtkit__fail(lx, arg, at,
				     "relocation operator needs a symbol");
	if (ex->reloc)
		return usdtkit__fail(lx, arg, at,
				     "relocation operator inside another");
	ex->reloc = reloc;
	return usdtkit__expect(lx, arg, TOK_RPAREN, "expected ')'");
}

/* %got_disp(sym)($gp) and the like read a GOT slot, not the symbol's
 * data (%got_ofst is resolved: core/spec/resolve.c says how) */
static const char *const got_page_msg =
	"GOT operand: the address read comes from the GOT";

/* disp(base), (base), %op(sym)(base), sym, or a bare constant */
static void mips_parse_mem(struct usdtkit_lexer *lx, struct usdtkit_arg *arg)
{
	struct usdtkit_expr ex = { 0 };
	bool paren;

	if (lx->tok.type == TOK_RELOC) {
		if (mips_parse_reloc(lx, arg, &ex))
			return;
		/* a relocated half is only an address together with a base */
		if (lx->tok.type != TOK_LPAREN) {
			usdtkit__fail_tok(lx, arg, "expected '(' base register ')'");
			return;
		}
	} else if (lx->tok.type != TOK_LPAREN &&
		   usdtkit__parse_expr(lx, arg, &ex)) {
		return;
	}
	paren = lx->tok.type == TOK_LPAREN;
	if (paren && mips_parse_base(lx, arg))
		return;
	if (usdtkit__expect_end(lx, arg))
		return;
	/* a bare number is an immediate; a bare symbol is memory at the
	 * symbol, as in GAS's "lw $2, sym" */
	usdtkit__apply_expr(lx, arg, &ex, paren || ex.sym);
	if (ex.sym && ex.reloc == TREL_GOT)
		usdtkit__flag(lx, arg, USDTKIT_ARG_UNSUPPORTED, ex.sym,
			      got_page_msg);
}

void usdtkit__mips_parse_operand(const struct usdtkit_arch *arch,
				 struct usdtkit_lexer *lx,
				 struct usdtkit_arg *arg)
{
	(void)arch;
	usdtkit__lex_begin(lx, mips_next);
	switch (lx->tok.type) {
	case TOK_REG:
		arg->kind = USDTKIT_LOC_REG;
		usdtkit__take_reg(lx, &arg->reg);
		usdtkit__expect_end(lx, arg);
		return;
	case TOK_ZERO:
		/* $0 reads as 0 */
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
		mips_parse_mem(lx, arg);
		return;
	}
}
