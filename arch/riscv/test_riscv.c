// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* riscv64 and riscv32 operand grammar: every form, every error path. */
#include <errno.h>

#include "bounds.h"
#include "check.h"

#define TLS "thread-local symbol: the thread pointer is not in pt_regs"
#define NOTDATA "relocation operator does not name a data address"
#define FPMSG "FP/vector register: not in pt_regs, BPF cannot read it"

static void test_identity(void)
{
	const struct usdtkit_arch *a64 = usdtkit_arch_by_name("riscv64");
	const struct usdtkit_arch *a32 = usdtkit_arch_by_name("riscv32");
	const struct usdtkit_layout *l;

	CHECK(a64 && a32, "both registered");
	if (!a64 || !a32)
		return;
	CHECK(usdtkit_arch_by_elf(243, 2, 1) == a64, "EM_RISCV ELFCLASS64");
	CHECK(usdtkit_arch_by_elf(243, 1, 1) == a32, "EM_RISCV ELFCLASS32");
	CHECK(usdtkit_arch_by_elf(243, 2, 2) == NULL, "no big-endian riscv");
	CHECK(usdtkit_arch_by_name("rv64") == a64 &&
		      usdtkit_arch_by_name("rv32") == a32, "aliases");
	CHECK(usdtkit_arch_ptr_size(a64) == 8 && usdtkit_arch_ptr_size(a32) == 4,
	      "pointer sizes");
	CHECK(usdtkit_arch_elf_data(a64) == 1 && usdtkit_arch_elf_data(a32) == 1,
	      "little-endian");
	l = usdtkit_arch_layout(a64, USDTKIT_LAYOUT_NATIVE);
	CHECK(l && l->size == 256 && l->slot_size == 8 && !l->big_endian &&
		      l->nregs == 32, "riscv64 user_regs_struct");
	l = usdtkit_arch_layout(a32, USDTKIT_LAYOUT_NATIVE);
	CHECK(l && l->size == 128 && l->slot_size == 4 && l->nregs == 32,
	      "riscv32 user_regs_struct");
	CHECK(usdtkit_arch_layout(a64, USDTKIT_LAYOUT_COMPAT64) == NULL,
	      "no compat layout");
	/* ABI names are canonical, fp and xN are aliases */
	CHECK(!strcmp(usdtkit_arch_reg_name(a64, 8), "s0"), "id 8 is s0");
	CHECK(!strcmp(usdtkit_arch_reg_name(a64, 10), "a0"), "id 10 is a0");
	CHECK(!strcmp(usdtkit_arch_reg_name(a32, 31), "t6"), "id 31 is t6");
	CHECK(usdtkit_arch_reg_name(a64, 0) == NULL, "pc slot has no name");
}

/* every name the table holds: its width, and its slot matches xN */
static void test_register_table(void)
{
	static const char *const abi[32] = {
		NULL, "ra", "sp", "gp", "tp", "t0", "t1", "t2",
		"s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
		"a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7",
		"s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
	};
	const char *names[2] = { "riscv64", "riscv32" };
	int k;

	for (k = 0; k < 2; k++) {
		const struct usdtkit_arch *a = usdtkit_arch_by_name(names[k]);
		const struct usdtkit_layout *l =
			usdtkit_arch_layout(a, USDTKIT_LAYOUT_NATIVE);
		const struct usdtkit_regdef *d;
		int slot = k ? 4 : 8, seen = 0;
		size_t i;

		for (i = 0; (d = usdtkit_arch_reg_at(a, i)); i++) {
			int id = d->id;

			seen++;
			CHECK(d->width == slot && d->shift == 0, "%s width", d->name);
			CHECK(id >= 1 && id < 32 && l->offsets[id] == id * slot,
			      "%s %s slot", names[k], d->name);
			if (d->name[0] == 'x')
				CHECK(atoi(d->name + 1) == id, "%s id", d->name);
			else if (strcmp(d->name, "fp") == 0)
				CHECK(id == 8, "fp is s0");
			else
				CHECK(id >= 1 && !strcmp(abi[id], d->name),
				      "%s id %d", d->name, id);
		}
		/* 31 ABI names, fp, x1..x31 */
		CHECK(seen == 63, "%s: %d names", names[k], seen);
	}
}

