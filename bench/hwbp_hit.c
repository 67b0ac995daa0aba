// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The per-hit cost of one probe, whatever traces it: a uprobe in a
 * native process, a hardware breakpoint (mode hwbp) in a 32-bit arm one
 * on the same arm64 kernel (bench/README.md, "Mode hwbp"). The VM's
 * hwbp_bench scenario (tests/vm/guest.sh, run by hand) runs the arm64
 * and the armhf static builds of it on one boot.
 *
 * usage: hwbp_hit N DIR
 *   times N calls of the probe's function unprobed, writes "pid P" to
 *   DIR/info, waits for DIR/go (the tracer attached), times N calls
 *   again, and writes DIR/result:
 *     n N
 *     base_ns X	per call, unprobed
 *     hit_ns X		per call, probed
 *   then creates DIR/fired. CLOCK_MONOTONIC, ns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

#include "hit_workload.h"

static __attribute__((noinline)) void hit(long i)
{
	STAP_PROBE1(hwbpbench, hit, i);
}

static long long run(long n)
{
	long long t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		hit(i);
	return (now_ns() - t0) / n;
}

int main(int argc, char **argv)
{
	char buf[256];
	long long base, probed;
	long n;

	if (argc != 3 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: hwbp_hit N DIR\n");
		return 2;
	}
	base = run(n);
	snprintf(buf, sizeof(buf), "pid %d\n", (int)getpid());
	if (write_file(argv[2], "info", buf))
		return 1;
	wait_go(argv[2]);
	probed = run(n);
	snprintf(buf, sizeof(buf), "n %ld\nbase_ns %lld\nhit_ns %lld\n", n, base, probed);
	if (write_file(argv[2], "result", buf) || write_file(argv[2], "fired", ""))
		return 1;
	return 0;
}
