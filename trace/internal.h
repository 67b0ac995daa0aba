/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The trace engine's internals: shared by the files of trace/ only. */
#ifndef USDTKIT_TRACE_INTERNAL_H
#define USDTKIT_TRACE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <usdtkit/trace.h>

#include "attach/mode.h"
#include "base/clock.h"
#include "base/log.h"
#include "trace/bpf/trace_event.h"

#define MAX_ARGS USDTKIT_BPF_MAX_ARGS

/* One PROVIDER:NAME of one target, attached with cookie = index + 1. */
struct probe {
	struct usdtkit_trace_probe pub;	/* what the caller sees */
	char *path;		/* NULL: every object mapped by the pid */
	char *provider, *name;
	/* @path as read when the targets were found (in t->files until
	 * the probes are attached): attached from, not read again */
	const struct usdtkit_file *file;
	struct usdtkit_link *link;
	uint64_t hits;		/* events read (hit.c): no aggregation */
	/* refresh.c: the file at @path when last looked at (st_dev,
	 * st_ino), and the links of the files it replaced, kept for the
	 * processes that still run them */
	uint64_t dev, ino;
	struct usdtkit_link **old;
	size_t nold;
	/* follow.c: a PROVIDER:NAME of a pid or a command, attached again
	 * in each object its processes map later (links in @late); pending
	 * until the first such object (no site, no link yet) */
	bool follow, pending;
	struct usdtkit_link **late;
	size_t nlate;
};

struct trace;
struct ring_buffer;
struct bpf_link;
struct bpf_program;
struct filter_expr;
struct stack_ent;
struct stack_pid;
struct usdtkit__syms;	/* core/elf/ustack.h (the symbolizer) */
struct trace_unwind;	/* unwind.c */


/* an aggregation's argument: argN, or str(argN) where allowed */
struct agg_arg {
	bool set, str;
	unsigned char arg;
};

/* A part of the trace's key, placed in the maps' key (key.c) */
struct key_part {
	unsigned char kind;		/* USDTKIT_TRACE_BY_* */
	unsigned char arg;
	unsigned short off, size;	/* bytes into the key */
};

/* a trace with these reads strings: its program is usdtkit_trace_str
 * or usdtkit_trace_by_str (load.c) */
#define STR_FEATURES (USDTKIT_TRACE_F_STR | USDTKIT_TRACE_F_FILTER_STR | \
		      USDTKIT_TRACE_F_KEY_STR)

/* the key of the keyed aggregations: one per trace */
struct trace_key {
	unsigned int nparts;
	struct key_part parts[USDTKIT_TRACE_BY_PARTS];
	unsigned int size;		/* head and parts: the maps' key size */
	unsigned int stack_depth;	/* frames of a ustack part */
	size_t entries;			/* of agg_by, agg_by_hist */
	unsigned int kinds;		/* bit k: aggregation kind k is keyed */
	unsigned int need;		/* USDTKIT_TRACE_NEED_* of building it */
	bool str;			/* some part is a str() */
	bool stack_ids;			/* a ustack part is a stack id
					 * (usdtkit_trace_by): struct
					 * usdtkit_trace_by_stack_id */
	struct usdtkit__cgroups *cgroups; /* a cgroup part: ids named
					 * (cgroup.c) */
};

/* What the request asks for, before the probes are known. */
struct trace_aggs {
	unsigned int kinds;		/* bit k: enum usdtkit_trace_agg_kind k */
	struct agg_arg by, hist, stats;
	const char *lat_start, *lat_end; /* copies, freed with the trace */
	unsigned int key_kind;		/* enum usdtkit_trace_pair_key */
	struct agg_arg key;
	char *filter_text;
	struct filter_expr *filter;
	struct usdtkit_trace_cfg *cfgs;	/* one per probe, once prepared */
	struct trace_key by_key;	/* --count-by, --by */
};

/* stack.c: the ustacks of a trace, each named once (its frames) while
 * it is in the maps */
struct trace_stacks {
	struct stack_ent *v;		/* open addressing, cap a power of 2 */
	size_t n, cap;
	unsigned int gen;		/* of the read under way */
	struct usdtkit__syms *syms;	/* the symbolizer's tables (NULL:
					 * none yet) */
	/* the pids kept for their stacks (usdtkit__stack_keep()), by pid */
	struct stack_pid *pids;
	size_t npids, pids_cap;
	bool full_said;			/* past the bound, said once */
};

/* a read of the keyed maps (by.c), which sees its own keys only: a pid
 * is let go once the last read of each kind in use saw no key of it */
