// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* RISC-V test support (arch/arch_check.h): disp(base) operands, and the fields
 * of struct user_regs_struct, which uses the ABI names. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch_check.h"

static int riscv_print_mem(struct usdtkit_out *o, const struct usdtkit_arch *arch,
			   const struct usdtkit_arg *a)
{
	if (a->index.id >= 0)
		return -1;
	usdtkit_out_printf(o, "%" PRId64 "(%s)", a->disp,
			   a->base.id >= 0 ? usdtkit_check_rname(arch, &a->base) : "zero");
	return 0;
}

static const char *const riscv_abi[32] = {
	"zero", "ra", "sp",  "gp",  "tp", "t0", "t1", "t2", "s0", "s1", "a0",
	"a1",	"a2", "a3",  "a4",  "a5", "a6", "a7", "s2", "s3", "s4", "s5",
	"s6",	"s7", "s8",  "s9",  "s10", "s11", "t3", "t4", "t5", "t6",
};

static int riscv_uapi_field(const char *target, int compat, const char *name,
			    const char **type, char *out, size_t sz)
{
	int i;

	(void)target;
	(void)compat;
	*type = "struct user_regs_struct";
	if (name[0] == 'x' && isdigit((unsigned char)name[1]))
		name = riscv_abi[atoi(name + 1) & 31];
	if (!strcmp(name, "fp"))
		name = "s0";
	for (i = 1; i < 32; i++)
		if (!strcmp(name, riscv_abi[i])) {
			snprintf(out, sz, "%s", name);
			return 0;
		}
	return -1;
}

const struct usdtkit_check_ops usdtkit_check_riscv = {
	.const_prefix = "",
	.reg_prefix = "",
	.print_mem = riscv_print_mem,
	.uapi_field = riscv_uapi_field,
};
