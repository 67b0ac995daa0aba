// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A latency pair across two objects, for `usdtkit trace --latency`
 * (tests/cli_trace_agg.sh): lat:start(id) here, latlib:end(id) in
 * libfx_lat.so, with sleeps between them.
 *
 * usage: fx_lat sleeps|interleave FILE | hits N | batches
 *   (all but batches fire once they read a line on stdin)
 *   sleeps:     for (id, ms) in (1, 9) (2, 40) (3, 160): start, sleep, end;
 *               then end(100) and end(101), with no start
 *   interleave: start(1), 9 ms, start(2), 40 ms, end(1), end(2): by arg0,
 *               end(1) pairs with start(1) and end(2) with start(2); by
 *               tid, start(2) replaced start(1), so end(1) pairs with
 *               start(2) and end(2) has no start
 *   hits:       start(1..N), then waits to be killed
 *   batches:    for each line N on stdin, start(1..N), then
 *               "fx_lat: fired N" on stdout; exits at the end of stdin
 *
 * sleeps and interleave write one line per probe call to FILE,
 *   start|end ID BEFORE AFTER
 * the CLOCK_MONOTONIC nanoseconds (the clock of bpf_ktime_get_ns())
 * right before and right after the call: the hit's time is in between,
 * so a pair's latency is known to within [end.before - start.after,
 * end.after - start.before] however long the sleeps really took on a
 * loaded machine, and the test checks the tracer against that.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/sdt.h>

void fx_lat_end(long id);

static __attribute__((noinline)) void start(long id)
{
	DTRACE_PROBE1(lat, start, id);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* the calls, kept in memory: no I/O between a pair's two probes */
static struct call {
	const char *name;
	long id;
	long long before, after;
} calls[8];
static int ncalls;

static void call(int is_end, long id)
{
	struct call *c = &calls[ncalls++];

	c->name = is_end ? "end" : "start";
	c->id = id;
	c->before = now_ns();
	if (is_end)
		fx_lat_end(id);
	else
		start(id);
	c->after = now_ns();
}

int main(int argc, char **argv)
{
	static const long ms[] = { 9, 40, 160 };
	char line[32];
	long i, n;
	FILE *f;

	if (argc == 2 && !strcmp(argv[1], "batches")) {
		setvbuf(stdout, NULL, _IOLBF, 0);
		while (fgets(line, sizeof(line), stdin)) {
			n = strtol(line, NULL, 10);
			for (i = 0; i < n; i++)
				start(i + 1);
			printf("fx_lat: fired %ld\n", n);
		}
		return 0;
	}
	if (argc != 3 || !fgets(line, sizeof(line), stdin))
		return 2;
	if (!strcmp(argv[1], "hits")) {
		n = strtol(argv[2], NULL, 10);
		for (i = 0; i < n; i++)
			start(i + 1);
		/* only the tracer's --count may end this */
		for (;;)
			pause();
	}
	if (!strcmp(argv[1], "interleave")) {
		call(0, 1);
		sleep_ms(9);
		call(0, 2);
		sleep_ms(40);
		call(1, 1);
		call(1, 2);
	} else if (!strcmp(argv[1], "sleeps")) {
		for (i = 0; i < 3; i++) {
			call(0, i + 1);
			sleep_ms(ms[i]);
			call(1, i + 1);
		}
		call(1, 100);
		call(1, 101);
	} else {
		return 2;
	}
	f = fopen(argv[2], "w");
	if (!f)
		return 1;
	for (i = 0; i < ncalls; i++)
		fprintf(f, "%s %ld %lld %lld\n", calls[i].name, calls[i].id,
			calls[i].before, calls[i].after);
	return fclose(f) ? 1 : 0;
}
