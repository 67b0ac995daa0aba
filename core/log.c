// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

void usdtkit__log(const struct usdtkit_log *lg, enum usdtkit_log_level level,
		  const char *fmt, ...)
{
	char stack[512], *buf = stack, *p;
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
	 * characters, whatever those names hold. */
	for (p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	lg->print(lg->ctx, level, buf);
	if (buf != stack)
		free(buf);
}
