// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ppc64 test support (arch/arch_check.h): D(RA) and RA,RB operands, and
 * the fields of the uapi struct pt_regs. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch_check.h"

static int ppc_print_mem(struct usdtkit_out *o, const struct usdtkit_arch *arch,
			 const struct usdtkit_arg *a)
{
	bool b = a->base.id >= 0;

	/* X-form RA,RB (no displacement), else D-form D(RA); register 0
	 * as RA means none */
	if (a->index.id >= 0) {
		if (!b || a->disp || a->scale != 1)
			return -1;
		usdtkit_out_printf(o, "%s,%s", usdtkit_check_rname(arch, &a->base),
				   usdtkit_check_rname(arch, &a->index));
		return 0;
	}
	if (b && a->base.id == 0) {
		/* r0 as the only register: "0,0" ((0) + r0) is the one
		 * spelling, since D(0) means no base */
		if (a->disp)
			return -1;
		usdtkit_out_printf(o, "0,%s", usdtkit_check_rname(arch, &a->base));
		return 0;
	}
	usdtkit_out_printf(o, "%" PRId64 "(%s)", a->disp,
			   b ? usdtkit_check_rname(arch, &a->base) : "0");
	return 0;
}

/* gpr[N], then the named slots (pt_regs says "link" for lr) */
static int ppc_uapi_field(const char *target, int compat, const char *name,
			  const char **type, char *out, size_t sz)
{
	static const char *const named[] = { "nip", "msr", "ctr", "xer", "ccr" };
	size_t i;

	(void)target;
	(void)compat;
	*type = "struct pt_regs";
	if (name[0] == 'r' && isdigit((unsigned char)name[1])) {
		snprintf(out, sz, "gpr[%d]", atoi(name + 1));
		return 0;
	}
	if (!strcmp(name, "lr")) {
		snprintf(out, sz, "link");
		return 0;
	}
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strcmp(name, named[i])) {
			snprintf(out, sz, "%s", name);
			return 0;
		}
	return -1;
}

const struct usdtkit_check_ops usdtkit_check_ppc = {
	.const_prefix = "i",
	.reg_prefix = "",
	.print_mem = ppc_print_mem,
	.uapi_field = ppc_uapi_field,
};
