/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* fxpair:all (fx_pair_i386.c): what round r passes, what a reader must see. */
#ifndef FX_PAIR_H
#define FX_PAIR_H

#include <stdint.h>

#define FX_PAIR_NARGS 4

/* -4@4(%esp) -8@%eax (%edx:%eax) 1@%dl -4@%edx; %eax = r, %edx = ~r */
static inline void fx_pair_expect(long r, int64_t v[FX_PAIR_NARGS])
{
	uint32_t lo = (uint32_t)r, hi = ~lo;

	v[0] = (int32_t)lo;
	v[1] = (int64_t)((uint64_t)hi << 32 | lo);
	v[2] = hi & 0xff;
	v[3] = (int32_t)hi;
}

#endif
