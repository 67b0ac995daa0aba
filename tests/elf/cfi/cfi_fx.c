// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Functions whose unwind rules differ, for test_cfi's readelf oracle:
 * built -O2 -fomit-frame-pointer, so the CFA moves with every push, an
 * alloca forces a frame pointer, and libc calls go through the .plt.
 */
#include <alloca.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static long leaf(long a, long b)
{
	return a * 31 + b;
}

__attribute__((noinline)) long many_saved(long a, long b, long c, long d)
{
	long x = leaf(a, b), y = leaf(c, d), z = leaf(x, y);

	return leaf(x + y, z) + leaf(a + c, b + d) + x * y * z;
}

__attribute__((noinline)) long with_alloca(size_t n)
{
	char *p = alloca(n + 1);

	memset(p, (int)n, n + 1);
	return many_saved(p[0], p[n / 2], (long)n, p[n]);
}

__attribute__((noinline)) long sum(int n, ...)
{
	va_list ap;
	long s = 0;

	va_start(ap, n);
	while (n-- > 0)
		s += va_arg(ap, long);
	va_end(ap);
	return s;
}

__attribute__((noinline)) long recurse(long n)
{
	char buf[256];

	if (n <= 0)
		return 0;
	snprintf(buf, sizeof(buf), "%ld", n);
	return (long)strlen(buf) + recurse(n - 1) + with_alloca((size_t)n);
}

int main(int argc, char **argv)
{
	long r = recurse(argc + 3) + sum(3, 1L, 2L, (long)argc);

	(void)argv;
	printf("%ld\n", r);
	return r == 42;
}
