// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A small demangler of the Itanium C++ ABI's "_Z" names, for where
 * libstdc++'s __cxa_demangle() cannot be had (the static CLI of the
 * boards, or no libstdc++ on the host): see demangle.c.
 *
 * It covers what the frames of real programs are named with, and prints
 * each name exactly as __cxa_demangle() does (its spacing, " >", the
 * std:: abbreviations, literals, " [clone .cold]"), which
 * tests/elf/test_demangle.c checks name by name on libstdc++ itself.
 * Everything else is refused (-EINVAL) rather than guessed: a wrong
 * name on a stack is worse than a mangled one, which the caller keeps.
 *
 * Names come from symbol tables of any process, so they are hostile
 * input: every read is bounded by the string's end, recursion by
 * MAX_DEPTH, and all state (the text, the substitution and template
 * argument tables, as copies of text) lives in one fixed-size struct
 * allocated once per call. Function and array types, pointers to
 * members, lambdas, unnamed types, decltype, expressions and pack
 * expansions are refused: each would need the demangler's tree, which
 * a stack's names do not justify. So are the malformed names that
 * __cxa_demangle() prints by rules of its tree (qualifiers merged,
 * references collapsed, T_ resolved against later args): the test
 * runs truncated and mutated names of libstdc++ to find them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "elf/demangle.h"

#define MAX_DEPTH	64	/* nesting of types, names and arguments */
#define OUT_MAX		4096	/* the demangled text */
#define ARENA_MAX	16384	/* copies of substitutions and arguments */
#define MAX_SUBS	256
#define MAX_TARGS	64

/* a piece of the arena: a substitution's or a template argument's text */
struct piece {
	unsigned int off, len;
	bool ref;		/* a reference type: refused under P, R, O, K */
	bool pack;		/* a template argument pack: refused as T_ */
	bool tparam;		/* a T_: its text is not its class's name */
	bool cv;		/* a cv-qualified type: refused under K */
};

struct dm {
	const char *p, *end;
	unsigned int depth;
	unsigned int tdepth;	/* template argument lists open */
	bool in_name;		/* in an encoding's name: args set T_ */
	bool ends_tmpl;		/* the name so far ends with template args */
	bool cvq;		/* the type just read is cv-qualified */
	bool cdc;		/* its last component is a ctor, dtor, cv */
	size_t len;
	char out[OUT_MAX];
	size_t alen;
	char arena[ARENA_MAX];
	unsigned int nsubs, ntargs;
	struct piece subs[MAX_SUBS];
	struct piece targs[MAX_TARGS];
};

/* ---- reading and writing, every step bounded ---- */

static char peek(const struct dm *d, size_t i)
{
	return (size_t)(d->end - d->p) > i ? d->p[i] : '\0';
}

static bool eat(struct dm *d, char c)
{
	if (peek(d, 0) != c)
		return false;
	d->p++;
	return true;
}

static int put(struct dm *d, const char *s, size_t n)
{
	if (n > OUT_MAX - d->len)
		return -ENOSPC;
	memcpy(d->out + d->len, s, n);
	d->len += n;
	return 0;
}

static int puts_(struct dm *d, const char *s)
{
	return put(d, s, strlen(s));
}

static char last(const struct dm *d)
{
	return d->len ? d->out[d->len - 1] : '\0';
}

/* out[from, len) copied to the arena as a piece */
static int save(struct dm *d, size_t from, bool ref, struct piece *pc)
{
	size_t n = d->len - from;

	if (n > ARENA_MAX - d->alen)
		return -ENOSPC;
	memcpy(d->arena + d->alen, d->out + from, n);
	pc->off = (unsigned int)d->alen;
	pc->len = (unsigned int)n;
	pc->ref = ref;
	pc->pack = false;
	pc->tparam = false;
	pc->cv = false;
	d->alen += n;
	return 0;
}

/* the ABI's substitution candidate out[from, len) */
static int add_sub(struct dm *d, size_t from, bool ref)
{
	if (d->nsubs >= MAX_SUBS)
		return -EINVAL;
	return save(d, from, ref, &d->subs[d->nsubs++]);
}

