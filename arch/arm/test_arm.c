// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* arm (32-bit) operand grammar: every form, every error path. */
#include "bounds.h"
#include "check.h"

static void test_registers(void)
{
	EXPECT_SPEC("arm", "4@r0 -4@r7 4@r12 -4@r15 1@r3 -2@r4",
		    "u32 reg r0 | s32 reg r7 | u32 reg r12 | s32 reg r15 | u8 reg r3 | s16 reg r4");
	EXPECT_SPEC("arm", "4@sb 4@sl -4@fp 4@ip 4@sp -4@lr 4@pc",
		    "u32 reg sb | u32 reg sl | s32 reg fp | u32 reg ip | u32 reg sp | s32 reg lr | u32 reg pc");
	/* other GAS spellings read as the names GCC prints */
	EXPECT_SPEC("arm", "4@a1 4@a4 4@v1 4@v8 4@wr 4@R3 4@SP 4@FP",
		    "u32 reg r0 | u32 reg r3 | u32 reg r4 | u32 reg r11 | u32 reg r7 | u32 reg r3 | u32 reg sp | u32 reg fp");
	EXPECT_SPEC("arm", "4f@r0 4f@ip", "u32f reg r0 | u32f reg ip");
}

static void test_register_details(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("arm");
	struct usdtkit_arg arg;

	CHECK(parse_arg("arm", "4@r0", &arg) == 1 && arg.reg.offset == 0 &&
		      arg.reg.width == 4, "r0 at 0");
	CHECK(parse_arg("arm", "4@fp", &arg) == 1 && arg.reg.offset == 44 &&
		      arg.reg.id == 11, "fp at 44");
	CHECK(parse_arg("arm", "4@r11", &arg) == 1 && arg.reg.offset == 44, "r11 at 44");
	CHECK(parse_arg("arm", "4@sp", &arg) == 1 && arg.reg.offset == 52, "sp at 52");
	CHECK(parse_arg("arm", "4@pc", &arg) == 1 && arg.reg.offset == 60 &&
		      arg.status == USDTKIT_ARG_OK, "pc at 60");
	CHECK(parse_arg("arm", "4@ip", &arg) == 1 && arg.reg.offset == 48, "ip at 48");
	CHECK(!strcmp(usdtkit_arch_reg_name(a, 11), "r11"), "canonical r11");
}

static void test_layouts(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("armhf");
	const struct usdtkit_layout *n = usdtkit_arch_layout(a, USDTKIT_LAYOUT_NATIVE);
	const struct usdtkit_layout *c = usdtkit_arch_layout(a, USDTKIT_LAYOUT_COMPAT64);

	CHECK(a && usdtkit_arch_by_elf(40, 1, 1) == a, "arm by ELF");
	CHECK(usdtkit_arch_by_name("armel") == a, "armel alias");
	CHECK(usdtkit_arch_ptr_size(a) == 4, "ptr size");
	CHECK(n && n->size == 72 && n->slot_size == 4 && n->nregs == 18 &&
		      n->offsets[16] == 64 && n->offsets[17] == 68,
	      "struct pt_regs: cpsr, orig_r0");
	/* an AArch32 task on an arm64 kernel: r13 is regs[13], pc is pc */
	CHECK(c && c->size == 272 && c->slot_size == 8 && c->offsets[0] == 0 &&
		      c->offsets[13] == 104 && c->offsets[14] == 112 &&
		      c->offsets[15] == 256 && c->offsets[16] == 264,
	      "compat64 layout");
}

static void test_compat64_eval(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("arm");
	USDTKIT_OPTS(usdtkit_eval_opts, o);
	uint8_t regs[272] = { 0 };
	struct usdtkit_arg arg;
	uint64_t v = 0;

	/* r2 = 0xfffffffe, r3 = 0xffffffff in 8-byte slots */
	memset(regs + 16, 0xff, 4);
	regs[16] = 0xfe;
	memset(regs + 24, 0xff, 4);
	o.regs = regs;
	o.regs_size = sizeof(regs);
	o.layout = USDTKIT_LAYOUT_COMPAT64;
	CHECK(parse_arg("arm", "-8@r2", &arg) == 1 && usdtkit_arg_eval(a, &arg, &o, &v) == 0 &&
		      v == (uint64_t)-2, "pair on compat64: 0x%llx",
	      (unsigned long long)v);
	CHECK(parse_arg("arm", "-4@r2", &arg) == 1 && usdtkit_arg_eval(a, &arg, &o, &v) == 0 &&
		      v == (uint64_t)-2, "r2 on compat64");
}

