// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Per-hit cost of three hot USDT probes, fired M times in loops of this
 * very process, timed with clock_gettime and by the kernel's bpf_stats
 * (run time of each program run):
 *
 *   hit:hot   a register, a stack slot in the red zone, a global through a
 *             pointer register (two user-memory reads, different bases)
 *   hit:reg   three registers (what gcc -O2 makes of most probes)
 *   hit:real  6 arguments as real code has them: two registers, three
 *             neighbouring stack slots, a global through a pointer (four
 *             user-memory reads alone, two when the slots are grouped)
 *
 * Scenarios (nop5, the floor and the pieces on hit:hot only):
 *
 *   none            no probe attached
 *   usdtkit count   a program that only counts hits (multi link)
 *   usdtkit read    all the arguments, coalesced: usdtkit_spec_args() (as
 *                   USDTKIT_PROBE reads them) (multi link)
 *   usdtkit read nc the same, coalescing off: usdtkit_spec_arg() each
 *   usdtkit read simple  usdtkit read, built with USDTKIT_ARGS_SIMPLE
 *   usdtkit perf count / read / read nc   the same through perf uprobes
 *   usdtkit nop5 count / read     multi link at the nop5 (opts.use_nop5)
 *   usdtkit cookie / lookup / read1   count + bpf_get_attach_cookie(),
 *                   + the spec lookup, + argument 1 (one user read)
 *   libbpf count    SEC("usdt") that only counts (perf-event uprobe)
 *   libbpf read     BPF_USDT from <bpf/usdt.bpf.h> reading the arguments
 *
 * hit ns = (loop time with the probe - loop time without) / M;
 * reading ns = hit(read) - hit(count) with the same attachment.
 * Every read program checks each hit against the values the loop passed
 * and the bad hits are reported. Needs root.
 *
 *   hit_bench [--hits M] [--reps N] [--probes hot,reg,real] [--json FILE] [-v]
 *   hit_bench --insns      load the readers, print what the verifier
 *                          processed for each, and exit
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <usdtkit/attach.h>

#include "bench_print.h"
#include "bench_stats.h"
#include "hit_libbpf.skel.h"
#include "hit_uk.skel.h"
#include "hit_uks.skel.h"

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

/*
 * What a real probe looks like: 6 arguments, 2 in registers, 3 in
 * neighbouring stack slots (gcc puts these locals next to each other
 * below %rsp), 1 global through a pointer register.
 */
__attribute__((noinline)) void real_loop(long m)
{
	volatile int s1;
	volatile long s2, s3;
	long *gp = &g_glob, i, x;

	__asm__("" : "+r"(gp));
	for (i = 0; i < m; i++) {
		s1 = (int)(-i - 1);
		s2 = 3 * i + 1;
		s3 = -(7 * i + 2);
		x = 11 * i + 4;
		*gp = 13 * i + 5;
		__asm__ __volatile__(STAP_PROBE_ASM(hit, real, STAP_PROBE_ASM_TEMPLATE(6))
				     :: HB_ARG(1, i, "r"), HB_ARG(2, s1, "m"),
					HB_ARG(3, s2, "m"), HB_ARG(4, s3, "m"),
					HB_ARG(5, x, "r"), HB_ARG(6, *gp, "m"));
	}
}

/*
 * The same three values, all in registers: what gcc -O2 makes of most
 * probes (the common form in tests/corpus). Here usdtkit reads
 * nothing from user memory, so the reading cost is decoding alone.
 */
__attribute__((noinline)) void reg_loop(long m)
{
	long i, b, c;

	for (i = 0; i < m; i++) {
		b = 3 * i + 1;
		c = 7 * i + 2;
		__asm__ __volatile__(STAP_PROBE_ASM(hit, reg, STAP_PROBE_ASM_TEMPLATE(3))
				     :: HB_ARG(1, i, "r"), HB_ARG(2, b, "r"),
					HB_ARG(3, c, "r"));
	}
}

/* ---- helpers ---- */


static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ---- scenarios ---- */

