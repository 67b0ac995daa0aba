/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the per-hit workloads share (nop10_hit.c, hwbp_hit.c): the
 * benches' clock, and the files they talk to their driver through: DIR/info once timed
 * unprobed, DIR/go from the driver once the tracer is in, DIR/result and
 * DIR/fired at the end.
 */
#ifndef USDTKIT_BENCH_HIT_WORKLOAD_H
#define USDTKIT_BENCH_HIT_WORKLOAD_H

#include <stdio.h>
#include <unistd.h>

#include "load_common.h"	/* now_ns() */

static inline int write_file(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* until DIR/go exists */
static inline void wait_go(const char *dir)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/go", dir);
	while (access(path, F_OK))
		usleep(10000);
}

#endif