static int put_piece(struct dm *d, const struct piece *pc)
{
	return put(d, d->arena + pc->off, pc->len);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_lower(char c)
{
	return c >= 'a' && c <= 'z';
}

/* a decimal <number> (no sign), bounded well below overflow */
static int number(struct dm *d, size_t *n)
{
	size_t v = 0;

	if (!is_digit(peek(d, 0)))
		return -EINVAL;
	if (peek(d, 0) == '0' && is_digit(peek(d, 1)))
		return -EINVAL;
	while (is_digit(peek(d, 0))) {
		v = v * 10 + (size_t)(*d->p++ - '0');
		if (v > 1000000)
			return -EINVAL;
	}
	*n = v;
	return 0;
}

static void reverse(char *s, size_t i, size_t j)	/* s[i, j) */
{
	char t;

	while (j > i + 1) {
		t = s[i];
		s[i++] = s[--j];
		s[j] = t;
	}
}

/* out[a, len) rotated so that out[b, len) comes first: a return type is
 * read after the name it is printed before */
static void rotate(struct dm *d, size_t a, size_t b)
{
	reverse(d->out, a, b);
	reverse(d->out, b, d->len);
	reverse(d->out, a, d->len);
}

/* ---- tables: the ABI's facts ---- */

/* builtin types; @lit: how __cxa_demangle prints a literal of the type:
 * NULL "(type)value", "" value, else value and the suffix */
struct builtin {
	const char *code, *name, *lit;
};

static const struct builtin builtins[] = {
	{ "v", "void", NULL },		{ "w", "wchar_t", NULL },
	{ "b", "bool", NULL },		{ "c", "char", NULL },
	{ "a", "signed char", NULL },	{ "h", "unsigned char", NULL },
	{ "s", "short", NULL },		{ "t", "unsigned short", NULL },
	{ "i", "int", "" },		{ "j", "unsigned int", "u" },
	{ "l", "long", "l" },		{ "m", "unsigned long", "ul" },
	{ "x", "long long", "ll" },	{ "y", "unsigned long long", "ull" },
	{ "n", "__int128", NULL },	{ "o", "unsigned __int128", NULL },
	{ "f", "float", NULL },		{ "d", "double", NULL },
	{ "e", "long double", NULL },	{ "g", "__float128", NULL },
	{ "z", "...", NULL },
	{ "Dn", "decltype(nullptr)", NULL }, { "Di", "char32_t", NULL },
	{ "Ds", "char16_t", NULL },	{ "Du", "char8_t", NULL },
	{ "Da", "auto", NULL },		{ "Dc", "decltype(auto)", NULL },
};

static const struct builtin *find_builtin(const struct dm *d)
{
	size_t i, n;

	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++) {
		n = strlen(builtins[i].code);
		if (peek(d, 0) == builtins[i].code[0] &&
		    (n == 1 || peek(d, 1) == builtins[i].code[1]))
			return &builtins[i];
	}
	return NULL;
}

/* operator names, printed after "operator" (a space before a word) */
static const char *const operators[][2] = {
	{ "nw", "new" }, { "na", "new[]" }, { "dl", "delete" },
	{ "da", "delete[]" }, { "ps", "+" }, { "ng", "-" }, { "ad", "&" },
	{ "de", "*" }, { "co", "~" }, { "pl", "+" }, { "mi", "-" },
	{ "ml", "*" }, { "dv", "/" }, { "rm", "%" }, { "an", "&" },
	{ "or", "|" }, { "eo", "^" }, { "aS", "=" }, { "pL", "+=" },
	{ "mI", "-=" }, { "mL", "*=" }, { "dV", "/=" }, { "rM", "%=" },
	{ "aN", "&=" }, { "oR", "|=" }, { "eO", "^=" }, { "ls", "<<" },
	{ "rs", ">>" }, { "lS", "<<=" }, { "rS", ">>=" }, { "eq", "==" },
	{ "ne", "!=" }, { "lt", "<" }, { "gt", ">" }, { "le", "<=" },
	{ "ge", ">=" }, { "ss", "<=>" }, { "nt", "!" }, { "aa", "&&" },
	{ "oo", "||" }, { "pp", "++" }, { "mm", "--" }, { "cm", "," },
	{ "pm", "->*" }, { "pt", "->" }, { "cl", "()" }, { "ix", "[]" },
};

/* the std:: abbreviations: their text, and as a prefix of a ctor or
 * dtor, the full name and the class's own name */
struct abbrev {
	char code;
	const char *text, *full, *cls;
};

static const struct abbrev abbrevs[] = {
	{ 'a', "std::allocator", "std::allocator", "allocator" },
	{ 'b', "std::basic_string", "std::basic_string", "basic_string" },
	{ 's', "std::string",
	  "std::basic_string<char, std::char_traits<char>, std::allocator<char> >",
	  "basic_string" },
	{ 'i', "std::istream", "std::basic_istream<char, std::char_traits<char> >",
	  "basic_istream" },
	{ 'o', "std::ostream", "std::basic_ostream<char, std::char_traits<char> >",
	  "basic_ostream" },
	{ 'd', "std::iostream",
	  "std::basic_iostream<char, std::char_traits<char> >", "basic_iostream" },
};

