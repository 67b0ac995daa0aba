// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The trace engine's steps: a request (targets, a filter, aggregations)
 * -> the generic program configured, loaded, attached, and its ring
 * buffer polled. Globs are expanded here, not by the attach layer: every
 * matching probe gets its own attach and cookie (its index + 1), so a
 * hit names the exact probe, with that probe's argument types.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "trace/internal.h"
#include "base/opts.h"
#include "trace.skel.h"

/*
 * opts.pid, or opts.pids with the duplicates dropped (in the order
 * given: the first is usdtkit_trace_pid()'s): 0 or -EINVAL (both, none
 * with a count, a pid <= 0, with all) or -ENOMEM.
 */
static int set_pids(struct usdtkit_trace *t, const struct usdtkit_trace_opts *o)
{
	size_t i, j;

	if (o->pid_cnt && (!o->pids || o->pid || o->all))
		return -EINVAL;
	if (!o->pid_cnt && !o->pid)
		return 0;
	t->pids = calloc(o->pid_cnt ? o->pid_cnt : 1, sizeof(*t->pids));
	if (!t->pids)
		return -ENOMEM;
	if (!o->pid_cnt)
		t->pids[t->npids++] = o->pid;
	for (i = 0; i < o->pid_cnt; i++) {
		if (o->pids[i] <= 0)
			return -EINVAL;
		for (j = 0; j < t->npids && t->pids[j] != o->pids[i]; j++)
			;
		if (j == t->npids)
			t->pids[t->npids++] = o->pids[i];
	}
	t->pid = t->pids[0];
	return 0;
}

struct usdtkit_trace *usdtkit_trace_new(const struct usdtkit_trace_opts *opts)
{
	struct usdtkit_trace_opts o;
	struct usdtkit_trace_filter_err fe = { 0 };
	struct usdtkit_trace *t;
	int err;

	err = usdtkit__opts_copy(&o, usdtkit_trace_opts, opts);
	if (!err && (o.str_len > USDTKIT_TRACE_STRLEN_MAX || o.pid < 0 ||
		     (o.all && (o.pid || o.children)) ||
		     o.str_mask >> MAX_ARGS || (unsigned int)o.mode > USDTKIT_MODE_HWBP))
		err = -EINVAL;
	t = err ? NULL : calloc(1, sizeof(*t));
	if (!t) {
		errno = err ? -err : ENOMEM;
		return NULL;
	}
	t->log = (struct usdtkit_log){ .print = o.print, .ctx = o.print_ctx };
	t->mode = o.mode;
	t->str_mask = o.str_mask;
	t->str_len = o.str_len ? o.str_len : USDTKIT_TRACE_STRLEN_DEFAULT;
	t->best_effort = o.best_effort;
	t->on_hit = o.on_hit;
	t->hit_ctx = o.hit_ctx;
	t->kids.on = o.children;
	t->all = o.all;
	t->no_unwind = o.stack_fp;
	t->follow.no_hold = o.no_hold;
	t->follow.epfd = -1;
	t->no_fault_in = o.no_fault_in;
	t->cmd.go_fd = t->cmd.err_fd = -1;
	err = set_pids(t, &o);
	if (err) {
		usdtkit_trace_free(t);
		errno = -err;
		return NULL;
	}
	t->kids.filter = o.children || trace_several(t);
	if (o.filter) {
		t->agg.filter_text = strdup(o.filter);
		err = t->agg.filter_text ? usdtkit__filter_parse(o.filter, &t->agg.filter, &fe) :
			-ENOMEM;
		if (err == -EINVAL)
			trace_err(t, "bad filter '%s': column %d: %s", o.filter, fe.col,
				  fe.msg);
		if (err) {
			usdtkit_trace_free(t);
			errno = -err;
			return NULL;
		}
	}
	return t;
}

int usdtkit_trace_add(struct usdtkit_trace *t, const char *target)
{
	if (t->prepared || !target)
		return -EINVAL;
	return usdtkit__trace_add_target(t, target);
}

int usdtkit_trace_prepare(struct usdtkit_trace *t)
{
	int err;

	if (t->prepared)
		return -EALREADY;
	if (!t->nprobes) {
		trace_err(t, "no probe to trace");
		return -EINVAL;
	}
	err = usdtkit__agg_check(t);
	if (!err)
		t->prepared = true;
	return err;
}

int usdtkit_trace_go(struct usdtkit_trace *t)
{
	if (!t->attached)
		return -EINVAL;
	return t->has_cmd && t->cmd.go_fd >= 0 ? usdtkit__cmd_go(t) : 0;
}

int usdtkit_trace_fd(const struct usdtkit_trace *t)
{
	if (!t->rb)
		return -EINVAL;
	return t->follow.epfd >= 0 ? t->follow.epfd : ring_buffer__epoll_fd(t->rb);
}

int usdtkit_trace_consume(struct usdtkit_trace *t)
{
	int n;

	if (!t->rb)
		return -EINVAL;
	n = ring_buffer__consume(t->rb);
	usdtkit__follow_poll(t);
	usdtkit__all_sweep(t);
	return n;
}

size_t usdtkit_trace_probe_count(const struct usdtkit_trace *t)
{
	return t->nprobes;
}

const struct usdtkit_trace_probe *usdtkit_trace_probe(const struct usdtkit_trace *t,
						      size_t i)
{
	return i < t->nprobes ? &t->probes[i].pub : NULL;
}

enum usdtkit_mode usdtkit_trace_mode(const struct usdtkit_trace *t)
{
	return t->mode;
}

int usdtkit_trace_pid(const struct usdtkit_trace *t)
{
	return t->pid;
}

const int *usdtkit_trace_pids(const struct usdtkit_trace *t, size_t *n)
{
	/* a command's pid is known once forked, and not in pids */
	if (!t->npids && t->pid) {
		*n = 1;
		return &t->pid;
	}
	*n = t->npids;
	return t->npids ? t->pids : NULL;
}

uint64_t usdtkit_trace_start_ns(const struct usdtkit_trace *t)
{
	return t->start_ns;
}

void usdtkit_trace_free(struct usdtkit_trace *t)
{
	size_t i;

	if (!t)
		return;
	/* threads the tracer holds go on first, then a command, maybe
	 * not yet exec'd */
	/* (no exec waits on our copy of the tracer's group first) */
	usdtkit__all_free(t);
	usdtkit__follow_stop(t);
	usdtkit__cmd_free(t);
	ring_buffer__free(t->rb);
	usdtkit__trace_detach(t);
	usdtkit__children_stop(t);
	usdtkit__late_free(t);
	for (i = 0; i < t->nprobes; i++) {
		free(t->probes[i].path);
		free(t->probes[i].provider);
		free(t->probes[i].name);
		free(t->probes[i].late);
	}
	usdtkit__trace_targets_release(t);
	usdtkit__agg_free(t);
	usdtkit__stack_free(t);
	usdtkit__unwind_free(t);
	usdtkit__by_snap_free(t);
	free(t->probes);
	free(t->pids);
	free(t->captured);
	trace__destroy(t->skel);
	free(t);
}
