// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* x86-64, i386 and x32 operand grammar: every form, every error path. */
#include "bounds.h"
#include "check.h"

static void test_registers(void)
{
	EXPECT_SPEC("x86_64", "8@%rax 4@%eax 2@%ax 1@%al 1@%ah",
		    "u64 reg rax | u32 reg eax | u16 reg ax | u8 reg al | u8 reg ah");
	EXPECT_SPEC("x86_64", "-1@%bh -1@%ch -1@%dh -1@%bl",
		    "s8 reg bh | s8 reg ch | s8 reg dh | s8 reg bl");
	EXPECT_SPEC("x86_64", "8@%r8 -4@%r9d -2@%r10w -1@%r11b 8@%r15",
		    "u64 reg r8 | s32 reg r9d | s16 reg r10w | s8 reg r11b | u64 reg r15");
	EXPECT_SPEC("x86_64", "1@%sil 1@%dil 1@%bpl 1@%spl",
		    "u8 reg sil | u8 reg dil | u8 reg bpl | u8 reg spl");
	EXPECT_SPEC("x86_64", "8@%rsp 8@%rbp 8@%rip",
		    "u64 reg rsp | u64 reg rbp | u64 reg rip");
	EXPECT_SPEC("i386", "4@%eax -2@%si 1@%dh 4@%esp",
		    "u32 reg eax | s16 reg si | u8 reg dh | u32 reg esp");
	/* i386 compilers name 32-bit registers for narrow values */
	EXPECT_SPEC("i386", "1@%edi -2@%ecx", "u8 reg edi | s16 reg ecx");
}

static void test_register_details(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("x86_64");
	struct usdtkit_arg arg[3];
	const char *s = "1@%ah 8@%rbp -4@%r12d";

	CHECK(usdtkit_args_parse(a, s, strlen(s), arg, 3) == 3, "count");
	CHECK(arg[0].reg.shift == 8 && arg[0].reg.width == 1 &&
		      arg[0].reg.offset == 80, "ah: shift 8 in rax slot");
	CHECK(arg[1].reg.offset == 32, "rbp at 32");
	CHECK(arg[2].reg.offset == 24 && arg[2].reg.width == 4, "r12d");
	a = usdtkit_arch_by_name("i386");
	s = "4@%eax 4@%ebx";
	CHECK(usdtkit_args_parse(a, s, strlen(s), arg, 3) == 2, "count");
	CHECK(arg[0].reg.offset == 24 && arg[1].reg.offset == 0,
	      "i386 native offsets eax=%d ebx=%d", arg[0].reg.offset,
	      arg[1].reg.offset);
}

static void test_constants(void)
{
	EXPECT_SPEC("x86_64", "-4@$-1 -4@$2147483647 -8@$1234567890123 4@$0x1f",
		    "s32 const -1 | s32 const 2147483647 | s64 const 1234567890123 | u32 const 31");
	EXPECT_SPEC("x86_64", "8@$18446744073709551615 -1@$-5 4@$010",
		    "u64 const 18446744073709551615 | s8 const -5 | u32 const 8");
	EXPECT_SPEC("i386", "-4@$7", "s32 const 7");
}

static void test_memory(void)
{
	EXPECT_SPEC("x86_64", "-4@-1204(%rbp) 8@(%rsp) -4@32(%r9,%rdi,4)",
		    "s32 mem [rbp - 1204] | u64 mem [rsp] | s32 mem [r9 + rdi*4 + 32]");
	EXPECT_SPEC("x86_64", "-4@(%r11,%r14,4) -4@-1204(%rbp,%rax,8)",
		    "s32 mem [r11 + r14*4] | s32 mem [rbp + rax*8 - 1204]");
	EXPECT_SPEC("x86_64", "4@8(%rax,%rbx) 4@(%rax,%rbx) 4@16(,%rcx,8)",
		    "u32 mem [rax + rbx*1 + 8] | u32 mem [rax + rbx*1] | u32 mem [rcx*8 + 16]");
	EXPECT_SPEC("x86_64", "-8@-8+3+1(%rbp) 4@0x10(%rdi)",
		    "s64 mem [rbp - 4] | u32 mem [rdi + 16]");
	EXPECT_SPEC("i386", "-4@-12(%ebp) 4@8(%esp,%eax,4) -4@4(%eax,%edx)",
		    "s32 mem [ebp - 12] | u32 mem [esp + eax*4 + 8] | s32 mem [eax + edx*1 + 4]");
	/* whitespace inside the parentheses stays in one argument */
	EXPECT_SPEC("x86_64", "4@8( %rax , %rbx , 2 ) 1@%al",
		    "u32 mem [rax + rbx*2 + 8] | u8 reg al");
}

