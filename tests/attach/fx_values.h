/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the attach-test fixtures pass to their probes in round @r, shared
 * by the fixtures (which pass them) and the test (which expects them).
 * Every width and sign, with values that differ per round.
 */
#ifndef FX_VALUES_H
#define FX_VALUES_H

#include <stdint.h>

#define FX_ARR_LEN 8

static inline int8_t fx_s8(int r) { return (int8_t)(-1 - r); }
static inline uint8_t fx_u8(int r) { return (uint8_t)(250 - r); }
static inline int16_t fx_s16(int r) { return (int16_t)(-300 - r); }
static inline uint16_t fx_u16(int r) { return (uint16_t)(65000 + r); }
static inline int32_t fx_s32(int r) { return -70000 - r; }
static inline uint32_t fx_u32(int r) { return 4000000000u + (uint32_t)r; }
static inline int64_t fx_s64(int r) { return -5000000000ll - r; }
static inline uint64_t fx_u64(int r) { return ~0ull - (uint64_t)r; }
static inline int fx_global(int r) { return r * 7 + 1; }	/* g_counter */
static inline int fx_arr(int i) { return i * 11 - 40; }		/* g_arr[i] */
static inline int fx_idx(int r) { return (r * 3) % FX_ARR_LEN; }
#define FX_CONST 42

/* The 12 values of fx:twelve in round @r, as the test expects them. */
static inline void fx_twelve(int r, int64_t v[12])
{
	v[0] = r;
	v[1] = fx_s8(r);
	v[2] = fx_u8(r);
	v[3] = fx_s16(r);
	v[4] = fx_u16(r);
	v[5] = fx_s32(r);
	v[6] = fx_u32(r);
	v[7] = fx_s64(r);
	v[8] = (int64_t)fx_u64(r);
	v[9] = fx_global(r);
	v[10] = fx_arr(fx_idx(r));
	v[11] = FX_CONST;
}

/* fx:three and fxlib:three */
static inline void fx_three(int r, int64_t v[3])
{
	v[0] = r;
	v[1] = -1000ll * r - 1;
	v[2] = fx_u16(r);
}

#endif
