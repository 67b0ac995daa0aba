// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The evaluator on every architecture: each case sets registers (by name,
 * in the arch's native layout and byte order), places bytes in a fake
 * address space, evaluates one argument and compares the 64-bit result.
 * Every location kind appears for every arch: const, reg (narrow views,
 * pairs on 32-bit targets), mem with base, with base+index, symbol after
 * resolution, and the unreadable/unresolved error returns.
 */
#include <errno.h>

#include "arch_table.h"
#include "check.h"
#include "regs.h"

#define MEM_BASE 0x40000ull

struct setreg {
	const char *name;
	uint64_t value;
};

struct ecase {
	const char *arch;
	const char *spec;
	struct setreg regs[3];
	uint64_t want;
	int err;
	/* resolve a SYMBOL arg first: pc, symbol address (link time) */
	uint64_t pc, sym;
};

/* memory: MEM_BASE + i holds byte (0x80 + i); little- or big-endian
 * decoding of these bytes is what a target load returns */
static int read_pattern(void *cookie, uint64_t addr, void *buf, size_t size)
{
	size_t i;

	(void)cookie;
	if (addr < MEM_BASE || addr + size > MEM_BASE + 0x100)
		return -EFAULT;
	for (i = 0; i < size; i++)
		((uint8_t *)buf)[i] = (uint8_t)(0x80 + (addr - MEM_BASE) + i);
	return 0;
}

#define M(off) (MEM_BASE + (off))

