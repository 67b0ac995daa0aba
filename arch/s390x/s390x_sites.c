// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probe-site check on s390x (tests/cross, manifest key "sites"): the
 * trap that replaces sdt.h's nop, and the kernel's signal frame as the
 * uapi pt_regs; see tests/cross/sites_arch.h. Built only for a host of
 * this folder's targets (tests/cross/CMakeLists.txt picks the folder).
 */
#include "sites_arch.h"

#ifndef __s390x__
#error "built for a target of another folder"
#endif

const char sites_arch_name[] = "s390x";

int sites_arch_patch(uint8_t *site)
{
	/* "nop 0" is bc 0,0: 47 00 00 00 */
	if (site[0] != 0x47 || site[1] || site[2] || site[3])
		return -ENOEXEC;
	put16(site, 0x0000);	/* an invalid opcode: SIGILL */
	return 4;
}

/* The psw already points past the 2-byte trap; si_addr is the trap. */
uintptr_t sites_arch_trap_pc(const siginfo_t *si, const ucontext_t *uc)
{
	(void)uc;
	return (uintptr_t)si->si_addr;
}

void sites_arch_resume(ucontext_t *uc, uintptr_t pc)
{
	uc->uc_mcontext.psw.addr = pc;
}

size_t sites_arch_regs(const ucontext_t *uc, void *buf, size_t size)
{
	user_pt_regs r;

	memset(&r, 0, sizeof(r));

	r.psw.mask = uc->uc_mcontext.psw.mask;
	r.psw.addr = uc->uc_mcontext.psw.addr;
	memcpy(r.gprs, uc->uc_mcontext.gregs, sizeof(r.gprs));
	return SITES_OUT(r);
}
