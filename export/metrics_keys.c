// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit_probe_hits_by_key_total: the --count-by keys, highest counts
 * first, at most opts.top per probe and opts.max_series in all; the
 * others summed per probe into key="__other__", and how many keys were
 * folded so in usdtkit_series_dropped_total.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/metrics.h"

#define OTHER_KEY "__other__"

struct folded {
	uint64_t *hits;		/* per probe: of the keys folded */
	size_t *kept;		/* per probe: keys exported */
	uint64_t keys;		/* keys folded, all probes */
};

/*
 * A str() key as a label value: the string; one cut at --strlen ends in
 * "..." (it stands for every string that begins so, and is longer than
 * any string kept whole, so it is no other key's series). NULL when it
 * is folded: a bad pointer, or the string "__other__" itself.
 */
static const char *key_text(const struct usdtkit_trace_key_count *r, char *buf,
			    size_t n, size_t *len)
{
	if (!r->str)
		return NULL;
	if (r->cut) {
		if (r->str_len + 4 > n)
			return NULL;
		memcpy(buf, r->str, r->str_len);
		memcpy(buf + r->str_len, "...", 3);
		*len = r->str_len + 3;
		return buf;
	}
	if (r->str_len == strlen(OTHER_KEY) && !memcmp(r->str, OTHER_KEY, r->str_len))
		return NULL;
	*len = r->str_len;
	return r->str;
}

static void by_key_row(struct metrics *m, const struct usdtkit_trace_key_count *r,
		       size_t *exported, struct folded *f, char *buf, size_t n)
{
	const char *key = NULL;
	size_t len = 0;

	if (r->probe >= m->t->nprobes)
		return;
	if (!m->t->agg.by.str) {
		len = r->is_signed ? (size_t)snprintf(buf, n, "%lld", (long long)r->value) :
			(size_t)snprintf(buf, n, "%llu", (unsigned long long)r->value);
		key = buf;
	} else {
		key = key_text(r, buf, n, &len);
	}
	if (key && *exported < m->o.max_series &&
	    (!m->o.top || f->kept[r->probe] < m->o.top)) {
		struct prom_label l[] = { metrics_probe(m, r->probe),
					  PROM_LABEL_N("key", key, len) };

		usdtkit__prom_sample(&m->b, "usdtkit_probe_hits_by_key_total", NULL, l, 2,
				     PROM_U64(r->count));
		f->kept[r->probe]++;
		(*exported)++;
		return;
	}
	f->hits[r->probe] += r->count;
	f->keys++;
}

static void by_key_other(struct metrics *m, const struct folded *f)
{
	size_t i;

	for (i = 0; i < m->t->nprobes; i++) {
		struct prom_label l[] = { metrics_probe(m, i), PROM_LABEL("key", OTHER_KEY) };

		if (f->hits[i])
			usdtkit__prom_sample(&m->b, "usdtkit_probe_hits_by_key_total", NULL,
					     l, 2, PROM_U64(f->hits[i]));
	}
	usdtkit__prom_family(&m->b, "usdtkit_series_dropped_total", "counter",
			     "Count-by keys folded into key=\"__other__\" (--top, --max-series).");
	usdtkit__prom_sample(&m->b, "usdtkit_series_dropped_total", NULL, NULL, 0,
			     PROM_U64(f->keys));
}

int usdtkit__metrics_by_key(struct metrics *m)
{
	struct usdtkit_trace_key_count *rows;
	struct folded f = { 0 };
	size_t n, i, exported = 0;
	char *buf;
	int err;

	if (!metrics_has(m, USDTKIT_TRACE_AGG_COUNT_BY))
		return 0;
	err = usdtkit_trace_read_keys(m->t, 0, &rows, &n);
	if (err)
		return err;
	f.hits = calloc(m->t->nprobes + 1, sizeof(*f.hits));
	f.kept = calloc(m->t->nprobes + 1, sizeof(*f.kept));
	buf = malloc(USDTKIT_TRACE_STRLEN_MAX + 8);
	if (f.hits && f.kept && buf) {
		usdtkit__prom_family(&m->b, "usdtkit_probe_hits_by_key_total", "counter",
				     "Hits of each probe per --count-by key.");
		for (i = 0; i < n; i++)
			by_key_row(m, &rows[i], &exported, &f, buf,
				   USDTKIT_TRACE_STRLEN_MAX + 8);
		by_key_other(m, &f);
	} else {
		err = -ENOMEM;
	}
	free(buf);
	free(f.hits);
	free(f.kept);
	usdtkit_trace_keys_free(rows, n);
	return err;
}
