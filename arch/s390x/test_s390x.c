// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* s390x operand grammar, every form and error path, and big-endian
 * evaluation against a user_pt_regs snapshot. */
#include <errno.h>

#include "bounds.h"
#include "check.h"
#include "eval_space.h"

#define FPMSG "FP/vector register: not in pt_regs, BPF cannot read it"

static void test_identity(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("s390x");
	const struct usdtkit_layout *l;
	const struct usdtkit_regdef *d;
	size_t i;

	CHECK(a != NULL, "registered");
	if (!a)
		return;
	CHECK(usdtkit_arch_by_elf(22, 2, 2) == a, "EM_S390 ELFCLASS64 MSB");
	CHECK(usdtkit_arch_by_elf(22, 2, 1) == NULL, "no little-endian s390");
	CHECK(usdtkit_arch_by_name("s390") == a, "alias");
	CHECK(usdtkit_arch_e_machine(a) == 22 && usdtkit_arch_elf_class(a) == 2 &&
		      usdtkit_arch_elf_data(a) == 2 && usdtkit_arch_ptr_size(a) == 8,
	      "ELF identity");
	l = usdtkit_arch_layout(a, USDTKIT_LAYOUT_NATIVE);
	CHECK(l && l->size == 152 && l->slot_size == 8 && l->big_endian &&
		      l->nregs == 16, "user_pt_regs");
	CHECK(usdtkit_arch_layout(a, USDTKIT_LAYOUT_COMPAT64) == NULL,
	      "no compat layout");
	for (i = 0; (d = usdtkit_arch_reg_at(a, i)); i++) {
		char name[8];

		snprintf(name, sizeof(name), "r%zu", i);
		CHECK(!strcmp(d->name, name) && d->id == (int)i && d->width == 8 &&
			      d->shift == 0 && l->offsets[d->id] == 24 + 8 * (int)i,
		      "%s: gprs[%zu] at %d", d->name, i, l->offsets[d->id]);
	}
	CHECK(i == 16, "16 names");
	CHECK(!strcmp(usdtkit_arch_reg_name(a, 15), "r15"), "id 15");
}

static void test_registers(void)
{
	EXPECT_SPEC("s390x", "-4@%r2 8@%r15 -8@%r0 1@%r1 -2@%r10 8@%r9",
		    "s32 reg r2 | u64 reg r15 | s64 reg r0 | u8 reg r1 | s16 reg r10 | u64 reg r9");
	/* floats in general registers are readable */
	EXPECT_SPEC("s390x", "8f@%r1 4f@%r2", "u64f reg r1 | u32f reg r2");
	/* size-less operands */
	EXPECT_SPEC("s390x", "%r2 160(%r15) 42", "u64 reg r2 | u64 mem [r15 + 160] | u64 const 42");
}

static void test_register_details(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("s390x");
	struct usdtkit_arg arg[3];
	const char *s = "-4@%r2 8@%r0 8@%r15";

	CHECK(usdtkit_args_parse(a, s, strlen(s), arg, 3) == 3, "count");
	CHECK(arg[0].reg.id == 2 && arg[0].reg.offset == 40 &&
		      arg[0].reg.width == 8, "r2 at 40");
	/* %r0 as an operand is the register itself */
	CHECK(arg[1].kind == USDTKIT_LOC_REG && arg[1].reg.id == 0 &&
		      arg[1].reg.offset == 24, "r0 at 24");
	CHECK(arg[2].reg.offset == 144, "r15 at 144");
}

static void test_constants(void)
{
	EXPECT_SPEC("s390x", "-4@-5 4@42 8@0x10 -8@-9223372036854775808 4@010",
		    "s32 const -5 | u32 const 42 | u64 const 16 | s64 const -9223372036854775808 | u32 const 8");
	EXPECT_SPEC("s390x", "-4@-8+3", "s32 const -5");
}

