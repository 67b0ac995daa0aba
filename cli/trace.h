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
	struct usdtkit_link *link;
};

struct trace;
struct ring_buffer;

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
	/* -c CMD: its words, the file they run (PROVIDER:NAME targets are
	 * its probes), and while it waits for its exec, the pipes to let it
	 * go and to hear back; t->pid is its pid once forked */
	char **cmd_argv, *cmd_path;
	int cmd_go_fd, cmd_err_fd;
	bool cmd_reaped;

	struct trace *skel;
	struct ring_buffer *rb;
	struct probe *probes;
	size_t nprobes, cap;
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

/* trace_output.c: one hit, as JSON or as a line of text */
void trace_event_json(struct jw *w, const struct tracer *t, const struct probe *p,
		      const struct usdtkit_trace_event *e, size_t size);
void trace_event_text(struct jw *w, const struct tracer *t,
		      const struct probe *p, const struct usdtkit_trace_event *e,
		      size_t size);
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

#endif
