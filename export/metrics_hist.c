// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The value families: usdtkit_probe_arg, a histogram of an argument per
 * probe (--hist's log2 buckets; --sum/--avg alone give one of the +Inf
 * bucket only, which is how their sum becomes usdtkit_probe_arg_sum),
 * usdtkit_probe_arg_min and _max, and usdtkit_probe_latency_seconds.
 *
 * The engine's log2 slot k + 2 holds [2^k, 2^(k+1)): its le is 2^(k+1)-1,
 * the largest integer it holds, as le includes its bound; slot 1 is 0
 * (le="0") and slot 0 the negatives (le="-1", signed arguments only).
 * A probe gets every bucket its argument's width can reach, empty or
 * not, so that the series of a histogram do not come and go.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "export/metrics.h"




static void arg_label(char *buf, size_t n, unsigned int arg)
{
	snprintf(buf, n, "arg%u", arg);
}

static bool stats_on(const struct metrics *m)
{
	return metrics_has(m, USDTKIT_TRACE_AGG_SUM) || metrics_has(m, USDTKIT_TRACE_AGG_AVG) ||
	       metrics_has(m, USDTKIT_TRACE_AGG_MIN) || metrics_has(m, USDTKIT_TRACE_AGG_MAX);
}

static struct prom_value stats_sum(const struct usdtkit_trace_stats *st)
{
	return st->is_signed ? PROM_I64((int64_t)st->sum) : PROM_U64(st->sum);
}

/* --hist argN of probe @i, its _sum from the stats when they are of argN */
static int arg_hist(struct metrics *m, size_t i)
{
	const struct trace_aggs *g = &m->t->agg;
	const struct probe *p = &m->t->probes[i];
	unsigned int bits = usdtkit__metrics_arg_bits(p, g->hist.arg);
	bool sg = p->pub.args[g->hist.arg].is_signed;
	struct usdtkit_trace_stats st = { 0 };
	uint64_t h[SLOTS];
	struct buckets b;
	char arg[16];
	int err;

	err = usdtkit_trace_read_hist(m->t, i, 0, h);
	if (!err && stats_on(m) && g->stats.arg == g->hist.arg)
		err = usdtkit_trace_read_stats(m->t, i, 0, &st);
	if (err)
		return err;
	/* signed: the largest value is below 2^(bits-1), slot bits */
	usdtkit__metrics_buckets(h, sg ? 0 : 1, sg ? bits : bits + 1, false, &b);
	arg_label(arg, sizeof(arg), g->hist.arg);
	{
		struct prom_label l[] = { metrics_probe(m, i), PROM_LABEL("arg", arg) };
		struct prom_hist ph = { .le = b.le, .count = b.count, .n = b.n,
					.over = b.over, .sum = stats_sum(&st),
					.no_sum = !(stats_on(m) && g->stats.arg == g->hist.arg) };

		usdtkit__prom_histogram(&m->b, "usdtkit_probe_arg", l, 2, &ph);
	}
	return 0;
}

/* --sum or --avg of an argument without --hist: a histogram of one
 * bucket, +Inf, whose _sum is the sum */
static int arg_sum(struct metrics *m, size_t i)
{
	struct usdtkit_trace_stats st;
	char arg[16];
	int err;

	err = usdtkit_trace_read_stats(m->t, i, 0, &st);
	if (err)
		return err;
	arg_label(arg, sizeof(arg), m->t->agg.stats.arg);
	{
		struct prom_label l[] = { metrics_probe(m, i), PROM_LABEL("arg", arg) };
		struct prom_hist ph = { .over = st.count, .sum = stats_sum(&st) };

		usdtkit__prom_histogram(&m->b, "usdtkit_probe_arg", l, 2, &ph);
	}
	return 0;
}

