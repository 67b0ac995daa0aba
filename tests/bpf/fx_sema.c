// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fx:sema, the fixture's probe with a semaphore: it fires only while a
 * tracer holds the semaphore (the kernel counts it via ref_ctr_offset). */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#include "fx_values.h"

unsigned short fx_sema_semaphore __attribute__((section(".probes"), used));

void fx_sema_fire(int r)
{
	if (fx_sema_semaphore)
		STAP_PROBE2(fx, sema, r, fx_s32(r));
}
