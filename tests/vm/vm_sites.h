/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The VM workload's probes beyond tests/cross/sites_probes.c. */
#ifndef USDTKIT_TESTS_VM_SITES_H
#define USDTKIT_TESTS_VM_SITES_H

#include <stdbool.h>

/* count mode: the semaphore probe fires as if a tracer held it */
extern bool vm_counting;

/* both sites of usdtkit_cross:sema (while the semaphore is up) */
void vm_sema_fire(int round);
/* the semaphore, and the short after it (a blocker's wrong semaphore) */
volatile unsigned short *vm_sema_addr(void);
volatile unsigned short *vm_sema_decoy_addr(void);

#endif
