// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* mips64el and mips64 (n64) operand grammar, every form and error path,
 * and evaluation against the kernel's struct pt_regs in both byte orders. */
#include <errno.h>

#include "bounds.h"
#include "check.h"
#include "eval_space.h"

#define FPMSG "FP/vector register: not in pt_regs, BPF cannot read it"
#define TLSMSG "thread-local symbol: the thread pointer is not in pt_regs"
#define NOADDR "relocation operator does not name a data address"

static const char *const both[] = { "mips64el", "mips64" };

static void test_identity(void)
{
	const struct usdtkit_arch *el = usdtkit_arch_by_name("mips64el");
	const struct usdtkit_arch *eb = usdtkit_arch_by_name("mips64");
	const struct usdtkit_layout *l;
	const struct usdtkit_regdef *d;
	size_t i, k;

	CHECK(el && eb && el != eb, "registered");
	if (!el || !eb)
		return;
	CHECK(usdtkit_arch_by_elf(8, 2, 1) == el, "EM_MIPS ELFCLASS64 LSB");
	CHECK(usdtkit_arch_by_elf(8, 2, 2) == eb, "EM_MIPS ELFCLASS64 MSB");
	/* o32 and n32 are ELFCLASS32: never read as n64 */
	CHECK(usdtkit_arch_by_elf(8, 1, 1) == NULL &&
		      usdtkit_arch_by_elf(8, 1, 2) == NULL, "no 32-bit mips");
	CHECK(usdtkit_arch_by_name("mips64le") == el &&
		      usdtkit_arch_by_name("mips64eb") == eb, "aliases");
	CHECK(usdtkit_arch_by_name("mips") == NULL &&
		      usdtkit_arch_by_name("mipsel") == NULL, "no o32 names");
	for (k = 0; k < 2; k++) {
		const struct usdtkit_arch *a = usdtkit_arch_by_name(both[k]);

		CHECK(usdtkit_arch_e_machine(a) == 8 &&
			      usdtkit_arch_elf_class(a) == 2 &&
			      usdtkit_arch_ptr_size(a) == 8, "%s identity", both[k]);
		l = usdtkit_arch_layout(a, USDTKIT_LAYOUT_NATIVE);
		CHECK(l && l->size == 304 && l->slot_size == 8 &&
			      l->big_endian == (k == 1) && l->nregs == 33,
		      "%s: kernel struct pt_regs", both[k]);
		if (!l)
			continue;
		/* the IP: cp0_epc after regs[32] and five special registers */
		CHECK(l->offsets[32] == 296, "%s cp0_epc at 296", both[k]);
		CHECK(usdtkit_arch_layout(a, USDTKIT_LAYOUT_COMPAT64) == NULL,
		      "%s: no compat layout", both[k]);
		for (i = 0; (d = usdtkit_arch_reg_at(a, i)); i++)
			CHECK(d->id >= 1 && d->id <= 31 && d->width == 8 &&
				      d->shift == 0 && l->offsets[d->id] == 8 * d->id,
			      "%s %s: regs[%d] at %d", both[k], d->name, d->id,
			      l->offsets[d->id]);
		CHECK(i == 31 + 38, "%s: 69 names, got %zu", both[k], i);
		CHECK(!strcmp(usdtkit_arch_reg_name(a, 29), "$29"),
		      "numeric names first, as GCC prints them");
	}
}

static void test_registers(void)
{
	size_t k;

	for (k = 0; k < 2; k++) {
		EXPECT_SPEC(both[k], "-1@$16 -2@$17 -4@$5 -8@$22 8@$sp 8@$fp 4@$31",
			    "s8 reg $16 | s16 reg $17 | s32 reg $5 | s64 reg $22 | "
			    "u64 reg $sp | u64 reg $fp | u32 reg $31");
		/* floats in general registers are readable */
		EXPECT_SPEC(both[k], "8f@$3 4f@$2", "u64f reg $3 | u32f reg $2");
		EXPECT_SPEC(both[k], "$2 8($sp) 42",
			    "u64 reg $2 | u64 mem [$sp + 8] | u64 const 42");
	}
}

