/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the benches' workloads share (trace_load.c, cold_load.c): their
 * clock, and the wait for the script's next line on stdin. Header only:
 * the scripts build each workload with one cc command. */
#ifndef USDTKIT_BENCH_LOAD_COMMON_H
#define USDTKIT_BENCH_LOAD_COMMON_H

#include <stdio.h>
#include <time.h>

static inline long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline void wait_line(void)
{
	int c;

	do
		c = getchar();
	while (c != EOF && c != '\n');
}

#endif
