// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Per-hit cost of one hot USDT probe with 3 arguments (a register, a
 * stack slot in the red zone, a global through a pointer register), fired M times in a loop of this
 * very process, timed with clock_gettime:
 *
 *   none            no probe attached
 *   usdtkit count   a program that only counts hits (multi link)
 *   usdtkit read3   USDTKIT_PROBE reading the 3 arguments (multi link)
 *   usdtkit perf count / read3    the same through perf-event uprobes
 *   usdtkit nop5 count / read3    multi link at the nop5 (opts.use_nop5)
 *   libbpf count    SEC("usdt") that only counts (perf-event uprobe)
 *   libbpf read3    BPF_USDT from <bpf/usdt.bpf.h> reading the 3 arguments
 *
 * hit ns = (loop time with the probe - loop time without) / M;
 * reading ns = hit(read3) - hit(count) with the same attachment.
 * Every read3 program checks each hit (b == 3a + 1, c == 7a + 2) and the
 * bad hits are reported. Needs root.
 *
 *   hit_bench [--hits M] [--reps N] [--json FILE] [-v]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include <usdtkit/attach.h>

#include "hit_libbpf.skel.h"
#include "hit_uk.skel.h"

/* ---- the target: one probe site, "nop; nop5", 3 arguments ---- */

