// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * aarch64 register table and the register file BPF sees: struct
 * user_pt_regs of arch/arm64/include/uapi/asm/ptrace.h, which the kernel's
 * struct pt_regs begins with:
 *   u64 regs[31]; u64 sp; u64 pc; u64 pstate;	(272 bytes)
 * xN and wN are two views of one slot (wN: the low 4 bytes).
 */
#include "spec/backends.h"
#include "arm64/arm64_regs.h"

#define XW(n)                                                                \
	[A64E_X0 + (n)] = { "x" #n, A64_X0 + (n), 8, 0 },                    \
	[A64E_W0 + (n)] = { "w" #n, A64_X0 + (n), 4, 0 }

static const struct usdtkit_regdef arm64_regs[A64E_NR] = {
	XW(0),	XW(1),	XW(2),	XW(3),	XW(4),	XW(5),	XW(6),	XW(7),
	XW(8),	XW(9),	XW(10), XW(11), XW(12), XW(13), XW(14), XW(15),
	XW(16), XW(17), XW(18), XW(19), XW(20), XW(21), XW(22), XW(23),
	XW(24), XW(25), XW(26), XW(27), XW(28), XW(29), XW(30),
	[A64E_SP] = { "sp", A64_SP, 8, 0 },
	[A64E_WSP] = { "wsp", A64_SP, 4, 0 },
};

#undef XW

#define X(n) [A64_X0 + (n)] = 8 * (n)

static const int16_t arm64_offsets[A64_NR_IDS] = {
	X(0),  X(1),  X(2),  X(3),  X(4),  X(5),  X(6),	 X(7),
	X(8),  X(9),  X(10), X(11), X(12), X(13), X(14), X(15),
	X(16), X(17), X(18), X(19), X(20), X(21), X(22), X(23),
	X(24), X(25), X(26), X(27), X(28), X(29), X(30),
	[A64_SP] = 248,
	[A64_PC] = 256,
	[A64_PSTATE] = 264,
};

#undef X

static const struct usdtkit_layout arm64_user_pt_regs = {
	.name = "struct user_pt_regs (aarch64)",
	.size = 272,
	.slot_size = 8,
	.nregs = A64_NR_IDS,
	.offsets = arm64_offsets,
};

/* No register pairs: a value wider than 8 bytes is unsupported. */
const struct usdtkit_arch usdtkit__arch_aarch64 = {
	USDTKIT_MANIFEST_aarch64,
	.regs = arm64_regs,
	.nregs = A64E_NR,
	.native = &arm64_user_pt_regs,
};
