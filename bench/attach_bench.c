// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Attach and detach time, and fds held, for one probe with N sites:
 * usdtkit (auto = multi, perf, ipmap) against libbpf's
 * bpf_program__attach_usdt() and the bare BPF_LINK_CREATE uprobe_multi
 * syscall, in one run. Needs root (or CAP_BPF + CAP_PERFMON).
 *
 *   attach_bench [options] DIR     DIR holds attach_target_N (non-PIE)
 *     --sizes 10,100,1000,10000  site counts (each needs DIR/attach_target_N)
 *     --reps N          repetitions of the fast cases (default 5)
 *     --slow-reps N     repetitions of per-site backends at >= 1000 sites
 *                       (default 1: libbpf detaches 1000 sites in ~100 s;
 *                       at 100 sites they get at most 3)
 *     --max-perf N      largest N for usdtkit perf and ipmap (default 1000)
 *     --max-libbpf N    largest N for libbpf (default 1000)
 *     --only LIST       backends to run: auto,perf,ipmap,libbpf,floor
 *     --json FILE       also write the medians as JSON
 *     -v                libbpf and usdtkit messages on stderr
 *
 * attach = usdtkit_attach() / bpf_program__attach_usdt() (both open and
 * parse the ELF file) / one bpf(BPF_LINK_CREATE) with the offsets known
 * in advance (pid 0: no filter, the kernel refuses -1); detach = usdtkit_link_destroy() / bpf_link__destroy() /
 * close(). release = from the start of detach until the kernel has
 * released everything: for usdtkit perf and ipmap, which leave the perf
 * events to a background reaper process, until that process has exited
 * (this benchmark makes itself the reaper's subreaper to wait for it);
 * for the others the same as detach.
 * fds = entries of /proc/self/fd while attached minus before.
 * Every row reports the median over its repetitions; within a
 * repetition the backends run one after the other, so load on the
 * machine hits them alike.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <usdtkit/attach.h>
#include <usdtkit/usdtkit.h>

#include "bench_print.h"
#include "bench_stats.h"

#include "attach_libbpf.skel.h"
#include "attach_uk.skel.h"

/* ---- the floor: one raw BPF_LINK_CREATE ----
 * usdtkit's own call (attach/features.c): internal, but a static link
 * reaches it, so the floor is the very syscall the library makes. */
int usdtkit__sys_uprobe_multi(int prog_fd, const char *path,
			      const uint64_t *offsets, const uint64_t *ref_ctrs,
			      const uint64_t *cookies, uint32_t cnt, int pid);

/* ---- helpers ---- */


static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static long count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	long n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* ---- backends ---- */

enum { B_AUTO, B_PERF, B_IPMAP, B_LIBBPF, B_FLOOR, NB };
static const char *const bname[NB] = {
	[B_AUTO] = "usdtkit auto", [B_PERF] = "usdtkit perf",
	[B_IPMAP] = "usdtkit ipmap", [B_LIBBPF] = "libbpf 1.1",
	[B_FLOOR] = "raw uprobe_multi",
};
static const char *const bkey[NB] = {
	[B_AUTO] = "auto", [B_PERF] = "perf", [B_IPMAP] = "ipmap",
	[B_LIBBPF] = "libbpf", [B_FLOOR] = "floor",
};

static struct attach_uk *uk[NB];	/* one load per usdtkit mode; floor uses B_AUTO's */
static struct attach_libbpf *lb;

struct sample {
	double att, det, rel;
	long fds;
};

/* Wait for every background reaper usdtkit_link_destroy() started: as
 * our subreaper children they come back to us when they exit, which is
 * after the kernel has closed their files. */
static void wait_reapers(void)
{
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
}

struct target {
	int n;
	char path[4096];
	uint64_t *offs;		/* for the floor */
	size_t noffs;
};

static int load_all(void)
{
	static const enum usdtkit_mode modes[] = {
		[B_AUTO] = USDTKIT_MODE_AUTO, [B_PERF] = USDTKIT_MODE_PERF,
		[B_IPMAP] = USDTKIT_MODE_IPMAP,
	};
	int b, err;

	for (b = B_AUTO; b <= B_IPMAP; b++) {
		uk[b] = attach_uk__open();
		if (!uk[b])
			return -errno;
		err = usdtkit_prog_prepare(uk[b]->progs.bench_uk, modes[b]);
		err = err ? err : attach_uk__load(uk[b]);
		if (err)
			return err;
	}
	lb = attach_libbpf__open_and_load();
	return lb ? 0 : -errno;
}

static int run_one(int b, const struct target *t, struct sample *s)
{
	static const enum usdtkit_mode modes[] = {
		[B_AUTO] = USDTKIT_MODE_AUTO, [B_PERF] = USDTKIT_MODE_PERF,
		[B_IPMAP] = USDTKIT_MODE_IPMAP,
	};
	long before = count_fds();
	double t0, t1, t2;

	switch (b) {
	case B_AUTO:
	case B_PERF:
	case B_IPMAP: {
		USDTKIT_OPTS(usdtkit_attach_opts, o, .mode = modes[b], .print = uk_print);
		struct usdtkit_link *l;

		t0 = now_ms();
		l = usdtkit_attach(uk[b]->progs.bench_uk, -1, t->path, "bench", "site", &o);
		t1 = now_ms();
		if (!l)
			return -errno;
		s->fds = count_fds() - before;
		if (usdtkit_link_site_count(l) != (size_t)t->n) {
			fprintf(stderr, "%s: %zu sites attached, want %d\n", bname[b],
				usdtkit_link_site_count(l), t->n);
			usdtkit_link_destroy(l);
			return -EPROTO;
		}
		t2 = now_ms();
		usdtkit_link_destroy(l);
		break;
	}
	case B_LIBBPF: {
		struct bpf_link *l;

		t0 = now_ms();
		l = bpf_program__attach_usdt(lb->progs.bench_lb, -1, t->path, "bench",
					     "site", NULL);
		t1 = now_ms();
		if (!l)
			return -errno;
		s->fds = count_fds() - before;
		t2 = now_ms();
		bpf_link__destroy(l);
		break;
	}
	case B_FLOOR: {
		int fd;

		t0 = now_ms();
		fd = usdtkit__sys_uprobe_multi(bpf_program__fd(uk[B_AUTO]->progs.bench_uk),
					       t->path, t->offs, NULL, NULL,
					       (uint32_t)t->noffs, 0);
		t1 = now_ms();
		if (fd < 0)
			return fd;
		s->fds = count_fds() - before;
		t2 = now_ms();
		close(fd);
		break;
	}
	default:
		return -EINVAL;
	}
	s->att = t1 - t0;
	s->det = now_ms() - t2;
	wait_reapers();
	s->rel = now_ms() - t2;
	return 0;
}

static int target_init(struct target *t, const char *dir, int n)
{
	struct usdtkit_file *f;
	const struct usdtkit_site *s = NULL;

	t->n = n;
	snprintf(t->path, sizeof(t->path), "%s/attach_target_%d", dir, n);
	f = usdtkit_file_open(t->path, NULL);
	if (!f) {
		fprintf(stderr, "%s: %s\n", t->path, strerror(errno));
		return -1;
	}
	t->offs = calloc((size_t)n, sizeof(*t->offs));
	t->noffs = 0;
	while (t->offs && (s = usdtkit_file_next_site(f, s, "bench", "site")))
		if (t->noffs < (size_t)n)
			t->offs[t->noffs++] = usdtkit_site_pc_offset(s);
	usdtkit_file_close(f);
	if (t->noffs != (size_t)n) {
		fprintf(stderr, "%s: %zu sites of bench:site, want %d\n", t->path,
			t->noffs, n);
		return -1;
	}
	return 0;
}

/* ---- main ---- */

struct row {
	int n, b, reps, done, err;
	double att[64], det[64], tot[64], rel[64];
	long fds;
	double m_att, m_det, m_tot, m_rel;
};

static int parse_sizes(const char *s, int *out, int max)
{
	int k = 0;

	while (*s && k < max) {
		char *end;
		long v = strtol(s, &end, 10);

		if (end == s || v <= 0)
			return -1;
		out[k++] = (int)v;
		s = *end == ',' ? end + 1 : end;
	}
	return k;
}

static void usage(void)
{
	fprintf(stderr, "usage: attach_bench [--sizes 10,100,1000,10000] [--reps N] "
		"[--slow-reps N] [--max-perf N] [--max-libbpf N] [--only LIST] "
		"[--json FILE] [-v] DIR\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int sizes[16] = { 10, 100, 1000, 10000 }, nsizes = 4;
	int reps = 5, slow_reps = 1, max_perf = 1000, max_libbpf = 1000;
	const char *dir = NULL, *json = NULL, *only = NULL;
	static struct row rows[16][NB];
	static struct target tg[16];
	int i, b, r, maxreps = 0, err;
	FILE *jf;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-v"))
			verbose = 1;
		else if (i + 1 >= argc && a[0] == '-')
			usage();
		else if (!strcmp(a, "--sizes")) {
			nsizes = parse_sizes(argv[++i], sizes, 16);
			if (nsizes <= 0)
				usage();
		} else if (!strcmp(a, "--reps"))
			reps = atoi(argv[++i]);
		else if (!strcmp(a, "--slow-reps"))
			slow_reps = atoi(argv[++i]);
		else if (!strcmp(a, "--max-perf"))
			max_perf = atoi(argv[++i]);
		else if (!strcmp(a, "--max-libbpf"))
			max_libbpf = atoi(argv[++i]);
		else if (!strcmp(a, "--only"))
			only = argv[++i];
		else if (!strcmp(a, "--json"))
			json = argv[++i];
		else if (a[0] == '-')
			usage();
		else
			dir = a;
	}
	if (!dir || reps < 1 || reps > 64 || slow_reps < 1 || slow_reps > 64)
		usage();
	libbpf_set_print(libbpf_print);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		fprintf(stderr, "PR_SET_CHILD_SUBREAPER: %s (release = detach)\n",
			strerror(errno));
	err = load_all();
	if (err) {
		fprintf(stderr, "loading the BPF programs: %s\n", strerror(-err));
		return 1;
	}
	printf("auto resolves to %s on this kernel\n",
	       usdtkit_mode_str(usdtkit_mode_resolve(USDTKIT_MODE_AUTO)));
	for (i = 0; i < nsizes; i++) {
		if (target_init(&tg[i], dir, sizes[i]))
			return 1;
		for (b = 0; b < NB; b++) {
			struct row *w = &rows[i][b];
			int per_site = b == B_PERF || b == B_IPMAP || b == B_LIBBPF;

			w->n = sizes[i];
			w->b = b;
			w->reps = per_site && sizes[i] >= 1000 ? slow_reps :
				  per_site && sizes[i] >= 100 && reps > 3 ? 3 : reps;
			if (only && !strstr(only, bkey[b]))
				w->reps = 0;
			if ((b == B_PERF || b == B_IPMAP) && sizes[i] > max_perf)
				w->reps = 0;
			if (b == B_LIBBPF && sizes[i] > max_libbpf)
				w->reps = 0;
			if (w->reps > maxreps)
				maxreps = w->reps;
		}
	}
	/* round r: every (size, backend) that still wants a repetition, the
	 * backends of one size back to back, starting at a different one
	 * each round */
	for (r = 0; r < maxreps; r++)
		for (i = 0; i < nsizes; i++)
			for (int k = 0; k < NB; k++) {
				struct row *w;
				struct sample s = { 0 };

				b = (k + r) % NB;
				w = &rows[i][b];
				if (r >= w->reps || w->err)
					continue;
				err = run_one(b, &tg[i], &s);
				if (err) {
					fprintf(stderr, "%d sites, %s: %s\n", w->n, bname[b],
						strerror(-err));
					w->err = err;
					continue;
				}
				w->att[w->done] = s.att;
				w->det[w->done] = s.det;
				w->tot[w->done] = s.att + s.det;
				w->rel[w->done] = s.rel;
				w->fds = s.fds;
				w->done++;
				if (verbose)
					fprintf(stderr, "%5d sites %-16s rep %d: attach %.2f ms, "
						"detach %.2f ms, release %.2f ms, %ld fds\n", w->n,
						bname[b], r, s.att, s.det, s.rel, s.fds);
			}

	printf("\n| sites | backend | attach ms | detach ms | attach+detach ms | release ms "
	       "| fds | reps |\n");
	printf("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	for (i = 0; i < nsizes; i++)
		for (b = 0; b < NB; b++) {
			struct row *w = &rows[i][b];

			if (!w->done)
				continue;
			w->m_att = median(w->att, w->done);
			w->m_det = median(w->det, w->done);
			w->m_tot = median(w->tot, w->done);
			w->m_rel = median(w->rel, w->done);
			printf("| %d | %s | %.3f | %.3f | %.3f | %.3f | %ld | %d |\n", w->n,
			       bname[b], w->m_att, w->m_det, w->m_tot, w->m_rel, w->fds, w->done);
		}
	printf("\n| sites | libbpf / usdtkit auto | usdtkit auto / raw syscall |\n");
	printf("| ---: | ---: | ---: |\n");
	for (i = 0; i < nsizes; i++) {
		struct row *a = &rows[i][B_AUTO], *l = &rows[i][B_LIBBPF], *f = &rows[i][B_FLOOR];
		char x[32] = "-", y[32] = "-";

		if (a->done && l->done)
			snprintf(x, sizeof(x), "%.1fx", l->m_tot / a->m_tot);
		if (a->done && f->done)
			snprintf(y, sizeof(y), "%.2fx", a->m_tot / f->m_tot);
		printf("| %d | %s | %s |\n", sizes[i], x, y);
	}
	for (i = 0; i < nsizes; i++) {
		struct row *a = &rows[i][B_AUTO], *l = &rows[i][B_LIBBPF], *f = &rows[i][B_FLOOR];

		if (sizes[i] == 1000 && a->done && l->done)
			printf("target: 1000 sites, usdtkit auto >= 50x faster than libbpf: "
			       "%.1fx, %s\n", l->m_tot / a->m_tot,
			       l->m_tot / a->m_tot >= 50 ? "met" : "NOT met");
		if (sizes[i] == 10000 && a->done && f->done)
			printf("target: 10000 sites, usdtkit auto within 1.5x of the raw "
			       "syscall: %.2fx, %s\n", a->m_tot / f->m_tot,
			       a->m_tot / f->m_tot <= 1.5 ? "met" : "NOT met");
	}

	if (json && (jf = fopen(json, "w"))) {
		int first = 1;

		fprintf(jf, "{\"auto\": \"%s\", \"rows\": [",
			usdtkit_mode_str(usdtkit_mode_resolve(USDTKIT_MODE_AUTO)));
		for (i = 0; i < nsizes; i++)
			for (b = 0; b < NB; b++) {
				struct row *w = &rows[i][b];

				if (!w->done)
					continue;
				fprintf(jf, "%s\n  {\"sites\": %d, \"backend\": \"%s\", "
					"\"attach_ms\": %.4f, \"detach_ms\": %.4f, "
					"\"total_ms\": %.4f, \"release_ms\": %.4f, \"fds\": %ld, "
					"\"reps\": %d}", first ? "" : ",", w->n, bkey[b], w->m_att,
					w->m_det, w->m_tot, w->m_rel, w->fds, w->done);
				first = 0;
			}
		fprintf(jf, "\n]}\n");
		fclose(jf);
	}
	for (b = B_AUTO; b <= B_IPMAP; b++)
		attach_uk__destroy(uk[b]);
	attach_libbpf__destroy(lb);
	for (i = 0; i < nsizes; i++)
		free(tg[i].offs);
	return 0;
}