static void test_pairs(void)
{
	struct usdtkit_arg arg;

	EXPECT_SPEC("arm", "-8@r0 8@r2 -8@r4 8f@r0 -8@r11",
		    "s64 reg r1:r0 | u64 reg r3:r2 | s64 reg r5:r4 | u64f reg r1:r0 | s64 reg r12:r11");
	CHECK(parse_arg("arm", "-8@r0", &arg) == 1 && arg.reg.id == 0 &&
		      arg.reg_hi.id == 1 && arg.reg_hi.offset == 4 &&
		      arg.reg_hi.width == 4, "r1:r0 details");
	/* sp is never allocated: no pair reaches it */
	EXPECT_SPEC("arm", "8@ip 8@sp 8@lr 8@pc",
		    "u64 reg ip (unsupported at 2: value is wider than the register) | "
		    "u64 reg sp (unsupported at 7: value is wider than the register) | "
		    "u64 reg lr (unsupported at 12: value is wider than the register) | "
		    "u64 reg pc (unsupported at 17: value is wider than the register)");
	EXPECT_SPEC("arm", "16@r0", "u128 reg r0 (unsupported at 3: value is wider than the register)");
}

static void test_constants(void)
{
	EXPECT_SPEC("arm", "4@#5 -4@#-16 4@#0x10 -4@#0 4@#-0x1",
		    "u32 const 5 | s32 const -16 | u32 const 16 | s32 const 0 | u32 const 4294967295");
	/* GAS takes immediates without '#' too */
	EXPECT_SPEC("arm", "4@5 -4@-3", "u32 const 5 | s32 const -3");
	EXPECT_SPEC("arm", "-8@#1234567890123", "s64 const 1234567890123");
}

static void test_memory(void)
{
	EXPECT_SPEC("arm", "4@[r0] -4@[sp] 4@[r0, #8] -4@[fp, #-8] -4@[sp, #4]",
		    "u32 mem [r0] | s32 mem [sp] | u32 mem [r0 + 8] | s32 mem [fp - 8] | s32 mem [sp + 4]");
	EXPECT_SPEC("arm", "4@[r0, 8] 4@[r0, -8] 4@[r0, #+8] 4@[r0, #-0] 4@[ip, #0x10]",
		    "u32 mem [r0 + 8] | u32 mem [r0 - 8] | u32 mem [r0 + 8] | u32 mem [r0] | u32 mem [ip + 16]");
	EXPECT_SPEC("arm", "4@[r2, r1] -4@[r0, ip] 4@[r2, +r1]",
		    "u32 mem [r2 + r1*1] | s32 mem [r0 + ip*1] | u32 mem [r2 + r1*1]");
	EXPECT_SPEC("arm", "-4@[r0, r3, lsl #2] 1@[r0, r3, lsl #0] 2@[r0, r3, lsl #1] 8@[lr, r3, lsl 3]",
		    "s32 mem [r0 + r3*4] | u8 mem [r0 + r3*1] | u16 mem [r0 + r3*2] | u64 mem [lr + r3*8]");
	EXPECT_SPEC("arm", "4@[r0, r3, asl #2] 4@[R0, R3, LSL #2]",
		    "u32 mem [r0 + r3*4] | u32 mem [r0 + r3*4]");
	/* whitespace inside the brackets stays in one argument */
	EXPECT_SPEC("arm", "4@[ r0 , r3 , lsl #2 ] 4@r1", "u32 mem [r0 + r3*4] | u32 reg r1");
	EXPECT_SPEC("arm", "4f@[r0, #4] 8f@[sp]", "u32f mem [r0 + 4] | u64f mem [sp]");
}

static void test_memory_details(void)
{
	struct usdtkit_arg arg;

	CHECK(parse_arg("arm", "4@[r0, r3, lsl #2]", &arg) == 1 &&
		      arg.kind == USDTKIT_LOC_MEM && arg.base.id == 0 &&
		      arg.index.id == 3 && arg.index.offset == 12 &&
		      arg.scale == 4 && arg.disp == 0, "scaled index IR");
	CHECK(parse_arg("arm", "4@[fp, #-8]", &arg) == 1 && arg.base.offset == 44 &&
		      arg.index.id < 0 && arg.disp == -8, "[fp, #-8]");
}

