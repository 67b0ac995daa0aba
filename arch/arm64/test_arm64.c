// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* aarch64 operand grammar: every form, every error path. */
#include <errno.h>

#include "bounds.h"
#include "check.h"

static void test_registers(void)
{
	EXPECT_SPEC("aarch64", "8@x0 -8@x30 -4@w3 4@w30 8@sp 4@wsp",
		    "u64 reg x0 | s64 reg x30 | s32 reg w3 | u32 reg w30 | u64 reg sp | u32 reg wsp");
	/* compilers name x registers for narrow values */
	EXPECT_SPEC("aarch64", "-4@x19 1@x2 -2@x7", "s32 reg x19 | u8 reg x2 | s16 reg x7");
	/* GAS aliases and upper case read as the names GCC prints */
	EXPECT_SPEC("aarch64", "8@fp 8@lr 8@ip0 8@ip1 8@X5 4@W6 8@SP",
		    "u64 reg x29 | u64 reg x30 | u64 reg x16 | u64 reg x17 | u64 reg x5 | u32 reg w6 | u64 reg sp");
	/* the zero register is the constant 0 */
	EXPECT_SPEC("aarch64", "8@xzr -4@wzr 8@XZR", "u64 const 0 | s32 const 0 | u64 const 0");
	EXPECT_SPEC("aarch64", "8f@x1 4f@w2", "u64f reg x1 | u32f reg w2");
}

static void test_register_details(void)
{
	struct usdtkit_arg arg;

	CHECK(parse_arg("aarch64", "8@x0", &arg) == 1 && arg.reg.offset == 0 &&
		      arg.reg.width == 8 && arg.reg.id == 0, "x0 at 0");
	CHECK(parse_arg("aarch64", "8@x30", &arg) == 1 && arg.reg.offset == 240 &&
		      arg.reg.id == 30, "x30 at 240: %d", arg.reg.offset);
	CHECK(parse_arg("aarch64", "8@sp", &arg) == 1 && arg.reg.offset == 248, "sp at 248");
	CHECK(parse_arg("aarch64", "4@w5", &arg) == 1 && arg.reg.offset == 40 &&
		      arg.reg.width == 4 && arg.reg.shift == 0 && arg.reg.id == 5,
	      "w5 is the low half of x5");
	CHECK(parse_arg("aarch64", "4@wsp", &arg) == 1 && arg.reg.offset == 248 &&
		      arg.reg.width == 4, "wsp");
	CHECK(parse_arg("aarch64", "8@fp", &arg) == 1 && arg.reg.offset == 232, "fp is x29");
	CHECK(!strcmp(usdtkit_arch_reg_name(usdtkit_arch_by_name("aarch64"), 7),
		      "x7"), "canonical name of id 7");
}

static void test_layout(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("arm64");
	const struct usdtkit_layout *l = usdtkit_arch_layout(a, USDTKIT_LAYOUT_NATIVE);

	CHECK(a && usdtkit_arch_by_elf(183, 2, 1) == a, "aarch64 by ELF");
	CHECK(usdtkit_arch_ptr_size(a) == 8, "ptr size");
	CHECK(l && l->size == 272 && l->slot_size == 8 && !l->big_endian,
	      "struct user_pt_regs");
	CHECK(!usdtkit_arch_layout(a, USDTKIT_LAYOUT_COMPAT64), "no compat layout");
}

static void test_constants(void)
{
	EXPECT_SPEC("aarch64", "-4@-5 8@42 -4@0 8@18446744073709551615",
		    "s32 const -5 | u64 const 42 | s32 const 0 | u64 const 18446744073709551615");
	EXPECT_SPEC("aarch64", "4@#5 -4@#-16 8@#0x10 -8@#+7 4@#010",
		    "u32 const 5 | s32 const -16 | u64 const 16 | s64 const 7 | u32 const 8");
	EXPECT_SPEC("aarch64", "-8@1234567890123", "s64 const 1234567890123");
}

