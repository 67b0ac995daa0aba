// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The value families with a key (--by KEY): usdtkit_probe_arg (its
 * histogram, or its sum and count), usdtkit_probe_arg_min and _max, and
 * usdtkit_probe_latency_seconds, one series per key with a label per
 * part of the key (metrics_by.c), the highest keys first. Past
 * --max-series series of a family, the keys of a probe are folded into
 * one series whose key labels are all "__other__" (buckets, sums and
 * counts added; the smallest min, the largest max).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/metrics.h"

/* one family's keyed rows being written */
struct fam {
	struct metrics *m;
	struct by_labels bl;
	struct usdtkit_trace_by_row *rows;
	size_t n, exported;
	struct usdtkit_trace_by_row *other;	/* per probe (and the latency) */
	uint64_t *other_hist;
	bool *other_any;
};

static int fam_open(struct fam *f, struct metrics *m, enum usdtkit_trace_agg_kind kind)
{
	size_t np = m->t->nprobes + 1, i;
	int err;

	memset(f, 0, sizeof(*f));
	f->m = m;
	err = usdtkit_trace_read_by(m->t, kind, 0, &f->rows, &f->n);
	if (err)
		return err;
	f->other = calloc(np, sizeof(*f->other));
	f->other_hist = calloc(np * SLOTS, sizeof(*f->other_hist));
	f->other_any = calloc(np, sizeof(*f->other_any));
	if (!f->other || !f->other_hist || !f->other_any)
		return -ENOMEM;
	for (i = 0; i < np; i++)
		f->other[i].hist = f->other_hist + i * SLOTS;
	return usdtkit__by_labels_init(m, &f->bl);
}

static void fam_close(struct fam *f)
{
	usdtkit__by_labels_free(&f->bl);
	usdtkit_trace_by_free(f->rows, f->n);
	free(f->other);
	free(f->other_hist);
	free(f->other_any);
}

/* row @r folded into its probe's __other__ */
static void fold(struct fam *f, const struct usdtkit_trace_by_row *r)
{
	struct usdtkit_trace_by_row *o = &f->other[r->probe];
	const struct usdtkit_trace_stats *s = &r->stats;
	bool sg = s->is_signed;
	size_t i;

	for (i = 0; r->hist && i < SLOTS; i++)
		((uint64_t *)o->hist)[i] += r->hist[i];
	o->probe = r->probe;
	o->stats.is_signed = sg;
	if (s->count) {
		if (!o->stats.count || (sg ? (int64_t)s->min < (int64_t)o->stats.min :
					s->min < o->stats.min))
			o->stats.min = s->min;
		if (!o->stats.count || (sg ? (int64_t)s->max > (int64_t)o->stats.max :
					s->max > o->stats.max))
			o->stats.max = s->max;
	}
	o->stats.count += s->count;
	o->stats.sum += s->sum;
	f->other_any[r->probe] = true;
}

/*
 * Each row through @put with its labels (@head: the labels before the
 * key's, *@nhead of them), then each probe's __other__. @put writes one
 * series.
 */
static int fam_each(struct fam *f, void (*head)(struct fam *f, size_t probe,
						 struct prom_label *l, unsigned int *nh),
		    void (*put)(struct fam *f, const struct usdtkit_trace_by_row *r,
				const struct prom_label *l, unsigned int nl))
{
	struct prom_label l[2 + USDTKIT_TRACE_KEY_PARTS];
	unsigned int nh;
	size_t i;
	int ok;

	for (i = 0; i < f->n; i++) {
		const struct usdtkit_trace_by_row *r = &f->rows[i];

		if (r->probe > f->m->t->nprobes)
			continue;
		head(f, r->probe, l, &nh);
		ok = f->exported < f->m->o.max_series ?
			usdtkit__by_labels(&f->bl, r, l + nh) : 0;
		if (ok < 0)
			return ok;
		if (!ok) {
			fold(f, r);
			continue;
		}
		put(f, r, l, nh + f->bl.nparts);
		f->exported++;
	}
	for (i = 0; i <= f->m->t->nprobes; i++) {
		if (!f->other_any[i])
			continue;
		head(f, i, l, &nh);
		usdtkit__by_labels(&f->bl, NULL, l + nh);
		put(f, &f->other[i], l, nh + f->bl.nparts);
	}
	return 0;
}

/* ---- usdtkit_probe_arg: histograms, or sums ---- */

struct arg_ctx {
	struct fam f;
	unsigned int arg;
	char label[16];
	bool max;		/* usdtkit_probe_arg_max, not _min */
	bool with_sum;		/* histograms: their _sum is known */
};

static void arg_head(struct fam *f, size_t probe, struct prom_label *l, unsigned int *nh)
{
	struct arg_ctx *a = (struct arg_ctx *)f;

	l[0] = metrics_probe(f->m, probe);
	l[1] = PROM_LABEL("arg", a->label);
	*nh = 2;
}

static void put_hist(struct fam *f, const struct usdtkit_trace_by_row *r,
		     const struct prom_label *l, unsigned int nl)
{
	struct arg_ctx *a = (struct arg_ctx *)f;
	const struct probe *p = &f->m->t->probes[r->probe];
	unsigned int bits = usdtkit__metrics_arg_bits(p, a->arg);
	bool sg = p->pub.args[a->arg].is_signed;
	struct buckets b;
	struct prom_hist ph;

	usdtkit__metrics_buckets(r->hist, sg ? 0 : 1, sg ? bits : bits + 1, false, &b);
	/* its _sum: SUM..MAX's, when they are of this argument (by.c) */
	ph = (struct prom_hist){ .le = b.le, .count = b.count, .n = b.n, .over = b.over,
				 .sum = r->stats.is_signed ? PROM_I64((int64_t)r->stats.sum) :
				 PROM_U64(r->stats.sum), .no_sum = !a->with_sum };
	usdtkit__prom_histogram(&f->m->b, "usdtkit_probe_arg", l, nl, &ph);
}