static void test_registers(void)
{
	EXPECT_SPEC("riscv64", "-4@a0 8@a7 8@s0 8@s1 -4@s2 8@s11",
		    "s32 reg a0 | u64 reg a7 | u64 reg s0 | u64 reg s1 | s32 reg s2 | u64 reg s11");
	EXPECT_SPEC("riscv64", "8@ra 8@sp 8@gp 8@tp 8@fp",
		    "u64 reg ra | u64 reg sp | u64 reg gp | u64 reg tp | u64 reg fp");
	EXPECT_SPEC("riscv64", "8@t0 8@t2 8@t3 8@t6 -1@s10",
		    "u64 reg t0 | u64 reg t2 | u64 reg t3 | u64 reg t6 | s8 reg s10");
	EXPECT_SPEC("riscv64", "8@x1 8@x9 8@x10 -4@x19 8@x20 8@x29 8@x30 8@x31",
		    "u64 reg x1 | u64 reg x9 | u64 reg x10 | s32 reg x19 | u64 reg x20 | u64 reg x29 | u64 reg x30 | u64 reg x31");
	EXPECT_SPEC("riscv32", "-4@a0 4@s1 -2@t6 1@x31",
		    "s32 reg a0 | u32 reg s1 | s16 reg t6 | u8 reg x31");
	/* floats in general registers are readable */
	EXPECT_SPEC("riscv64", "8f@a0 4f@a1", "u64f reg a0 | u32f reg a1");
	/* size-less operands take the register's (or the pointer's) width */
	EXPECT_SPEC("riscv64", "a0 8(sp) 5 zero", "u64 reg a0 | u64 mem [sp + 8] | u64 const 5 | u64 const 0");
	EXPECT_SPEC("riscv32", "a0 8(sp) 5", "u32 reg a0 | u32 mem [sp + 8] | u32 const 5");
}

static void test_register_details(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("riscv64");
	struct usdtkit_arg arg[4];
	const char *s = "8@a0 4@x10 8@fp -8@-24(s0)";

	CHECK(usdtkit_args_parse(a, s, strlen(s), arg, 4) == 4, "count");
	CHECK(arg[0].reg.id == 10 && arg[0].reg.offset == 80 &&
		      arg[0].reg.width == 8, "a0: slot 10 at 80");
	CHECK(arg[1].reg.id == 10 && arg[1].reg.offset == 80, "x10 is a0");
	CHECK(arg[2].reg.id == 8 && arg[2].reg.offset == 64, "fp is s0 at 64");
	CHECK(arg[3].kind == USDTKIT_LOC_MEM && arg[3].base.offset == 64 &&
		      arg[3].disp == -24 && arg[3].index.id < 0, "mem s0");
	a = usdtkit_arch_by_name("riscv32");
	s = "4@a0 4@s0 4@t6";
	CHECK(usdtkit_args_parse(a, s, strlen(s), arg, 4) == 3, "count");
	CHECK(arg[0].reg.offset == 40 && arg[0].reg.width == 4, "rv32 a0 at 40");
	CHECK(arg[1].reg.offset == 32 && arg[2].reg.offset == 124,
	      "rv32 s0=%d t6=%d", arg[1].reg.offset, arg[2].reg.offset);
}