/* n64 ABI names: a4-a7 and ta0-ta3 are $8-$11, t0-t3 are $12-$15 */
static void test_abi_names(void)
{
	static const struct {
		const char *name;
		int id;
	} names[] = {
		{ "$at", 1 },  { "$v0", 2 },   { "$v1", 3 },   { "$a0", 4 },
		{ "$a3", 7 },  { "$a4", 8 },   { "$a7", 11 },  { "$ta0", 8 },
		{ "$ta3", 11 }, { "$t0", 12 }, { "$t3", 15 },  { "$s0", 16 },
		{ "$s7", 23 }, { "$t8", 24 },  { "$t9", 25 },  { "$k0", 26 },
		{ "$k1", 27 }, { "$kt0", 26 }, { "$kt1", 27 }, { "$gp", 28 },
		{ "$sp", 29 }, { "$fp", 30 },  { "$s8", 30 },  { "$ra", 31 },
		{ "$1", 1 },   { "$9", 9 },    { "$10", 10 },  { "$31", 31 },
	};
	const struct usdtkit_arch *a = usdtkit_arch_by_name("mips64el");
	struct usdtkit_arg arg;
	char spec[32];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		/* once alone (the fast path), once with a blank after it */
		snprintf(spec, sizeof(spec), "8@%s", names[i].name);
		CHECK(usdtkit_args_parse(a, spec, strlen(spec), &arg, 1) == 1 &&
			      arg.status == USDTKIT_ARG_OK &&
			      arg.kind == USDTKIT_LOC_REG &&
			      arg.reg.id == names[i].id &&
			      arg.reg.offset == 8 * names[i].id,
		      "%s is $%d", names[i].name, names[i].id);
		snprintf(spec, sizeof(spec), "8@-8(%s)", names[i].name);
		CHECK(usdtkit_args_parse(a, spec, strlen(spec), &arg, 1) == 1 &&
			      arg.status == USDTKIT_ARG_OK &&
			      arg.kind == USDTKIT_LOC_MEM &&
			      arg.base.id == names[i].id && arg.disp == -8,
		      "-8(%s)", names[i].name);
	}
}

static void test_zero(void)
{
	/* $0 is hard-wired 0: a constant, and no base in an address */
	EXPECT_SPEC("mips64el", "8@$0 4@$zero -4@16($0) 4@($zero)",
		    "u64 const 0 | u32 const 0 | s32 mem [16] | u32 mem [0]");
}

static void test_constants(void)
{
	EXPECT_SPEC("mips64", "-4@-5 4@42 8@0x10 -8@-9223372036854775808 4@010",
		    "s32 const -5 | u32 const 42 | u64 const 16 | s64 const -9223372036854775808 | u32 const 8");
	EXPECT_SPEC("mips64", "-4@-8+3", "s32 const -5");
}

static void test_memory(void)
{
	EXPECT_SPEC("mips64el", "-8@16($sp) -4@0($4) 8@($2) 4@-8($fp) 1@0x10($3)",
		    "s64 mem [$sp + 16] | s32 mem [$4] | u64 mem [$2] | u32 mem [$fp - 8] | u8 mem [$3 + 16]");
	EXPECT_SPEC("mips64", "4@-8+3+1($a0) 8@( $t9 ) 8f@72($2) 4f@80($2)",
		    "u32 mem [$a0 - 4] | u64 mem [$t9] | u64f mem [$2 + 72] | u32f mem [$2 + 80]");
}