enum {
	S_NONE,
	S_UK_COUNT, S_UK_READ, S_UK_READ_NC, S_UK_READ_S, S_UK_FLOOR,
	S_UK_COOKIE, S_UK_LOOKUP, S_UK_READ1,
	S_UKP_COUNT, S_UKP_READ, S_UKP_READ_NC,
	S_UK5_COUNT, S_UK5_READ,
	S_LB_COUNT, S_LB_READ,
	NS
};
static const char *const sname[NS] = {
	[S_NONE] = "none",
	[S_UK_COUNT] = "usdtkit multi count", [S_UK_READ] = "usdtkit multi read",
	[S_UK_READ_NC] = "usdtkit multi read, coalescing off",
	[S_UK_READ_S] = "usdtkit multi read, USDTKIT_ARGS_SIMPLE",
	[S_UK_FLOOR] = "floor: lookup + 2 user reads",
	[S_UK_COOKIE] = "usdtkit multi count + cookie",
	[S_UK_LOOKUP] = "usdtkit multi count + cookie + spec lookup",
	[S_UK_READ1] = "usdtkit multi count + cookie + spec lookup + arg 1",
	[S_UKP_COUNT] = "usdtkit perf count", [S_UKP_READ] = "usdtkit perf read",
	[S_UKP_READ_NC] = "usdtkit perf read, coalescing off",
	[S_UK5_COUNT] = "usdtkit nop5 count", [S_UK5_READ] = "usdtkit nop5 read",
	[S_LB_COUNT] = "libbpf count", [S_LB_READ] = "libbpf read",
};
static const char *const skey[NS] = {
	[S_NONE] = "none",
	[S_UK_COUNT] = "uk_count", [S_UK_READ] = "uk_read", [S_UK_READ_NC] = "uk_read_nc",
	[S_UK_READ_S] = "uk_read_simple",
	[S_UK_FLOOR] = "uk_floor", [S_UK_COOKIE] = "uk_cookie", [S_UK_LOOKUP] = "uk_lookup",
	[S_UK_READ1] = "uk_read1",
	[S_UKP_COUNT] = "uk_perf_count", [S_UKP_READ] = "uk_perf_read",
	[S_UKP_READ_NC] = "uk_perf_read_nc",
	[S_UK5_COUNT] = "uk_nop5_count", [S_UK5_READ] = "uk_nop5_read",
	[S_LB_COUNT] = "lb_count", [S_LB_READ] = "lb_read",
};

/* hit_uk loaded for one mode */
struct uk {
	struct hit_uk *skel;
	struct bpf_program *count, *read3, *read3nc, *read6, *read6nc, *floor;
	struct bpf_program *cookie, *lookup, *read1;
	struct hit_uk__bss *bss;
};

static struct uk ukm_, ukp_, *ukm = &ukm_, *ukp = &ukp_;	/* multi, perf */

/* hit_uks (hit_uk.bpf.c built with USDTKIT_ARGS_SIMPLE), multi only */
static struct hit_uks *uks;
static struct hit_libbpf *lb;
static char self[4096];

struct result {
	double ns[64];		/* per iteration */
	int done;
	unsigned long hits, bad;	/* summed over the reps */
	long last[6];
	double med;
	double kns[64];		/* kernel bpf_stats: ns per program run */
	int kdone;
	double kmed;
};

/* the kernel's run_time_ns and run_cnt of @p (bpf_stats on) */
static void prog_stats(const struct bpf_program *p, unsigned long long *ns,
		       unsigned long long *cnt)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	*ns = *cnt = 0;
	if (!bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len)) {
		*ns = info.run_time_ns;
		*cnt = info.run_cnt;
	}
}

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
	*u = (struct uk){ a, a->progs.uk_count, a->progs.uk_read3, a->progs.uk_read3_nc,
			  a->progs.uk_read6, a->progs.uk_read6_nc, a->progs.uk_floor,
			  a->progs.uk_cookie, a->progs.uk_lookup, a->progs.uk_read1, NULL };
	err = usdtkit_prog_prepare(u->count, mode);
	err = err ? err : usdtkit_prog_prepare(u->read3, mode);
	err = err ? err : usdtkit_prog_prepare(u->read3nc, mode);
	err = err ? err : usdtkit_prog_prepare(u->read6, mode);
	err = err ? err : usdtkit_prog_prepare(u->read6nc, mode);
	err = err ? err : usdtkit_prog_prepare(u->floor, mode);
	err = err ? err : usdtkit_prog_prepare(u->cookie, mode);
	err = err ? err : usdtkit_prog_prepare(u->lookup, mode);
	err = err ? err : usdtkit_prog_prepare(u->read1, mode);
	err = err ? err : hit_uk__load(a);
	if (err) {
		hit_uk__destroy(a);
		u->skel = NULL;
		return err;
	}
	u->bss = a->bss;
	return 0;
}

