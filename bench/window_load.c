// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The first hits of a library that is attached after its loader's news
 * instead of held (trace --all where the kernel cannot hold an open,
 * before Linux 5.19, or --no-hold), for bench/all_bench.sh:
 *   window_load LIB N STEP_US: dlopen(LIB) (tests/fixtures' plugin),
 *   then fx_plug_fire(k) every STEP_US microseconds, N calls.
 * Prints "pid P", then "K US" for each call: its time since dlopen()
 * returned. The first K a trace saw says how long the library went
 * unattached.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000ll + ts.tv_nsec / 1000;
}

int main(int argc, char **argv)
{
	struct timespec step = { 0 };
	void (*fire)(int);
	long long t0, *at;
	void *h;
	int i, n;

	if (argc != 4 || (n = atoi(argv[2])) <= 0)
		return 2;
	step.tv_nsec = atol(argv[3]) * 1000;
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "window_load: %s\n", dlerror());
		return 1;
	}
	t0 = now_us();
	*(void **)&fire = dlsym(h, "fx_plug_fire");
	at = calloc((size_t)n, sizeof(*at));
	if (!fire || !at)
		return 1;
	for (i = 0; i < n; i++) {
		at[i] = now_us() - t0;
		fire(i);
		nanosleep(&step, NULL);
	}
	printf("pid %d\n", (int)getpid());
	for (i = 0; i < n; i++)
		printf("%d %lld\n", i, at[i]);
	free(at);
	dlclose(h);
	return 0;
}
