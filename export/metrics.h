/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the files of the metrics (metrics*.c) share: one exposition being
 * written, and the families each file writes. */
#ifndef USDTKIT_TRACE_METRICS_H
#define USDTKIT_TRACE_METRICS_H

#include "trace/internal.h"
#include "export/prom.h"

struct metrics {
	struct usdtkit_trace *t;
	struct usdtkit_trace_metrics_opts o;
	struct prom_buf b;
	char **probe;		/* each probe's label value */
};

static inline bool metrics_has(const struct metrics *m, enum usdtkit_trace_agg_kind k)
{
	return m->t->agg.kinds & (1u << k);
}

static inline struct prom_label metrics_probe(const struct metrics *m, size_t i)
{
	return PROM_LABEL("probe", m->probe[i]);
}

/* the families: 0 or a negative errno (the writer's own errors are
 * sticky in m->b) */
int usdtkit__metrics_by_key(struct metrics *m);
int usdtkit__metrics_arg(struct metrics *m);
int usdtkit__metrics_minmax(struct metrics *m);
int usdtkit__metrics_latency(struct metrics *m);

#endif
