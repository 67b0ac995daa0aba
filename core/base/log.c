// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/log.h"

/* @s shown by the one rule (escape.h): @s itself when nothing in it needs
 * an escape, a new string, or NULL (out of memory: @s is then cut at the
 * first byte that needs one) */
static char *escape(char *s)
{
	size_t n = strlen(s), len = usdtkit_escape(NULL, 0, s, n, 0);
	char *e;

	if (len == n)
		return s;
	e = malloc(len + 1);
	if (!e) {
		s[usdtkit_esc_run(s, n, 0)] = 0;
		return NULL;
	}
	usdtkit_escape(e, len + 1, s, n, 0);
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
	 * characters, whatever those names hold: escape.h's rule, the CLI's
	 * too, so one name reads the same in a message and in a hit. */
	esc = escape(buf);
	lg->print(lg->ctx, level, esc ? esc : buf);
	if (esc != buf)
		free(esc);
	if (buf != stack)
		free(buf);
}