static void test_symbols(void)
{
	EXPECT_SPEC("mips64el", "4@sym 8@sym+8($2)",
		    "u32 symbol [sym] (unresolved at 2: " UNRES ") | "
		    "u64 symbol [sym+8 + $2] (unresolved at 8: " UNRES ")");
	/* GOT-page relative: resolved against the symbol (16 low bits);
	 * the other GOT operators read a GOT slot */
	EXPECT_SPEC("mips64el", "-4@%got_ofst(sint)($3)",
		    "s32 symbol [%got_ofst(sint) + $3] (unresolved at 13: " UNRES ")");
	EXPECT_SPEC("mips64el", "8@%got_disp(g)($28)",
		    "u64 symbol [g@GOT + $28] (unsupported at 12: GOT operand: "
		    "the address read comes from the GOT)");
	EXPECT_SPEC("mips64", "-4@%tprel_lo(tls_int)($2) -4@%dtprel_lo(tls_static)($16)",
		    "s32 symbol [tls_int@TLS + $2] (unsupported at 13: " TLSMSG ") | "
		    "s32 symbol [tls_static@TLS + $16] (unsupported at 40: " TLSMSG ")");
	/* %lo is 16 bits and pairs with %hi/%higher/%highest elsewhere */
	EXPECT_SPEC("mips64", "4@%lo(g+4)($2) 4@%gp_rel(g)($28)",
		    "u32 symbol [g+4 + $2] (unsupported at 6: " NOADDR ") | "
		    "u32 symbol [g + $28] (unsupported at 25: " NOADDR ")");
}

static void test_unreadable(void)
{
	EXPECT_SPEC("mips64el", "8f@$f0 4f@$f31 8@$f12",
		    "u64f unreadable $f0 (unreadable at 3: " FPMSG ") | "
		    "u32f unreadable $f31 (unreadable at 10: " FPMSG ") | "
		    "u64 unreadable $f12 (unreadable at 17: " FPMSG ")");
}

static void test_sizes(void)
{
	EXPECT_SPEC("mips64", "16@$2 3@($2)",
		    "u128 reg $2 (unsupported at 3: value is wider than the register) | "
		    "u24 mem [$2] (bad_size at 6: size is not 1, 2, 4 or 8: not readable by BPF)");
}

static void test_errors(void)
{
	/* o32's t4-t7 are not n64 names; $32 does not exist */
	EXPECT_SPEC("mips64el", "8@$2 -4@$t4 4@5 4@$32 4@$f32 4@$ 4@$hi",
		    "u64 reg $2 | s32 (invalid at 8: unknown register) | u32 const 5 | "
		    "u32 (invalid at 18: unknown register) | u32 (invalid at 24: unknown register) | "
		    "u32 (invalid at 31: unknown register) | u32 (invalid at 35: unknown register)");
	EXPECT_SPEC("mips64el", "4@8($2x)", "u32 (invalid at 4: unknown register)");
	EXPECT_SPEC("mips64el", "4@8($f0)", "u32 (invalid at 4: expected base register)");
	EXPECT_SPEC("mips64el", "4@8(2)", "u32 (invalid at 4: expected base register)");
	EXPECT_SPEC("mips64el", "4@8()", "u32 (invalid at 4: expected base register)");
	EXPECT_SPEC("mips64el", "4@8($2", "u32 (invalid at 6: expected ')')");
	EXPECT_SPEC("mips64el", "4@8($2,$3)", "u32 (invalid at 6: unexpected character)");
	EXPECT_SPEC("mips64el", "4@8($2))", "u32 (invalid at 7: unexpected text after operand)");
	EXPECT_SPEC("mips64el", "4@$2+2", "u32 (invalid at 4: unexpected text after operand)");
	EXPECT_SPEC("mips64el", "4@$0+2", "u32 (invalid at 4: unexpected text after operand)");
	EXPECT_SPEC("mips64el", "4@$f0($2)", "u32 (invalid at 5: unexpected text after operand)");
	EXPECT_SPEC("mips64el", "4@%r2", "u32 (invalid at 2: expected '(' after a relocation operator)");
	EXPECT_SPEC("mips64el", "4@%lo(4)($2)", "u32 (invalid at 2: relocation operator needs a symbol)");
	EXPECT_SPEC("mips64el", "4@%got_ofst(x)", "u32 (invalid at 14: expected '(' base register ')')");
	EXPECT_SPEC("mips64el", "4@%lo(x($2)", "u32 (invalid at 7: expected ')')");
	EXPECT_SPEC("mips64el", "4@#5", "u32 (invalid at 2: unexpected character)");
	EXPECT_SPEC("mips64el", "4@-", "u32 (invalid at 3: expected a number or symbol)");
	EXPECT_SPEC("mips64el", "4@a+b($2)", "u32 (invalid at 4: more than one symbol in an expression)");
	EXPECT_SPEC("mips64el", "4@99999999999999999999($2)", "u32 (invalid at 2: number does not fit 64 bits)");
	EXPECT_SPEC("mips64el", "4@", "u32 (invalid at 2: missing operand)");
	EXPECT_SPEC("mips64el", "4@8($2 -4@$3", "u32 (invalid at 6: expected ')') | s32 reg $3");
}

