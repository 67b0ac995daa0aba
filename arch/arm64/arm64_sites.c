// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probe-site check on AArch64 (tests/cross, manifest key "sites"): the
 * trap that replaces sdt.h's nop, and the kernel's signal frame as the
 * uapi pt_regs; see tests/cross/sites_arch.h. Built only for a host of
 * this folder's targets (tests/cross/CMakeLists.txt picks the folder).
 */
#include "sites_arch.h"

#ifndef __aarch64__
#error "built for a target of another folder"
#endif

const char sites_arch_name[] = "aarch64";

int sites_arch_patch(uint8_t *site)
{
	if (get32(site) != 0xd503201f)		/* nop */
		return -ENOEXEC;
	put32(site, 0xd4200000);		/* brk #0: SIGTRAP */
	return 4;
}

SITES_ARCH_PC_FIELD(pc)

size_t sites_arch_regs(const ucontext_t *uc, void *buf, size_t size)
{
	struct user_pt_regs r;

	memcpy(r.regs, uc->uc_mcontext.regs, sizeof(r.regs));
	r.sp = uc->uc_mcontext.sp;
	r.pc = uc->uc_mcontext.pc;
	r.pstate = uc->uc_mcontext.pstate;
	return SITES_OUT(r);
}