static void test_memory(void)
{
	EXPECT_SPEC("s390x", "-8@160(%r15) -4@164(%r15) 8@(%r2) 4@-8(%r3) 1@0(%r1)",
		    "s64 mem [r15 + 160] | s32 mem [r15 + 164] | u64 mem [r2] | u32 mem [r3 - 8] | u8 mem [r1]");
	/* D(X,B): index first, then base */
	EXPECT_SPEC("s390x", "-4@0(%r5,%r13) -8@160(%r1,%r15) 4@(%r3,%r4)",
		    "s32 mem [r13 + r5*1] | s64 mem [r15 + r1*1 + 160] | u32 mem [r4 + r3*1]");
	EXPECT_SPEC("s390x", "4@8(,%r3) 4@-8+3+1(%r2) 4@8( %r1 , %r2 ) -4@%r3",
		    "u32 mem [r3 + 8] | u32 mem [r2 - 4] | u32 mem [r2 + r1*1 + 8] | s32 reg r3");
	EXPECT_SPEC("s390x", "4f@164(%r15) 8f@0(%r2)", "u32f mem [r15 + 164] | u64f mem [r2]");
}

/* %r0 in a base or index field means "no register" */
static void test_r0_address(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("s390x");
	struct usdtkit_arg arg[5];
	const char *s = "4@8(%r0) 4@-8(%r0,%r3) 4@8(%r2,%r0) 4@(%r0,%r0) 4@16(,%r0)";

	EXPECT_SPEC("s390x", s,
		    "u32 mem [8] | u32 mem [r3 - 8] | u32 mem [r2*1 + 8] | u32 mem [0] | u32 mem [16]");
	CHECK(usdtkit_args_parse(a, s, strlen(s), arg, 5) == 5, "count");
	CHECK(arg[0].base.id < 0 && arg[0].index.id < 0 && arg[0].disp == 8,
	      "8(%%r0): absolute");
	CHECK(arg[1].base.id == 3 && arg[1].index.id < 0 && arg[1].scale == 0,
	      "-8(%%r0,%%r3): no index");
	CHECK(arg[2].base.id < 0 && arg[2].index.id == 2 && arg[2].scale == 1,
	      "8(%%r2,%%r0): index only");
	CHECK(arg[3].base.id < 0 && arg[3].index.id < 0 &&
		      arg[3].kind == USDTKIT_LOC_MEM, "(%%r0,%%r0)");
	CHECK(arg[4].base.id < 0 && arg[4].index.id < 0 && arg[4].disp == 16,
	      "16(,%%r0)");
}

static void test_symbols(void)
{
	EXPECT_SPEC("s390x", "4@sym 8@sym+8(%r2) -4@sym-4(%r1,%r2)",
		    "u32 symbol [sym] (unresolved at 2: " UNRES ") | "
		    "u64 symbol [sym+8 + r2] (unresolved at 8: " UNRES ") | "
		    "s32 symbol [sym-4 + r2 + r1*1] (unresolved at 22: " UNRES ")");
	EXPECT_SPEC("s390x", "8@sym@GOTENT 4@x@GOTOFF(%r12)",
		    "u64 symbol [sym@GOT] (unresolved at 2: " UNRES ") | "
		    "u32 symbol [x@GOTOFF + r12] (unresolved at 15: " UNRES ")");
	EXPECT_SPEC("s390x", "4@x@ntpoff(%r1) 4@f@PLT",
		    "u32 symbol [x@TLS + r1] (unsupported at 2: thread-local symbol: the thread pointer is not in pt_regs) | "
		    "u32 symbol [f] (unsupported at 18: relocation operator does not name a data address)");
	EXPECT_SPEC("s390x", "4@x@FOO(%r1)",
		    "u32 symbol [x + r1] (unsupported at 2: relocation operator does not name a data address)");
}

static void test_unreadable(void)
{
	EXPECT_SPEC("s390x", "8f@%f0 4f@%f15 8@%v16 8@%v31",
		    "u64f unreadable f0 (unreadable at 3: " FPMSG ") | "
		    "u32f unreadable f15 (unreadable at 10: " FPMSG ") | "
		    "u64 unreadable v16 (unreadable at 17: " FPMSG ") | "
		    "u64 unreadable v31 (unreadable at 24: " FPMSG ")");
	EXPECT_SPEC("s390x", "4@%a0 4@%a15",
		    "u32 unreadable a0 (unsupported at 2: access register: not in user_pt_regs) | "
		    "u32 unreadable a15 (unsupported at 8: access register: not in user_pt_regs)");
}

