/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Options structs start with their own size (sz), so a caller built
 * against an older, smaller struct keeps working (the fields it does not
 * know read as zero) and one built against a newer struct works as long
 * as it leaves the fields this library does not know at zero, as libbpf
 * does with its opts.
 */
#ifndef USDTKIT_CORE_OPTS_H
#define USDTKIT_CORE_OPTS_H

#include <errno.h>
#include <stddef.h>
#include <string.h>

/*
 * Copy the caller's @src (may be NULL) into @dst, @dst_sz bytes, whose
 * first member is size_t sz. 0, or -EINVAL for a size too small to hold
 * sz or non-zero bytes past what this library knows.
 */
static inline int usdtkit__opts_copy(void *dst, size_t dst_sz, const void *src)
{
	size_t sz, i;

	memset(dst, 0, dst_sz);
	if (src) {
		memcpy(&sz, src, sizeof(sz));
		if (sz < sizeof(size_t))
			return -EINVAL;
		for (i = dst_sz; i < sz; i++)
			if (((const unsigned char *)src)[i])
				return -EINVAL;
		memcpy(dst, src, sz < dst_sz ? sz : dst_sz);
	}
	memcpy(dst, &dst_sz, sizeof(dst_sz));
	return 0;
}

#endif