static void test_memory(void)
{
	EXPECT_SPEC("aarch64", "8@[x0] 8@[sp] -4@[x19, 8] 8@[sp, 16]",
		    "u64 mem [x0] | u64 mem [sp] | s32 mem [x19 + 8] | u64 mem [sp + 16]");
	EXPECT_SPEC("aarch64", "4@[x0, #8] 4@[x0, #-16] 4@[x0, -8] 4@[x0, #0x10] 4@[x0, 0]",
		    "u32 mem [x0 + 8] | u32 mem [x0 - 16] | u32 mem [x0 - 8] | u32 mem [x0 + 16] | u32 mem [x0]");
	EXPECT_SPEC("aarch64", "8@[x21, x20] 2@[x1, x2]",
		    "u64 mem [x21 + x20*1] | u16 mem [x1 + x2*1]");
	EXPECT_SPEC("aarch64", "4@[x0, w2, uxtw] 4@[x0, w2, uxtw #2] 4@[x0, w2, uxtw 2]",
		    "u32 mem [x0 + w2*1] | u32 mem [x0 + w2*4] | u32 mem [x0 + w2*4]");
	EXPECT_SPEC("aarch64", "8@[x0, x2, lsl #3] 8@[x0, x2, lsl 3] 1@[x0, x2, lsl #0] 2@[x0, x2, lsl 1]",
		    "u64 mem [x0 + x2*8] | u64 mem [x0 + x2*8] | u8 mem [x0 + x2*1] | u16 mem [x0 + x2*2]");
	/* sxtx of an x register changes nothing */
	EXPECT_SPEC("aarch64", "8@[x0, x1, sxtx] 8@[x0, x1, sxtx #3]",
		    "u64 mem [x0 + x1*1] | u64 mem [x0 + x1*8]");
	/* the zero register as an index adds nothing */
	EXPECT_SPEC("aarch64", "8@[x0, xzr] 8@[x0, wzr, uxtw] 8@[x0, wzr, sxtw #3]",
		    "u64 mem [x0] | u64 mem [x0] | u64 mem [x0]");
	/* upper case and aliases */
	EXPECT_SPEC("aarch64", "8@[X1, W2, UXTW #2] 8@[fp, -8] 8@[x0, X3, LSL #1]",
		    "u64 mem [x1 + w2*4] | u64 mem [x29 - 8] | u64 mem [x0 + x3*2]");
	/* whitespace inside the brackets stays in one argument */
	EXPECT_SPEC("aarch64", "8@[ x0 , x1 , lsl #3 ] 4@w0",
		    "u64 mem [x0 + x1*8] | u32 reg w0");
	EXPECT_SPEC("aarch64", "8f@[x0, 8] -4@[sp, 132]", "u64f mem [x0 + 8] | s32 mem [sp + 132]");
}

static void test_memory_details(void)
{
	struct usdtkit_arg arg;

	CHECK(parse_arg("aarch64", "4@[x0, w2, uxtw #2]", &arg) == 1 &&
		      arg.kind == USDTKIT_LOC_MEM && arg.base.offset == 0 &&
		      arg.index.id == 2 && arg.index.width == 4 &&
		      arg.index.offset == 16 && arg.scale == 4 && arg.disp == 0,
	      "uxtw: the index is the 32-bit w register");
	CHECK(parse_arg("aarch64", "8@[sp, -24]", &arg) == 1 && arg.base.offset == 248 &&
		      arg.index.id < 0 && arg.disp == -24, "[sp, -24]");
	CHECK(parse_arg("aarch64", "8@[x0, xzr]", &arg) == 1 && arg.index.id < 0 &&
		      arg.status == USDTKIT_ARG_OK, "xzr index dropped");
}

