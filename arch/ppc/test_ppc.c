// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* PowerPC 64 operand grammar (GCC's sys/sdt.h forms and -mregnames
 * spellings), every form and error path, and evaluation of pt_regs
 * snapshots in both byte orders (ppc64le, ppc64). */
#include <errno.h>

#include "bounds.h"
#include "check.h"
#include "eval_space.h"

#define FPMSG "FP/vector register: not in pt_regs, BPF cannot read it"
#define NOREG "expected a register number (constants take an 'i' prefix)"

static void test_identity(void)
{
	const struct usdtkit_arch *le = usdtkit_arch_by_name("ppc64le");
	const struct usdtkit_arch *be = usdtkit_arch_by_name("ppc64");
	const struct usdtkit_layout *ll, *lb;
	const struct usdtkit_regdef *d;
	size_t i;

	CHECK(le && be && le != be, "registered");
	if (!le || !be)
		return;
	CHECK(usdtkit_arch_by_elf(21, 2, 1) == le, "EM_PPC64 ELFCLASS64 LSB");
	CHECK(usdtkit_arch_by_elf(21, 2, 2) == be, "EM_PPC64 ELFCLASS64 MSB");
	CHECK(usdtkit_arch_by_elf(21, 1, 2) == NULL, "no 32-bit EM_PPC64");
	CHECK(usdtkit_arch_by_elf(20, 1, 2) == NULL, "EM_PPC (32-bit): not yet");
	CHECK(usdtkit_arch_by_name("ppc64el") == le &&
		      usdtkit_arch_by_name("powerpc64le") == le, "LE aliases");
	CHECK(usdtkit_arch_by_name("powerpc64") == be &&
		      usdtkit_arch_by_name("ppc") == be, "BE aliases");
	CHECK(usdtkit_arch_ptr_size(le) == 8 && usdtkit_arch_ptr_size(be) == 8,
	      "pointers");
	ll = usdtkit_arch_layout(le, USDTKIT_LAYOUT_NATIVE);
	lb = usdtkit_arch_layout(be, USDTKIT_LAYOUT_NATIVE);
	CHECK(ll && ll->size == 352 && ll->slot_size == 8 && !ll->big_endian &&
		      ll->nregs == 44, "pt_regs (ppc64le)");
	CHECK(lb && lb->size == 352 && lb->slot_size == 8 && lb->big_endian &&
		      lb->nregs == 44, "pt_regs (ppc64)");
	if (!ll || !lb)
		return;
	CHECK(usdtkit_arch_layout(le, USDTKIT_LAYOUT_COMPAT64) == NULL,
	      "no compat layout");
	for (i = 0; i < 32 && (d = usdtkit_arch_reg_at(le, i)); i++) {
		char name[8];

		snprintf(name, sizeof(name), "r%zu", i);
		CHECK(!strcmp(d->name, name) && d->id == (int)i && d->width == 8 &&
			      ll->offsets[d->id] == 8 * (int)i &&
			      lb->offsets[d->id] == 8 * (int)i,
		      "%s: gpr[%zu] at %d", d->name, i, ll->offsets[d->id]);
	}
	/* nip follows gpr[31]; link is 4 slots later (msr, orig_gpr3, ctr) */
	CHECK(!strcmp(usdtkit_arch_reg_name(le, 32), "nip") &&
		      ll->offsets[32] == 256, "nip at 256");
	CHECK(!strcmp(usdtkit_arch_reg_name(le, 36), "lr") &&
		      ll->offsets[36] == 288, "link at 288");
	CHECK(!strcmp(usdtkit_arch_reg_name(be, 35), "ctr") &&
		      lb->offsets[35] == 280, "ctr at 280");
}

static void test_registers(void)
{
	/* a bare number is a general register, never a constant */
	EXPECT_SPEC("ppc64le", "8@3 -4@31 1@0 -2@10 8f@10 4f@9",
		    "u64 reg r3 | s32 reg r31 | u8 reg r0 | s16 reg r10 | u64f reg r10 | u32f reg r9");
	EXPECT_SPEC("ppc64", "8@3 -4@31 1@0", "u64 reg r3 | s32 reg r31 | u8 reg r0");
	/* -mregnames and hand-written spellings */
	EXPECT_SPEC("ppc64le", "8@%r3 -4@r31 8@%r0 8@r0",
		    "u64 reg r3 | s32 reg r31 | u64 reg r0 | u64 reg r0");
	EXPECT_SPEC("ppc64", "8@nip 8@%msr 8@ctr 8@%lr 4@xer 4@ccr",
		    "u64 reg nip | u64 reg msr | u64 reg ctr | u64 reg lr | u32 reg xer | u32 reg ccr");
	/* size-less operands (asm probes) */
	EXPECT_SPEC("ppc64le", "3 -16(31) i42 9,10",
		    "u64 reg r3 | u64 mem [r31 - 16] | u64 const 42 | u64 mem [r9 + r10*1]");
	/* the token grammar (blanks inside brackets, octal) agrees with the
	 * fast path */
	EXPECT_SPEC("ppc64le", "8@03 8@0x1f -8@-16( 31 ) -4@i-8+0",
		    "u64 reg r3 | u64 reg r31 | s64 mem [r31 - 16] | s32 const -8");
}