static void test_sizes(void)
{
	EXPECT_SPEC("s390x", "16@%r2 3@(%r2)",
		    "u128 reg r2 (unsupported at 3: value is wider than the register) | "
		    "u24 mem [r2] (bad_size at 7: size is not 1, 2, 4 or 8: not readable by BPF)");
}

static void test_errors(void)
{
	EXPECT_SPEC("s390x", "8@%r2 -4@%r16 4@5",
		    "u64 reg r2 | s32 (invalid at 9: unknown register) | u32 const 5");
	EXPECT_SPEC("s390x", "4@%x1 4@%f16 4@%a16 4@%v32 4@%r",
		    "u32 (invalid at 2: unknown register) | u32 (invalid at 8: unknown register) | "
		    "u32 (invalid at 15: unknown register) | u32 (invalid at 22: unknown register) | "
		    "u32 (invalid at 29: unknown register)");
	EXPECT_SPEC("s390x", "4@8(%r2,)", "u32 (invalid at 8: expected base register)");
	EXPECT_SPEC("s390x", "4@8(%r1,%r2,%r3)", "u32 (invalid at 11: expected ')')");
	EXPECT_SPEC("s390x", "4@8(%f0)", "u32 (invalid at 4: expected register)");
	EXPECT_SPEC("s390x", "4@8(%r1,%f2)", "u32 (invalid at 8: expected base register)");
	EXPECT_SPEC("s390x", "4@8(2,3)", "u32 (invalid at 4: expected register)");
	EXPECT_SPEC("s390x", "4@8()", "u32 (invalid at 4: expected register)");
	EXPECT_SPEC("s390x", "4@8(%r2", "u32 (invalid at 7: expected ')')");
	EXPECT_SPEC("s390x", "4@8(%r2))", "u32 (invalid at 8: unexpected text after operand)");
	EXPECT_SPEC("s390x", "4@%r1+2", "u32 (invalid at 5: unexpected text after operand)");
	EXPECT_SPEC("s390x", "4@%f0(%r1)", "u32 (invalid at 5: unexpected text after operand)");
	EXPECT_SPEC("s390x", "4@%a1+1", "u32 (invalid at 5: unexpected text after operand)");
	EXPECT_SPEC("s390x", "4@$5", "u32 (invalid at 2: unexpected character)");
	EXPECT_SPEC("s390x", "4@-", "u32 (invalid at 3: expected a number or symbol)");
	EXPECT_SPEC("s390x", "4@a+b(%r1)", "u32 (invalid at 4: more than one symbol in an expression)");
	EXPECT_SPEC("s390x", "4@99999999999999999999(%r1)", "u32 (invalid at 2: number does not fit 64 bits)");
	EXPECT_SPEC("s390x", "4@", "u32 (invalid at 2: missing operand)");
	EXPECT_SPEC("s390x", "4@8(%r2 -4@%r3", "u32 (invalid at 7: expected ')') | s32 reg r3");
}

static const struct bound_case bounds[] = {
	/* "%r1" of "%r15": the lexer must not look past the given end */
	BOUND_OK("bounded register", "4@%r15", 5, 1, -1, 0),
	BOUND_BAD("bounded memory", "4@8(%r1,%r2)", 11, 11),
	BOUND_BAD("embedded NUL", "4@%r\0", 5, -1),
};

static void test_nul_bounds(void)
{
	check_bounds("s390x", bounds, sizeof(bounds) / sizeof(bounds[0]));
}

/* ---- evaluation of a big-endian snapshot on any host ---- */

