// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit trace --serve ADDR:PORT, --textfile PATH: the aggregations as
 * Prometheus metrics (docs/METRICS.md), served or written by the library;
 * this file reads the options and runs them from cmd_trace.c's loop.
 * Metrics are cumulative: nothing is read with RESET, so no table is
 * printed (--interval is the textfile's period). With no aggregation
 * option hits are counted in the kernel (--counts), not printed, unless
 * --print-hits asks: then they are printed, and counted as read.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "trace.h"
#include "trace_opts.h"

#define TEXTFILE_INTERVAL 15.0

bool trace_metrics_on(const struct tracer *t)
{
	return t->serve_addr || t->textfile;
}

int trace_parse_metrics_opt(struct tracer *t, struct cli_parser *p, int key)
{
	unsigned long long v;

	switch (key) {
	case OPT_SERVE:
		t->serve_addr = p->val;
		return 0;
	case OPT_TEXTFILE:
		t->textfile = p->val;
		if (!*p->val)
			cli_usage_err(p->cmd, "--textfile: the PATH is empty");
		return *p->val ? 0 : -1;
	case OPT_MAX_SERIES:
		if (!cli_parse_ulong(p->val, 1, 100000000, &v))
			return cli_usage_err(p->cmd, "bad --max-series '%s': want 1 to "
					     "100000000", p->val), -1;
		t->max_series = (size_t)v;
		return 0;
	case OPT_PRINT_HITS:
		t->print_hits = true;
		return 0;
	}
	return 0;
}

/*
 * Before trace_check_agg_opts(): what the metrics need of the request.
 * --top is the metrics' bound per probe only when given (tables default
 * to 20 rows, metrics to --max-series in all). 0, or -1 (told).
 */
int trace_check_metrics_opts(struct tracer *t, const struct cli_cmd *c)
{
	struct trace_aggs *g = &t->agg;

	if (!trace_metrics_on(t)) {
		if (t->max_series || t->print_hits)
			return cli_usage_err(c, "%s goes with --serve or --textfile",
					     t->max_series ? "--max-series" : "--print-hits"), -1;
		return 0;
	}
	if (t->print_hits && trace_agg_any(t))
		return cli_usage_err(c, "--print-hits: hits are printed only without "
				     "an aggregation option"), -1;
	if (g->interval > 0 && !t->textfile)
		return cli_usage_err(c, "--interval with --serve goes with --textfile: "
				     "Prometheus decides when to read"), -1;
	t->metrics_top = g->top;
	if (!t->print_hits)
		g->kinds |= 1u << USDTKIT_TRACE_AGG_COUNTS;
	/* the histogram's _sum: the sum of its argument, if no other is asked */
	if (g->hist.set && !g->stats.set) {
		g->stats = g->hist;
		g->kinds |= 1u << USDTKIT_TRACE_AGG_SUM;
	}
	if (t->textfile && !(g->interval > 0))
		g->interval = TEXTFILE_INTERVAL;
	return 0;
}

/* a failure is said by the library; the next interval tries again */
static void write_textfile(struct tracer *t)
{
	USDTKIT_OPTS(usdtkit_trace_metrics_opts, o, .max_series = t->max_series,
		     .top = t->metrics_top);

	usdtkit_trace_metrics_write(t->tr, &o, t->textfile);
}

/* Once the trace is made, before it is loaded: a port in use fails the
 * trace before anything is attached. 0 or a negative errno (told). */
int trace_metrics_open(struct tracer *t)
{
	USDTKIT_OPTS(usdtkit_trace_metrics_opts, mo, .max_series = t->max_series,
		     .top = t->metrics_top);
	USDTKIT_OPTS(usdtkit_trace_serve_opts, so, .metrics = &mo);

	if (!t->serve_addr)
		return 0;
	t->server = usdtkit_trace_serve(t->tr, t->serve_addr, &so);
	return t->server ? 0 : -errno;
}

/* Once attached: where it serves, and the first textfile. */
void trace_metrics_begin(struct tracer *t, uint64_t now_ns)
{
	if (t->server && !t->quiet)
		fprintf(stderr, "Serving metrics on %s (port %u): GET /metrics.\n",
			t->serve_addr, usdtkit_trace_server_port(t->server));
	if (t->textfile) {
		write_textfile(t);
		t->textfile_next = now_ns + (uint64_t)(t->agg.interval * 1e9);
	}
}

/* At each turn of the loop: requests answered, the textfile when due.
 * The loop wakes every 100 ms at least, which is soon enough for both:
 * the server's time limits are seconds, and a textfile 100 ms late is
 * still the same scrape. */
int trace_metrics_step(struct tracer *t, uint64_t now_ns)
{
	int err = t->server ? usdtkit_trace_server_step(t->server) : 0;

	if (t->textfile && now_ns >= t->textfile_next) {
		write_textfile(t);
		t->textfile_next = now_ns + (uint64_t)(t->agg.interval * 1e9);
	}
	if (err)
		trace_err("--serve: %s", strerror(-err));
	return err;
}

/* At the end: the last textfile, the server closed. */
void trace_metrics_end(struct tracer *t)
{
	if (t->textfile && t->began)
		write_textfile(t);
	usdtkit_trace_server_free(t->server);
	t->server = NULL;
}