static void test_zero(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("riscv64");
	struct usdtkit_arg arg[3];
	const char *s = "-4@zero 8@8(zero) 4@(x0)";

	EXPECT_SPEC("riscv64", "-4@zero 8@x0 4@8(zero) 4@-16(x0) 4@(zero)",
		    "s32 const 0 | u64 const 0 | u32 mem [8] | u32 mem [-16] | u32 mem [0]");
	CHECK(usdtkit_args_parse(a, s, strlen(s), arg, 3) == 3, "count");
	CHECK(arg[0].kind == USDTKIT_LOC_CONST && arg[0].value == 0 &&
		      arg[0].status == USDTKIT_ARG_OK, "zero is the constant 0");
	CHECK(arg[1].kind == USDTKIT_LOC_MEM && arg[1].base.id < 0 &&
		      arg[1].disp == 8 && !arg[1].pc_rel, "8(zero) is absolute");
	CHECK(arg[2].kind == USDTKIT_LOC_MEM && arg[2].base.id < 0 &&
		      arg[2].disp == 0, "(x0) is address 0");
	/* zero and x0 have no table entry: they never name the pc slot */
	CHECK(usdtkit_arch_reg_at(a, 0) && strcmp(usdtkit_arch_reg_at(a, 0)->name, "zero"),
	      "zero is not a table register");
}

static void test_constants(void)
{
	EXPECT_SPEC("riscv64", "8@12 -4@-1 -4@-2147483648 4@0x1f 8@18446744073709551615",
		    "u64 const 12 | s32 const -1 | s32 const -2147483648 | u32 const 31 | u64 const 18446744073709551615");
	EXPECT_SPEC("riscv64", "-8@-8+3 4@010 4@0b101 -4@+7",
		    "s64 const -5 | u32 const 8 | u32 const 5 | s32 const 7");
	EXPECT_SPEC("riscv32", "-4@-5 4@0xffffffff", "s32 const -5 | u32 const 4294967295");
}

static void test_memory(void)
{
	EXPECT_SPEC("riscv64", "8@-24(s0) -4@8(a0) 4@(a0) 4@0(sp) -4@-1204(fp)",
		    "u64 mem [s0 - 24] | s32 mem [a0 + 8] | u32 mem [a0] | u32 mem [sp] | s32 mem [fp - 1204]");
	EXPECT_SPEC("riscv64", "4@0x10(x31) 4@-8+3+1(t0) 1@2047(s11)",
		    "u32 mem [x31 + 16] | u32 mem [t0 - 4] | u8 mem [s11 + 2047]");
	/* blanks inside the parentheses keep one argument */
	EXPECT_SPEC("riscv64", "4@8( a1 ) -4@a2", "u32 mem [a1 + 8] | s32 reg a2");
	EXPECT_SPEC("riscv32", "-4@-20(s0) 8@8(sp)", "s32 mem [s0 - 20] | u64 mem [sp + 8]");
}

static void test_symbols(void)
{
	EXPECT_SPEC("riscv64", "-4@%lo(sint)(a5)",
		    "s32 symbol [%lo(sint) + a5] (unresolved at 7: " UNRES ")");
	EXPECT_SPEC("riscv64", "-4@%lo(sym+8)(a5) 8@%lo(x.lto_priv.0)(t1)",
		    "s32 symbol [%lo(sym+8) + a5] (unresolved at 7: " UNRES ") | "
		    "u64 symbol [%lo(x.lto_priv.0) + t1] (unresolved at 24: " UNRES ")");
	EXPECT_SPEC("riscv64", "8f@%lo(gdouble)(a4) 4@%lo(8+sym-4)(a0)",
		    "u64f symbol [%lo(gdouble) + a4] (unresolved at 7: " UNRES ") | "
		    "u32 symbol [%lo(sym+4) + a0] (unresolved at 28: " UNRES ")");
	/* %lo(sym)(zero): absolute, no base */
	EXPECT_SPEC("riscv64", "4@%lo(sym)(zero)",
		    "u32 symbol [%lo(sym)] (unresolved at 6: " UNRES ")");
	/* a global named like a register is a symbol inside %lo() */
	EXPECT_SPEC("riscv64", "4@%lo(a0)(a1) 4@%lo(zero)(a1)",
		    "u32 symbol [%lo(a0) + a1] (unresolved at 6: " UNRES ") | "
		    "u32 symbol [%lo(zero) + a1] (unresolved at 20: " UNRES ")");
	/* %lo of a plain number is its sign-extended low 12 bits */
	EXPECT_SPEC("riscv64", "4@%lo(8)(a0) 4@%lo(0x1800)(a0)",
		    "u32 mem [a0 + 8] | u32 mem [a0 - 2048]");
	/* sym(reg) without an operator: the symbol is the displacement */
	EXPECT_SPEC("riscv64", "4@sym+4(a0)",
		    "u32 symbol [sym+4 + a0] (unresolved at 2: " UNRES ")");
	EXPECT_SPEC("riscv32", "-4@%lo(counter)(a5)",
		    "s32 symbol [%lo(counter) + a5] (unresolved at 7: " UNRES ")");
}

