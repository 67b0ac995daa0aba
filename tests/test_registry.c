// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The architecture registry: lookups by name and ELF identity, and the
 * agreement of every register table with its re2c lexer (each name in the
 * table must lex back to that very entry) and with its layouts.
 */
#include <errno.h>

#include "check.h"

static const struct {
	const char *name;
	uint16_t machine;
	uint8_t cls, data, ptr;
} expect[] = {
	{ "x86_64", 62, 2, 1, 8 },   { "i386", 3, 1, 1, 4 },
	{ "x32", 62, 1, 1, 4 },	     { "aarch64", 183, 2, 1, 8 },
	{ "arm", 40, 1, 1, 4 },	     { "riscv64", 243, 2, 1, 8 },
	{ "riscv32", 243, 1, 1, 4 }, { "s390x", 22, 2, 2, 8 },
	{ "mips64el", 8, 2, 1, 8 },  { "mips64", 8, 2, 2, 8 },
	{ "ppc64le", 21, 2, 1, 8 },  { "ppc64", 21, 2, 2, 8 },
};

static void test_lookup(void)
{
	size_t i, n = 0;

	for (i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
		const struct usdtkit_arch *a = usdtkit_arch_by_name(expect[i].name);

		CHECK(a != NULL, "%s registered", expect[i].name);
		if (!a)
			continue;
		CHECK(usdtkit_arch_by_elf(expect[i].machine, expect[i].cls,
					  expect[i].data) == a,
		      "%s by ELF identity", expect[i].name);
		CHECK(usdtkit_arch_ptr_size(a) == expect[i].ptr, "%s ptr",
		      expect[i].name);
		CHECK(usdtkit_arch_e_machine(a) == expect[i].machine &&
			      usdtkit_arch_elf_class(a) == expect[i].cls &&
			      usdtkit_arch_elf_data(a) == expect[i].data,
		      "%s identity", expect[i].name);
	}
	while (usdtkit_arch_at(n))
		n++;
	CHECK(n == sizeof(expect) / sizeof(expect[0]), "%zu arches", n);
	CHECK(usdtkit_arch_by_name("amd64") == usdtkit_arch_by_name("x86_64"),
	      "Debian alias");
	CHECK(usdtkit_arch_by_name("arm64") == usdtkit_arch_by_name("aarch64"),
	      "arm64 alias");
	CHECK(usdtkit_arch_by_name("ppc64el") == usdtkit_arch_by_name("ppc64le") &&
		      usdtkit_arch_by_name("powerpc64le") ==
			      usdtkit_arch_by_name("ppc64le"),
	      "ppc64le aliases");
	CHECK(usdtkit_arch_by_name("powerpc64") == usdtkit_arch_by_name("ppc64") &&
		      usdtkit_arch_by_name("ppc") == usdtkit_arch_by_name("ppc64"),
	      "ppc64 aliases");
	errno = 0;
	CHECK(!usdtkit_arch_by_name("vax") && errno == ENOENT, "unknown name");
	errno = 0;
	CHECK(!usdtkit_arch_by_elf(62, 2, 2) && errno == ENOENT,
	      "big-endian x86-64 does not exist");
	CHECK(!usdtkit_arch_by_name(NULL), "NULL name");
	CHECK(usdtkit_arch_layout(usdtkit_arch_by_name("i386"),
				  USDTKIT_LAYOUT_COMPAT64) != NULL,
	      "i386 has the x86-64 compat layout");
	CHECK(!usdtkit_arch_layout(usdtkit_arch_by_name("x86_64"),
				   USDTKIT_LAYOUT_COMPAT64),
	      "x86_64 has no compat layout");
}

/* Parse "<width>@<prefix><name>" and expect that table entry back. */
static void check_entry(const struct usdtkit_arch *a, size_t i,
			const struct usdtkit_regdef *d)
{
	static const char *const prefixes[] = { "", "%" };
	struct usdtkit_arg arg;
	char spec[64];
	size_t p;

	for (p = 0; p < 2; p++) {
		snprintf(spec, sizeof(spec), "%u@%s%s", d->width, prefixes[p],
			 d->name);
		if (usdtkit_args_parse(a, spec, strlen(spec), &arg, 1) == 1 &&
		    arg.status == USDTKIT_ARG_OK)
			break;
	}
	CHECK(p < 2 && arg.kind == USDTKIT_LOC_REG && arg.reg.entry == (int)i &&
		      arg.reg.id == d->id && arg.reg.width == d->width &&
		      arg.reg.shift == d->shift,
	      "%s: register %s does not lex back to its table entry",
	      usdtkit_arch_name(a), d->name);
}

static void test_tables(void)
{
	const struct usdtkit_arch *a;
	size_t k, i;

	for (k = 0; (a = usdtkit_arch_at(k)); k++) {
		const struct usdtkit_layout *l =
			usdtkit_arch_layout(a, USDTKIT_LAYOUT_NATIVE);
		const struct usdtkit_regdef *d;

		CHECK(l && l->slot_size >= usdtkit_arch_ptr_size(a) / 2,
		      "%s native layout", usdtkit_arch_name(a));
		CHECK(l->big_endian == (usdtkit_arch_elf_data(a) == 2),
		      "%s layout byte order", usdtkit_arch_name(a));
		for (i = 0; (d = usdtkit_arch_reg_at(a, i)); i++) {
			CHECK(d->id >= 0 && d->id < l->nregs &&
				      l->offsets[d->id] >= 0 &&
				      l->offsets[d->id] + l->slot_size <= l->size,
			      "%s %s has a slot", usdtkit_arch_name(a), d->name);
			CHECK(d->width * 8 + d->shift <= l->slot_size * 8 ||
				      usdtkit_arch_layout(a, USDTKIT_LAYOUT_COMPAT64),
			      "%s %s fits its slot", usdtkit_arch_name(a), d->name);
			check_entry(a, i, d);
		}
		CHECK(i > 8, "%s has %zu registers", usdtkit_arch_name(a), i);
	}
}

int main(void)
{
	test_lookup();
	test_tables();
	return check_done();
}
