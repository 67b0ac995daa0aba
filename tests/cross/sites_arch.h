/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What each folder's probe-site support (arch/<dir>/<sites>, manifest key
 * "sites") shares: the declarations of sites.h, <asm/ptrace.h>, byte
 * helpers and SITES_OUT. The register images are built from the uapi
 * field names, never from usdtkit's own offset tables, so a wrong table
 * shows up as a mismatch.
 *
 * Traps: each one is no longer than the nop it replaces and changes no
 * general register (only the pc, which the handler sets past the nop).
 */
#ifndef USDTKIT_TESTS_CROSS_SITES_ARCH_H
#define USDTKIT_TESTS_CROSS_SITES_ARCH_H

#include <errno.h>
#include <string.h>

#include <asm/ptrace.h>

#include "sites.h"

/* byte helpers: each arch uses some of them (clang warns of the rest) */

__attribute__((unused)) static inline uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

__attribute__((unused)) static inline uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

__attribute__((unused)) static inline void put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

__attribute__((unused)) static inline void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Copy the uapi struct @r into @buf. */
#define SITES_OUT(r)                                                         \
	(sizeof(r) > size ? 0 : (memcpy(buf, &(r), sizeof(r)), sizeof(r)))

/*
 * The trap's pc and the pc to resume at, for the arches whose kernel
 * reports a trap at the trapping instruction and keeps the pc in one
 * field of the signal's context: @field of uc->uc_mcontext.
 */
#define SITES_ARCH_PC_FIELD(field)					\
uintptr_t sites_arch_trap_pc(const siginfo_t *si, const ucontext_t *uc)	\
{									\
	(void)si;							\
	return uc->uc_mcontext.field;					\
}									\
void sites_arch_resume(ucontext_t *uc, uintptr_t pc)			\
{									\
	uc->uc_mcontext.field = pc;					\
}

#endif
