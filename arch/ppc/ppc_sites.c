// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probe-site check on ppc64le and ppc64 (tests/cross, manifest key
 * "sites"): the trap that replaces sdt.h's nop, and the signal frame as
 * the uapi pt_regs; see tests/cross/sites_arch.h. Built only for a host
 * of this folder's targets (tests/cross/CMakeLists.txt picks the folder).
 */
#include "sites_arch.h"

#ifndef __powerpc64__
#error "built for a target of another folder"
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
const char sites_arch_name[] = "ppc64le";
#else
const char sites_arch_name[] = "ppc64";
#endif

int sites_arch_patch(uint8_t *site)
{
	if (get32(site) != 0x60000000)		/* nop = ori 0,0,0 */
		return -ENOEXEC;
	put32(site, 0x7fe00008);		/* trap = tw 31,0,0: SIGTRAP */
	return 4;
}

/* A trap leaves nip at the trap itself. */
SITES_ARCH_PC_FIELD(gp_regs[PT_NIP])

size_t sites_arch_regs(const ucontext_t *uc, void *buf, size_t size)
{
	/* gp_regs[] holds the pt_regs slots in the ptrace order (PT_R0 ..
	 * PT_RESULT), but copy field by field: the check must not lean on
	 * that order either */
	const unsigned long *g = uc->uc_mcontext.gp_regs;
	struct pt_regs r;
	int i;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < 32; i++)
		r.gpr[i] = g[PT_R0 + i];
	r.nip = g[PT_NIP];
	r.msr = g[PT_MSR];
	r.orig_gpr3 = g[PT_ORIG_R3];
	r.ctr = g[PT_CTR];
	r.link = g[PT_LNK];
	r.xer = g[PT_XER];
	r.ccr = g[PT_CCR];
	r.softe = g[PT_SOFTE];
	r.trap = g[PT_TRAP];
	r.dar = g[PT_DAR];
	r.dsisr = g[PT_DSISR];
	r.result = g[PT_RESULT];
	return SITES_OUT(r);
}
