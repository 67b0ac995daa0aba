// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * parse_bench: usdtkit_args_parse() against a libbpf-style sscanf() parser
 * (sscanf_baseline.c) over the real specs of the corpus (tests/corpus).
 *
 * Every distinct (arch, args string) row of specs.tsv is parsed once per
 * pass, whatever its count column says. For each Debian arch and for the
 * whole corpus, both parsers are timed in the same run, in alternating
 * order, over many rounds; each round repeats the pass K times so that it
 * lasts at least --round-ms. The report gives the median ns per argument
 * of each parser, their ratio, and how many arguments each failed to
 * decode.
 *
 * --once --parser usdtkit|sscanf parses the corpus exactly once with one
 * parser and calls no parser anywhere else, so that
 * valgrind --tool=callgrind --toggle-collect=usdtkit_args_parse (or
 * sb_args_parse) counts exactly one pass (see run_callgrind.sh).
 */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L	/* getline, clock_gettime */
#endif

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <usdtkit/usdtkit.h>

#include "sscanf_baseline.h"
#include "arch_table.h"

#include "bench_stats.h"

#ifndef PARSE_BENCH_DEFAULT_SPECS
#define PARSE_BENCH_DEFAULT_SPECS "tests/corpus/specs.tsv"
#endif

#define MAX_ARGS 64	/* the corpus has at most 24 per probe */
#define MAX_ROUNDS 1001

struct row {
	char *s;	/* NUL-terminated: the sscanf parser needs that */
	size_t len;
};

struct group {
	const char *deb;	/* Debian arch name in the corpus */
	const char *arch;	/* usdtkit / baseline arch name */
	const struct usdtkit_arch *ua;
	const struct sb_parser *sp;
	struct row *rows;
	size_t nrows, cap;
	bool selected;

	/* from the checking pass */
	uint64_t nargs;		/* arguments according to usdtkit */
	uint64_t sb_nargs;	/* arguments according to the baseline */
	uint64_t status[8];	/* usdtkit status counts */
	uint64_t sb_failed;
	uint64_t both_ok, disagree, off_differs;
	uint64_t uk_only, sb_only;

	/* timing, ns per argument for each round */
	struct timing {
		unsigned k;
		double ns[MAX_ROUNDS];
		double med, min, max;
	} uk, sb;
};

/*
 * One group per Debian arch name of the manifests' "debian" keys (so
 * armhf and armel both measure arm), in registry order. A target that
 * libbpf's sscanf cascade does not know (ppc, mips) is measured for
 * usdtkit alone: its sscanf columns are empty and it stays out of the
 * total, which compares the two parsers on the same arguments.
 */
#define MAX_GROUPS 32
static struct group groups[MAX_GROUPS];
static size_t NGROUPS;

static void make_groups(void)
{
	size_t i;

	for (i = 0; i < USDTKIT_ARCH_INFO_COUNT; i++) {
		const char *d = usdtkit_arch_infos[i].debian;

		while (d && *d && NGROUPS < MAX_GROUPS) {
			size_t n = strcspn(d, " ");

			groups[NGROUPS].deb = strndup(d, n);
			groups[NGROUPS].arch = usdtkit_arch_infos[i].name;
			NGROUPS++;
			d += n + (d[n] == ' ');
		}
	}
}

static struct usdtkit_arg uk_args[MAX_ARGS];
static struct sb_arg sb_args[MAX_ARGS];

/* results fold into this so that no parse can be optimized away */
static volatile uint64_t sink;
/* arguments seen by the parse passes (for --once) */
static uint64_t pass_args;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* corpus                                                             */
/* ------------------------------------------------------------------ */

static struct group *group_by_deb(const char *deb)
{
	size_t i;

	for (i = 0; i < NGROUPS; i++)
		if (strcmp(groups[i].deb, deb) == 0)
			return &groups[i];
	return NULL;
}

static void add_row(struct group *g, const char *s, size_t len)
{
	struct row *r;

	if (g->nrows == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 256;
		g->rows = realloc(g->rows, g->cap * sizeof(*g->rows));
		if (!g->rows) {
			perror("realloc");
			exit(2);
		}
	}
	r = &g->rows[g->nrows++];
	r->s = malloc(len + 1);
	if (!r->s) {
		perror("malloc");
		exit(2);
	}
	memcpy(r->s, s, len);
	r->s[len] = '\0';
	r->len = len;
}