static void test_unsupported(void)
{
	EXPECT_SPEC("arm", "4@[r2, -r1]",
		    "u32 mem [r2 + r1*1] (unsupported at 7: subtracted index register: an index is added)");
	EXPECT_SPEC("arm", "4@[r0, r3, lsl #4] 4@[r0, r3, asr #2] 4@[r0, r3, lsr #32] 4@[r0, r3, ror #8] 4@[r0, r3, rrx]",
		    "u32 mem [r0 + r3*1] (unsupported at 11: index shift other than lsl #0 to #3: no scale for it) | "
		    "u32 mem [r0 + r3*1] (unsupported at 30: index shift other than lsl #0 to #3: no scale for it) | "
		    "u32 mem [r0 + r3*1] (unsupported at 49: index shift other than lsl #0 to #3: no scale for it) | "
		    "u32 mem [r0 + r3*1] (unsupported at 69: index shift other than lsl #0 to #3: no scale for it) | "
		    "u32 mem [r0 + r3*1] (unsupported at 88: index shift other than lsl #0 to #3: no scale for it)");
	EXPECT_SPEC("arm", "4@[r2, -r1, lsl #2]",
		    "u32 mem [r2 + r1*4] (unsupported at 7: subtracted index register: an index is added)");
	EXPECT_SPEC("arm", "4@[pc, #8]",
		    "u32 mem [pc + 8] (unsupported at 3: pc-relative: ARM reads pc as the instruction address + 8 (Thumb + 4))");
	EXPECT_SPEC("arm", "4@#:lower16:sym",
		    "u32 symbol sym (unsupported at 12: relocation operator does not name a data address)");
}

static void test_symbols(void)
{
	/* #sym: the address of the symbol is the value */
	EXPECT_SPEC("arm", "4@#sym 4@#sym+4 4@#.LANCHOR0+8",
		    "u32 symbol sym (unresolved at 3: " UNRES ") | "
		    "u32 symbol sym+4 (unresolved at 10: " UNRES ") | "
		    "u32 symbol .LANCHOR0+8 (unresolved at 19: " UNRES ")");
	/* a bare label is memory: GCC prints a literal-pool load so */
	EXPECT_SPEC("arm", "-8@.L2 4@.L4+8",
		    "s64 symbol [.L2] (unresolved at 3: " UNRES ") | "
		    "u32 symbol [.L4+8] (unresolved at 9: " UNRES ")");
	EXPECT_SPEC("arm", "4@[r3, #sym]", "u32 symbol [sym + r3] (unresolved at 8: " UNRES ")");
}

static void test_symbol_details(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("arm");
	const char *s = "4@#.LANCHOR0+8";
	struct usdtkit_arg arg;

	CHECK(parse_arg("arm", s, &arg) == 1 && arg.kind == USDTKIT_LOC_SYMBOL &&
		      !arg.deref && arg.reloc == USDTKIT_RELOC_NONE &&
		      arg.disp == 8 && arg.base.id < 0 && arg.sym_len == 9 &&
		      !strncmp(s + arg.sym_off, ".LANCHOR0", 9), "#sym IR");
	/* the address, relative to the probe: pc 0x1000, symbol at 0x2000 */
	CHECK(usdtkit_arg_resolve(a, &arg, 0x1000, 0x2000, 0) == 0 &&
		      arg.kind == USDTKIT_LOC_CONST && arg.pc_rel &&
		      arg.value == 0x1008, "#sym resolves to ip + 0x1008");
	CHECK(parse_arg("arm", "4@.L4", &arg) == 1 && arg.deref, "bare label reads memory");
}

static void test_unreadable(void)
{
	EXPECT_SPEC("arm", "4f@s0 8f@d31 8@q15",
		    "u32f unreadable s0 (unreadable at 3: FP/vector register: not in pt_regs, BPF cannot read it) | "
		    "u64f unreadable d31 (unreadable at 9: FP/vector register: not in pt_regs, BPF cannot read it) | "
		    "u64 unreadable q15 (unreadable at 15: FP/vector register: not in pt_regs, BPF cannot read it)");
}

static void test_sizeless(void)
{
	EXPECT_SPEC("arm", "r0 fp [sp] [r1, #4] #5 #-1",
		    "u32 reg r0 | u32 reg fp | u32 mem [sp] | u32 mem [r1 + 4] | u32 const 5 | u32 const 4294967295");
}

