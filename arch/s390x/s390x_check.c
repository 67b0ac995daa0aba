// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* s390x test support (arch/arch_check.h): disp(index,base) operands, and the
 * gprs of user_pt_regs. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "arch/arch_check.h"

static int s390x_print_mem(struct usdtkit_out *o, const struct usdtkit_arch *arch,
			   const struct usdtkit_arg *a)
{
	/* %r0 as base or index means none */
	usdtkit_out_printf(o, "%" PRId64 "(", a->disp);
	if (a->index.id >= 0)
		usdtkit_out_printf(o, "%%%s,", usdtkit_check_rname(arch, &a->index));
	usdtkit_out_printf(o, "%%%s)", a->base.id >= 0 ?
			   usdtkit_check_rname(arch, &a->base) : "r0");
	return 0;
}

static int s390x_uapi_field(const char *target, int compat, const char *name,
			    const char **type, char *out, size_t sz)
{
	(void)target;
	(void)compat;
	*type = "user_pt_regs";
	if (name[0] == 'r' && isdigit((unsigned char)name[1])) {
		snprintf(out, sz, "gprs[%d]", atoi(name + 1));
		return 0;
	}
	return -1;
}

const struct usdtkit_check_ops usdtkit_check_s390x = {
	.const_prefix = "",
	.reg_prefix = "%",
	.print_mem = s390x_print_mem,
	.uapi_field = s390x_uapi_field,
};
