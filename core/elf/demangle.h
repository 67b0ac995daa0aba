/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * C++ names (the Itanium ABI's "_Z..." symbols) demangled for the user
 * stack symbolizer (core/elf/ustack.c), with the demangler of
 * libstdc++.so.6 found at run time, else our own: see demangle.c.
 */
#ifndef USDTKIT_CORE_DEMANGLE_H
#define USDTKIT_CORE_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* Zeroed: nothing looked up yet. Held by its user, no global state. */
struct usdtkit__demangler {
	void *lib;		/* libstdc++.so.6, once opened */
	void *fn;		/* its __cxa_demangle, NULL: none */
	bool tried;		/* looked for it already */
	char *buf;		/* the last name demangled (the demangler's) */
	size_t cap;
};

/*
 * @name demangled: text valid until the next call on @d, or NULL when
 * @name is no "_Z" name, or the demangler refuses it (then show @name
 * as it is). Without __cxa_demangle(), usdtkit__demangle_itanium()'s. The library is looked for at the
 * first "_Z" name only, once.
 */
const char *usdtkit__demangle(struct usdtkit__demangler *d, const char *name);

/*
 * usdtkit's own demangler of "_Z" names (demangle_itanium.c), for where
 * __cxa_demangle() is not there: 0 and the text in @buf, or -EINVAL for
 * a form it does not know (it never guesses), -ENOSPC past @size or its
 * bounds, -ENOMEM.
 */
int usdtkit__demangle_itanium(const char *mangled, char *buf, size_t size);

/* What @d holds let go; zeroed again. */
void usdtkit__demangler_fini(struct usdtkit__demangler *d);

#endif
