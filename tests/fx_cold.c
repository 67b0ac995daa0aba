// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Strings on pages this process has not touched, by design: for `usdtkit
 * trace --str` and str(argN) on pages a uprobe program cannot read with
 * page faults disabled (tests/cli_trace_cold.sh, docs/ATTACH.md
 * "Strings"). cold:s(int case, const char *s) fires once per case:
 *   0 a literal in .rodata             "cold literal"
 *   1 a literal across two cold pages  "spans two pages"
 *   2 a string in .data (writable)     "cold data"
 *   3 a shared memfd page, written by write(), never mapped in here
 *                                       "memfd page"
 *   4 "swap": a private anonymous page swapped out  "swapped out";
 *     else an anonymous page never touched (the zero page)  ""
 *   5 NULL, 6 (char *)16, 7 an unmapped page: bad pointers
 * Before firing, each of 0-4 is asserted not present in the page tables
 * (/proc/self/pagemap; mincore() would answer for the page cache, which
 * holds a binary just built), 4 with "swap" as swapped out; exit 3 when
 * one is not, naming it.
 *
 * A page fault on a file maps the cached pages around it too (fault-
 * around, /sys/kernel/mm/... fault_around_bytes, 64 KiB): each cold string
 * gets a 64 KiB-aligned block of its own, with nothing else in it.
 *
 * usage: fx_cold ROUNDS [swap] [linger]   (starts firing when it reads a
 * line on stdin; ROUNDS must be 1: a string read once is no longer cold.
 * linger: sleep 1 s after, so that its memory can still be read)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <sys/sdt.h>

#define BLOCK 65536
#define PM_PRESENT (1ull << 63)
#define PM_SWAP (1ull << 62)

/* each in its own 64 KiB block: see above */
__attribute__((section(".rodata.usdtkit_cold0"), aligned(BLOCK), used))
static const char lit[BLOCK] = "cold literal";
/* "spans two pages" from 4 bytes before the block's second page */
__attribute__((section(".rodata.usdtkit_cold1"), aligned(BLOCK), used))
static const char span[BLOCK] = { [4092] = 's', 'p', 'a', 'n', 's', ' ', 't',
	'w', 'o', ' ', 'p', 'a', 'g', 'e', 's', 0 };
__attribute__((section(".data.usdtkit_cold2"), aligned(BLOCK), used))
static char data[BLOCK] = "cold data";

__attribute__((noinline)) static void site(int i, const char *s)
{
	DTRACE_PROBE2(cold, s, i, s);
}

static uint64_t pagemap(const void *p)
{
	uint64_t e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0 || pread(fd, &e, sizeof(e), (off_t)((uintptr_t)p / 4096 * 8)) !=
	    (ssize_t)sizeof(e)) {
		perror("fx_cold: /proc/self/pagemap");
		exit(3);
	}
	close(fd);
	return e;
}

static void assert_cold(int i, const void *p)
{
	if (pagemap(p) & PM_PRESENT) {
		fprintf(stderr, "fx_cold: case %d (%p) is in the page tables already\n",
			i, p);
		exit(3);
	}
}

/* a shared memfd page holding @s, written by write(): in the page cache,
 * never in this process's page tables */
static const char *memfd_page(const char *s)
{
	int fd = memfd_create("fx_cold", MFD_CLOEXEC);
	void *p;

	if (fd < 0 || write(fd, s, strlen(s) + 1) < 0 || ftruncate(fd, 4096)) {
		perror("fx_cold: memfd");
		exit(3);
	}
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("fx_cold: mmap memfd");
		exit(3);
	}
	return p;
}

/* a private anonymous page: with @swap, holding "swapped out" and paged
 * out (MADV_PAGEOUT, Linux 5.4: needs a swap device), else never touched */
static const char *anon_page(int swap)
{
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int k;

	if (p == MAP_FAILED) {
		perror("fx_cold: mmap");
		exit(3);
	}
	if (!swap)
		return p;
	strcpy(p, "swapped out");
	/* the page may sit in a per-CPU batch before it can be reclaimed */
	for (k = 0; k < 100 && !(pagemap(p) & PM_SWAP); k++) {
		if (madvise(p, 4096, MADV_PAGEOUT)) {
			perror("fx_cold: MADV_PAGEOUT");
			exit(3);
		}
		usleep(10000);
	}
	if (!(pagemap(p) & PM_SWAP)) {
		fprintf(stderr, "fx_cold: the anonymous page was not swapped out "
			"(no swap device?)\n");
		exit(3);
	}
	return p;
}

static const char *unmapped_page(void)
{
	void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || munmap(p, 4096)) {
		perror("fx_cold: mmap");
		exit(3);
	}
	return p;
}

int main(int argc, char **argv)
{
	int swap = 0, linger = 0, i;
	const char *cases[8];
	char line[16];

	for (i = 2; i < argc; i++) {
		swap |= !strcmp(argv[i], "swap");
		linger |= !strcmp(argv[i], "linger");
	}
	if (argc < 2 || atoi(argv[1]) != 1) {
		fprintf(stderr, "usage: fx_cold 1 [swap] [linger]\n");
		return 2;
	}
	cases[0] = lit;
	cases[1] = span + 4092;
	cases[2] = data;
	cases[3] = memfd_page("memfd page");
	cases[4] = anon_page(swap);
	cases[5] = NULL;
	cases[6] = (const char *)16;
	cases[7] = unmapped_page();
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	/* checked last, right before the probes fire */
	for (i = 0; i < 5; i++)
		assert_cold(i, cases[i]);
	assert_cold(1, span + 4096);
	for (i = 0; i < 8; i++)
		site(i, cases[i]);
	if (linger)
		sleep(1);
	return 0;
}
