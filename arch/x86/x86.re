// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * x86 (AT&T syntax) operands for the x86-64, i386 and x32 backends.
 * This file is the source: re2c turns it into C at build time.
 *
 *   $imm  $sym          immediate (a symbol's address is a value)
 *   %reg                register, any width, %ah..%dh at shift 8
 *   disp(base,index,scale), (,index,scale), sym(%rip), sym@GOTOFF(%ebx)
 *   sym, sym+4          absolute memory (i386 non-PIC)
 *   %fs:sym@tpoff       thread-local: decoded, flagged unsupported
 *   %xmmN %st %mmN %kN  unreadable by BPF
 */
#include "backends.h"
#include "x86/x86_regs.h"

#include <string.h>

static int x86_reloc_kind(const char *s, const char *e)
{
	static const struct {
		const char *name;
		int kind;
	} tab[] = {
		{ "GOTOFF", TREL_GOTOFF },   { "GOT", TREL_GOT },
		{ "GOTPCREL", TREL_GOT },    { "PLT", TREL_PLT },
		{ "tpoff", TREL_TLS },	     { "ntpoff", TREL_TLS },
		{ "dtpoff", TREL_TLS },	     { "gottpoff", TREL_TLS },
		{ "gotntpoff", TREL_TLS },   { "indntpoff", TREL_TLS },
		{ "tlsgd", TREL_TLS },	     { "tlsldm", TREL_TLS },
		{ "tlsld", TREL_TLS },	     { "TPOFF", TREL_TLS },
		{ "NTPOFF", TREL_TLS },	     { "DTPOFF", TREL_TLS },
		{ "GOTTPOFF", TREL_TLS },    { "GOTNTPOFF", TREL_TLS },
		{ "INDNTPOFF", TREL_TLS },   { "TLSGD", TREL_TLS },
		{ "TLSLDM", TREL_TLS },
	};
	size_t n = (size_t)(e - s), i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strlen(tab[i].name) == n && memcmp(tab[i].name, s, n) == 0)
			return tab[i].kind;
	return TREL_OTHER;
}

