// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "export/prom.h"
#include "base/escape.h"

void usdtkit__prom_init(struct prom_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void usdtkit__prom_free(struct prom_buf *b)
{
	free(b->data);
	usdtkit__prom_init(b);
}

int usdtkit__prom_finish(struct prom_buf *b, char **data, size_t *len)
{
	int err = b->err;

	if (err) {
		usdtkit__prom_free(b);
		return err;
	}
	*data = b->data;
	*len = b->len;
	usdtkit__prom_init(b);
	return 0;
}

static bool prom_reserve(struct prom_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;

	if (b->err)
		return false;
	if (n <= b->cap - b->len)
		return true;
	while (cap - b->len < n) {
		if (cap > SIZE_MAX / 2) {
			b->err = -ENOMEM;
			return false;
		}
		cap *= 2;
	}
	p = realloc(b->data, cap);
	if (!p) {
		b->err = -ENOMEM;
		return false;
	}
	b->data = p;
	b->cap = cap;
	return true;
}

static void put(struct prom_buf *b, const char *s, size_t n)
{
	if (!prom_reserve(b, n))
		return;
	memcpy(b->data + b->len, s, n);
	b->len += n;
}

static void put_str(struct prom_buf *b, const char *s)
{
	put(b, s, strlen(s));
}

static void put_char(struct prom_buf *b, char c)
{
	put(b, &c, 1);
}

/* Room for any value's text: 20 digits and a sign, or %.17g. */
#define VALUE_MAX 32

static size_t fmt_u64(char *d, uint64_t v)
{
	char t[24], *p = t + sizeof(t);
	size_t n;

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	n = (size_t)(t + sizeof(t) - p);
	memcpy(d, p, n);
	return n;
}

/* @ns nanoseconds as seconds: the integer part, then up to 9 decimals
 * without the trailing zeros */
static size_t fmt_ns(char *d, uint64_t ns)
{
	size_t n = fmt_u64(d, ns / 1000000000u);
	uint64_t frac = ns % 1000000000u;
	int i;

	if (!frac)
		return n;
	d[n++] = '.';
	for (i = 8; i >= 0 && frac; i--) {
		uint64_t p = 1;
		int k;

		for (k = 0; k < i; k++)
			p *= 10;
		d[n++] = (char)('0' + frac / p);
		frac %= p;
	}
	return n;
}

/* @v's text in @d (VALUE_MAX bytes, NUL-terminated), its length; 0 for
 * an unknown kind. A double as Go's strconv.ParseFloat reads it back. */
static size_t fmt_value(char *d, struct prom_value v)
{
	size_t n = 0;

	switch (v.kind) {
	case PROM_KIND_U64:
		n = fmt_u64(d, v.u);
		break;
	case PROM_KIND_I64:
		if (v.i < 0)
			d[n++] = '-';
		/* the magnitude as uint64: -INT64_MIN does not fit */
		n += fmt_u64(d + n, v.i < 0 ? -(uint64_t)v.i : (uint64_t)v.i);
		break;
	case PROM_KIND_NS:
		n = fmt_ns(d, v.u);
		break;
	case PROM_KIND_F64:
		if (isnan(v.f))
			n = (size_t)snprintf(d, VALUE_MAX, "NaN");
		else if (isinf(v.f))
			n = (size_t)snprintf(d, VALUE_MAX, v.f > 0 ? "+Inf" : "-Inf");
		else
			n = (size_t)snprintf(d, VALUE_MAX, "%.17g", v.f);
		break;
	}
	d[n] = 0;
	return n;
}

static void put_value(struct prom_buf *b, struct prom_value v)
{
	char d[VALUE_MAX];
	size_t n = fmt_value(d, v);

	if (!n && !b->err)
		b->err = -EINVAL;
	put(b, d, n);
}

/* [a-zA-Z_][a-zA-Z0-9_]*, and ':' too in a metric name */
static bool valid_name(const char *s, bool metric)
{
	size_t i;

	if (!s || !*s)
		return false;
	for (i = 0; s[i]; i++) {
		char c = s[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    c == '_' || (metric && c == ':'))
			continue;
		if (i && c >= '0' && c <= '9')
			continue;
		return false;
	}
	return true;
}

static bool check_name(struct prom_buf *b, const char *s, bool metric)
{
	if (b->err)
		return false;
	if (!valid_name(s, metric)) {
		b->err = -EINVAL;
		return false;
	}
	return true;
}

/* # HELP text: the format escapes only backslash and newline there */
static void put_help(struct prom_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			put_str(b, "\\\\");
		else if (*s == '\n')
			put_str(b, "\\n");
		else
			put_char(b, *s);
	}
}