static void test_symbols(void)
{
	EXPECT_SPEC("x86_64", "-4@sint(%rip) 4@counter.0(%rip) 8@x.lto_priv.0(%rip)",
		    "s32 symbol [sint(pc)] (unresolved at 3: symbol-relative: needs the ELF symbol table) | "
		    "u32 symbol [counter.0(pc)] (unresolved at 16: symbol-relative: needs the ELF symbol table) | "
		    "u64 symbol [x.lto_priv.0(pc)] (unresolved at 34: symbol-relative: needs the ELF symbol table)");
	EXPECT_SPEC("x86_64", "4@gs+32(%rip)", "u32 symbol [gs+32(pc)] (unresolved at 2: symbol-relative: needs the ELF symbol table)");
	EXPECT_SPEC("x86_64", "4@40+gs(%rip)", "u32 symbol [gs+40(pc)] (unresolved at 5: symbol-relative: needs the ELF symbol table)");
	EXPECT_SPEC("x86_64", "4@gs-8(%rip)", "u32 symbol [gs-8(pc)] (unresolved at 2: symbol-relative: needs the ELF symbol table)");
	EXPECT_SPEC("x86_64", "4@a$b(%rip)", "u32 symbol [a$b(pc)] (unresolved at 2: symbol-relative: needs the ELF symbol table)");
	EXPECT_SPEC("x86_64", "-4@gs+32(,%rdi,4) -4@garr(,%r15,4)",
		    "s32 symbol [gs+32 + rdi*4] (unresolved at 3: symbol-relative: needs the ELF symbol table) | "
		    "s32 symbol [garr + r15*4] (unresolved at 21: symbol-relative: needs the ELF symbol table)");
	EXPECT_SPEC("i386", "4@gs 4@gs+4 8f@gdouble",
		    "u32 symbol [gs] (unresolved at 2: symbol-relative: needs the ELF symbol table) | "
		    "u32 symbol [gs+4] (unresolved at 7: symbol-relative: needs the ELF symbol table) | "
		    "u64f symbol [gdouble] (unresolved at 15: symbol-relative: needs the ELF symbol table)");
	EXPECT_SPEC("i386", "-4@40+sym@GOTOFF(%ebx) -4@garr@GOTOFF(%eax,%edx,4)",
		    "s32 symbol [sym+40@GOTOFF + ebx] (unresolved at 6: symbol-relative: needs the ELF symbol table) | "
		    "s32 symbol [garr@GOTOFF + eax + edx*4] (unresolved at 26: symbol-relative: needs the ELF symbol table)");
	EXPECT_SPEC("x86_64", "8@sym@GOTPCREL(%rip)",
		    "u64 symbol [sym@GOT] (unresolved at 2: symbol-relative: needs the ELF symbol table)");
	EXPECT_SPEC("x86_64", "8@$sym", "u64 symbol sym (unresolved at 3: symbol-relative: needs the ELF symbol table)");
}

static void test_tls_and_unreadable(void)
{
	EXPECT_SPEC("x86_64", "-4@%fs:tls_int@tpoff",
		    "s32 symbol [tls_int@TLS] (unsupported at 7: thread-local symbol: the thread pointer is not in pt_regs)");
	EXPECT_SPEC("i386", "-4@%gs:x@ntpoff",
		    "s32 symbol [x@TLS] (unsupported at 7: thread-local symbol: the thread pointer is not in pt_regs)");
	EXPECT_SPEC("x86_64", "8f@%xmm0 4f@%xmm15 8@%st(1) 8@%mm3",
		    "u64f unreadable xmm0 (unreadable at 3: FP/vector register: not in pt_regs, BPF cannot read it) | "
		    "u32f unreadable xmm15 (unreadable at 12: FP/vector register: not in pt_regs, BPF cannot read it) | "
		    "u64 unreadable st(1) (unreadable at 21: FP/vector register: not in pt_regs, BPF cannot read it) | "
		    "u64 unreadable mm3 (unreadable at 30: FP/vector register: not in pt_regs, BPF cannot read it)");
	/* floats that live in general registers are readable */
	EXPECT_SPEC("x86_64", "8f@%rax -4f@-8(%rbp)", "u64f reg rax | s32f mem [rbp - 8]");
}

static void test_pairs_and_sizes(void)
{
	EXPECT_SPEC("i386", "-8@%eax 8@%ecx 8@%esi 8f@%eax",
		    "s64 reg edx:eax | u64 reg ebx:ecx | u64 reg edi:esi | u64f reg edx:eax");
	EXPECT_SPEC("i386", "8@%ebp",
		    "u64 reg ebp (unsupported at 2: value is wider than the register)");
	EXPECT_SPEC("x86_64", "8@%eax",
		    "u64 reg eax (unsupported at 2: value is wider than the register)");
	EXPECT_SPEC("x86_64", "16@%rax 3@(%rdi) 0@$1",
		    "u128 reg rax (unsupported at 3: value is wider than the register) | "
		    "u24 mem [rdi] (bad_size at 8: size is not 1, 2, 4 or 8: not readable by BPF) | "
		    "u0 const 1 (bad_size at 17: size is not 1, 2, 4 or 8: not readable by BPF)");
	/* size-less operands of asm probes take the register's width */
	EXPECT_SPEC("x86_64", "%rdi %esi %al 8(%rsp) $5",
		    "u64 reg rdi | u32 reg esi | u8 reg al | u64 mem [rsp + 8] | u64 const 5");
	EXPECT_SPEC("i386", "%eax 4(%esp)", "u32 reg eax | u32 mem [esp + 4]");
}