static int uks_load(void)
{
	struct hit_uks *a = hit_uks__open();
	struct bpf_program *p;
	int err = 0;

	if (!a)
		return -errno;
	bpf_object__for_each_program(p, a->obj)
		err = err ? err : usdtkit_prog_prepare(p, USDTKIT_MODE_MULTI);
	err = err ? err : hit_uks__load(a);
	if (err) {
		hit_uks__destroy(a);
		return err;
	}
	uks = a;
	return 0;
}

static void reset_counters(void)
{
	ukm->bss->hits = ukm->bss->bad = 0;
	uks->bss->hits = uks->bss->bad = 0;
	ukp->bss->hits = ukp->bss->bad = 0;
	lb->bss->hits = lb->bss->bad = 0;
}

/* the probes: hit:hot (register, red-zone stack slot, global through a
 * pointer), hit:reg (three registers) and hit:real (6 arguments) */
enum { P_HOT, P_REG, P_REAL, NP };
static const char *const pname[NP] = { "hot", "reg", "real" };
static const int pargs[NP] = { 3, 3, 6 };
static void (*const ploop[NP])(long) = { hot_loop, reg_loop, real_loop };

/* the probes measured (--probes): bit P_* */
static unsigned int probe_set = (1U << NP) - 1;

/* nop5, the floor and the pieces are about hit:hot's memory arguments */
static bool runs_on(int sc, int pr)
{
	if (!(probe_set & (1U << pr)))
		return false;
	switch (sc) {
	case S_UK_FLOOR:
	case S_UK_COOKIE:
	case S_UK_LOOKUP:
	case S_UK_READ1:
	case S_UK5_COUNT:
	case S_UK5_READ:
		return pr == P_HOT;
	}
	return true;
}

/* "hot,reg" -> the bits of those probes; 0 if a name is unknown */
static unsigned int parse_probes(const char *list)
{
	unsigned int set = 0;
	const char *p = list;
	int pr;

	while (*p) {
		size_t n = strcspn(p, ",");

		for (pr = 0; pr < NP; pr++)
			if (strlen(pname[pr]) == n && !strncmp(p, pname[pr], n))
				break;
		if (pr == NP)
			return 0;
		set |= 1U << pr;
		p += n + (p[n] == ',');
	}
	return set;
}

/* the reader of probe @pr in @u: coalesced or not (@nc) */
static struct bpf_program *uk_reader(const struct uk *u, int pr, bool nc)
{
	if (pr == P_REAL)
		return nc ? u->read6nc : u->read6;
	return nc ? u->read3nc : u->read3;
}

