// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `usdtkit trace --filter EXPR`: EXPR parsed once into a tree, then
 * compiled for each probe into the program trace/bpf/trace_filter.h
 * describes (a probe's argument types decide which argN exist and how
 * they compare, so the programs of two probes may differ).
 *
 * Grammar, loosest first (unlike C, `&` binds tighter than the
 * comparisons, so `arg1 & 4 == 4` means `(arg1 & 4) == 4`):
 *
 *   or      := and ( "||" and )*
 *   and     := cmp ( "&&" cmp )*
 *   cmp     := band [ ( "==" | "!=" | "<" | "<=" | ">" | ">=" ) band ]
 *            | strref ( "==" | "!=" ) STRING
 *            | STRING ( "==" | "!=" ) strref
 *   band    := unary ( "&" unary )*      one side of each & a constant
 *   unary   := "!" unary | "-" NUMBER | primary
 *   primary := NUMBER | "argN" | "pid" | "tid" | "(" or ")"
 *   strref  := "str" "(" "argN" ")"
 *
 * NUMBER is decimal or 0x hex, at most 2^64 - 1 (a negated one at most
 * 2^63). A value where a condition is expected (`arg1`, `arg1 & 4`,
 * `!arg2`) means `!= 0`; a condition is never a value (`(a < b) == 1` is
 * an error). Comparisons do not chain.
 *
 * STRING is "..." with the escapes \" \\ and \* (a literal star); a
 * final unescaped * makes it a prefix: str(arg1) == "ab*" holds for any
 * string that starts with "ab". A string that cannot be read equals no
 * pattern, so `!=` holds for it.
 *
 * How values compare: as the integers they are. A constant is what is
 * written (-1 is negative, 0xffffffffffffffff is 2^64 - 1). A signed
 * argument's value is negative when its sign bit is set; an unsigned
 * argument, pid and tid never are; `x & C` is negative only when both x
 * and C are (two's complement on unbounded integers). So:
 *   - constant against constant: folded;
 *   - a value that can be negative against a constant of 2^63 or more,
 *     or one that cannot against a negative constant: folded too (the
 *     order is known), as no 64-bit comparison gets it right;
 *   - otherwise one instruction, USDTKIT_FF_SIGNED when either side can
 *     be negative (a signed operand or a negative constant). Two
 *     non-constant operands of which only one is signed compare signed:
 *     the one exception to "as integers", for an unsigned value of 2^63
 *     or more, which no 64-bit comparison orders right against both
 *     signs.
 *
 * `&&`, `||` and `!` compile into jumps to true and false labels, each
 * resolved to a later instruction or to ACCEPT/REJECT: every comparison
 * is one instruction, and no stack is needed. Conditions that fold away
 * take no instruction; an EXPR that is always true compiles to no
 * program at all (ninsns 0: every hit kept).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/escape.h"
#include "trace/internal.h"
#include "trace/bpf/trace_filter.h"

/* Bounds on the tree, so that no input recurses deeply or grows without
 * end: a program of 32 comparisons never needs more. */
#define FILTER_MAX_NODES	(USDTKIT_FILTER_MAX_INSNS * 8)
#define FILTER_MAX_DEPTH	64
#define FILTER_NO_MASK		(~0ULL)

enum node_kind {
	/* values */
	N_NUM,		/* val: the bits; neg: the constant is negative */
	N_ARG,		/* arg */
	N_PID,
	N_TID,
	N_BAND,		/* l & r */
	/* only as an operand of == or != with the other */
	N_STRREF,	/* str(argN): arg */
	N_STRLIT,	/* "...": pat, len, prefix */
	/* conditions */
	N_CMP,		/* l op r */
	N_STR,		/* str(argN) op "...": arg, pat, len, prefix; neg: != */
	N_NOT,		/* !l */
	N_AND,
	N_OR,
};

struct node {
	unsigned char kind;
	unsigned char op;	/* N_CMP: USDTKIT_FOP_EQ..GE */
	bool neg, prefix;
	int col;		/* of its first token, or of its operator */
	int start;		/* of its first token */
	int argcol;		/* N_STR: of its argN */
	int l, r;		/* children */
	int arg;
	unsigned long long val;
	unsigned int len;
	char pat[USDTKIT_FILTER_STR_MAX];
};

struct filter_expr {
	int root;
	int nnodes;
	struct node nodes[FILTER_MAX_NODES];
};

static int set_err(struct usdtkit_trace_filter_err *err, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int set_err(struct usdtkit_trace_filter_err *err, int col, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->col = col;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* ---- tokens ---- */

enum tok_kind {
	T_END, T_NUM, T_IDENT, T_STR,
	T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE,
	T_BAND, T_LAND, T_LOR, T_NOT, T_MINUS, T_LPAREN, T_RPAREN,
};

struct tok {
	enum tok_kind kind;
	int col;
	size_t off, len;	/* its text in EXPR */
	unsigned long long val;	/* T_NUM */
	unsigned int slen;	/* T_STR: the pattern, without a final '*' */
	bool prefix;
	char s[USDTKIT_FILTER_STR_MAX];
};

struct parser {
	const char *s;
	size_t pos;
	struct tok cur;		/* the lookahead */
	struct filter_expr *e;
	struct usdtkit_trace_filter_err *err;
	int depth;
};

static bool is_ident(int c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

/* The current token as a message shows it: its first 24 bytes by the
 * one rule (escape.h), quoted, "..." after them if it is longer. */
static const char *tok_desc(const struct parser *p, char *buf, size_t size)
{
	const struct tok *t = &p->cur;
	size_t n = t->len < 24 ? t->len : 24;

	if (t->kind == T_END)
		return "the end of the expression";
	/* room for the quotes, "..." and the NUL */
	buf[0] = '\'';
	usdtkit_escape(buf + 1, size - 5, p->s + t->off, n, 0);
	n = strlen(buf);
	snprintf(buf + n, size - n, "%s'", t->len > 24 ? "..." : "");
	return buf;
}

/*
 * The words other languages write for && || ! (Python, SQL, a shell's
 * test): " ('and' is written && here)" when the current token is one,
 * else "".
 */
static const char *word_hint(const struct parser *p, char *buf, size_t size)
{
	static const struct {
		const char *word, *op;
	} words[] = { { "and", "&&" }, { "or", "||" }, { "not", "!" } };
	const struct tok *t = &p->cur;
	size_t i;

	for (i = 0; t->kind == T_IDENT && i < sizeof(words) / sizeof(words[0]); i++) {
		if (t->len != strlen(words[i].word) ||
		    strncasecmp(p->s + t->off, words[i].word, t->len))
			continue;
		snprintf(buf, size, " ('%.*s' is written %s here)", (int)t->len,
			 p->s + t->off, words[i].op);
		return buf;
	}
	return "";
}

static int lex_number(struct parser *p, struct tok *t)
{
	const char *s = p->s + t->off;
	unsigned long long v = 0, base = 10, d;
	size_t i = 0, n = 0;

	while (is_ident((unsigned char)s[n], false))
		n++;
	t->len = n;
	if (n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
		if (n == 2)
			return set_err(p->err, t->col, "bad number '%.*s'", (int)n, s);
	} else if (n > 1 && s[0] == '0') {
		return set_err(p->err, t->col,
			       "bad number '%.*s': octal is not supported (write 0x...)",
			       (int)(n > 32 ? 32 : n), s);
	}
	for (; i < n; i++) {
		char c = s[i];

		if (c >= '0' && c <= '9')
			d = (unsigned long long)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned long long)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned long long)(c - 'A' + 10);
		else
			return set_err(p->err, t->col, "bad number '%.*s'",
				       (int)(n > 32 ? 32 : n), s);
		if (v > (~0ULL - d) / base)
			return set_err(p->err, t->col,
				       "constant overflow: '%.*s' does not fit in 64 bits",
				       (int)(n > 32 ? 32 : n), s);
		v = v * base + d;
	}
	t->val = v;
	t->kind = T_NUM;
	return 0;
}

/* "...": the pattern into t->s. The whole string is scanned before its
 * length is judged, so an unterminated one says so. */
static int lex_string(struct parser *p, struct tok *t)
{
	const char *s = p->s + t->off;
	size_t i = 1, n = 0;
	bool star = false;

	for (;; i++) {
		char c = s[i];

		if (!c)
			return set_err(p->err, t->col, "unterminated string");
		if (c == '"')
			break;
		star = c == '*';
		if (c == '\\') {
			c = s[++i];
			if (c != '"' && c != '\\' && c != '*') {
				if (!c)
					return set_err(p->err, t->col,
						       "unterminated string");
				return set_err(p->err, t->col + (int)i - 1,
					       "unknown escape '\\%c' (only \\\" \\\\ \\*)",
					       c >= 0x20 && c < 0x7f ? c : '?');
			}
		}
		if (n < sizeof(t->s))
			t->s[n] = c;
		n++;
	}
	t->len = i + 1;
	/* a final '*' written as such (star is false after \*) */
	if (star)
		n--;
	if (n > USDTKIT_FILTER_STR_MAX - 1)
		return set_err(p->err, t->col,
			       "string pattern too long: %zu bytes, at most %d",
			       n, USDTKIT_FILTER_STR_MAX - 1);
	t->s[n] = 0;
	t->slen = (unsigned int)n;
	t->prefix = star;
	t->kind = T_STR;
	return 0;
}

static int lex_punct(struct parser *p, struct tok *t)
{
	const char *s = p->s + t->off;
	static const struct {
		const char *text;
		enum tok_kind kind;
	} ops[] = {
		{ "==", T_EQ }, { "!=", T_NE }, { "<=", T_LE }, { ">=", T_GE },
		{ "&&", T_LAND }, { "||", T_LOR }, { "<", T_LT }, { ">", T_GT },
		{ "&", T_BAND }, { "!", T_NOT }, { "-", T_MINUS },
		{ "(", T_LPAREN }, { ")", T_RPAREN },
	};
	size_t i, n;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		n = strlen(ops[i].text);
		if (!strncmp(s, ops[i].text, n)) {
			t->kind = ops[i].kind;
			t->len = n;
			return 0;
		}
	}
	t->len = 1;
	if (s[0] == '=')
		return set_err(p->err, t->col, "unexpected '=' (compare with '==')");
	if (s[0] == '|')
		return set_err(p->err, t->col, "unexpected '|' (or is '||')");
	if (s[0] == '/')
		return set_err(p->err, t->col, "unexpected '/' (a bpftrace predicate "
			       "/EXPR/ is EXPR here, no slashes)");
	if (s[0] == '\'')
		return set_err(p->err, t->col,
			       "unexpected \"'\" (strings are in double quotes: \"...\")");
	if ((unsigned char)s[0] >= 0x20 && (unsigned char)s[0] < 0x7f)
		return set_err(p->err, t->col, "unexpected character '%c'", s[0]);
	return set_err(p->err, t->col, "unexpected byte 0x%02x",
		       (unsigned char)s[0]);
}

/* The next token into p->cur. */
static int lex(struct parser *p)
{
	struct tok *t = &p->cur;
	int c, ret = 0;

	while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
	       p->s[p->pos] == '\n' || p->s[p->pos] == '\r')
		p->pos++;
	memset(t, 0, sizeof(*t));
	t->off = p->pos;
	/* columns past INT_MAX are not worth a check: argv is far shorter */
	t->col = (int)p->pos + 1;
	c = (unsigned char)p->s[p->pos];
	if (!c)
		t->kind = T_END;
	else if (c >= '0' && c <= '9')
		ret = lex_number(p, t);
	else if (is_ident(c, true)) {
		while (is_ident((unsigned char)p->s[p->pos + t->len], false))
			t->len++;
		t->kind = T_IDENT;
	} else if (c == '"')
		ret = lex_string(p, t);
	else
		ret = lex_punct(p, t);
	if (c && ret)
		return ret;
	p->pos += t->len;
	return 0;
}