/* special names: a text, then what follows (a type, a name, an encoding) */
enum follows { F_TYPE, F_NAME, F_THUNK, F_COVARIANT, F_TCLONE };

static const struct special {
	const char *code, *text;
	enum follows what;
} specials[] = {
	{ "TV", "vtable for ", F_TYPE }, { "TT", "VTT for ", F_TYPE },
	{ "TI", "typeinfo for ", F_TYPE }, { "TS", "typeinfo name for ", F_TYPE },
	{ "GV", "guard variable for ", F_NAME },
	{ "TH", "TLS init function for ", F_NAME },
	{ "TW", "TLS wrapper function for ", F_NAME },
	{ "Th", "non-virtual thunk to ", F_THUNK },
	{ "Tv", "virtual thunk to ", F_THUNK },
	{ "Tc", "covariant return thunk to ", F_COVARIANT },
	{ "GT", "transaction clone for ", F_TCLONE },
};

/* ---- the grammar ---- */

static int type(struct dm *d, bool *ref);
static int name(struct dm *d, bool *cv, unsigned int *quals, char *refq);
static int encoding(struct dm *d);

static int enter(struct dm *d)
{
	return ++d->depth > MAX_DEPTH ? -EINVAL : 0;
}

/* <source-name>: <length> <identifier> */
static int source_name(struct dm *d)
{
	size_t n;
	int err = number(d, &n);

	if (err)
		return err;
	if (!n || n > (size_t)(d->end - d->p))
		return -EINVAL;
	/* "_GLOBAL_" [._$] "N": an anonymous namespace */
	if (n >= 10 && !strncmp(d->p, "_GLOBAL_", 8) &&
	    (d->p[8] == '.' || d->p[8] == '_' || d->p[8] == '$') &&
	    d->p[9] == 'N')
		err = puts_(d, "(anonymous namespace)");
	else
		err = put(d, d->p, n);
	d->p += n;
	return err;
}

/* [<ABI tag>...]: B <source-name>, printed "[abi:tag]" */
static int abi_tags(struct dm *d)
{
	int err = 0;

	while (!err && eat(d, 'B')) {
		err = puts_(d, "[abi:");
		if (!err)
			err = source_name(d);
		if (!err)
			err = puts_(d, "]");
	}
	return err;
}

static int operator_name(struct dm *d, bool *cv)
{
	size_t i;
	bool r;
	int err;

	if (peek(d, 0) == 'c' && peek(d, 1) == 'v') {
		/* a conversion: "operator int" */
		d->p += 2;
		*cv = true;
		err = puts_(d, "operator ");
		return err ? err : type(d, &r);
	}
	for (i = 0; i < sizeof(operators) / sizeof(operators[0]); i++) {
		if (peek(d, 0) != operators[i][0][0] ||
		    peek(d, 1) != operators[i][0][1])
			continue;
		d->p += 2;
		err = puts_(d, is_lower(operators[i][1][0]) ?
			    "operator " : "operator");
		return err ? err : puts_(d, operators[i][1]);
	}
	return -EINVAL;
}

/*
 * <unqualified-name>: a source name, an operator, "L" (internal
 * linkage, not printed) and a source name; then ABI tags. @cv: it was a
 * conversion operator.
 */
static int unqualified_name(struct dm *d, bool *cv)
{
	int err;

	*cv = false;
	if (eat(d, 'L') && !is_digit(peek(d, 0)))
		return -EINVAL;
	if (is_digit(peek(d, 0)))
		err = source_name(d);
	else if (is_lower(peek(d, 0)))
		err = operator_name(d, cv);
	else
		return -EINVAL;	/* Ut, Ul, DC, and the rest */
	return err ? err : abi_tags(d);
}

/* <seq-id> _ : base 36, S_ is 0, S0_ is 1 */
static int seq_id(struct dm *d, size_t *idx)
{
	size_t v = 0;
	char c;

	if (eat(d, '_')) {
		*idx = 0;
		return 0;
	}
	while ((c = peek(d, 0)) != '_') {
		if (is_digit(c))
			v = v * 36 + (size_t)(c - '0');
		else if (c >= 'A' && c <= 'Z')
			v = v * 36 + (size_t)(c - 'A' + 10);
		else
			return -EINVAL;
		if (v > MAX_SUBS)
			return -EINVAL;
		d->p++;
	}
	d->p++;
	*idx = v + 1;
	return 0;
}

/*
 * <substitution>, the S already read: an earlier piece (@ref: it is a
 * reference type) or a std:: abbreviation (@abbrev), in full when a
 * ctor or dtor follows (@prefix). "St" is not one: the caller's.
 */
