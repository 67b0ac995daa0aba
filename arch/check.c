// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The folders' test support (arch_check.h), found through the manifests. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "arch/arch_check.h"
#include "arch_table.h"

#define USDTKIT_DECLARE_CHECK(l) extern const struct usdtkit_check_ops usdtkit_check_##l;
USDTKIT_ARCH_LEXERS(USDTKIT_DECLARE_CHECK)
#undef USDTKIT_DECLARE_CHECK

#define USDTKIT_CHECK_ROW(l) { #l, &usdtkit_check_##l },
static const struct {
	const char *lexer;
	const struct usdtkit_check_ops *ops;
} checks[] = { USDTKIT_ARCH_LEXERS(USDTKIT_CHECK_ROW) };
#undef USDTKIT_CHECK_ROW

const struct usdtkit_check_ops *usdtkit_check_ops_of(const char *target)
{
	size_t i, k;

	for (i = 0; i < USDTKIT_ARCH_INFO_COUNT; i++) {
		if (strcmp(usdtkit_arch_infos[i].name, target))
			continue;
		for (k = 0; k < sizeof(checks) / sizeof(checks[0]); k++)
			if (!strcmp(checks[k].lexer, usdtkit_arch_infos[i].lexer))
				return checks[k].ops;
	}
	return NULL;
}

void usdtkit_out_printf(struct usdtkit_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->p, o->left, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->left) {
		o->overflow = true;
		return;
	}
	o->p += n;
	o->left -= (size_t)n;
}