static void test_register_details(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("ppc64");
	struct usdtkit_arg arg[3];
	const char *s = "-4@3 8@%r0 8@nip";

	CHECK(usdtkit_args_parse(a, s, strlen(s), arg, 3) == 3, "count");
	CHECK(arg[0].reg.id == 3 && arg[0].reg.offset == 24 &&
		      arg[0].reg.width == 8, "r3 at 24");
	/* r0 as an operand is the register itself */
	CHECK(arg[1].kind == USDTKIT_LOC_REG && arg[1].reg.id == 0 &&
		      arg[1].reg.offset == 0, "r0 at 0");
	CHECK(arg[2].reg.id == 32 && arg[2].reg.offset == 256, "nip at 256");
}

static void test_constants(void)
{
	EXPECT_SPEC("ppc64le", "-4@i5 -4@i-8 8@i0 -8@i4294967296 -8@i-4294967297 -2@i-32768",
		    "s32 const 5 | s32 const -8 | u64 const 0 | s64 const 4294967296 | "
		    "s64 const -4294967297 | s16 const -32768");
	EXPECT_SPEC("ppc64", "-8@i1234567890123 4@i0x10 4@i010 -8@i-9223372036854775808",
		    "s64 const 1234567890123 | u32 const 16 | u32 const 8 | s64 const -9223372036854775808");
}

static void test_memory(void)
{
	/* D-form: D(RA) */
	EXPECT_SPEC("ppc64le", "-8@-16(31) -4@0(9) 8f@0(10) 1@112(1) 4@(9) 4@8(%r1) 4@-8+3+1(2)",
		    "s64 mem [r31 - 16] | s32 mem [r9] | u64f mem [r10] | u8 mem [r1 + 112] | "
		    "u32 mem [r9] | u32 mem [r1 + 8] | u32 mem [r2 - 4]");
	/* X-form: RA,RB is (RA|0) + RB */
	EXPECT_SPEC("ppc64", "-4@9,10 -8@4,7 1@12,5 -2@11,3 -4@%r9,%r5 4@r9,r0",
		    "s32 mem [r9 + r10*1] | s64 mem [r4 + r7*1] | u8 mem [r12 + r5*1] | "
		    "s16 mem [r11 + r3*1] | s32 mem [r9 + r5*1] | u32 mem [r9 + r0*1]");
	/* a blank ends an operand outside brackets: "9 , 10" is no X-form */
	EXPECT_SPEC("ppc64le", "4@9 , 10",
		    "u32 reg r9 | u0 (invalid at 4: expected a number or symbol) | u64 reg r10");
}

/* register 0 in RA (D-form base, X-form first register) means "none" */
static void test_r0_address(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("ppc64le");
	struct usdtkit_arg arg[4];
	const char *s = "4@16(0) 4@0,5 4@5,0 4@-8(%r0)";

	EXPECT_SPEC("ppc64le", s, "u32 mem [16] | u32 mem [r5] | u32 mem [r5 + r0*1] | u32 mem [-8]");
	CHECK(usdtkit_args_parse(a, s, strlen(s), arg, 4) == 4, "count");
	CHECK(arg[0].base.id < 0 && arg[0].index.id < 0 && arg[0].disp == 16,
	      "16(0): absolute");
	CHECK(arg[1].base.id == 5 && arg[1].index.id < 0 && arg[1].scale == 0,
	      "0,5: RB alone");
	CHECK(arg[2].base.id == 5 && arg[2].index.id == 0 && arg[2].scale == 1,
	      "5,0: RB = r0 is the register");
	CHECK(arg[3].base.id < 0 && arg[3].disp == -8, "-8(%%r0): absolute");
}

static void test_symbols(void)
{
	EXPECT_SPEC("ppc64le", "4@sym(2) 8@sym+8(9)",
		    "u32 symbol [sym + r2] (unresolved at 2: " UNRES ") | "
		    "u64 symbol [sym+8 + r9] (unresolved at 11: " UNRES ")");
	EXPECT_SPEC("ppc64", "4@.LC0@toc@l(9) 4@x@tprel(13) 4@x@got@tprel(2)",
		    "u32 symbol [.LC0 + r9] (unsupported at 2: relocation operator does not name a data address) | "
		    "u32 symbol [x@TLS + r13] (unsupported at 18: thread-local symbol: the thread pointer is not in pt_regs) | "
		    "u32 symbol [x@TLS + r2] (unsupported at 32: thread-local symbol: the thread pointer is not in pt_regs)");
	/* an immediate with a symbol is its address, as a value */
	EXPECT_SPEC("ppc64le", "8@i5+sym", "u64 symbol sym+5 (unresolved at 5: " UNRES ")");
}

