// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * list_api_bench: the in-process cost of listing every probe of an ELF
 * file with decoded arguments, without process startup and without
 * stdio. For each FILE, three methods are timed in the same run:
 *
 *   notes   a libelf baseline: open the file, find the SHT_NOTE sections,
 *           walk every note with gelf_getnote() and take the provider,
 *           name and args strings of each stapsdt note. This is the
 *           reading part of "readelf -n" (which has its own ELF reader),
 *           with no argument decoding and no printing.
 *   open    usdtkit_file_open() (notes decoded, sites placed, every
 *           argument parsed and symbol-relative ones resolved), then
 *           every site and argument read through the accessors, then
 *           usdtkit_file_close().
 *   format  as open, plus usdtkit_arg_snprintf() of every argument into
 *           a stack buffer: the text "usdtkit list" prints, minus stdio.
 *
 * Each method is calibrated to K repetitions per round so that a round
 * lasts at least --round-ms; --runs rounds are timed, the methods taking
 * turns to go first, and the median (min, max) time of one repetition is
 * reported. Every result is folded into a checksum that is printed, so
 * the work cannot be optimized away.
 *
 * --once opens and iterates each file exactly once with usdtkit (method
 * open) and times nothing: for perf record or callgrind.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <usdtkit/usdtkit.h>

#include "bench_stats.h"

#define MAX_RUNS 1001

enum method { M_NOTES, M_OPEN, M_FORMAT, NMETHODS };

struct timing {
	unsigned k;
	double us[MAX_RUNS];
	double med, min, max;
};

static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t fold(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

/* libelf baseline: every stapsdt note's strings; returns the note count
 * (or -1) and folds what it read into *h */
static long notes_once(const char *path, uint64_t *h)
{
	Elf_Scn *scn = NULL;
	long count = 0;
	GElf_Shdr sh;
	Elf *elf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		close(fd);
		return -1;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			const char *desc = (const char *)d->d_buf + desc_off;
			const char *end = desc + nh.n_descsz, *p;
			int i;

			if (nh.n_type != 3 || nh.n_namesz != 8 ||
			    memcmp((const char *)d->d_buf + name_off, "stapsdt", 8))
				continue;
			/* pc, base, semaphore, then provider, name, args */
			p = desc + 3 * (gelf_getclass(elf) == ELFCLASS64 ? 8 : 4);
			for (i = 0; i < 3 && p < end; i++) {
				size_t len = strnlen(p, (size_t)(end - p));

				*h = fold(*h, len);
				p += len + 1;
			}
			count++;
		}
	}
	elf_end(elf);
	close(fd);
	return count;
}

/* usdtkit: open, read every site and argument, optionally format them;
 * returns the site count (or -1) and the argument count in *nargs */
static long usdtkit_once(const char *path, bool format, uint64_t *h,
			 long *nargs)
{
	struct usdtkit_file *f = usdtkit_file_open(path, NULL);
	const struct usdtkit_arch *arch;
	size_t i, n;
	char buf[256];

	if (!f)
		return -1;
	arch = usdtkit_file_arch(f);
	n = usdtkit_file_site_count(f);
	*nargs = 0;
	for (i = 0; i < n; i++) {
		const struct usdtkit_site *s = usdtkit_file_site(f, i);
		const char *spec = usdtkit_site_args_text(s);
		int k, na = usdtkit_site_arg_count(s);

		*h = fold(*h, usdtkit_site_pc_offset(s));
		*h = fold(*h, usdtkit_site_semaphore_offset(s));
		*h = fold(*h, (uint64_t)(uintptr_t)usdtkit_site_provider(s)[0]);
		*h = fold(*h, (uint64_t)(uintptr_t)usdtkit_site_name(s)[0]);
		*h = fold(*h, (uint64_t)usdtkit_site_status(s));
		for (k = 0; k < na; k++) {
			const struct usdtkit_arg *a = usdtkit_site_arg(s, k);

			*h = fold(*h, (uint64_t)a->kind << 24 | (uint64_t)a->status << 16 |
				      (uint64_t)a->size << 1 | a->is_signed);
			*h = fold(*h, (uint64_t)(uint16_t)a->reg.offset << 16 |
				      (uint16_t)a->base.offset);
			*h = fold(*h, (uint64_t)a->disp ^ (uint64_t)a->value);
			if (format)
				*h = fold(*h, (uint64_t)usdtkit_arg_snprintf(buf, sizeof(buf),
									  arch, spec, a));
		}
		*nargs += na;
	}
	usdtkit_file_close(f);
	return (long)n;
}

static int run_once(enum method m, const char *path, uint64_t *h)
{
	long nargs;

	switch (m) {
	case M_NOTES:
		return notes_once(path, h) < 0 ? -1 : 0;
	case M_OPEN:
		return usdtkit_once(path, false, h, &nargs) < 0 ? -1 : 0;
	default:
		return usdtkit_once(path, true, h, &nargs) < 0 ? -1 : 0;
	}
}

