// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * arm (32-bit, GAS unified syntax) operands, as GCC prints them for
 * sys/sdt.h (whose arm constraint is "g": register, memory or immediate).
 * This file is the source: re2c turns it into C at build time.
 *
 *   r0..r15 sb sl fp ip sp lr pc   register (a1-a4 v1-v8 wr: GAS aliases)
 *   -8@r0                          a register pair: r1:r0
 *   #5 #-16 #0x10                  constant (a bare number too)
 *   #sym #sym+4 #.LANCHOR0+8       immediate: the value is the address
 *   .L4 .L4+8                      memory at a symbol (GCC prints a MEM of
 *                                  a SYMBOL_REF, a literal, bare)
 *   [base] [base, #N] [base, #-N] [base, N]
 *   [base, reg] [base, +reg] [base, reg, lsl #S]   S = 0..3
 *   [base, -reg], other shifts     decoded, flagged unsupported
 *   sN dN qN                       VFP/NEON: unreadable by BPF
 *   [pc, #N]                       ARM reads pc as insn + 8 (Thumb + 4):
 *                                  flagged unsupported; plain pc is the
 *                                  probe address that pt_regs holds
 */
#include "spec/backends.h"
#include "arm/arm_regs.h"

#include <stdbool.h>

/*!include:re2c "prologue.re" */

/* TOK_SHIFT carries which operator in num */
enum { ARM_LSL = 1, ARM_LSR, ARM_ASR, ARM_ROR, ARM_RRX };

static const char *const pc_msg =
	"pc-relative: ARM reads pc as the instruction address + 8 (Thumb + 4)";

/* decimal register number of a name that re2c already checked */
static int regnum(const char *s, const char *e)
{
	int n = 0;

	for (; s < e; s++)
		n = n * 10 + (*s - '0');
	return n;
}

static void op_tok(struct usdtkit_lexer *lx, struct usdtkit_token *t,
		   enum usdtkit_tok type, const char *start, uint64_t which)
{
	usdtkit__tok(lx, t, type, start);
	t->num = which;
}

/*
 * Register names, shared by the token scanner and the fast path's lookup
 * (arm_reg_entry), so that tests/spec/test_registry, which checks every table
 * name, covers both. An action sets the entry of the name at
 * [start, lx->cur) and jumps to "reg" in the function that uses the rules.
 */
/*!rules:re2c:arm_regs
	rnum = [0-9] | "1" [0-5];

	[rR] rnum	{
		entry = ARME_R0 + regnum(start + 1, lx->cur);
		goto reg;
	}
	[aA] [1-4]	{
		entry = ARME_R0 + regnum(start + 1, lx->cur) - 1;
		goto reg;
	}
	[vV] [1-8]	{
		entry = ARME_R0 + regnum(start + 1, lx->cur) + 3;
		goto reg;
	}
	"wr" | "WR"	{ entry = ARME_R0 + 7; goto reg; }
	"sb" | "SB"	{ entry = ARME_SB; goto reg; }
	"sl" | "SL"	{ entry = ARME_SL; goto reg; }
	"fp" | "FP"	{ entry = ARME_FP; goto reg; }
	"ip" | "IP"	{ entry = ARME_IP; goto reg; }
	"sp" | "SP"	{ entry = ARME_SP; goto reg; }
	"lr" | "LR"	{ entry = ARME_LR; goto reg; }
	"pc" | "PC"	{ entry = ARME_PC; goto reg; }
*/

static void arm_next(struct usdtkit_lexer *lx, struct usdtkit_token *t)
{
	const char *YYMARKER = NULL;
	const char *start;
	int entry;

again:
	start = lx->cur;
	/*!re2c
	fnum = [0-9]+ "." [0-9]* ([eE] [+-]? [0-9]+)? | [0-9]+ [eE] [+-]? [0-9]+;
	n0_15 = [0-9] | "1" [0-5];
	n0_31 = [0-9] | [12][0-9] | "3" [01];

	[\x00]		{ usdtkit__tok_nul(lx, t, start); return; }
	[ \t\n\r\v\f]+	{
		if (usdtkit__blank_ends(lx, t, start))
			return;
		goto again;
	}
	num		{ usdtkit__tok(lx, t, TOK_NUM, start); return; }
	fnum		{
		/* GCC prints float constants as "#3.14e+0": rounded decimal */
		usdtkit__tok_err(lx, t, start,
				 "floating-point literal: not supported");
		return;
	}

	!use:arm_regs;
	[sSdD] n0_31 | [qQ] n0_15
			{ usdtkit__tok(lx, t, TOK_FPREG, start); return; }
	[rRsSdDqQ] [0-9]+	{
		usdtkit__tok_err(lx, t, start, "unknown register");
		return;
	}

	"lsl" | "LSL" | "asl" | "ASL"
			{ op_tok(lx, t, TOK_SHIFT, start, ARM_LSL); return; }
	"lsr" | "LSR"	{ op_tok(lx, t, TOK_SHIFT, start, ARM_LSR); return; }
	"asr" | "ASR"	{ op_tok(lx, t, TOK_SHIFT, start, ARM_ASR); return; }
	"ror" | "ROR"	{ op_tok(lx, t, TOK_SHIFT, start, ARM_ROR); return; }
	"rrx" | "RRX"	{ op_tok(lx, t, TOK_SHIFT, start, ARM_RRX); return; }

	ident		{ usdtkit__tok(lx, t, TOK_SYM, start); return; }
	":" [A-Za-z0-9_]+ ":"	{
		/* :lower16: :upper16: ...: halves of an address, not data */
		usdtkit__tok(lx, t, TOK_RELOC, start);
		t->reloc = TREL_OTHER;
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

/* The register-table entry that [s, e) names ("r3", "fp"), or -1. */
static int arm_reg_entry(const char *s, const char *e)
{
	/* the rules' actions run on a lexer over just the name */
	struct usdtkit_lexer name = { .cur = s, .end = e };
	struct usdtkit_lexer *lx = &name;
	const char *start = s;
	int entry;

	/*!local:re2c
	!use:arm_regs;
	*	{ return -1; }
	*/
reg:
	return lx->cur == e ? entry : -1;
}

/* a base or index from the fast path: pc is neither (the token grammar
 * flags a pc base and rejects a pc index) */
static bool arm_fast_reg(const struct usdtkit_arch *arch,
			 struct usdtkit_reg *r, const char *s, const char *e)
{
	return usdtkit__reg_fill(arch, r, arm_reg_entry(s, e)) &&
	       r->id != ARM_PC;
}

/* [base] or [base, #disp] from the fast path's tags (n1 NULL: no disp) */
static const char *arm_fast_mem(const struct usdtkit_arch *arch,
				const char *end, struct usdtkit_arg *arg,
				const char *b1, const char *b2, const char *n1,
				const char *n2, const char *e)
{
	struct usdtkit_reg base;
	uint64_t disp = 0;

	if (!usdtkit__fast_eop(e, end) ||
	    (n1 && !usdtkit__fast_num(n1, n2, &disp)) ||
	    !arm_fast_reg(arch, &base, b1, b2))
		return NULL;
	arg->kind = USDTKIT_LOC_MEM;
	arg->disp = (int64_t)disp;
	arg->base = base;
	return e;
}

/* [base, index] or [base, index, lsl #S] (@sh NULL: no shift) */
static const char *arm_fast_index(const struct usdtkit_arch *arch,
				  const char *end, struct usdtkit_arg *arg,
				  const char *b1, const char *b2,
				  const char *i1, const char *i2,
				  const char *sh, const char *e)
{
	struct usdtkit_reg base, index;

	if (!usdtkit__fast_eop(e, end) || !arm_fast_reg(arch, &base, b1, b2) ||
	    !arm_fast_reg(arch, &index, i1, i2))
		return NULL;
	arg->kind = USDTKIT_LOC_MEM;
	arg->base = base;
	arg->index = index;
	arg->scale = (uint8_t)(1u << (sh ? *sh - '0' : 0));
	return e;
}

/* rN, #imm, [base], [base, #disp], [base, index, lsl #S] in one DFA
 * pass; pc as a value is the probe's address that pt_regs holds, like the
 * token grammar says */
const char *usdtkit__arm_parse_fast(const struct usdtkit_arch *arch,
				    const char *op, const char *end,
				    struct usdtkit_arg *arg)
{
	/* the register rules' actions read lx->cur: a local lexer, whose
	 * cursor stays in a register */
	struct usdtkit_lexer scan = { .cur = op, .end = end };
	struct usdtkit_lexer *lx = &scan;
	const char *YYMARKER = NULL, *start = op;
	const char *n1, *n2, *r1, *r2, *i1, *i2, *sh, *e;
	uint64_t v;
	int entry;
	/*!stags:re2c:arm_fast format = "const char *@@;\n"; */

	/*!local:re2c:arm_fast
	// bitmaps for the name loops: fewer instructions here (measured)
	re2c:flags:bit-vectors = 1;
	re2c:tags = 1;

	fname = [A-Za-z] [A-Za-z0-9]*;

	// a lone register: its rule jumps to "reg"
	!use:arm_regs;
	"#"? @n1 fdec @n2 @e feop	{
		if (!usdtkit__fast_eop(e, end) ||
		    !usdtkit__fast_num(n1, n2, &v))
			return NULL;
		arg->kind = USDTKIT_LOC_CONST;
		arg->value = (int64_t)v;
		return e;
	}
	"[" @r1 fname @r2 ("," " "* "#"? @n1 fdec @n2)? "]" @e feop	{
		return arm_fast_mem(arch, end, arg, r1, r2, n1, n2, e);
	}
	// lsl #0 to #3 is a scale; other shifts are flagged by the grammar.
	// A blank or '#' must end "lsl": "lsl2" is one word, a symbol
	"[" @r1 fname @r2 "," " "* @i1 fname @i2
	("," " "* "lsl" (" "+ "#"? | "#") @sh [0-3])? "]" @e feop	{
		return arm_fast_index(arch, end, arg, r1, r2, i1, i2, sh, e);
	}
	*	{ return NULL; }
	*/
reg:
	/* the name must end the operand ("r1y" is a symbol) */
	if (!usdtkit__fast_reg_end(lx->cur, end) ||
	    !usdtkit__reg_fill(arch, &arg->reg, entry))
		return NULL;
	arg->kind = USDTKIT_LOC_REG;
	return lx->cur;
}

/*
 * [#] [:reloc:] expression. Inside brackets (@top false) it is the
 * displacement. At the top level "#..." is an immediate (a symbol's
 * address is the value), a bare number is a constant, and a bare
 * expression with a symbol is memory at that address.
 */
static int arm_parse_value(struct usdtkit_lexer *lx, struct usdtkit_arg *arg,
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
		ex.reloc = reloc;
	}
	return usdtkit__apply_expr(lx, arg, &ex, top ? !imm && ex.sym != NULL : true);
}

/* index register, then an optional ", shift #amount"; @neg_at: where the
 * '-' of a subtracted index is, or NULL */
static int arm_parse_index(struct usdtkit_lexer *lx, struct usdtkit_arg *arg,
			   const char *neg_at)
{
	const char *sh_at;
	uint64_t op, amount = 0;

	if (lx->arch->regs[lx->tok.entry].id == ARM_PC)
		return usdtkit__fail_tok(lx, arg, "pc cannot be an index");
	usdtkit__take_reg(lx, &arg->index);
	arg->scale = 1;
	if (neg_at)
		usdtkit__flag(lx, arg, USDTKIT_ARG_UNSUPPORTED, neg_at,
			      "subtracted index register: an index is added");
	if (lx->tok.type != TOK_COMMA)
		return 0;
	usdtkit__advance(lx);
	if (lx->tok.type != TOK_SHIFT)
		return usdtkit__fail_tok(lx, arg,
					 "expected lsl, lsr, asr, ror or rrx");
	op = lx->tok.num;
	sh_at = lx->tok.start;
	usdtkit__advance(lx);
	if (op != ARM_RRX) {
		uint64_t lo = op == ARM_LSL ? 0 : 1;
		uint64_t hi = op == ARM_LSR || op == ARM_ASR ? 32 : 31;

		if (lx->tok.type == TOK_HASH)
			usdtkit__advance(lx);
		if (lx->tok.type != TOK_NUM)
			return usdtkit__fail_tok(lx, arg, "expected shift amount");
		if (lx->tok.overflow || lx->tok.num < lo || lx->tok.num > hi)
			return usdtkit__fail_tok(lx, arg,
						 "shift amount out of range");
		amount = lx->tok.num;
		usdtkit__advance(lx);
	}
	if (op == ARM_LSL && amount <= 3)
		arg->scale = (uint8_t)(1u << amount);
	else
		usdtkit__flag(lx, arg, USDTKIT_ARG_UNSUPPORTED, sh_at,
			      "index shift other than lsl #0 to #3: no scale for it");
	return 0;
}

/* [base], [base, offset], [base, {+|-}index{, shift}] */
static int arm_parse_mem(struct usdtkit_lexer *lx, struct usdtkit_arg *arg)
{
	const char *base_at;

	usdtkit__advance(lx);	/* '[' */
	if (lx->tok.type != TOK_REG)
		return usdtkit__fail_tok(lx, arg, "expected base register");
	base_at = lx->tok.start;
	usdtkit__take_reg(lx, &arg->base);
	arg->kind = USDTKIT_LOC_MEM;
	if (lx->tok.type == TOK_COMMA) {
		const char *neg_at = NULL;

		usdtkit__advance(lx);
		if (lx->tok.type == TOK_PLUS || lx->tok.type == TOK_MINUS) {
			/* a signed index register, or a signed offset */
			struct usdtkit_lexer save = *lx;

			usdtkit__advance(lx);
			if (lx->tok.type == TOK_REG) {
				if (save.tok.type == TOK_MINUS)
					neg_at = save.tok.start;
			} else {
				*lx = save;
			}
		}
		if (lx->tok.type == TOK_REG) {
			if (arm_parse_index(lx, arg, neg_at))
				return -1;
		} else if (lx->tok.type == TOK_FPREG) {
			return usdtkit__fail_tok(lx, arg,
				"FP/vector register cannot be an index");
		} else if (arm_parse_value(lx, arg, false)) {
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
	if (usdtkit__expect_end(lx, arg))
		return -1;
	if (arg->base.id == ARM_PC)
		usdtkit__flag(lx, arg, USDTKIT_ARG_UNSUPPORTED, base_at, pc_msg);
	return 0;
}

void usdtkit__arm_parse_operand(const struct usdtkit_arch *arch,
				struct usdtkit_lexer *lx,
				struct usdtkit_arg *arg)
{
	(void)arch;
	usdtkit__lex_begin(lx, arm_next);
	switch (lx->tok.type) {
	case TOK_REG:
		/* pc as a value: pt_regs holds the probe's address */
		arg->kind = USDTKIT_LOC_REG;
		usdtkit__take_reg(lx, &arg->reg);
		usdtkit__expect_end(lx, arg);
		return;
	case TOK_FPREG:
		usdtkit__take_fpreg(lx, arg);
		usdtkit__expect_end(lx, arg);
		return;
	case TOK_LBRACK:
		arm_parse_mem(lx, arg);
		return;
	default:
		if (arm_parse_value(lx, arg, true) == 0)
			usdtkit__expect_end(lx, arg);
		return;
	}
}
