// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The one place a trace's program is attached to a probe: used by the
 * first attach (attach.c) and by a refresh after an upgrade (refresh.c),
 * which attach.c calls in turn. */
#include <errno.h>
#include <stdlib.h>

#include <bpf/libbpf.h>

#include "attach/proc.h"
#include "trace/internal.h"
#include "trace.skel.h"

/* has an object of read @proc, among @only, a site of @prov:@name? */
static bool only_has(const struct usdtkit_proc *proc, const bool *only,
		     const char *prov, const char *name)
{
	size_t i;

	for (i = 0; i < usdtkit_proc_object_count(proc); i++) {
		const struct usdtkit_file *f = usdtkit_proc_object(proc, i);

		if (only[i] && f && usdtkit_file_next_site(f, NULL, prov, name))
			return true;
	}
	return false;
}

/* @n links of probe @i made, the first returned, the others late */
static struct usdtkit_link *keep_links(struct usdtkit_trace *t, size_t i,
				       struct usdtkit_link **v, size_t n)
{
	struct probe *p = &t->probes[i];
	struct usdtkit_link **late;
	size_t k;

	late = n > 1 ? realloc(p->late, (p->nlate + n - 1) * sizeof(*late)) : p->late;
	if (n > 1 && !late) {
		usdtkit_links_destroy(v, n);
		errno = ENOMEM;
		return NULL;
	}
	p->late = late;
	for (k = 1; k < n; k++) {
		p->late[p->nlate++] = v[k];
		p->pub.sites += usdtkit_link_site_count(v[k]);
	}
	return v[0];
}

/*
 * Several pids: probe @i (@prov:@name quoted) attached in the objects
 * each pid's read has that no pid before it had (follow.c's snaps, by
 * inode: a program they all run is attached once, for any process):
 * the first link, the others with the probe's late ones. NULL and
 * errno (ENOENT: none of them has it).
 */
static struct usdtkit_link *link_pids(struct usdtkit_trace *t, size_t i,
				      const char *prov, const char *name,
				      const struct usdtkit_attach_opts *o)
{
	struct trace_follow *f = &t->follow;
	struct usdtkit_link **v = calloc(t->npids, sizeof(*v)), *l;
	size_t k, n = 0;
	int err = ENOENT;

	for (k = 0; v && f->snaps && k < t->npids; k++) {
		if (!f->snaps[k] || !f->snap_only[k] ||
		    !only_has(f->snaps[k], f->snap_only[k], prov, name))
			continue;
		l = usdtkit__attach_proc(t->prog, f->snaps[k], f->snap_only[k], prov,
					 name, o);
		if (!l) {
			err = errno;
			usdtkit_links_destroy(v, n);
			n = 0;
			break;
		}
		v[n++] = l;
	}
	l = n ? keep_links(t, i, v, n) : NULL;
	if (!n)
		errno = v ? err : ENOMEM;
	free(v);
	return l;
}

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
		return link_pids(t, i, prov, name, &o);
	/* the read of the process that the objects seen later are told
	 * from (follow.c), when there is one */
	if (t->follow.snap)
		return usdtkit__attach_proc(prog, t->follow.snap, NULL, prov, name, &o);
	return usdtkit_attach_pid(prog, t->pid, prov, name, &o);
}
