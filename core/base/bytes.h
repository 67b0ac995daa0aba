/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* An unsigned integer of @n bytes in a file's byte order, on any host. */
#ifndef USDTKIT_CORE_BYTES_H
#define USDTKIT_CORE_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline uint64_t usdtkit__get_uint(const uint8_t *p, size_t n, bool be)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v = (v << 8) | p[be ? i : n - 1 - i];
	return v;
}

#endif
