// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * RISC-V register tables and the register file BPF sees: struct
 * user_regs_struct of arch/riscv/include/uapi/asm/ptrace.h (the prefix of
 * the kernel's pt_regs), one unsigned long per slot: pc, then x1..x31.
 * riscv64 and riscv32 share the names and the slot order; only the slot
 * width (and so the register width) differs.
 */
#include "spec/backends.h"
#include "riscv/riscv_regs.h"

#define RV64_ROW(e, name, id) [RVE_##e] = { name, id, 8, 0 },
#define RV32_ROW(e, name, id) [RVE_##e] = { name, id, 4, 0 },

static const struct usdtkit_regdef riscv64_regs[RVE_NR] = {
	RISCV_REG_LIST(RV64_ROW)
};

static const struct usdtkit_regdef riscv32_regs[RVE_NR] = {
	RISCV_REG_LIST(RV32_ROW)
};

/* slot i at i * @s bytes */
#define RV_OFFSETS(s)                                                         \
	{ 0 * (s),  1 * (s),  2 * (s),  3 * (s),  4 * (s),  5 * (s),          \
	  6 * (s),  7 * (s),  8 * (s),  9 * (s),  10 * (s), 11 * (s),         \
	  12 * (s), 13 * (s), 14 * (s), 15 * (s), 16 * (s), 17 * (s),         \
	  18 * (s), 19 * (s), 20 * (s), 21 * (s), 22 * (s), 23 * (s),         \
	  24 * (s), 25 * (s), 26 * (s), 27 * (s), 28 * (s), 29 * (s),         \
	  30 * (s), 31 * (s) }

static const int16_t riscv64_offsets[RISCV_NR_IDS] = RV_OFFSETS(8);
static const int16_t riscv32_offsets[RISCV_NR_IDS] = RV_OFFSETS(4);

static const struct usdtkit_layout riscv64_user_regs = {
	.name = "struct user_regs_struct (riscv64)",
	.size = RISCV_NR_IDS * 8,
	.slot_size = 8,
	.nregs = RISCV_NR_IDS,
	.offsets = riscv64_offsets,
};

static const struct usdtkit_layout riscv32_user_regs = {
	.name = "struct user_regs_struct (riscv32)",
	.size = RISCV_NR_IDS * 4,
	.slot_size = 4,
	.nregs = RISCV_NR_IDS,
	.offsets = riscv32_offsets,
};

/* RV32 GCC keeps a 64-bit value in consecutive registers, low word in the
 * named one: "-8@a0" is a1:a0. No pair starts at pc (slot 0) or x31. */
static const int8_t riscv32_pair_hi[RISCV_NR_IDS] = {
	-1, 2,	3,  4,	5,  6,  7,  8,	9,  10, 11, 12, 13, 14, 15, 16,
	17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, -1,
};

const struct usdtkit_arch usdtkit__arch_riscv64 = {
	USDTKIT_MANIFEST_riscv64,
	.regs = riscv64_regs,
	.nregs = RVE_NR,
	.native = &riscv64_user_regs,
};

const struct usdtkit_arch usdtkit__arch_riscv32 = {
	USDTKIT_MANIFEST_riscv32,
	.regs = riscv32_regs,
	.nregs = RVE_NR,
	.pair_hi = riscv32_pair_hi,
	.native = &riscv32_user_regs,
};
