// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The pause a thread sees when it loads a library: ROUNDS times
 * dlopen(LIB) (timed alone), one call into it, dlclose(LIB). Prints the
 * median and the 90th percentile of a dlopen() in us, the first one
 * (where a tracer attaches the library), and the rounds' total in ms, for bench/hold_bench.sh to run untraced, traced (held at
 * the loader until attached, or not) and under gdb.
 * usage: hold_load LIB ROUNDS
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	unsigned long long *v, t0, start, first;
	int i, n;

	if (argc != 3 || (n = atoi(argv[2])) <= 0)
		return 2;
	v = calloc((size_t)n, sizeof(*v));
	if (!v)
		return 1;
	start = now_ns();
	for (i = 0; i < n; i++) {
		void (*fire)(int);
		void *h;

		t0 = now_ns();
		h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
		v[i] = now_ns() - t0;
		if (!h) {
			fprintf(stderr, "hold_load: %s\n", dlerror());
			return 1;
		}
		*(void **)&fire = dlsym(h, "fx_plug_fire");
		if (fire)
			fire(i);
		dlclose(h);
	}
	t0 = now_ns() - start;
	first = v[0];
	qsort(v, (size_t)n, sizeof(*v), cmp);
	printf("dlopen median %.1f us p90 %.1f us first %.1f us; %d rounds %.1f ms\n",
	       v[n / 2] / 1e3, v[n * 9 / 10] / 1e3, first / 1e3, n, t0 / 1e6);
	free(v);
	return 0;
}
