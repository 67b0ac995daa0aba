// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The one place a trace's program is attached to a probe: used by the
 * first attach (attach.c) and by a refresh after an upgrade (refresh.c),
 * which attach.c calls in turn. */
#include <bpf/libbpf.h>

#include "attach/proc.h"
#include "trace/internal.h"
#include "trace.skel.h"

/*
 * Attach the trace's program to @prov:@name (quoted globs) of @path, or
 * of the traced process when !@path, as probe @i (cookie @i + 1), from
 * @file when the caller read it already. The one place a trace's attach
 * options are made: a first attach and a refresh after an upgrade must
 * ask the same (--children's and several pids' any_process above all). NULL and errno.
 */
struct usdtkit_link *usdtkit__trace_link(struct usdtkit_trace *t, size_t i,
					 const char *path, const char *prov,
					 const char *name,
					 const struct usdtkit_file *file)
{
	struct bpf_program *prog = t->prog;
	USDTKIT_OPTS(usdtkit_attach_opts, o, .cookie = i + 1,
		     .mode = t->attach_mode, .print = usdtkit__trace_msg,
		     .print_ctx = t, .file = file,
		     .any_process = t->kids.filter);

	if (path)
		return usdtkit_attach(prog, t->pid ? t->pid : -1, path, prov,
				      name, &o);
	/* several pids: in each object any of them maps, once */
	if (trace_several(t))
		return usdtkit__follow_link_pids(t, i, prov, name, &o);
	/* the read of the process that the objects seen later are told
	 * from (follow.c), when there is one */
	if (t->follow.snap)
		return usdtkit__attach_proc(prog, t->follow.snap, NULL, prov, name, &o);
	return usdtkit_attach_pid(prog, t->pid, prov, name, &o);
}
