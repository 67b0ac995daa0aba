/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Arrays of records sorted by a u64 field (an address): where a key
 * falls (the CFI rows by pc, a process's mappings by end). */
#ifndef USDTKIT_CORE_U64_INDEX_H
#define USDTKIT_CORE_U64_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The index in @base (@n records of @size bytes, sorted by the u64 at
 * byte @off of each) of the first record whose field is above @key; @n
 * when none is. */
static inline size_t usdtkit__u64_above(const void *base, size_t n, size_t size,
					size_t off, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t v;

		memcpy(&v, (const char *)base + mid * size + off, sizeof(v));
		if (v <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
