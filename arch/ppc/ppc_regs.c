// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * PowerPC 64 register table and the register file BPF sees: the uapi
 * struct pt_regs of arch/powerpc/include/uapi/asm/ptrace.h (the kernel's
 * pt_regs starts with the same fields, as user_pt_regs):
 *
 *   unsigned long gpr[32];
 *   unsigned long nip, msr, orig_gpr3, ctr, link, xer, ccr, softe,
 *                 trap, dar, dsisr, result;
 *
 * one 8-byte slot each, so slot n is at 8 * n. ppc64le and ppc64 share
 * the names and the slot order; only the byte order of the slots differs.
 * FP, vector and VSX registers are not in it.
 */
#include "spec/backends.h"
#include "ppc/ppc_regs.h"

#define PPC_ROW(n) [PPCE_R##n] = { "r" #n, n, 8, 0 },
static const struct usdtkit_regdef ppc_regs[PPCE_NR] = {
	PPC_GPR_LIST(PPC_ROW)
	[PPCE_NIP] = { "nip", PPC_ID_NIP, 8, 0 },
	[PPCE_MSR] = { "msr", PPC_ID_MSR, 8, 0 },
	[PPCE_CTR] = { "ctr", PPC_ID_CTR, 8, 0 },
	/* pt_regs calls it "link"; assemblers say "lr" */
	[PPCE_LR] = { "lr", PPC_ID_LINK, 8, 0 },
	[PPCE_XER] = { "xer", PPC_ID_XER, 8, 0 },
	[PPCE_CCR] = { "ccr", PPC_ID_CCR, 8, 0 },
};

/* every slot is 8 bytes: slot n at 8 * n */
#define PPC_OFF8(n) [n] = 8 * (n),
static const int16_t ppc_offsets[PPC_NR_IDS] = {
	PPC_GPR_LIST(PPC_OFF8)
	PPC_OFF8(PPC_ID_NIP) PPC_OFF8(PPC_ID_MSR) PPC_OFF8(PPC_ID_ORIG_GPR3)
	PPC_OFF8(PPC_ID_CTR) PPC_OFF8(PPC_ID_LINK) PPC_OFF8(PPC_ID_XER)
	PPC_OFF8(PPC_ID_CCR) PPC_OFF8(PPC_ID_SOFTE) PPC_OFF8(PPC_ID_TRAP)
	PPC_OFF8(PPC_ID_DAR) PPC_OFF8(PPC_ID_DSISR) PPC_OFF8(PPC_ID_RESULT)
};

static const struct usdtkit_layout ppc64le_pt_regs = {
	.name = "struct pt_regs (ppc64le)",
	.size = 8 * PPC_NR_IDS,
	.slot_size = 8,
	.nregs = PPC_NR_IDS,
	.offsets = ppc_offsets,
};

static const struct usdtkit_layout ppc64_pt_regs = {
	.name = "struct pt_regs (ppc64)",
	.size = 8 * PPC_NR_IDS,
	.slot_size = 8,
	.big_endian = true,
	.nregs = PPC_NR_IDS,
	.offsets = ppc_offsets,
};

const struct usdtkit_arch usdtkit__arch_ppc64le = {
	USDTKIT_MANIFEST_ppc64le,
	.regs = ppc_regs,
	.nregs = PPCE_NR,
	.native = &ppc64le_pt_regs,
};

const struct usdtkit_arch usdtkit__arch_ppc64 = {
	USDTKIT_MANIFEST_ppc64,
	.regs = ppc_regs,
	.nregs = PPCE_NR,
	.native = &ppc64_pt_regs,
};
