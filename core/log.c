// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

void usdtkit__log(const struct usdtkit_log *lg, enum usdtkit_log_level level,
		  const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	char *p;

	if (!lg || !lg->print)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* Messages quote names from hostile files (providers, probes, paths)
	 * and reach terminals and line-based logs: one line, no control
	 * characters, whatever those names hold. */
	for (p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	lg->print(lg->ctx, level, buf);
}
