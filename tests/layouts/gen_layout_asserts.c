// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Prints a C file of _Static_asserts: for every register name in an arch's
 * table, offsetof(<uapi struct>, <field>) must equal the offset usdtkit
 * uses. Compiled with that target's cross compiler against its real uapi
 * <asm/ptrace.h>, the file proves the tables instead of trusting them.
 *
 * The name -> field mapping comes from each folder's test support
 * (arch/<dir>/<dir>_check.c, arch/arch_check.h), written from the uapi
 * headers' field names independently of the library's tables: only the
 * numbers come from the library. The IP's member is the manifest's "ip"
 * (or "compat64_ip") key, its offset the library's.
 *
 * usage: gen_layout_asserts ARCH native|compat64
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usdtkit/usdtkit.h>

#include "arch/arch_check.h"
#include "arch_table.h"

static const struct usdtkit_arch_info *info_of(const char *name)
{
	size_t i;

	for (i = 0; i < USDTKIT_ARCH_INFO_COUNT; i++)
		if (!strcmp(usdtkit_arch_infos[i].name, name))
			return &usdtkit_arch_infos[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct usdtkit_arch *a;
	const struct usdtkit_layout *l;
	const struct usdtkit_regdef *d;
	const struct usdtkit_check_ops *ops;
	const struct usdtkit_arch_info *info;
	const char *type = NULL, *ip;
	char field[32];
	int compat, n = 0;
	size_t i;

	if (argc != 3) {
		fprintf(stderr, "usage: %s ARCH native|compat64\n", argv[0]);
		return 2;
	}
	compat = !strcmp(argv[2], "compat64");
	a = usdtkit_arch_by_name(argv[1]);
	l = a ? usdtkit_arch_layout(a, compat ? USDTKIT_LAYOUT_COMPAT64
					      : USDTKIT_LAYOUT_NATIVE) : NULL;
	ops = a ? usdtkit_check_ops_of(usdtkit_arch_name(a)) : NULL;
	info = a ? info_of(usdtkit_arch_name(a)) : NULL;
	if (!l || !ops || !info) {
		fprintf(stderr, "no %s layout for %s\n", argv[2], argv[1]);
		return 2;
	}
	ip = compat ? info->compat64_ip : info->ip;
	printf("/* generated: %s %s, %s */\n#include <stddef.h>\n"
	       "#include <asm/ptrace.h>\n", argv[1], argv[2], l->name);
	for (i = 0; (d = usdtkit_arch_reg_at(a, i)); i++) {
		if (ops->uapi_field(usdtkit_arch_name(a), compat, d->name, &type,
				    field, sizeof(field))) {
			fprintf(stderr, "%s: no uapi field known for register %s\n",
				argv[1], d->name);
			return 1;
		}
		printf("_Static_assert(offsetof(%s, %s) == %d, \"%s %s: %s\");\n",
		       type, field, l->offsets[d->id], argv[1], d->name, field);
		printf("_Static_assert(sizeof(((%s *)0)->%s) == %d, \"%s slot\");\n",
		       type, field, l->slot_size, d->name);
		n++;
	}
	if (!ip || a->ip_offset[compat] < 0) {
		fprintf(stderr, "%s %s: the manifest names no IP\n", argv[1], argv[2]);
		return 1;
	}
	/* mips: the BPF context is the kernel's pt_regs, whose IP lies a
	 * fixed distance past the uapi struct's (manifest: ip_kernel_delta) */
	printf("_Static_assert(offsetof(%s, %s) + %s == %d, \"%s IP: %s\");\n",
	       type, ip, compat || !info->ip_kernel_delta ? "0" : info->ip_kernel_delta,
	       a->ip_offset[compat], argv[1], ip);
	printf("_Static_assert(sizeof(%s) == %d, \"%s size\");\n", type, l->size,
	       l->name);
	printf("/* %d registers */\n", n);
	return n ? 0 : 1;
}
