// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* usdtkit trace: everything it says on stderr, one prefix, one line each. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace.h"

/* Messages quote names from files: escaped, one line each. */
void trace_err(const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	fputs("usdtkit trace: ", stderr);
	put_text_line(stderr, n < 0 ? "(out of memory)" : msg);
	free(msg);
}

/* The library's diagnostics: warnings always, the rest with -v. */
void trace_print_msg(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	struct tracer *t = ctx;

	if (level == USDTKIT_LOG_WARN || t->verbose) {
		/* one prefix for everything trace says */
		fputs("usdtkit trace: ", stderr);
		put_text_line(stderr, msg);
	}
}
