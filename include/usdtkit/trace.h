/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * usdtkit trace engine: what `usdtkit trace` does, for a C program, with
 * no BPF code and no compiler. One precompiled BPF program (embedded in
 * the library) is configured by data: which probes, a filter, which
 * arguments are strings, which aggregations. Hits come back decoded,
 * aggregations as plain structs.
 *
 * A trace goes through these steps, each a call:
 *
 *	t = usdtkit_trace_new(&opts);		filter, strings, mode, pid(s)
 *	usdtkit_trace_add(t, "PATH:PROVIDER:NAME");	(any number)
 *	usdtkit_trace_add_agg(t, KIND, &agg_opts);	(optional)
 *	usdtkit_trace_prepare(t);	checks the request against the probes
 *	usdtkit_trace_load(t);		the kernel verifies the program
 *	usdtkit_trace_attach(t);	every probe attached, or none
 *	usdtkit_trace_go(t);		a command (set_command) may run now
 *	loop: poll(usdtkit_trace_fd(t)), usdtkit_trace_consume(t);
 *	      usdtkit_trace_read_*() at any time, as often as wanted;
 *	      usdtkit_trace_refresh(t) every few s (upgraded files)
 *	usdtkit_trace_free(t);
 *
 * Errors are negative errnos, NULL with errno for constructors, and one
 * line each through opts.print naming the file, probe and argument. The
 * library never prints, exits or installs signal handlers. -EINVAL from
 * usdtkit_trace_add*() or usdtkit_trace_prepare() means the request does
 * not fit (a bad target, an argument a probe lacks): the caller's fault,
 * where the later steps' errors are the system's.
 *
 * Needs the attach layer and the BPF programs (USDTKIT_HAVE_TRACE).
 */
#ifndef USDTKIT_TRACE_H
#define USDTKIT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <usdtkit/attach.h>

