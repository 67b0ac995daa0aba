// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * x86 register table and the pt_regs layouts BPF sees:
 * - x86-64 kernel: struct pt_regs of arch/x86/include/uapi/asm/ptrace.h;
 * - i386 kernel: the 32-bit struct pt_regs (4-byte slots);
 * - an i386 (or x32) process on an x86-64 kernel: the x86-64 pt_regs.
 * tests/layouts proves every offset against the real uapi headers.
 */
#include "spec/backends.h"
#include "x86/x86_regs.h"

static const struct usdtkit_regdef x86_regs[X86E_NR] = {
	[X86E_EAX] = { "eax", X86_AX, 4, 0 },
	[X86E_AX] = { "ax", X86_AX, 2, 0 },
	[X86E_AL] = { "al", X86_AX, 1, 0 },
	[X86E_AH] = { "ah", X86_AX, 1, 8 },
	[X86E_EBX] = { "ebx", X86_BX, 4, 0 },
	[X86E_BX] = { "bx", X86_BX, 2, 0 },
	[X86E_BL] = { "bl", X86_BX, 1, 0 },
	[X86E_BH] = { "bh", X86_BX, 1, 8 },
	[X86E_ECX] = { "ecx", X86_CX, 4, 0 },
	[X86E_CX] = { "cx", X86_CX, 2, 0 },
	[X86E_CL] = { "cl", X86_CX, 1, 0 },
	[X86E_CH] = { "ch", X86_CX, 1, 8 },
	[X86E_EDX] = { "edx", X86_DX, 4, 0 },
	[X86E_DX] = { "dx", X86_DX, 2, 0 },
	[X86E_DL] = { "dl", X86_DX, 1, 0 },
	[X86E_DH] = { "dh", X86_DX, 1, 8 },
	[X86E_ESI] = { "esi", X86_SI, 4, 0 },
	[X86E_SI] = { "si", X86_SI, 2, 0 },
	[X86E_EDI] = { "edi", X86_DI, 4, 0 },
	[X86E_DI] = { "di", X86_DI, 2, 0 },
	[X86E_EBP] = { "ebp", X86_BP, 4, 0 },
	[X86E_BP] = { "bp", X86_BP, 2, 0 },
	[X86E_ESP] = { "esp", X86_SP, 4, 0 },
	[X86E_SP] = { "sp", X86_SP, 2, 0 },
	[X86E_EIP] = { "eip", X86_IP, 4, 0 },
	[X86E_RAX] = { "rax", X86_AX, 8, 0 },
	[X86E_RBX] = { "rbx", X86_BX, 8, 0 },
	[X86E_RCX] = { "rcx", X86_CX, 8, 0 },
	[X86E_RDX] = { "rdx", X86_DX, 8, 0 },
	[X86E_RSI] = { "rsi", X86_SI, 8, 0 },
	[X86E_RDI] = { "rdi", X86_DI, 8, 0 },
	[X86E_RBP] = { "rbp", X86_BP, 8, 0 },
	[X86E_RSP] = { "rsp", X86_SP, 8, 0 },
	[X86E_RIP] = { "rip", X86_IP, 8, 0 },
	[X86E_SIL] = { "sil", X86_SI, 1, 0 },
	[X86E_DIL] = { "dil", X86_DI, 1, 0 },
	[X86E_BPL] = { "bpl", X86_BP, 1, 0 },
	[X86E_SPL] = { "spl", X86_SP, 1, 0 },
	[X86E_R8] = { "r8", X86_R8, 8, 0 },
	[X86E_R8D] = { "r8d", X86_R8, 4, 0 },
	[X86E_R8W] = { "r8w", X86_R8, 2, 0 },
	[X86E_R8B] = { "r8b", X86_R8, 1, 0 },
	[X86E_R9] = { "r9", X86_R9, 8, 0 },
	[X86E_R9D] = { "r9d", X86_R9, 4, 0 },
	[X86E_R9W] = { "r9w", X86_R9, 2, 0 },
	[X86E_R9B] = { "r9b", X86_R9, 1, 0 },
	[X86E_R10] = { "r10", X86_R10, 8, 0 },
	[X86E_R10D] = { "r10d", X86_R10, 4, 0 },
	[X86E_R10W] = { "r10w", X86_R10, 2, 0 },
	[X86E_R10B] = { "r10b", X86_R10, 1, 0 },
	[X86E_R11] = { "r11", X86_R11, 8, 0 },
	[X86E_R11D] = { "r11d", X86_R11, 4, 0 },
	[X86E_R11W] = { "r11w", X86_R11, 2, 0 },
	[X86E_R11B] = { "r11b", X86_R11, 1, 0 },
	[X86E_R12] = { "r12", X86_R12, 8, 0 },
	[X86E_R12D] = { "r12d", X86_R12, 4, 0 },
	[X86E_R12W] = { "r12w", X86_R12, 2, 0 },
	[X86E_R12B] = { "r12b", X86_R12, 1, 0 },
	[X86E_R13] = { "r13", X86_R13, 8, 0 },
	[X86E_R13D] = { "r13d", X86_R13, 4, 0 },
	[X86E_R13W] = { "r13w", X86_R13, 2, 0 },
	[X86E_R13B] = { "r13b", X86_R13, 1, 0 },
	[X86E_R14] = { "r14", X86_R14, 8, 0 },
	[X86E_R14D] = { "r14d", X86_R14, 4, 0 },
	[X86E_R14W] = { "r14w", X86_R14, 2, 0 },
	[X86E_R14B] = { "r14b", X86_R14, 1, 0 },
	[X86E_R15] = { "r15", X86_R15, 8, 0 },
	[X86E_R15D] = { "r15d", X86_R15, 4, 0 },
	[X86E_R15W] = { "r15w", X86_R15, 2, 0 },
	[X86E_R15B] = { "r15b", X86_R15, 1, 0 },
};

