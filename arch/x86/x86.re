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
#include "spec/backends.h"
#include "x86/x86_regs.h"

#include <string.h>

/*!include:re2c "prologue.re" */

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

/*
 * Register names, shared by the token scanner and the fast path's lookup
 * (x86_reg_entry), so that tests/spec/test_registry, which checks every table
 * name, covers both. An action sets the entry and jumps to "reg" in the
 * function that uses the rules.
 */
/*!rules:re2c:x86_regs
	// every name in the register table (x86_regs.c), nothing else
	"%eax"	{ entry = X86E_EAX; goto reg; }
	"%ax"	{ entry = X86E_AX; goto reg; }
	"%al"	{ entry = X86E_AL; goto reg; }
	"%ah"	{ entry = X86E_AH; goto reg; }
	"%ebx"	{ entry = X86E_EBX; goto reg; }
	"%bx"	{ entry = X86E_BX; goto reg; }
	"%bl"	{ entry = X86E_BL; goto reg; }
	"%bh"	{ entry = X86E_BH; goto reg; }
	"%ecx"	{ entry = X86E_ECX; goto reg; }
	"%cx"	{ entry = X86E_CX; goto reg; }
	"%cl"	{ entry = X86E_CL; goto reg; }
	"%ch"	{ entry = X86E_CH; goto reg; }
	"%edx"	{ entry = X86E_EDX; goto reg; }
	"%dx"	{ entry = X86E_DX; goto reg; }
	"%dl"	{ entry = X86E_DL; goto reg; }
	"%dh"	{ entry = X86E_DH; goto reg; }
	"%esi"	{ entry = X86E_ESI; goto reg; }
	"%si"	{ entry = X86E_SI; goto reg; }
	"%edi"	{ entry = X86E_EDI; goto reg; }
	"%di"	{ entry = X86E_DI; goto reg; }
	"%ebp"	{ entry = X86E_EBP; goto reg; }
	"%bp"	{ entry = X86E_BP; goto reg; }
	"%esp"	{ entry = X86E_ESP; goto reg; }
	"%sp"	{ entry = X86E_SP; goto reg; }
	"%eip"	{ entry = X86E_EIP; goto reg; }
	"%rax"	{ entry = X86E_RAX; goto reg; }
	"%rbx"	{ entry = X86E_RBX; goto reg; }
	"%rcx"	{ entry = X86E_RCX; goto reg; }
	"%rdx"	{ entry = X86E_RDX; goto reg; }
	"%rsi"	{ entry = X86E_RSI; goto reg; }
	"%rdi"	{ entry = X86E_RDI; goto reg; }
	"%rbp"	{ entry = X86E_RBP; goto reg; }
	"%rsp"	{ entry = X86E_RSP; goto reg; }
	"%rip"	{ entry = X86E_RIP; goto reg; }
	"%sil"	{ entry = X86E_SIL; goto reg; }
	"%dil"	{ entry = X86E_DIL; goto reg; }
	"%bpl"	{ entry = X86E_BPL; goto reg; }
	"%spl"	{ entry = X86E_SPL; goto reg; }
	"%r8"	{ entry = X86E_R8; goto reg; }
	"%r8d"	{ entry = X86E_R8D; goto reg; }
	"%r8w"	{ entry = X86E_R8W; goto reg; }
	"%r8b"	{ entry = X86E_R8B; goto reg; }
	"%r9"	{ entry = X86E_R9; goto reg; }
	"%r9d"	{ entry = X86E_R9D; goto reg; }
	"%r9w"	{ entry = X86E_R9W; goto reg; }
	"%r9b"	{ entry = X86E_R9B; goto reg; }
	"%r10"	{ entry = X86E_R10; goto reg; }
	"%r10d"	{ entry = X86E_R10D; goto reg; }
	"%r10w"	{ entry = X86E_R10W; goto reg; }
	"%r10b"	{ entry = X86E_R10B; goto reg; }
	"%r11"	{ entry = X86E_R11; goto reg; }
	"%r11d"	{ entry = X86E_R11D; goto reg; }
	"%r11w"	{ entry = X86E_R11W; goto reg; }
	"%r11b"	{ entry = X86E_R11B; goto reg; }
	"%r12"	{ entry = X86E_R12; goto reg; }
	"%r12d"	{ entry = X86E_R12D; goto reg; }
	"%r12w"	{ entry = X86E_R12W; goto reg; }
	"%r12b"	{ entry = X86E_R12B; goto reg; }
	"%r13"	{ entry = X86E_R13; goto reg; }
	"%r13d"	{ entry = X86E_R13D; goto reg; }
	"%r13w"	{ entry = X86E_R13W; goto reg; }
	"%r13b"	{ entry = X86E_R13B; goto reg; }
	"%r14"	{ entry = X86E_R14; goto reg; }
	"%r14d"	{ entry = X86E_R14D; goto reg; }
	"%r14w"	{ entry = X86E_R14W; goto reg; }
	"%r14b"	{ entry = X86E_R14B; goto reg; }
	"%r15"	{ entry = X86E_R15; goto reg; }
	"%r15d"	{ entry = X86E_R15D; goto reg; }
	"%r15w"	{ entry = X86E_R15W; goto reg; }
	"%r15b"	{ entry = X86E_R15B; goto reg; }
*/

