// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit_probe_hits_by_key_total: the --count-by keys, highest counts
 * first, at most opts.top per probe and opts.max_series in all; the
 * others summed per probe into the series whose every key label is
 * "__other__", and how many keys were folded so in
 * usdtkit_series_dropped_total. The keys' labels: metrics_by.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/metrics.h"

#define FAMILY "usdtkit_probe_hits_by_key_total"

struct folded {
	uint64_t *hits;		/* per probe: of the keys folded */
	size_t *kept;		/* per probe: keys exported */
	uint64_t keys;		/* keys folded, all probes */
};

static int by_key_row(struct metrics *m, struct by_labels *bl,
		      const struct usdtkit_trace_by_row *r, size_t *exported,
		      struct folded *f)
{
	struct prom_label l[1 + USDTKIT_TRACE_KEY_PARTS];
	int ok;

	if (r->probe >= m->t->nprobes)
		return 0;
	l[0] = metrics_probe(m, r->probe);
	ok = *exported < m->o.max_series && (!m->o.top || f->kept[r->probe] < m->o.top) ?
		usdtkit__by_labels(bl, r, l + 1) : 0;
	if (ok < 0)
		return ok;
	if (ok) {
		usdtkit__prom_sample(&m->b, FAMILY, NULL, l, 1 + bl->nparts,
				     PROM_U64(r->stats.count));
		f->kept[r->probe]++;
		(*exported)++;
		return 0;
	}
	f->hits[r->probe] += r->stats.count;
	f->keys++;
	return 0;
}

static void by_key_other(struct metrics *m, struct by_labels *bl, const struct folded *f)
{
	struct prom_label l[1 + USDTKIT_TRACE_KEY_PARTS];
	size_t i;

	usdtkit__by_labels(bl, NULL, l + 1);
	for (i = 0; i < m->t->nprobes; i++) {
		l[0] = metrics_probe(m, i);
		if (f->hits[i])
			usdtkit__prom_sample(&m->b, FAMILY, NULL, l, 1 + bl->nparts,
					     PROM_U64(f->hits[i]));
	}
	usdtkit__prom_family(&m->b, "usdtkit_series_dropped_total", "counter",
			     "Keys folded into key=\"__other__\" (--top, --max-series).");
	usdtkit__prom_sample(&m->b, "usdtkit_series_dropped_total", NULL, NULL, 0,
			     PROM_U64(f->keys));
}

int usdtkit__metrics_by_key(struct metrics *m)
{
	struct usdtkit_trace_by_row *rows = NULL;
	struct folded f = { 0 };
	struct by_labels bl;
	size_t n = 0, i, exported = 0;
	int err;

	if (!metrics_has(m, USDTKIT_TRACE_AGG_COUNT_BY))
		return 0;
	err = usdtkit_trace_read_by(m->t, USDTKIT_TRACE_AGG_COUNT_BY, 0, &rows, &n);
	if (err)
		return err;
	f.hits = calloc(m->t->nprobes + 1, sizeof(*f.hits));
	f.kept = calloc(m->t->nprobes + 1, sizeof(*f.kept));
	err = f.hits && f.kept ? usdtkit__by_labels_init(m, &bl) : -ENOMEM;
	if (!err) {
		usdtkit__prom_family(&m->b, FAMILY, "counter",
				     "Hits of each probe per --count-by key.");
		for (i = 0; !err && i < n; i++)
			err = by_key_row(m, &bl, &rows[i], &exported, &f);
		if (!err)
			by_key_other(m, &bl, &f);
	}
	if (f.hits && f.kept)
		usdtkit__by_labels_free(&bl);
	free(f.hits);
	free(f.kept);
	usdtkit_trace_by_free(rows, n);
	return err;
}