static const int16_t x86_64_offsets[X86_NR_IDS] = {
	[X86_R15] = 0,	 [X86_R14] = 8,	  [X86_R13] = 16, [X86_R12] = 24,
	[X86_BP] = 32,	 [X86_BX] = 40,	  [X86_R11] = 48, [X86_R10] = 56,
	[X86_R9] = 64,	 [X86_R8] = 72,	  [X86_AX] = 80,  [X86_CX] = 88,
	[X86_DX] = 96,	 [X86_SI] = 104,  [X86_DI] = 112, [X86_IP] = 128,
	[X86_SP] = 152,
};

static const int16_t i386_offsets[X86_NR_IDS] = {
	[X86_BX] = 0,	[X86_CX] = 4,	[X86_DX] = 8,	[X86_SI] = 12,
	[X86_DI] = 16,	[X86_BP] = 20,	[X86_AX] = 24,	[X86_IP] = 48,
	[X86_SP] = 60,	[X86_R8] = -1,	[X86_R9] = -1,	[X86_R10] = -1,
	[X86_R11] = -1, [X86_R12] = -1, [X86_R13] = -1, [X86_R14] = -1,
	[X86_R15] = -1,
};

static const struct usdtkit_layout x86_64_pt_regs = {
	.name = "struct pt_regs (x86_64)",
	.size = 168,
	.slot_size = 8,
	.nregs = X86_NR_IDS,
	.offsets = x86_64_offsets,
};

static const struct usdtkit_layout i386_pt_regs = {
	.name = "struct pt_regs (i386)",
	.size = 68,
	.slot_size = 4,
	.nregs = X86_NR_IDS,
	.offsets = i386_offsets,
};

/* GCC keeps a 64-bit value in consecutive hard registers, in its order
 * ax, dx, cx, bx, si, di, bp: "-8@%eax" is %edx:%eax. */
static const int8_t i386_pair_hi[X86_NR_IDS] = {
	[X86_AX] = X86_DX, [X86_DX] = X86_CX, [X86_CX] = X86_BX,
	[X86_BX] = X86_SI, [X86_SI] = X86_DI, [X86_DI] = X86_BP,
	[X86_BP] = -1,	   [X86_SP] = -1,     [X86_R8] = -1,
	[X86_R9] = -1,	   [X86_R10] = -1,    [X86_R11] = -1,
	[X86_R12] = -1,	   [X86_R13] = -1,    [X86_R14] = -1,
	[X86_R15] = -1,	   [X86_IP] = -1,
};

const struct usdtkit_arch usdtkit__arch_x86_64 = {
	USDTKIT_MANIFEST_x86_64,
	.flags = USDTKIT_ARCH_X86_64_REGS,
	.regs = x86_regs,
	.nregs = X86E_NR,
	.native = &x86_64_pt_regs,
};

/* x32: ILP32 code on the 64-bit register file, run by x86-64 kernels. */
const struct usdtkit_arch usdtkit__arch_x32 = {
	USDTKIT_MANIFEST_x32,
	.flags = USDTKIT_ARCH_X86_64_REGS,
	.regs = x86_regs,
	.nregs = X86E_NR,
	.native = &x86_64_pt_regs,
};

const struct usdtkit_arch usdtkit__arch_i386 = {
	USDTKIT_MANIFEST_i386,
	.regs = x86_regs,
	.nregs = X86E_NR_I386,
	.pair_hi = i386_pair_hi,
	.native = &i386_pt_regs,
	.compat64 = &x86_64_pt_regs,
};