static void test_symbol_details(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("riscv64");
	struct usdtkit_arg arg[2];
	const char *s = "-4@%lo(sint+8)(a5) -4@%tprel_lo(tls_int)(a5)";

	CHECK(usdtkit_args_parse(a, s, strlen(s), arg, 2) == 2, "count");
	CHECK(arg[0].kind == USDTKIT_LOC_SYMBOL &&
		      arg[0].reloc == USDTKIT_RELOC_RISCV_LO && arg[0].deref &&
		      arg[0].disp == 8 && arg[0].base.id == 15 &&
		      arg[0].sym_len == 4 && !memcmp(s + arg[0].sym_off, "sint", 4),
	      "%%lo(sint+8)(a5)");
	CHECK(arg[1].kind == USDTKIT_LOC_SYMBOL &&
		      arg[1].reloc == USDTKIT_RELOC_TLS &&
		      arg[1].status == USDTKIT_ARG_UNSUPPORTED &&
		      arg[1].base.id == 15, "%%tprel_lo is TLS");
	/* resolving: the low 12 bits, sign-extended, become the displacement */
	CHECK(usdtkit_arg_resolve(a, &arg[0], 0x1000, 0x12340, 0) == 0 &&
		      arg[0].kind == USDTKIT_LOC_MEM && arg[0].disp == 0x348 &&
		      arg[0].base.id == 15 && arg[0].status == USDTKIT_ARG_OK,
	      "resolve %%lo disp=%lld", (long long)arg[0].disp);
	CHECK(usdtkit_args_parse(a, s, strlen(s), arg, 2) == 2, "again");
	CHECK(usdtkit_arg_resolve(a, &arg[0], 0x1000, 0x127f8, 0) == 0 &&
		      arg[0].disp == -0x800, "resolve %%lo negative disp=%lld",
	      (long long)arg[0].disp);
	CHECK(usdtkit_arg_resolve(a, &arg[1], 0x1000, 0x10, 0) == -EOPNOTSUPP,
	      "TLS does not resolve");
}

static void test_unsupported_and_unreadable(void)
{
	EXPECT_SPEC("riscv64", "-4@%tprel_lo(tls_int)(a5)",
		    "s32 symbol [tls_int@TLS + a5] (unsupported at 13: " TLS ")");
	EXPECT_SPEC("riscv64", "4@%hi(sym)(a0) 4@%pcrel_lo(.L1)(a0) 4@%pcrel_hi(x)(a0)",
		    "u32 symbol [sym + a0] (unsupported at 6: " NOTDATA ") | "
		    "u32 symbol [.L1 + a0] (unsupported at 27: " NOTDATA ") | "
		    "u32 symbol [x + a0] (unsupported at 48: " NOTDATA ")");
	EXPECT_SPEC("riscv64", "8f@fa0 4f@ft11 8f@fs0 8@f31 4f@f0",
		    "u64f unreadable fa0 (unreadable at 3: " FPMSG ") | "
		    "u32f unreadable ft11 (unreadable at 10: " FPMSG ") | "
		    "u64f unreadable fs0 (unreadable at 18: " FPMSG ") | "
		    "u64 unreadable f31 (unreadable at 24: " FPMSG ") | "
		    "u32f unreadable f0 (unreadable at 31: " FPMSG ")");
	/* RVV vector registers: named, not in pt_regs */
	EXPECT_SPEC("riscv64", "8@v1 16@v31",
		    "u64 unreadable v1 (unreadable at 2: " FPMSG ") | "
		    "u128 unreadable v31 (unreadable at 8: " FPMSG ")");
}

