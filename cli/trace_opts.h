/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* usdtkit trace: the option keys, and the parser of those of a filter
 * and of the aggregations (trace_agg_opts.c). */
#ifndef USDTKIT_CLI_TRACE_OPTS_H
#define USDTKIT_CLI_TRACE_OPTS_H

#include "opts.h"
#include "trace.h"

/* OPT_SUM..OPT_MAX in the order of USDTKIT_TRACE_AGG_SUM..MAX */
enum { OPT_MODE = 256, OPT_BEST_EFFORT, OPT_STR, OPT_STRLEN, OPT_COUNT,
       OPT_FILTER, OPT_COUNTS, OPT_COUNT_BY, OPT_TOP, OPT_HIST, OPT_SUM,
       OPT_AVG, OPT_MIN, OPT_MAX, OPT_INTERVAL, OPT_LATENCY, OPT_KEY,
       OPT_CHILDREN, OPT_SERVE, OPT_TEXTFILE, OPT_MAX_SERIES, OPT_PRINT_HITS,
       OPT_ARGS_FILE, OPT_NO_FAULT_IN, OPT_BY, OPT_STACK_DEPTH,
       OPT_BY_KEYS, OPT_NO_HOLD, OPT_ALL, OPT_STACK_FP };

/* an aggregation option into t->agg: 0, or -1 (a usage error, told) */
int trace_parse_agg_opt(struct tracer *t, struct cli_parser *p, int key);
/* options that mean nothing without others: 0, or -1 (told) */
int trace_check_agg_opts(struct tracer *t, const struct cli_cmd *c);
/* trace_metrics.c: --serve, --textfile, --max-series, --print-hits */
int trace_parse_metrics_opt(struct tracer *t, struct cli_parser *p, int key);
int trace_check_metrics_opts(struct tracer *t, const struct cli_cmd *c);
/* trace_outfile.c: -o and the options that print nothing to it */
int trace_check_out_opts(const struct tracer *t, const struct cli_cmd *c);
/* t->agg as the engine's requests, once the TARGETs are added */
int trace_request_aggs(struct tracer *t);

/*
 * trace_args_file.c: `usdtkit trace --args-file FILE ...`: is the option
 * first (elsewhere, it is a usage error of the parser)? Then @run
 * (cmd_trace()) with FILE's lines in its place; its exit code.
 */
bool trace_args_file_first(int argc, char **argv);
int trace_args_file_run(int argc, char **argv, int (*run)(int argc, char **argv));
/* trace_refresh.c: every TRACE_REFRESH_NS, files replaced under PATH
 * targets (*@next: when next; 0 at the start) */
void trace_refresh_tick(struct tracer *t, uint64_t now, uint64_t *next);

#endif
