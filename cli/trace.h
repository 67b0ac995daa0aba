/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* usdtkit trace: what its three files share. */
#ifndef USDTKIT_CLI_TRACE_H
#define USDTKIT_CLI_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include <usdtkit/attach.h>

#include "json.h"
#include "trace_event.h"

#define MAX_ARGS USDTKIT_BPF_MAX_ARGS
#define TRACE_STRLEN_DEFAULT 128
#define TRACE_STRLEN_MAX 4096

/* How one argument is printed: from the ELF note, not from the event. */
struct arg_type {
	unsigned char size;
	bool is_signed;
	bool is_float;
};

/* One PROVIDER:NAME of one target, attached with cookie = index + 1. */
struct probe {
	char *path;		/* NULL: every object mapped by -p PID */
	char *provider, *name;
	int nargs;
	struct arg_type args[MAX_ARGS];
	bool mixed;		/* its sites disagree on the arguments */
	bool optional;		/* only a glob matched it: may fail to attach */
	unsigned char role;	/* ROLE_*: --latency START or END */
	/* @path as read when the targets were found (in t->files until
	 * the probes are attached): attached from, not read again */
	const struct usdtkit_file *file;
	struct usdtkit_link *link;
};

struct trace;
struct ring_buffer;
struct bpf_link;
struct bpf_program;
struct filter_expr;
struct usdtkit_trace_cfg;

/* an aggregation's argument: argN, or str(argN) where allowed */
struct agg_arg {
	bool set, str;
	unsigned char arg;
};

/* --counts, --count-by, --hist, --sum/--avg/--min/--max, --latency */
enum { AGG_SUM = 1, AGG_AVG = 2, AGG_MIN = 4, AGG_MAX = 8 };
/* probe.role: where a --latency target's probes stand (bits) */
enum { ROLE_TARGET = 0, ROLE_START = 1, ROLE_END = 2 };

struct trace_aggs {
	bool counts;
	struct agg_arg by, hist, stats;
	unsigned int stat_mask;		/* AGG_* */
	unsigned int top;		/* --top: rows of a --count-by table */
	double interval;		/* seconds, 0: only at the end */
	const char *lat_start, *lat_end; /* --latency START END */
	unsigned int key_kind;		/* enum usdtkit_trace_key */
	struct agg_arg key;
	const char *filter_text;	/* --filter EXPR */
	struct filter_expr *filter;
	struct usdtkit_trace_cfg *cfgs;	/* one per probe, while loading */
	unsigned int printed;		/* reports so far (--interval) */
	uint64_t since_ns;		/* when the report being gathered
					 * began (0: the trace's start) */
};

/* --children: trace_children.c */
struct trace_children {
	bool on;
	struct bpf_program *fork_prog;	/* the one of this kernel's layout */
	struct bpf_link *fork, *exit;	/* its tracepoints, once attached */
};

struct tracer {
	int pid;		/* 0: any process */
	enum usdtkit_mode mode;
	unsigned long long count;	/* 0: no limit */
	double duration;		/* seconds, 0: no limit */
	bool json, verbose;
	bool quiet;		/* no "Tracing ..." line */
	unsigned int str_mask;	/* --str: bit n, argument n is a string */
	unsigned int str_len;	/* --strlen: bytes of a string printed */
	unsigned short str_off[MAX_ARGS]; /* its slot in the event, 0: none */
	bool best_effort;	/* skip probes a glob matched that fail */
	bool usage_error;	/* set up failed on the options: exit 2 */
	unsigned char adding_role; /* ROLE_* of the probes being added */
	/* -c CMD: its words, the file they run (PROVIDER:NAME targets are
	 * its probes), and while it waits for its exec, the pipes to let it
	 * go and to hear back; t->pid is its pid once forked */
	char **cmd_argv, *cmd_path;
	int cmd_go_fd, cmd_err_fd;
	bool cmd_reaped;
	/* SIGINT, SIGTERM and SIGCHLD, blocked and read here; the first
	 * SIGINT or SIGTERM read, which ends the trace (0: none yet) */
	int sig_fd;
	int stop_sig;

	struct trace_aggs agg;
	struct trace_children kids;