void usdtkit__prom_family(struct prom_buf *b, const char *name, const char *type,
		 const char *help)
{
	static const char *const types[] = {
		"counter", "gauge", "histogram", "summary", "untyped",
	};
	size_t i;

	if (!check_name(b, name, true))
		return;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (type && !strcmp(type, types[i]))
			break;
	if (i == sizeof(types) / sizeof(types[0])) {
		b->err = -EINVAL;
		return;
	}
	put_str(b, "# HELP ");
	put_str(b, name);
	put_char(b, ' ');
	put_help(b, help ? help : "");
	put_str(b, "\n# TYPE ");
	put_str(b, name);
	put_char(b, ' ');
	put_str(b, type);
	put_char(b, '\n');
}

/* A piece of a rendered label value, escaped for the format: \ and "
 * are its only escapes there (a rendering holds no newline). */
static void put_format_escaped(void *ctx, const char *s, size_t n)
{
	struct prom_buf *b = ctx;
	size_t i, run;

	for (i = 0; i < n; i = run + 1) {
		for (run = i; run < n && s[run] != '\\' && s[run] != '"'; run++)
			;
		put(b, s + i, run - i);
		if (run < n)
			put_str(b, s[run] == '"' ? "\\\"" : "\\\\");
	}
}

/* A label value's bytes, rendered (prom.h: core/escape.h's rule for a
 * quoted string) and escaped for the format. */
static void put_label_value(struct prom_buf *b, const char *s, size_t n)
{
	usdtkit_escape_put(put_format_escaped, b, s, n, USDTKIT_ESC_QUOTE);
}

static void put_labels(struct prom_buf *b, const struct prom_label *l,
		       unsigned int n, const char *le)
{
	unsigned int i;

	if (!n && !le)
		return;
	put_char(b, '{');
	for (i = 0; i < n; i++) {
		if (!check_name(b, l[i].name, false))
			return;
		if (i)
			put_char(b, ',');
		put_str(b, l[i].name);
		put_str(b, "=\"");
		put_label_value(b, l[i].value, l[i].value ? l[i].len : 0);
		put_char(b, '"');
	}
	if (le) {
		put_str(b, n ? ",le=\"" : "le=\"");
		put_str(b, le);
		put_char(b, '"');
	}
	put_char(b, '}');
}

static void sample_le(struct prom_buf *b, const char *name, const char *suffix,
		      const struct prom_label *labels, unsigned int nlabels,
		      const char *le, struct prom_value v)
{
	if (!check_name(b, name, true))
		return;
	put_str(b, name);
	if (suffix)
		put_str(b, suffix);
	put_labels(b, labels, nlabels, le);
	put_char(b, ' ');
	put_value(b, v);
	put_char(b, '\n');
}

void usdtkit__prom_sample(struct prom_buf *b, const char *name, const char *suffix,
		 const struct prom_label *labels, unsigned int nlabels,
		 struct prom_value v)
{
	sample_le(b, name, suffix, labels, nlabels, NULL, v);
}

void usdtkit__prom_histogram(struct prom_buf *b, const char *name,
		    const struct prom_label *labels, unsigned int nlabels,
		    const struct prom_hist *h)
{
	uint64_t cum = 0;
	char le[VALUE_MAX];
	unsigned int i;

	for (i = 0; i < h->n; i++) {
		cum += h->count[i];
		if (!fmt_value(le, h->le[i]) && !b->err)
			b->err = -EINVAL;
		sample_le(b, name, "_bucket", labels, nlabels, le, PROM_U64(cum));
	}
	cum += h->over;
	sample_le(b, name, "_bucket", labels, nlabels, "+Inf", PROM_U64(cum));
	if (!h->no_sum)
		sample_le(b, name, "_sum", labels, nlabels, NULL, h->sum);
	sample_le(b, name, "_count", labels, nlabels, NULL, PROM_U64(cum));
}