/* seconds for k repetitions */
static double timed(enum method m, const char *path, unsigned k)
{
	uint64_t h = 0, t0 = now_ns();
	unsigned i;

	for (i = 0; i < k; i++)
		if (run_once(m, path, &h))
			exit(1);
	sink = h;
	return (double)(now_ns() - t0) / 1e9;
}

static unsigned calibrate(enum method m, const char *path, double round_s)
{
	unsigned k = 1;

	while (k < (1u << 20)) {
		double t = timed(m, path, k);

		if (t >= round_s)
			break;
		if (t < round_s / 16)
			k *= 8;
		else
			k *= 2;
	}
	return k;
}

static void summarize(struct timing *t, int runs)
{
	struct spread sp = { -1, -1, -1 };

	spread_of(t->us, runs, &sp);
	t->min = sp.min;
	t->med = sp.med;
	t->max = sp.max;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: list_api_bench [options] FILE...\n"
		"  --runs N        timed rounds per file (default 31)\n"
		"  --round-ms MS   shortest length of a round (default 10)\n"
		"  --once          open and iterate each file once, time nothing\n");
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

int main(int argc, char **argv)
{
	int runs = 31, i, first = 0;
	double round_ms = 10;
	bool once = false;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
			runs = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--round-ms") && i + 1 < argc) {
			round_ms = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--once")) {
			once = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	first = i;
	if (first >= argc || runs < 1 || runs > MAX_RUNS || round_ms <= 0) {
		usage(stderr);
		return 2;
	}
	elf_version(EV_CURRENT);

	if (once) {
		for (i = first; i < argc; i++) {
			uint64_t h = 0;
			long nargs = 0, n = usdtkit_once(argv[i], false, &h, &nargs);

			if (n < 0) {
				fprintf(stderr, "list_api_bench: %s: %s\n", argv[i],
					strerror(errno));
				return 1;
			}
			printf("%s: sites %ld args %ld checksum %016llx\n", argv[i], n,
			       nargs, (unsigned long long)h);
		}
		return 0;
	}

	printf("# median (min..max) microseconds per file, %d rounds of >= %g ms\n",
	       runs, round_ms);
	printf("%-28s %6s %6s %22s %22s %22s %9s %9s\n", "file", "sites", "args",
	       "notes (libelf)", "open+iterate", "open+iterate+format",
	       "ns/site", "notes/open");
	for (i = first; i < argc; i++) {
		const char *path = argv[i];
		struct timing t[NMETHODS];
		uint64_t h = 0, hs[NMETHODS];
		long nnotes, nsites, nargs = 0;
		char cell[NMETHODS][64];
		int m, r;

		nnotes = notes_once(path, &h);
		nsites = usdtkit_once(path, false, &h, &nargs);
		if (nnotes < 0 || nsites < 0) {
			fprintf(stderr, "list_api_bench: %s: cannot open\n", path);
			return 1;
		}
		if (nnotes != nsites)
			fprintf(stderr, "list_api_bench: WARNING: %s: %ld stapsdt notes "
				"but %ld usdtkit sites\n", path, nnotes, nsites);
		for (m = 0; m < NMETHODS; m++) {
			hs[m] = 0;
			run_once((enum method)m, path, &hs[m]);	/* warm up */
			t[m].k = calibrate((enum method)m, path, round_ms / 1e3);
		}
		for (r = 0; r < runs; r++)
			for (m = 0; m < NMETHODS; m++) {
				int mm = (m + r) % NMETHODS;	/* take turns going first */

				t[mm].us[r] = timed((enum method)mm, path, t[mm].k) * 1e6 /
					      t[mm].k;
			}
		for (m = 0; m < NMETHODS; m++) {
			summarize(&t[m], runs);
			snprintf(cell[m], sizeof(cell[m]), "%.1f (%.1f..%.1f)", t[m].med,
				 t[m].min, t[m].max);
		}
		printf("%-28s %6ld %6ld %22s %22s %22s %9.0f %8.2fx\n", base_name(path),
		       nsites, nargs, cell[M_NOTES], cell[M_OPEN], cell[M_FORMAT],
		       nsites ? t[M_OPEN].med * 1e3 / (double)nsites : 0.0,
		       t[M_NOTES].med / t[M_OPEN].med);
		printf("# %s: checksum %016llx %016llx %016llx, K %u %u %u\n",
		       base_name(path), (unsigned long long)hs[M_NOTES],
		       (unsigned long long)hs[M_OPEN], (unsigned long long)hs[M_FORMAT],
		       t[M_NOTES].k, t[M_OPEN].k, t[M_FORMAT].k);
		fflush(stdout);
	}
	return 0;
}
