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

/* metrics_by.c: the labels of the parts of a keyed row */
struct by_labels {
	unsigned int nparts;
	char name[USDTKIT_TRACE_KEY_PARTS][24];
	char *buf[USDTKIT_TRACE_KEY_PARTS];
	size_t cap[USDTKIT_TRACE_KEY_PARTS], len[USDTKIT_TRACE_KEY_PARTS];
};

int usdtkit__by_labels_init(struct metrics *m, struct by_labels *bl);
void usdtkit__by_labels_free(struct by_labels *bl);
/* row @r's parts as labels into @l (bl->nparts of them): 1, or 0 when
 * the row is folded (@l then names __other__: also @r NULL), or a
 * negative errno */
int usdtkit__by_labels(struct by_labels *bl, const struct usdtkit_trace_by_row *r,
		       struct prom_label *l);

/* metrics_hist.c's buckets, shared with metrics_hist_by.c */
#define SLOTS USDTKIT_TRACE_HIST_SLOTS
/* latency buckets up to 2^41 ns (37 min); longer ones are in +Inf only */
#define LAT_BITS 41
#define STATS_BITS ((1u << USDTKIT_TRACE_AGG_SUM) | (1u << USDTKIT_TRACE_AGG_AVG) | \
		    (1u << USDTKIT_TRACE_AGG_MIN) | (1u << USDTKIT_TRACE_AGG_MAX))

struct buckets {
	struct prom_value le[USDTKIT_TRACE_HIST_SLOTS];
	uint64_t count[USDTKIT_TRACE_HIST_SLOTS];
	unsigned int n;
	uint64_t over;
};

/* the slots [first, last] of @h as buckets; the others go to +Inf */
void usdtkit__metrics_buckets(const uint64_t *h, unsigned int first, unsigned int last,
			      bool ns, struct buckets *b);
/* the width of argument @arg of probe @p, in bits */
unsigned int usdtkit__metrics_arg_bits(const struct probe *p, unsigned int arg);
/* PROVIDER:NAME of a --latency target */
const char *usdtkit__metrics_provider_name(const char *target);

/* metrics_hist_by.c: the value families with a key (--by) */
int usdtkit__metrics_arg_by(struct metrics *m, bool hist, bool sum);
int usdtkit__metrics_minmax_by(struct metrics *m);
int usdtkit__metrics_latency_by(struct metrics *m);

/* the families: 0 or a negative errno (the writer's own errors are
 * sticky in m->b) */
int usdtkit__metrics_by_key(struct metrics *m);
int usdtkit__metrics_arg(struct metrics *m);
int usdtkit__metrics_minmax(struct metrics *m);
int usdtkit__metrics_latency(struct metrics *m);

#endif
