// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* AArch64 test support (arch/arch_check.h): [base, ...] operands, user_pt_regs. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch_check.h"

static int log2_scale(unsigned int s)
{
	return s == 8 ? 3 : s == 4 ? 2 : s == 2 ? 1 : 0;
}

static int arm64_print_mem(struct usdtkit_out *o, const struct usdtkit_arch *arch,
			   const struct usdtkit_arg *a)
{
	bool x = a->index.id >= 0;

	if (a->base.id < 0 || (x && a->disp))
		return -1;
	usdtkit_out_printf(o, "[%s", usdtkit_check_rname(arch, &a->base));
	if (x) {
		usdtkit_out_printf(o, ", %s", usdtkit_check_rname(arch, &a->index));
		/* a w index is zero-extended: uxtw, else lsl */
		if (a->index.width == 4)
			usdtkit_out_printf(o, ", uxtw #%d", log2_scale(a->scale));
		else if (log2_scale(a->scale))
			usdtkit_out_printf(o, ", lsl #%d", log2_scale(a->scale));
	} else if (a->disp) {
		usdtkit_out_printf(o, ", #%" PRId64, a->disp);
	}
	usdtkit_out_printf(o, "]");
	return 0;
}

static int arm64_uapi_field(const char *target, int compat, const char *name,
			    const char **type, char *out, size_t sz)
{
	(void)target;
	(void)compat;
	*type = "struct user_pt_regs";
	if ((name[0] == 'x' || name[0] == 'w') && isdigit((unsigned char)name[1])) {
		snprintf(out, sz, "regs[%d]", atoi(name + 1));
		return 0;
	}
	if (!strcmp(name, "sp") || !strcmp(name, "wsp")) {
		snprintf(out, sz, "sp");
		return 0;
	}
	return -1;
}

const struct usdtkit_check_ops usdtkit_check_arm64 = {
	.const_prefix = "#",
	.reg_prefix = "",
	.print_mem = arm64_print_mem,
	.uapi_field = arm64_uapi_field,
};