#ifdef __cplusplus
extern "C" {
#endif

struct usdtkit_trace;
struct usdtkit_trace_hit;

/* Return non-zero to stop usdtkit_trace_consume() (it returns that). */
typedef int (*usdtkit_trace_hit_fn)(void *ctx, const struct usdtkit_trace_hit *hit);

/* bytes of a string argument kept by default, and at most */
#define USDTKIT_TRACE_STRLEN_DEFAULT 128
#define USDTKIT_TRACE_STRLEN_MAX 4096

struct usdtkit_trace_opts {
	size_t sz;		/* sizeof(struct usdtkit_trace_opts) */
	int pid;		/* 0: every process; N: only N, and
				 * PROVIDER:NAME targets are N's objects
				 * (several pids: pids below) */
	enum usdtkit_mode mode;	/* AUTO: the best this kernel has */
	const char *filter;	/* keep only the hits where this holds
				 * (usdtkit_trace_filter_check()); NULL */
	unsigned int str_mask;	/* hits: bit n, argument n is a pointer to
				 * a NUL-terminated string, read as one */
	unsigned int str_len;	/* bytes of a string kept (0: 128, at most
				 * 4096); also the cut of str(argN) keys */
	bool best_effort;	/* a probe only a glob matched that cannot
				 * be attached is skipped, not an error */
	usdtkit_print_fn print;	/* diagnostics, may be NULL */
	void *print_ctx;
	usdtkit_trace_hit_fn on_hit;	/* each hit, in usdtkit_trace_consume() */
	void *hit_ctx;
	bool children;		/* with a pid or a command: also the
				 * processes it forks (alive at attach and
				 * later), and theirs; needs tracefs and the
				 * initial pid namespace */
	bool no_fault_in;	/* a string on a page not in memory yet is
				 * read late, from /proc/PID/mem, even where
				 * the kernel could fault the page in at the
				 * hit (a sleepable program: Linux 6.0+) */
	bool no_hold;		/* with a pid or a command: a library it
				 * loads later is attached without holding
				 * the thread that loaded it (no ptrace
				 * tracer: a debugger can attach meanwhile),
				 * so its first hits may be lost */
	bool all;		/* every process of the host, now and later:
				 * PROVIDER:NAME targets are any object's
				 * that a process maps (not with pid or
				 * children, nor a command); needs
				 * CAP_SYS_ADMIN to hold an exec until its
				 * program is attached (docs/USING.md) */
	bool stack_fp;		/* ustack: the kernel's frame-pointer walk
				 * only, not the call frame information
				 * (.eh_frame) of each object */
	/* Several processes, as pid is one: pid_cnt pids (each > 0; a
	 * duplicate counts once), with pid 0 (both set: -EINVAL). Only
	 * these processes' hits count (with children, their forks' too);
	 * a PROVIDER:NAME target is one probe for the objects of all of
	 * them, its counts merged, attached once per object (inode) that
	 * any of them maps, for any process, the program keeping the hits
	 * of these pids (the cost of children). One pid here is pid. Not
	 * in the modes that find a site by its address (ipmap, hwbp): the
	 * load says so (-EOPNOTSUPP); AUTO takes inst where it would take
	 * ipmap. Copied: the caller keeps @pids. */
	const int *pids;
	size_t pid_cnt;
	size_t :0;		/* new fields go above */
};
#define usdtkit_trace_opts__last_field pid_cnt

USDTKIT_API struct usdtkit_trace *usdtkit_trace_new(const struct usdtkit_trace_opts *opts);

/*
 * Stops a command still running (SIGTERM, then SIGKILL 2 s later, and
 * waits for it), detaches every probe and frees @t. NULL is a no-op.
 */
USDTKIT_API void usdtkit_trace_free(struct usdtkit_trace *t);

/* Where the filter expression @expr is wrong: its 1-based column and why. */
struct usdtkit_trace_filter_err {
	int col;
	char msg[160];
};

/* 0, or -EINVAL and @err (may be NULL). Checks the syntax alone: whether
 * the arguments it names exist is told per probe by prepare(). */
USDTKIT_API int usdtkit_trace_filter_check(const char *expr,
					   struct usdtkit_trace_filter_err *err);

/*
 * Run @argv (execvp()'s $PATH search, done now: -ENOENT, -EACCES) as the
 * traced process, held before its exec until usdtkit_trace_go(), so its
 * first instruction is traced. PROVIDER:NAME targets added after this are
 * its executable's probes and those of the libraries the loader maps for
 * it (usdtkit_needed()), or of those it loads or execs later (they wait:
 * usdtkit_trace_probe()->waiting). A command that is no ELF file (a #!
 * script, a shim) is run as it is: its PROVIDER:NAME targets all wait
 * for the program it execs (->waits_exec). Exclusive with opts.pid.
 */
USDTKIT_API int usdtkit_trace_set_command(struct usdtkit_trace *t,
					  char *const argv[]);
/* The same from one line, split as sh splits words but with no
 * expansion ('...', "..." and \ quote): -EINVAL for an unterminated
 * quote or no word, said through opts.print; -EBUSY if a pid or a
 * command is set already. */
USDTKIT_API int usdtkit_trace_set_command_line(struct usdtkit_trace *t,
					       const char *line);

/*
 * A target: "PATH:PROVIDER:NAME", or "PROVIDER:NAME" with opts.pid (or
 * opts.pids: the objects of every one of them) or a command. Shell
 * globs in PROVIDER and NAME (empty: any); each matching
 * probe is attached on its own, so a hit names its exact probe. -ENOENT
 * when nothing matches (the message names the nearest probe, or the
 * library that has it), -EINVAL for a malformed target.
 */
USDTKIT_API int usdtkit_trace_add(struct usdtkit_trace *t, const char *target);

/* ---- aggregations: counted in the kernel, read with read_*() ---- */

enum usdtkit_trace_agg_kind {
	USDTKIT_TRACE_AGG_COUNTS = 0,	/* hits per probe */
	USDTKIT_TRACE_AGG_COUNT_BY,	/* hits per probe and key: argN or
					 * str(argN) */
	USDTKIT_TRACE_AGG_HIST,		/* log2 histogram of argN per probe */
	USDTKIT_TRACE_AGG_SUM,		/* sum, avg, min, max of argN: one */
	USDTKIT_TRACE_AGG_AVG,		/* argument for all four */
	USDTKIT_TRACE_AGG_MIN,
	USDTKIT_TRACE_AGG_MAX,
	USDTKIT_TRACE_AGG_LATENCY,	/* START hit -> next END hit, ns */
	USDTKIT_TRACE_AGG_NR
};

/* --latency: what pairs a START hit with its END */
enum usdtkit_trace_pair {
	USDTKIT_TRACE_PAIR_TID = 0,	/* the same thread */
	USDTKIT_TRACE_PAIR_PID,		/* the same process */
	USDTKIT_TRACE_PAIR_ARG,		/* the same value of argument arg */
	USDTKIT_TRACE_PAIR_STR,		/* the same string at argument arg */
};

struct usdtkit_trace_agg_opts {
	size_t sz;		/* sizeof(struct usdtkit_trace_agg_opts) */
	int arg;		/* argN of COUNT_BY, HIST, SUM..MAX, and of
				 * a LATENCY pair by ARG or STR */
	bool str;		/* COUNT_BY: key by the string at argN */
	const char *start, *end; /* LATENCY: targets, as usdtkit_trace_add() */
	enum usdtkit_trace_pair pair;	/* LATENCY */
	/* The key (usdtkit_trace_key_parse()): "comm", "pid,str(arg0)"...
	 * COUNT_BY counts by it (NULL: by arg, or str, as before); HIST,
	 * SUM..MAX and LATENCY (taken at START) aggregate per key with it
	 * (NULL: per probe). One key per trace: every kind keyed agrees.
	 * Read back with usdtkit_trace_read_by(). */
	const char *by;
	unsigned int stack_depth; /* ustack: frames kept, 0: 16, at most 127 */
	size_t by_keys;		/* entries of the keyed tables (0:
				 * USDTKIT_TRACE_BY_KEYS); hits past them
				 * are USDTKIT_TRACE_BY_FULL */
	size_t :0;
};
#define usdtkit_trace_agg_opts__last_field by_keys

/* ---- keys ---- */

/* the parts of a key, at most USDTKIT_TRACE_KEY_PARTS */
#define USDTKIT_TRACE_KEY_PARTS 3
/* ustack: frames kept by default, and at most (agg_opts.stack_depth) */
#define USDTKIT_TRACE_STACK_DEPTH 16
#define USDTKIT_TRACE_STACK_MAX_FRAMES 127

enum usdtkit_trace_part {
	USDTKIT_TRACE_PART_ARG = 1,	/* argN's value */
	USDTKIT_TRACE_PART_STR,		/* str(argN): the string at argN */
	USDTKIT_TRACE_PART_PID,		/* the process */
	USDTKIT_TRACE_PART_TID,		/* the thread */
	USDTKIT_TRACE_PART_COMM,	/* the thread's name (/proc/PID/task/TID/comm) */
	USDTKIT_TRACE_PART_USTACK,	/* the user stack, with the pid */
	USDTKIT_TRACE_PART_CGROUP,	/* the process's cgroup (v2): its id,
					 * and its path as str */
};

struct usdtkit_trace_key {
	unsigned int nparts;
	struct {
		enum usdtkit_trace_part kind;
		unsigned int arg;	/* ARG, STR */
	} parts[USDTKIT_TRACE_KEY_PARTS];
};

/* "argN", "str(argN)", "pid", "tid", "comm", "ustack" or "cgroup", or up to 3 of
 * them joined by ',' (spaces around each allowed): 0, or -EINVAL */
USDTKIT_API int usdtkit_trace_key_parse(const char *text, struct usdtkit_trace_key *key);
/* "arg", "str", "pid", "tid", "comm", "ustack", "cgroup"; "?" */
USDTKIT_API const char *usdtkit_trace_part_name(enum usdtkit_trace_part kind);

/*
 * Ask for an aggregation. With any, hits are no longer handed to
 * opts.on_hit: they are counted. 0 or -EINVAL (a second, different
 * argument for SUM..MAX, a str where none is allowed, a probe that is
 * both START and END...). Arguments are checked against each probe by
 * usdtkit_trace_prepare().
 */
USDTKIT_API int usdtkit_trace_add_agg(struct usdtkit_trace *t,
				      enum usdtkit_trace_agg_kind kind,
				      const struct usdtkit_trace_agg_opts *opts);
/* "counts", "count_by", "hist", "sum", "avg", "min", "max", "latency" */
USDTKIT_API const char *usdtkit_trace_agg_name(enum usdtkit_trace_agg_kind kind);
/* Is the aggregation asked for? */
USDTKIT_API bool usdtkit_trace_has_agg(const struct usdtkit_trace *t,
				       enum usdtkit_trace_agg_kind kind);

/* ---- the steps ---- */

/* The request against the probes: every argument it names exists and
 * is an integer (a string for str), the filter compiles for each. */
USDTKIT_API int usdtkit_trace_prepare(struct usdtkit_trace *t);
/* Checks the kernel (ring buffer, the mode's feature), forks a command
 * held before its exec, and loads the program: only the paths the
 * request uses are verified. */
USDTKIT_API int usdtkit_trace_load(struct usdtkit_trace *t);
/* Attaches every probe (0), or fails having attached none; with
 * opts.best_effort skips the optional probes that fail. The trace's
 * clock starts here: hits from before are dropped. */
USDTKIT_API int usdtkit_trace_attach(struct usdtkit_trace *t);
/* Lets the command exec (0 once it has; -errno of its exec); 0 without one. */
USDTKIT_API int usdtkit_trace_go(struct usdtkit_trace *t);

/*
 * A package upgrade renames a new file over a traced one: processes
 * started after it run the new file, which the probes of a PATH target
 * (and of -c's executable and libraries) are not attached to. This
 * looks at the file at each such probe's path (stat(): a few
 * microseconds a probe, meant to be called every few seconds) and, when
 * it is another file (st_dev, st_ino), attaches the probe to it with the
 * same cookie: aggregations and counters go on, cumulative. The link to
 * the replaced file is kept until usdtkit_trace_free(), for the
 * processes still running it (a uprobe is per file: no hit counts
 * twice); the kernel keeps that file's blocks as long. A missing file
 * (mid-upgrade) is looked at again next time. A probe gone from the new
 * file, or whose new argument types the request or the loaded program
 * cannot take, keeps its old link and is said once (a warning). A file
 * rewritten in place (same inode) is not seen: packages never do that.
 * PROVIDER:NAME targets of opts.pid are not refreshed: a restarted
 * process is another pid.
 *
 * Unless opts.no_hold, and where the kernel has fanotify permission
 * events (and we CAP_SYS_ADMIN), an exec of a file in a PATH target's
 * directory is held until this has been done for it, so a process
 * started right after an upgrade loses no hit; those execs wait for
 * usdtkit_trace_consume() (2 s at most). Returns the number of probes
 * attached again since the last call, by it or by a held exec (0:
 * nothing changed), or -EINVAL (not attached) or -ENOMEM.
 */
USDTKIT_API int usdtkit_trace_refresh(struct usdtkit_trace *t);

/* ---- the probes ---- */

struct usdtkit_trace_type {
	uint8_t size;		/* bytes: 1, 2, 4, 8 */
	bool is_signed, is_float;
};

/* roles of a probe in USDTKIT_TRACE_AGG_LATENCY */
#define USDTKIT_TRACE_ROLE_START 1
#define USDTKIT_TRACE_ROLE_END 2

/* Owned by the trace; fields are only ever appended. */
struct usdtkit_trace_probe {
	const char *path;	/* NULL: every object of the pid */
	const char *provider, *name;
	int nargs;		/* at most USDTKIT_BPF_MAX_ARGS */
	struct usdtkit_trace_type args[USDTKIT_BPF_MAX_ARGS];
	bool mixed;		/* its sites disagree on the arguments */
	bool optional;		/* only a glob named it */
	unsigned int role;	/* USDTKIT_TRACE_ROLE_* */
	const struct usdtkit_link *link; /* once attached; NULL if skipped */
	size_t sites;		/* sites attached (0: not attached) */
	enum usdtkit_mode mode;	/* the backend of its link, once attached */
	/* appended (the library owns the struct): a PROVIDER:NAME of a pid
	 * or a command that none of its objects had when it was attached.
	 * It waits for one mapped later (a library it loads, a program a
	 * child execs), and is attached there: link stays NULL, sites and
	 * mode tell, and nargs and args are those of its first site (before:
	 * every argument, 8 bytes) */
	bool waiting;
	/* appended: a waiting probe of a command that is no ELF program (a
	 * #! script, a shim that execs the real program): what it waits for
	 * is the program the command execs, attached at that exec, which is
	 * held until it is (no hit of the program is lost) */
	bool waits_exec;
};

USDTKIT_API size_t usdtkit_trace_probe_count(const struct usdtkit_trace *t);
USDTKIT_API const struct usdtkit_trace_probe *
usdtkit_trace_probe(const struct usdtkit_trace *t, size_t i);
/* the mode AUTO resolves to once loaded; before Linux 5.15 a probe whose
 * sites no process places (a PIE or library by path, -c) gets inst
 * instead: each probe's own is usdtkit_trace_probe()->mode */
USDTKIT_API enum usdtkit_mode usdtkit_trace_mode(const struct usdtkit_trace *t);
/* the traced pid: opts.pid, the command's once forked, or 0; with
 * several (opts.pids), the first of them */
USDTKIT_API int usdtkit_trace_pid(const struct usdtkit_trace *t);
/* the traced pids, duplicates dropped, in the order given (*@n of them;
 * one for opts.pid or a command once forked; NULL and 0 for none). The
 * array lives as long as @t */
USDTKIT_API const int *usdtkit_trace_pids(const struct usdtkit_trace *t, size_t *n);
/* CLOCK_MONOTONIC ns when the trace began (attach), as hits' ts_ns */
USDTKIT_API uint64_t usdtkit_trace_start_ns(const struct usdtkit_trace *t);
/* With a pid (not a command): has it exited, and with opts.children
 * every process it forked too? With several pids: has every one of
 * them (and with children, what they forked)? Nothing more can come
 * then. */
USDTKIT_API bool usdtkit_trace_pid_gone(const struct usdtkit_trace *t);

/* ---- hits ---- */

/* One argument of a hit: the width and sign of the site that fired. */
struct usdtkit_trace_value {
	struct usdtkit_trace_type type;
	bool ok;		/* read; else the hit's err says why */
	uint64_t raw;		/* as read: sign- or zero-extended */
	union {
		int64_t i;	/* type.is_signed */
		uint64_t u;
		double f;	/* type.is_float */
	};
	/* opts.str_mask arguments: the string (not NUL-terminated: str_len
	 * bytes), or NULL with str_err (-EFAULT: a bad pointer; -ESRCH: a
	 * page not in memory at the hit, and the process gone before it
	 * could be read late) */
	const char *str;
	size_t str_len;
	bool str_cut;		/* longer than opts.str_len */
	bool str_late;		/* read after the hit, from the process's
				 * memory: its page was not in memory at the
				 * hit and the kernel could not fault it in
				 * there; a writable page may have changed */
	int str_err;
};

struct usdtkit_trace_hit {
	size_t probe;		/* usdtkit_trace_probe(t, probe) */
	uint32_t pid, tid;
	uint64_t ts_ns;		/* CLOCK_MONOTONIC */
	int nargs;		/* < 0: the site has no spec (an errno) */
	int err;		/* first failing read, 0 if none */
	struct usdtkit_trace_value args[USDTKIT_BPF_MAX_ARGS];
	/* the filter compares a string that could be read neither at the
	 * hit nor after it: the hit is kept, never dropped for that */
	bool filter_undecided;
};

/* An fd to poll() for POLLIN: hits may be waiting. */
USDTKIT_API int usdtkit_trace_fd(const struct usdtkit_trace *t);
/* Hand every waiting hit to opts.on_hit: their number, a negative errno,
 * or what on_hit returned to stop. Hits are sent when the buffer fills
 * or at the latest when this is called: call it at each poll wakeup and
 * at a timeout of your choosing (the CLI: 100 ms). */
USDTKIT_API int usdtkit_trace_consume(struct usdtkit_trace *t);

/* ---- reading back (at any time; RESET zeroes what was read) ---- */

#define USDTKIT_TRACE_READ_RESET 1
/* usdtkit_trace_read_by() of COUNT_BY or SUM..MAX (one table): the keys
 * of the last read of that table again, sorted for this kind, without
 * reading the kernel; a report that prints several of them reads once
 * (with RESET when it resets) and then AGAIN, and no hit is in one of
 * its parts and not in another */
#define USDTKIT_TRACE_READ_AGAIN 2

enum usdtkit_trace_counter {
	USDTKIT_TRACE_KEPT = 0,		/* hits the filter kept (all without) */
	USDTKIT_TRACE_LOST,		/* hits the ring buffer had no room for */
	USDTKIT_TRACE_DROPPED,		/* hits the filter dropped */
	USDTKIT_TRACE_BY_FULL,		/* keyed hits of keys past the table's
					 * entries (agg_opts.by_keys) */
	USDTKIT_TRACE_UNMATCHED,	/* LATENCY ENDs with no START */
	USDTKIT_TRACE_FORKS,		/* opts.children: forks followed */
	USDTKIT_TRACE_UNDECIDED,	/* hits the kernel kept because the
					 * filter could not read a string there
					 * (no sleepable uprobes); with no
					 * aggregation, those the engine then
					 * dropped are DROPPED, not KEPT */
	USDTKIT_TRACE_STACK_FULL,	/* keyed hits whose ustack found no
					 * room in the stack maps: counted
					 * under a key of stack_err -EEXIST
					 * or -ENOMEM, no frames */
	USDTKIT_TRACE_STACK_FP,		/* keyed hits whose ustack has a frame
					 * found by the frame pointer (code with
					 * no call frame information, a process
					 * not read yet, an architecture the
					 * unwinder lacks): it may stop short */
};

USDTKIT_API int usdtkit_trace_counter(const struct usdtkit_trace *t,
				      enum usdtkit_trace_counter which,
				      uint64_t *value);

/* COUNTS and SUM..MAX of one probe, LATENCY's in ns */
struct usdtkit_trace_stats {
	uint64_t count;
	uint64_t sum;		/* wraps like the argument's C type */
	uint64_t min, max;	/* valid when count > 0; signed as is_signed */
	bool is_signed;
};

/* log2 buckets: 0 counts negative values, 1 zero, k + 2 [2^k, 2^(k+1)) */
#define USDTKIT_TRACE_HIST_SLOTS 66

/* Per probe. A kind asked with a key (agg_opts.by) is kept per key
 * only: read it with usdtkit_trace_read_by() (read_stats() still counts
 * a keyed SUM..MAX probe's hits, with no sum, min or max) */
USDTKIT_API int usdtkit_trace_read_stats(struct usdtkit_trace *t, size_t probe,
					 unsigned int flags,
					 struct usdtkit_trace_stats *out);
USDTKIT_API int usdtkit_trace_read_hist(struct usdtkit_trace *t, size_t probe,
					unsigned int flags,
					uint64_t buckets[USDTKIT_TRACE_HIST_SLOTS]);
USDTKIT_API int usdtkit_trace_read_latency(struct usdtkit_trace *t,
					   unsigned int flags,
					   struct usdtkit_trace_stats *stats,
					   uint64_t buckets[USDTKIT_TRACE_HIST_SLOTS],
					   uint64_t *unmatched);

/* keys kept in all by default (the kernel's tables are sized at load:
 * agg_opts.by_keys); a histogram's entries are its keys' slots */
#define USDTKIT_TRACE_BY_KEYS 10240

/* One key of COUNT_BY. */
struct usdtkit_trace_key_count {
	size_t probe;
	uint64_t count;
	uint64_t value;		/* argN's value (signed as is_signed) */
	bool is_signed;
	const char *str;	/* str(argN): str_len bytes; NULL: a bad pointer */
	size_t str_len;
	bool cut;		/* longer than opts.str_len: cut at a UTF-8
				 * character boundary, and keys equal once cut
				 * summed into this one */
	bool late;		/* str: some of the hits counted here had
				 * their string read after the hit */
	bool unread;		/* str NULL: a page not in memory at the
				 * hit, and no longer readable after it (the
				 * process exited); not a bad pointer */
};

/*
 * Every key of every probe, highest count first, ties by key (so the
 * order is reproducible). *@rows is freed with usdtkit_trace_keys_free().
 * With a key of other parts (agg_opts.by), a row is its first part: PID
 * and TID as value, COMM as str, USTACK as its pid; usdtkit_trace_read_by()
 * has them all.
 */
USDTKIT_API int usdtkit_trace_read_keys(struct usdtkit_trace *t, unsigned int flags,
					struct usdtkit_trace_key_count **rows,
					size_t *n);
USDTKIT_API void usdtkit_trace_keys_free(struct usdtkit_trace_key_count *rows,
					 size_t n);

/* ---- keyed aggregations (agg_opts.by) ---- */

/* One part of a key, as read back. */
struct usdtkit_trace_key_value {
	enum usdtkit_trace_part kind;
	unsigned int arg;	/* ARG, STR */
	uint64_t value;		/* ARG (signed as is_signed), PID, TID;
				 * USTACK: the pid; CGROUP: its id */
	bool is_signed;
	/* STR, COMM: str_len bytes, NUL-terminated too; NULL for STR: a
	 * bad pointer, or unread (below). CGROUP: its path under the
	 * cgroup2 mount ("/system.slice/x.service"), NULL when it was
	 * removed before the report or no cgroup2 is mounted. Raw bytes:
	 * escape them to show */
	const char *str;
	size_t str_len;
	bool cut, late, unread;	/* STR: as usdtkit_trace_key_count's */
	/* USTACK: its frames, innermost first, each "symbol+0xoff (object)"
	 * (C++ demangled), else "objbasename+0xaddress (object)" when no
	 * symbol covers it, "[vdso]+0xoff" / "[anon]+0xoff" in a mapping
	 * without a file, and "0x..." only in no mapping at all; ips the
	 * addresses. Their parts: usdtkit_trace_frame() */
	const char *const *frames;
	const uint64_t *ips;
	size_t nframes;
	int stack_err;		/* bpf_get_stack[id]()'s -errno: no frames */
	bool stack_gone;	/* the process was gone before its stack
				 * could be named: raw addresses */
};

/*
 * The parts of frame @i of a USTACK part, as its text shows them. The
 * caller sets sz (sizeof(struct usdtkit_trace_frame)); fields past it
 * are not written, so a caller built against an older, smaller struct
 * keeps working. Strings live as long as the rows they came from.
 */
struct usdtkit_trace_frame {
	size_t sz;
	const char *name;	/* the symbol, C++ names demangled; NULL:
				 * no symbol covers the address */
	const char *mangled;	/* the symbol as its table has it, when
				 * demangled; else NULL */
	uint64_t offset;	/* from the symbol's start (a return
				 * address may be at its very end) */
	const char *object;	/* the file's path (starts with '/'), or a
				 * mapping without one: "[vdso]", "[anon]"
				 * (JIT code); NULL: in no mapping, or the
				 * process was gone (stack_gone) */
	uint64_t address;	/* a file: the object's own virtual address
				 * (what readelf, addr2line and gdb use;
				 * the file offset when the file could not
				 * be read); else the offset into the
				 * mapping */
};
#define usdtkit_trace_frame__last_field address

/*
 * Frame @i of @v, a USTACK part of a row of usdtkit_trace_read_by(),
 * into @out. 0; -EINVAL: no @v or @out, @out->sz too small to hold sz,
 * @v no USTACK part of such a row, or @i not below @v->nframes.
 */
USDTKIT_API int usdtkit_trace_frame(const struct usdtkit_trace_key_value *v, size_t i,
				    struct usdtkit_trace_frame *out);

/* One key of a keyed aggregation, with what was counted under it. */
struct usdtkit_trace_by_row {
	size_t probe;		/* its probe; usdtkit_trace_probe_count():
				 * the LATENCY */
	unsigned int nparts;
	struct usdtkit_trace_key_value parts[USDTKIT_TRACE_KEY_PARTS];
	/* COUNT_BY, SUM..MAX: hits (count), and of SUM..MAX's argument
	 * sum, min, max; LATENCY: in ns. HIST: count is the histogram's */
	struct usdtkit_trace_stats stats;
	const uint64_t *hist;	/* HIST, LATENCY: USDTKIT_TRACE_HIST_SLOTS
				 * buckets; else NULL */
};

/*
 * Every key of aggregation @kind (COUNT_BY, HIST, SUM..MAX or LATENCY
 * asked with a key), in --top's order: the highest first of the count
 * (COUNT_BY, HIST: its hits, LATENCY), the sum, the average, the
 * smallest or the largest value (SUM..MAX); ties by key. COUNT_BY and
 * SUM..MAX share their table: RESET one, and the others read it reset
 * (or with USDTKIT_TRACE_READ_AGAIN, the rows of that same read).
 * A ustack is named once per distinct stack, kept across reads while it
 * is in the table. *@rows is freed with usdtkit_trace_by_free().
 * 0 (no rows: @kind is not keyed) or a negative errno.
 */
USDTKIT_API int usdtkit_trace_read_by(struct usdtkit_trace *t,
				      enum usdtkit_trace_agg_kind kind,
				      unsigned int flags,
				      struct usdtkit_trace_by_row **rows, size_t *n);
USDTKIT_API void usdtkit_trace_by_free(struct usdtkit_trace_by_row *rows, size_t n);
/* the key of the trace's keyed aggregations (nparts 0: none) */
USDTKIT_API int usdtkit_trace_by_key(const struct usdtkit_trace *t,
				     struct usdtkit_trace_key *key);

/* ---- the command ---- */

/*
 * Has the command exited? 0: it runs; 1: it has exited, and *@wstatus
 * is its waitpid() status, the first time only (-1 after, or when it
 * never ran). @block: wait for it.
 */
USDTKIT_API int usdtkit_trace_command_exited(struct usdtkit_trace *t, bool block,
					     int *wstatus);
/* End the command as usdtkit_trace_free() does; its status as above. */
USDTKIT_API int usdtkit_trace_command_stop(struct usdtkit_trace *t, int *wstatus);

#ifdef __cplusplus
}
#endif

/* The exporter's API has a header of its own; this one still declares
 * it for the callers that included trace.h alone for it. */
#include <usdtkit/metrics.h>

#endif /* USDTKIT_TRACE_H */