static int substitution(struct dm *d, bool prefix, bool *ref, bool *abbrev,
			bool *tparam)
{
	size_t i, idx;
	int err;

	*ref = false;
	*abbrev = false;
	*tparam = false;
	for (i = 0; i < sizeof(abbrevs) / sizeof(abbrevs[0]); i++) {
		if (peek(d, 0) != abbrevs[i].code)
			continue;
		d->p++;
		*abbrev = true;
		/* std::string<...>: no template, and its ctor's name would be
		 * "basic_string" where we read "string" */
		if (abbrevs[i].text != abbrevs[i].full && peek(d, 0) == 'I')
			return -EINVAL;
		if (prefix && (peek(d, 0) == 'C' || peek(d, 0) == 'D'))
			return puts_(d, abbrevs[i].full);
		return puts_(d, abbrevs[i].text);
	}
	err = seq_id(d, &idx);
	if (err)
		return err;
	if (idx >= d->nsubs)
		return -EINVAL;
	*ref = d->subs[idx].ref;
	*tparam = d->subs[idx].tparam;
	d->cvq = d->subs[idx].cv;
	return put_piece(d, &d->subs[idx]);
}

/* <template-param>: T_ T0_ ..., the T already read; @ref, d->cvq:
 * what its argument is, for collapsing, which we refuse */
static int template_param(struct dm *d, bool *ref)
{
	size_t n = 0;
	int err = 0;

	/* in the encoding's own name, T_ is resolved against args not
	 * read yet (__cxa_demangle prints it late): refused */
	if (d->in_name)
		return -EINVAL;
	if (!eat(d, '_')) {
		err = number(d, &n);
		if (err || !eat(d, '_'))
			return -EINVAL;
		n++;
	}
	if (n >= d->ntargs || d->targs[n].pack)
		return -EINVAL;
	*ref = d->targs[n].ref;
	d->cvq = d->targs[n].cv;
	return put_piece(d, &d->targs[n]);
}

/* L <builtin type> [n] <number> E, as __cxa_demangle prints it */
static int class_type(struct dm *d);

/* the "(type)" of a literal of a class (enum) type: L <name> <number> E */
static int enum_literal(struct dm *d)
{
	int err = puts_(d, "(");

	if (!err)
		err = class_type(d);
	return err ? err : puts_(d, ")");
}

static int literal(struct dm *d)
{
	const struct builtin *b = find_builtin(d);
	const char *v;
	bool neg;
	int err;

	if (!b && (is_digit(peek(d, 0)) || peek(d, 0) == 'N')) {
		if ((err = enum_literal(d)))
			return err;
	} else if (!b || b->code[1] || !strchr("bwcahstijlmxyno", b->code[0])) {
		/* floats print their bytes ("(float)[0]"): refused */
		return -EINVAL;
	} else {
		d->p += strlen(b->code);
	}
	neg = eat(d, 'n');
	v = d->p;
	while (is_digit(peek(d, 0)))
		d->p++;
	if (v == d->p || !eat(d, 'E'))
		return -EINVAL;
	if (b && b->code[0] == 'b' && !neg && d->p - v == 2 && (*v == '0' || *v == '1'))
		return puts_(d, *v == '1' ? "true" : "false");
	if (b && !b->lit) {
		err = puts_(d, "(");
		if (!err)
			err = puts_(d, b->name);
		if (!err)
			err = puts_(d, ")");
		if (err)
			return err;
	}
	err = puts_(d, neg ? "-" : "");
	if (!err)
		err = put(d, v, (size_t)(d->p - 1 - v));
	if (!err && b && b->lit)
		err = puts_(d, b->lit);
	return err;
}

/* one <template-arg>: a type, a literal, a pack of either (J...E) */
static int template_arg(struct dm *d, bool *pack, bool *ref, bool *cv)
{
	int n = 0, err;

	*pack = false;
	*ref = false;
	*cv = false;
	if (eat(d, 'L'))
		return peek(d, 0) == '_' ? -EINVAL : literal(d);
	if (!eat(d, 'J')) {
		err = type(d, ref);
		*cv = d->cvq;
		return err;
	}
	*pack = true;
	while (!eat(d, 'E')) {
		bool inner;

		if (n++ && (err = puts_(d, ", ")))
			return err;
		err = template_arg(d, &inner, ref, cv);
		if (err < 0)
			return err;
		if (err || inner)
			return -EINVAL;
	}
	/* an empty pack prints as nothing: only certain as the only arg */
	return n ? 0 : 1;
}

/*
 * <template-args>: I <arg>+ E, printed "<a, b>" (" >" after a '>', and
 * after "operator<" a space first). In an encoding's name, outside other
 * arguments, they become what T_ refers to.
 */
