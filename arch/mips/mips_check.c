// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* MIPS64 test support (arch/arch_check.h): disp($base) operands, and the
 * regs[n] of the uapi struct pt_regs (the kernel's has them at the same
 * offsets; its cp0_epc differs, see the manifest's ip_kernel_delta). */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch_check.h"

static int mips_print_mem(struct usdtkit_out *o, const struct usdtkit_arch *arch,
			  const struct usdtkit_arg *a)
{
	/* the names carry their '$'; $0 as a base means none */
	if (a->index.id >= 0)
		return -1;
	usdtkit_out_printf(o, "%" PRId64 "(%s)", a->disp,
			   a->base.id >= 0 ? usdtkit_check_rname(arch, &a->base) : "$0");
	return 0;
}

/* n64 ABI names (GAS -mabi=64): a4-a7 and ta0-ta3 share $8-$11 */
static const struct {
	const char *name;
	int n;
} mips_abi[] = {
	{ "at", 1 },   { "v0", 2 },   { "v1", 3 },   { "a0", 4 },	{ "a1", 5 },
	{ "a2", 6 },   { "a3", 7 },   { "a4", 8 },   { "a5", 9 },	{ "a6", 10 },
	{ "a7", 11 },  { "ta0", 8 },  { "ta1", 9 },  { "ta2", 10 }, { "ta3", 11 },
	{ "t0", 12 },  { "t1", 13 },  { "t2", 14 },  { "t3", 15 },	{ "s0", 16 },
	{ "s1", 17 },  { "s2", 18 },  { "s3", 19 },  { "s4", 20 },	{ "s5", 21 },
	{ "s6", 22 },  { "s7", 23 },  { "t8", 24 },  { "t9", 25 },	{ "k0", 26 },
	{ "k1", 27 },  { "kt0", 26 }, { "kt1", 27 }, { "gp", 28 },	{ "sp", 29 },
	{ "fp", 30 },  { "s8", 30 },  { "ra", 31 },
};

static int mips_uapi_field(const char *target, int compat, const char *name,
			   const char **type, char *out, size_t sz)
{
	size_t i;

	(void)target;
	(void)compat;
	*type = "struct pt_regs";
	if (name[0] != '$')
		return -1;
	name++;
	if (isdigit((unsigned char)name[0])) {
		snprintf(out, sz, "regs[%d]", atoi(name));
		return 0;
	}
	for (i = 0; i < sizeof(mips_abi) / sizeof(mips_abi[0]); i++)
		if (!strcmp(name, mips_abi[i].name)) {
			snprintf(out, sz, "regs[%d]", mips_abi[i].n);
			return 0;
		}
	return -1;
}

const struct usdtkit_check_ops usdtkit_check_mips = {
	.const_prefix = "",
	.reg_prefix = "",
	.print_mem = mips_print_mem,
	.uapi_field = mips_uapi_field,
};