static const struct ecase cases[] = {
	/* x86-64 */
	{ "x86_64", "-4@$-7", {{0}}, (uint64_t)-7, 0, 0, 0 },
	{ "x86_64", "-2@%si", {{ "rsi", 0xffff8001 }}, 0xffffffffffff8001ull, 0, 0, 0 },
	{ "x86_64", "1@%dh", {{ "rdx", 0xabcd }}, 0xab, 0, 0, 0 },
	{ "x86_64", "2@2(%rdi)", {{ "rdi", M(0) }}, 0x8382, 0, 0, 0 },
	{ "x86_64", "-1@-2(%rdi,%rcx,2)", {{ "rdi", M(0x10) }, { "rcx", 1 }}, 0xffffffffffffff90ull, 0, 0, 0 },
	{ "x86_64", "8@g+8(%rip)", {{0}}, 0x8f8e8d8c8b8a8988ull, 0, 0x1000, 0x1000 },
	{ "x86_64", "8f@%xmm1", {{0}}, 0, -EOPNOTSUPP, 0, 0 },
	/* x32: x86-64 registers, 32-bit pointers */
	{ "x32", "-4@%edi", {{ "rdi", 0xfffffffe }}, (uint64_t)-2, 0, 0, 0 },
	{ "x32", "4@8(%esp)", {{ "rsp", M(0) }}, 0x8b8a8988, 0, 0, 0 },
	{ "x32", "4@g+4(%rip)", {{0}}, 0x87868584, 0, 0x1000, 0x1000 },
	/* i386 */
	{ "i386", "-8@%edx", {{ "edx", 0xfffffffe }, { "ecx", 0xffffffff }}, (uint64_t)-2, 0, 0, 0 },
	{ "i386", "4@4(%esp)", {{ "esp", M(0) }}, 0x87868584, 0, 0, 0 },
	{ "i386", "-4@gs+4", {{0}}, 0xffffffff87868584ull, 0, 0x100, 0x1000 },
	/* aarch64 */
	{ "aarch64", "-4@w3", {{ "x3", 0x1ffffffffull }}, (uint64_t)-1, 0, 0, 0 },
	{ "aarch64", "8@x30", {{ "x30", 0x1234 }}, 0x1234, 0, 0, 0 },
	{ "aarch64", "-8@#-3", {{0}}, (uint64_t)-3, 0, 0, 0 },
	{ "aarch64", "4@[sp, 8]", {{ "sp", M(0) }}, 0x8b8a8988, 0, 0, 0 },
	{ "aarch64", "2@[x1, x2]", {{ "x1", M(0) }, { "x2", 4 }}, 0x8584, 0, 0, 0 },
	{ "aarch64", "1@[x0, w2, uxtw]", {{ "x0", M(0) }, { "x2", 0xffffffff00000003ull }}, 0x83, 0, 0, 0 },
	{ "aarch64", "4@[x2, #:lo12:g]", {{ "x2", M(0) }}, 0x87868584, 0, 0x400, 0x1004 },
	{ "aarch64", "8@d0", {{0}}, 0, -EOPNOTSUPP, 0, 0 },
	/* arm */
	{ "arm", "-8@r0", {{ "r0", 0xfffffffd }, { "r1", 0xffffffff }}, (uint64_t)-3, 0, 0, 0 },
	{ "arm", "-1@r2", {{ "r2", 0x7f80 }}, 0xffffffffffffff80ull, 0, 0, 0 },
	{ "arm", "4@#-16", {{0}}, 0xfffffff0, 0, 0, 0 },
	{ "arm", "4@[fp, #-8]", {{ "fp", M(0x10) }}, 0x8b8a8988, 0, 0, 0 },
	{ "arm", "1@[r0, r3, lsl #2]", {{ "r0", M(0) }, { "r3", 2 }}, 0x88, 0, 0, 0 },
	{ "arm", "4@#g", {{0}}, 0x2000 + MEM_BASE - 0x1000, 0, 0x800, 0x2000 },
	/* riscv64 and riscv32 */
	{ "riscv64", "-4@a0", {{ "a0", 0xffffffff80000000ull }}, 0xffffffff80000000ull, 0, 0, 0 },
	{ "riscv64", "8@16(sp)", {{ "sp", M(0) }}, 0x9796959493929190ull, 0, 0, 0 },
	{ "riscv64", "-4@%lo(g)(a5)", {{ "a5", M(0x800) }}, 0xffffffff87868584ull, 0, 0, 0x7f804 },
	{ "riscv64", "8@fa0", {{0}}, 0, -EOPNOTSUPP, 0, 0 },
	{ "riscv32", "-8@a0", {{ "a0", 5 }, { "a1", 1 }}, 0x100000005ull, 0, 0, 0 },
	{ "riscv32", "2@-2(s0)", {{ "s0", M(4) }}, 0x8382, 0, 0, 0 },
	/* s390x: big-endian slots and memory */
	{ "s390x", "-4@%r2", {{ "r2", 0x00000000fffffffbull }}, (uint64_t)-5, 0, 0, 0 },
	{ "s390x", "8@%r15", {{ "r15", 0x0102030405060708ull }}, 0x0102030405060708ull, 0, 0, 0 },
	{ "s390x", "4@160(%r15)", {{ "r15", M(0) - 160 }}, 0x80818283, 0, 0, 0 },
	{ "s390x", "2@2(%r1,%r3)", {{ "r1", 2 }, { "r3", M(0) }}, 0x8485, 0, 0, 0 },
	{ "s390x", "-8@-5", {{0}}, (uint64_t)-5, 0, 0, 0 },
	{ "s390x", "8@%f0", {{0}}, 0, -EOPNOTSUPP, 0, 0 },
	/* mips64el and mips64 (n64): regs[n] of the kernel's pt_regs */
	{ "mips64el", "-4@$2", {{ "$2", 0xffffffff80000001ull }}, 0xffffffff80000001ull, 0, 0, 0 },
	{ "mips64el", "1@$a4", {{ "$8", 0x1ff }}, 0xff, 0, 0, 0 },
	{ "mips64el", "4@16($sp)", {{ "$sp", M(0) }}, 0x93929190, 0, 0, 0 },
	{ "mips64el", "8@g", {{0}}, 0x8f8e8d8c8b8a8988ull, 0, 0x1000, 0x1008 },
	{ "mips64el", "8@$zero", {{ "$1", 7 }}, 0, 0, 0, 0 },
	{ "mips64el", "-4@%tprel_lo(t)($3)", {{0}}, 0, -EOPNOTSUPP, 0, 0 },
	{ "mips64", "-2@$t9", {{ "$25", 0xfffe }}, (uint64_t)-2, 0, 0, 0 },
	{ "mips64", "4@-8($fp)", {{ "$fp", M(0x10) }}, 0x88898a8b, 0, 0, 0 },
	{ "mips64", "8@g", {{0}}, 0x88898a8b8c8d8e8full, 0, 0x1000, 0x1008 },
	{ "mips64", "-8@-5", {{0}}, (uint64_t)-5, 0, 0, 0 },
	{ "mips64", "8f@$f12", {{0}}, 0, -EOPNOTSUPP, 0, 0 },
	/* ppc64le and ppc64: one table, both byte orders; RA = 0 is none */
	{ "ppc64le", "-4@3", {{ "r3", 0x00000000fffffffbull }}, (uint64_t)-5, 0, 0, 0 },
	{ "ppc64le", "4@-16(31)", {{ "r31", M(16) }}, 0x83828180, 0, 0, 0 },
	{ "ppc64le", "2@9,10", {{ "r9", M(0) }, { "r10", 2 }}, 0x8382, 0, 0, 0 },
	{ "ppc64le", "-8@i-5", {{0}}, (uint64_t)-5, 0, 0, 0 },
	{ "ppc64le", "8f@%f1", {{0}}, 0, -EOPNOTSUPP, 0, 0 },
	{ "ppc64", "-4@3", {{ "r3", 0x00000000fffffffbull }}, (uint64_t)-5, 0, 0, 0 },
	{ "ppc64", "4@-16(31)", {{ "r31", M(16) }}, 0x80818283, 0, 0, 0 },
	{ "ppc64", "2@0,10", {{ "r0", 0x1000 }, { "r10", M(2) }}, 0x8283, 0, 0, 0 },
	{ "ppc64", "8@nip", {{ "nip", 0x10000400 }}, 0x10000400, 0, 0, 0 },
};