static void x86_next(struct usdtkit_lexer *lx, struct usdtkit_token *t)
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
		t->reloc = x86_reloc_kind(start + 1, lx->cur);
		return;
	}

	"%eax"	{ usdtkit__tok_reg(lx, t, start, X86E_EAX); return; }
	"%ax"	{ usdtkit__tok_reg(lx, t, start, X86E_AX); return; }
	"%al"	{ usdtkit__tok_reg(lx, t, start, X86E_AL); return; }
	"%ah"	{ usdtkit__tok_reg(lx, t, start, X86E_AH); return; }
	"%ebx"	{ usdtkit__tok_reg(lx, t, start, X86E_EBX); return; }
	"%bx"	{ usdtkit__tok_reg(lx, t, start, X86E_BX); return; }
	"%bl"	{ usdtkit__tok_reg(lx, t, start, X86E_BL); return; }
	"%bh"	{ usdtkit__tok_reg(lx, t, start, X86E_BH); return; }
	"%ecx"	{ usdtkit__tok_reg(lx, t, start, X86E_ECX); return; }
	"%cx"	{ usdtkit__tok_reg(lx, t, start, X86E_CX); return; }
	"%cl"	{ usdtkit__tok_reg(lx, t, start, X86E_CL); return; }
	"%ch"	{ usdtkit__tok_reg(lx, t, start, X86E_CH); return; }
	"%edx"	{ usdtkit__tok_reg(lx, t, start, X86E_EDX); return; }
	"%dx"	{ usdtkit__tok_reg(lx, t, start, X86E_DX); return; }
	"%dl"	{ usdtkit__tok_reg(lx, t, start, X86E_DL); return; }
	"%dh"	{ usdtkit__tok_reg(lx, t, start, X86E_DH); return; }
	"%esi"	{ usdtkit__tok_reg(lx, t, start, X86E_ESI); return; }
	"%si"	{ usdtkit__tok_reg(lx, t, start, X86E_SI); return; }
	"%edi"	{ usdtkit__tok_reg(lx, t, start, X86E_EDI); return; }
	"%di"	{ usdtkit__tok_reg(lx, t, start, X86E_DI); return; }
	"%ebp"	{ usdtkit__tok_reg(lx, t, start, X86E_EBP); return; }
	"%bp"	{ usdtkit__tok_reg(lx, t, start, X86E_BP); return; }
	"%esp"	{ usdtkit__tok_reg(lx, t, start, X86E_ESP); return; }
	"%sp"	{ usdtkit__tok_reg(lx, t, start, X86E_SP); return; }
	"%eip"	{ usdtkit__tok_reg(lx, t, start, X86E_EIP); return; }
	"%rax"	{ usdtkit__tok_reg(lx, t, start, X86E_RAX); return; }
	"%rbx"	{ usdtkit__tok_reg(lx, t, start, X86E_RBX); return; }
	"%rcx"	{ usdtkit__tok_reg(lx, t, start, X86E_RCX); return; }
	"%rdx"	{ usdtkit__tok_reg(lx, t, start, X86E_RDX); return; }
	"%rsi"	{ usdtkit__tok_reg(lx, t, start, X86E_RSI); return; }
	"%rdi"	{ usdtkit__tok_reg(lx, t, start, X86E_RDI); return; }
	"%rbp"	{ usdtkit__tok_reg(lx, t, start, X86E_RBP); return; }
	"%rsp"	{ usdtkit__tok_reg(lx, t, start, X86E_RSP); return; }
	"%rip"	{ usdtkit__tok_reg(lx, t, start, X86E_RIP); return; }
	"%sil"	{ usdtkit__tok_reg(lx, t, start, X86E_SIL); return; }
	"%dil"	{ usdtkit__tok_reg(lx, t, start, X86E_DIL); return; }
	"%bpl"	{ usdtkit__tok_reg(lx, t, start, X86E_BPL); return; }
	"%spl"	{ usdtkit__tok_reg(lx, t, start, X86E_SPL); return; }
	"%r8"	{ usdtkit__tok_reg(lx, t, start, X86E_R8); return; }
	"%r8d"	{ usdtkit__tok_reg(lx, t, start, X86E_R8D); return; }
	"%r8w"	{ usdtkit__tok_reg(lx, t, start, X86E_R8W); return; }
	"%r8b"	{ usdtkit__tok_reg(lx, t, start, X86E_R8B); return; }
	"%r9"	{ usdtkit__tok_reg(lx, t, start, X86E_R9); return; }
	"%r9d"	{ usdtkit__tok_reg(lx, t, start, X86E_R9D); return; }
	"%r9w"	{ usdtkit__tok_reg(lx, t, start, X86E_R9W); return; }
	"%r9b"	{ usdtkit__tok_reg(lx, t, start, X86E_R9B); return; }
	"%r10"	{ usdtkit__tok_reg(lx, t, start, X86E_R10); return; }
	"%r10d"	{ usdtkit__tok_reg(lx, t, start, X86E_R10D); return; }
	"%r10w"	{ usdtkit__tok_reg(lx, t, start, X86E_R10W); return; }
	"%r10b"	{ usdtkit__tok_reg(lx, t, start, X86E_R10B); return; }
	"%r11"	{ usdtkit__tok_reg(lx, t, start, X86E_R11); return; }
	"%r11d"	{ usdtkit__tok_reg(lx, t, start, X86E_R11D); return; }
	"%r11w"	{ usdtkit__tok_reg(lx, t, start, X86E_R11W); return; }
	"%r11b"	{ usdtkit__tok_reg(lx, t, start, X86E_R11B); return; }
	"%r12"	{ usdtkit__tok_reg(lx, t, start, X86E_R12); return; }
	"%r12d"	{ usdtkit__tok_reg(lx, t, start, X86E_R12D); return; }
	"%r12w"	{ usdtkit__tok_reg(lx, t, start, X86E_R12W); return; }
	"%r12b"	{ usdtkit__tok_reg(lx, t, start, X86E_R12B); return; }
	"%r13"	{ usdtkit__tok_reg(lx, t, start, X86E_R13); return; }
	"%r13d"	{ usdtkit__tok_reg(lx, t, start, X86E_R13D); return; }
	"%r13w"	{ usdtkit__tok_reg(lx, t, start, X86E_R13W); return; }
	"%r13b"	{ usdtkit__tok_reg(lx, t, start, X86E_R13B); return; }
	"%r14"	{ usdtkit__tok_reg(lx, t, start, X86E_R14); return; }
	"%r14d"	{ usdtkit__tok_reg(lx, t, start, X86E_R14D); return; }
	"%r14w"	{ usdtkit__tok_reg(lx, t, start, X86E_R14W); return; }
	"%r14b"	{ usdtkit__tok_reg(lx, t, start, X86E_R14B); return; }
	"%r15"	{ usdtkit__tok_reg(lx, t, start, X86E_R15); return; }
	"%r15d"	{ usdtkit__tok_reg(lx, t, start, X86E_R15D); return; }
	"%r15w"	{ usdtkit__tok_reg(lx, t, start, X86E_R15W); return; }
	"%r15b"	{ usdtkit__tok_reg(lx, t, start, X86E_R15B); return; }
	"%" [cdefgs] "s"	{ usdtkit__tok(lx, t, TOK_SEG, start); return; }
	"%" ([xyz] "mm" [0-9]+ | "mm" [0-7] | "k" [0-7] | "st" ("(" [0-7] ")")?)
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
	"$"	{ usdtkit__tok(lx, t, TOK_DOLLAR, start); return; }
	":"	{ usdtkit__tok(lx, t, TOK_COLON, start); return; }
	*	{ usdtkit__tok_err(lx, t, start, "unexpected character"); return; }
	*/
}