enum stack_read {
	STACK_READ_BY,			/* agg_by: the probes' keys */
	STACK_READ_HIST,		/* agg_by_hist: the probes' keys */
	STACK_READ_LAT,			/* the latency's keys */
	STACK_READ_NR
};

/* -c: the command, held before its exec (cmd.c) */
struct trace_cmd {
	char **argv, *path;
	int go_fd, err_fd;
	bool reaped, said;
	/* path is no ELF program: a #! script, a version manager's shim,
	 * run as it is; its probes are those of what it execs */
	bool script;
};

/* follow.c: objects mapped after the attach, and the tracer that holds
 * a thread until they are attached */
struct usdtkit__watch;
struct usdtkit__hold;
struct usdtkit__hold_event;
struct usdtkit_proc;
struct trace_follow {
	bool on;			/* some probe follows (-p, -c) */
	bool no_hold;			/* opts.no_hold */
	struct usdtkit__watch *w;
	struct usdtkit__hold *hold;	/* NULL: not held (said once) */
	struct usdtkit_proc *snap;	/* -p: the process the first attach
					 * read, once for every probe */
	/* several pids: each one's read (NULL: gone), and its objects no
	 * pid before it maps (the first attach's, by inode) */
	struct usdtkit_proc **snaps;
	bool **snap_only;
	struct bpf_link **loaders;	/* on each loader's _dl_debug_state */
	size_t nloaders;
	int epfd;			/* usdtkit_trace_fd(): the ring buffer
					 * and the tracer */
	uint64_t holds;			/* threads held and let go */
	uint64_t reads;			/* processes read whole again */
	bool said_expired;		/* a hold went unanswered: said */
	bool execs;			/* the tracer holds the execs of the
					 * PATH targets' directories */
	bool remember;			/* and keeps its answers with the
					 * inodes (--all, Linux 5.19) */
	uint64_t exec_holds;		/* execs held and let go */
	int refreshed;			/* probes re-attached at a held exec,
					 * not yet returned by
					 * usdtkit_trace_refresh() */
	uint64_t poll_ns;		/* a loader could not be watched: its
					 * processes' maps read each second
					 * (the last time; 0: never) */
	/* where objects go that a process mapped later, and a held open,
	 * when not to follow.c's own ways (--all: all.c's) */
	void (*on_objects)(struct usdtkit_trace *t, const struct usdtkit_proc *proc,
			   const bool *only);
	void (*on_open)(struct usdtkit_trace *t, const struct usdtkit__hold_event *ev);
};

/* children: children.c */
struct trace_children {
	bool on;
	/* the program keeps the hits of traced_tgids' processes only, the
	 * probes attached for any process: --children, or several pids */
	bool filter;
	struct bpf_program *fork_prog;	/* the one of this kernel's layout */
	struct bpf_link *fork, *exit;	/* its tracepoints, once attached */
};

struct usdtkit_trace {
	struct usdtkit_log log;
	int pid;			/* the first of pids, or a command's */
	/* opts.pid or opts.pids, duplicates dropped: npids > 1 is several
	 * pids (trace_several()), filtered by traced_tgids */
	int *pids;
	size_t npids;
	enum usdtkit_mode mode;		/* AUTO resolved at load */
	/* what each attach asks for: AUTO stays AUTO, so that the library
	 * places each target (a PIE by path on a kernel without cookies
	 * gets mode inst, where mode resolves to ipmap) */
	enum usdtkit_mode attach_mode;
	unsigned int str_mask, str_len;
	unsigned short str_off[MAX_ARGS]; /* its slot in the event, 0: none */
	bool best_effort;
	usdtkit_trace_hit_fn on_hit;
	void *hit_ctx;
	unsigned char adding_role;	/* USDTKIT_TRACE_ROLE_* being added */
	bool adding_follow;		/* the probes being added follow (-p, -c) */
	bool prepared, loaded, attached;

	struct trace_cmd cmd;
	bool has_cmd;
	bool all;			/* --all: every process (all.c) */
	struct trace_all *every;	/* all.c's state, once started */

	struct trace_aggs agg;
	struct trace_children kids;
	struct trace_unwind *unw;	/* NULL: stacks not unwound here */
	bool no_unwind;			/* opts.stack_fp */
	struct trace_follow follow;
	struct trace_stacks stacks;
	/* by.c: the keys of the last read of agg_by, for READ_AGAIN */
	struct usdtkit__by_snap *by_snap;

