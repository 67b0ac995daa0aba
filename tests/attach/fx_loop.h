/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The loop of the long-nop fixtures (fx_nop5.c, fx_nop10.c): print
 * "ready", then for each line N from stdin call @fn N times on fresh
 * values and answer "done CORRUPT NS_PER_CALL" (CORRUPT: results that are
 * not 2 * v + 1, i.e. a clobbered red zone).
 */
#ifndef USDTKIT_TESTS_FX_LOOP_H
#define USDTKIT_TESTS_FX_LOOP_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long fx_loop_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static int fx_loop(long (*fn)(long))
{
	char line[64];
	long next = 1;

	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		long i, n = atol(line), corrupt = 0;
		long long t0 = fx_loop_ns();

		for (i = 0; i < n; i++, next++)
			corrupt += fn(next) != 2 * next + 1;
		printf("done %ld %lld\n", corrupt, n ? (fx_loop_ns() - t0) / n : 0);
		fflush(stdout);
	}
	return 0;
}

#endif