static void test_pairs_and_sizes(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("riscv32");
	struct usdtkit_arg arg[2];
	const char *s = "-8@a0 8@s1";

	EXPECT_SPEC("riscv32", "-8@a0 8@a6 8f@a2 8@x1 8@s1 8@x30",
		    "s64 reg a1:a0 | u64 reg a7:a6 | u64f reg a3:a2 | u64 reg sp:x1 | u64 reg a0:s1 | u64 reg t6:x30");
	EXPECT_SPEC("riscv32", "8@t6 8@x31",
		    "u64 reg t6 (unsupported at 2: value is wider than the register) | "
		    "u64 reg x31 (unsupported at 7: value is wider than the register)");
	/* riscv64 has no pairs */
	EXPECT_SPEC("riscv64", "16@a0",
		    "u128 reg a0 (unsupported at 3: value is wider than the register)");
	EXPECT_SPEC("riscv64", "3@(a0) 0@5",
		    "u24 mem [a0] (bad_size at 0: size is not 1, 2, 4 or 8: not readable by BPF) | "
		    "u0 const 5 (bad_size at 7: size is not 1, 2, 4 or 8: not readable by BPF)");
	CHECK(usdtkit_args_parse(a, s, strlen(s), arg, 2) == 2, "count");
	CHECK(arg[0].reg.id == 10 && arg[0].reg_hi.id == 11 &&
		      arg[0].reg.offset == 40 && arg[0].reg_hi.offset == 44,
	      "a1:a0 offsets");
	CHECK(arg[1].reg.id == 9 && arg[1].reg_hi.id == 10, "s1 pairs with x10");
}

static void test_eval(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("riscv32");
	USDTKIT_OPTS(usdtkit_eval_opts, o);
	uint8_t regs[128] = { 0 };
	struct usdtkit_arg arg[3];
	const char *s = "-8@a0 -4@a1 8@zero";
	uint64_t v = 0;

	/* a0 = 0x89abcdef, a1 = 0x01234567, little-endian 4-byte slots */
	memcpy(regs + 40, "\xef\xcd\xab\x89\x67\x45\x23\x01", 8);
	o.regs = regs;
	o.regs_size = sizeof(regs);
	CHECK(usdtkit_args_parse(a, s, strlen(s), arg, 3) == 3, "count");
	CHECK(usdtkit_arg_eval(a, &arg[0], &o, &v) == 0 &&
		      v == 0x0123456789abcdefull, "rv32 pair 0x%llx",
	      (unsigned long long)v);
	CHECK(usdtkit_arg_eval(a, &arg[1], &o, &v) == 0 && v == 0x01234567,
	      "a1 0x%llx", (unsigned long long)v);
	CHECK(usdtkit_arg_eval(a, &arg[2], &o, &v) == 0 && v == 0, "zero");
}

static void test_split(void)
{
	char buf[256];

	CHECK(render_spec("riscv64", "", buf, sizeof(buf)) == 0, "empty");
	CHECK(render_spec("riscv64", ":", buf, sizeof(buf)) == 0, "colon");
	EXPECT_SPEC("riscv64", " -4@a0\t8@-24(s0)  8@12 ",
		    "s32 reg a0 | u64 mem [s0 - 24] | u64 const 12");
}

