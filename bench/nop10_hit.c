// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The per-hit cost of one probe at a plain nop site and at a "nop;
 * nop10" site (libbpf's newer usdt.h), in one run (bench/README.md,
 * "nop10 sites"). x86-64 only. Probe nop10bench:hit has two sites, both
 * with the same arguments, -8@%rdi 8@bench_glob(%rip): site_plain (sdt.h's
 * 1-byte nop) and site_nop10 (the nop followed by the 10-byte nop, where
 * usdtkit attaches when the kernel optimizes it). The VM's nop10 scenario
 * (tests/vm/guest.sh) runs it as its workload.
 *
 * usage: nop10_hit N DIR
 *   times N calls of each site unprobed, writes "pid P" to DIR/info, waits
 *   for DIR/go (the tracer attached), calls site_plain with 1..N and
 *   site_nop10 with N+1..2N, timing each loop, and writes DIR/result:
 *     n N                               calls of each site
 *     base_plain_ns X, base_nop10_ns X   per call, unprobed
 *     plain_ns X, nop10_ns X            per call, probed
 *     trampoline 0|1                    [uprobes-trampoline] in its maps
 *   then creates DIR/fired. Values are per call, in ns (CLOCK_MONOTONIC).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

#include "hit_workload.h"

void site_plain(long r);
void site_nop10(long r);
long bench_glob;

/* each site stores r + 1000 in bench_glob first: a %rip-relative
 * argument, read right only if the attach point's distance from the
 * note's pc is accounted for */
#define SITE(fn, after)							\
	".text\n"							\
	".globl " fn "\n"						\
	".type " fn ", @function\n"					\
	fn ":\n"							\
	"	leaq 1000(%rdi), %rax\n"				\
	"	movq %rax, bench_glob(%rip)\n"				\
	STAP_PROBE_ASM(nop10bench, hit, -8@%rdi 8@bench_glob(%rip))	\
	after								\
	"	ret\n"							\
	".size " fn ", .-" fn "\n"

__asm__(SITE("site_plain", "")
	SITE("site_nop10",
	     "	.byte 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00\n"));

/* ns per call of @site with @from .. @from + @n - 1 */
static long long run(void (*site)(long), long from, long n)
{
	long long t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		site(from + i);
	return (now_ns() - t0) / (n ? n : 1);
}

static int trampoline(void)
{
	char line[512];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, "[uprobes-trampoline]") != NULL;
	if (f)
		fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	long long base_plain, base_nop10, plain, nop10;
	char buf[256];
	long n;

	if (argc != 3 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: nop10_hit N DIR\n");
		return 2;
	}
	base_plain = run(site_plain, 1, n);
	base_nop10 = run(site_nop10, n + 1, n);
	snprintf(buf, sizeof(buf), "pid %d\n", (int)getpid());
	if (write_file(argv[2], "info", buf))
		return 1;
	wait_go(argv[2]);
	plain = run(site_plain, 1, n);
	nop10 = run(site_nop10, n + 1, n);
	snprintf(buf, sizeof(buf), "n %ld\nbase_plain_ns %lld\nbase_nop10_ns %lld\n"
		 "plain_ns %lld\nnop10_ns %lld\ntrampoline %d\n", n, base_plain,
		 base_nop10, plain, nop10, trampoline());
	if (write_file(argv[2], "result", buf) || write_file(argv[2], "fired", ""))
		return 1;
	return 0;
}
