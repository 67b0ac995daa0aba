// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the user_stack feature probe (attach/features.c) adds to every
 * usdtkit_features(): one raw tracepoint program loaded, run once by
 * BPF_PROG_TEST_RUN and closed. Timed RUNS times in this process (the
 * library asks once per process); prints the median, the 10th and 90th
 * percentiles in microseconds, and the answer.
 *
 *   features_probe [RUNS]   (root; default 201)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* internal, reached by the static link as startup_floor does */
bool usdtkit__probe_user_stack(void);

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 201;
	bool walks = false;
	double *t;

	if (runs < 1 || !(t = calloc((size_t)runs, sizeof(*t))))
		return 2;
	for (int i = 0; i < runs; i++) {
		double t0 = now_us();

		walks = usdtkit__probe_user_stack();
		t[i] = now_us() - t0;
	}
	qsort(t, (size_t)runs, sizeof(*t), cmp);
	printf("user_stack probe  median %7.1f us, p10 %7.1f, p90 %7.1f (%d runs): %s\n",
	       t[runs / 2], t[runs / 10], t[runs * 9 / 10], runs,
	       walks ? "walks" : "no walker");
	free(t);
	return 0;
}
