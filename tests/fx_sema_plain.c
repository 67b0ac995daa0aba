// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A probe without a semaphore, for tests/fx_sema.c. */
#include <sys/sdt.h>

void fx_sema_plain(int n);

void fx_sema_plain(int n)
{
	STAP_PROBE1(fxplain, tick, n);
}