static void x86_next(struct usdtkit_lexer *lx, struct usdtkit_token *t)
{
	const char *YYMARKER = NULL;
	const char *start;
	int entry;

again:
	start = lx->cur;
	/*!re2c
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

	!use:x86_regs;
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
reg:
	usdtkit__tok_reg(lx, t, start, entry);
}

/* The register-table entry that [s, e) names ("%eax"), or -1. */
static int x86_reg_entry(const char *s, const char *e)
{
	/* the rules' actions run on a lexer over just the name */
	struct usdtkit_lexer name = { .cur = s, .end = e };
	struct usdtkit_lexer *lx = &name;
	const char *YYMARKER = NULL;
	int entry;

	/*!local:re2c
	!use:x86_regs;
	*	{ return -1; }
	*/
reg:
	return lx->cur == e ? entry : -1;
}

/* a base the token grammar takes as it is: 32 or 64 bits wide, and not
 * %rip (a %rip-relative operand needs its symbol) */
static bool x86_fast_base(const struct usdtkit_arch *arch,
			  struct usdtkit_reg *r, const char *s, const char *e)
{
	return usdtkit__reg_fill(arch, r, x86_reg_entry(s, e)) &&
	       r->width >= 4 && r->id != X86_IP;
}

/* an index: 32 or 64 bits wide, neither the stack pointer nor %rip */
static bool x86_fast_index(const struct usdtkit_arch *arch,
			   struct usdtkit_reg *r, const char *s, const char *e)
{
	return usdtkit__reg_fill(arch, r, x86_reg_entry(s, e)) &&
	       r->width >= 4 && r->id != X86_SP && r->id != X86_IP;
}

/* disp(base[,index[,scale]]) from the fast path's tags (NULL: absent) */
static const char *x86_fast_mem(const struct usdtkit_arch *arch,
				const char *end, struct usdtkit_arg *arg,
				const char *n1, const char *n2, const char *b1,
				const char *b2, const char *i1, const char *i2,
				const char *sc, const char *e)
{
	struct usdtkit_reg base, index;
	uint64_t disp = 0;

	if (!usdtkit__fast_eop(e, end) ||
	    (n1 && !usdtkit__fast_num(n1, n2, &disp)) ||
	    !x86_fast_base(arch, &base, b1, b2) ||
	    (i1 && !x86_fast_index(arch, &index, i1, i2)))
		return NULL;
	arg->kind = USDTKIT_LOC_MEM;
	arg->disp = (int64_t)disp;
	arg->base = base;
	if (i1) {
		arg->index = index;
		arg->scale = sc ? (uint8_t)(*sc - '0') : 1;
	}
	return e;
}

/* %reg, $imm, disp(%base), disp(%base,%index,scale) in one DFA pass */
const char *usdtkit__x86_parse_fast(const struct usdtkit_arch *arch,
				    const char *op, const char *end,
				    struct usdtkit_arg *arg)
{
	/* the register rules' actions read lx->cur: a local lexer, whose
	 * cursor stays in a register */
	struct usdtkit_lexer scan = { .cur = op, .end = end };
	struct usdtkit_lexer *lx = &scan;
	const char *YYMARKER = NULL;
	const char *n1, *n2, *r1, *r2, *i1, *i2, *sc, *e;
	uint64_t v;
	int entry;
	/*!stags:re2c:x86_fast format = "const char *@@;\n"; */

	/*!local:re2c:x86_fast
	// bitmaps for the name loops: fewer instructions here (measured)
	re2c:flags:bit-vectors = 1;
	re2c:tags = 1;

	fname = "%" [a-z0-9]+;

	// a lone register: its rule jumps to "reg"
	!use:x86_regs;
	"$" @n1 fdec @n2 @e feop	{
		if (!usdtkit__fast_eop(e, end) ||
		    !usdtkit__fast_num(n1, n2, &v))
			return NULL;
		arg->kind = USDTKIT_LOC_CONST;
		arg->value = (int64_t)v;
		return e;
	}
	(@n1 fdec @n2)? "(" @r1 fname @r2
	("," @i1 fname @i2 ("," @sc [1248])?)? ")" @e feop	{
		return x86_fast_mem(arch, end, arg, n1, n2, r1, r2, i1, i2,
				    sc, e);
	}
	*	{ return NULL; }
	*/
reg:
	/* the name must end the operand ("%eaxx" is not %eax) */
	if (!usdtkit__fast_reg_end(lx->cur, end) ||
	    !usdtkit__reg_fill(arch, &arg->reg, entry))
		return NULL;
	arg->kind = USDTKIT_LOC_REG;
	return lx->cur;
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
	usdtkit__lex_begin(lx, x86_next);
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
