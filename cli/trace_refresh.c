// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit trace as a service outlives the programs it traces: a package
 * upgrade renames a new file over a traced one, and the probes are
 * attached to it again (usdtkit_trace_refresh()), their counts going on.
 */
#include <stdio.h>
#include <string.h>

#include <usdtkit/trace.h>

#include "trace_opts.h"

/*
 * How often the files are looked at: a stat() per probe, a few
 * microseconds each, against the hits of a new process missed until
 * then (dpkg starts a service's new version right after unpacking it).
 */
#define TRACE_REFRESH_NS (2 * 1000000000ull)

void trace_refresh_tick(struct tracer *t, uint64_t now, uint64_t *next)
{
	int n;

	if (!*next)
		*next = now + TRACE_REFRESH_NS;
	if (now < *next)
		return;
	*next = now + TRACE_REFRESH_NS;
	n = usdtkit_trace_refresh(t->tr);
	/* always said, -v or not: a service's journal shows the upgrade
	 * it followed; -v names the probes (the library's lines) */
	if (n > 0)
		trace_err("%d probe%s re-attached to a replaced file%s", n,
			  n == 1 ? "" : "s", t->verbose ? "" : " (-v names them)");
	else if (n < 0)
		trace_err("looking for replaced files: %s", strerror(-n));
}