static int template_args(struct dm *d)
{
	struct piece t[MAX_TARGS];
	unsigned int n = 0;
	bool top = d->in_name && !d->tdepth, pack, ref, cv, empty = false;
	size_t from;
	int err;

	if (!eat(d, 'I'))
		return -EINVAL;
	/* "operator< <int>", not "operator<<int>" */
	if ((err = puts_(d, last(d) == '<' ? " <" : "<")))
		return err;
	d->tdepth++;
	while (!eat(d, 'E')) {
		if (n >= MAX_TARGS || empty)
			return -EINVAL;
		if (n && (err = puts_(d, ", ")))
			return err;
		from = d->len;
		err = template_arg(d, &pack, &ref, &cv);
		if (err < 0)
			return err;
		empty = err == 1;
		if (empty && n)
			return -EINVAL;
		if (top && (err = save(d, from, ref, &t[n])))
			return err;
		t[n].cv = cv;
		t[n++].pack = pack;
	}
	d->tdepth--;
	if (!n)
		return -EINVAL;
	if (top) {
		memcpy(d->targs, t, n * sizeof(t[0]));
		d->ntargs = n;
	}
	return puts_(d, last(d) == '>' ? " >" : ">");
}

/*
 * The name of the class whose ctor or dtor is out[from, len): its last
 * component without its template arguments and ABI tags; refused
 * unless it is an identifier.
 */
static int class_name(const struct dm *d, size_t from, size_t *s, size_t *e)
{
	size_t end = d->len, i;
	int depth = 0;

	if (end > from && d->out[end - 1] == '>') {
		for (i = end; i > from; i--) {
			char c = d->out[i - 1];

			depth += c == '>' ? 1 : c == '<' ? -1 : 0;
			if (!depth) {
				end = i - 1;
				break;
			}
		}
		if (depth)
			return -EINVAL;
	}
	/* and without its ABI tags: "failure[abi:cxx11]" is "failure" */
	while (end > from && d->out[end - 1] == ']') {
		for (i = end; i > from && d->out[i - 1] != '['; i--)
			;
		if (i == from || end - (i - 1) < 6 ||
		    strncmp(d->out + i - 1, "[abi:", 5))
			return -EINVAL;
		end = i - 1;
	}
	for (i = end; i > from && d->out[i - 1] != ':'; i--) {
		char c = d->out[i - 1];

		if (!(is_digit(c) || is_lower(c) || (c >= 'A' && c <= 'Z') ||
		      c == '_' || c == '$'))
			return -EINVAL;
	}
	if (i == end)
		return -EINVAL;
	*s = i;
	*e = end;
	return 0;
}

/* <ctor-dtor-name>: C1 C2 C3, D0 D1 D2, of the class out[from, len) */
static int ctor_dtor(struct dm *d, size_t from)
{
	bool dtor = peek(d, 0) == 'D';
	char k = peek(d, 1);
	size_t s, e;
	int err;

	if (dtor ? (k < '0' || k > '2') : (k < '1' || k > '3'))
		return -EINVAL;
	d->p += 2;
	err = class_name(d, from, &s, &e);
	if (!err)
		err = puts_(d, dtor ? "::~" : "::");
	if (!err)
		err = put(d, d->out + s, e - s);	/* [s, e) is before len */
	return err ? err : abi_tags(d);
}

/*
 * <nested-name>: N [<CV-qualifiers>] [<ref-qualifier>] <prefix>
 * <unqualified-name> E, the N already read. Every prefix but the whole
 * name is a substitution candidate; a substitution is not added again.
 */