static const struct bound_case bounds[] = {
	/* "$3" of "$31": the lexer must not look past the given end */
	BOUND_OK("bounded register", "4@$31", 4, 3, -1, 0),
	BOUND_BAD("bounded memory", "4@8($2)", 6, 6),
	BOUND_BAD("embedded NUL", "4@$\0", 4, -1),
};

static void test_nul_bounds(void)
{
	check_bounds("mips64", bounds, sizeof(bounds) / sizeof(bounds[0]));
}

/* ---- evaluation of a snapshot in either byte order, on any host ---- */

static void eval_order(const char *arch, bool be)
{
	uint8_t regs[304];
	struct space sp = { 0 };
	USDTKIT_OPTS(usdtkit_eval_opts, o);
	uint64_t v = 0;
	int err;

	memset(regs, 0xee, sizeof(regs));	/* specials: noise */
	put_n(regs + 8 * 0, 0x1000, 8, be);	/* $0's slot: never read */
	put_n(regs + 8 * 2, 0xfedcba9887654321ull, 8, be);
	put_n(regs + 8 * 4, MEM_BASE, 8, be);
	/* an unsigned 32-bit value is kept sign-extended in a register */
	put_n(regs + 8 * 5, 0xffffffff80000000ull, 8, be);
	put_n(regs + 8 * 29, MEM_BASE + 0x10, 8, be);
	put_n(regs + 8 * 31, 0x0123456789abcdefull, 8, be);
	put_n(sp.mem + 0x18, 0xfffffffe, 4, be);	/* -2 */
	put_n(sp.mem + 0x20, 0x1122334455667788ull, 8, be);
	o.regs = regs;
	o.regs_size = sizeof(regs);
	o.read_mem = read_space;
	o.cookie = &sp;

	err = eval_one(arch, "8@$2", &o, &v);
	CHECK(err == 0 && v == 0xfedcba9887654321ull, "%s 8@$2: %d 0x%llx",
	      arch, err, (unsigned long long)v);
	err = eval_one(arch, "-4@$v0", &o, &v);
	CHECK(err == 0 && v == 0xffffffff87654321ull, "%s -4@$v0: 0x%llx", arch,
	      (unsigned long long)v);
	err = eval_one(arch, "4@$2", &o, &v);
	CHECK(err == 0 && v == 0x87654321ull, "%s 4@$2: 0x%llx", arch,
	      (unsigned long long)v);
	err = eval_one(arch, "4@$a1", &o, &v);
	CHECK(err == 0 && v == 0x80000000ull, "%s 4@$a1: 0x%llx", arch,
	      (unsigned long long)v);
	err = eval_one(arch, "-2@$2", &o, &v);
	CHECK(err == 0 && v == 0x4321, "%s -2@$2: 0x%llx", arch,
	      (unsigned long long)v);
	err = eval_one(arch, "1@$ra", &o, &v);
	CHECK(err == 0 && v == 0xef, "%s 1@$ra: 0x%llx", arch,
	      (unsigned long long)v);
	err = eval_one(arch, "8@$0", &o, &v);
	CHECK(err == 0 && v == 0, "%s $0 is 0, whatever its slot holds", arch);
	err = eval_one(arch, "-4@0x18($4)", &o, &v);
	CHECK(err == 0 && v == (uint64_t)-2, "%s -4@0x18($4): %d 0x%llx", arch,
	      err, (unsigned long long)v);
	err = eval_one(arch, "8@16($sp)", &o, &v);
	CHECK(err == 0 && v == 0x1122334455667788ull, "%s 8@16($sp): 0x%llx",
	      arch, (unsigned long long)v);
	err = eval_one(arch, "-2@0x2022($0)", &o, &v);
	CHECK(err == 0 && v == (be ? 0x3344 : 0x5566), "%s -2@0x2022($0): 0x%llx",
	      arch, (unsigned long long)v);
	err = eval_one(arch, "8f@$f0", &o, &v);
	CHECK(err == -EOPNOTSUPP, "%s FP register: %d", arch, err);
	err = eval_one(arch, "8@($2)", &o, &v);
	CHECK(err == -EFAULT, "%s read_mem error passes through: %d", arch, err);
	o.regs_size = 16;	/* cuts off regs[2] */
	err = eval_one(arch, "8@$2", &o, &v);
	CHECK(err == -ERANGE, "%s short snapshot: %d", arch, err);
}

