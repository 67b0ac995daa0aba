/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * SITEn(name, args...): record the values about to be passed in
 * sites_expect, then fire STAP_PROBEn(usdtkit_cross, name, args...). A
 * file may define STAP_SDT_ARG_CONSTRAINT before including this.
 */
#ifndef USDTKIT_TESTS_SITES_PROBE_H
#define USDTKIT_TESTS_SITES_PROBE_H

#include <string.h>
#include <sys/sdt.h>

#include "sites.h"

/* sdt.h's rules: signed iff (T)-1 < (T)1, size = sizeof (a pointer's for
 * arrays); floats as raw bits */
static inline uint64_t exp_s(long long v) { return (uint64_t)v; }
static inline uint64_t exp_u(unsigned long long v) { return v; }
static inline uint64_t exp_p(const volatile void *p) { return (uintptr_t)p; }

static inline uint64_t exp_c(char c)
{
	return (char)-1 < 0 ? (uint64_t)(long long)c : (unsigned char)c;
}

static inline uint64_t exp_f(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static inline uint64_t exp_d(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

#define EXPV(x)                                                              \
	_Generic((x), _Bool: exp_u, char: exp_c, signed char: exp_s,         \
		 short: exp_s, int: exp_s, long: exp_s, long long: exp_s,    \
		 unsigned char: exp_u, unsigned short: exp_u,                \
		 unsigned int: exp_u, unsigned long: exp_u,                  \
		 unsigned long long: exp_u, float: exp_f, double: exp_d,     \
		 default: exp_p)(x)
#define EXP(i, x)                                                            \
	(sites_expect.value[i] = EXPV(x), sites_expect.size[i] =                    \
		 _SDT_ARGARRAY(x) ? sizeof(void *) : sizeof(x),               \
	 sites_expect.is_float[i] = _Generic((x), float: 1, double: 1,       \
					     default: 0),                     \
	 sites_expect.is_signed[i] = _SDT_ARGSIGNED(x))
/* The stores above must land before the probe's asm, which has no
 * memory clobber of its own. */
#define FIRE(n)                                                              \
	do {                                                                 \
		sites_expect.nargs = (n);                                    \
		__asm__ __volatile__("" ::: "memory");                       \
	} while (0)

/* After the probe, so the call does not change the operands at the
 * probe itself (the values are computed before it, the hook only reads
 * sites_expect). Without the hook the probe-site check's code is as it
 * was. */
#ifdef SITES_HIT_HOOK
#define HIT(nm) sites_hit(#nm)
#else
#define HIT(nm) ((void)0)
#endif

#define SITE1(nm, a)                                                         \
	do {                                                                 \
		EXP(0, a);                                                   \
		FIRE(1);                                                     \
		STAP_PROBE1(usdtkit_cross, nm, a);                           \
		HIT(nm);                                                     \
	} while (0)
#define SITE2(nm, a, b)                                                      \
	do {                                                                 \
		EXP(0, a); EXP(1, b);                                        \
		FIRE(2);                                                     \
		STAP_PROBE2(usdtkit_cross, nm, a, b);                        \
		HIT(nm);                                                     \
	} while (0)
#define SITE3(nm, a, b, c)                                                   \
	do {                                                                 \
		EXP(0, a); EXP(1, b); EXP(2, c);                             \
		FIRE(3);                                                     \
		STAP_PROBE3(usdtkit_cross, nm, a, b, c);                     \
		HIT(nm);                                                     \
	} while (0)
#define SITE4(nm, a, b, c, d)                                                \
	do {                                                                 \
		EXP(0, a); EXP(1, b); EXP(2, c); EXP(3, d);                  \
		FIRE(4);                                                     \
		STAP_PROBE4(usdtkit_cross, nm, a, b, c, d);                  \
		HIT(nm);                                                     \
	} while (0)
#define SITE6(nm, a, b, c, d, e, f)                                          \
	do {                                                                 \
		EXP(0, a); EXP(1, b); EXP(2, c); EXP(3, d); EXP(4, e);       \
		EXP(5, f);                                                   \
		FIRE(6);                                                     \
		STAP_PROBE6(usdtkit_cross, nm, a, b, c, d, e, f);            \
		HIT(nm);                                                     \
	} while (0)
#define SITE8(nm, a, b, c, d, e, f, g, h)                                    \
	do {                                                                 \
		EXP(0, a); EXP(1, b); EXP(2, c); EXP(3, d); EXP(4, e);       \
		EXP(5, f); EXP(6, g); EXP(7, h);                             \
		FIRE(8);                                                     \
		STAP_PROBE8(usdtkit_cross, nm, a, b, c, d, e, f, g, h);      \
		HIT(nm);                                                     \
	} while (0)

/* gcc also clones functions for constant arguments; clang has no such
 * attribute (and no -Werror-clean way to name it) */
#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

#endif /* USDTKIT_TESTS_SITES_PROBE_H */