	struct trace *skel;
	struct ring_buffer *rb;
	struct probe *probes;
	size_t nprobes, cap;
	struct usdtkit_file **files;	/* the PATH targets' files, parsed */
	size_t nfiles;
	size_t nsites;		/* of every probe: sizes the maps */
	unsigned long long printed;
	unsigned int warnings;	/* the library's, printed so far */
	/* while attaching: the library's first warning is kept here, to
	 * become the one line that reports the failure, not printed */
	bool capture;
	char *captured;
	uint64_t start_ns;	/* CLOCK_MONOTONIC, the clock of ts_ns */
	struct jw *out;
};

__attribute__((format(printf, 1, 2)))
void trace_err(const char *fmt, ...);
/* the library's diagnostics (ctx: the tracer) */
void trace_print_msg(void *ctx, enum usdtkit_log_level level, const char *msg);

/* trace_targets.c: TARGET -> probes of t (globs expanded) */
int trace_add_target(struct tracer *t, const char *target);
/* once attached: the targets' parsed files are no longer needed */
void trace_targets_release(struct tracer *t);
/* trace_suggest.c: the probe nearest a name that matched none */
bool trace_nearest_probe(const struct usdtkit_file *f, const char *prov,
			 const char *name, char *buf, size_t len, size_t *best);
/* "PATH:PROVIDER:NAME" of @p, for messages */
void trace_probe_label(const struct probe *p, char *buf, size_t n);
/* fnmatch() quoting of @s (malloc'ed), to attach by an exact name */
char *trace_glob_quote(const char *s);

/* trace_cmd.c: -c CMD (see there for how it is held before its exec) */
int trace_cmd_split(const char *s, char ***argv, const char **why);
void trace_cmd_free_argv(char **argv);
char *trace_cmd_resolve(const char *file);
int trace_cmd_start(struct tracer *t);
int trace_cmd_go(struct tracer *t);
bool trace_cmd_exited(struct tracer *t, bool block);
void trace_cmd_stop(struct tracer *t);

/* trace_children.c: --children, set up before the load (prepare) and
 * before the probes are attached (start); gone: no traced process left;
 * report: -v's line */
int trace_children_prepare(struct tracer *t);
int trace_children_start(struct tracer *t);
bool trace_children_gone(struct tracer *t);
void trace_children_report(struct tracer *t);
void trace_children_stop(struct tracer *t);

/* trace_output.c: one hit, as JSON or as a line of text */
void trace_event_json(struct jw *w, const struct tracer *t, const struct probe *p,
		      const struct usdtkit_trace_event *e, size_t size);
void trace_event_text(struct jw *w, const struct tracer *t,
		      const struct probe *p, const struct usdtkit_trace_event *e,
		      size_t size);
/* PROVIDER:NAME of @p as text (escaped) */
void trace_put_probe(struct jw *w, const struct probe *p);
/* --str: the slots' offsets in t, and the event's size */
size_t trace_str_layout(struct tracer *t);

/* trace_filter.c: --filter EXPR, parsed once, then compiled per probe
 * into the program of cli/bpf/trace_filter.h (its arguments' types
 * decide which argN exist and how they compare) */
struct filter_err {
	int col;		/* 1-based column in EXPR */
	char msg[160];
};
struct filter_expr;
struct usdtkit_filter;
int trace_filter_parse(const char *expr, struct filter_expr **out,
		       struct filter_err *err);
int trace_filter_compile(const struct filter_expr *e,
			 const struct arg_type *args, int nargs,
			 struct usdtkit_filter *out, struct filter_err *err);
void trace_filter_free(struct filter_expr *e);

/* trace_agg.c: options -> each probe's configuration and the maps' sizes
 * (before the load), then the configuration into the map (after it) */
int trace_agg_parse_arg(const char *s, bool str_ok, struct agg_arg *a);
bool trace_agg_any(const struct tracer *t);
int trace_agg_prepare(struct tracer *t);
int trace_agg_write(struct tracer *t);
void trace_agg_free(struct tracer *t);
/* trace_agg_print.c: the aggregations, printed (and zeroed: --interval) */
int trace_agg_report(struct tracer *t, bool reset, uint64_t now_ns);
int trace_read_counter(struct tracer *t, int which, unsigned long long *sum);

#endif
