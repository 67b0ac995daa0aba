// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The END of tests/fx_lat.c's latency pair, in another object. */
#include <sys/sdt.h>

__attribute__((noinline)) void fx_lat_end(long id)
{
	DTRACE_PROBE1(latlib, end, id);
}