/* ---- the tree ---- */

static int new_node(struct parser *p, enum node_kind kind, int col)
{
	struct filter_expr *e = p->e;
	struct node *n;

	if (e->nnodes >= FILTER_MAX_NODES)
		return set_err(p->err, col,
			       "expression too long (a filter holds at most %d comparisons)",
			       USDTKIT_FILTER_MAX_INSNS);
	n = &e->nodes[e->nnodes];
	memset(n, 0, sizeof(*n));
	n->kind = (unsigned char)kind;
	n->col = n->start = col;
	n->l = n->r = -1;
	return e->nnodes++;
}

static struct node *N(struct parser *p, int i)
{
	return &p->e->nodes[i];
}

static bool is_value(const struct node *n)
{
	return n->kind <= N_BAND;
}

/* @i where a value must be: an error for a condition or a string */
static int need_value(struct parser *p, int i)
{
	const struct node *n = N(p, i);

	if (is_value(n))
		return 0;
	if (n->kind == N_STRREF)
		return set_err(p->err, n->col,
			       "str(arg%d) is only compared with == or != to a string",
			       n->arg);
	if (n->kind == N_STRLIT)
		return set_err(p->err, n->col,
			       "a string is only compared with == or != to str(argN)");
	return set_err(p->err, n->start,
		       "a condition is not a value (only values compare, and take &)");
}

