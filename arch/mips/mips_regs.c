// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * MIPS64 (n64) register tables and the register file BPF sees.
 *
 * A uprobe's BPF context on mips is the kernel's own struct pt_regs
 * (bpf_user_pt_regs_t is struct pt_regs: the asm-generic
 * bpf_perf_event.h), as arch/mips/include/asm/ptrace.h defines it:
 *
 *	#ifdef CONFIG_32BIT
 *	unsigned long pad0[8];		(absent on a 64-bit kernel)
 *	#endif
 *	unsigned long regs[32];		0 .. 248
 *	cp0_status, hi, lo,		256, 264, 272
 *	[acx with CONFIG_CPU_HAS_SMARTMIPS, a MIPS32 extension]
 *	cp0_badvaddr, cp0_cause,	280, 288
 *	cp0_epc				296
 *	[Octeon's mpl/mtp, after cp0_epc]
 *
 * This is not the uapi struct pt_regs of <asm/ptrace.h> (PTRACE_GETREGS):
 * that one has the same regs[32] at 0 but orders the special registers
 * lo, hi, cp0_epc, ..., so its cp0_epc is at 272, the kernel's lo. regs[]
 * agree, and tests/layouts proves them against the uapi header; the IP
 * offset is the kernel's (docs/ARCHES.md has the evidence).
 *
 * mips64el and mips64 share names, ids and offsets; only the byte order
 * of the slots differs.
 */
#include "spec/backends.h"
#include "mips/mips_regs.h"

#define MIPS_ROW(e, name, id) [MIPSE_##e] = { name, id, 8, 0 },

static const struct usdtkit_regdef mips_regs[MIPSE_NR] = {
	MIPS_REG_LIST(MIPS_ROW)
};

/* regs[n] at 8 * n; cp0_epc after cp0_status, hi, lo, badvaddr, cause */
static const int16_t mips_offsets[MIPS_NR_IDS] = {
	0,   8,	  16,  24,  32,	 40,  48,  56,	64,  72,  80,
	88,  96,  104, 112, 120, 128, 136, 144, 152, 160, 168,
	176, 184, 192, 200, 208, 216, 224, 232, 240, 248,
	[MIPS_EPC] = 296,
};

static const struct usdtkit_layout mips64el_pt_regs = {
	.name = "struct pt_regs (mips64, kernel)",
	.size = 304,
	.slot_size = 8,
	.nregs = MIPS_NR_IDS,
	.offsets = mips_offsets,
};

static const struct usdtkit_layout mips64_pt_regs = {
	.name = "struct pt_regs (mips64, kernel), big-endian",
	.size = 304,
	.slot_size = 8,
	.big_endian = true,
	.nregs = MIPS_NR_IDS,
	.offsets = mips_offsets,
};

/*
 * n64 only. n32 objects are ELFCLASS32 (with EF_MIPS_ABI2) and o32 ones
 * ELFCLASS32 too, so neither matches these ELFCLASS64 identities: their
 * 32-bit pointers and different register names must not be read as n64.
 */
const struct usdtkit_arch usdtkit__arch_mips64el = {
	USDTKIT_MANIFEST_mips64el,
	.regs = mips_regs,
	.nregs = MIPSE_NR,
	.native = &mips64el_pt_regs,
};

const struct usdtkit_arch usdtkit__arch_mips64 = {
	USDTKIT_MANIFEST_mips64,
	.regs = mips_regs,
	.nregs = MIPSE_NR,
	.native = &mips64_pt_regs,
};
