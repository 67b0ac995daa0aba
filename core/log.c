// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

void usdtkit__log(const struct usdtkit_log *lg, enum usdtkit_log_level level,
		  const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (!lg || !lg->print)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	lg->print(lg->ctx, level, buf);
}
