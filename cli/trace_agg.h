/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * usdtkit trace's aggregation report, shared by its files:
 * trace_agg_print.c (the report, per probe, latency), trace_agg_keyed.c
 * (the keyed tables of --count-by and --by) and trace_agg_fmt.c (what
 * both print with).
 */
#ifndef USDTKIT_CLI_TRACE_AGG_H
#define USDTKIT_CLI_TRACE_AGG_H

#include <stdbool.h>
#include <stdint.h>

#include "trace.h"

/* one report: every aggregation, printed once */
struct report {
	struct tracer *t;
	struct jw *w;
	bool json;
	unsigned int flags;	/* USDTKIT_TRACE_READ_RESET: --interval */
	double secs;		/* --interval: what this report covers */
	/* COUNT_BY and SUM..MAX by key are one table: read once per report
	 * (with RESET when it resets), then again from that read */
	bool by_table_read;
};

/* {"schema":..., "agg":"NAME", [interval], "provider":..., "name":...[, "path"] */
void agg_json_head(struct report *r, const char *agg, const struct usdtkit_trace_probe *p);
/* a JSON number, signed or not as the argument it counts */
void agg_put_num(struct jw *w, unsigned long long v, bool is_signed);
/* a log2 histogram: bpftrace's bars, or a JSON array of buckets */
void agg_hist_text(struct jw *w, const uint64_t *h);
void agg_hist_json(struct jw *w, const uint64_t *h);
/* printf into the report, cut at 255 bytes */
void agg_line(struct jw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* nanoseconds as "12.3 us" */
void agg_fmt_ns(char *buf, size_t n, double ns);
/* " by tid", " by str(arg1)"...: what pairs a latency's START with END */
void agg_lat_key(struct jw *w, const struct trace_aggs *g, const char *pre);
/* ,"start":START,"end":END,"key":"KEY" of a latency's JSON object */
void agg_lat_json_pair(struct jw *w, const struct trace_aggs *g);

/* the keyed kinds, entries of trace_agg_print.c's agg_printers[] (i is
 * unused: each prints every probe's rows) */
int agg_report_by(struct report *r, unsigned int i);
int agg_report_by_hist(struct report *r, unsigned int i);
int agg_report_by_latency(struct report *r, unsigned int i);
int agg_report_by_stats(struct report *r, unsigned int i);

#endif
