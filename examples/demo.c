// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A small program with USDT probes, to try `usdtkit trace` on:
 *
 *   demo [-n ITERATIONS] [-i INTERVAL_MS]
 *
 * Iteration ID (1, 2, 3, ...) fires
 *   demo:request       ID (u64), ID * 100 (u32), -ID (s32), a string pointer
 *   demo:query__start  ID (u64), the same path
 *   demo:query__done   ID (u64), the path's index (s32)
 *   demo:tick          ID / 10 (s16), 2^64 - ID / 10 (u64)   every 10th iteration
 * so a tracer can check every value it reads. A query takes longer for
 * a longer path: a latency by path (the docs' example) has a shape.
 * Runs forever without -n.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/sdt.h>

static const char *const paths[] = { "/", "/index.html", "/api/v1/items" };

/* noinline: keeps one site per probe, whatever the optimizer does */
static __attribute__((noinline)) void handle_request(uint64_t id)
{
	/* volatile: the values reach the probe in registers or memory
	 * operands, never folded into constants */
	volatile uint32_t size = (uint32_t)(id * 100);
	volatile int32_t delta = -(int32_t)id;
	const char *path = paths[id % 3];

	DTRACE_PROBE4(demo, request, id, size, delta, path);
}

/* about 1 us of work per byte of the path, between start and done */
static __attribute__((noinline)) void query(uint64_t id)
{
	const char *path = paths[id % 3];
	volatile int32_t which = (int32_t)(id % 3);
	volatile unsigned long spin = 0;
	size_t i;

	DTRACE_PROBE2(demo, query__start, id, path);
	for (i = 0; i < strlen(path) * 1000; i++)
		spin += i;
	(void)spin;
	DTRACE_PROBE2(demo, query__done, id, which);
}

static __attribute__((noinline)) void tick(uint64_t id)
{
	volatile int16_t n = (int16_t)(id / 10);
	volatile uint64_t left = (uint64_t)0 - id / 10;

	DTRACE_PROBE2(demo, tick, n, left);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

int main(int argc, char **argv)
{
	unsigned long long n = 0, id;
	long interval = 100;
	int c;

	while ((c = getopt(argc, argv, "n:i:h")) != -1) {
		switch (c) {
		case 'n':
			n = strtoull(optarg, NULL, 10);
			break;
		case 'i':
			interval = strtol(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: %s [-n ITERATIONS] [-i INTERVAL_MS]\n",
				argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("demo: pid %d, firing demo:request every %ld ms%s\n", getpid(),
	       interval, n ? "" : " until killed");
	for (id = 1; !n || id <= n; id++) {
		handle_request(id);
		query(id);
		if (id % 10 == 0)
			tick(id);
		if (interval > 0)
			sleep_ms(interval);
	}
	return 0;
}
