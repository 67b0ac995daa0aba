// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The workload of bench/cold_bench.sh: cbench:hit(i, s) fired once for
 * each of N strings, each at the start of its own 64 KiB block of a file
 * mapped private and read-only (fault-around maps up to 64 KiB around a
 * fault: one string per block keeps every hit's page cold). The file is
 * written first, so its pages are in the page cache: a cold hit costs a
 * minor fault, not a disk read. MODE warm: every string is read first;
 * cold: none is. Waits for a line on stdin, runs the loop, prints its
 * time in ns, waits for another line (the tracer's stats are read then).
 * usage: cold_load N warm|cold FILE
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

#include "load_common.h"

#define BLOCK 65536

int main(int argc, char **argv)
{
	static char block[BLOCK];
	volatile char sink = 0;
	long n, i;
	long long t0, t1;
	char *map;
	int fd;

	if (argc != 4 || (n = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: cold_load N warm|cold FILE\n");
		return 2;
	}
	fd = open(argv[3], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 1;
	for (i = 0; i < n; i++) {
		snprintf(block, sizeof(block), "string of block %ld", i);
		if (write(fd, block, BLOCK) != BLOCK)
			return 1;
	}
	map = mmap(NULL, (size_t)n * BLOCK, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return 1;
	if (!strcmp(argv[2], "warm"))
		for (i = 0; i < n; i++)
			sink += map[i * BLOCK];
	wait_line();
	t0 = now_ns();
	for (i = 0; i < n; i++)
		DTRACE_PROBE2(cbench, hit, i, map + i * BLOCK);
	t1 = now_ns();
	printf("%lld\n", t1 - t0);
	fflush(stdout);
	wait_line();
	return sink == 1;
}
