// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Per target: which nop sdt.h emitted, which trap replaces it, and how
 * the kernel's signal frame maps onto the target's uapi pt_regs. Each
 * architecture folder has its own (manifest key "sites", e.g.
 * arch/x86/x86_sites.c), built with this file for the host's target;
 * tests/cross/CMakeLists.txt finds the folder through the manifests.
 */
#include "sites_arch.h"

/* A 64-bit task has no compat layout; the 32-bit targets that run on a
 * 64-bit kernel (i386, arm) define their own. */
__attribute__((weak))
size_t sites_arch_regs_compat(const ucontext_t *uc, void *buf, size_t size)
{
	(void)uc;
	(void)buf;
	(void)size;
	return 0;
}
