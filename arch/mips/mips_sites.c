// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probe-site check on mips64el and mips64 (tests/cross, manifest key
 * "sites"): the trap that replaces sdt.h's nop, and the signal frame as
 * the uapi pt_regs; see tests/cross/sites_arch.h. Built only for a host
 * of this folder's targets (tests/cross/CMakeLists.txt picks the folder).
 */
#include "sites_arch.h"

#if !defined(__mips__) || _MIPS_SIM != _ABI64
#error "built for a target of another folder"
#endif

#ifdef __MIPSEL__
const char sites_arch_name[] = "mips64el";
#else
const char sites_arch_name[] = "mips64";
#endif

int sites_arch_patch(uint8_t *site)
{
	/* sdt.h's nop is sll $0, $0, 0: all zero in either byte order */
	if (get32(site) != 0)
		return -ENOEXEC;
	put32(site, 0x0000000d);	/* break 0: SIGTRAP, pc at the break */
	return 4;
}

SITES_ARCH_PC_FIELD(pc)

size_t sites_arch_regs(const ucontext_t *uc, void *buf, size_t size)
{
	struct pt_regs r;
	int i;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < 32; i++)
		r.regs[i] = uc->uc_mcontext.gregs[i];
	r.lo = uc->uc_mcontext.mdlo;
	r.hi = uc->uc_mcontext.mdhi;
	r.cp0_epc = uc->uc_mcontext.pc;
	return SITES_OUT(r);
}

