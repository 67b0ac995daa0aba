// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probe-site check on riscv64 (tests/cross, manifest key "sites"): the
 * trap that replaces sdt.h's nop, and the kernel's signal frame as the
 * uapi pt_regs; see tests/cross/sites_arch.h. Built only for a host of
 * this folder's targets (tests/cross/CMakeLists.txt picks the folder).
 */
#include "sites_arch.h"

#if !defined(__riscv) || __riscv_xlen != 64
#error "built for a target of another folder"
#endif

const char sites_arch_name[] = "riscv64";

int sites_arch_patch(uint8_t *site)
{
	if (get16(site) == 0x0001) {		/* c.nop (RVC) */
		put16(site, 0x9002);		/* c.ebreak */
		return 2;
	}
	if (get32(site) == 0x00000013) {	/* nop = addi x0, x0, 0 */
		put32(site, 0x00100073);	/* ebreak */
		return 4;
	}
	return -ENOEXEC;
}

SITES_ARCH_PC_FIELD(__gregs[REG_PC])

size_t sites_arch_regs(const ucontext_t *uc, void *buf, size_t size)
{
	const unsigned long *g = uc->uc_mcontext.__gregs;
	/* __gregs[0] is the pc, __gregs[n] is xn */
	struct user_regs_struct r = {
		.pc = g[0], .ra = g[1], .sp = g[2], .gp = g[3], .tp = g[4],
		.t0 = g[5], .t1 = g[6], .t2 = g[7], .s0 = g[8], .s1 = g[9],
		.a0 = g[10], .a1 = g[11], .a2 = g[12], .a3 = g[13],
		.a4 = g[14], .a5 = g[15], .a6 = g[16], .a7 = g[17],
		.s2 = g[18], .s3 = g[19], .s4 = g[20], .s5 = g[21],
		.s6 = g[22], .s7 = g[23], .s8 = g[24], .s9 = g[25],
		.s10 = g[26], .s11 = g[27], .t3 = g[28], .t4 = g[29],
		.t5 = g[30], .t6 = g[31],
	};

	return SITES_OUT(r);
}
