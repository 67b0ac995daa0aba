/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Options structs start with their own size (sz), so a caller built
 * against an older, smaller struct keeps working (the fields it does not
 * know read as zero) and one built against a newer struct works as long
 * as it leaves the fields this library does not know at zero, as libbpf
 * does with its opts.
 *
 * "What this library knows" ends where the struct's last field ends
 * (TYPE__last_field in the public header), not at sizeof: a field
 * appended later may sit in what is trailing padding here (a bool after
 * a bool), leaving sizeof unchanged, and a check against sizeof would
 * then accept a caller that set it and silently ignore it. Callers zero
 * the padding with USDTKIT_OPTS(), so a byte past the last known field
 * is either zero or a field this library does not have.
 */
#ifndef USDTKIT_CORE_OPTS_H
#define USDTKIT_CORE_OPTS_H

#include <errno.h>
#include <stddef.h>
#include <string.h>

#define usdtkit__offsetofend(type, field) \
	(offsetof(type, field) + sizeof(((type *)0)->field))

/* Bytes of struct TYPE this library knows: up to its last field. */
#define usdtkit__opts_known(TYPE) \
	usdtkit__offsetofend(struct TYPE, TYPE##__last_field)

/*
 * Copy the caller's @src (may be NULL) into @dst, @dst_sz bytes of which
 * the first @known are fields (the rest padding), whose first member is
 * size_t sz. 0, or -EINVAL for a size too small to hold sz or non-zero
 * bytes past what this library knows. Afterwards dst->sz = @dst_sz and
 * every field the caller's struct did not reach is zero.
 */
static inline int usdtkit__opts_copy_sz(void *dst, size_t dst_sz, size_t known,
					const void *src)
{
	const unsigned char *p = src;
	size_t sz, i;

	memset(dst, 0, dst_sz);
	if (src) {
		memcpy(&sz, src, sizeof(sz));
		if (sz < sizeof(size_t))
			return -EINVAL;
		for (i = known; i < sz; i++)
			if (p[i])
				return -EINVAL;
		memcpy(dst, src, sz < known ? sz : known);
	}
	memcpy(dst, &dst_sz, sizeof(dst_sz));
	return 0;
}

/* usdtkit__opts_copy(&o, usdtkit_open_opts, user) */
#define usdtkit__opts_copy(dst, TYPE, src)                                    \
	usdtkit__opts_copy_sz((dst), sizeof(struct TYPE),                     \
			      usdtkit__opts_known(TYPE), (src))

#endif