/* attach, run the loop M times, detach; per-iteration ns in *ns */
static int run(int sc, int pr, long m, double *ns, struct result *res)
{
	const char *probe = pname[pr];
	struct usdtkit_link *ul = NULL;
	struct bpf_link *bl = NULL;
	struct bpf_program *p = NULL;
	const long *last = NULL;
	unsigned long *hits = NULL, *bad = NULL;
	unsigned long long k0 = 0, c0 = 0, k1, c1;
	double t0;
	USDTKIT_OPTS(usdtkit_attach_opts, o, .print = uk_print);

	reset_counters();
	switch (sc) {
	case S_NONE:
		break;
	case S_UK_COUNT:
	case S_UK_READ:
	case S_UK_READ_NC:
	case S_UK5_COUNT:
	case S_UK5_READ:
		p = sc == S_UK_COUNT || sc == S_UK5_COUNT ? ukm->count
							  : uk_reader(ukm, pr, sc == S_UK_READ_NC);
		o.mode = USDTKIT_MODE_MULTI;
		o.use_nop5 = sc == S_UK5_COUNT || sc == S_UK5_READ;
		hits = &ukm->bss->hits, bad = &ukm->bss->bad, last = ukm->bss->last;
		ul = usdtkit_attach(p, 0, self, "hit", probe, &o);
		if (!ul)
			return -errno;
		break;
	case S_UK_READ_S:
		p = pr == P_REAL ? uks->progs.uk_read6 : uks->progs.uk_read3;
		o.mode = USDTKIT_MODE_MULTI;
		hits = &uks->bss->hits, bad = &uks->bss->bad, last = uks->bss->last;
		ul = usdtkit_attach(p, 0, self, "hit", probe, &o);
		if (!ul)
			return -errno;
		break;
	case S_UK_FLOOR:
	case S_UK_COOKIE:
	case S_UK_LOOKUP:
	case S_UK_READ1:
		o.mode = USDTKIT_MODE_MULTI;
		hits = &ukm->bss->hits, bad = &ukm->bss->bad, last = NULL;
		p = sc == S_UK_FLOOR ? ukm->floor : sc == S_UK_COOKIE ? ukm->cookie :
		    sc == S_UK_LOOKUP ? ukm->lookup : ukm->read1;
		ul = usdtkit_attach(p, 0, self, "hit", probe, &o);
		if (!ul)
			return -errno;
		break;
	case S_UKP_COUNT:
	case S_UKP_READ:
	case S_UKP_READ_NC:
		p = sc == S_UKP_COUNT ? ukp->count : uk_reader(ukp, pr, sc == S_UKP_READ_NC);
		o.mode = USDTKIT_MODE_PERF;
		hits = &ukp->bss->hits, bad = &ukp->bss->bad, last = ukp->bss->last;
		ul = usdtkit_attach(p, 0, self, "hit", probe, &o);
		if (!ul)
			return -errno;
		break;
	case S_LB_COUNT:
	case S_LB_READ:
		p = sc == S_LB_COUNT ? lb->progs.lb_count :
		    pr == P_REAL ? lb->progs.lb_read6 : lb->progs.lb_read3;
		hits = &lb->bss->hits, bad = &lb->bss->bad, last = lb->bss->last;
		bl = bpf_program__attach_usdt(p, getpid(), self, "hit", probe, NULL);
		if (!bl)
			return -errno;
		break;
	}
	if (p)
		prog_stats(p, &k0, &c0);
	t0 = now_ns();
	ploop[pr](m);
	*ns = (now_ns() - t0) / (double)m;
	if (p) {
		prog_stats(p, &k1, &c1);
		if (c1 > c0)
			res->kns[res->kdone++] = (double)(k1 - k0) / (double)(c1 - c0);
	}
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

/* reading cost of each reader: read (or floor) minus count, by wall
 * clock [0] and by the kernel's run time of the program [1] */
enum { R_LB, R_UK, R_UKP, R_UK_NC, R_UKP_NC, R_UK_S, R_UK5, R_FLOOR, NR };
static const int r_read[NR] = { S_LB_READ, S_UK_READ, S_UKP_READ, S_UK_READ_NC,
				S_UKP_READ_NC, S_UK_READ_S, S_UK5_READ, S_UK_FLOOR };
static const int r_count[NR] = { S_LB_COUNT, S_UK_COUNT, S_UKP_COUNT, S_UK_COUNT,
				 S_UKP_COUNT, S_UK_COUNT, S_UK5_COUNT, S_UK_COUNT };
static const char *const rname[NR] = {
	"libbpf BPF_USDT (perf uprobe)", "usdtkit (multi)", "usdtkit (perf)",
	"usdtkit (multi), coalescing off", "usdtkit (perf), coalescing off",
	"usdtkit (multi), USDTKIT_ARGS_SIMPLE", "usdtkit (multi, nop5)", "floor: spec lookup + 2 user reads, no decoding (multi)",
};
static const char *const rkey[NR] = {
	"libbpf", "usdtkit_multi", "usdtkit_perf", "usdtkit_multi_nc", "usdtkit_perf_nc",
	"usdtkit_multi_simple", "usdtkit_nop5", "floor",
};

static void ratio(const char *what, double lb, double uk)
{
	if (uk <= 0)
		printf("%s: usdtkit %.1f ns (no cost above noise), libbpf %.1f ns", what, uk, lb);
	else
		printf("%s: %.2fx", what, lb / uk);
}

/*
 * hit:hot, piece by piece (kernel ns per run, medians): each program is
 * the one above plus one piece; the last line is the whole coalesced read.
 */
static void report_pieces(const struct result *res)
{
	static const int sc[] = { S_UK_COUNT, S_UK_COOKIE, S_UK_LOOKUP, S_UK_READ1, S_UK_READ };
	static const char *const what[] = {
		"count only", "+ bpf_get_attach_cookie()", "+ spec lookup (array map)",
		"+ argument 1: decode, bpf_probe_read_user() of the stack slot",
		"+ argument 0 (register) and 2 (global: a second bpf_probe_read_user())",
	};
	size_t i;

	printf("\n| hit:hot, piece by piece (multi) | wall ns per hit | added | kernel ns "
	       "per run | added |\n| --- | ---: | ---: | ---: | ---: |\n");
	for (i = 0; i < sizeof(sc) / sizeof(sc[0]); i++)
		printf("| %s | %.1f | %.1f | %.1f | %.1f |\n", what[i],
		       res[sc[i]].med - res[S_NONE].med,
		       i ? res[sc[i]].med - res[sc[i - 1]].med : 0,
		       res[sc[i]].kmed, i ? res[sc[i]].kmed - res[sc[i - 1]].kmed : 0);
}

/* the scenario table and the reading costs of one probe */
static void report(int pr, const struct result *res, long m, double rd[2][NR])
{
	int sc, k;

	printf("\n### hit:%s\n\n| scenario | ns per iteration | hit ns (minus none) | kernel ns "
	       "per run | bad hits | last values |\n| --- | ---: | ---: | ---: | ---: | --- |\n",
	       pname[pr]);
	for (sc = 0; sc < NS; sc++) {
		const struct result *x = &res[sc];

		if (!runs_on(sc, pr))
			continue;
		if (sc == S_NONE)
			printf("| %s | %.1f | - | - | - | - |\n", sname[sc], x->med);
		else if (strstr(sname[sc], "count"))	/* reads nothing */
			printf("| %s | %.1f | %.1f | %.1f | - | - |\n", sname[sc], x->med,
			       x->med - res[S_NONE].med, x->kmed);
		else if (pargs[pr] == 6)
			printf("| %s | %.1f | %.1f | %.1f | %lu / %lu | %ld, %ld, %ld, %ld, "
			       "%ld, %ld |\n", sname[sc], x->med, x->med - res[S_NONE].med,
			       x->kmed, x->bad, x->hits, x->last[0], x->last[1], x->last[2],
			       x->last[3], x->last[4], x->last[5]);
		else
			printf("| %s | %.1f | %.1f | %.1f | %lu / %lu | %ld, %ld, %ld |\n",
			       sname[sc], x->med, x->med - res[S_NONE].med, x->kmed, x->bad,
			       x->hits, x->last[0], x->last[1], x->last[2]);
	}
	for (k = 0; k < NR; k++) {
		rd[0][k] = res[r_read[k]].med - res[r_count[k]].med;
		rd[1][k] = res[r_read[k]].kmed - res[r_count[k]].kmed;
	}
	if (pargs[pr] == 6)
		printf("\nexpected last values: %ld, %ld, %ld, %ld, %ld, %ld\n", m - 1, -m,
		       3 * (m - 1) + 1, -(7 * (m - 1) + 2), 11 * (m - 1) + 4,
		       13 * (m - 1) + 5);
	else
		printf("\nexpected last values: %ld, %ld, %ld\n", m - 1, 3 * (m - 1) + 1,
		       7 * (m - 1) + 2);
	printf("\n| hit:%s: reading %d args (read - count) | wall ns per hit | kernel ns "
	       "per run |\n| --- | ---: | ---: |\n", pname[pr], pargs[pr]);
	for (k = 0; k < NR; k++)
		if (runs_on(r_read[k], pr))
			printf("| %s | %.1f | %.1f |\n", rname[k], rd[0][k], rd[1][k]);
	printf("\nhit:%s: libbpf / usdtkit reading cost: ", pname[pr]);
	ratio("multi (wall)", rd[0][R_LB], rd[0][R_UK]);
	ratio(", perf (wall)", rd[0][R_LB], rd[0][R_UKP]);
	ratio(", multi (kernel)", rd[1][R_LB], rd[1][R_UK]);
	ratio(", perf (kernel)", rd[1][R_LB], rd[1][R_UKP]);
	printf("\nhit:%s: coalescing off / on, kernel: multi %.2fx, perf %.2fx", pname[pr],
	       rd[1][R_UK] > 0 ? rd[1][R_UK_NC] / rd[1][R_UK] : 0,
	       rd[1][R_UKP] > 0 ? rd[1][R_UKP_NC] / rd[1][R_UKP] : 0);
	printf("\nhit:%s: usdtkit / libbpf, kernel: multi %.2f, perf %.2f (target <= 0.50)",
	       pname[pr], rd[1][R_LB] > 0 ? rd[1][R_UK] / rd[1][R_LB] : 0,
	       rd[1][R_LB] > 0 ? rd[1][R_UKP] / rd[1][R_LB] : 0);
	printf("\nhit:%s: at most half of libbpf's: wall %s, kernel %s\n", pname[pr],
	       rd[0][R_UK] <= rd[0][R_LB] / 2 && rd[0][R_UKP] <= rd[0][R_LB] / 2 ? "met" : "NOT met",
	       rd[1][R_UK] <= rd[1][R_LB] / 2 && rd[1][R_UKP] <= rd[1][R_LB] / 2 ? "met" : "NOT met");
	if (pr == P_HOT)
		report_pieces(res);
}

/* what the verifier processed to load each reader (bpf_prog_info) */
static void report_verifier(void)
{
	const struct bpf_program *p[] = {
		ukm->read3, ukm->read3nc, ukm->read6, ukm->read6nc, ukp->read3, ukp->read6,
		uks->progs.uk_read3, uks->progs.uk_read3_nc, uks->progs.uk_read6,
		uks->progs.uk_read6_nc, lb->progs.lb_read3, lb->progs.lb_read6,
	};
	static const char *const what[] = {
		"usdtkit uk_read3 (USDTKIT_PROBE, coalesced), multi",
		"usdtkit uk_read3_nc (coalescing off), multi",
		"usdtkit uk_read6 (usdtkit_spec_args), multi",
		"usdtkit uk_read6_nc (coalescing off), multi",
		"usdtkit uk_read3, perf", "usdtkit uk_read6, perf",
		"usdtkit uk_read3, USDTKIT_ARGS_SIMPLE",
		"usdtkit uk_read3_nc, USDTKIT_ARGS_SIMPLE",
		"usdtkit uk_read6, USDTKIT_ARGS_SIMPLE",
		"usdtkit uk_read6_nc, USDTKIT_ARGS_SIMPLE",
		"libbpf lb_read3 (BPF_USDT)", "libbpf lb_read6 (BPF_USDT)",
	};
	size_t i;

	printf("\n| program | verifier: processed insns | xlated insns |\n| --- | ---: | ---: |\n");
	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(p[i]), &info, &len))
			continue;
		printf("| %s | %u | %u |\n", what[i], info.verified_insns,
		       info.xlated_prog_len / 8);
	}
}

