// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The workload of bench/trace_bench.sh: one hot USDT probe, tload:hot,
 * with a counter (arg0, long, i = 0..M-1, never negative) and a string
 * (arg1, one of 16 keys, "key00".."key15", key i % 16: 16 distinct
 * pointers too), fired M times in a loop; both arguments are in
 * registers. tload:done (M, "key00") fires once after the loop: a
 * second probe, for the --latency START END of bench/startup_bench.sh.
 *
 * It reads one line on stdin before the loop (so that a tracer can
 * attach first), prints the loop's time in ns on stdout, and reads one
 * more line before it exits (so that the tracer's counters can be read
 * while it still runs).
 *
 *   trace_load M
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>

#include "load_common.h"

static const char *const keys[16] = {
	"key00", "key01", "key02", "key03", "key04", "key05", "key06", "key07",
	"key08", "key09", "key10", "key11", "key12", "key13", "key14", "key15",
};

int main(int argc, char **argv)
{
	long m, i;
	long long t0, t1;

	if (argc != 2 || (m = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: trace_load M\n");
		return 2;
	}
	wait_line();
	t0 = now_ns();
	for (i = 0; i < m; i++) {
		const char *k = keys[i % 16];

		/* both arguments in registers, as gcc -O2 makes most probes */
		__asm__ __volatile__("" : "+r"(k));
		DTRACE_PROBE2(tload, hot, i, k);
	}
	t1 = now_ns();
	DTRACE_PROBE2(tload, done, m, keys[0]);
	printf("%lld\n", t1 - t0);
	fflush(stdout);
	wait_line();
	return 0;
}