static bool is_rip(const struct usdtkit_reg *r)
{
	return r->id == X86_IP;
}

/* (base), (base,index), (base,index,scale), (,index,scale) */
static int x86_parse_sib(struct usdtkit_lexer *lx, struct usdtkit_arg *arg)
{
	const char *at;

	usdtkit__advance(lx);	/* '(' */
	if (lx->tok.type == TOK_REG) {
		if (lx->arch->regs[lx->tok.entry].width < 4)
			return usdtkit__fail_tok(lx, arg,
				"base register must be 32 or 64 bits wide");
		usdtkit__take_reg(lx, &arg->base);
	}
	if (lx->tok.type == TOK_COMMA) {
		usdtkit__advance(lx);
		if (lx->tok.type != TOK_REG)
			return usdtkit__fail_tok(lx, arg, "expected index register");
		at = lx->tok.start;
		usdtkit__take_reg(lx, &arg->index);
		if (arg->index.id == X86_SP || is_rip(&arg->index) ||
		    arg->index.width < 4)
			return usdtkit__fail(lx, arg, at,
					     "register cannot be an index");
		arg->scale = 1;
		if (lx->tok.type == TOK_COMMA) {
			usdtkit__advance(lx);
			if (lx->tok.type != TOK_NUM)
				return usdtkit__fail_tok(lx, arg, "expected scale");
			if (usdtkit__set_scale(lx, arg, lx->tok.num, lx->tok.start))
				return -1;
			usdtkit__advance(lx);
		}
	} else if (arg->base.id < 0) {
		return usdtkit__fail_tok(lx, arg, "expected base register");
	}
	return usdtkit__expect(lx, arg, TOK_RPAREN, "expected ')'");
}

/* [disp](...) or a bare absolute address */
static int x86_parse_mem(struct usdtkit_lexer *lx, struct usdtkit_arg *arg)
{
	struct usdtkit_expr ex = { 0 };
	const char *at = lx->tok.start;

	if (lx->tok.type != TOK_LPAREN && usdtkit__parse_expr(lx, arg, &ex))
		return -1;
	if (lx->tok.type == TOK_LPAREN && x86_parse_sib(lx, arg))
		return -1;
	if (usdtkit__expect_end(lx, arg))
		return -1;
	usdtkit__apply_expr(lx, arg, &ex, true);
	if (!is_rip(&arg->base))
		return 0;
	/* %rip-relative: the address is the symbol's, wherever the code is */
	usdtkit__reg_clear(&arg->base);
	if (arg->kind != USDTKIT_LOC_SYMBOL) {
		usdtkit__flag(lx, arg, USDTKIT_ARG_UNSUPPORTED, at,
			      "%rip-relative offset without a symbol");
		return 0;
	}
	if (arg->reloc == USDTKIT_RELOC_NONE)
		arg->reloc = USDTKIT_RELOC_PCREL;
	return 0;
}

void usdtkit__x86_parse_operand(const struct usdtkit_arch *arch,
				struct usdtkit_lexer *lx, struct usdtkit_arg *arg)
{
	struct usdtkit_expr ex;
	const char *at;

	(void)arch;
	lx->next = x86_next;
	usdtkit__advance(lx);
	switch (lx->tok.type) {
	case TOK_DOLLAR:
		usdtkit__advance(lx);
		if (usdtkit__parse_expr(lx, arg, &ex) ||
		    usdtkit__expect_end(lx, arg))
			return;
		usdtkit__apply_expr(lx, arg, &ex, false);
		return;
	case TOK_REG:
		arg->kind = USDTKIT_LOC_REG;
		usdtkit__take_reg(lx, &arg->reg);
		usdtkit__expect_end(lx, arg);
		return;
	case TOK_FPREG:
		usdtkit__take_fpreg(lx, arg);
		usdtkit__expect_end(lx, arg);
		return;
	case TOK_SEG:
		/* %fs:sym@tpoff: the segment base is not in pt_regs */
		at = lx->tok.start;
		usdtkit__advance(lx);
		if (usdtkit__expect(lx, arg, TOK_COLON, "expected ':' after segment") ||
		    x86_parse_mem(lx, arg))
			return;
		usdtkit__flag(lx, arg, USDTKIT_ARG_UNSUPPORTED, at,
			      "segment-relative: the segment base is not in pt_regs");
		return;
	default:
		x86_parse_mem(lx, arg);
		return;
	}
}
