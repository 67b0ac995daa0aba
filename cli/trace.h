/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* usdtkit trace: what its files share. The engine is the library's
 * (<usdtkit/trace.h>); these files read options, print and handle
 * signals. */
#ifndef USDTKIT_CLI_TRACE_H
#define USDTKIT_CLI_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <usdtkit/trace.h>

#include "json.h"
#include "opts.h"

#define MAX_ARGS USDTKIT_BPF_MAX_ARGS

/* an aggregation's argument: argN, or str(argN) where allowed */
struct agg_arg {
	bool set, str;
	unsigned char arg;
};

/* --sum, --avg, --min, --max: bits of stat_mask, in kind order */
#define AGG_STAT(kind) (1u << ((kind) - USDTKIT_TRACE_AGG_SUM))

/* the aggregation options, as given */
struct trace_aggs {
	unsigned int kinds;		/* bit k: enum usdtkit_trace_agg_kind */
	struct agg_arg by, hist, stats;
	unsigned int stat_mask;		/* AGG_STAT() */
	unsigned int top;		/* --top: rows of a --count-by table */
	double interval;		/* seconds, 0: only at the end */
	const char *lat_start, *lat_end; /* --latency START END */
	enum usdtkit_trace_pair pair;	/* --key */
	struct agg_arg key;
	/* --count-by KEY, --by KEY (one key per trace), --stack-depth,
	 * --by-keys; by_kinds: bit k, kind k is keyed */
	const char *count_by, *by_text;
	struct usdtkit_trace_key by_key;
	unsigned int stack_depth;
	unsigned long long by_keys;
	unsigned int by_kinds;
	unsigned int printed;		/* reports so far (--interval) */
	uint64_t since_ns;		/* when the report being gathered
					 * began (0: the trace's start) */
};

struct tracer {
	struct usdtkit_trace *tr;
	int pid;			/* -p: the first */
	struct cli_pids pids;		/* every -p's */
	enum usdtkit_mode mode;
	const char *filter;		/* --filter EXPR */
	unsigned int str_mask, str_len;	/* --str, --strlen */
	bool best_effort;
	bool children;			/* --children */
	bool no_fault_in;		/* --no-fault-in */
	bool no_hold;			/* --no-hold */
	bool stack_fp;			/* --stack-fp */
	bool all;			/* --all */
	unsigned long long count;	/* 0: no limit */
	double duration;		/* seconds, 0: no limit */
	bool json, verbose;
	bool quiet;			/* no "Tracing ..." line */
	bool usage_error;		/* set up failed on the options: exit 2 */
	bool began;			/* attached: the counts are reported */
	bool gone;			/* PID or CMD has ended (--serve goes on) */
	const char *cmd;		/* -c CMD, as given */
	/* SIGINT, SIGTERM and SIGCHLD, blocked and read here; the first
	 * SIGINT or SIGTERM read, which ends the trace (0: none yet) */
	int sig_fd;
	int stop_sig;

	struct trace_aggs agg;

	/* --serve, --textfile (trace_metrics.c) */
	const char *serve_addr, *textfile;
	size_t max_series;		/* 0: the library's 10000 */
	unsigned int metrics_top;	/* --top as given, 0: none */
	bool print_hits;
	struct usdtkit_trace_server *server;
	uint64_t textfile_next;		/* ns: the next write */

	unsigned long long printed;
	struct jw *out;			/* stdout, or -o FILE */
	const char *out_path;		/* -o FILE, NULL: stdout */
};

__attribute__((format(printf, 1, 2)))
void trace_err(const char *fmt, ...);
/* the library's diagnostics (ctx: the tracer) */
void trace_print_msg(void *ctx, enum usdtkit_log_level level, const char *msg);
bool trace_agg_any(const struct tracer *t);

/* trace_output.c: one hit, as JSON or as a line of text */
void trace_event_json(struct jw *w, const struct usdtkit_trace_probe *p,
		      const struct usdtkit_trace_hit *h);
void trace_event_text(struct jw *w, uint64_t start_ns,
		      const struct usdtkit_trace_probe *p,
		      const struct usdtkit_trace_hit *h);
/* PROVIDER:NAME of @p as text (escaped) */
void trace_put_probe(struct jw *w, const struct usdtkit_trace_probe *p);

/* trace_metrics.c: the metrics, run from cmd_trace.c's loop */
bool trace_metrics_on(const struct tracer *t);
int trace_metrics_open(struct tracer *t);
void trace_metrics_begin(struct tracer *t, uint64_t now_ns);
int trace_metrics_step(struct tracer *t, uint64_t now_ns);
void trace_metrics_end(struct tracer *t);

/* trace_outfile.c: -o FILE, or stdout: t->out opened (0, or -1 told),
 * a failed write seen (flushed), and closed at the end (0, or -1 told) */
int trace_out_open(struct tracer *t);
bool trace_out_broken(struct tracer *t);
int trace_out_close(struct tracer *t);

/* trace_agg_print.c: the aggregations, printed (and zeroed: --interval) */
int trace_agg_report(struct tracer *t, bool reset, uint64_t now_ns);

#endif
