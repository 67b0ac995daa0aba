// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * aarch64 (GAS syntax) operands, as GCC prints them for sys/sdt.h.
 * This file is the source: re2c turns it into C at build time.
 *
 *   xN wN sp wsp fp lr ip0 ip1   register (wN: the low 4 bytes of xN)
 *   xzr wzr                      the zero register: the constant 0
 *   42 -5 #5 #-16 #0x10          constant (GCC prints CONST_INT bare)
 *   #sym+4 #:lo12:sym            immediate: the value is the address
 *   sym sym+8                    memory at a symbol (GCC prints a MEM of
 *                                a SYMBOL_REF, a literal, bare)
 *   [base] [base, N] [base, #N] [base, #:lo12:sym] [base, :lo12:sym]
 *   [base, xM] [base, xM, lsl #S] [base, xM, sxtx #S]
 *   [base, wM, uxtw #S]          the index is the zero-extended wM
 *   [base, wM, sxtw #S]          sign-extended index: unsupported
 *   bN hN sN dN qN vN zN pN      FP/SIMD/SVE: unreadable by BPF
 *
 * Register names are lower or upper case, as GAS accepts them; other
 * spellings ("Sp") are symbols to GAS too. The GAS aliases fp, lr, ip0 and
 * ip1 are read as x29, x30, x16 and x17.
 */
#include "spec/backends.h"
#include "arm64/arm64_regs.h"

#include <stdbool.h>

/*!include:re2c "prologue.re" */

/* TOK_SHIFT and TOK_EXTEND carry which operator in num */
enum { A64_LSL = 1, A64_LSR, A64_ASR, A64_ROR };
enum { A64_UXTW = 1, A64_SXTW, A64_UXTX, A64_SXTX, A64_EXT_NARROW };

/* decimal register number of a name that re2c already checked */
static int regnum(const char *s, const char *e)
{
	int n = 0;

	for (; s < e; s++)
		n = n * 10 + (*s - '0');
	return n;
}

/* [s, e) equals @lower, ignoring the case of [s, e) */
static bool name_is(const char *s, const char *e, const char *lower)
{
	for (; s < e && *lower; s++, lower++) {
		char c = *s;

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != *lower)
			return false;
	}
	return s == e && !*lower;
}

/* the name between the colons of ":name:" */
static int arm64_reloc_kind(const char *s, const char *e)
{
	static const struct {
		const char *name;
		int kind;
	} tab[] = {
		{ "lo12", TREL_LO12 },
		{ "tprel_lo12", TREL_TLS },	{ "tprel_lo12_nc", TREL_TLS },
		{ "tprel_hi12", TREL_TLS },	{ "dtprel_lo12", TREL_TLS },
		{ "dtprel_lo12_nc", TREL_TLS }, { "dtprel_hi12", TREL_TLS },
		{ "gottprel_lo12", TREL_TLS },	{ "tlsdesc_lo12", TREL_TLS },
		{ "tlsgd_lo12", TREL_TLS },	{ "tlsld_lo12", TREL_TLS },
		{ "tlsldm_lo12_nc", TREL_TLS },
	};
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (name_is(s, e, tab[i].name))
			return tab[i].kind;
	/* :got_lo12:, :pg_hi21:, :abs_g0: ...: not the symbol's data */
	return TREL_OTHER;
}

static void op_tok(struct usdtkit_lexer *lx, struct usdtkit_token *t,
		   enum usdtkit_tok type, const char *start, uint64_t which)
{
	usdtkit__tok(lx, t, type, start);
	t->num = which;
}

/*
 * Register names, shared by the token scanner and the fast path's lookup
 * (arm64_reg_entry), so that tests/spec/test_registry, which checks every table
 * name, covers both. An action sets the entry of the name at
 * [start, lx->cur) and jumps to "reg" in the function that uses the rules.
 */
/*!rules:re2c:arm64_regs
	n0_30 = [0-9] | [12][0-9] | "30";

	[xX] n0_30	{
		entry = A64E_X0 + regnum(start + 1, lx->cur);
		goto reg;
	}
	[wW] n0_30	{
		entry = A64E_W0 + regnum(start + 1, lx->cur);
		goto reg;
	}
	"sp" | "SP"	{ entry = A64E_SP; goto reg; }
	"wsp" | "WSP"	{ entry = A64E_WSP; goto reg; }
	"fp" | "FP"	{ entry = A64E_X0 + 29; goto reg; }
	"lr" | "LR"	{ entry = A64E_X0 + 30; goto reg; }
	"ip0" | "IP0"	{ entry = A64E_X0 + 16; goto reg; }
	"ip1" | "IP1"	{ entry = A64E_X0 + 17; goto reg; }
*/

static void arm64_next(struct usdtkit_lexer *lx, struct usdtkit_token *t)
{
	const char *YYMARKER = NULL;
	const char *start;
	int entry;

again:
	start = lx->cur;
	/*!re2c
	fnum = [0-9]+ "." [0-9]* ([eE] [+-]? [0-9]+)? | [0-9]+ [eE] [+-]? [0-9]+;
	n0_31 = [0-9] | [12][0-9] | "3" [01];

	[\x00]		{ usdtkit__tok_nul(lx, t, start); return; }
	[ \t\n\r\v\f]+	{
		if (usdtkit__blank_ends(lx, t, start))
			return;
		goto again;
	}
	num		{ usdtkit__tok(lx, t, TOK_NUM, start); return; }
	fnum		{
		usdtkit__tok_err(lx, t, start,
				 "floating-point literal: not supported");
		return;
	}

	!use:arm64_regs;
	"xzr" | "XZR"	{ op_tok(lx, t, TOK_ZERO, start, 8); return; }
	"wzr" | "WZR"	{ op_tok(lx, t, TOK_ZERO, start, 4); return; }
	[bBhHsSdDqQvVzZ] n0_31 | [pP] ([0-9] | "1" [0-5])
			{ usdtkit__tok(lx, t, TOK_FPREG, start); return; }
	[xXwWbBhHsSdDqQvVzZpP] [0-9]+	{
		usdtkit__tok_err(lx, t, start, "unknown register");
		return;
	}

	"lsl" | "LSL"	{ op_tok(lx, t, TOK_SHIFT, start, A64_LSL); return; }
	"lsr" | "LSR"	{ op_tok(lx, t, TOK_SHIFT, start, A64_LSR); return; }
	"asr" | "ASR"	{ op_tok(lx, t, TOK_SHIFT, start, A64_ASR); return; }
	"ror" | "ROR"	{ op_tok(lx, t, TOK_SHIFT, start, A64_ROR); return; }
	"uxtw" | "UXTW"	{ op_tok(lx, t, TOK_EXTEND, start, A64_UXTW); return; }
	"sxtw" | "SXTW"	{ op_tok(lx, t, TOK_EXTEND, start, A64_SXTW); return; }
	"uxtx" | "UXTX"	{ op_tok(lx, t, TOK_EXTEND, start, A64_UXTX); return; }
	"sxtx" | "SXTX"	{ op_tok(lx, t, TOK_EXTEND, start, A64_SXTX); return; }
	[us] "xt" [bh] | [US] "XT" [BH]
			{ op_tok(lx, t, TOK_EXTEND, start, A64_EXT_NARROW); return; }

	ident		{ usdtkit__tok(lx, t, TOK_SYM, start); return; }
	":" [A-Za-z0-9_]+ ":"	{
		usdtkit__tok(lx, t, TOK_RELOC, start);
		t->reloc = arm64_reloc_kind(start + 1, lx->cur - 1);
		return;
	}
	"["	{ usdtkit__tok(lx, t, TOK_LBRACK, start); return; }
	"]"	{ usdtkit__tok(lx, t, TOK_RBRACK, start); return; }
	","	{ usdtkit__tok(lx, t, TOK_COMMA, start); return; }
	"+"	{ usdtkit__tok(lx, t, TOK_PLUS, start); return; }
	"-"	{ usdtkit__tok(lx, t, TOK_MINUS, start); return; }
	"#"	{ usdtkit__tok(lx, t, TOK_HASH, start); return; }
	"!"	{ usdtkit__tok(lx, t, TOK_BANG, start); return; }
	":"	{ usdtkit__tok(lx, t, TOK_COLON, start); return; }
	*	{ usdtkit__tok_err(lx, t, start, "unexpected character"); return; }
	*/
reg:
	usdtkit__tok_reg(lx, t, start, entry);
}

/* The register-table entry that [s, e) names ("x3", "sp"), or -1. */
static int arm64_reg_entry(const char *s, const char *e)
{
	/* the rules' actions run on a lexer over just the name */
	struct usdtkit_lexer name = { .cur = s, .end = e };
	struct usdtkit_lexer *lx = &name;
	const char *YYMARKER = NULL, *start = s;
	int entry;

	/*!local:re2c
	!use:arm64_regs;
	*	{ return -1; }
	*/
reg:
	return lx->cur == e ? entry : -1;
}

/* [base] or [base, #disp] from the fast path's tags (n1 NULL: no disp) */
static const char *arm64_fast_mem(const struct usdtkit_arch *arch,
				  const char *end, struct usdtkit_arg *arg,
				  const char *b1, const char *b2,
				  const char *n1, const char *n2, const char *e)
{
	struct usdtkit_reg base;
	uint64_t disp = 0;

	/* the base is an x register or sp */
	if (!usdtkit__fast_eop(e, end) ||
	    (n1 && !usdtkit__fast_num(n1, n2, &disp)) ||
	    !usdtkit__reg_fill(arch, &base, arm64_reg_entry(b1, b2)) ||
	    base.width != 8)
		return NULL;
	arg->kind = USDTKIT_LOC_MEM;
	arg->disp = (int64_t)disp;
	arg->base = base;
	return e;
}

/* xN, #imm, [base], [base, #disp] in one DFA pass */
const char *usdtkit__arm64_parse_fast(const struct usdtkit_arch *arch,
				      const char *op, const char *end,
				      struct usdtkit_arg *arg)
{
	/* the register rules' actions read lx->cur: a local lexer, whose
	 * cursor stays in a register */
	struct usdtkit_lexer scan = { .cur = op, .end = end };
	struct usdtkit_lexer *lx = &scan;
	const char *YYMARKER = NULL, *start = op;
	const char *n1, *n2, *r1, *r2, *e;
	uint64_t v;
	int entry;
	/*!stags:re2c:arm64_fast format = "const char *@@;\n"; */

	/*!local:re2c:arm64_fast
	re2c:tags = 1;

	fname = [A-Za-z] [A-Za-z0-9]*;

	// a lone register: its rule jumps to "reg"
	!use:arm64_regs;
	"#"? @n1 fdec @n2 @e feop	{
		if (!usdtkit__fast_eop(e, end) ||
		    !usdtkit__fast_num(n1, n2, &v))
			return NULL;
		arg->kind = USDTKIT_LOC_CONST;
		arg->value = (int64_t)v;
		return e;
	}
	"[" @r1 fname @r2 ("," " "* "#"? @n1 fdec @n2)? "]" @e feop	{
		return arm64_fast_mem(arch, end, arg, r1, r2, n1, n2, e);
	}
	*	{ return NULL; }
	*/
reg:
	/* the name must end the operand ("x1y" is a symbol) */
	if (!usdtkit__fast_reg_end(lx->cur, end) ||
	    !usdtkit__reg_fill(arch, &arg->reg, entry))
		return NULL;
	arg->kind = USDTKIT_LOC_REG;
	return lx->cur;
}

/*
 * [#] [:reloc:] expression. Inside brackets (@top false) it is the
 * displacement. At the top level "#..." and relocated values are
 * immediates, a bare number is a constant, and a bare expression with a
 * symbol is memory at that address.
 */
static int arm64_parse_value(struct usdtkit_lexer *lx, struct usdtkit_arg *arg,
			     bool top)
{
	struct usdtkit_expr ex;
	const char *rel_at = NULL;
	bool imm = false;
	int reloc = 0;

	if (lx->tok.type == TOK_HASH) {
		imm = true;
		usdtkit__advance(lx);
	}
	if (lx->tok.type == TOK_RELOC) {
		imm = true;
		reloc = lx->tok.reloc;
		rel_at = lx->tok.start;
		usdtkit__advance(lx);
	}
	if (usdtkit__parse_expr(lx, arg, &ex))
		return -1;
	if (ex.reloc)
		return usdtkit__fail(lx, arg, ex.sym_end,
				     "relocation operator must come before the symbol");
	if (reloc) {
		if (!ex.sym)
			return usdtkit__fail(lx, arg, rel_at,
					     "relocation operator needs a symbol");
		if (reloc == TREL_OTHER)	/* the first flag wins */
			usdtkit__flag(lx, arg, USDTKIT_ARG_UNSUPPORTED, rel_at,
				      "relocation operator other than :lo12: or TLS: not decoded");
		ex.reloc = reloc;
	}
	return usdtkit__apply_expr(lx, arg, &ex, top ? !imm && ex.sym != NULL : true);
}

/* an index register (xzr/wzr: adds nothing), then an optional
 * ", lsl #S" / ", uxtw #S" / ", sxtw #S" / ", sxtx #S"; a w register
 * needs uxtw or sxtw, S is 0..3 (scale 1..8) */
static int arm64_parse_index(struct usdtkit_lexer *lx, struct usdtkit_arg *arg)
{
	const char *at = lx->tok.start, *ext_at = NULL;
	bool zero = lx->tok.type == TOK_ZERO, need_amount = false;
	uint64_t ext = 0, amount = 0;
	unsigned int width;

	if (zero) {
		width = (unsigned int)lx->tok.num;
		usdtkit__advance(lx);
	} else {
		const struct usdtkit_regdef *r = &lx->arch->regs[lx->tok.entry];

		if (r->id == A64_SP)
			return usdtkit__fail_tok(lx, arg, "sp cannot be an index");
		width = r->width;
		usdtkit__take_reg(lx, &arg->index);
	}
	if (lx->tok.type == TOK_COMMA) {
		usdtkit__advance(lx);
		ext_at = lx->tok.start;
		if (lx->tok.type == TOK_SHIFT) {
			if (lx->tok.num != A64_LSL)
				return usdtkit__fail_tok(lx, arg,
					"an index can only be shifted by lsl");
			if (width != 8)
				return usdtkit__fail(lx, arg, at,
					"a w register index needs uxtw or sxtw");
			need_amount = true;
		} else if (lx->tok.type == TOK_EXTEND) {
			ext = lx->tok.num;
			if (ext == A64_UXTX || ext == A64_EXT_NARROW)
				return usdtkit__fail_tok(lx, arg,
					"extend operator not valid in an address");
			if (ext == A64_SXTX && width != 8)
				return usdtkit__fail_tok(lx, arg,
					"sxtx extends an x register");
			if (ext != A64_SXTX && width != 4)
				return usdtkit__fail_tok(lx, arg,
					"uxtw and sxtw extend a w register");
		} else {
			return usdtkit__fail_tok(lx, arg,
				"expected lsl, uxtw, sxtw or sxtx");
		}
		usdtkit__advance(lx);
		if (lx->tok.type == TOK_HASH) {
			need_amount = true;
			usdtkit__advance(lx);
		}
		if (lx->tok.type == TOK_NUM) {
			if (lx->tok.overflow || lx->tok.num > 3)
				return usdtkit__fail_tok(lx, arg,
					"shift amount must be 0, 1, 2 or 3");
			amount = lx->tok.num;
			usdtkit__advance(lx);
		} else if (need_amount) {
			return usdtkit__fail_tok(lx, arg, "expected shift amount");
		}
	} else if (width != 8) {
		return usdtkit__fail(lx, arg, at,
				     "a w register index needs uxtw or sxtw");
	}
	if (zero)
		return 0;	/* xzr/wzr: the index adds 0 */
	arg->scale = (uint8_t)(1u << amount);
	if (ext == A64_SXTW)
		usdtkit__flag(lx, arg, USDTKIT_ARG_UNSUPPORTED, ext_at,
			      "sxtw index: sign-extended, but an index register is read unsigned");
	return 0;
}

/* [base], [base, offset], [base, index{, extend}] */
static int arm64_parse_mem(struct usdtkit_lexer *lx, struct usdtkit_arg *arg)
{
	usdtkit__advance(lx);	/* '[' */
	if (lx->tok.type == TOK_ZERO)
		return usdtkit__fail_tok(lx, arg,
					 "the zero register cannot be a base");
	if (lx->tok.type != TOK_REG)
		return usdtkit__fail_tok(lx, arg, "expected base register");
	if (lx->arch->regs[lx->tok.entry].width != 8)
		return usdtkit__fail_tok(lx, arg,
					 "base register must be an x register or sp");
	usdtkit__take_reg(lx, &arg->base);
	arg->kind = USDTKIT_LOC_MEM;
	if (lx->tok.type == TOK_COMMA) {
		usdtkit__advance(lx);
		if (lx->tok.type == TOK_REG || lx->tok.type == TOK_ZERO) {
			if (arm64_parse_index(lx, arg))
				return -1;
		} else if (lx->tok.type == TOK_FPREG) {
			return usdtkit__fail_tok(lx, arg,
				"FP/vector register cannot be an index");
		} else if (arm64_parse_value(lx, arg, false)) {
			return -1;
		}
	}
	if (usdtkit__expect(lx, arg, TOK_RBRACK, "expected ']'"))
		return -1;
	if (lx->tok.type == TOK_BANG)
		return usdtkit__fail_tok(lx, arg,
			"pre-indexed writeback is not a probe operand");
	if (lx->tok.type == TOK_COMMA)
		return usdtkit__fail_tok(lx, arg,
			"post-indexed addressing is not a probe operand");
	return usdtkit__expect_end(lx, arg);
}

void usdtkit__arm64_parse_operand(const struct usdtkit_arch *arch,
				  struct usdtkit_lexer *lx,
				  struct usdtkit_arg *arg)
{
	(void)arch;
	usdtkit__lex_begin(lx, arm64_next);
	switch (lx->tok.type) {
	case TOK_REG:
		arg->kind = USDTKIT_LOC_REG;
		usdtkit__take_reg(lx, &arg->reg);
		usdtkit__expect_end(lx, arg);
		return;
	case TOK_ZERO:
		arg->kind = USDTKIT_LOC_CONST;
		arg->value = 0;
		usdtkit__advance(lx);
		usdtkit__expect_end(lx, arg);
		return;
	case TOK_FPREG:
		usdtkit__take_fpreg(lx, arg);
		usdtkit__expect_end(lx, arg);
		return;
	case TOK_LBRACK:
		arm64_parse_mem(lx, arg);
		return;
	default:
		if (arm64_parse_value(lx, arg, true) == 0)
			usdtkit__expect_end(lx, arg);
		return;
	}
}