static void write_json(const char *path, struct result res[NP][NS],
		       double rd[NP][2][NR], long m, int reps)
{
	FILE *jf = fopen(path, "w");
	const char *sep;
	int pr, sc, k;

	if (!jf)
		return;
	fprintf(jf, "{\"hits\": %ld, \"reps\": %d", m, reps);
	for (pr = 0; pr < NP; pr++) {
		fprintf(jf, ", \"%s\": {\"ns_per_iter\": {", pname[pr]);
		for (sep = "", sc = 0; sc < NS; sc++)
			if (runs_on(sc, pr)) {
				fprintf(jf, "%s\"%s\": %.2f", sep, skey[sc], res[pr][sc].med);
				sep = ", ";
			}
		fprintf(jf, "}, \"kernel_ns_per_run\": {");
		for (sep = "", sc = 1; sc < NS; sc++)
			if (runs_on(sc, pr)) {
				fprintf(jf, "%s\"%s\": %.2f", sep, skey[sc], res[pr][sc].kmed);
				sep = ", ";
			}
		fprintf(jf, "}, \"bad\": {");
		for (sep = "", sc = 1; sc < NS; sc++)
			if (runs_on(sc, pr)) {
				fprintf(jf, "%s\"%s\": %lu", sep, skey[sc], res[pr][sc].bad);
				sep = ", ";
			}
		fprintf(jf, "}, \"read_ns\": {");
		for (sep = "", k = 0; k < NR; k++)
			if (runs_on(r_read[k], pr)) {
				fprintf(jf, "%s\"%s\": [%.2f, %.2f]", sep, rkey[k], rd[pr][0][k],
					rd[pr][1][k]);
				sep = ", ";
			}
		fprintf(jf, "}}");
	}
	fprintf(jf, "}\n");
	fclose(jf);
}

