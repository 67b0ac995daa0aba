// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit_cross:sema, a probe behind a semaphore (sdt.h's
 * _SDT_HAS_SEMAPHORES): it fires only while the kernel holds the
 * semaphore up for a tracer (uprobe ref_ctr_offset). Two sites, so an
 * attach can fail at the last one after the first took the semaphore
 * (vm_api's rollback).
 *
 * Built with -fno-toplevel-reorder: vm_sema_decoy directly follows the
 * semaphore, a harmless place for a blocker uprobe's wrong semaphore.
 */
#define _SDT_HAS_SEMAPHORES 1
#include "sites_probe.h"
#include "vm_sites.h"

unsigned short usdtkit_cross_sema_semaphore __attribute__((section(".probes"), used));
unsigned short vm_sema_decoy __attribute__((section(".probes"), used));

bool vm_counting;

NOINLINE static void sema_a(int round)
{
	if (usdtkit_cross_sema_semaphore || vm_counting)
		SITE2(sema, round, usdtkit_cross_sema_semaphore);
}

NOINLINE static void sema_b(int round)
{
	if (usdtkit_cross_sema_semaphore || vm_counting)
		SITE2(sema, -round, usdtkit_cross_sema_semaphore);
}

void vm_sema_fire(int round)
{
	sema_a(round);
	sema_b(round);
}

volatile unsigned short *vm_sema_addr(void)
{
	return &usdtkit_cross_sema_semaphore;
}

volatile unsigned short *vm_sema_decoy_addr(void)
{
	return &vm_sema_decoy;
}
