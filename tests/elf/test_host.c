// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit_host_*(): every process with probes, each once, and the scan's
 * work counted. NFX copies of tests/fixtures/fx_sema (its probes in the
 * program, libc without) are each found once by a scan, with their
 * objects. Read through one scan's cache (core/elf/proc.c), the first
 * copy opens its program, libc and loader, and every other copy its
 * program only (it has probes): files without probes are opened once per
 * scan. Without that cache, each copy would cost them all.
 * usage: test_host FX_SEMA
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "elf/proc.h"
#include "fx_proc.h"

#include <usdtkit/usdtkit.h>

#define NFX 16

struct fx {
	pid_t pid;
	FILE *in, *out;
};

/* Scan the host: how many of @fx were found (each must be once). */
static int scan(const struct fx *fx)
{
	USDTKIT_OPTS(usdtkit_host_opts, ho);
	struct usdtkit_host *h = usdtkit_host_open(&ho);
	struct usdtkit_proc *p;
	int seen[NFX] = { 0 }, i, found = 0;
	size_t procs = 0;

	CHECK(h, "host_open: %s", strerror(errno));
	if (!h)
		return -1;
	while ((p = usdtkit_host_next(h))) {
		CHECK(usdtkit_proc_object_count(p) > 0, "pid %d listed with no object",
		      usdtkit_proc_pid(p));
		for (i = 0; i < NFX; i++)
			if (fx[i].pid == usdtkit_proc_pid(p))
				seen[i]++;
		usdtkit_proc_close(p);
	}
	CHECK(errno == 0, "the scan ended with %s", strerror(errno));
	for (i = 0; i < NFX; i++) {
		CHECK(seen[i] <= 1, "pid %d listed %d times", fx[i].pid, seen[i]);
		found += seen[i] == 1;
	}
	usdtkit_host_stats(h, &procs, NULL);
	CHECK(procs >= NFX, "%zu processes read", procs);
	usdtkit_host_close(h);
	return found;
}

/* The copies through one cache: the files opened, counted. */
static void cached(const struct fx *fx)
{
	USDTKIT_OPTS(usdtkit_open_opts, oo);
	struct usdtkit__probe_cache *c = usdtkit__probe_cache_new();
	size_t first = 0;
	int i;

	CHECK(c, "cache_new");
	for (i = 0; c && i < NFX; i++) {
		struct usdtkit_proc *p = usdtkit__proc_open_cached(fx[i].pid, &oo, c);

		CHECK(p && usdtkit_proc_object_count(p) == 1, "copy %d: its program", i);
		usdtkit_proc_close(p);
		if (!i)
			first = usdtkit__probe_cache_opened(c);
	}
	printf("files opened: %zu for the first copy, %zu for all %d\n", first,
	       usdtkit__probe_cache_opened(c), NFX);
	CHECK(first >= 2, "the first copy opened its program and libc: %zu", first);
	CHECK(usdtkit__probe_cache_opened(c) == first + NFX - 1,
	      "the other copies opened %zu files, want %d (their program)",
	      usdtkit__probe_cache_opened(c) - first, NFX - 1);
	usdtkit__probe_cache_free(c);
}

int main(int argc, char **argv)
{
	struct fx fx[NFX];
	char line[64];
	int i, found;

	if (argc != 2) {
		fprintf(stderr, "usage: test_host FX_SEMA\n");
		return 2;
	}
	CHECK(usdtkit_host_next(NULL) == NULL && errno == EINVAL, "next(NULL)");
	for (i = 0; i < NFX; i++) {
		CHECK(!fx_proc_start(argv[1], &fx[i].pid, &fx[i].in, &fx[i].out),
		      "start %s", argv[1]);
		CHECK(fx[i].out && fgets(line, sizeof(line), fx[i].out) &&
		      !strncmp(line, "ready", 5), "%s ready", argv[1]);
	}
	found = scan(fx);
	CHECK(found == NFX, "%d of %d copies found", found, NFX);
	cached(fx);
	/* the last first: each copy holds the pipes of those started before */
	for (i = NFX - 1; i >= 0; i--)
		fx_proc_stop(&fx[i].pid, &fx[i].in, &fx[i].out);
	CHECK(scan(fx) == 0, "the copies gone: none found");
	return check_done();
}
