/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The one clock of the trace engine and the CLI: CLOCK_MONOTONIC in ns,
 * the clock of bpf_ktime_get_ns(), so a hit's time and ours compare.
 * Header only: the CLI calls nothing of the library's internals. */
#ifndef USDTKIT_CORE_CLOCK_H
#define USDTKIT_CORE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
