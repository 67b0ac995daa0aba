// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The architecture registry: lookups by name and ELF identity, and the
 * agreement of every register table with its re2c lexer (each name in the
 * table must lex back to that very entry) and with its layouts.
 */
#include <errno.h>

#include "spec/arch.h"
#include "arch_table.h"
#include "check.h"

/* The manifest's IP offsets are the registry's, and each lies in a slot
 * of its layout: native always, compat64 exactly when the layout exists. */
static void test_ip(const struct usdtkit_arch *a, const struct usdtkit_arch_info *m)
{
	const int want[2] = { m->ip_offset, m->compat64_ip_offset };
	int k;

	for (k = 0; k < 2; k++) {
		const struct usdtkit_layout *l =
			usdtkit_arch_layout(a, (enum usdtkit_layout_kind)k);

		CHECK(a->ip_offset[k] == want[k], "%s layout %d: IP at %d, manifest %d",
		      m->name, k, a->ip_offset[k], want[k]);
		if (!l) {
			CHECK(want[k] < 0, "%s: IP offset %d for layout %d, which it lacks",
			      m->name, want[k], k);
			continue;
		}
		CHECK(want[k] >= 0 && want[k] % l->slot_size == 0 &&
			      want[k] + l->slot_size <= l->size,
		      "%s: IP offset %d is no slot of %s (size %u, slots of %u)",
		      m->name, want[k], l->name, l->size, l->slot_size);
	}
}

/* Every target of the manifests (gen/arch_table.h), with its identity,
 * aliases and IP offsets, is in the registry, and nothing else is. */
static void test_lookup(void)
{
	size_t i, n = 0;

	CHECK(USDTKIT_ARCH_INFO_COUNT >= 1, "the manifests name targets");
	for (i = 0; i < USDTKIT_ARCH_INFO_COUNT; i++) {
		const struct usdtkit_arch_info *m = &usdtkit_arch_infos[i];
		const struct usdtkit_arch *a = usdtkit_arch_by_name(m->name);
		const char *al = m->aliases;

		CHECK(a != NULL, "%s registered", m->name);
		if (!a)
			continue;
		CHECK(usdtkit_arch_at(i) == a, "%s is registry entry %zu", m->name, i);
		CHECK(!strcmp(usdtkit_arch_name(a), m->name), "%s name", m->name);
		CHECK(usdtkit_arch_by_elf(m->e_machine, m->elf_class, m->elf_data) == a,
		      "%s by ELF identity", m->name);
		CHECK(usdtkit_arch_ptr_size(a) == m->ptr_size, "%s ptr", m->name);
		CHECK(usdtkit_arch_e_machine(a) == m->e_machine &&
			      usdtkit_arch_elf_class(a) == m->elf_class &&
			      usdtkit_arch_elf_data(a) == m->elf_data,
		      "%s identity", m->name);
		/* each alias, blank-separated */
		while (al && *al) {
			size_t len = strcspn(al, " ");
			char name[32];

			snprintf(name, sizeof(name), "%.*s", (int)len, al);
			CHECK(usdtkit_arch_by_name(name) == a, "alias %s of %s", name,
			      m->name);
			al += len;
			al += strspn(al, " ");
		}
		test_ip(a, m);
	}
	while (usdtkit_arch_at(n))
		n++;
	CHECK(n == USDTKIT_ARCH_INFO_COUNT, "%zu arches, the manifests have %zu", n,
	      (size_t)USDTKIT_ARCH_INFO_COUNT);
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

/* Which kernels fire no uprobe in a target's processes (the attach
 * layer refuses there, naming it): an arm64 kernel for 32-bit arm, and
 * nothing else; the list is matched by whole words. */
static void test_no_uprobes(void)
{
	const struct usdtkit_arch *arm = usdtkit_arch_by_name("arm");
	size_t i;

	CHECK(arm && usdtkit__machine_in(arm->no_uprobe_kernels, "aarch64") &&
	      usdtkit__machine_in(arm->no_uprobe_kernels, "armv8l"),
	      "arm: an arm64 kernel fires no uprobe in it");
	CHECK(arm && !usdtkit__machine_in(arm->no_uprobe_kernels, "armv7l") &&
	      !usdtkit__machine_in(arm->no_uprobe_kernels, "aarch6") &&
	      !usdtkit__machine_in(arm->no_uprobe_kernels, "aarch64x"),
	      "arm: its own kernel does, and only whole words match");
	CHECK(!usdtkit__machine_in(NULL, "aarch64"), "no list: no kernel");
	for (i = 0; usdtkit_arch_at(i); i++) {
		const struct usdtkit_arch *a = usdtkit_arch_at(i);

		/* i386 on an x86_64 kernel: its uprobes fire */
		CHECK(a == arm || !a->no_uprobe_kernels, "%s: no_uprobe_kernels '%s'",
		      a->name, a->no_uprobe_kernels);
	}
}

int main(void)
{
	test_lookup();
	test_tables();
	test_no_uprobes();
	return check_done();
}
