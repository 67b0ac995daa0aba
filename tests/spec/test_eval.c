// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The evaluator against hand-built register snapshots and a fake address
 * space: every location kind, exact-size reads, sign and zero extension,
 * high-byte shift, register pairs, compat layouts, pc-relative resolved
 * symbols and every error return.
 */
#include <errno.h>

#include "check.h"
#include "regs.h"

/* A fake address space: 256 bytes at BASE_ADDR. */
#define BASE_ADDR 0x10000ull
struct space {
	uint8_t mem[256];
	int reads;
	size_t last_size;
};

static int read_space(void *cookie, uint64_t addr, void *buf, size_t size)
{
	struct space *s = cookie;

	s->reads++;
	s->last_size = size;
	if (addr < BASE_ADDR || addr + size > BASE_ADDR + sizeof(s->mem))
		return -EFAULT;
	memcpy(buf, s->mem + (addr - BASE_ADDR), size);
	return 0;
}

/* Put @v into the slot of register @id in a snapshot of @layout. */
static void set_reg(uint8_t *regs, const struct usdtkit_layout *l, int id,
		    uint64_t v)
{
	int off = l->offsets[id], i;

	for (i = 0; i < l->slot_size; i++) {
		int k = l->big_endian ? l->slot_size - 1 - i : i;

		regs[off + k] = (uint8_t)(v >> (8 * i));
	}
}

struct fixture {
	const struct usdtkit_arch *arch;
	enum usdtkit_layout_kind kind;
	uint8_t regs[512];
	struct space space;
	struct usdtkit_eval_opts opts;
};

static void fixture_init(struct fixture *f, const char *arch,
			 enum usdtkit_layout_kind kind)
{
	memset(f, 0, sizeof(*f));
	f->arch = usdtkit_arch_by_name(arch);
	f->kind = kind;
	f->opts.sz = sizeof(f->opts);
	f->opts.regs = f->regs;
	f->opts.regs_size = usdtkit_arch_layout(f->arch, kind)->size;
	f->opts.layout = kind;
	f->opts.read_mem = read_space;
	f->opts.cookie = &f->space;
	f->opts.ip = BASE_ADDR + 0x80;
}

static void setr(struct fixture *f, const char *name, uint64_t v)
{
	set_reg(f->regs, usdtkit_arch_layout(f->arch, f->kind),
		reg_id(f->arch, name), v);
}

/* Parse one-argument @spec, evaluate, compare with @want / @werr. */
static void expect_eval(struct fixture *f, const char *spec, int werr,
			uint64_t want)
{
	struct usdtkit_arg arg;
	uint64_t v = 0xdeadbeef;
	int n, err;

	n = usdtkit_args_parse(f->arch, spec, strlen(spec), &arg, 1);
	CHECK(n == 1, "%s: %d args", spec, n);
	err = usdtkit_arg_eval(f->arch, &arg, &f->opts, &v);
	CHECK(err == werr, "%s %s: err %d, want %d", usdtkit_arch_name(f->arch),
	      spec, err, werr);
	if (!werr)
		CHECK(v == want, "%s %s: 0x%llx, want 0x%llx",
		      usdtkit_arch_name(f->arch), spec, (unsigned long long)v,
		      (unsigned long long)want);
}

static void test_x86_64(void)
{
	struct fixture f;

	fixture_init(&f, "x86_64", USDTKIT_LAYOUT_NATIVE);
	setr(&f, "rax", 0x1122334455667788ull);
	setr(&f, "rbx", 0xfffffffffffff0f1ull);
	setr(&f, "rbp", BASE_ADDR + 0x40);
	setr(&f, "rcx", 3);
	setr(&f, "r13", 0x8000000000000001ull);
	memcpy(f.space.mem + 0x40 - 8, "\xfe\xff\xff\xff\x01\x02\x03\x04", 8);
	f.space.mem[0x40 + 0x18] = 0x80;

	expect_eval(&f, "8@%rax", 0, 0x1122334455667788ull);
	expect_eval(&f, "4@%eax", 0, 0x55667788);
	expect_eval(&f, "-2@%ax", 0, 0x7788);
	expect_eval(&f, "1@%ah", 0, 0x77);
	expect_eval(&f, "-1@%bh", 0, 0xfffffffffffffff0ull);
	expect_eval(&f, "-1@%bl", 0, 0xfffffffffffffff1ull);
	expect_eval(&f, "1@%bl", 0, 0xf1);
	expect_eval(&f, "-8@%r13", 0, 0x8000000000000001ull);
	/* the size, not the register, decides how much is kept */
	expect_eval(&f, "-1@%eax", 0, 0xffffffffffffff88ull);
	expect_eval(&f, "-4@$-5", 0, (uint64_t)-5);
	expect_eval(&f, "4@$-5", 0, 0xfffffffb);
	expect_eval(&f, "-4@-8(%rbp)", 0, (uint64_t)-2);
	CHECK(f.space.last_size == 4, "exact-size read: %zu", f.space.last_size);
	expect_eval(&f, "8@-8(%rbp)", 0, 0x04030201fffffffeull);
	expect_eval(&f, "-1@(%rbp,%rcx,8)", 0, 0xffffffffffffff80ull);
	expect_eval(&f, "1@-0x28(,%rbp,1)", 0, 0);
	setr(&f, "rip", BASE_ADDR + 0x80);
	expect_eval(&f, "8@%rip", 0, BASE_ADDR + 0x80);
	/* errors */
	expect_eval(&f, "4@(%rdx)", -EFAULT, 0);
	expect_eval(&f, "8f@%xmm0", -EOPNOTSUPP, 0);
	expect_eval(&f, "3@%rax", -EOPNOTSUPP, 0);
	expect_eval(&f, "4@sym(%rip)", -ENOENT, 0);
	expect_eval(&f, "4@%bogus", -EINVAL, 0);
	expect_eval(&f, "4@%fs:x@tpoff", -EOPNOTSUPP, 0);
	f.opts.regs_size = 16;
	expect_eval(&f, "8@%rax", -ERANGE, 0);
	f.opts.sz = 4;
	expect_eval(&f, "8@%r15", -EINVAL, 0);
}

