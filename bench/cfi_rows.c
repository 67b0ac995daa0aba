// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench/stack_bench.sh's driver for the unwind tables: what the CFI
 * reader (core/elf/cfi.c, internal) makes of an object and how long it
 * takes, the part of a ustack trace's start and memory that grows with
 * the objects a process maps. The tracer copies each row into unw_rows
 * as one 16-byte struct usdtkit_unw_row (trace/bpf/trace_event.h), so
 * rows x 16 is what an object holds in that map.
 *
 *   cfi_rows [-r R] FILE...
 *	one line per FILE: "PATH rows N fdes F unsupported U bytes B
 *	read_ms MED (min MIN max MAX, R runs)", where a run is open() +
 *	elf_begin() + usdtkit__cfi_read() + elf_end() + close() (the free
 *	of the rows is left out: the tracer keeps them until it copies
 *	them). Default R 5. Exits 1 if a FILE cannot be read.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/cfi.h"

#include "bench_stats.h"
#include "load_common.h"	/* now_ns() */

#define ROW_BYTES 16	/* sizeof(struct usdtkit_unw_row) */
#define RUNS_MAX 101

/* one read of @path into @c; its ns in @ns. 0 or -errno */
static int read_once(const char *path, struct usdtkit__cfi *c, double *ns)
{
	long long t0 = now_ns();
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	GElf_Ehdr eh;
	Elf *e;

	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || !gelf_getehdr(e, &eh))
		err = -ENOEXEC;
	else
		err = usdtkit__cfi_read(e, eh.e_machine, c, NULL);
	elf_end(e);
	close(fd);
	*ns = (double)(now_ns() - t0);
	return err;
}

int main(int argc, char **argv)
{
	double ns[RUNS_MAX];
	int runs = 5, i = 1, status = 0;

	if (argc > 2 && !strcmp(argv[1], "-r")) {
		runs = atoi(argv[2]);
		i = 3;
	}
	if (i >= argc || runs < 1 || runs > RUNS_MAX) {
		fprintf(stderr, "usage: cfi_rows [-r R (1..%d)] FILE...\n", RUNS_MAX);
		return 2;
	}
	if (elf_version(EV_CURRENT) == EV_NONE)
		return 1;
	for (; i < argc; i++) {
		struct usdtkit__cfi c = { 0 };
		struct spread s = { 0 };
		int r, err = 0;

		for (r = 0; r < runs && !err; r++) {
			if (r)
				usdtkit__cfi_free(&c);
			err = read_once(argv[i], &c, &ns[r]);
		}
		if (err) {
			fprintf(stderr, "cfi_rows: %s: %s\n", argv[i], strerror(-err));
			status = 1;
			continue;
		}
		spread_of(ns, runs, &s);
		printf("%s rows %zu fdes %zu unsupported %zu bytes %zu read_ms %.2f "
		       "(min %.2f max %.2f, %d runs)\n", argv[i], c.n, c.fdes,
		       c.unsupported, c.n * ROW_BYTES, s.med / 1e6, s.min / 1e6,
		       s.max / 1e6, runs);
		usdtkit__cfi_free(&c);
	}
	return status;
}