/* @i where a condition must be: a value means `!= 0` */
static int need_cond(struct parser *p, int i)
{
	int zero, cmp, ret;

	if (N(p, i)->kind >= N_CMP)
		return i;
	ret = need_value(p, i);
	if (ret)
		return ret;
	zero = new_node(p, N_NUM, N(p, i)->col);
	if (zero < 0)
		return zero;
	cmp = new_node(p, N_CMP, N(p, i)->col);
	if (cmp < 0)
		return cmp;
	N(p, cmp)->op = USDTKIT_FOP_NE;
	N(p, cmp)->l = i;
	N(p, cmp)->r = zero;
	return cmp;
}

static int parse_or(struct parser *p);

static int expect(struct parser *p, enum tok_kind kind, const char *what)
{
	char d[64];

	if (p->cur.kind != kind)
		return set_err(p->err, p->cur.col, "expected %s, found %s", what,
			       tok_desc(p, d, sizeof(d)));
	return lex(p);
}

/* "argN", the current token, as N; -1 if it is another word */
static int arg_number(const struct parser *p)
{
	const char *s = p->s + p->cur.off;
	size_t i;
	int n = 0;

	if (p->cur.kind != T_IDENT || p->cur.len < 4 || strncmp(s, "arg", 3))
		return -1;
	for (i = 3; i < p->cur.len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (n < 1000)
			n = n * 10 + (s[i] - '0');
	}
	return n;
}

