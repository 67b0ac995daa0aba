/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* fxforms:all: what the fixture stores in round r, what the test expects. */
#ifndef FX_FORMS_H
#define FX_FORMS_H

#include <stdint.h>
#include <string.h>

static inline void fx_forms_set(long r, long *val, int arr32[4], short arr16[4])
{
	int i;

	*val = r * 5 - 1000;
	for (i = 0; i < 4; i++) {
		arr32[i] = i * 1000 - (int)r;
		arr16[i] = (short)(-(i + 1) * 3 - r);
	}
}

#define FX_FORMS_NARGS 10

static inline void fx_forms_expect(long r, int64_t v[FX_FORMS_NARGS])
{
	int arr32[4];
	short arr16[4];
	long val;
	uint64_t pair;

	fx_forms_set(r, &val, arr32, arr16);
	v[0] = (int8_t)(r & 0xff);			/* -1@%ah */
	v[1] = 0x7f;					/* 1@%al */
	v[2] = (int16_t)((r << 8) | 0x7f);		/* -2@%ax */
	v[3] = r;					/* -8@%rdi */
	v[4] = arr32[r & 3];				/* -4@(%rcx,%rsi,4) */
	v[5] = arr16[r & 3];				/* -2@fx_arr16(,%rsi,2) */
	v[6] = val;					/* -8@fx_val(%rip) */
	v[7] = val;					/* -8@fx_val */
	v[8] = -5;					/* -4@$-5 */
	memcpy(&pair, &arr32[2], 8);			/* 8@8(%rcx) */
	v[9] = (int64_t)pair;
}

#endif