static void test_eval(void)
{
	eval_order("mips64el", false);
	eval_order("mips64", true);
}

/* %got_ofst(sym)($3): the base holds (S + 0x8000) & ~0xffff, so the
 * resolved displacement is S's low 16 bits, sign-extended, and base +
 * disp lands on S on both sides of the 0x8000 boundary */
static void test_got_ofst(void)
{
	static const uint64_t syms[] = { 0x120011230, 0x12001f000, 0x7ff8,
					 0x8000, 0xffff, 0x10000 };
	const struct usdtkit_arch *a = usdtkit_arch_by_name("mips64el");
	struct usdtkit_arg arg;
	size_t i;

	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		uint64_t page = (syms[i] + 0x8000) & ~(uint64_t)0xffff;

		CHECK(usdtkit_args_parse(a, "-4@%got_ofst(s)($3)", 19, &arg, 1) == 1,
		      "parse");
		CHECK(arg.reloc == USDTKIT_RELOC_GOT_OFST && arg.deref,
		      "reloc got_ofst");
		CHECK(usdtkit_arg_resolve(a, &arg, 0x120000800, syms[i], 0) == 0,
		      "resolve %#llx", (unsigned long long)syms[i]);
		CHECK(arg.kind == USDTKIT_LOC_MEM && arg.status == USDTKIT_ARG_OK &&
			      !arg.pc_rel && arg.base.id == 3,
		      "mem at $3");
		CHECK(page + (uint64_t)arg.disp == syms[i],
		      "%#llx: page %#llx + disp %lld", (unsigned long long)syms[i],
		      (unsigned long long)page, (long long)arg.disp);
	}
	/* without a base register there is no page to add to */
	CHECK(usdtkit_args_parse(a, "-4@%got_ofst(s)", 15, &arg, 1) == 1, "parse");
	CHECK(arg.status != USDTKIT_ARG_OK ||
		      usdtkit_arg_resolve(a, &arg, 0, 0x1234, 0) == -EOPNOTSUPP,
	      "no base: refused");
}

int main(void)
{
	test_identity();
	test_registers();
	test_abi_names();
	test_zero();
	test_constants();
	test_memory();
	test_symbols();
	test_got_ofst();
	test_unreadable();
	test_sizes();
	test_errors();
	test_nul_bounds();
	test_eval();
	return check_done();
}
