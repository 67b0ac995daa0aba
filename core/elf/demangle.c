// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * C++ names demangled by libstdc++'s own __cxa_demangle(), looked up at
 * run time with dlopen() rather than linked: the library stays C with no
 * new build or package dependency (no libstdc++ for C users, no
 * libiberty), and a tracer of C++ processes runs where libstdc++ is
 * installed, since those processes map it. Where it is not there (a
 * host without C++, a static build), usdtkit's own demangler
 * (demangle_itanium.c) names what it knows exactly as __cxa_demangle()
 * would, and the rest stays mangled: correct, only less readable.
 * dlopen() and dlsym() are in glibc's libc itself since 2.34 (Debian 12
 * has 2.36), so nothing more is linked.
 *
 * A statically linked CLI (USDTKIT_STATIC_CLI) defines
 * USDTKIT_DEMANGLE_NO_DLOPEN: a static glibc program cannot load a
 * shared libstdc++ safely, and its link warns about dlopen(). The
 * boards' cross builds are such, so their names come from our own.
 */
#include <stdlib.h>
#include <string.h>
#ifndef USDTKIT_DEMANGLE_NO_DLOPEN
#include <dlfcn.h>
#endif

#include "elf/demangle.h"

/* the Itanium C++ ABI's demangler, as libstdc++ exports it */
typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len,
				 int *status);

#ifndef USDTKIT_DEMANGLE_NO_DLOPEN
static void find_demangler(struct usdtkit__demangler *d)
{
	d->tried = true;
	/* RTLD_LOCAL: none of its symbols join the caller's namespace */
	d->lib = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
	if (d->lib)
		d->fn = dlsym(d->lib, "__cxa_demangle");
}

void usdtkit__demangler_fini(struct usdtkit__demangler *d)
{
	if (d->lib)
		dlclose(d->lib);
	free(d->buf);
	memset(d, 0, sizeof(*d));
}
#else
static void find_demangler(struct usdtkit__demangler *d)
{
	d->tried = true;
}

void usdtkit__demangler_fini(struct usdtkit__demangler *d)
{
	free(d->buf);
	memset(d, 0, sizeof(*d));
}
#endif

/* our text's bound (demangle_itanium.c refuses longer with -ENOSPC) */
#define OWN_CAP 4096

/* without __cxa_demangle(): our own, into the same buffer */
static const char *demangle_own(struct usdtkit__demangler *d, const char *name)
{
	char *b;

	if (d->cap < OWN_CAP) {
		b = realloc(d->buf, OWN_CAP);
		if (!b)
			return NULL;
		d->buf = b;
		d->cap = OWN_CAP;
	}
	return usdtkit__demangle_itanium(name, d->buf, d->cap) ? NULL : d->buf;
}

const char *usdtkit__demangle(struct usdtkit__demangler *d, const char *name)
{
	cxa_demangle_fn fn;
	size_t cap = d->cap;
	int status = -1;
	char *out;

	if (strncmp(name, "_Z", 2))
		return NULL;
	if (!d->tried)
		find_demangler(d);
	if (!d->fn)
		return demangle_own(d, name);
	/* a function pointer from dlsym()'s object pointer (POSIX allows it) */
	memcpy(&fn, &d->fn, sizeof(fn));
	/* it reuses our buffer, or frees it for a larger one: from malloc() */
	out = fn(name, d->buf, &cap, &status);
	if (!out || status)
		return NULL;
	d->buf = out;
	d->cap = cap;
	return out;
}
