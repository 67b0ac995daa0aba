/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Well-formed UTF-8, for the writers that show bytes of a process
 * (header only: the CLI includes it too, and calls nothing of the
 * library through it). */
#ifndef USDTKIT_CORE_UTF8_H
#define USDTKIT_CORE_UTF8_H

#include <stddef.h>

/*
 * The length of the well-formed UTF-8 sequence of 2 to 4 bytes at @s
 * (no overlong form, no surrogate, at most U+10FFFF), its code point in
 * *@cp; 0 if there is none. Shared by the library's Prometheus writer
 * (export/prom.c) and the CLI's JSON writer (cli/json.c).
 */
static inline size_t utf8_seq_len(const unsigned char *s, size_t n,
				  unsigned int *cp)
{
	static const unsigned int min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t len, i;
	unsigned int c;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min[len] || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	*cp = c;
	return len;
}

#endif