/* nopl 0x0(%rax,%rax,1) in its 5-byte form (see tests/elf/fixtures) */
#define NOP5 ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
/* sys/sdt.h's operand, with the constraint chosen per argument */
#define HB_ARG(n, x, con)                                                      \
	[_SDT_S##n] "n"((_SDT_ARGSIGNED(x) ? (int)-1 : 1) *                    \
			(-(((int)_SDT_ARGSIZE(x)) << 8) +                      \
			 (-(0x7f & __builtin_classify_type(x))))),             \
	[_SDT_A##n] con(_SDT_ARGVAL(x))

long g_glob;

/* A leaf function: the stack argument sits in the red zone, below %rsp,
 * which is where an optimized nop5 uprobe's call pushes its return
 * address. */
__attribute__((noinline)) void hot_loop(long m)
{
	volatile long st;
	long *gp = &g_glob, i;

	/* libbpf 1.1 cannot read sym(%rip) ("unrecognized arg #2 spec
	 * '-8@g_glob(%rip)'"): the global is passed through a pointer kept
	 * in a register, -8@(%reg) */
	__asm__("" : "+r"(gp));
	for (i = 0; i < m; i++) {
		st = 3 * i + 1;
		*gp = 7 * i + 2;
		__asm__ __volatile__(STAP_PROBE_ASM(hit, hot, STAP_PROBE_ASM_TEMPLATE(3))
				     NOP5
				     :: HB_ARG(1, i, "r"), HB_ARG(2, st, "m"),
					HB_ARG(3, *gp, "m"));
	}
}

/* ---- helpers ---- */

static int verbose;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	double *c = malloc((size_t)n * sizeof(*c)), m;

	if (!c || n <= 0) {
		free(c);
		return -1;
	}
	memcpy(c, v, (size_t)n * sizeof(*c));
	qsort(c, (size_t)n, sizeof(*c), cmp_double);
	m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void uk_print(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	fprintf(stderr, "usdtkit: %s\n", msg);
}

/* ---- scenarios ---- */

enum {
	S_NONE,
	S_UK_COUNT, S_UK_READ, S_UK_FLOOR,
	S_UKP_COUNT, S_UKP_READ,
	S_UK5_COUNT, S_UK5_READ,
	S_LB_COUNT, S_LB_READ,
	NS
};
static const char *const sname[NS] = {
	[S_NONE] = "none",
	[S_UK_COUNT] = "usdtkit multi count", [S_UK_READ] = "usdtkit multi read3",
	[S_UK_FLOOR] = "floor: lookup + 2 user reads",
	[S_UKP_COUNT] = "usdtkit perf count", [S_UKP_READ] = "usdtkit perf read3",
	[S_UK5_COUNT] = "usdtkit nop5 count", [S_UK5_READ] = "usdtkit nop5 read3",
	[S_LB_COUNT] = "libbpf count", [S_LB_READ] = "libbpf read3",
};
static const char *const skey[NS] = {
	[S_NONE] = "none",
	[S_UK_COUNT] = "uk_count", [S_UK_READ] = "uk_read3", [S_UK_FLOOR] = "uk_floor",
	[S_UKP_COUNT] = "uk_perf_count", [S_UKP_READ] = "uk_perf_read3",
	[S_UK5_COUNT] = "uk_nop5_count", [S_UK5_READ] = "uk_nop5_read3",
	[S_LB_COUNT] = "lb_count", [S_LB_READ] = "lb_read3",
};

/* hit_uk loaded for one mode */
struct uk {
	struct hit_uk *skel;
	struct bpf_program *count, *read3, *floor;
	struct hit_uk__bss *bss;
};

static struct uk ukm_, ukp_, *ukm = &ukm_, *ukp = &ukp_;	/* multi, perf */
static struct hit_libbpf *lb;
static char self[4096];

struct result {
	double ns[64];		/* per iteration */
	int done;
	unsigned long hits, bad;	/* summed over the reps */
	long last[3];
	double med;
};

static void uk_destroy(struct uk *u)
{
	hit_uk__destroy(u->skel);
	u->skel = NULL;
}

static int uk_load(struct uk *u, enum usdtkit_mode mode)
{
	struct hit_uk *a = hit_uk__open();
	int err;

	if (!a)
		return -errno;
	err = usdtkit_prog_prepare(a->progs.uk_count, mode);
	err = err ? err : usdtkit_prog_prepare(a->progs.uk_read3, mode);
	err = err ? err : usdtkit_prog_prepare(a->progs.uk_floor, mode);
	err = err ? err : hit_uk__load(a);
	if (err) {
		hit_uk__destroy(a);
		return err;
	}
	*u = (struct uk){ a, a->progs.uk_count, a->progs.uk_read3, a->progs.uk_floor,
			  a->bss };
	return 0;
}

static void reset_counters(void)
{
	ukm->bss->hits = ukm->bss->bad = 0;
	ukp->bss->hits = ukp->bss->bad = 0;
	lb->bss->hits = lb->bss->bad = 0;
}

/* attach, run the loop M times, detach; per-iteration ns in *ns */
static int run(int sc, long m, double *ns, struct result *res)
{
	struct usdtkit_link *ul = NULL;
	struct bpf_link *bl = NULL;
	struct bpf_program *p = NULL;
	const long *last = NULL;
	unsigned long *hits = NULL, *bad = NULL;
	double t0;
	LIBBPF_OPTS(usdtkit_attach_opts, o, .print = uk_print);

	reset_counters();
	switch (sc) {
	case S_NONE:
		break;
	case S_UK_COUNT:
	case S_UK_READ:
	case S_UK5_COUNT:
	case S_UK5_READ:
		p = sc == S_UK_COUNT || sc == S_UK5_COUNT ? ukm->count
							  : ukm->read3;
		o.mode = USDTKIT_MODE_MULTI;
		o.use_nop5 = sc == S_UK5_COUNT || sc == S_UK5_READ;
		hits = &ukm->bss->hits, bad = &ukm->bss->bad, last = ukm->bss->last;
		ul = usdtkit_attach(p, 0, self, "hit", "hot", &o);
		if (!ul)
			return -errno;
		break;
	case S_UK_FLOOR:
		o.mode = USDTKIT_MODE_MULTI;
		hits = &ukm->bss->hits, bad = &ukm->bss->bad, last = NULL;
		ul = usdtkit_attach(ukm->floor, 0, self, "hit", "hot", &o);
		if (!ul)
			return -errno;
		break;
	case S_UKP_COUNT:
	case S_UKP_READ:
		p = sc == S_UKP_COUNT ? ukp->count : ukp->read3;
		o.mode = USDTKIT_MODE_PERF;
		hits = &ukp->bss->hits, bad = &ukp->bss->bad, last = ukp->bss->last;
		ul = usdtkit_attach(p, 0, self, "hit", "hot", &o);
		if (!ul)
			return -errno;
		break;
	case S_LB_COUNT:
	case S_LB_READ:
		p = sc == S_LB_COUNT ? lb->progs.lb_count : lb->progs.lb_read3;
		hits = &lb->bss->hits, bad = &lb->bss->bad, last = lb->bss->last;
		bl = bpf_program__attach_usdt(p, getpid(), self, "hit", "hot", NULL);
		if (!bl)
			return -errno;
		break;
	}
	t0 = now_ns();
	hot_loop(m);
	*ns = (now_ns() - t0) / (double)m;
	usdtkit_link_destroy(ul);
	bpf_link__destroy(bl);
	if (hits) {
		res->hits += *hits;
		res->bad += *bad;
		if (last)
			memcpy(res->last, last, sizeof(res->last));
		if (*hits != (unsigned long)m)
			fprintf(stderr, "%s: %lu hits, want %ld\n", sname[sc], *hits, m);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct result res[NS];
	long m = 200000;
	int reps = 7, i, r, sc, err;
	const char *json = NULL;
	ssize_t n;
	FILE *jf;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else if (!strcmp(argv[i], "--hits") && i + 1 < argc)
			m = atol(argv[++i]);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json = argv[++i];
		else {
			fprintf(stderr, "usage: hit_bench [--hits M] [--reps N] "
				"[--json FILE] [-v]\n");
			return 2;
		}
	}
	if (m < 1 || reps < 1 || reps > 64)
		return 2;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = 0;
	libbpf_set_print(libbpf_print);
	lb = hit_libbpf__open_and_load();
	if (!lb) {
		fprintf(stderr, "loading the libbpf program: %s\n", strerror(errno));
		return 1;
	}
	err = uk_load(ukm, USDTKIT_MODE_MULTI);
	err = err ? err : uk_load(ukp, USDTKIT_MODE_PERF);
	if (err) {
		fprintf(stderr, "loading the usdtkit programs: %s\n", strerror(-err));
		return 1;
	}
	printf("hits per measurement %ld, reps %d, usdtkit_features()->uprobe_syscall: %s\n",
	       m, reps, usdtkit_features()->uprobe_syscall ? "yes" : "no");
	hot_loop(m);	/* warm up */
	for (r = 0; r < reps; r++)
		for (i = 0; i < NS; i++) {
			double ns = 0;

			sc = (i + r) % NS;
			err = run(sc, m, &ns, &res[sc]);
			if (err) {
				fprintf(stderr, "%s: %s\n", sname[sc], strerror(-err));
				return 1;
			}
			res[sc].ns[res[sc].done++] = ns;
			if (verbose)
				fprintf(stderr, "rep %d %-22s %.1f ns/iter\n", r, sname[sc], ns);
		}
	for (sc = 0; sc < NS; sc++)
		res[sc].med = median(res[sc].ns, res[sc].done);

	printf("\n| scenario | ns per iteration | hit ns (minus none) | bad hits | last a, b, c |\n");
	printf("| --- | ---: | ---: | ---: | --- |\n");
	for (sc = 0; sc < NS; sc++) {
		struct result *x = &res[sc];

		if (sc == S_NONE)
			printf("| %s | %.1f | - | - | - |\n", sname[sc], x->med);
		else if (strstr(sname[sc], "count"))	/* reads nothing */
			printf("| %s | %.1f | %.1f | - | - |\n", sname[sc], x->med,
			       x->med - res[S_NONE].med);
		else
			printf("| %s | %.1f | %.1f | %lu / %lu | %ld, %ld, %ld |\n", sname[sc],
			       x->med, x->med - res[S_NONE].med, x->bad, x->hits,
			       x->last[0], x->last[1], x->last[2]);
	}
	{
		double uk = res[S_UK_READ].med - res[S_UK_COUNT].med;
		double ukp_ = res[S_UKP_READ].med - res[S_UKP_COUNT].med;
		double uk5 = res[S_UK5_READ].med - res[S_UK5_COUNT].med;
		double lbr = res[S_LB_READ].med - res[S_LB_COUNT].med;
		double floor_ = res[S_UK_FLOOR].med - res[S_UK_COUNT].med;

		printf("\nexpected last values: %ld, %ld, %ld\n", m - 1, 3 * (m - 1) + 1,
		       7 * (m - 1) + 2);
		printf("\n| reading 3 args (read3 - count) | ns per hit |\n| --- | ---: |\n");
		printf("| libbpf BPF_USDT (perf uprobe) | %.1f |\n", lbr);
		printf("| usdtkit (multi) | %.1f |\n", uk);
		printf("| usdtkit (perf) | %.1f |\n", ukp_);
		printf("| usdtkit (multi, nop5) | %.1f |\n", uk5);
		printf("| floor: spec lookup + 2 user reads, no decoding (multi) | %.1f |\n",
		       floor_);
		printf("\nratio libbpf / usdtkit reading cost: multi %.2fx, perf %.2fx\n",
		       lbr / uk, lbr / ukp_);
		printf("target: usdtkit reading cost at most half of libbpf's: %s "
		       "(multi %.1f vs %.1f ns)\n",
		       uk <= lbr / 2 && ukp_ <= lbr / 2 ? "met" : "NOT met", uk, lbr);
		if (json && (jf = fopen(json, "w"))) {
			fprintf(jf, "{\"hits\": %ld, \"reps\": %d, \"ns_per_iter\": {", m, reps);
			for (sc = 0; sc < NS; sc++)
				fprintf(jf, "%s\"%s\": %.2f", sc ? ", " : "", skey[sc],
					res[sc].med);
			fprintf(jf, "}, \"bad\": {");
			for (sc = 1; sc < NS; sc++)
				fprintf(jf, "%s\"%s\": %lu", sc > 1 ? ", " : "", skey[sc],
					res[sc].bad);
			fprintf(jf, "}, \"read_ns\": {\"libbpf\": %.2f, \"usdtkit_multi\": %.2f, "
				"\"usdtkit_perf\": %.2f, \"usdtkit_nop5\": %.2f}}\n",
				lbr, uk, ukp_, uk5);
			fclose(jf);
		}
	}
	uk_destroy(ukm);
	uk_destroy(ukp);
	hit_libbpf__destroy(lb);
	return 0;
}
