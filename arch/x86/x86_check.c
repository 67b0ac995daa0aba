// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* x86 test support (arch/arch_check.h): AT&T operands, struct pt_regs fields. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch_check.h"

static int x86_print_mem(struct usdtkit_out *o, const struct usdtkit_arch *arch,
			 const struct usdtkit_arg *a)
{
	bool b = a->base.id >= 0, x = a->index.id >= 0;

	if (!b && !x) {
		usdtkit_out_printf(o, "%" PRId64, a->disp);
		return 0;
	}
	if (a->disp)
		usdtkit_out_printf(o, "%" PRId64, a->disp);
	usdtkit_out_printf(o, "(");
	if (b)
		usdtkit_out_printf(o, "%%%s", usdtkit_check_rname(arch, &a->base));
	if (x)
		usdtkit_out_printf(o, ",%%%s,%u", usdtkit_check_rname(arch, &a->index),
				   a->scale);
	usdtkit_out_printf(o, ")");
	return 0;
}

/* x86 register family of a view: "eax", "al", "ah", "rax" -> "ax" */
static const char *x86_family(const char *n, char *buf, size_t sz)
{
	static const char *const fam[] = { "ax", "bx", "cx", "dx", "si",
					   "di", "bp", "sp", "ip" };
	size_t i, len = strlen(n);

	if (n[0] == 'r' && isdigit((unsigned char)n[1])) {
		/* r8, r8d, r8w, r8b -> r8 */
		snprintf(buf, sz, "r%d", atoi(n + 1));
		return buf;
	}
	for (i = 0; i < sizeof(fam) / sizeof(fam[0]); i++) {
		/* "rax"/"eax"/"ax", "sil"/"bpl", "al"/"ah" */
		if ((len == 3 && (n[0] == 'r' || n[0] == 'e') && !strcmp(n + 1, fam[i])) ||
		    !strcmp(n, fam[i]) ||
		    (len == 3 && n[2] == 'l' && !strncmp(n, fam[i], 2)) ||
		    (len == 2 && fam[i][1] == 'x' && n[0] == fam[i][0] &&
		     (n[1] == 'l' || n[1] == 'h')))
			return fam[i];
	}
	return NULL;
}

/* x86-64's struct pt_regs names its fields rax.., i386's eax.. */
static int x86_uapi_field(const char *target, int compat, const char *name,
			  const char **type, char *out, size_t sz)
{
	const char *prefix = !strcmp(target, "i386") && !compat ? "e" : "r";
	char buf[16];
	const char *f = x86_family(name, buf, sizeof(buf));

	*type = "struct pt_regs";
	if (!f)
		return -1;
	if (f[0] == 'r')	/* r8..r15 have no 32-bit field names */
		snprintf(out, sz, "%s", f);
	else
		snprintf(out, sz, "%s%s", prefix, f);
	return 0;
}

const struct usdtkit_check_ops usdtkit_check_x86 = {
	.const_prefix = "$",
	.reg_prefix = "%",
	.print_mem = x86_print_mem,
	.uapi_field = x86_uapi_field,
};
