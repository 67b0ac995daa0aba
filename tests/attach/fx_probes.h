/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The probes of the attach-test fixtures, as one function per probe so
 * the executable and the library fire the same shapes. PROV is the
 * provider name (fx, fxlib).
 */
#include <sys/sdt.h>

#include "fx_values.h"

/* per-provider globals, so the executable's and the library's never
 * interpose on each other */
#define FX_CAT_(a, b) a##_##b
#define FX_CAT(a, b) FX_CAT_(a, b)
#define g_counter FX_CAT(PROV, g_counter)
#define g_arr FX_CAT(PROV, g_arr)
#define fx_fire_round FX_CAT(PROV, fire_round)

int g_counter;
int g_arr[FX_ARR_LEN];

static void fx_fire_round(int r)
{
	/* a stack slot whose address escapes: the compiler keeps it in memory */
	volatile int64_t on_stack = fx_s64(r);
	int i;

	for (i = 0; i < FX_ARR_LEN; i++)
		g_arr[i] = fx_arr(i);
	g_counter = fx_global(r);
	STAP_PROBE(PROV, zero);
	STAP_PROBE3(PROV, three, r, -1000ll * r - 1, fx_u16(r));
	STAP_PROBE12(PROV, twelve, r, fx_s8(r), fx_u8(r), fx_s16(r), fx_u16(r),
		     fx_s32(r), fx_u32(r), on_stack, fx_u64(r), g_counter,
		     g_arr[fx_idx(r)], FX_CONST);
}