static int parse_arg(struct parser *p, int *arg)
{
	char d[64];

	*arg = arg_number(p);
	if (*arg < 0)
		return set_err(p->err, p->cur.col, "expected argN, found %s",
			       tok_desc(p, d, sizeof(d)));
	if (*arg >= USDTKIT_BPF_MAX_ARGS)
		return set_err(p->err, p->cur.col,
			       "%s out of range: arguments are arg0 to arg%d",
			       tok_desc(p, d, sizeof(d)), USDTKIT_BPF_MAX_ARGS - 1);
	return lex(p);
}

/* str ( argN ) */
static int parse_strref(struct parser *p, int col)
{
	int i, argcol, arg, ret;

	ret = lex(p);
	if (!ret)
		ret = expect(p, T_LPAREN, "'(' after str");
	if (ret)
		return ret;
	argcol = p->cur.col;
	ret = parse_arg(p, &arg);
	if (!ret)
		ret = expect(p, T_RPAREN, "')' after str(argN");
	if (ret)
		return ret;
	i = new_node(p, N_STRREF, col);
	if (i < 0)
		return i;
	N(p, i)->arg = arg;
	N(p, i)->argcol = argcol;
	return i;
}

static int parse_ident(struct parser *p)
{
	const struct tok *t = &p->cur;
	const char *s = p->s + t->off;
	char d[64], h[48];
	int i, arg, ret, col = t->col;

	if (t->len == 3 && !strncmp(s, "str", 3))
		return parse_strref(p, col);
	if (t->len == 3 && (!strncmp(s, "pid", 3) || !strncmp(s, "tid", 3))) {
		i = new_node(p, s[0] == 'p' ? N_PID : N_TID, col);
		ret = i < 0 ? i : lex(p);
		return ret ? ret : i;
	}
	if (arg_number(p) < 0)
		return set_err(p->err, col,
			       "unknown identifier %s (argN, pid, tid or str(argN))%s",
			       tok_desc(p, d, sizeof(d)), word_hint(p, h, sizeof(h)));
	ret = parse_arg(p, &arg);
	if (ret)
		return ret;
	i = new_node(p, N_ARG, col);
	if (i >= 0)
		N(p, i)->arg = arg;
	return i;
}

static int parse_primary(struct parser *p)
{
	char d[64], h[48];
	int i, col = p->cur.col, ret;

	switch (p->cur.kind) {
	case T_NUM:
		i = new_node(p, N_NUM, col);
		if (i < 0)
			return i;
		N(p, i)->val = p->cur.val;
		ret = lex(p);
		return ret ? ret : i;
	case T_STR:
		i = new_node(p, N_STRLIT, col);
		if (i < 0)
			return i;
		memcpy(N(p, i)->pat, p->cur.s, sizeof(p->cur.s));
		N(p, i)->len = p->cur.slen;
		N(p, i)->prefix = p->cur.prefix;
		ret = lex(p);
		return ret ? ret : i;
	case T_IDENT:
		return parse_ident(p);
	case T_LPAREN:
		ret = lex(p);
		if (ret)
			return ret;
		i = parse_or(p);
		if (i < 0)
			return i;
		if (p->cur.kind != T_RPAREN)
			return set_err(p->err, p->cur.col,
				       "expected ')' to close the '(' of column %d, found %s%s",
				       col, tok_desc(p, d, sizeof(d)),
				       word_hint(p, h, sizeof(h)));
		ret = lex(p);
		return ret ? ret : i;
	default:
		return set_err(p->err, col, "expected a value, found %s",
			       tok_desc(p, d, sizeof(d)));
	}
}

/* "-" NUMBER: negative constants, the only use of '-' */
static int parse_negative(struct parser *p, int col)
{
	unsigned long long v;
	int i, ret;

	ret = lex(p);
	if (ret)
		return ret;
	if (p->cur.kind != T_NUM)
		return set_err(p->err, col, "'-' applies only to a number");
	v = p->cur.val;
	if (v > 1ULL << 63)
		return set_err(p->err, col,
			       "constant overflow: -%llu is below -2^63", v);
	i = new_node(p, N_NUM, col);
	if (i < 0)
		return i;
	/* -0 is 0, not negative */
	N(p, i)->val = -v;
	N(p, i)->neg = v != 0;
	ret = lex(p);
	return ret ? ret : i;
}

static int parse_unary(struct parser *p)
{
	int i, c, ret, col = p->cur.col;

	if (p->cur.kind == T_MINUS)
		return parse_negative(p, col);
	if (p->cur.kind != T_NOT && p->cur.kind != T_LPAREN)
		return parse_primary(p);
	/* ! and ( are where EXPR nests: bound the recursion */
	if (++p->depth > FILTER_MAX_DEPTH)
		return set_err(p->err, col,
			       "expression nested too deeply (more than %d levels)",
			       FILTER_MAX_DEPTH);
	if (p->cur.kind == T_LPAREN) {
		i = parse_primary(p);
	} else {
		ret = lex(p);
		if (ret)
			return ret;
		c = parse_unary(p);
		c = c < 0 ? c : need_cond(p, c);
		if (c < 0)
			return c;
		i = new_node(p, N_NOT, col);
		if (i >= 0)
			N(p, i)->l = c;
	}
	p->depth--;
	return i;
}

