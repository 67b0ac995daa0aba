/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What each architecture folder gives the tests, in its <dir>_check.c
 * (the manifest's "check" key): the round-trip printer of the fuzz
 * harness and the uapi field names of the layout proof. Test code only,
 * never linked into the library; written from the ISA's and the uapi
 * headers' own spellings, independently of the library's tables, so that
 * the tests check the tables rather than repeat them.
 */
#ifndef USDTKIT_ARCH_ARCH_CHECK_H
#define USDTKIT_ARCH_ARCH_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "spec/arch.h"

/* A bounded output buffer; overflow is sticky. */
struct usdtkit_out {
	char *p;
	size_t left;
	bool overflow;
};

__attribute__((format(printf, 2, 3)))
void usdtkit_out_printf(struct usdtkit_out *o, const char *fmt, ...);

/* The name of register reference @r in @arch's table. */
static inline const char *usdtkit_check_rname(const struct usdtkit_arch *arch,
					      const struct usdtkit_reg *r)
{
	return arch->regs[r->entry].name;
}

struct usdtkit_check_ops {
	const char *const_prefix;	/* before a constant: "$", "#", "" */
	const char *reg_prefix;		/* before a register name: "%", "" */
	/* @a (kind mem, status ok) in the arch's canonical spec syntax;
	 * -1 when the syntax cannot say it */
	int (*print_mem)(struct usdtkit_out *o, const struct usdtkit_arch *arch,
			 const struct usdtkit_arg *a);
	/* The uapi struct (*type) and member (@out) holding register @name of
	 * @target in its native (@compat 0) or compat64 layout; -1 if none. */
	int (*uapi_field)(const char *target, int compat, const char *name,
			  const char **type, char *out, size_t sz);
};

/* The ops of @target's folder; NULL for an unknown target. */
const struct usdtkit_check_ops *usdtkit_check_ops_of(const char *target);

#endif