static void test_errors(void)
{
	EXPECT_SPEC("arm", "4@r0 4@r16 4@r1", "u32 reg r0 | u32 (invalid at 7: unknown register) | u32 reg r1");
	EXPECT_SPEC("arm", "4@s32 8@d32 8@q16",
		    "u32 (invalid at 2: unknown register) | u64 (invalid at 8: unknown register) | "
		    "u64 (invalid at 14: unknown register)");
	EXPECT_SPEC("arm", "4@[r0", "u32 (invalid at 5: expected ']')");
	EXPECT_SPEC("arm", "4@[r0, #4 -4@r1", "u32 (invalid at 9: expected ']') | s32 reg r1");
	EXPECT_SPEC("arm", "4@[r0]x", "u32 (invalid at 6: unexpected text after operand)");
	EXPECT_SPEC("arm", "4@r0,", "u32 (invalid at 4: unexpected text after operand)");
	EXPECT_SPEC("arm", "4@[#8]", "u32 (invalid at 3: expected base register)");
	EXPECT_SPEC("arm", "4@[s0]", "u32 (invalid at 3: expected base register)");
	EXPECT_SPEC("arm", "4@[r0, s0]", "u32 (invalid at 7: FP/vector register cannot be an index)");
	EXPECT_SPEC("arm", "4@[r0, pc]", "u32 (invalid at 7: pc cannot be an index)");
	EXPECT_SPEC("arm", "4@[r0, r3, lsl #32]", "u32 (invalid at 16: shift amount out of range)");
	EXPECT_SPEC("arm", "4@[r0, r3, lsr #0]", "u32 (invalid at 16: shift amount out of range)");
	EXPECT_SPEC("arm", "4@[r0, r3, lsl r2]", "u32 (invalid at 15: expected shift amount)");
	EXPECT_SPEC("arm", "4@[r0, r3, r2]", "u32 (invalid at 11: expected lsl, lsr, asr, ror or rrx)");
	/* "lsl2" is one word (a symbol), not lsl #2: the fast path once
	 * read it as a scale of 4 (test_grammar_agree) */
	EXPECT_SPEC("arm", "4@[r0, r3, lsl2] 4@[r0, r3, lsl#2] 4@[r0,r3,lsl 2]",
		    "u32 (invalid at 11: expected lsl, lsr, asr, ror or rrx) | "
		    "u32 mem [r0 + r3*4] | u32 mem [r0 + r3*4]");
	EXPECT_SPEC("arm", "4@[r0, #8]!", "u32 (invalid at 10: pre-indexed writeback is not a probe operand)");
	EXPECT_SPEC("arm", "4@[r0],#8", "u32 (invalid at 6: post-indexed addressing is not a probe operand)");
	EXPECT_SPEC("arm", "4@#", "u32 (invalid at 3: expected a number or symbol)");
	EXPECT_SPEC("arm", "4@#a+b", "u32 (invalid at 5: more than one symbol in an expression)");
	EXPECT_SPEC("arm", "4@#-sym", "u32 (invalid at 4: negated symbol)");
	EXPECT_SPEC("arm", "4@%r0", "u32 (invalid at 2: unexpected character)");
	/* GCC prints float constants as rounded decimals: never guessed */
	EXPECT_SPEC("arm", "8f@#3.14e+0 4f@#2.5e+0",
		    "u64f (invalid at 4: floating-point literal: not supported) | "
		    "u32f (invalid at 16: floating-point literal: not supported)");
	EXPECT_SPEC("arm", "4@#99999999999999999999", "u32 (invalid at 3: number does not fit 64 bits)");
	EXPECT_SPEC("arm", "4@#sym:lower16:", "u32 (invalid at 6: relocation operator must come before the symbol)");
}

static const struct bound_case bounds[] = {
	BOUND_OK("bounded: r1", "4@r12", 4, 1, -1, 0),
	BOUND_BAD("embedded NUL is an error", "4@r1\0", 5, -1),
};

static void test_nul_bounds(void)
{
	check_bounds("arm", bounds, sizeof(bounds) / sizeof(bounds[0]));
}

int main(void)
{
	test_registers();
	test_register_details();
	test_layouts();
	test_compat64_eval();
	test_pairs();
	test_constants();
	test_memory();
	test_memory_details();
	test_unsupported();
	test_symbols();
	test_symbol_details();
	test_unreadable();
	test_sizeless();
	test_errors();
	test_nul_bounds();
	return check_done();
}
