// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The trace's aggregations as the Prometheus families of docs/METRICS.md,
 * read at the moment of the call, never reset (counters only grow). Each
 * family is one entry of families[]: it says when it applies and writes
 * its samples with prom.h's writer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usdtkit/version.h>

#include "export/metrics.h"
#include "base/opts.h"

#define DEF_MAX_SERIES 10000

#define STATS_KINDS ((1u << USDTKIT_TRACE_AGG_SUM) | (1u << USDTKIT_TRACE_AGG_AVG) | \
		     (1u << USDTKIT_TRACE_AGG_MIN) | (1u << USDTKIT_TRACE_AGG_MAX))

/* ---- the probe label: PROVIDER:NAME, or PATH:PROVIDER:NAME for probes
 * whose PROVIDER:NAME another probe of the trace has too (a glob over
 * several objects), so that no two probes are one series ---- */

/* a probe and its index, sorted by PROVIDER:NAME */
struct named {
	const struct probe *p;
	size_t i;
};

static int by_name(const void *a, const void *b)
{
	const struct probe *pa = ((const struct named *)a)->p;
	const struct probe *pb = ((const struct named *)b)->p;
	int c = strcmp(pa->provider, pb->provider);

	return c ? c : strcmp(pa->name, pb->name);
}

static char *label_of(const struct probe *p, bool with_path)
{
	size_t n = strlen(p->provider) + strlen(p->name) + 2 +
		   (with_path && p->path ? strlen(p->path) + 1 : 0);
	char *s = malloc(n);

	if (!s)
		return NULL;
	if (with_path && p->path)
		snprintf(s, n, "%s:%s:%s", p->path, p->provider, p->name);
	else
		snprintf(s, n, "%s:%s", p->provider, p->name);
	return s;
}

static int probe_labels(struct metrics *m)
{
	const struct usdtkit_trace *t = m->t;
	size_t i, n = t->nprobes;
	struct named *v;
	int err = 0;

	m->probe = calloc(n + 1, sizeof(*m->probe));
	v = calloc(n + 1, sizeof(*v));
	if (!m->probe || !v) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		v[i] = (struct named){ &t->probes[i], i };
	qsort(v, n, sizeof(*v), by_name);
	for (i = 0; i < n && !err; i++) {
		bool dup = (i > 0 && !by_name(&v[i - 1], &v[i])) ||
			   (i + 1 < n && !by_name(&v[i], &v[i + 1]));

		m->probe[v[i].i] = label_of(v[i].p, dup);
		if (!m->probe[v[i].i])
			err = -ENOMEM;
	}
	free(v);
	return err;
}

static void probe_labels_free(struct metrics *m)
{
	size_t i;

	for (i = 0; m->probe && i < m->t->nprobes; i++)
		free(m->probe[i]);
	free(m->probe);
}

/* ---- the families ---- */

static int build_info(struct metrics *m)
{
	const char *v = m->o.version ? m->o.version : USDTKIT_VERSION;
	struct prom_label l = PROM_LABEL("version", v);

	usdtkit__prom_family(&m->b, "usdtkit_build_info", "gauge",
			     "The usdtkit that serves these metrics; always 1.");
	usdtkit__prom_sample(&m->b, "usdtkit_build_info", NULL, &l, 1, PROM_U64(1));
	return 0;
}

static int attached_sites(struct metrics *m)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < m->t->nprobes; i++)
		n += m->t->probes[i].pub.sites;
	usdtkit__prom_family(&m->b, "usdtkit_attached_sites", "gauge",
			     "Probe sites (instructions) the trace is attached to.");
	usdtkit__prom_sample(&m->b, "usdtkit_attached_sites", NULL, NULL, 0, PROM_U64(n));
	return 0;
}

static int lost_events(struct metrics *m)
{
	uint64_t n;
	int err = usdtkit_trace_counter(m->t, USDTKIT_TRACE_LOST, &n);

	if (err)
		return err;
	usdtkit__prom_family(&m->b, "usdtkit_lost_events_total", "counter",
			     "Hits the ring buffer had no room for (printed hits only).");
	usdtkit__prom_sample(&m->b, "usdtkit_lost_events_total", NULL, NULL, 0,
			     PROM_U64(n));
	return 0;
}

static int probe_hits(struct metrics *m)
{
	struct usdtkit_trace_stats st;
	size_t i;
	int err;

	/* in the kernel with COUNTS or SUM..MAX; with no aggregation, the
	 * events read so far (those lost are usdtkit_lost_events_total) */
	bool kernel = metrics_has(m, USDTKIT_TRACE_AGG_COUNTS) || (m->t->agg.kinds & STATS_KINDS);

	if (!kernel && m->t->agg.kinds)
		return 0;
	usdtkit__prom_family(&m->b, "usdtkit_probe_hits_total", "counter",
			     "Hits of each probe that the filter kept.");
	for (i = 0; i < m->t->nprobes; i++) {
		struct prom_label l = metrics_probe(m, i);

		st.count = m->t->probes[i].hits;
		err = kernel ? usdtkit_trace_read_stats(m->t, i, 0, &st) : 0;
		if (err)
			return err;
		usdtkit__prom_sample(&m->b, "usdtkit_probe_hits_total", NULL, &l, 1,
				     PROM_U64(st.count));
	}
	return 0;
}


static int (*const families[])(struct metrics *m) = {
	build_info,
	attached_sites,
	lost_events,
	probe_hits,
	usdtkit__metrics_by_key,
	usdtkit__metrics_arg,
	usdtkit__metrics_minmax,
	usdtkit__metrics_latency,
};

int usdtkit_trace_metrics(struct usdtkit_trace *t,
			  const struct usdtkit_trace_metrics_opts *opts,
			  char **text, size_t *len)
{
	struct metrics m = { .t = t };
	size_t i;
	int err;

	if (!text || !len)
		return -EINVAL;
	*text = NULL;
	*len = 0;
	if (!t || !t->loaded)
		return -EINVAL;
	err = usdtkit__opts_copy(&m.o, usdtkit_trace_metrics_opts, opts);
	if (err) {
		trace_err(t, "metrics: options not known to this library");
		return err;
	}
	if (!m.o.max_series)
		m.o.max_series = DEF_MAX_SERIES;
	usdtkit__prom_init(&m.b);
	err = probe_labels(&m);
	for (i = 0; !err && i < sizeof(families) / sizeof(families[0]); i++)
		err = families[i](&m);
	probe_labels_free(&m);
	if (err) {
		usdtkit__prom_free(&m.b);
		return err;
	}
	return usdtkit__prom_finish(&m.b, text, len);
}