int main(int argc, char **argv)
{
	static struct result res[NP][NS];
	double rd[NP][2][NR];
	int stats_fd;
	long m = 200000;
	int reps = 7, i, r, sc, pr, err, insns_only = 0;
	const char *json = NULL;
	ssize_t n;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else if (!strcmp(argv[i], "--insns"))
			insns_only = 1;
		else if (!strcmp(argv[i], "--hits") && i + 1 < argc)
			m = atol(argv[++i]);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json = argv[++i];
		else if (!strcmp(argv[i], "--probes") && i + 1 < argc)
			probe_set = parse_probes(argv[++i]);
		else {
			fprintf(stderr, "usage: hit_bench [--hits M] [--reps N] "
				"[--probes hot,reg,real] [--json FILE] [-v] | --insns\n");
			return 2;
		}
	}
	if (m < 1 || reps < 1 || reps > 64 || !probe_set)
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
	err = err ? err : uks_load();
	if (err) {
		fprintf(stderr, "loading the usdtkit programs: %s\n", strerror(-err));
		return 1;
	}
	if (insns_only) {
		report_verifier();
		goto out;
	}
	/* the kernel times every program run while this fd is open; the
	 * cost (two clock reads per run) is the same for every program */
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0)
		fprintf(stderr, "bpf_enable_stats: %s (kernel columns stay 0)\n",
			strerror(errno));
	printf("hits per measurement %ld, reps %d, usdtkit_features()->uprobe_syscall: %s\n",
	       m, reps, usdtkit_features()->uprobe_syscall ? "yes" : "no");
	hot_loop(m);	/* warm up */
	reg_loop(m);
	real_loop(m);
	/* scenarios and probes interleaved, starting elsewhere each rep, so
	 * that load on the machine hits all of them alike */
	for (r = 0; r < reps; r++)
		for (i = 0; i < NS * NP; i++) {
			double ns = 0;

			sc = (i + r) % NS;
			pr = (i / NS + r) % NP;
			if (!runs_on(sc, pr))
				continue;
			err = run(sc, pr, m, &ns, &res[pr][sc]);
			if (err) {
				fprintf(stderr, "hit:%s %s: %s\n", pname[pr], sname[sc],
					strerror(-err));
				return 1;
			}
			res[pr][sc].ns[res[pr][sc].done++] = ns;
			if (verbose)
				fprintf(stderr, "rep %d hit:%s %-22s %.1f ns/iter\n", r,
					pname[pr], sname[sc], ns);
		}
	for (pr = 0; pr < NP; pr++) {
		for (sc = 0; sc < NS; sc++) {
			res[pr][sc].med = median(res[pr][sc].ns, res[pr][sc].done);
			res[pr][sc].kmed = median(res[pr][sc].kns, res[pr][sc].kdone);
		}
		if (probe_set & (1U << pr))
			report(pr, res[pr], m, rd[pr]);
	}
	report_verifier();
	if (json)
		write_json(json, res, rd, m, reps);
	if (stats_fd >= 0)
		close(stats_fd);
out:
	hit_uks__destroy(uks);
	uk_destroy(ukm);
	uk_destroy(ukp);
	hit_libbpf__destroy(lb);
	return 0;
}
