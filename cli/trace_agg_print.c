// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit trace: the in-kernel aggregations, as the library reads them
 * back, printed as tables and bpftrace-style log2 histograms, or one JSON
 * object each (schema usdtkit-trace-agg/2.0, docs/JSON.md). With
 * --interval, each report zeroes what it read, so the next shows its own
 * interval. Each kind is one entry of agg_printers[], in the order the
 * report prints them; the keyed ones (--count-by, --by) are in
 * trace_agg_keyed.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace.h"
#include "trace_agg.h"


/* ---- histograms ---- */

/* ---- per probe ---- */

/* sum, avg, min, max: the order of their kinds and AGG_STAT() bits */
static void stats_one(struct report *r, const struct usdtkit_trace_probe *p,
		      unsigned int which, const struct usdtkit_trace_stats *s)
{
	struct jw *w = r->w;
	bool sg = s->is_signed;
	char buf[48];

	agg_json_head(r, usdtkit_trace_agg_name(USDTKIT_TRACE_AGG_SUM + which), p);
	JW_LIT(w, ",\"arg\":");
	json_u64(w, r->t->agg.stats.arg);
	JW_LIT(w, ",\"count\":");
	json_num_u64(w, s->count);
	JW_LIT(w, ",\"value\":");
	if (!s->count && which) {
		JW_LIT(w, "null");
	} else if (which == 1) {
		snprintf(buf, sizeof(buf), "%.17g", sg ? (double)(int64_t)s->sum / s->count :
			 (double)s->sum / s->count);
		json_raw(w, buf);
	} else {
		agg_put_num(w, which == 0 ? s->sum : which == 2 ? s->min : s->max, sg);
	}
	JW_LIT(w, "}\n");
}

static void stats_text(struct report *r, const struct usdtkit_trace_probe *p,
		       const struct usdtkit_trace_stats *s)
{
	unsigned int m = r->t->agg.stat_mask;
	unsigned long long sum = s->sum, mn = s->min, mx = s->max;
	struct jw *w = r->w;
	bool sg = s->is_signed;

	trace_put_probe(w, p);
	agg_line(w, ": arg%u: count %llu", r->t->agg.stats.arg,
		 (unsigned long long)s->count);
	if (m & AGG_STAT(USDTKIT_TRACE_AGG_SUM))
		agg_line(w, sg ? ", sum %lld" : ", sum %llu", sum);
	if ((m & AGG_STAT(USDTKIT_TRACE_AGG_AVG)) && s->count)
		agg_line(w, ", avg %.2f", sg ? (double)(int64_t)s->sum / s->count :
			 (double)s->sum / s->count);
	if ((m & AGG_STAT(USDTKIT_TRACE_AGG_MIN)) && s->count)
		agg_line(w, sg ? ", min %lld" : ", min %llu", mn);
	if ((m & AGG_STAT(USDTKIT_TRACE_AGG_MAX)) && s->count)
		agg_line(w, sg ? ", max %lld" : ", max %llu", mx);
	jw_putc(w, '\n');
}

/* --counts and --sum/--avg/--min/--max of probe @i: one read */
static int report_stats(struct report *r, unsigned int i)
{
	const struct usdtkit_trace_probe *p = usdtkit_trace_probe(r->t->tr, i);
	const struct trace_aggs *g = &r->t->agg;
	struct usdtkit_trace_stats s;
	unsigned int k;
	int err;

	err = usdtkit_trace_read_stats(r->t->tr, i, r->flags, &s);
	if (err)
		return err;
	if (g->kinds & (1u << USDTKIT_TRACE_AGG_COUNTS)) {
		if (r->json) {
			agg_json_head(r, "counts", p);
			JW_LIT(r->w, ",\"count\":");
			json_num_u64(r->w, s.count);
			JW_LIT(r->w, "}\n");
		} else {
			agg_line(r->w, "%12llu  ", (unsigned long long)s.count);
			trace_put_probe(r->w, p);
			jw_putc(r->w, '\n');
		}
	}
	if (!g->stat_mask || (g->by_kinds & (0xfu << USDTKIT_TRACE_AGG_SUM)))
		return 0;
	if (!r->json) {
		stats_text(r, p, &s);
		return 0;
	}
	for (k = 0; k < 4; k++)
		if (g->stat_mask & (1u << k))
			stats_one(r, p, k, &s);
	return 0;
}

