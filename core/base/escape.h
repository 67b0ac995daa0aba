/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one rule for showing bytes from a file or a process as text: the
 * library's messages (core/base/log.c), the filter's (trace/filter.c) and the
 * CLI's output (cli/json.c) all write a name, a path or a string with it,
 * so one name reads the same everywhere and none can drive a terminal.
 *
 *   - printable ASCII (0x20-0x7e) as it is;
 *   - well-formed UTF-8 of a code point from U+00A0 up as it is;
 *   - every other byte as \xNN: C0 controls, DEL, the bytes of a C1
 *     control (U+0080-U+009F, which 8-bit terminals obey), and bytes
 *     that are not well-formed UTF-8;
 *   - with USDTKIT_ESC_QUOTE (a string shown between double quotes),
 *     " and \ as \" and \\.
 *
 * Header only: the CLI calls nothing of the library's internals.
 */
#ifndef USDTKIT_CORE_ESCAPE_H
#define USDTKIT_CORE_ESCAPE_H

#include <stddef.h>

#include "base/utf8.h"

#define USDTKIT_ESC_QUOTE 1u

/* How many bytes at @s pass as they are. */
static inline size_t usdtkit_esc_run(const char *s, size_t n, unsigned int flags)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, len;
	unsigned int cp;

	while (i < n) {
		if (u[i] >= 0x20 && u[i] < 0x7f) {
			if ((flags & USDTKIT_ESC_QUOTE) && (u[i] == '"' || u[i] == '\\'))
				break;
			i++;
			continue;
		}
		len = u[i] >= 0x80 ? utf8_seq_len(u + i, n - i, &cp) : 0;
		if (!len || cp < 0xa0)
			break;
		i += len;
	}
	return i;
}

/* The escape of the byte at @s, which usdtkit_esc_run() stopped at, in
 * @out (NUL-terminated); its length (2 or 4). One byte is consumed. */
static inline size_t usdtkit_esc_one(char c, char out[5])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char u = (unsigned char)c;

	out[0] = '\\';
	if (u == '"' || u == '\\') {
		out[1] = (char)u;
		out[2] = 0;
		return 2;
	}
	out[1] = 'x';
	out[2] = hex[u >> 4];
	out[3] = hex[u & 15];
	out[4] = 0;
	return 4;
}

/* @s (@n bytes) by the rule, handed to @put in pieces: runs as they
 * are, each escape whole. */
static inline void usdtkit_escape_put(void (*put)(void *ctx, const char *s, size_t n),
				      void *ctx, const char *s, size_t n,
				      unsigned int flags)
{
	size_t i = 0, run;
	char e[5];

	while (i < n) {
		run = usdtkit_esc_run(s + i, n - i, flags);
		if (run)
			put(ctx, s + i, run);
		i += run;
		if (i < n)
			put(ctx, e, usdtkit_esc_one(s[i++], e));
	}
}

struct usdtkit_esc_buf {
	char *dst;
	size_t size, len;
	int cut;
};

static inline void usdtkit_esc_buf_put(void *ctx, const char *s, size_t n)
{
	struct usdtkit_esc_buf *b = (struct usdtkit_esc_buf *)ctx;
	size_t i;

	/* a piece that does not fit cuts the rest: never half an escape
	 * or half a UTF-8 sequence */
	if (!b->cut && b->len + n < b->size)
		for (i = 0; i < n; i++)
			b->dst[b->len + i] = s[i];
	else if (!b->cut && b->size)
		b->cut = 1, b->dst[b->len] = 0;
	b->len += b->cut ? 0 : n;
}

/*
 * @s (@n bytes) escaped into @dst, snprintf-like: at most @size - 1 bytes
 * and a NUL (when @size > 0), cut between two pieces; the length the
 * whole would take.
 */
static inline size_t usdtkit_escape(char *dst, size_t size, const char *s,
				    size_t n, unsigned int flags)
{
	struct usdtkit_esc_buf b = { dst, size, 0, 0 };
	struct usdtkit_esc_buf count = { NULL, 0, 0, 0 };

	usdtkit_escape_put(usdtkit_esc_buf_put, &b, s, n, flags);
	if (size && !b.cut)
		dst[b.len] = 0;
	if (!b.cut)
		return b.len;
	usdtkit_escape_put(usdtkit_esc_buf_put, &count, s, n, flags);
	return count.len;
}

#endif