	struct trace *skel;
	/* the skeleton's program this trace loads (load.c); cold_read: it
	 * is usdtkit_trace_str, loaded sleepable; no_fault_in: never */
	struct bpf_program *prog;
	bool cold_read, no_fault_in;
	/* late.c: strings read after the hit, one buffer per argument;
	 * hits the engine dropped once it read a filter's string late */
	char *late_buf[MAX_ARGS];
	uint64_t late_dropped;
	struct ring_buffer *rb;
	struct probe *probes;
	size_t nprobes, cap;
	struct usdtkit_file **files;	/* the PATH targets' files, parsed */
	size_t nfiles;
	size_t nsites;		/* of every probe: sizes the maps */
	unsigned int warnings;	/* the library's, said so far */
	/* while attaching: the first warning is kept here, to become the
	 * one line that reports the failure */
	bool capture;
	char *captured;
	uint64_t start_ns;	/* CLOCK_MONOTONIC, the clock of ts_ns */
};

#define trace_err(t, ...) usdtkit__warn(&(t)->log, __VA_ARGS__)
/* what the kernel's "no" for privileges means here, said wherever it
 * comes first (the load, a -p process's maps) */
#define TRACE_PRIV_HINT "tracing needs root, or CAP_BPF and CAP_PERFMON"

/* several pids (opts.pids): each PROVIDER:NAME object attached once for
 * any process, the hits filtered by the map of their tgids */
static inline bool trace_several(const struct usdtkit_trace *t)
{
	return t->npids > 1;
}

/* "pid N", or "pids N,M,..." (cut at @n bytes), for messages */
void usdtkit__pids_label(const struct usdtkit_trace *t, char *buf, size_t n);

/* msg.c: the print callback the engine hands to the layers below */
void usdtkit__trace_msg(void *ctx, enum usdtkit_log_level level, const char *msg);


/* attach.c: every link of the trace, released at once */
void usdtkit__trace_detach(struct usdtkit_trace *t);
/* link.c: the trace's program attached as probe @i */
struct usdtkit_link *usdtkit__trace_link(struct usdtkit_trace *t, size_t i,
					 const char *path, const char *prov,
					 const char *name,
					 const struct usdtkit_file *file);

/* targets.c: TARGET -> probes of t (globs expanded) */
int usdtkit__trace_add_target(struct usdtkit_trace *t, const char *target);
/* once attached: the targets' parsed files are no longer needed */
void usdtkit__trace_targets_release(struct usdtkit_trace *t);
/* the argument types of site @s (at most MAX_ARGS) */
void usdtkit__site_types(const struct usdtkit_site *s, struct usdtkit_trace_type *types,
			 int *nargs);
/* late.c: the string at @addr of process @pid, read now from its
 * memory, with bpf_probe_read_user_str()'s contract: the bytes with the
 * NUL (at most @size, the last one then the NUL), or a negative errno:
 * -EFAULT a bad pointer, -ESRCH the process (or its memory) is gone */
long usdtkit__late_read(int pid, uint64_t addr, char *buf, size_t size);
/* late.c: an event the kernel kept undecided (USDTKIT_TRACE_EV_UNDECIDED):
 * its filter run again, its strings read late. 1 keep, 0 drop, and
 * *@undecided when a string could still not be read */
int usdtkit__late_filter(struct usdtkit_trace *t, size_t probe,
			 const struct usdtkit_trace_event *e, bool *undecided);
void usdtkit__late_free(struct usdtkit_trace *t);

/* "PATH:PROVIDER:NAME" of @p, for messages */
void usdtkit__probe_label(const struct probe *p, char *buf, size_t n);
/* fnmatch() quoting of @s (malloc'ed), to attach by an exact name */
char *usdtkit__glob_quote(const char *s);
/* @s is a glob (NULL, the empty part of a TARGET, matches anything) */
bool usdtkit__is_glob(const char *s);
/* target_hint.c: a malformed TARGET told with the form it likely meant:
 * -EINVAL once said, else 0; one that lacks parts, said */
int usdtkit__target_form(struct usdtkit_trace *t, const char *target, const char *path,
			 const char *prov, const char *name);
void usdtkit__target_form_bad(struct usdtkit_trace *t, const char *target);

/* cmd_path.c: the file execvp() would run for @file (malloc'ed), or
 * NULL with errno */
char *usdtkit__cmd_resolve(const char *file);
/* cmd.c: the command (see there for how it is held before its exec) */
int usdtkit__cmd_start(struct usdtkit_trace *t);
int usdtkit__cmd_go(struct usdtkit_trace *t);
int usdtkit__cmd_exited(struct usdtkit_trace *t, bool block, int *wstatus);
int usdtkit__cmd_stop(struct usdtkit_trace *t, int *wstatus);
void usdtkit__cmd_free(struct usdtkit_trace *t);