int usdtkit__metrics_arg(struct metrics *m)
{
	const struct trace_aggs *g = &m->t->agg;
	bool hist = metrics_has(m, USDTKIT_TRACE_AGG_HIST);
	bool sum = (metrics_has(m, USDTKIT_TRACE_AGG_SUM) ||
		    metrics_has(m, USDTKIT_TRACE_AGG_AVG)) &&
		   (!hist || g->stats.arg != g->hist.arg);
	size_t i;
	int err = 0;

	if (!hist && !sum)
		return 0;
	if (m->t->agg.by_key.kinds & ((1u << USDTKIT_TRACE_AGG_HIST) | STATS_BITS))
		return usdtkit__metrics_arg_by(m, hist, sum);
	usdtkit__prom_family(&m->b, "usdtkit_probe_arg", "histogram",
			     "An argument of each probe: log2 buckets (--hist), its sum "
			     "(--sum, --avg) and count.");
	for (i = 0; !err && i < m->t->nprobes; i++) {
		if (hist)
			err = arg_hist(m, i);
		if (!err && sum)
			err = arg_sum(m, i);
	}
	return err;
}

/* usdtkit_probe_arg_min or _max: a probe with no hit yet has no value */
static int minmax(struct metrics *m, bool max)
{
	const char *name = max ? "usdtkit_probe_arg_max" : "usdtkit_probe_arg_min";
	struct usdtkit_trace_stats st;
	char arg[16];
	size_t i;
	int err;

	usdtkit__prom_family(&m->b, name, "gauge", max ?
			     "The largest value of an argument of each probe (--max)." :
			     "The smallest value of an argument of each probe (--min).");
	arg_label(arg, sizeof(arg), m->t->agg.stats.arg);
	for (i = 0; i < m->t->nprobes; i++) {
		struct prom_label l[] = { metrics_probe(m, i), PROM_LABEL("arg", arg) };
		uint64_t v;

		err = usdtkit_trace_read_stats(m->t, i, 0, &st);
		if (err)
			return err;
		if (!st.count)
			continue;
		v = max ? st.max : st.min;
		usdtkit__prom_sample(&m->b, name, NULL, l, 2, st.is_signed ?
				     PROM_I64((int64_t)v) : PROM_U64(v));
	}
	return 0;
}

int usdtkit__metrics_minmax(struct metrics *m)
{
	int err = 0;

	if (m->t->agg.by_key.kinds & STATS_BITS)
		return usdtkit__metrics_minmax_by(m);
	if (metrics_has(m, USDTKIT_TRACE_AGG_MIN))
		err = minmax(m, false);
	if (!err && metrics_has(m, USDTKIT_TRACE_AGG_MAX))
		err = minmax(m, true);
	return err;
}


int usdtkit__metrics_latency(struct metrics *m)
{
	const struct trace_aggs *g = &m->t->agg;
	struct usdtkit_trace_stats st;
	uint64_t h[SLOTS], unmatched;
	struct buckets b;
	int err;

	if (!metrics_has(m, USDTKIT_TRACE_AGG_LATENCY))
		return 0;
	if (m->t->agg.by_key.kinds & (1u << USDTKIT_TRACE_AGG_LATENCY))
		return usdtkit__metrics_latency_by(m);
	err = usdtkit_trace_read_latency(m->t, 0, &st, h, &unmatched);
	if (err)
		return err;
	usdtkit__metrics_buckets(h, 1, LAT_BITS + 1, true, &b);
	{
		struct prom_label l[] = { PROM_LABEL("start", usdtkit__metrics_provider_name(g->lat_start)),
					  PROM_LABEL("end", usdtkit__metrics_provider_name(g->lat_end)) };
		struct prom_hist ph = { .le = b.le, .count = b.count, .n = b.n,
					.over = b.over, .sum = PROM_NS(st.sum) };

		usdtkit__prom_family(&m->b, "usdtkit_probe_latency_seconds", "histogram",
				     "Seconds from each START hit to the next END hit "
				     "of the same key (--latency).");
		usdtkit__prom_histogram(&m->b, "usdtkit_probe_latency_seconds", l, 2, &ph);
	}
	return 0;
}
