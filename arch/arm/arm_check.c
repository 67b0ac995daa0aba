// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* 32-bit Arm test support (arch/arch_check.h): [base, ...] operands, and
 * struct pt_regs (arm kernel) or user_pt_regs (arm64 kernel) fields. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch_check.h"

static int arm_print_mem(struct usdtkit_out *o, const struct usdtkit_arch *arch,
			 const struct usdtkit_arg *a)
{
	bool x = a->index.id >= 0;
	int sh = a->scale == 8 ? 3 : a->scale == 4 ? 2 : a->scale == 2 ? 1 : 0;

	if (a->base.id < 0 || (x && a->disp))
		return -1;
	usdtkit_out_printf(o, "[%s", usdtkit_check_rname(arch, &a->base));
	if (x) {
		usdtkit_out_printf(o, ", %s", usdtkit_check_rname(arch, &a->index));
		if (sh)
			usdtkit_out_printf(o, ", lsl #%d", sh);
	} else if (a->disp) {
		usdtkit_out_printf(o, ", #%" PRId64, a->disp);
	}
	usdtkit_out_printf(o, "]");
	return 0;
}

/* r0..r15 and the APCS names of r9..r15 -> uregs[n] */
static int arm_ureg(const char *name)
{
	static const char *const alias[] = { "sb", "sl", "fp", "ip",
					     "sp", "lr", "pc" };
	size_t i;

	if (name[0] == 'r' && isdigit((unsigned char)name[1]))
		return atoi(name + 1);
	for (i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (!strcmp(name, alias[i]))
			return 9 + (int)i;
	return -1;
}

/* On an arm64 kernel an AArch32 task's r<n> is regs[n], its pc is pc. */
static int arm_uapi_field(const char *target, int compat, const char *name,
			  const char **type, char *out, size_t sz)
{
	int n = arm_ureg(name);

	(void)target;
	*type = compat ? "struct user_pt_regs" : "struct pt_regs";
	if (n < 0)
		return -1;
	if (!compat)
		snprintf(out, sz, "uregs[%d]", n);
	else if (n == 15)
		snprintf(out, sz, "pc");
	else
		snprintf(out, sz, "regs[%d]", n);
	return 0;
}

const struct usdtkit_check_ops usdtkit_check_arm = {
	.const_prefix = "#",
	.reg_prefix = "",
	.print_mem = arm_print_mem,
	.uapi_field = arm_uapi_field,
};