/* filter.c: a filter, parsed once, then compiled per probe into the
 * program of trace/bpf/trace_filter.h (its arguments' types decide which
 * argN exist and how they compare) */
struct usdtkit_filter;
int usdtkit__filter_parse(const char *expr, struct filter_expr **out,
			  struct usdtkit_trace_filter_err *err);
int usdtkit__filter_compile(const struct filter_expr *e,
			    const struct usdtkit_trace_type *args, int nargs,
			    struct usdtkit_filter *out,
			    struct usdtkit_trace_filter_err *err);
void usdtkit__filter_free(struct filter_expr *e);

/* agg.c: the request -> each probe's configuration and the maps' sizes
 * (before the load), then the configuration into the map (after it) */
bool usdtkit__agg_any(const struct usdtkit_trace *t);
int usdtkit__agg_check(struct usdtkit_trace *t);
int usdtkit__agg_size(struct usdtkit_trace *t);
int usdtkit__agg_write(struct usdtkit_trace *t);
/* probe @p's configuration (0 or -EINVAL, said), and whether one made
 * after the load fits the program as verified */
int usdtkit__agg_cfg(struct usdtkit_trace *t, const struct probe *p,
		     struct usdtkit_trace_cfg *c);
bool usdtkit__agg_fits(const struct usdtkit_trace *t, const struct probe *p,
		       const struct usdtkit_trace_cfg *c);
void usdtkit__agg_free(struct usdtkit_trace *t);

/* key.c: bytes of a string key in the maps */
unsigned int usdtkit__key_str_bytes(const struct usdtkit_trace *t);
/* key.c: the kinds of key parts (one table), the trace's key set from
 * its text (0 or -EINVAL, said) and laid out once str_len is known */
int usdtkit__key_set(struct usdtkit_trace *t, const char *opt,
		     const struct usdtkit_trace_key *k, unsigned int depth,
		     size_t entries);
void usdtkit__key_layout(struct usdtkit_trace *t);
/* cgroup.c: cgroup v2 ids named by their path under the cgroup2 mount */
struct usdtkit__cgroups;
struct usdtkit__cgroups *usdtkit__cgroups_new(void);
bool usdtkit__cgroups_mounted(const struct usdtkit__cgroups *c);
void usdtkit__cgroups_free(struct usdtkit__cgroups *c);
/* the path of cgroup @id ("/" the root), NULL when unknown (removed) */
const char *usdtkit__cgroup_path(struct usdtkit__cgroups *c, uint64_t id);
/* the arguments part @i of the key reads, of probe @p: 0 or -EINVAL */
int usdtkit__key_check(struct usdtkit_trace *t, const struct probe *p);
/* key bytes @kb's part @i into @out (strings pointing into @kb) */
void usdtkit__key_decode(const struct usdtkit_trace *t, const unsigned char *kb,
			 unsigned int i, bool is_signed,
			 struct usdtkit_trace_key_value *out);

/* stack.c: the frames of ustack part @st (depth slots) as names and
 * their parts, cached per distinct stack; a sweep after each read drops
 * those no longer seen */
int usdtkit__stack_names(struct usdtkit_trace *t, const struct usdtkit_trace_by_stack *st,
			 const char *const **names,
			 const struct usdtkit_trace_frame **parts, bool *gone);

/*
 * What a USTACK part's frames point into, in the rows of
 * usdtkit_trace_read_by() (by.c): the frames' parts, just before the
 * array of their texts, so that usdtkit_trace_frame() finds them from
 * the public struct, whose size stays as it was.
 */
struct trace_frames {
	uint64_t magic;			/* TRACE_FRAMES_MAGIC */
	const struct usdtkit_trace_frame *parts;
	const char *frames[];
};

#define TRACE_FRAMES_MAGIC 0x7573746b6672616dull	/* "ustkfram" */
void usdtkit__stack_sweep(struct usdtkit_trace *t);
void usdtkit__stack_get(struct usdtkit_trace *t, const unsigned char *part,
			struct usdtkit_trace_by_stack *st);
void usdtkit__stack_free(struct usdtkit_trace *t);
/*
 * stack.c: keep what naming @pid's frames needs (its executable
 * mappings, their objects opened through the process), now, so that
 * its stacks are named after it exits; until a read of the maps finds
 * no key of it. Called when the program says a process has its first
 * stack, and by who sees a process exit before its report (an exit
 * stop): a pid kept already is read again. 0 (also: the trace keys no
 * stack, or @pid has none in the keys); -ESRCH it is gone; -ENOSPC past
 * USDTKIT__SYMS_MAX_KEPT pids (said once); -ENOMEM.
 */