static void put_sum(struct fam *f, const struct usdtkit_trace_by_row *r,
		    const struct prom_label *l, unsigned int nl)
{
	const struct usdtkit_trace_stats *s = &r->stats;
	struct prom_hist ph = { .over = s->count, .sum = s->is_signed ?
				PROM_I64((int64_t)s->sum) : PROM_U64(s->sum) };

	usdtkit__prom_histogram(&f->m->b, "usdtkit_probe_arg", l, nl, &ph);
}

int usdtkit__metrics_arg_by(struct metrics *m, bool hist, bool sum)
{
	const struct trace_aggs *g = &m->t->agg;
	bool hist_by = hist && (g->by_key.kinds & (1u << USDTKIT_TRACE_AGG_HIST));
	bool sum_by = sum && (g->by_key.kinds & STATS_BITS);
	struct arg_ctx a = { .with_sum = (g->kinds & STATS_BITS) &&
			     (g->by_key.kinds & STATS_BITS) && g->stats.arg == g->hist.arg };
	int err = 0;

	usdtkit__prom_family(&m->b, "usdtkit_probe_arg", "histogram",
			     "An argument of each probe: log2 buckets (--hist), its sum "
			     "(--sum, --avg) and count.");
	if (hist_by) {
		a.arg = g->hist.arg;
		snprintf(a.label, sizeof(a.label), "arg%u", a.arg);
		err = fam_open(&a.f, m, USDTKIT_TRACE_AGG_HIST);
		if (!err)
			err = fam_each(&a.f, arg_head, put_hist);
		fam_close(&a.f);
	}
	if (!err && sum_by) {
		a.arg = g->stats.arg;
		snprintf(a.label, sizeof(a.label), "arg%u", a.arg);
		err = fam_open(&a.f, m, USDTKIT_TRACE_AGG_SUM);
		if (!err)
			err = fam_each(&a.f, arg_head, put_sum);
		fam_close(&a.f);
	}
	return err;
}

/* ---- usdtkit_probe_arg_min, _max ---- */

static void put_minmax(struct fam *f, const struct usdtkit_trace_by_row *r,
		       const struct prom_label *l, unsigned int nl)
{
	const struct usdtkit_trace_stats *s = &r->stats;
	bool max = ((struct arg_ctx *)f)->max;
	uint64_t v = max ? s->max : s->min;

	if (s->count)
		usdtkit__prom_sample(&f->m->b, max ? "usdtkit_probe_arg_max" :
				     "usdtkit_probe_arg_min", NULL, l, nl,
				     s->is_signed ? PROM_I64((int64_t)v) : PROM_U64(v));
}

int usdtkit__metrics_minmax_by(struct metrics *m)
{
	struct arg_ctx a;
	int err = 0, k;

	for (k = 0; !err && k < 2; k++) {
		if (!metrics_has(m, k ? USDTKIT_TRACE_AGG_MAX : USDTKIT_TRACE_AGG_MIN))
			continue;
		a.max = k;
		usdtkit__prom_family(&m->b, k ? "usdtkit_probe_arg_max" : "usdtkit_probe_arg_min",
				     "gauge", k ?
				     "The largest value of an argument of each probe (--max)." :
				     "The smallest value of an argument of each probe (--min).");
		a.arg = m->t->agg.stats.arg;
		snprintf(a.label, sizeof(a.label), "arg%u", a.arg);
		/* the keys in the order of their min, or max: --max-series
		 * keeps the highest */
		err = fam_open(&a.f, m, k ? USDTKIT_TRACE_AGG_MAX : USDTKIT_TRACE_AGG_MIN);
		if (!err)
			err = fam_each(&a.f, arg_head, put_minmax);
		fam_close(&a.f);
	}
	return err;
}

/* ---- usdtkit_probe_latency_seconds ---- */

static void lat_head(struct fam *f, size_t probe, struct prom_label *l, unsigned int *nh)
{
	const struct trace_aggs *g = &f->m->t->agg;

	(void)probe;
	l[0] = PROM_LABEL("start", usdtkit__metrics_provider_name(g->lat_start));
	l[1] = PROM_LABEL("end", usdtkit__metrics_provider_name(g->lat_end));
	*nh = 2;
}

static void put_lat(struct fam *f, const struct usdtkit_trace_by_row *r,
		    const struct prom_label *l, unsigned int nl)
{
	struct buckets b;
	struct prom_hist ph;

	usdtkit__metrics_buckets(r->hist, 1, LAT_BITS + 1, true, &b);
	ph = (struct prom_hist){ .le = b.le, .count = b.count, .n = b.n, .over = b.over,
				 .sum = PROM_NS(r->stats.sum) };
	usdtkit__prom_histogram(&f->m->b, "usdtkit_probe_latency_seconds", l, nl, &ph);
}

int usdtkit__metrics_latency_by(struct metrics *m)
{
	struct fam f;
	int err;

	usdtkit__prom_family(&m->b, "usdtkit_probe_latency_seconds", "histogram",
			     "Seconds from each START hit to the next END hit "
			     "of the same key (--latency).");
	err = fam_open(&f, m, USDTKIT_TRACE_AGG_LATENCY);
	if (!err)
		err = fam_each(&f, lat_head, put_lat);
	fam_close(&f);
	return err;
}