static void test_resolve_pcrel(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("x86_64");
	const char *s = "-4@counter+8(%rip) 8@$gs -4@gs+4(,%rcx,4)";
	struct usdtkit_arg args[3];
	struct fixture f;
	uint64_t v;

	fixture_init(&f, "x86_64", USDTKIT_LAYOUT_NATIVE);
	CHECK(usdtkit_args_parse(a, s, strlen(s), args, 3) == 3, "parse");
	/* link time: pc 0x100, counter at 0x10; loaded BASE_ADDR higher */
	CHECK(usdtkit_arg_resolve(a, &args[0], 0x100, 0x10, 0) == 0, "r0");
	CHECK(args[0].kind == USDTKIT_LOC_MEM && args[0].pc_rel &&
		      args[0].disp == 0x18 - 0x100 &&
		      args[0].status == USDTKIT_ARG_OK,
	      "pc-relative mem");
	f.opts.ip = 0x100 + BASE_ADDR;
	memcpy(f.space.mem + 0x18, "\xfb\xff\xff\xff", 4);
	CHECK(usdtkit_arg_eval(a, &args[0], &f.opts, &v) == 0 && v == (uint64_t)-5,
	      "value through pc_rel: 0x%llx", (unsigned long long)v);
	CHECK(usdtkit_arg_resolve(a, &args[1], 0x100, 0x10, 0) == 0, "r1");
	CHECK(args[1].kind == USDTKIT_LOC_CONST && args[1].pc_rel, "address");
	CHECK(usdtkit_arg_eval(a, &args[1], &f.opts, &v) == 0 &&
		      v == 0x10 + BASE_ADDR, "address value");
	CHECK(usdtkit_arg_resolve(a, &args[2], 0x100, 0x10, 0) == 0, "r2");
	setr(&f, "rcx", 1);
	memcpy(f.space.mem + 0x18, "\x07\x00\x00\x00", 4);
	CHECK(usdtkit_arg_eval(a, &args[2], &f.opts, &v) == 0 && v == 7,
	      "symbol with index");
	CHECK(usdtkit_arg_resolve(a, &args[0], 0, 0, 0) == -EINVAL,
	      "resolving twice is refused");
}

static void test_i386(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("i386");
	const char *s = "-4@40+sym@GOTOFF(%ebx)";
	struct usdtkit_arg arg;
	struct fixture f;
	uint64_t v;
	int k;

	/* native 32-bit pt_regs and the x86-64 compat layout agree */
	for (k = 0; k < 2; k++) {
		fixture_init(&f, "i386", k ? USDTKIT_LAYOUT_COMPAT64
					   : USDTKIT_LAYOUT_NATIVE);
		setr(&f, "eax", 0x89abcdef);
		setr(&f, "edx", 0x01234567);
		setr(&f, "ecx", 0xfffffffe);
		setr(&f, "ebx", 0xffffffff);
		setr(&f, "esp", BASE_ADDR + 0x10);
		f.space.mem[0x14] = 0x2a;
		expect_eval(&f, "-8@%eax", 0, 0x0123456789abcdefull);
		expect_eval(&f, "-8@%ecx", 0, 0xfffffffffffffffeull);
		expect_eval(&f, "-4@%ecx", 0, (uint64_t)-2);
		expect_eval(&f, "1@%ah", 0, 0xcd);
		expect_eval(&f, "4@4(%esp)", 0, 0x2a);
		/* 32-bit address arithmetic wraps */
		setr(&f, "esi", 0xffffffff);
		expect_eval(&f, "1@5(%esp,%esi)", 0, 0x2a);
	}
	/* GOTOFF: sym - GOT + %ebx */
	fixture_init(&f, "i386", USDTKIT_LAYOUT_NATIVE);
	CHECK(usdtkit_args_parse(a, s, strlen(s), &arg, 1) == 1, "parse");
	CHECK(usdtkit_arg_resolve(a, &arg, 0x100, 0x2000, 0x1f00) == 0, "resolve");
	CHECK(arg.kind == USDTKIT_LOC_MEM && !arg.pc_rel && arg.disp == 0x128,
	      "gotoff disp %lld", (long long)arg.disp);
	memcpy(f.space.mem + 0x28, "\x02\x00\x00\x00", 4);
	setr(&f, "ebx", BASE_ADDR - 0x100);
	CHECK(usdtkit_arg_eval(a, &arg, &f.opts, &v) == 0 && v == 2, "gotoff read");
}

static void test_resolve_errors(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("x86_64");
	const char *s = "-4@%fs:x@tpoff 8@x@GOTPCREL(%rip) 4@%eax";
	struct usdtkit_arg args[3];

	CHECK(usdtkit_args_parse(a, s, strlen(s), args, 3) == 3, "parse");
	CHECK(usdtkit_arg_resolve(a, &args[0], 0, 1, 0) == -EOPNOTSUPP, "tls");
	CHECK(usdtkit_arg_resolve(a, &args[1], 0, 1, 0) == -EOPNOTSUPP, "got");
	CHECK(usdtkit_arg_resolve(a, &args[2], 0, 1, 0) == -EINVAL, "not sym");
}

int main(void)
{
	test_x86_64();
	test_resolve_pcrel();
	test_i386();
	test_resolve_errors();
	return check_done();
}