static int report_hist(struct report *r, unsigned int i)
{
	const struct usdtkit_trace_probe *p = usdtkit_trace_probe(r->t->tr, i);
	uint64_t h[USDTKIT_TRACE_HIST_SLOTS], n = 0;
	int err, k;

	err = usdtkit_trace_read_hist(r->t->tr, i, r->flags, h);
	if (err)
		return err;
	for (k = 0; k < USDTKIT_TRACE_HIST_SLOTS; k++)
		n += h[k];
	if (r->json) {
		agg_json_head(r, "hist", p);
		JW_LIT(r->w, ",\"arg\":");
		json_u64(r->w, r->t->agg.hist.arg);
		JW_LIT(r->w, ",\"count\":");
		json_num_u64(r->w, n);
		agg_hist_json(r->w, h);
		JW_LIT(r->w, "}\n");
		return 0;
	}
	trace_put_probe(r->w, p);
	agg_line(r->w, ": hist of arg%u, %llu value%s\n", r->t->agg.hist.arg,
		 (unsigned long long)n, n == 1 ? "" : "s");
	agg_hist_text(r->w, h);
	return 0;
}

/* ---- latency ---- */

static void lat_json(struct report *r, const struct usdtkit_trace_stats *s,
		     const uint64_t *h, uint64_t unmatched)
{
	const struct trace_aggs *g = &r->t->agg;
	struct jw *w = r->w;
	char buf[48];

	agg_json_head(r, "latency", NULL);
	agg_lat_json_pair(w, g);
	JW_LIT(w, ",\"count\":");
	json_num_u64(w, s->count);
	JW_LIT(w, ",\"unmatched\":");
	json_num_u64(w, unmatched);
	JW_LIT(w, ",\"min_ns\":");
	if (s->count)
		json_num_u64(w, s->min);
	else
		JW_LIT(w, "null");
	JW_LIT(w, ",\"avg_ns\":");
	if (s->count) {
		snprintf(buf, sizeof(buf), "%.17g", (double)s->sum / s->count);
		json_raw(w, buf);
	} else {
		JW_LIT(w, "null");
	}
	JW_LIT(w, ",\"max_ns\":");
	if (s->count)
		json_num_u64(w, s->max);
	else
		JW_LIT(w, "null");
	agg_hist_json(w, h);
	JW_LIT(w, "}\n");
}

static void lat_text(struct report *r, const struct usdtkit_trace_stats *s,
		     const uint64_t *h, uint64_t unmatched)
{
	const struct trace_aggs *g = &r->t->agg;
	char mn[32], av[32], mx[32];
	struct jw *w = r->w;

	JW_LIT(w, "latency ");
	jw_text(w, g->lat_start, strlen(g->lat_start));
	JW_LIT(w, " -> ");
	jw_text(w, g->lat_end, strlen(g->lat_end));
	agg_lat_key(w, g, " by ");
	if (s->count) {
		agg_fmt_ns(mn, sizeof(mn), (double)s->min);
		agg_fmt_ns(av, sizeof(av), (double)s->sum / s->count);
		agg_fmt_ns(mx, sizeof(mx), (double)s->max);
		agg_line(w, ": count %llu, min %s, avg %s, max %s, %llu unmatched\n",
			 (unsigned long long)s->count, mn, av, mx,
			 (unsigned long long)unmatched);
	} else {
		agg_line(w, ": count 0, %llu unmatched\n", (unsigned long long)unmatched);
	}
	if (s->count) {
		JW_LIT(w, "nanoseconds:\n");
		agg_hist_text(w, h);
	}
}

static int report_latency(struct report *r, unsigned int i)
{
	uint64_t h[USDTKIT_TRACE_HIST_SLOTS], unmatched = 0;
	struct usdtkit_trace_stats s;
	int err;

	(void)i;
	err = usdtkit_trace_read_latency(r->t->tr, r->flags, &s, h, &unmatched);
	if (err)
		return err;
	if (r->json)
		lat_json(r, &s, h, unmatched);
	else
		lat_text(r, &s, h, unmatched);
	return 0;
}

/* ---- the report ---- */