static void test_sxtw(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("aarch64");
	USDTKIT_OPTS(usdtkit_eval_opts, o);
	uint8_t regs[272] = { 0 };
	struct usdtkit_arg arg;
	uint64_t v;

	/* a sign-extended index cannot be read exactly: flag, never guess */
	EXPECT_SPEC("aarch64", "4@[x0, w2, sxtw #2] 1@[x0, w2, sxtw]",
		    "u32 mem [x0 + w2*4] (unsupported at 11: sxtw index: sign-extended, but an index register is read unsigned) | "
		    "u8 mem [x0 + w2*1] (unsupported at 31: sxtw index: sign-extended, but an index register is read unsigned)");
	CHECK(parse_arg("aarch64", "4@[x0, w2, sxtw #2]", &arg) == 1 &&
		      arg.status == USDTKIT_ARG_UNSUPPORTED, "sxtw status");
	o.regs = regs;
	o.regs_size = sizeof(regs);
	CHECK(usdtkit_arg_eval(a, &arg, &o, &v) == -EOPNOTSUPP,
	      "sxtw does not evaluate");
}

static void test_symbols(void)
{
	EXPECT_SPEC("aarch64", "-4@[x2, #:lo12:.LANCHOR0]",
		    "s32 symbol [:lo12:.LANCHOR0 + x2] (unresolved at 15: " UNRES ")");
	EXPECT_SPEC("aarch64", "4@[x1, :lo12:sym+4] 8@[x3, #:LO12:counter.0]",
		    "u32 symbol [:lo12:sym+4 + x1] (unresolved at 13: " UNRES ") | "
		    "u64 symbol [:lo12:counter.0 + x3] (unresolved at 34: " UNRES ")");
	/* immediates: the value is the address (or its low 12 bits) */
	EXPECT_SPEC("aarch64", "8@#sym 8@#sym+4 8@#:lo12:sym",
		    "u64 symbol sym (unresolved at 3: " UNRES ") | "
		    "u64 symbol sym+4 (unresolved at 10: " UNRES ") | "
		    "u64 symbol :lo12:sym (unresolved at 25: " UNRES ")");
	/* a bare symbol is memory at the symbol, as GCC prints a literal */
	EXPECT_SPEC("aarch64", "8@.LC0 4@gs+8",
		    "u64 symbol [.LC0] (unresolved at 2: " UNRES ") | "
		    "u32 symbol [gs+8] (unresolved at 9: " UNRES ")");
	EXPECT_SPEC("aarch64", "4@[x0, #:tprel_lo12_nc:tv]",
		    "u32 symbol [tv@TLS + x0] (unsupported at 23: thread-local symbol: the thread pointer is not in pt_regs)");
	EXPECT_SPEC("aarch64", "8@[x0, #:got_lo12:sym] 8@#:pg_hi21:sym",
		    "u64 symbol [sym + x0] (unsupported at 8: relocation operator other than :lo12: or TLS: not decoded) | "
		    "u64 symbol sym (unsupported at 26: relocation operator other than :lo12: or TLS: not decoded)");
}

static void test_symbol_details(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("aarch64");
	const char *s = "-4@[x2, #:lo12:.LANCHOR0+8]";
	struct usdtkit_arg arg;

	CHECK(parse_arg("aarch64", s, &arg) == 1 && arg.kind == USDTKIT_LOC_SYMBOL &&
		      arg.reloc == USDTKIT_RELOC_LO12 && arg.deref &&
		      arg.base.id == 2 && arg.disp == 8 &&
		      arg.sym_len == 9 && !strncmp(s + arg.sym_off, ".LANCHOR0", 9),
	      "lo12 symbol IR");
	/* resolving keeps x2 and adds the low 12 bits of sym+8 */
	CHECK(usdtkit_arg_resolve(a, &arg, 0x400, 0x11ff8, 0) == 0 &&
		      arg.kind == USDTKIT_LOC_MEM && arg.disp == 0 &&
		      arg.base.id == 2 && !arg.pc_rel &&
		      arg.status == USDTKIT_ARG_OK, "lo12 resolves: disp %lld",
	      (long long)arg.disp);
	CHECK(parse_arg("aarch64", "8@#:lo12:sym", &arg) == 1 && !arg.deref &&
		      arg.reloc == USDTKIT_RELOC_LO12 && arg.base.id < 0,
	      "lo12 immediate");
	CHECK(usdtkit_arg_resolve(a, &arg, 0x400, 0x12345, 0) == 0 &&
		      arg.kind == USDTKIT_LOC_CONST && arg.value == 0x345,
	      "lo12 immediate resolves");
	CHECK(parse_arg("aarch64", "8@.LC0", &arg) == 1 && arg.deref &&
		      arg.reloc == USDTKIT_RELOC_NONE, "bare symbol reads memory");
}

