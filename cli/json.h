/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* JSON output helpers for the CLI: one object per line, no allocation. */
#ifndef USDTKIT_CLI_JSON_H
#define USDTKIT_CLI_JSON_H

#include <stdbool.h>
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
	bool u64_strings;	/* --json-u64-strings: see json_num_u64() */
	int err;		/* the errno of the first write that failed */
	char buf[1 << 16];
};

/*
 * The version of each JSON stream, written as the first field of every
 * object it prints ("schema"). MAJOR.MINOR: a minor version only adds
 * fields; a rename, a removal or a type change takes a new major.
 * docs/JSON.md and docs/schema/ describe each one; keep them in step.
 */
#define JSON_SCHEMA_PARSE	"usdtkit-parse/1.0"
#define JSON_SCHEMA_LIST	"usdtkit-list/1.1"
#define JSON_SCHEMA_TRACE	"usdtkit-trace/1.2"
#define JSON_SCHEMA_FEATURES	"usdtkit-features/1.4"

/* {"schema":"VERSION" : the opening of every object of a stream */
#define JW_OPEN(w, version) JW_LIT(w, "{\"schema\":\"" version "\"")

/*
 * Take the JSON options every command shares out of @argv (before any
 * "--"): --json-u64-strings sets the mode of every writer made after it
 * and becomes --json, which it implies, for the command's own parser.
 */
void json_take_opts(int argc, char **argv);

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

/*
 * A 64-bit field of a JSON stream: a JSON integer, exact, unless the
 * writer is in --json-u64-strings mode and the value is outside
 * [-(2^53 - 1), 2^53 - 1], where a double (JavaScript, jq 1.6) would
 * round it: then a string of its decimal digits. Every field written
 * with these is listed in docs/JSON.md as "int64" or "uint64".
 */
void json_num_u64(struct jw *f, uint64_t v);
void json_num_i64(struct jw *f, int64_t v);

/* Text from a file with control characters as \xNN (never raw to a
 * terminal), and a whole message line so escaped. */
void jw_text(struct jw *f, const char *s, size_t len);
void put_text_line(FILE *f, const char *s);
/* bytes of a process: a JSON string (ill-formed UTF-8 -> \ufffd), and a
 * quoted string for text output (controls, ill-formed UTF-8 -> \xNN) */
void json_str_bytes(struct jw *w, const char *s, size_t n);
void jw_text_quoted(struct jw *w, const char *s, size_t n);

/* Write one parsed argument as a JSON object. */
void json_arg(struct jw *f, const struct usdtkit_arch *arch, const char *spec,
	      const struct usdtkit_arg *arg, int index);

#endif