static void test_errors(void)
{
	/* a bad argument keeps its index and the others still parse */
	EXPECT_SPEC("riscv64", "8@a0 -4@a8 4@5",
		    "u64 reg a0 | s32 (invalid at 8: unknown register) | u32 const 5");
	EXPECT_SPEC("riscv64", "4@s12 4@x32 4@t7 4@foo",
		    "u32 (invalid at 2: unknown register) | u32 (invalid at 8: unknown register) | "
		    "u32 (invalid at 14: unknown register) | u32 (invalid at 19: unknown register)");
	EXPECT_SPEC("riscv64", "4@8(a8)", "u32 (invalid at 4: expected base register)");
	EXPECT_SPEC("riscv64", "4@8(fa0)", "u32 (invalid at 4: expected base register)");
	EXPECT_SPEC("riscv64", "4@8()", "u32 (invalid at 4: expected base register)");
	EXPECT_SPEC("riscv64", "4@(a0", "u32 (invalid at 5: expected ')')");
	EXPECT_SPEC("riscv64", "4@8(a0 a1)", "u32 (invalid at 7: expected ')')");
	EXPECT_SPEC("riscv64", "4@8(a0)x", "u32 (invalid at 7: unexpected text after operand)");
	EXPECT_SPEC("riscv64", "4@a0+1", "u32 (invalid at 4: unexpected text after operand)");
	EXPECT_SPEC("riscv64", "4@a0)", "u32 (invalid at 4: unexpected text after operand)");
	EXPECT_SPEC("riscv64", "4@zero+4", "u32 (invalid at 6: unexpected text after operand)");
	EXPECT_SPEC("riscv64", "4@sym+4", "u32 (invalid at 7: expected '(' base register ')')");
	EXPECT_SPEC("riscv64", "4@%lo(sym)", "u32 (invalid at 10: expected '(' base register ')')");
	EXPECT_SPEC("riscv64", "4@%lo(sym(a0)", "u32 (invalid at 9: expected ')')");
	EXPECT_SPEC("riscv64", "4@%lo()(a0)", "u32 (invalid at 6: expected a number or symbol)");
	EXPECT_SPEC("riscv64", "4@%hi(8)(a0)", "u32 (invalid at 2: relocation operator needs a symbol)");
	EXPECT_SPEC("riscv64", "4@%lo sym", "u32 (invalid at 2: expected '(' after a relocation operator) | u0 (invalid at 6: unknown register)");
	EXPECT_SPEC("riscv64", "4@%(a0)", "u32 (invalid at 2: expected '(' after a relocation operator)");
	EXPECT_SPEC("riscv64", "4@$5", "u32 (invalid at 2: unexpected character)");
	EXPECT_SPEC("riscv64", "4@%rax", "u32 (invalid at 2: expected '(' after a relocation operator)");
	EXPECT_SPEC("riscv64", "4@-", "u32 (invalid at 3: expected a number or symbol)");
	EXPECT_SPEC("riscv64", "4@99999999999999999999", "u32 (invalid at 2: number does not fit 64 bits)");
	EXPECT_SPEC("riscv64", "4@%lo(a+b)(a0)", "u32 (invalid at 8: more than one symbol in an expression)");
	EXPECT_SPEC("riscv64", "4@", "u32 (invalid at 2: missing operand)");
	EXPECT_SPEC("riscv64", "4@(a0 -4@a1", "u32 (invalid at 5: expected ')') | s32 reg a1");
}

static const struct bound_case bounds[] = {
	/* lengths exclude the tail: the parser must stop at the given end */
	BOUND_OK("bounded register", "4@a0b", 4, 10, -1, 0),
	BOUND_BAD("bounded memory", "4@8(a0)", 6, 6),
	BOUND_BAD("bounded reloc", "4@%lo(", 5, -1),
	BOUND_BAD("embedded NUL is an error", "4@a\0", 4, -1),
};

static void test_nul_bounds(void)
{
	check_bounds("riscv64", bounds, sizeof(bounds) / sizeof(bounds[0]));
}

int main(void)
{
	test_identity();
	test_register_table();
	test_registers();
	test_register_details();
	test_zero();
	test_constants();
	test_memory();
	test_symbols();
	test_symbol_details();
	test_unsupported_and_unreadable();
	test_pairs_and_sizes();
	test_eval();
	test_split();
	test_errors();
	test_nul_bounds();
	return check_done();
}
