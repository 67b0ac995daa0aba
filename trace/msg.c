// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The print callback the engine hands to the layers below: a file of
 * its own, since the files that open and attach (targets.c, refresh.c,
 * attach.c) and the one that frees (trace.c) all use it; and the pids
 * as messages name them, for the same files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/internal.h"

/*
 * What the layers below say, passed on; while attaching, the first
 * warning is held back to become the one line about the failure.
 */
void usdtkit__trace_msg(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	struct usdtkit_trace *t = ctx;

	if (level == USDTKIT_LOG_WARN)
		t->warnings++;
	if (level == USDTKIT_LOG_WARN && t->capture) {
		if (!t->captured)
			t->captured = strdup(msg);
		return;
	}
	if (t->log.print)
		t->log.print(t->log.ctx, level, msg);
}

void usdtkit__pids_label(const struct usdtkit_trace *t, char *buf, size_t n)
{
	size_t i, len;

	snprintf(buf, n, "pid%s ", trace_several(t) ? "s" : "");
	if (!t->npids)		/* a command's */
		snprintf(buf, n, "pid %d", t->pid);
	for (i = 0; i < t->npids; i++) {
		len = strlen(buf);
		snprintf(buf + len, n - len, "%s%d", i ? "," : "", t->pids[i]);
	}
}
