// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Floats in FP/vector registers: BPF cannot read them (they are not in
 * pt_regs), so usdtkit must say "unreadable", and the check counts them
 * as skipped with that status. sdt.h's default constraint lets GCC use
 * general registers; this file asks for FP registers instead.
 */
#if defined(__x86_64__) || defined(__i386__)
#define STAP_SDT_ARG_CONSTRAINT x	/* %xmmN */
#elif defined(__aarch64__) || defined(__arm__)
#define STAP_SDT_ARG_CONSTRAINT w	/* vN / sN, dN */
#else
/* riscv faN, s390x %fN; powerpc %fN only with -mregnames (a bare "1"
 * would read as r1: tests/cross/CMakeLists.txt adds it for this file) */
#define STAP_SDT_ARG_CONSTRAINT f
#endif

#include "sites_probe.h"

#ifdef __i386__
__attribute__((target("sse2")))	/* i686 has no SSE by default */
#endif
void sites_fp_probes(float f, double d)
{
	SITE2(fpregs, f, d);
}