static void test_unreadable(void)
{
	EXPECT_SPEC("aarch64", "8f@d0 4f@s31 8@v7 2@h1 1@b2 8@z0 1@p15",
		    "u64f unreadable d0 (unreadable at 3: FP/vector register: not in pt_regs, BPF cannot read it) | "
		    "u32f unreadable s31 (unreadable at 9: FP/vector register: not in pt_regs, BPF cannot read it) | "
		    "u64 unreadable v7 (unreadable at 15: FP/vector register: not in pt_regs, BPF cannot read it) | "
		    "u16 unreadable h1 (unreadable at 20: FP/vector register: not in pt_regs, BPF cannot read it) | "
		    "u8 unreadable b2 (unreadable at 25: FP/vector register: not in pt_regs, BPF cannot read it) | "
		    "u64 unreadable z0 (unreadable at 30: FP/vector register: not in pt_regs, BPF cannot read it) | "
		    "u8 unreadable p15 (unreadable at 35: FP/vector register: not in pt_regs, BPF cannot read it)");
}

static void test_sizes(void)
{
	/* no register pairs on aarch64 */
	EXPECT_SPEC("aarch64", "8@w0 16@x0",
		    "u64 reg w0 (unsupported at 2: value is wider than the register) | "
		    "u128 reg x0 (unsupported at 8: value is wider than the register)");
	EXPECT_SPEC("aarch64", "3@[x0]", "u24 mem [x0] (bad_size at 0: size is not 1, 2, 4 or 8: not readable by BPF)");
	/* size-less operands of asm probes */
	EXPECT_SPEC("aarch64", "x0 w1 sp [sp, 8] #5 -5 xzr",
		    "u64 reg x0 | u32 reg w1 | u64 reg sp | u64 mem [sp + 8] | u64 const 5 | u64 const 18446744073709551611 | u64 const 0");
}