int usdtkit__stack_keep(struct usdtkit_trace *t, int pid);
/* unwind.c: the call frame information's tables for ustack keys */
int usdtkit__unwind_prepare(struct usdtkit_trace *t);
int usdtkit__unwind_start(struct usdtkit_trace *t);
void usdtkit__unwind_pid(struct usdtkit_trace *t, int pid);
bool usdtkit__unwind_known(const struct usdtkit_trace *t, int pid);
void usdtkit__unwind_free(struct usdtkit_trace *t);
/* stack.c: some part of the trace's key is a ustack */
bool usdtkit__stack_keyed(const struct usdtkit_trace *t);
/* by.c, in a read of kind @r: @pid has a stack in it; then the read's
 * end, where the kept pids no read saw are let go */
void usdtkit__stack_seen(struct usdtkit_trace *t, int pid);
void usdtkit__stack_read_done(struct usdtkit_trace *t, enum stack_read r);
/* by.c: the snapshot of READ_AGAIN */
void usdtkit__by_snap_free(struct usdtkit_trace *t);

/* children.c: set up before the load (prepare) and before the probes
 * are attached (start); the forks followed; the tracepoints detached */
int usdtkit__children_prepare(struct usdtkit_trace *t);
int usdtkit__children_start(struct usdtkit_trace *t);
int usdtkit__children_forks(const struct usdtkit_trace *t, uint64_t *sum);
void usdtkit__children_stop(struct usdtkit_trace *t);
/* follow.c: set up before the load (prepare) and around the first
 * attach (start, attached); a process whose loader said it mapped
 * objects read again; the tracer's held threads served; all released */
int usdtkit__follow_prepare(struct usdtkit_trace *t);
int usdtkit__follow_start(struct usdtkit_trace *t);
void usdtkit__follow_attached(struct usdtkit_trace *t);
void usdtkit__follow_mapped(struct usdtkit_trace *t, int pid);
int usdtkit__follow_poll(struct usdtkit_trace *t);
int usdtkit__follow_fd(struct usdtkit_trace *t, int tick);
void usdtkit__follow_stop(struct usdtkit_trace *t);
/* follow.c, for all.c: the tracer started (holding @group's execs);
 * probe @i attached in the objects @only of @proc (its link, also in
 * the probe's late ones, or NULL); a process's loader watched */
void usdtkit__follow_hold_begin(struct usdtkit_trace *t, int group);
struct usdtkit_link *usdtkit__follow_attach(struct usdtkit_trace *t, size_t i,
					    const struct usdtkit_proc *proc,
					    const bool *only);
/* the same in the file at @path (@f, read already; @name for messages)
 * that process @pid opens */
struct usdtkit_link *usdtkit__follow_attach_file(struct usdtkit_trace *t, size_t i,
						 const char *path, const char *name,
						 const struct usdtkit_file *f, int pid);
void usdtkit__follow_loader(struct usdtkit_trace *t, int pid);
int usdtkit__follow_loader_path(struct usdtkit_trace *t, const char *path);

/* all.c: --all, every process of the host that maps a probe's object,
 * now and later: started in place of follow's start (the objects a
 * process maps and the opens held, through follow's callbacks); the
 * objects no process maps any more detached (each few seconds, at each
 * consume); released before follow stops */
struct trace_all;
int usdtkit__all_start(struct usdtkit_trace *t);
void usdtkit__all_sweep(struct usdtkit_trace *t);
/* a timerfd that wakes the trace for its sweep, or -1 (not --all) */
int usdtkit__all_tick(struct usdtkit_trace *t);
void usdtkit__all_free(struct usdtkit_trace *t);

/* refresh.c: the identity of the file probe @p was attached from, and
 * the links of replaced files, released with the others */
void usdtkit__refresh_note(struct probe *p);
void usdtkit__refresh_release(struct usdtkit_trace *t);
/* refresh.c: a fanotify group holding the execs of the PATH targets'
 * directories (watch/exec.c), or -1: none, or none possible (said) */
int usdtkit__refresh_group(struct usdtkit_trace *t);
/* refresh.c: a held exec opened a file of those directories */
void usdtkit__refresh_exec(struct usdtkit_trace *t);

/* hit.c: the events' layout, and one event decoded */
size_t usdtkit__str_layout(struct usdtkit_trace *t);
int usdtkit__on_event(void *ctx, void *data, size_t size);

#endif
