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
#include "backends.h"
#include "arm/arm_regs.h"

#include <stdbool.h>

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

static void arm_next(struct usdtkit_lexer *lx, struct usdtkit_token *t)
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

	[rR] n0_15	{
		usdtkit__tok_reg(lx, t, start,
				 ARME_R0 + regnum(start + 1, lx->cur));
		return;
	}
	[aA] [1-4]	{
		usdtkit__tok_reg(lx, t, start,
				 ARME_R0 + regnum(start + 1, lx->cur) - 1);
		return;
	}
	[vV] [1-8]	{
		usdtkit__tok_reg(lx, t, start,
				 ARME_R0 + regnum(start + 1, lx->cur) + 3);
		return;
	}
	"wr" | "WR"	{ usdtkit__tok_reg(lx, t, start, ARME_R0 + 7); return; }
	"sb" | "SB"	{ usdtkit__tok_reg(lx, t, start, ARME_SB); return; }
	"sl" | "SL"	{ usdtkit__tok_reg(lx, t, start, ARME_SL); return; }
	"fp" | "FP"	{ usdtkit__tok_reg(lx, t, start, ARME_FP); return; }
	"ip" | "IP"	{ usdtkit__tok_reg(lx, t, start, ARME_IP); return; }
	"sp" | "SP"	{ usdtkit__tok_reg(lx, t, start, ARME_SP); return; }
	"lr" | "LR"	{ usdtkit__tok_reg(lx, t, start, ARME_LR); return; }
	"pc" | "PC"	{ usdtkit__tok_reg(lx, t, start, ARME_PC); return; }
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
	lx->next = arm_next;
	usdtkit__advance(lx);
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
