/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The benches' one way to sum up repeated timings: minimum, median
 * (the mean of the middle two of an even count) and maximum, read from
 * a sorted copy so that the samples keep their order. Header only: each
 * bench is one program. */
#ifndef USDTKIT_BENCH_STATS_H
#define USDTKIT_BENCH_STATS_H

#include <stdlib.h>
#include <string.h>

struct spread {
	double min, med, max;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* 0, or -1 (no samples, or no memory for the copy) */
static inline int spread_of(const double *v, int n, struct spread *s)
{
	double *c;

	if (n <= 0 || !(c = malloc((size_t)n * sizeof(*c))))
		return -1;
	memcpy(c, v, (size_t)n * sizeof(*c));
	qsort(c, (size_t)n, sizeof(*c), cmp_double);
	s->min = c[0];
	s->max = c[n - 1];
	s->med = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return 0;
}

/* the median of @n samples, or -1 when there are none */
static inline double median(const double *v, int n)
{
	struct spread s;

	return spread_of(v, n, &s) ? -1 : s.med;
}

#endif