static bool is_const(const struct parser *p, int i)
{
	const struct node *n = &p->e->nodes[i];

	if (n->kind == N_BAND)
		return is_const(p, n->l) && is_const(p, n->r);
	return n->kind == N_NUM;
}

/* the operands of && and ||: conditions (a value v becomes v != 0) */
static int check_logic(struct parser *p, int *l, int *r, int col)
{
	(void)col;
	*l = need_cond(p, *l);
	*r = *l < 0 ? *l : need_cond(p, *r);
	return *r < 0 ? *r : 0;
}

/* the operands of &: values, one of them a constant */
static int check_band(struct parser *p, int *l, int *r, int col)
{
	int ret = need_value(p, *l);

	if (!ret)
		ret = need_value(p, *r);
	if (ret)
		return ret;
	/* the program masks a value, it does not AND two of them */
	if (!is_const(p, *l) && !is_const(p, *r))
		return set_err(p->err, col, "one side of '&' must be a constant");
	return 0;
}

/*
 * A left-associative chain of one operator: band := unary ("&" unary)*,
 * and := cmp ("&&" cmp)*, or := and ("||" and)*. @check validates (and
 * may convert) each pair of operands.
 */
static int parse_chain(struct parser *p, enum tok_kind tk, enum node_kind kind,
		       int (*sub)(struct parser *),
		       int (*check)(struct parser *, int *, int *, int))
{
	int l, r, i, col, ret;

	l = sub(p);
	while (l >= 0 && p->cur.kind == tk) {
		col = p->cur.col;
		ret = lex(p);
		if (ret)
			return ret;
		r = sub(p);
		if (r < 0)
			return r;
		ret = check(p, &l, &r, col);
		if (ret)
			return ret;
		i = new_node(p, kind, col);
		if (i < 0)
			return i;
		N(p, i)->start = N(p, l)->start;
		N(p, i)->l = l;
		N(p, i)->r = r;
		l = i;
	}
	return l;
}

static int parse_band(struct parser *p)
{
	return parse_chain(p, T_BAND, N_BAND, parse_unary, check_band);
}

static int relop(enum tok_kind k)
{
	switch (k) {
	case T_EQ: return USDTKIT_FOP_EQ;
	case T_NE: return USDTKIT_FOP_NE;
	case T_LT: return USDTKIT_FOP_LT;
	case T_LE: return USDTKIT_FOP_LE;
	case T_GT: return USDTKIT_FOP_GT;
	case T_GE: return USDTKIT_FOP_GE;
	default: return -1;
	}
}

/* str(argN) == "..." in either order: one N_STR node */
static int make_str_cmp(struct parser *p, int l, int r, int op, int col)
{
	const struct node *ref, *lit;
	int i;

	if (N(p, l)->kind == N_STRREF && N(p, r)->kind == N_STRLIT) {
		ref = N(p, l);
		lit = N(p, r);
	} else if (N(p, l)->kind == N_STRLIT && N(p, r)->kind == N_STRREF) {
		ref = N(p, r);
		lit = N(p, l);
	} else if (N(p, l)->kind == N_ARG || N(p, r)->kind == N_ARG) {
		/* argN == "x": the string argN points to is str(argN) */
		ref = N(p, N(p, l)->kind == N_ARG ? l : r);
		lit = N(p, N(p, l)->kind == N_ARG ? r : l);
		if (lit->kind == N_STRLIT)
			return set_err(p->err, lit->col, "a string is only compared with "
				       "== or != to str(argN) (the string arg%d points to is "
				       "str(arg%d))", ref->arg, ref->arg);
		return need_value(p, N(p, l)->kind >= N_STRREF ? l : r);
	} else {
		return need_value(p, N(p, l)->kind >= N_STRREF ? l : r);
	}
	if (op != USDTKIT_FOP_EQ && op != USDTKIT_FOP_NE)
		return set_err(p->err, col, "strings compare only with == or !=");
	i = new_node(p, N_STR, ref->col);
	if (i < 0)
		return i;
	/* new_node may not move the nodes: they are an array in place */
	N(p, i)->arg = ref->arg;
	N(p, i)->argcol = ref->argcol;
	memcpy(N(p, i)->pat, lit->pat, sizeof(lit->pat));
	N(p, i)->len = lit->len;
	N(p, i)->prefix = lit->prefix;
	N(p, i)->neg = op == USDTKIT_FOP_NE;
	return i;
}

static int parse_cmp(struct parser *p)
{
	int l, r, i, op, col, ret;

	l = parse_band(p);
	if (l < 0)
		return l;
	op = relop(p->cur.kind);
	if (op < 0)
		return l;
	col = p->cur.col;
	ret = lex(p);
	if (ret)
		return ret;
	r = parse_band(p);
	if (r < 0)
		return r;
	if (relop(p->cur.kind) >= 0)
		return set_err(p->err, p->cur.col,
			       "comparisons do not chain (join them with && or ||)");
	if (N(p, l)->kind == N_STRREF || N(p, l)->kind == N_STRLIT ||
	    N(p, r)->kind == N_STRREF || N(p, r)->kind == N_STRLIT)
		return make_str_cmp(p, l, r, op, col);
	ret = need_value(p, l);
	if (!ret)
		ret = need_value(p, r);
	if (ret)
		return ret;
	i = new_node(p, N_CMP, col);
	if (i < 0)
		return i;
	N(p, i)->op = (unsigned char)op;
	N(p, i)->start = N(p, l)->start;
	N(p, i)->l = l;
	N(p, i)->r = r;
	return i;
}

