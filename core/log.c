// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

static bool is_ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* @s with its control characters as \xNN: @s itself when it has none,
 * a new string, or NULL (out of memory: @s is then cut at the first) */
static char *escape(char *s)
{
	size_t n = 0, i, o;
	char *e;

	for (i = 0; s[i]; i++)
		n += is_ctl((unsigned char)s[i]);
	if (!n)
		return s;
	e = malloc(i + 3 * n + 1);
	if (!e) {
		for (i = 0; s[i] && !is_ctl((unsigned char)s[i]); i++)
			;
		s[i] = 0;
		return NULL;
	}
	for (i = 0, o = 0; s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (is_ctl(c))
			o += (size_t)sprintf(e + o, "\\x%02x", c);
		else
			e[o++] = (char)c;
	}
	e[o] = 0;
	return e;
}

void usdtkit__log(const struct usdtkit_log *lg, enum usdtkit_log_level level,
		  const char *fmt, ...)
{
	char stack[512], *buf = stack, *esc;
	va_list ap;
	int n;

	if (!lg || !lg->print)
		return;
	va_start(ap, fmt);
	n = vsnprintf(stack, sizeof(stack), fmt, ap);
	va_end(ap);
	/* A long path comes before the reason: a message is never cut, it
	 * is formatted again into a buffer of its size (out of memory: the
	 * cut one is all there is). */
	if (n >= (int)sizeof(stack) && (buf = malloc((size_t)n + 1))) {
		va_start(ap, fmt);
		vsnprintf(buf, (size_t)n + 1, fmt, ap);
		va_end(ap);
	} else if (!buf) {
		buf = stack;
	}
	/* Messages quote names from hostile files (providers, probes, paths)
	 * and reach terminals and line-based logs: one line, no control
	 * characters, whatever those names hold. They are written \xNN,
	 * as the CLI writes them in its output, so one name reads the same
	 * in a message and in a hit. */
	esc = escape(buf);
	lg->print(lg->ctx, level, esc ? esc : buf);
	if (esc != buf)
		free(esc);
	if (buf != stack)
		free(buf);
}