static int nested_name(struct dm *d, unsigned int *quals, char *refq)
{
	size_t from = d->len;
	bool first = true, cv = false, op = false;
	bool cls = false;	/* a class's name ends here: a ctor may follow */
	int err = 0;

	*quals = 0;
	*refq = 0;
	/* in the ABI's order r V K; bits: 1 restrict, 2 volatile, 4 const */
	if (eat(d, 'r'))
		*quals |= 1;
	if (eat(d, 'V'))
		*quals |= 2;
	if (eat(d, 'K'))
		*quals |= 4;
	if (peek(d, 0) == 'R' || peek(d, 0) == 'O')
		*refq = *d->p++;
	while (!eat(d, 'E')) {
		bool subst = false, ref, abbrev, stp;
		char c = peek(d, 0);

		/* an operator ends a name, but for its template args */
		if (op && c != 'I')
			return -EINVAL;

		if (c == 'I') {
			if (first)
				return -EINVAL;
			err = template_args(d);
			d->ends_tmpl = true;
		} else if (c == 'S' && first && peek(d, 1) == 't') {
			d->p += 2;
			err = puts_(d, "std");
			subst = true;
			cls = false;
		} else if (c == 'S' && first) {
			d->p++;
			err = substitution(d, true, &ref, &abbrev, &stp);
			subst = true;
			cls = !stp && !ref;
		} else if (c == 'T' && first) {
			d->p++;
			err = template_param(d, &ref);
			cls = false;	/* a T_'s class name is not our text */
		} else if ((c == 'C' || c == 'D') && !first) {
			/* after a class's own name only: not std, an
			 * operator, a T_, another ctor */
			err = cls ? ctor_dtor(d, from) : -EINVAL;
			cls = false;
			d->ends_tmpl = false;
			d->cdc = true;
		} else {
			if (!first)
				err = puts_(d, "::");
			if (!err)
				cls = is_digit(c) || c == 'L';
			op = !cls;
			err = unqualified_name(d, &cv);
			d->ends_tmpl = false;
			d->cdc = cv;
		}
		if (err)
			return err;
		first = false;
		if (!subst && peek(d, 0) != 'E')
			err = add_sub(d, from, false);
		if (err)
			return err;
	}
	return first ? -EINVAL : 0;
}

/*
 * <local-name>: Z <function encoding> E <entity name> [<discriminator>],
 * printed "f()::x"; the Z already read. A string literal's (s) refused.
 */
static int local_name(struct dm *d, unsigned int *quals, char *refq)
{
	bool cv;
	int err = encoding(d);

	if (err)
		return err;
	if (!eat(d, 'E') || peek(d, 0) == 's' || peek(d, 0) == 'd')
		return -EINVAL;
	if ((err = puts_(d, "::")))
		return err;
	d->in_name = true;
	err = name(d, &cv, quals, refq);
	if (err)
		return err;
	/* <discriminator>: _ <digit> or __ <number> _, not printed */
	if (peek(d, 0) == '_') {
		size_t n;

		d->p++;
		if (eat(d, '_')) {
			if (number(d, &n) || !eat(d, '_'))
				return -EINVAL;
		} else if (!is_digit(peek(d, 0))) {
			return -EINVAL;
		} else {
			d->p++;
		}
	}
	return 0;
}

/*
 * <name>: nested, local, or unscoped (std:: with St), with template
 * args after an unscoped template name (then a candidate itself). @cv:
 * the last component is a conversion operator; @quals, @refq: a nested
 * name's qualifiers of "this".
 */
static int name(struct dm *d, bool *cv, unsigned int *quals, char *refq)
{
	size_t from = d->len;
	bool ref, abbrev, tp;
	int err;

	*cv = false;
	*quals = 0;
	*refq = 0;
	if ((err = enter(d)))
		return err;
	d->ends_tmpl = false;
	d->cdc = false;
	if (eat(d, 'N')) {
		err = nested_name(d, quals, refq);
		*cv = d->cdc;
	} else if (eat(d, 'Z')) {
		err = local_name(d, quals, refq);
		*cv = d->cdc;
	} else if (peek(d, 0) == 'S' && peek(d, 1) != 't') {
		/* only an unscoped template name: its args follow */
		d->p++;
		err = substitution(d, false, &ref, &abbrev, &tp);
		if (!err && peek(d, 0) != 'I')
			err = -EINVAL;
		if (!err)
			err = template_args(d);
		d->ends_tmpl = true;
	} else {
		if (peek(d, 0) == 'S') {
			d->p += 2;
			err = puts_(d, "std::");
		}
		if (!err)
			err = unqualified_name(d, cv);
		d->cdc = *cv;
		if (!err && peek(d, 0) == 'I') {
			err = add_sub(d, from, false);
			if (!err)
				err = template_args(d);
			d->ends_tmpl = true;
		}
	}
	d->depth--;
	return err;
}

/* a class or enum type's name: a candidate, after its own */
static int class_type(struct dm *d)
{
	size_t from = d->len;
	unsigned int quals;
	char refq;
	bool cv, in_name = d->in_name, ends_tmpl = d->ends_tmpl, cdc = d->cdc;
	int err;

	/* a type inside an encoding's name: not that name's state */
	d->in_name = false;
	err = name(d, &cv, &quals, &refq);
	d->in_name = in_name;
	d->ends_tmpl = ends_tmpl;
	d->cdc = cdc;
	if (!err && (quals || refq))
		return -EINVAL;
	return err ? err : add_sub(d, from, false);
}

