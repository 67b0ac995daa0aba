// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The VM workload (docs/ARCHES.md, "trace on each target's kernel"): it
 * fires the probes of tests/cross/sites_probes.c and vm_sema.c for a
 * tracer on the target's own kernel, and writes down every hit with the
 * values it passed (sites_hit(), called right after each probe), for the
 * host to compare with `usdtkit trace --json` hit by hit.
 *
 *   vm_sites count ROUNDS
 *	fire ROUNDS rounds untraced and print "NAME HITS" per probe (the
 *	semaphore probe counted as if enabled): the tracer's --count.
 *   vm_sites run ROUNDS DIR
 *	write DIR/info ("pid N", "sema ADDR", "decoy ADDR"), wait for
 *	DIR/go, fire ROUNDS rounds appending every hit to DIR/expect, then
 *	wait for DIR/done before exiting: `usdtkit trace -p` stops reading
 *	once the process is gone, and must first read every hit.
 *
 * Built static (vm_sites) and with the probes in a shared library
 * (vm_sites_so + libvmsites.so). Every expect line is
 *	NAME KIND:SIZE:HEX ...
 * KIND s (signed), u (unsigned) or f (float, HEX its raw bits); HEX is
 * the value extended to 64 bits the way sdt.h declares it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sites.h"
#include "vm_sites.h"

#define MAX_NAMES 64

static FILE *expect;
static struct { const char *name; unsigned long hits; } tally[MAX_NAMES];
static int ntally;

void sites_hit(const char *name)
{
	int i;

	if (!expect) {	/* count mode */
		for (i = 0; i < ntally && strcmp(tally[i].name, name); i++)
			;
		if (i == ntally && ntally < MAX_NAMES)
			tally[ntally++].name = name;
		if (i < MAX_NAMES)
			tally[i].hits++;
		return;
	}
	fputs(name, expect);
	for (i = 0; i < sites_expect.nargs; i++)
		fprintf(expect, " %c:%u:%llx",
			sites_expect.is_float[i] ? 'f' : sites_expect.is_signed[i] ? 's' : 'u',
			sites_expect.size[i], (unsigned long long)sites_expect.value[i]);
	fputc('\n', expect);
}

static void fire(int rounds)
{
	int r;

	for (r = 1; r <= rounds; r++) {
		sites_run_probes();
		vm_sema_fire(r);
	}
}

/* Poll for @path: the guest script's signal (busybox has no better one
 * that a process can wait for without a race). */
static void wait_file(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	while (access(path, F_OK))
		usleep(20 * 1000);
}

static int write_info(const char *dir)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/info", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "pid %d\nsema %p\ndecoy %p\n", (int)getpid(),
		(void *)vm_sema_addr(), (void *)vm_sema_decoy_addr());
	return fclose(f) ? -errno : 0;
}

static int run(int rounds, const char *dir)
{
	char path[512];
	int err = write_info(dir);

	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/expect", dir);
	expect = fopen(path, "w");
	if (!expect)
		return -errno;
	wait_file(dir, "go");
	fire(rounds);
	if (fclose(expect))
		return -errno;
	/* a second file: the expect file is complete once this exists */
	snprintf(path, sizeof(path), "%s/fired", dir);
	fclose(fopen(path, "w"));
	wait_file(dir, "done");
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 0, i, err;

	if (argc == 3 && !strcmp(argv[1], "count") && rounds > 0) {
		vm_counting = true;
		fire(rounds);
		for (i = 0; i < ntally; i++)
			printf("%s %lu\n", tally[i].name, tally[i].hits);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "run") && rounds > 0) {
		err = run(rounds, argv[3]);
		if (err)
			fprintf(stderr, "vm_sites: %s: %s\n", argv[3], strerror(-err));
		return err ? 1 : 0;
	}
	fprintf(stderr, "usage: vm_sites count ROUNDS | run ROUNDS DIR\n");
	return 2;
}
