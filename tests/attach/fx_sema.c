// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fx:sema, the fixture's probe with a semaphore: it fires only while a
 * tracer holds the semaphore (the kernel counts it via ref_ctr_offset). */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#include "fx_values.h"

/*
 * [0] the semaphore; [1] a counter that only the rollback test's blocker
 * uprobe points its (deliberately different) ref_ctr_offset at. An array,
 * so [1] is at the semaphore + 2 whatever the compiler's layout: the
 * blocker once pointed 64 bytes further, into the program's own data,
 * where clang keeps a negative value; the kernel could not decrement it
 * at unregister and leaked the uprobe until reboot ("failed to
 * unregister, leaking uprobe"), failing every later attach of fx:sema.
 */
unsigned short fx_sema_semaphore[2] __attribute__((section(".probes"), used));

void fx_sema_fire(int r)
{
	if (fx_sema_semaphore[0])
		STAP_PROBE2(fx, sema, r, fx_s32(r));
}
