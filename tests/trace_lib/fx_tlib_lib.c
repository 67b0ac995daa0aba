// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libfx_tlib.so: a probe that only the program's library has. */
#include <sys/sdt.h>

void fx_tlib_fire(int n);

void fx_tlib_fire(int n)
{
	int k;

	for (k = 0; k < n; k++)
		DTRACE_PROBE1(tlibl, fire, k);
}
