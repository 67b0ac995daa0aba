/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The evaluator tests name registers as a spec does; their images are
 * indexed by id. Header only. */
#ifndef USDTKIT_TESTS_REGS_H
#define USDTKIT_TESTS_REGS_H

#include <string.h>

#include <usdtkit/usdtkit.h>

/* the id of register @name of @a (any of its spellings), or -1 */
static inline int reg_id(const struct usdtkit_arch *a, const char *name)
{
	const struct usdtkit_regdef *d;
	size_t i;

	for (i = 0; (d = usdtkit_arch_reg_at(a, i)); i++)
		if (!strcmp(d->name, name))
			return d->id;
	return -1;
}

#endif