static void test_unreadable(void)
{
	EXPECT_SPEC("ppc64le", "8f@%f1 4f@f31 16@%v2 8@%vs34 8@vs63",
		    "u64f unreadable f1 (unreadable at 3: " FPMSG ") | "
		    "u32f unreadable f31 (unreadable at 10: " FPMSG ") | "
		    "u128 unreadable v2 (unreadable at 17: " FPMSG ") | "
		    "u64 unreadable vs34 (unreadable at 23: " FPMSG ") | "
		    "u64 unreadable vs63 (unreadable at 31: " FPMSG ")");
}

static void test_sizes(void)
{
	EXPECT_SPEC("ppc64", "16@3 3@0(9)",
		    "u128 reg r3 (unsupported at 3: value is wider than the register) | "
		    "u24 mem [r9] (bad_size at 5: size is not 1, 2, 4 or 8: not readable by BPF)");
}

static void test_errors(void)
{
	EXPECT_SPEC("ppc64le", "8@32 8@99999999999999999999 4@-5 4@5+1",
		    "u64 (invalid at 2: register number out of range (0-31)) | "
		    "u64 (invalid at 7: number does not fit 64 bits) | "
		    "u32 (invalid at 30: " NOREG ") | u32 (invalid at 35: " NOREG ")");
	EXPECT_SPEC("ppc64le", "4@%r32 4@%x1 4@%f32 4@sym 4@r32",
		    "u32 (invalid at 2: unknown register) | u32 (invalid at 9: unknown register) | "
		    "u32 (invalid at 15: unknown register) | u32 (invalid at 22: unknown register) | "
		    "u32 (invalid at 28: unknown register)");
	EXPECT_SPEC("ppc64", "4@8(32)", "u32 (invalid at 4: register number out of range (0-31))");
	EXPECT_SPEC("ppc64", "4@8(nip)", "u32 (invalid at 4: expected a general register)");
	EXPECT_SPEC("ppc64", "4@8(%f1)", "u32 (invalid at 4: expected register)");
	EXPECT_SPEC("ppc64", "4@8()", "u32 (invalid at 4: expected register)");
	EXPECT_SPEC("ppc64", "4@8(9", "u32 (invalid at 5: expected ')')");
	EXPECT_SPEC("ppc64", "4@8(9))", "u32 (invalid at 6: unexpected text after operand)");
	EXPECT_SPEC("ppc64", "4@8(9,10)", "u32 (invalid at 5: expected ')')");
	EXPECT_SPEC("ppc64", "4@9,", "u32 (invalid at 4: expected register)");
	EXPECT_SPEC("ppc64", "4@9,32", "u32 (invalid at 4: register number out of range (0-31))");
	EXPECT_SPEC("ppc64", "4@32,9", "u32 (invalid at 2: register number out of range (0-31))");
	EXPECT_SPEC("ppc64", "4@9,10,11", "u32 (invalid at 6: unexpected text after operand)");
	EXPECT_SPEC("ppc64", "4@-9,10", "u32 (invalid at 2: expected register)");
	EXPECT_SPEC("ppc64", "4@nip,9", "u32 (invalid at 5: unexpected text after operand)");
	EXPECT_SPEC("ppc64", "4@9,nip", "u32 (invalid at 4: expected a general register)");
	EXPECT_SPEC("ppc64", "4@%r1+2", "u32 (invalid at 5: unexpected text after operand)");
	EXPECT_SPEC("ppc64", "4@i", "u32 (invalid at 2: unknown register)");
	/* "i" without a number is a name */
	EXPECT_SPEC("ppc64", "4@i-", "u32 (invalid at 4: expected a number or symbol)");
	EXPECT_SPEC("ppc64", "4@$5 4@#5", "u32 (invalid at 2: unexpected character) | "
		    "u32 (invalid at 7: unexpected character)");
	EXPECT_SPEC("ppc64", "4@a+b(9)", "u32 (invalid at 4: more than one symbol in an expression)");
	EXPECT_SPEC("ppc64", "4@", "u32 (invalid at 2: missing operand)");
	EXPECT_SPEC("ppc64", "4@8(9 -4@3", "u32 (invalid at 5: expected ')') | s32 reg r3");
}

static const struct bound_case bounds[] = {
	/* "3" of "31": the lexer must not look past the given end */
	BOUND_OK("bounded register", "4@31", 3, 3, -1, 0),
	BOUND_BAD("bounded memory", "4@8(9)", 5, 5),
	BOUND_OK("bounded X-form: 9,1", "4@9,10", 5, -1, 1, 0),
	BOUND_BAD("embedded NUL", "4@%r\0", 5, -1),
};