static void put_slot(uint8_t *regs, const struct usdtkit_layout *l, int id,
		     uint64_t v)
{
	int i;

	for (i = 0; i < l->slot_size; i++) {
		int k = l->big_endian ? l->slot_size - 1 - i : i;

		regs[l->offsets[id] + k] = (uint8_t)(v >> (8 * i));
	}
}

static void run_case(const struct ecase *c)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name(c->arch);
	const struct usdtkit_layout *l;
	USDTKIT_OPTS(usdtkit_eval_opts, o);
	struct usdtkit_arg arg;
	uint8_t regs[512] = { 0 };
	uint64_t v = 0;
	int i, err;

	CHECK(a != NULL, "%s", c->arch);
	if (!a)
		return;
	l = usdtkit_arch_layout(a, USDTKIT_LAYOUT_NATIVE);
	for (i = 0; i < 3 && c->regs[i].name; i++) {
		int id = reg_id(a, c->regs[i].name);

		CHECK(id >= 0, "%s has %s", c->arch, c->regs[i].name);
		if (id >= 0)
			put_slot(regs, l, id, c->regs[i].value);
	}
	CHECK(usdtkit_args_parse(a, c->spec, strlen(c->spec), &arg, 1) == 1,
	      "%s %s", c->arch, c->spec);
	if (c->sym || c->pc) {
		err = usdtkit_arg_resolve(a, &arg, c->pc, c->sym, 0);
		CHECK(err == 0, "%s %s: resolve %d", c->arch, c->spec, err);
	}
	o.regs = regs;
	o.regs_size = l->size;
	o.read_mem = read_pattern;
	/* the process is loaded MEM_BASE - 0x1000 above its link addresses,
	 * so a symbol at link address S is at S + MEM_BASE - 0x1000 */
	o.ip = c->pc + MEM_BASE - 0x1000;
	err = usdtkit_arg_eval(a, &arg, &o, &v);
	CHECK(err == c->err, "%s %s: err %d want %d (%s)", c->arch, c->spec, err,
	      c->err, arg.error ? arg.error : "");
	if (!c->err)
		CHECK(v == c->want, "%s %s: 0x%llx want 0x%llx", c->arch, c->spec,
		      (unsigned long long)v, (unsigned long long)c->want);
}

/* The cases cover every target of the manifests (gen/arch_table.h), and
 * name no other: a new target fails here until it has its cases. */
static void check_coverage(void)
{
	size_t i, k, n;

	for (i = 0; i < USDTKIT_ARCH_INFO_COUNT; i++) {
		for (k = n = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
			n += !strcmp(cases[k].arch, usdtkit_arch_infos[i].name);
		CHECK(n >= 2, "%s: %zu evaluator cases, want at least 2",
		      usdtkit_arch_infos[i].name, n);
	}
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		for (i = 0; i < USDTKIT_ARCH_INFO_COUNT; i++)
			if (!strcmp(cases[k].arch, usdtkit_arch_infos[i].name))
				break;
		CHECK(i < USDTKIT_ARCH_INFO_COUNT, "case %zu: %s is no manifest target",
		      k, cases[k].arch);
	}
}

int main(void)
{
	size_t i;

	check_coverage();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	return check_done();
}