static int parse_and(struct parser *p)
{
	return parse_chain(p, T_LAND, N_AND, parse_cmp, check_logic);
}

static int parse_or(struct parser *p)
{
	return parse_chain(p, T_LOR, N_OR, parse_and, check_logic);
}

int usdtkit__filter_parse(const char *expr, struct filter_expr **out,
		       struct usdtkit_trace_filter_err *err)
{
	struct parser p = { .s = expr, .err = err };
	char d[64], h[48];
	int root, ret;

	*out = NULL;
	if (!expr)
		return set_err(err, 1, "empty expression");
	p.e = calloc(1, sizeof(*p.e));
	if (!p.e) {
		set_err(err, 1, "out of memory");
		return -ENOMEM;
	}
	ret = lex(&p);
	if (ret)
		goto fail;
	if (p.cur.kind == T_END) {
		ret = set_err(err, 1, "empty expression");
		goto fail;
	}
	root = parse_or(&p);
	if (root >= 0 && p.cur.kind != T_END)
		root = set_err(err, p.cur.col,
			       "unexpected %s after a complete expression%s",
			       tok_desc(&p, d, sizeof(d)), word_hint(&p, h, sizeof(h)));
	root = root < 0 ? root : need_cond(&p, root);
	if (root < 0) {
		ret = root;
		goto fail;
	}
	p.e->root = root;
	*out = p.e;
	return 0;
fail:
	free(p.e);
	return ret;
}

void usdtkit__filter_free(struct filter_expr *e)
{
	free(e);
}

/* ---- compiling for one probe ---- */

#define L_ACCEPT	0
#define L_REJECT	1
#define FILTER_MAX_LABELS	(FILTER_MAX_NODES + 2)

struct compiler {
	const struct filter_expr *e;
	const struct usdtkit_trace_type *args;
	int nargs;
	struct usdtkit_filter *f;
	struct usdtkit_trace_filter_err *err;
	/* jumps name labels until the end, when every label is bound */
	int jt[USDTKIT_FILTER_MAX_INSNS], jf[USDTKIT_FILTER_MAX_INSNS];
	int label[FILTER_MAX_LABELS];	/* its instruction, -1: unbound */
	int nlabels;
	unsigned int nstrs;
};

/* An operand, resolved for this probe. */
struct operand {
	bool is_const;
	/* is_const: the constant is negative; otherwise the value can be */
	bool neg;
	struct usdtkit_filter_opnd o;
};

static const struct node *C(const struct compiler *c, int i)
{
	return &c->e->nodes[i];
}

/* argN of this probe, one it has and that is an integer */
static int check_arg(struct compiler *c, int arg, int col)
{
	if (arg >= c->nargs)
		return set_err(c->err, col, "arg%d: probe has %d argument%s",
			       arg, c->nargs, c->nargs == 1 ? "" : "s");
	if (c->args[arg].is_float)
		return set_err(c->err, col,
			       "arg%d is a floating-point argument: filters compare integers",
			       arg);
	return 0;
}

static int resolve(struct compiler *c, int i, struct operand *out)
{
	const struct node *n = C(c, i);
	struct operand l, r, *k, *v;
	int ret;

	memset(out, 0, sizeof(*out));
	out->o.val = FILTER_NO_MASK;
	switch (n->kind) {
	case N_NUM:
		out->is_const = true;
		out->neg = n->neg;
		out->o.kind = USDTKIT_FSRC_CONST;
		out->o.val = n->val;
		return 0;
	case N_ARG:
		ret = check_arg(c, n->arg, n->col);
		if (ret)
			return ret;
		out->neg = c->args[n->arg].is_signed;
		out->o.kind = USDTKIT_FSRC_ARG;
		out->o.arg = (unsigned char)n->arg;
		return 0;
	case N_PID:
	case N_TID:
		out->o.kind = n->kind == N_PID ? USDTKIT_FSRC_PID : USDTKIT_FSRC_TID;
		return 0;
	case N_BAND:
		ret = resolve(c, n->l, &l);
		if (!ret)
			ret = resolve(c, n->r, &r);
		if (ret)
			return ret;
		/* the parser saw to it that one side is a constant */
		k = r.is_const ? &r : &l;
		v = r.is_const ? &l : &r;
		*out = *v;
		out->o.val = v->o.val & k->o.val;
		out->neg = v->neg && k->neg;
		return 0;
	default:
		return set_err(c->err, n->col, "internal error: not a value");
	}
}

/* -1, 0, 1: how @a orders against @b as integers, for constants and
 * for a value of a known sign against a constant */