static void test_nul_bounds(void)
{
	check_bounds("ppc64le", bounds, sizeof(bounds) / sizeof(bounds[0]));
}

/* ---- evaluation in both byte orders on any host ---- */

static void test_eval(const char *arch, bool be)
{
	uint8_t regs[352];
	struct space sp = { 0 };
	USDTKIT_OPTS(usdtkit_eval_opts, o);
	uint64_t v = 0;
	int err;

	memset(regs, 0xee, sizeof(regs));
	put_n(regs + 8 * 0, 0x1000, 8, be);	/* r0: never added as RA */
	put_n(regs + 8 * 3, 0xfedcba9887654321ull, 8, be);
	put_n(regs + 8 * 4, 0x10, 8, be);
	put_n(regs + 8 * 9, MEM_BASE, 8, be);
	put_n(regs + 8 * 10, 0x20, 8, be);
	put_n(regs + 8 * 31, MEM_BASE + 0x30, 8, be);
	put_n(regs + 256, 0x10000400, 8, be);	/* nip */
	put_n(sp.mem + 0x10, 0xfffffffe, 4, be);	/* -2 at MEM_BASE + 0x10 */
	put_n(sp.mem + 0x20, 0x1122334455667788ull, 8, be);
	o.regs = regs;
	o.regs_size = sizeof(regs);
	o.read_mem = read_space;
	o.cookie = &sp;

	err = eval_one(arch, "8@3", &o, &v);
	CHECK(err == 0 && v == 0xfedcba9887654321ull, "%s 8@3: %d 0x%llx", arch,
	      err, (unsigned long long)v);
	/* the low half of the slot: its first (LE) or last (BE) 4 bytes */
	err = eval_one(arch, "-4@3", &o, &v);
	CHECK(err == 0 && v == 0xffffffff87654321ull, "%s -4@3: %d 0x%llx",
	      arch, err, (unsigned long long)v);
	err = eval_one(arch, "-2@%r3", &o, &v);
	CHECK(err == 0 && v == 0x4321, "%s -2@%%r3", arch);
	err = eval_one(arch, "-8@0", &o, &v);
	CHECK(err == 0 && v == 0x1000, "%s -8@0 reads r0 itself", arch);
	err = eval_one(arch, "8@nip", &o, &v);
	CHECK(err == 0 && v == 0x10000400, "%s nip", arch);
	/* memory in the target's byte order */
	err = eval_one(arch, "-4@0x10(9)", &o, &v);
	CHECK(err == 0 && v == (uint64_t)-2, "%s -4@0x10(9): %d 0x%llx", arch,
	      err, (unsigned long long)v);
	err = eval_one(arch, "-4@-32(31)", &o, &v);
	CHECK(err == 0 && v == (uint64_t)-2, "%s -4@-32(31): %d", arch, err);
	err = eval_one(arch, "8@9,10", &o, &v);
	CHECK(err == 0 && v == 0x1122334455667788ull, "%s 8@9,10: %d 0x%llx",
	      arch, err, (unsigned long long)v);
	err = eval_one(arch, "-4@9,4", &o, &v);
	CHECK(err == 0 && v == (uint64_t)-2, "%s -4@9,4: %d", arch, err);
	/* RA = 0 adds nothing, RB = r0 adds r0 */
	err = eval_one(arch, "-4@0,9", &o, &v);
	CHECK(err == 0 && v == 0, "%s -4@0,9: %d 0x%llx", arch, err,
	      (unsigned long long)v);
	err = eval_one(arch, "-4@9,0", &o, &v);
	CHECK(err == -EFAULT, "%s -4@9,0 adds r0 (0x1000): %d", arch, err);
	err = eval_one(arch, "4@0x2010(0)", &o, &v);
	CHECK(err == 0 && v == 0xfffffffe, "%s 4@0x2010(0): %d", arch, err);
	err = eval_one(arch, "-4@i-5", &o, &v);
	CHECK(err == 0 && v == (uint64_t)-5, "%s constant", arch);
	err = eval_one(arch, "8f@%f1", &o, &v);
	CHECK(err == -EOPNOTSUPP, "%s FP register: %d", arch, err);
	err = eval_one(arch, "8@0(4)", &o, &v);
	CHECK(err == -EFAULT, "%s read_mem error passes through: %d", arch, err);
	o.regs_size = 256;	/* cuts off nip */
	err = eval_one(arch, "8@nip", &o, &v);
	CHECK(err == -ERANGE, "%s short snapshot: %d", arch, err);
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
	test_eval("ppc64le", false);
	test_eval("ppc64", true);
	return check_done();
}
