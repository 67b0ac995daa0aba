// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A latency pair across two objects, for `usdtkit trace --latency`
 * (tests/cli_trace_agg.sh): lat:start(id) here, latlib:end(id) in
 * libfx_lat.so, with known sleeps between them.
 *
 * usage: fx_lat sleeps|interleave   (fires once it reads a line on stdin)
 *   sleeps:     for (id, ms) in (1, 9) (2, 40) (3, 160): start, sleep, end;
 *               then end(100) and end(101), with no start
 *   interleave: start(1), 9 ms, start(2), 40 ms, end(1), end(2): by arg0,
 *               49 and 40 ms; by tid, start(2) replaced start(1), so
 *               end(1) gets 40 ms and end(2) has no start
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

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

int main(int argc, char **argv)
{
	static const long ms[] = { 9, 40, 160 };
	char line[16];
	long i;

	if (argc < 2 || !fgets(line, sizeof(line), stdin))
		return 2;
	if (!strcmp(argv[1], "interleave")) {
		start(1);
		sleep_ms(9);
		start(2);
		sleep_ms(40);
		fx_lat_end(1);
		fx_lat_end(2);
		return 0;
	}
	for (i = 0; i < 3; i++) {
		start(i + 1);
		sleep_ms(ms[i]);
		fx_lat_end(i + 1);
	}
	fx_lat_end(100);
	fx_lat_end(101);
	return 0;
}
