// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "base/escape.h"
#include "json.h"

/*
 * The list of a big binary is megabytes of JSON: write through the
 * unlocked stdio calls and format integers by hand, no printf per field.
 */
/* set once from the command line, before any writer exists */
static bool u64_strings;

void json_take_opts(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (strcmp(argv[i], "--json-u64-strings"))
			continue;
		u64_strings = true;
		argv[i] = "--json";
	}
}

void jw_init(struct jw *w, FILE *f)
{
	w->f = f;
	w->len = 0;
	w->u64_strings = u64_strings;
	w->err = 0;
}

/* the first failure's errno kept: by the time a caller looks, other
 * calls have changed errno (an unbuffered FILE fails here) */
static void jw_write(struct jw *w, const char *s, size_t n)
{
	if (fwrite(s, 1, n, w->f) != n && !w->err)
		w->err = errno ? errno : EIO;
}

void jw_flush(struct jw *w)
{
	jw_write(w, w->buf, w->len);
	w->len = 0;
}

void jw_put_slow(struct jw *w, const char *s, size_t n)
{
	jw_flush(w);
	if (n > sizeof(w->buf)) {
		jw_write(w, s, n);
		return;
	}
	memcpy(w->buf, s, n);
	w->len = n;
}

static const unsigned char needs_esc[256] = {
	[0 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1, [0x7f] = 1,
};

void json_raw(struct jw *f, const char *s)
{
	jw_put(f, s, strlen(s));
}

void json_u64(struct jw *f, uint64_t v)
{
	char b[24], *p = b + sizeof(b);

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	jw_put(f, p, (size_t)(b + sizeof(b) - p));
}

void jw_hex(struct jw *f, uint64_t v)
{
	char b[24], *p = b + sizeof(b);

	do
		*--p = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	*--p = 'x';
	*--p = '0';
	jw_put(f, p, (size_t)(b + sizeof(b) - p));
}

void json_i64(struct jw *f, int64_t v)
{
	if (v < 0) {
		jw_putc(f, '-');
		json_u64(f, (uint64_t)0 - (uint64_t)v);
	} else {
		json_u64(f, (uint64_t)v);
	}
}

/* 2^53 - 1: the largest n for which every integer in [-n, n] is a double */
#define JSON_SAFE_MAX 9007199254740991ull

void json_num_u64(struct jw *f, uint64_t v)
{
	if (!f->u64_strings || v <= JSON_SAFE_MAX) {
		json_u64(f, v);
		return;
	}
	jw_putc(f, '"');
	json_u64(f, v);
	jw_putc(f, '"');
}

void json_num_i64(struct jw *f, int64_t v)
{
	/* the magnitude, without negating INT64_MIN */
	uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	if (!f->u64_strings || mag <= JSON_SAFE_MAX) {
		json_i64(f, v);
		return;
	}
	jw_putc(f, '"');
	json_i64(f, v);
	jw_putc(f, '"');
}

void json_str(struct jw *f, const char *s, size_t len)
{
	size_t i = 0, run;

	jw_putc(f, '"');
	while (i < len) {
		unsigned char c;

		/* copy runs that need no escaping in one call */
		for (run = i; run < len && !needs_esc[(unsigned char)s[run]]; run++)
			;
		jw_put(f, s + i, run - i);
		if (run == len)
			break;
		c = (unsigned char)s[run];
		if (c == '"' || c == '\\') {
			jw_putc(f, '\\');
			jw_putc(f, c);
		} else if (c == '\n') {
			JW_LIT(f, "\\n");
		} else if (c == '\t') {
			JW_LIT(f, "\\t");
		} else {
			char u[8];

			snprintf(u, sizeof(u), "\\u%04x", c);
			json_raw(f, u);
		}
		i = run + 1;
	}
	jw_putc(f, '"');
}

/* ,"key":N with a key that needs no escaping */
#define json_key_i64(f, key, v)				\
	do {						\
		JW_LIT(f, ",\"" key "\":");		\
		json_i64(f, v);				\
	} while (0)

/* ,"key":N for a 64-bit field (json_num_i64()) */
#define json_key_num(f, key, v)				\
	do {						\
		JW_LIT(f, ",\"" key "\":");		\
		json_num_i64(f, v);			\
	} while (0)

/* ,"key":{reg} with a literal key */
#define json_reg(f, arch, key, r)			\
	do {						\
		JW_LIT(f, ",\"" key "\":");		\
		json_reg_obj(f, arch, r);		\
	} while (0)

static void json_reg_obj(struct jw *f, const struct usdtkit_arch *arch,
			 const struct usdtkit_reg *r)
{
	const struct usdtkit_regdef *d = usdtkit_arch_reg_at(arch, r->entry);
	const char *name = d ? d->name : usdtkit_arch_reg_name(arch, r->id);

	if (r->id < 0) {
		JW_LIT(f, "null");
		return;
	}
	JW_LIT(f, "{\"name\":");
	json_str(f, name, strlen(name));
	json_key_i64(f, "offset", r->offset);
	json_key_i64(f, "shift", r->shift);
	json_key_i64(f, "width", r->width);
	jw_putc(f, '}');
}

static void json_addr(struct jw *f, const struct usdtkit_arch *arch,
		      const struct usdtkit_arg *a)
{
	if (a->base.id >= 0)
		json_reg(f, arch, "base", &a->base);
	if (a->index.id >= 0) {
		json_reg(f, arch, "index_reg", &a->index);
		json_key_i64(f, "scale", a->scale);
	}
}

/* a resolved symbol-relative arg still names its symbol */
static void json_resolved_sym(struct jw *f, const char *spec,
			      const struct usdtkit_arg *a)
{
	if (!a->sym_len)
		return;
	JW_LIT(f, ",\"symbol\":");
	json_str(f, spec + a->sym_off, a->sym_len);
	JW_LIT(f, ",\"reloc\":\"");
	json_raw(f, usdtkit_reloc_str(a->reloc));
	jw_putc(f, '"');
}

/*
 * A constant as the probe delivers it: cut to the argument's size and
 * extended by its sign, as the evaluator and the BPF side do. The parser
 * keeps the literal ("8@$-1" is -1), which for an unsigned argument is
 * not the value a consumer will see (18446744073709551615); the literal
 * is still in "text". A float's constant is its bit pattern, unsigned.
 */
static void json_const_value(struct jw *f, const struct usdtkit_arg *a)
{
	unsigned int bits = a->size && a->size < 8 ? 64 - 8 * a->size : 0;
	uint64_t v = (uint64_t)a->value;

	JW_LIT(f, ",\"value\":");
	if (a->is_signed && !a->is_float) {
		v = (uint64_t)((int64_t)(v << bits) >> bits);
		json_num_i64(f, (int64_t)v);
	} else {
		v = v << bits >> bits;
		json_num_u64(f, v);
	}
}

static void json_loc(struct jw *f, const struct usdtkit_arch *arch,
		     const char *spec, const struct usdtkit_arg *a)
{
	switch (a->kind) {
	case USDTKIT_LOC_CONST:
		/* ip-relative: an offset from the probe's address, signed */
		if (a->pc_rel) {
			json_key_num(f, "value", a->value);
			json_key_num(f, "pc_rel", a->value);
		} else {
			json_const_value(f, a);
		}
		json_resolved_sym(f, spec, a);
		break;
	case USDTKIT_LOC_REG:
		json_reg(f, arch, "reg", &a->reg);
		if (a->reg_hi.id >= 0)
			json_reg(f, arch, "reg_hi", &a->reg_hi);
		break;
	case USDTKIT_LOC_MEM:
		json_addr(f, arch, a);
		json_key_num(f, "disp", a->disp);
		if (a->pc_rel)
			json_key_num(f, "pc_rel", a->disp);
		json_resolved_sym(f, spec, a);
		break;
	case USDTKIT_LOC_SYMBOL:
		JW_LIT(f, ",\"symbol\":");
		json_str(f, spec + a->sym_off, a->sym_len);
		json_key_num(f, "addend", a->disp);
		JW_LIT(f, ",\"reloc\":\"");
		json_raw(f, usdtkit_reloc_str(a->reloc));
		if (a->deref)
			JW_LIT(f, "\",\"deref\":true");
		else
			JW_LIT(f, "\",\"deref\":false");
		json_addr(f, arch, a);
		break;
	case USDTKIT_LOC_UNREADABLE:
		JW_LIT(f, ",\"reg\":{\"name\":");
		json_str(f, spec + a->sym_off, a->sym_len);
		JW_LIT(f, ",\"offset\":null,\"shift\":0}");
		break;
	default:
		break;
	}
}

void json_arg(struct jw *f, const struct usdtkit_arch *arch, const char *spec,
	      const struct usdtkit_arg *a, int index)
{
	JW_LIT(f, "{\"index\":");
	json_i64(f, index);
	JW_LIT(f, ",\"text\":");
	json_str(f, spec + a->text_off, a->text_len);
	json_key_i64(f, "size", a->size);
	if (a->is_signed)
		JW_LIT(f, ",\"signed\":true");
	else
		JW_LIT(f, ",\"signed\":false");
	if (a->is_float)
		JW_LIT(f, ",\"float\":true,\"kind\":\"");
	else
		JW_LIT(f, ",\"float\":false,\"kind\":\"");
	json_raw(f, usdtkit_loc_kind_str(a->kind));
	jw_putc(f, '"');
	if (a->status != USDTKIT_ARG_INVALID)
		json_loc(f, arch, spec, a);
	JW_LIT(f, ",\"status\":\"");
	json_raw(f, usdtkit_arg_status_str(a->status));
	jw_putc(f, '"');
	if (a->status != USDTKIT_ARG_OK) {
		JW_LIT(f, ",\"error\":");
		json_str(f, a->error ? a->error : "", a->error ? strlen(a->error) : 0);
		json_key_i64(f, "error_pos", a->error_pos);
	}
	jw_putc(f, '}');
}

static void jw_put_cb(void *w, const char *s, size_t n)
{
	jw_put((struct jw *)w, s, n);
}

static void file_put_cb(void *f, const char *s, size_t n)
{
	fwrite(s, 1, n, (FILE *)f);
}

/*
 * Text from a file (names, paths) as it is, but for what escape.h
 * escapes: a hostile file must not move the terminal's cursor, set its
 * title or forge lines of our output.
 */
void jw_text(struct jw *w, const char *s, size_t n)
{
	usdtkit_escape_put(jw_put_cb, w, s, n, 0);
}

/* Bytes from a process as a JSON string: what is not well-formed UTF-8
 * becomes U+FFFD, one per byte, so the line stays valid JSON; control
 * characters (C0, DEL, C1) are \u escapes. */
void json_str_bytes(struct jw *w, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run, len;
	unsigned int cp;

	jw_putc(w, '"');
	while (i < n) {
		/* ASCII that needs no escape, in one call */
		for (run = i; run < n && u[run] < 0x80 && !needs_esc[u[run]]; run++)
			;
		jw_put(w, s + i, run - i);
		i = run;
		if (i == n)
			break;
		if (u[i] < 0x80) {
			char e[8];

			if (u[i] == '"' || u[i] == '\\')
				snprintf(e, sizeof(e), "\\%c", u[i]);
			else if (u[i] == '\n')
				snprintf(e, sizeof(e), "\\n");
			else
				snprintf(e, sizeof(e), "\\u%04x", u[i]);
			json_raw(w, e);
			i++;
			continue;
		}
		len = utf8_seq_len(u + i, n - i, &cp);
		if (len && cp < 0xa0) {
			char e[8];

			/* a C1 control (U+0080..U+009F): escaped, like C0, so
			 * that JSON shown on a terminal cannot drive it */
			snprintf(e, sizeof(e), "\\u%04x", cp);
			json_raw(w, e);
			i += len;
		} else if (len) {
			jw_put(w, s + i, len);
			i += len;
		} else {
			JW_LIT(w, "\\ufffd");
			i++;
		}
	}
	jw_putc(w, '"');
}

/* Bytes from a process as a double-quoted C-like string for a terminal:
 * escape.h's rule, " and \ escaped too. */
void jw_text_quoted(struct jw *w, const char *s, size_t n)
{
	jw_putc(w, '"');
	usdtkit_escape_put(jw_put_cb, w, s, n, USDTKIT_ESC_QUOTE);
	jw_putc(w, '"');
}

/* A message line on @f, escaped like jw_text(), then a newline. */
void put_text_line(FILE *f, const char *s)
{
	usdtkit_escape_put(file_put_cb, f, s, strlen(s), 0);
	fputc('\n', f);
}