/* <CV-qualifiers> <type>: "int const volatile"; one candidate */
static int qualified_type(struct dm *d, size_t from)
{
	static const char *const words[] = { " restrict", " volatile", " const" };
	bool q[3] = { false, false, false }, ref;
	int i, err;

	q[0] = eat(d, 'r');
	q[1] = eat(d, 'V');
	q[2] = eat(d, 'K');
	/* out of order or twice ("KK"): __cxa_demangle merges, we refuse */
	if (peek(d, 0) == 'r' || peek(d, 0) == 'V' || peek(d, 0) == 'K')
		return -EINVAL;
	err = type(d, &ref);
	/* a qualified substitution qualified again: __cxa_demangle
	 * merges the two, we refuse */
	if (!err && (ref || d->cvq))
		return -EINVAL;
	for (i = 2; !err && i >= 0; i--)
		if (q[i])
			err = puts_(d, words[i]);
	if (!err)
		err = add_sub(d, from, false);
	if (!err)
		d->subs[d->nsubs - 1].cv = true;
	d->cvq = true;
	return err;
}

static int type_inner(struct dm *d, bool *ref)
{
	static const char *const ptrs[] = { "*", "&", "&&" };
	const struct builtin *b = find_builtin(d);
	size_t from = d->len;
	bool inner, abbrev, tp;
	char c = peek(d, 0);
	int err;

	*ref = false;
	if (b) {
		if (b->code[0] == 'z')
			return -EINVAL;	/* "..." only as a parameter */
		d->p += strlen(b->code);
		return puts_(d, b->name);
	}
	if (c == 'r' || c == 'V' || c == 'K')
		return qualified_type(d, from);
	if (c == 'P' || c == 'R' || c == 'O') {
		d->p++;
		err = type(d, &inner);
		if (!err && inner)
			return -EINVAL;	/* reference collapsing: refused */
		if (!err)
			err = puts_(d, ptrs[c == 'P' ? 0 : c == 'R' ? 1 : 2]);
		*ref = c != 'P';
		return err ? err : add_sub(d, from, *ref);
	}
	if (c == 'T') {
		d->p++;
		err = template_param(d, ref);
		if (!err)
			err = add_sub(d, from, *ref);
		if (!err)
			d->subs[d->nsubs - 1].tparam = true;
		/* a template template parameter's args: refused */
		return !err && peek(d, 0) == 'I' ? -EINVAL : err;
	}
	if (c == 'S' && peek(d, 1) != 't') {
		d->p++;
		err = substitution(d, false, ref, &abbrev, &tp);
		if (!err && peek(d, 0) == 'I') {
			/* a template's name: the type with its args is new */
			if (*ref)
				return -EINVAL;
			err = template_args(d);
			if (!err)
				err = add_sub(d, from, false);
			d->cvq = false;
		}
		return err;
	}
	if (is_digit(c) || c == 'N' || c == 'Z' || c == 'S')
		return class_type(d);
	return -EINVAL;	/* F A M C G U D*, and the rest */
}

static int type(struct dm *d, bool *ref)
{
	char c = peek(d, 0);
	int err = enter(d);

	if (!err)
		err = type_inner(d, ref);
	/* what the type read is, not one inside it (a substitution's
	 * own: type_inner()) */
	if (c != 'T' && (c != 'S' || peek(d, 1) == 't'))
		d->cvq = c == 'r' || c == 'V' || c == 'K';
	d->depth--;
	return err;
}

/* <bare-function-type>: "(a, b)"; "v" alone is "()" */
static int params(struct dm *d)
{
	unsigned int n = 0;
	bool ref;
	int err = puts_(d, "(");

	if (!err && peek(d, 0) == 'v' && (peek(d, 1) == '\0' || peek(d, 1) == 'E' ||
					   peek(d, 1) == '.')) {
		d->p++;
		return puts_(d, ")");
	}
	while (!err && peek(d, 0) && peek(d, 0) != 'E' && peek(d, 0) != '.') {
		if (n++ && (err = puts_(d, ", ")))
			break;
		if (peek(d, 0) == 'v') {
			err = -EINVAL;	/* void is a parameter list alone */
		} else if (peek(d, 0) == 'z') {
			d->p++;
			err = puts_(d, "...");
		} else {
			err = type(d, &ref);
		}
	}
	if (!err && !n)
		err = -EINVAL;
	return err ? err : puts_(d, ")");
}

/* " const", " &" after a member function's parameters */
static int this_quals(struct dm *d, unsigned int quals, char refq)
{
	int err = 0;

	if (quals & 4)
		err = puts_(d, " const");
	if (!err && (quals & 2))
		err = puts_(d, " volatile");
	if (!err && (quals & 1))
		err = puts_(d, " restrict");
	if (!err && refq)
		err = puts_(d, refq == 'R' ? " &" : " &&");
	return err;
}