/*
 * How each kind is printed, in the order of the report. per_probe: the
 * function runs once per probe (index i), else once (i = 0). SUM..MAX
 * print with COUNTS (one read of the same slot), so they have no entry.
 */
struct agg_printer {
	enum usdtkit_trace_agg_kind kind;
	bool per_probe;
	int (*report)(struct report *r, unsigned int i);
};

static const struct agg_printer agg_printers[] = {
	{ USDTKIT_TRACE_AGG_COUNTS, true, report_stats },
	{ USDTKIT_TRACE_AGG_HIST, true, report_hist },
	{ USDTKIT_TRACE_AGG_COUNT_BY, false, agg_report_by },
	{ USDTKIT_TRACE_AGG_LATENCY, false, report_latency },
};

/* a kind asked for with a key prints so instead (COUNTS' entry stands
 * for SUM..MAX: theirs is agg_report_by_stats) */
static int (*keyed_printer(const struct tracer *t, const struct agg_printer *pr))
	(struct report *, unsigned int)
{
	unsigned int b = t->agg.by_kinds;

	if (pr->kind == USDTKIT_TRACE_AGG_HIST && (b & (1u << USDTKIT_TRACE_AGG_HIST)))
		return agg_report_by_hist;
	if (pr->kind == USDTKIT_TRACE_AGG_LATENCY && (b & (1u << USDTKIT_TRACE_AGG_LATENCY)))
		return agg_report_by_latency;
	return NULL;
}

/* COUNTS' entry stands for SUM..MAX too */
static bool printer_wanted(const struct tracer *t, const struct agg_printer *pr)
{
	if (pr->kind == USDTKIT_TRACE_AGG_COUNTS)
		return t->agg.kinds & (1u << USDTKIT_TRACE_AGG_COUNTS) || t->agg.stat_mask;
	return t->agg.kinds & (1u << pr->kind);
}

/*
 * --interval's label: the report's number and, for one shorter than
 * the interval (the last, cut short by -d, --count, CMD's exit or
 * Ctrl-C), its real length; JSON has "seconds" in every object.
 */
static void interval_label(const struct report *r)
{
	const struct trace_aggs *g = &r->t->agg;

	if (g->interval <= 0 || r->json)
		return;
	if (r->secs < g->interval * 0.95)
		agg_line(r->w, "-- interval %u (%.3f s, cut short) --\n",
			 g->printed + 1, r->secs);
	else
		agg_line(r->w, "-- interval %u --\n", g->printed + 1);
}

/* Everything the options asked for, on stdout; 0 or a negative errno.
 * @now: CLOCK_MONOTONIC, the end of what this report covers. */
int trace_agg_report(struct tracer *t, bool reset, uint64_t now)
{
	struct report r = { .t = t, .w = t->out, .json = t->json,
			    .flags = reset ? USDTKIT_TRACE_READ_RESET : 0 };
	struct trace_aggs *g = &t->agg;
	uint64_t since = g->since_ns ? g->since_ns : usdtkit_trace_start_ns(t->tr);
	size_t np = usdtkit_trace_probe_count(t->tr), k;
	unsigned int i;
	int err = 0;

	r.secs = now > since ? (now - since) / 1e9 : 0;
	g->since_ns = now;
	interval_label(&r);
	if ((g->kinds & (1u << USDTKIT_TRACE_AGG_COUNTS)) && !t->json)
		agg_line(r.w, "%12s  %s\n", "HITS", "PROBE");
	for (k = 0; !err && k < sizeof(agg_printers) / sizeof(agg_printers[0]); k++) {
		const struct agg_printer *pr = &agg_printers[k];

		if (!printer_wanted(t, pr))
			continue;
		if (keyed_printer(t, pr)) {
			err = keyed_printer(t, pr)(&r, 0);
			continue;
		}
		for (i = 0; !err && i < (pr->per_probe ? np : 1); i++)
			err = pr->report(&r, i);
	}
	/* SUM..MAX by key: after the per-probe counts */
	if (!err && g->stat_mask && (g->by_kinds & (0xfu << USDTKIT_TRACE_AGG_SUM)))
		err = agg_report_by_stats(&r, 0);
	t->agg.printed++;
	jw_flush(t->out);
	if (err)
		trace_err("reading the aggregations: %s", strerror(-err));
	return err;
}