/* arch \t e_machine \t elf_class \t count \t args */
static size_t load_corpus(const char *path, size_t *skipped)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, rows = 0;
	ssize_t n;
	bool header = true;

	if (!f) {
		fprintf(stderr, "parse_bench: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	*skipped = 0;
	while ((n = getline(&line, &cap, f)) >= 0) {
		char *field[5], *p = line;
		struct group *g;
		int i;

		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (header) {
			header = false;
			if (strncmp(line, "arch\t", 5) == 0)
				continue;
		}
		for (i = 0; i < 5; i++) {
			field[i] = p;
			if (i < 4) {
				p = strchr(p, '\t');
				if (!p)
					break;
				*p++ = '\0';
			}
		}
		if (i < 5) {
			fprintf(stderr, "parse_bench: %s: bad row: %s\n", path,
				line);
			exit(2);
		}
		g = group_by_deb(field[0]);
		if (!g) {	/* ppc, mips, sparc: not usdtkit targets */
			(*skipped)++;
			continue;
		}
		add_row(g, field[4], strlen(field[4]));
		rows++;
	}
	free(line);
	fclose(f);
	return rows;
}

/* ------------------------------------------------------------------ */
/* the timed work                                                     */
/* ------------------------------------------------------------------ */

static inline uint64_t fold(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

/* One pass over a group's rows with usdtkit; returns a checksum. */
__attribute__((noinline)) static uint64_t
parse_pass_usdtkit(const struct group *g, unsigned k)
{
	uint64_t h = 0;
	unsigned rep;
	size_t r;
	int i, n;

	for (rep = 0; rep < k; rep++) {
		for (r = 0; r < g->nrows; r++) {
			n = usdtkit_args_parse(g->ua, g->rows[r].s,
					       g->rows[r].len, uk_args,
					       MAX_ARGS);
			pass_args += (uint64_t)n;
			h = fold(h, (uint64_t)n);
			for (i = 0; i < n && i < MAX_ARGS; i++) {
				const struct usdtkit_arg *a = &uk_args[i];

				h = fold(h, ((uint64_t)a->kind << 56 |
					     (uint64_t)a->status << 48 |
					     (uint64_t)a->size << 32 |
					     (uint64_t)(uint16_t)a->reg.offset << 16 |
					     (uint64_t)(uint16_t)a->base.offset) ^
						    (uint64_t)(a->disp + a->value));
			}
		}
	}
	return h;
}

/* The same pass with the sscanf baseline. */
__attribute__((noinline)) static uint64_t
parse_pass_sscanf(const struct group *g, unsigned k)
{
	uint64_t h = 0;
	unsigned rep;
	size_t r;
	int i, n, failed;

	if (!g->sp)
		return 0;
	for (rep = 0; rep < k; rep++) {
		for (r = 0; r < g->nrows; r++) {
			n = sb_args_parse(g->sp, g->rows[r].s, sb_args,
					  MAX_ARGS, &failed);
			pass_args += (uint64_t)n;
			h = fold(h, (uint64_t)n);
			for (i = 0; i < n && i < MAX_ARGS; i++) {
				const struct sb_arg *a = &sb_args[i];

				h = fold(h, ((uint64_t)a->kind << 56 |
					     (uint64_t)a->is_signed << 48 |
					     (uint64_t)a->size << 32 |
					     (uint64_t)(uint16_t)a->reg_off) ^
						    (uint64_t)a->val_off);
			}
		}
	}
	return h;
}

enum parser { P_USDTKIT, P_SSCANF };

/* Run @p over groups [@lo, @hi) @k times; returns elapsed ns. */
static uint64_t timed(enum parser p, size_t lo, size_t hi, unsigned k)
{
	uint64_t t0, t1, h = 0;
	size_t i;

	t0 = now_ns();
	for (i = lo; i < hi; i++) {
		if (!groups[i].selected)
			continue;
		h ^= p == P_USDTKIT ? parse_pass_usdtkit(&groups[i], k)
				    : parse_pass_sscanf(&groups[i], k);
	}
	t1 = now_ns();
	sink ^= h;
	return t1 - t0;
}

/* Repetitions so that one round lasts at least @round_ns. */
static unsigned calibrate(enum parser p, size_t lo, size_t hi,
			  uint64_t round_ns)
{
	unsigned k = 1;
	uint64_t t;

	timed(p, lo, hi, 1);	/* warm caches and branch predictors */
	for (;;) {
		t = timed(p, lo, hi, k);
		if (t >= round_ns / 8 || k >= (1u << 24))
			break;
		k *= 2;
	}
	if (t == 0)
		t = 1;
	return (unsigned)((double)k * (double)round_ns / (double)t + 1);
}

static void summarize(struct timing *t, int rounds)
{
	struct spread sp = { -1, -1, -1 };

	spread_of(t->ns, rounds, &sp);
	t->min = sp.min;
	t->med = sp.med;
	t->max = sp.max;
}

/*
 * Time both parsers over groups [@lo, @hi) (@nargs arguments per pass),
 * alternating which goes first, into @uk and @sb.
 */
static void measure(size_t lo, size_t hi, uint64_t nargs, int rounds,
		    uint64_t round_ns, struct timing *uk, struct timing *sb)
{
	int r;

	uk->k = calibrate(P_USDTKIT, lo, hi, round_ns);
	sb->k = calibrate(P_SSCANF, lo, hi, round_ns);
	for (r = 0; r < rounds; r++) {
		uint64_t tu, ts;

		if (r % 2 == 0) {
			tu = timed(P_USDTKIT, lo, hi, uk->k);
			ts = timed(P_SSCANF, lo, hi, sb->k);
		} else {
			ts = timed(P_SSCANF, lo, hi, sb->k);
			tu = timed(P_USDTKIT, lo, hi, uk->k);
		}
		uk->ns[r] = (double)tu / ((double)uk->k * (double)nargs);
		sb->ns[r] = (double)ts / ((double)sb->k * (double)nargs);
	}
	summarize(uk, rounds);
	summarize(sb, rounds);
}

/* ------------------------------------------------------------------ */
/* checking pass: failure counts and agreement                        */
/* ------------------------------------------------------------------ */

static void print_arg(FILE *out, const char *tag, const struct group *g,
		      const struct row *r, const struct usdtkit_arg *a,
		      const char *why)
{
	fprintf(out, "%s %s: '%.*s' in '%s'%s%s\n", tag, g->deb,
		(int)a->text_len, r->s + a->text_off, r->s, why ? ": " : "",
		why ? why : "");
}

/*
 * Both parsers decoded the argument: do they say the same thing? Returns
 * 0 if so, 1 if kind/size/sign/value differ, 2 if only the register
 * offset differs (a layout convention, not necessarily a bug).
 */
static int compare(const struct usdtkit_arg *u, const struct sb_arg *s)
{
	int off_u;

	if (u->size != s->size || (u->is_signed ? 1 : 0) != s->is_signed)
		return 1;
	switch (u->kind) {
	case USDTKIT_LOC_CONST:
		if (s->kind != SB_CONST || u->value != s->val_off || u->pc_rel)
			return 1;
		return 0;
	case USDTKIT_LOC_REG:
		if (s->kind != SB_REG)
			return 1;
		off_u = u->reg.offset;
		break;
	case USDTKIT_LOC_MEM:
		if (s->kind != SB_REG_DEREF || u->index.id >= 0 ||
		    u->base.id < 0 || u->pc_rel || u->disp != s->val_off)
			return 1;
		off_u = u->base.offset;
		break;
	default:
		return 1;
	}
	return off_u == s->reg_off ? 0 : 2;
}

static void check_group(struct group *g, FILE *list)
{
	size_t r;

	for (r = 0; r < g->nrows; r++) {
		const struct row *row = &g->rows[r];
		int n, sn, failed, i;

		n = usdtkit_args_parse(g->ua, row->s, row->len, uk_args,
				       MAX_ARGS);
		sn = 0;
		failed = 0;
		if (g->sp)
			sn = sb_args_parse(g->sp, row->s, sb_args, MAX_ARGS,
					   &failed);
		if (n < 0) {
			fprintf(stderr, "parse_bench: %s: usdtkit_args_parse: "
				"%s on '%s'\n", g->deb, strerror(-n), row->s);
			exit(2);
		}
		g->nargs += (uint64_t)n;
		g->sb_nargs += (uint64_t)sn;
		g->sb_failed += (uint64_t)failed;
		if (g->sp && n != sn && list)
			fprintf(list, "count %s: usdtkit %d, sscanf %d in '%s'\n",
				g->deb, n, sn, row->s);
		for (i = 0; i < n && i < MAX_ARGS; i++) {
			const struct usdtkit_arg *u = &uk_args[i];
			bool uok = u->status != USDTKIT_ARG_INVALID;
			bool sok = i < sn && sb_args[i].kind != SB_FAILED;

			if (u->status < 8)
				g->status[u->status]++;
			if (list && !uok)
				print_arg(list, "usdtkit-invalid", g, row, u,
					  u->error);
			if (uok && sok) {
				int c = compare(u, &sb_args[i]);

				g->both_ok++;
				if (c == 1)
					g->disagree++;
				else if (c == 2)
					g->off_differs++;
				if (c && list)
					print_arg(list, c == 1 ? "disagree" :
						  "offset-differs", g, row, u,
						  NULL);
			} else if (uok && g->sp) {
				g->uk_only++;
				if (list)
					print_arg(list, "sscanf-failed", g,
						  row, u, NULL);
			} else if (sok) {
				g->sb_only++;
			}
		}
	}
}

/* ------------------------------------------------------------------ */
/* report                                                             */
/* ------------------------------------------------------------------ */

static void print_table(const struct timing *tuk, const struct timing *tsb,
			uint64_t tot_args, uint64_t tot_rows, int rounds,
			unsigned round_ms)
{
	uint64_t inv = 0, sbf = 0;
	size_t i;

	printf("usdtkit_args_parse vs libbpf-style sscanf: median of %d rounds "
	       "(>= %u ms each), ns per argument\n\n",
	       rounds, round_ms);
	printf("%-8s %-8s %5s %6s %9s %9s %7s %8s %8s\n", "corpus", "arch",
	       "rows", "args", "usdtkit", "sscanf", "ratio", "uk-inval",
	       "sb-fail");
	for (i = 0; i < NGROUPS; i++) {
		const struct group *g = &groups[i];

		if (!g->selected)
			continue;
		inv += g->status[USDTKIT_ARG_INVALID];
		sbf += g->sb_failed;
		if (!g->sp) {
			printf("%-8s %-8s %5zu %6llu %9.1f %9s %7s %8llu %8s\n",
			       g->deb, g->arch, g->nrows,
			       (unsigned long long)g->nargs, g->uk.med, "-", "-",
			       (unsigned long long)g->status[USDTKIT_ARG_INVALID],
			       "-");
			continue;
		}
		printf("%-8s %-8s %5zu %6llu %9.1f %9.1f %6.1fx %8llu %8llu\n",
		       g->deb, g->arch, g->nrows, (unsigned long long)g->nargs,
		       g->uk.med, g->sb.med, g->sb.med / g->uk.med,
		       (unsigned long long)g->status[USDTKIT_ARG_INVALID],
		       (unsigned long long)g->sb_failed);
	}
	printf("%-8s %-8s %5llu %6llu %9.1f %9.1f %6.1fx %8llu %8llu\n",
	       "total", "", (unsigned long long)tot_rows,
	       (unsigned long long)tot_args, tuk->med, tsb->med,
	       tsb->med / tuk->med, (unsigned long long)inv,
	       (unsigned long long)sbf);
	printf("\ntotal: the targets both parsers know. "
	       "uk-inval: arguments usdtkit marks INVALID; sb-fail: "
	       "arguments the sscanf cascade cannot decode\n"
	       "(no pattern, unknown register or size not 1/2/4/8). "
	       "ratio = sscanf / usdtkit.\n");
	for (i = 0; i < NGROUPS; i++) {
		const struct group *g = &groups[i];

		if (!g->selected || !g->sp ||
		    (!g->disagree && !g->off_differs && g->nargs == g->sb_nargs))
			continue;
		printf("note %s: %llu decoded by both with a different "
		       "meaning, %llu with a different register offset, "
		       "arg count usdtkit %llu / sscanf %llu "
		       "(--list shows them)\n",
		       g->deb, (unsigned long long)g->disagree,
		       (unsigned long long)g->off_differs,
		       (unsigned long long)g->nargs,
		       (unsigned long long)g->sb_nargs);
	}
	printf("checksum %016llx\n", (unsigned long long)sink);
}

static void json_timing(const char *name, const struct timing *t)
{
	printf("\"%s\":{\"median_ns_per_arg\":%.3f,\"min_ns_per_arg\":%.3f,"
	       "\"max_ns_per_arg\":%.3f,\"reps_per_round\":%u}",
	       name, t->med, t->min, t->max, t->k);
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void print_json(const struct timing *tuk, const struct timing *tsb,
		       uint64_t tot_args, uint64_t tot_rows, int rounds,
		       unsigned round_ms, const char *path)
{
	uint64_t inv = 0, sbf = 0;
	size_t i;
	bool first = true;

	printf("{\"corpus\":");
	json_string(path);
	printf(",\"rounds\":%d,\"min_round_ms\":%u,\"arches\":[", rounds,
	       round_ms);
	for (i = 0; i < NGROUPS; i++) {
		const struct group *g = &groups[i];
		int s;

		if (!g->selected)
			continue;
		inv += g->status[USDTKIT_ARG_INVALID];
		sbf += g->sb_failed;
		printf("%s{\"corpus_arch\":\"%s\",\"arch\":\"%s\",\"rows\":%zu,"
		       "\"args\":%llu,",
		       first ? "" : ",", g->deb, g->arch, g->nrows,
		       (unsigned long long)g->nargs);
		first = false;
		json_timing("usdtkit", &g->uk);
		putchar(',');
		json_timing("sscanf", &g->sb);
		printf(",\"ratio\":%.3f,\"usdtkit_status\":{",
		       g->sp ? g->sb.med / g->uk.med : 0.0);
		for (s = 0; s <= USDTKIT_ARG_AMBIGUOUS; s++)
			printf("%s\"%s\":%llu", s ? "," : "",
			       usdtkit_arg_status_str((enum usdtkit_arg_status)s),
			       (unsigned long long)g->status[s]);
		printf("},\"usdtkit_invalid\":%llu,\"sscanf_args\":%llu,"
		       "\"sscanf_failed\":%llu,\"both_decoded\":%llu,"
		       "\"disagree\":%llu,\"offset_differs\":%llu}",
		       (unsigned long long)g->status[USDTKIT_ARG_INVALID],
		       (unsigned long long)g->sb_nargs,
		       (unsigned long long)g->sb_failed,
		       (unsigned long long)g->both_ok,
		       (unsigned long long)g->disagree,
		       (unsigned long long)g->off_differs);
	}
	printf("],\"total\":{\"rows\":%llu,\"args\":%llu,",
	       (unsigned long long)tot_rows, (unsigned long long)tot_args);
	json_timing("usdtkit", tuk);
	putchar(',');
	json_timing("sscanf", tsb);
	printf(",\"ratio\":%.3f,\"usdtkit_invalid\":%llu,\"sscanf_failed\":%llu},"
	       "\"checksum\":\"%016llx\"}\n",
	       tsb->med / tuk->med, (unsigned long long)inv,
	       (unsigned long long)sbf, (unsigned long long)sink);
}

/* ------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: parse_bench [options] [specs.tsv]\n"
		"  --json            one JSON object instead of the table\n"
		"  --rounds N        timed rounds per measurement (default 31)\n"
		"  --round-ms MS     minimum length of a round (default 20)\n"
		"  --arch NAME       only this corpus arch (amd64, arm64, ...)\n"
		"                    or usdtkit arch (x86_64, arm, ...); repeatable\n"
		"  --list            print every argument a parser failed on\n"
		"                    or the two disagree about, then exit\n"
		"  --once            parse the corpus exactly once with --parser\n"
		"  --parser P        usdtkit or sscanf (with --once)\n"
		"default corpus: %s\n",
		PARSE_BENCH_DEFAULT_SPECS);
}

int main(int argc, char **argv)
{
	const char *path = PARSE_BENCH_DEFAULT_SPECS, *parser = NULL;
	bool json = false, once = false, list = false, any_arch = false;
	int rounds = 31, i;
	unsigned round_ms = 20;
	uint64_t tot_args = 0, tot_rows = 0;
	size_t skipped, g;
	static struct timing tuk, tsb;

	make_groups();
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--json") == 0) {
			json = true;
		} else if (strcmp(a, "--once") == 0) {
			once = true;
		} else if (strcmp(a, "--list") == 0) {
			list = true;
		} else if (strcmp(a, "--parser") == 0 && i + 1 < argc) {
			parser = argv[++i];
		} else if (strcmp(a, "--rounds") == 0 && i + 1 < argc) {
			rounds = atoi(argv[++i]);
			if (rounds < 1 || rounds > MAX_ROUNDS) {
				fprintf(stderr, "parse_bench: rounds: 1..%d\n",
					MAX_ROUNDS);
				return 2;
			}
		} else if (strcmp(a, "--round-ms") == 0 && i + 1 < argc) {
			round_ms = (unsigned)atoi(argv[++i]);
			if (round_ms < 1)
				round_ms = 1;
		} else if (strcmp(a, "--arch") == 0 && i + 1 < argc) {
			const char *name = argv[++i];
			bool hit = false;

			for (g = 0; g < NGROUPS; g++) {
				if (strcmp(groups[g].deb, name) == 0 ||
				    strcmp(groups[g].arch, name) == 0) {
					groups[g].selected = true;
					hit = true;
				}
			}
			if (!hit) {
				fprintf(stderr, "parse_bench: unknown arch %s\n",
					name);
				return 2;
			}
			any_arch = true;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (a[0] == '-') {
			usage(stderr);
			return 2;
		} else {
			path = a;
		}
	}
	if (!any_arch)
		for (g = 0; g < NGROUPS; g++)
			groups[g].selected = true;

	for (g = 0; g < NGROUPS; g++) {
		groups[g].ua = usdtkit_arch_by_name(groups[g].arch);
		groups[g].sp = sb_parser_by_name(groups[g].arch);
		if (!groups[g].ua) {
			fprintf(stderr, "parse_bench: no usdtkit parser for %s\n",
				groups[g].arch);
			return 2;
		}
	}
	load_corpus(path, &skipped);

	if (once) {
		enum parser p;
		uint64_t h = 0;

		if (!parser) {
			fprintf(stderr, "parse_bench: --once needs --parser\n");
			return 2;
		}
		if (strcmp(parser, "usdtkit") == 0) {
			p = P_USDTKIT;
		} else if (strcmp(parser, "sscanf") == 0) {
			p = P_SSCANF;
		} else {
			fprintf(stderr, "parse_bench: unknown parser %s\n",
				parser);
			return 2;
		}
		for (g = 0; g < NGROUPS; g++) {
			if (!groups[g].selected)
				continue;
			h ^= p == P_USDTKIT ? parse_pass_usdtkit(&groups[g], 1)
					    : parse_pass_sscanf(&groups[g], 1);
		}
		/* no other parse may run here: callgrind counts inside the
		 * parsers' entry points (run_callgrind.sh) */
		for (g = 0; g < NGROUPS; g++)
			if (groups[g].selected)
				tot_rows += groups[g].nrows;
		tot_args = pass_args;
		printf("parser %s rows %llu args %llu checksum %016llx\n",
		       parser, (unsigned long long)tot_rows,
		       (unsigned long long)tot_args, (unsigned long long)h);
		return 0;
	}

	for (g = 0; g < NGROUPS; g++) {
		if (!groups[g].selected)
			continue;
		check_group(&groups[g], list ? stdout : NULL);
		tot_args += groups[g].nargs;
		tot_rows += groups[g].nrows;
	}
	if (list)
		return 0;
	if (!tot_args) {
		fprintf(stderr, "parse_bench: no arguments in %s\n", path);
		return 2;
	}
	for (g = 0; g < NGROUPS; g++) {
		if (!groups[g].selected)
			continue;
		if (!groups[g].nargs) {
			fprintf(stderr, "parse_bench: no %s rows in %s\n",
				groups[g].deb, path);
			return 2;
		}
		measure(g, g + 1, groups[g].nargs, rounds,
			(uint64_t)round_ms * 1000000u, &groups[g].uk,
			&groups[g].sb);
	}
	/* the total: the targets both parsers know, on the same arguments */
	tot_args = tot_rows = 0;
	for (g = 0; g < NGROUPS; g++) {
		if (!groups[g].sp)
			groups[g].selected = false;
		if (groups[g].selected) {
			tot_args += groups[g].nargs;
			tot_rows += groups[g].nrows;
		}
	}
	if (tot_args)
		measure(0, NGROUPS, tot_args, rounds,
			(uint64_t)round_ms * 1000000u, &tuk, &tsb);
	for (g = 0; g < NGROUPS; g++)
		groups[g].selected = groups[g].selected || (groups[g].nargs &&
							    !groups[g].sp);

	if (json)
		print_json(&tuk, &tsb, tot_args, tot_rows, rounds, round_ms,
			   path);
	else
		print_table(&tuk, &tsb, tot_args, tot_rows, rounds, round_ms);
	return 0;
}