static void test_split(void)
{
	char buf[256];

	CHECK(render_spec("x86_64", "", buf, sizeof(buf)) == 0, "empty");
	CHECK(render_spec("x86_64", ":", buf, sizeof(buf)) == 0, "colon");
	CHECK(render_spec("x86_64", "  :  ", buf, sizeof(buf)) == 0, "colon ws");
	CHECK(render_spec("x86_64", "   ", buf, sizeof(buf)) == 0, "blank");
	CHECK(render_spec("x86_64", " 8@%rax\t\t-4@%ecx  ", buf, sizeof(buf)) == 2,
	      "tabs");
	EXPECT_SPEC("x86_64", " 8@%rax\t\t-4@%ecx  ", "u64 reg rax | s32 reg ecx");
}

static void test_errors(void)
{
	/* a bad argument keeps its index and the others still parse */
	EXPECT_SPEC("x86_64", "8@%rax -4@%bogus 4@$1",
		    "u64 reg rax | s32 (invalid at 10: unknown register) | u32 const 1");
	EXPECT_SPEC("i386", "8@%rax", "u64 (invalid at 2: register does not exist on this architecture)");
	EXPECT_SPEC("i386", "4@%r8d", "u32 (invalid at 2: register does not exist on this architecture)");
	EXPECT_SPEC("x86_64", "4@(%rax", "u32 (invalid at 7: expected ')')");
	EXPECT_SPEC("x86_64", "4@8(%rax,%rsp,2)", "u32 (invalid at 9: register cannot be an index)");
	EXPECT_SPEC("x86_64", "4@8(%rax,%rbx,3)", "u32 (invalid at 14: scale must be 1, 2, 4 or 8)");
	EXPECT_SPEC("x86_64", "4@8(%ax)", "u32 (invalid at 4: base register must be 32 or 64 bits wide)");
	EXPECT_SPEC("x86_64", "4@$", "u32 (invalid at 3: expected a number or symbol)");
	EXPECT_SPEC("x86_64", "4@", "u32 (invalid at 2: missing operand)");
	EXPECT_SPEC("x86_64", "4@%rax)", "u32 (invalid at 6: unexpected text after operand)");
	EXPECT_SPEC("x86_64", "4@$99999999999999999999", "u32 (invalid at 3: number does not fit 64 bits)");
	EXPECT_SPEC("x86_64", "4@$a+b", "u32 (invalid at 5: more than one symbol in an expression)");
	EXPECT_SPEC("x86_64", "4@$-a", "u32 (invalid at 4: negated symbol)");
	EXPECT_SPEC("x86_64", "4@8(%rip)", "u32 mem [8] (unsupported at 2: %rip-relative offset without a symbol)");
	EXPECT_SPEC("x86_64", "4@%fs:8", "u32 mem [8] (unsupported at 2: segment-relative: the segment base is not in pt_regs)");
	EXPECT_SPEC("x86_64", "4@#1", "u32 (invalid at 2: unexpected character)");
	EXPECT_SPEC("x86_64", "99999999@%rax", "u0 (invalid at 0: argument size is absurd)");
	EXPECT_SPEC("x86_64", "4@(%rax -4@%ecx", "u32 (invalid at 7: expected ')') | s32 reg ecx");
}

static const struct bound_case bounds[] = {
	/* length excludes the "x": the parser must stop at the given end */
	BOUND_OK("bounded: rax", "4@%raxx", 6, 0, -1, 0),
	BOUND_BAD("embedded NUL is an error", "4@%r\0ax", 7, -1),
};

static void test_nul_bounds(void)
{
	check_bounds("x86_64", bounds, sizeof(bounds) / sizeof(bounds[0]));
	CHECK(usdtkit_args_parse(NULL, "4@%raxx", 6, NULL, 0) == -22, "NULL arch");
}

static void test_many_args(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("x86_64");
	struct usdtkit_arg arg[4];
	char s[2000] = "";
	int i;

	for (i = 0; i < 40; i++)
		strcat(s, "8@%rax ");
	CHECK(usdtkit_args_parse(a, s, strlen(s), arg, 4) == 40,
	      "counts past max_args");
	CHECK(arg[3].status == USDTKIT_ARG_OK, "filled the first 4");
}

int main(void)
{
	test_registers();
	test_register_details();
	test_constants();
	test_memory();
	test_symbols();
	test_tls_and_unreadable();
	test_pairs_and_sizes();
	test_split();
	test_errors();
	test_nul_bounds();
	test_many_args();
	return check_done();
}