static void test_eval(void)
{
	uint8_t regs[152];
	struct space sp = { 0 };
	USDTKIT_OPTS(usdtkit_eval_opts, o);
	uint64_t v = 0;
	int err;

	memset(regs, 0xee, sizeof(regs));	/* psw and args: noise */
	put_n(regs + 24 + 8 * 0, 0x1000, 8, true);	/* r0: must never be added */
	put_n(regs + 24 + 8 * 2, 0xfedcba9887654321ull, 8, true);
	put_n(regs + 24 + 8 * 3, 0x10, 8, true);
	put_n(regs + 24 + 8 * 4, MEM_BASE, 8, true);
	put_n(regs + 24 + 8 * 15, 0x0123456789abcdefull, 8, true);
	put_n(sp.mem + 0x18, 0xfffffffe, 4, true);	/* -2 at MEM_BASE + 0x18 */
	put_n(sp.mem + 0x20, 0x1122334455667788ull, 8, true);
	o.regs = regs;
	o.regs_size = sizeof(regs);
	o.read_mem = read_space;
	o.cookie = &sp;

	err = eval_one("s390x", "8@%r2", &o, &v);
	CHECK(err == 0 && v == 0xfedcba9887654321ull, "8@%%r2: %d 0x%llx", err,
	      (unsigned long long)v);
	/* the low half of a big-endian slot is its last 4 bytes */
	err = eval_one("s390x", "-4@%r2", &o, &v);
	CHECK(err == 0 && v == 0xffffffff87654321ull, "-4@%%r2: %d 0x%llx", err,
	      (unsigned long long)v);
	err = eval_one("s390x", "4@%r2", &o, &v);
	CHECK(err == 0 && v == 0x87654321ull, "4@%%r2: 0x%llx",
	      (unsigned long long)v);
	err = eval_one("s390x", "-2@%r2", &o, &v);
	CHECK(err == 0 && v == 0x4321, "-2@%%r2: 0x%llx", (unsigned long long)v);
	err = eval_one("s390x", "1@%r15", &o, &v);
	CHECK(err == 0 && v == 0xef, "1@%%r15: 0x%llx", (unsigned long long)v);
	err = eval_one("s390x", "-8@%r0", &o, &v);
	CHECK(err == 0 && v == 0x1000, "-8@%%r0 reads r0 itself");
	/* memory: BE bytes, D(X,B) sums, %r0 fields add nothing */
	err = eval_one("s390x", "-4@8(%r3,%r4)", &o, &v);
	CHECK(err == 0 && v == (uint64_t)-2, "-4@8(%%r3,%%r4): %d 0x%llx", err,
	      (unsigned long long)v);
	err = eval_one("s390x", "8@0x20(%r0,%r4)", &o, &v);
	CHECK(err == 0 && v == 0x1122334455667788ull,
	      "8@0x20(%%r0,%%r4): %d 0x%llx", err, (unsigned long long)v);
	err = eval_one("s390x", "-2@0x22(%r4,%r0)", &o, &v);
	CHECK(err == 0 && v == 0x3344, "-2@0x22(%%r4,%%r0): %d 0x%llx", err,
	      (unsigned long long)v);
	err = eval_one("s390x", "4@0x2024(%r0)", &o, &v);
	CHECK(err == 0 && v == 0x55667788, "4@0x2024(%%r0): %d 0x%llx", err,
	      (unsigned long long)v);
	err = eval_one("s390x", "-4@-5", &o, &v);
	CHECK(err == 0 && v == (uint64_t)-5, "constant");
	err = eval_one("s390x", "8f@%f0", &o, &v);
	CHECK(err == -EOPNOTSUPP, "FP register: %d", err);
	err = eval_one("s390x", "8@%a0", &o, &v);
	CHECK(err == -EOPNOTSUPP, "access register: %d", err);
	err = eval_one("s390x", "8@(%r3)", &o, &v);
	CHECK(err == -EFAULT, "read_mem error passes through: %d", err);
	o.regs_size = 40;	/* cuts off gprs[2] */
	err = eval_one("s390x", "8@%r2", &o, &v);
	CHECK(err == -ERANGE, "short snapshot: %d", err);
}

int main(void)
{
	test_identity();
	test_registers();
	test_register_details();
	test_constants();
	test_memory();
	test_r0_address();
	test_symbols();
	test_unreadable();
	test_sizes();
	test_errors();
	test_nul_bounds();
	test_eval();
	return check_done();
}
