/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Arrays of records sorted by pid, each record starting with its int
 * pid: where a pid is, or would go (the symbolizer's kept pids, the
 * trace engine's pids with stacks). */
#ifndef USDTKIT_CORE_PID_INDEX_H
#define USDTKIT_CORE_PID_INDEX_H

#include <stddef.h>

/* The index in @base (@n records of @size bytes) of the first record
 * whose pid is not below @pid. */
static inline size_t usdtkit__pid_index(const void *base, size_t n, size_t size, int pid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (*(const int *)(const void *)((const char *)base + mid * size) < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
