/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* JSON output helpers for the CLI: one object per line, no allocation. */
#ifndef USDTKIT_CLI_JSON_H
#define USDTKIT_CLI_JSON_H

#include <stdio.h>
#include <string.h>

#include <usdtkit/usdtkit.h>

/*
 * A buffered writer: a big list is megabytes of small pieces, and stdio
 * costs more per call than the pieces themselves. Flush before anything
 * else writes to the same FILE.
 */
struct jw {
	FILE *f;
	size_t len;
	char buf[1 << 16];
};

void jw_init(struct jw *w, FILE *f);
void jw_flush(struct jw *w);
void jw_put_slow(struct jw *w, const char *s, size_t n);

/* Most pieces are a few bytes: inline the common case, a copy that fits. */
static inline void jw_put(struct jw *w, const char *s, size_t n)
{
	if (w->len + n > sizeof(w->buf)) {
		jw_put_slow(w, s, n);
		return;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

/* A string literal, its length known at compile time. */
#define JW_LIT(w, lit) jw_put((w), "" lit, sizeof(lit) - 1)

static inline void jw_putc(struct jw *w, char c)
{
	if (w->len == sizeof(w->buf))
		jw_flush(w);
	w->buf[w->len++] = c;
}

/* Write @len bytes of @s as a JSON string, escaping what JSON requires. */
void json_str(struct jw *f, const char *s, size_t len);

/* Write @s as is, and integers in decimal. */
void json_raw(struct jw *f, const char *s);
void json_u64(struct jw *f, uint64_t v);
void json_i64(struct jw *f, int64_t v);
void jw_hex(struct jw *f, uint64_t v);	/* 0x... */

/* Text from a file with control characters as \xNN (never raw to a
 * terminal), and a whole message line so escaped. */
void jw_text(struct jw *f, const char *s, size_t len);
void put_text_line(FILE *f, const char *s);

/* Write one parsed argument as a JSON object. */
void json_arg(struct jw *f, const struct usdtkit_arch *arch, const char *spec,
	      const struct usdtkit_arg *arg, int index);

#endif