static int order(const struct operand *a, const struct operand *b)
{
	bool an = a->neg && (long long)a->o.val < 0;
	bool bn = b->neg && (long long)b->o.val < 0;

	if (an != bn)
		return an ? -1 : 1;
	if (an)
		return (long long)a->o.val < (long long)b->o.val ? -1 :
		       a->o.val != b->o.val;
	return a->o.val < b->o.val ? -1 : a->o.val != b->o.val;
}

static int holds(int op, int ord)
{
	switch (op) {
	case USDTKIT_FOP_EQ: return ord == 0;
	case USDTKIT_FOP_NE: return ord != 0;
	case USDTKIT_FOP_LT: return ord < 0;
	case USDTKIT_FOP_LE: return ord <= 0;
	case USDTKIT_FOP_GT: return ord > 0;
	default: return ord >= 0;
	}
}

/* A comparison whose outcome is known for this probe: 0 or 1; 2 when
 * it takes an instruction; <0 on error. The rules are at the top. */
static int fold_cmp(struct compiler *c, const struct node *n,
		    struct operand *l, struct operand *r)
{
	const struct operand *k, *v;
	int ret;

	ret = resolve(c, n->l, l);
	if (!ret)
		ret = resolve(c, n->r, r);
	if (ret)
		return ret;
	if (l->is_const && r->is_const)
		return holds(n->op, order(l, r));
	if (!l->is_const && !r->is_const)
		return 2;
	k = l->is_const ? l : r;
	v = l->is_const ? r : l;
	/* a value that can be negative is below 2^63 and up; one that
	 * cannot is above every negative constant */
	if ((v->neg && !k->neg && k->o.val >> 63) || (!v->neg && k->neg))
		return holds(n->op, v == l ? (k->neg ? 1 : -1) :
						(k->neg ? -1 : 1));
	return 2;
}

/* A condition's value if known for this probe (0, 1), 2 if not, or an
 * error: every argument is checked, even in a part that folds away. */
static int known(struct compiler *c, int i)
{
	const struct node *n = C(c, i);
	struct operand l, r;
	int a, b;

	switch (n->kind) {
	case N_CMP:
		return fold_cmp(c, n, &l, &r);
	case N_STR:
		a = check_arg(c, n->arg, n->argcol);
		return a ? a : 2;
	case N_NOT:
		a = known(c, n->l);
		return a < 0 || a == 2 ? a : !a;
	case N_AND:
	case N_OR:
		a = known(c, n->l);
		b = a < 0 ? a : known(c, n->r);
		if (b < 0)
			return b;
		/* the value that decides: false for &&, true for || */
		if (a == (n->kind == N_OR) || b == (n->kind == N_OR))
			return n->kind == N_OR;
		return a == 2 || b == 2 ? 2 : n->kind == N_AND;
	default:
		return set_err(c->err, n->col, "internal error: not a condition");
	}
}

static int emit(struct compiler *c, const struct node *n, int t, int f,
		struct usdtkit_filter_insn **out)
{
	struct usdtkit_filter *fl = c->f;

	if (fl->ninsns >= USDTKIT_FILTER_MAX_INSNS)
		return set_err(c->err, n->col,
			       "too many comparisons: a filter holds at most %d",
			       USDTKIT_FILTER_MAX_INSNS);
	c->jt[fl->ninsns] = t;
	c->jf[fl->ninsns] = f;
	*out = &fl->insns[fl->ninsns++];
	return 0;
}

static int emit_cmp(struct compiler *c, const struct node *n, int t, int f)
{
	struct usdtkit_filter_insn *in = NULL;
	struct operand l, r;
	int ret;

	ret = fold_cmp(c, n, &l, &r);
	if (ret < 0)
		return ret;
	ret = emit(c, n, t, f, &in);
	if (ret)
		return ret;
	in->op = n->op;
	if (l.neg || r.neg)
		in->flags = USDTKIT_FF_SIGNED;
	in->l = l.o;
	in->r = r.o;
	return 0;
}

/* the pattern's slot: patterns of the same text share one */
static int str_slot(struct compiler *c, const struct node *n)
{
	struct usdtkit_filter_str *s;
	unsigned int i;

	for (i = 0; i < c->nstrs; i++) {
		s = &c->f->strs[i];
		if (s->len == n->len && !memcmp(s->s, n->pat, n->len))
			return (int)i;
	}
	if (c->nstrs >= USDTKIT_FILTER_MAX_STRS)
		return set_err(c->err, n->col,
			       "too many strings: a filter holds at most %d patterns",
			       USDTKIT_FILTER_MAX_STRS);
	s = &c->f->strs[c->nstrs];
	s->len = n->len;
	memcpy(s->s, n->pat, n->len);
	return (int)c->nstrs++;
}