static void test_errors(void)
{
	EXPECT_SPEC("aarch64", "8@x0 8@x31 4@w1",
		    "u64 reg x0 | u64 (invalid at 7: unknown register) | u32 reg w1");
	EXPECT_SPEC("aarch64", "8@x01 4@w99 8@d32", "u64 (invalid at 2: unknown register) | "
		    "u32 (invalid at 8: unknown register) | u64 (invalid at 14: unknown register)");
	EXPECT_SPEC("aarch64", "8@[x0", "u64 (invalid at 5: expected ']')");
	EXPECT_SPEC("aarch64", "8@[x0, #8 4@w1", "u64 (invalid at 9: expected ']') | u32 reg w1");
	EXPECT_SPEC("aarch64", "8@[x0]x", "u64 (invalid at 6: unexpected text after operand)");
	EXPECT_SPEC("aarch64", "8@x0,", "u64 (invalid at 4: unexpected text after operand)");
	EXPECT_SPEC("aarch64", "8@x0+1", "u64 (invalid at 4: unexpected text after operand)");
	EXPECT_SPEC("aarch64", "8@[xzr]", "u64 (invalid at 3: the zero register cannot be a base)");
	EXPECT_SPEC("aarch64", "8@[w0]", "u64 (invalid at 3: base register must be an x register or sp)");
	EXPECT_SPEC("aarch64", "8@[#8]", "u64 (invalid at 3: expected base register)");
	EXPECT_SPEC("aarch64", "8@[d0]", "u64 (invalid at 3: expected base register)");
	EXPECT_SPEC("aarch64", "8@[x0, d1]", "u64 (invalid at 7: FP/vector register cannot be an index)");
	EXPECT_SPEC("aarch64", "8@[x0, sp]", "u64 (invalid at 7: sp cannot be an index)");
	EXPECT_SPEC("aarch64", "8@[x0, w1]", "u64 (invalid at 7: a w register index needs uxtw or sxtw)");
	EXPECT_SPEC("aarch64", "8@[x0, w1, lsl #2]", "u64 (invalid at 7: a w register index needs uxtw or sxtw)");
	EXPECT_SPEC("aarch64", "8@[x0, x1, uxtw]", "u64 (invalid at 11: uxtw and sxtw extend a w register)");
	EXPECT_SPEC("aarch64", "8@[x0, w1, sxtx]", "u64 (invalid at 11: sxtx extends an x register)");
	EXPECT_SPEC("aarch64", "8@[x0, x1, uxtx] 8@[x0, w1, uxtb]",
		    "u64 (invalid at 11: extend operator not valid in an address) | "
		    "u64 (invalid at 28: extend operator not valid in an address)");
	EXPECT_SPEC("aarch64", "8@[x0, x1, lsr #2]", "u64 (invalid at 11: an index can only be shifted by lsl)");
	EXPECT_SPEC("aarch64", "8@[x0, x1, lsl #4]", "u64 (invalid at 16: shift amount must be 0, 1, 2 or 3)");
	EXPECT_SPEC("aarch64", "8@[x0, x1, lsl]", "u64 (invalid at 14: expected shift amount)");
	EXPECT_SPEC("aarch64", "8@[x0, w1, uxtw #]", "u64 (invalid at 17: expected shift amount)");
	EXPECT_SPEC("aarch64", "8@[x0, x1, x2]", "u64 (invalid at 11: expected lsl, uxtw, sxtw or sxtx)");
	EXPECT_SPEC("aarch64", "8@[x0, #8]!", "u64 (invalid at 10: pre-indexed writeback is not a probe operand)");
	EXPECT_SPEC("aarch64", "8@[x0],#8", "u64 (invalid at 6: post-indexed addressing is not a probe operand)");
	EXPECT_SPEC("aarch64", "8@[x0, sym:lo12:]", "u64 (invalid at 10: relocation operator must come before the symbol)");
	EXPECT_SPEC("aarch64", "8@[x0, #:lo12:8]", "u64 (invalid at 8: relocation operator needs a symbol)");
	EXPECT_SPEC("aarch64", "8@#", "u64 (invalid at 3: expected a number or symbol)");
	EXPECT_SPEC("aarch64", "8@%x0", "u64 (invalid at 2: unexpected character)");
	EXPECT_SPEC("aarch64", "8@:x0", "u64 (invalid at 2: expected a number or symbol)");
	EXPECT_SPEC("aarch64", "8@3.5", "u64 (invalid at 2: floating-point literal: not supported)");
	EXPECT_SPEC("aarch64", "8@[x0, 99999999999999999999]", "u64 (invalid at 7: number does not fit 64 bits)");
	EXPECT_SPEC("aarch64", "8@[x0, x1, lsl #99999999999999999999]",
		    "u64 (invalid at 16: shift amount must be 0, 1, 2 or 3)");
}

static const struct bound_case bounds[] = {
	/* the length excludes the rest: the parser stops at the given end */
	BOUND_OK("bounded: x1", "8@x12", 4, 1, -1, 0),
	BOUND_OK("bounded memory", "8@[x0, 8]]", 9, -1, -1, 8),
	BOUND_BAD("cut before ']'", "8@[x0, 8]]", 8, 8),
	BOUND_BAD("embedded NUL is an error", "8@x1\0", 5, -1),
};

static void test_nul_bounds(void)
{
	check_bounds("aarch64", bounds, sizeof(bounds) / sizeof(bounds[0]));
}

int main(void)
{
	test_registers();
	test_register_details();
	test_layout();
	test_constants();
	test_memory();
	test_memory_details();
	test_sxtw();
	test_symbols();
	test_symbol_details();
	test_unreadable();
	test_sizes();
	test_errors();
	test_nul_bounds();
	return check_done();
}