/* a thunk's <call-offset>: h <number> _ or v <number> _ <number> _ */
static int call_offset(struct dm *d)
{
	int i, n = eat(d, 'h') ? 1 : eat(d, 'v') ? 2 : 0;
	size_t v;

	if (!n)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		eat(d, 'n');
		if (number(d, &v) || !eat(d, '_'))
			return -EINVAL;
	}
	return 0;
}

static int special_name(struct dm *d)
{
	const struct special *s = NULL;
	unsigned int quals;
	size_t i;
	bool ref, cv;
	char refq;
	int err;

	for (i = 0; i < sizeof(specials) / sizeof(specials[0]); i++)
		if (peek(d, 0) == specials[i].code[0] &&
		    peek(d, 1) == specials[i].code[1])
			s = &specials[i];
	if (!s)
		return -EINVAL;
	/* a thunk's h or v is its call offset's */
	d->p += s->what == F_THUNK ? 1 : 2;
	if ((err = puts_(d, s->text)))
		return err;
	switch (s->what) {
	case F_TYPE:
		return type(d, &ref);
	case F_NAME:
		err = name(d, &cv, &quals, &refq);
		return !err && (quals || refq) ? -EINVAL : err;
	case F_TCLONE:
		/* GTt only: GTn, the non-transaction clone, is rare */
		if (!eat(d, 't'))
			return -EINVAL;
		return encoding(d);
	case F_COVARIANT:
		if ((err = call_offset(d)))
			return err;
		/* fall through */
	case F_THUNK:
		err = call_offset(d);
		return err ? err : encoding(d);
	}
	return -EINVAL;
}

/*
 * <encoding>: a function's name and parameters, a data name alone, or
 * a special name. A template function's (not a ctor's, dtor's, or a
 * conversion's) first type is its return type, printed first.
 */
static int encoding(struct dm *d)
{
	size_t from = d->len, at;
	unsigned int quals;
	bool cv, ref;
	char refq, c;
	int err;

	if ((err = enter(d)))
		return err;
	if (peek(d, 0) == 'T' || peek(d, 0) == 'G') {
		err = special_name(d);
		d->depth--;
		return err;
	}
	d->in_name = true;
	err = name(d, &cv, &quals, &refq);
	d->in_name = false;
	/* T_ names the args of a template function only: after another
	 * name, __cxa_demangle refuses it */
	if (!d->ends_tmpl)
		d->ntargs = 0;
	c = peek(d, 0);
	if (err || !c || c == 'E' || c == '.') {
		/* data: no parameters */
		d->depth--;
		return err ? err : (quals || refq) ? -EINVAL : 0;
	}
	if (d->ends_tmpl && !d->cdc) {
		at = d->len;
		if ((err = type(d, &ref)) || (err = puts_(d, " ")))
			return err;
		rotate(d, from, at);
	}
	err = params(d);
	if (!err)
		err = this_quals(d, quals, refq);
	d->depth--;
	return err;
}

/* .cold, .isra.0, .constprop.0.isra.0: " [clone .cold]" each */
static int clone_suffixes(struct dm *d)
{
	const char *s;
	int err;

	while (peek(d, 0) == '.' && (is_lower(peek(d, 1)) || is_digit(peek(d, 1)) ||
				     peek(d, 1) == '_')) {
		s = d->p;
		d->p += 2;
		while (is_lower(peek(d, 0)) || is_digit(peek(d, 0)) || peek(d, 0) == '_')
			d->p++;
		while (peek(d, 0) == '.' && is_digit(peek(d, 1))) {
			d->p += 2;
			while (is_digit(peek(d, 0)))
				d->p++;
		}
		if ((err = puts_(d, " [clone ")) ||
		    (err = put(d, s, (size_t)(d->p - s))) || (err = puts_(d, "]")))
			return err;
	}
	return d->p == d->end ? 0 : -EINVAL;
}

int usdtkit__demangle_itanium(const char *mangled, char *buf, size_t size)
{
	struct dm *d;
	int err;

	if (!mangled || !buf || !size || strncmp(mangled, "_Z", 2))
		return -EINVAL;
	d = malloc(sizeof(*d));
	if (!d)
		return -ENOMEM;
	memset(d, 0, offsetof(struct dm, out));
	d->nsubs = d->ntargs = 0;
	d->alen = 0;
	d->p = mangled + 2;
	d->end = d->p + strnlen(d->p, OUT_MAX * 4);
	if (*d->end)
		err = -ENOSPC;
	else
		err = encoding(d);
	if (!err)
		err = clone_suffixes(d);
	if (!err && d->len >= size)
		err = -ENOSPC;
	if (!err) {
		memcpy(buf, d->out, d->len);
		buf[d->len] = '\0';
	}
	free(d);
	return err;
}