static int emit_str(struct compiler *c, const struct node *n, int t, int f)
{
	struct usdtkit_filter_insn *in = NULL;
	int slot, ret;

	ret = check_arg(c, n->arg, n->argcol);
	if (ret)
		return ret;
	slot = str_slot(c, n);
	if (slot < 0)
		return slot;
	/* != is == with its jumps swapped */
	ret = emit(c, n, n->neg ? f : t, n->neg ? t : f, &in);
	if (ret)
		return ret;
	in->op = n->prefix ? USDTKIT_FOP_STR_PREFIX : USDTKIT_FOP_STR_EQ;
	in->str = (unsigned char)slot;
	in->l.kind = USDTKIT_FSRC_ARG;
	in->l.arg = (unsigned char)n->arg;
	in->l.val = FILTER_NO_MASK;
	return 0;
}

static int new_label(struct compiler *c)
{
	/* at most one per && and || node, so the array is large enough */
	c->label[c->nlabels] = -1;
	return c->nlabels++;
}

static int gen(struct compiler *c, int i, int t, int f);

/* a && b: a false jumps to f, a true falls into b; a || b: a true jumps
 * to t, a false falls into b. A side known to be neutral (true for &&,
 * false for ||) takes no code; known() saw to it that neither side is
 * decisive, or the whole node would be known. */
static int gen_logic(struct compiler *c, const struct node *n, int t, int f)
{
	bool is_or = n->kind == N_OR;
	int a = known(c, n->l), b = known(c, n->r), mid, ret;

	if (a < 0 || b < 0)
		return a < 0 ? a : b;
	if (a != 2)
		return gen(c, n->r, t, f);
	if (b != 2)
		return gen(c, n->l, t, f);
	mid = new_label(c);
	ret = is_or ? gen(c, n->l, t, mid) : gen(c, n->l, mid, f);
	if (ret)
		return ret;
	c->label[mid] = (int)c->f->ninsns;
	return gen(c, n->r, t, f);
}

/* the code of condition @i, known() == 2: to label t if it holds,
 * to f if not */
static int gen(struct compiler *c, int i, int t, int f)
{
	const struct node *n = C(c, i);

	switch (n->kind) {
	case N_CMP:
		return emit_cmp(c, n, t, f);
	case N_STR:
		return emit_str(c, n, t, f);
	case N_NOT:
		return gen(c, n->l, f, t);
	case N_AND:
	case N_OR:
		return gen_logic(c, n, t, f);
	default:
		return set_err(c->err, n->col, "internal error: not a condition");
	}
}

/* labels to instructions; each jump must go forward */
static int resolve_jumps(struct compiler *c)
{
	unsigned int i;
	int *lab[2], k, to;

	for (i = 0; i < c->f->ninsns; i++) {
		struct usdtkit_filter_insn *in = &c->f->insns[i];
		unsigned char *dst[2] = { &in->jt, &in->jf };

		lab[0] = &c->jt[i];
		lab[1] = &c->jf[i];
		for (k = 0; k < 2; k++) {
			if (*lab[k] == L_ACCEPT) {
				*dst[k] = USDTKIT_FILTER_ACCEPT;
				continue;
			}
			if (*lab[k] == L_REJECT) {
				*dst[k] = USDTKIT_FILTER_REJECT;
				continue;
			}
			to = c->label[*lab[k]];
			if (to <= (int)i || to >= (int)c->f->ninsns)
				return set_err(c->err, 1,
					       "internal error: a jump from %u to %d", i, to);
			*dst[k] = (unsigned char)to;
		}
	}
	return 0;
}

int usdtkit__filter_compile(const struct filter_expr *e,
			 const struct usdtkit_trace_type *args, int nargs,
			 struct usdtkit_filter *out, struct usdtkit_trace_filter_err *err)
{
	struct compiler c = {
		.e = e, .args = args, .nargs = nargs, .f = out, .err = err,
	};
	int k, ret;

	memset(out, 0, sizeof(*out));
	if (!e)
		return set_err(err, 1, "empty expression");
	if (c.nargs < 0 || !args)
		c.nargs = 0;
	if (c.nargs > USDTKIT_BPF_MAX_ARGS)
		c.nargs = USDTKIT_BPF_MAX_ARGS;
	c.label[L_ACCEPT] = c.label[L_REJECT] = -1;
	c.nlabels = 2;
	k = known(&c, e->root);
	if (k < 0) {
		ret = k;
	} else if (k == 1) {
		/* always true: no program, every hit is kept */
		return 0;
	} else if (k == 0) {
		/* always false: one instruction that rejects either way */
		out->ninsns = 1;
		out->insns[0].jt = out->insns[0].jf = USDTKIT_FILTER_REJECT;
		return 0;
	} else {
		ret = gen(&c, e->root, L_ACCEPT, L_REJECT);
		if (!ret)
			ret = resolve_jumps(&c);
	}
	if (ret)
		memset(out, 0, sizeof(*out));
	return ret;
}

int usdtkit_trace_filter_check(const char *expr, struct usdtkit_trace_filter_err *err)
{
	struct usdtkit_trace_filter_err local = { 0 };
	struct filter_expr *e;
	int ret;

	ret = usdtkit__filter_parse(expr, &e, err ? err : &local);
	usdtkit__filter_free(e);
	return ret;
}
