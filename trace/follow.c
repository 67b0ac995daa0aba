// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The objects a traced process maps after the trace began: a library it
 * dlopen()s, the program a child execs under --children. A PROVIDER:NAME
 * of -p or -c (a following probe) is attached again in each such object,
 * with the same cookie, so its counts go on under the one probe; one
 * that matches nothing yet waits (pending) until an object has it.
 *
 * Objects are known by inode (watch/objects.c): attached once whatever
 * the path, the process, or how often a library is closed and loaded
 * again (a uprobe belongs to the inode: the kernel puts the breakpoints
 * back at each mapping). The news comes from the loader itself: the
 * program's usdtkit_trace_loader on its _dl_debug_state(), which it calls
 * once the objects of a dlopen() are mapped, before they are relocated
 * or run (trace/bpf/trace_follow.h). Where the tracer holds the process
 * (watch/hold.c), the thread waits there until the objects are attached,
 * and an exec waits too: no hit is lost. Without it (ptrace denied, or
 * opts.no_hold), the process runs on while we attach: said once.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach/proc.h"
#include "trace/internal.h"
#include "watch/watch.h"
#include "trace.skel.h"

/* sites of objects mapped later: room in the program's spec and IP
 * maps beyond the targets' own (a spec is 304 bytes) */
#define FOLLOW_SPARE_SITES 256

int usdtkit__follow_prepare(struct usdtkit_trace *t)
{
	struct trace_follow *f = &t->follow;
	size_t i;

	for (i = 0; i < t->nprobes; i++)
		f->on |= t->probes[i].follow;
	f->on |= t->all;
	/* a process whose stacks are named later is held at its exit too,
	 * whatever its targets */
	f->on |= (t->pid || t->has_cmd) && usdtkit__stack_keyed(t);
	if (!f->on)
		return 0;
	t->nsites += FOLLOW_SPARE_SITES;
	return bpf_program__set_autoload(t->skel->progs.usdtkit_trace_loader, true);
}

/* every process --children traces now (or every pid of several),
 * held from here on */
static int seize_children(struct usdtkit_trace *t)
{
	int fd = bpf_map__fd(t->skel->maps.traced_tgids), err = 0;
	unsigned int key, next;
	unsigned int *prev = NULL;

	while (!err && !bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if ((int)key != t->pid)
			err = usdtkit__hold_seize(t->follow.hold, (int)key);
		if (err == -ESRCH)
			err = 0;	/* exited since */
	}
	return err;
}

/* The tracer, holding the execs of @group (-1: none), and when
 * following, the traced processes; said once when it cannot. */
void usdtkit__follow_hold_begin(struct usdtkit_trace *t, int group)
{
	struct trace_follow *f = &t->follow;
	/* a process's exit held too where its stacks are named later: its
	 * mappings read before they go, however soon after its hits */
	struct usdtkit__hold_opts o = { .forks = t->kids.on, .signal = SIGSTOP,
					.exits = usdtkit__stack_keyed(t),
					.execs = group >= 0, .exec_group = group,
					.exec_elf_only = t->all,
					.exec_remember = f->remember };
	char pids[128];
	int err;

	err = usdtkit__hold_start(&f->hold, &o);
	if (group >= 0)
		close(group);	/* the tracer's: closed when it ends */
	f->execs = !err && group >= 0;
	if (!f->on || t->all) {
		if (err)
			trace_err(t, "cannot start the tracer that holds an exec%s until "
				  "its file is attached: %s", t->all ? " or an open" : "",
				  strerror(-err));
		return;
	}
	if (!err)
		err = usdtkit__hold_seize(f->hold, t->pid);
	if (!err && t->kids.filter)
		err = seize_children(t);
	usdtkit__pids_label(t, pids, sizeof(pids));
	if (err) {
		trace_err(t, "%s: cannot hold its threads while what it maps later "
			  "is attached (ptrace: %s%s): hits in a library it loads "
			  "later may be lost until it is attached", pids, strerror(-err),
			  err == -EPERM ? "; a debugger has it, or "
			  "ptrace is denied (Yama ptrace_scope)" : "");
		usdtkit__hold_stop(f->hold);
		f->hold = NULL;
		f->execs = false;
		return;
	}
	t->skel->bss->hold_sig = SIGSTOP;
	usdtkit__info(&t->log, "%s: traced (ptrace) by usdtkit-hold, which holds a "
		      "thread until what it maps is attached: a debugger cannot attach "
		      "meanwhile (--no-hold lets it)", pids);
}

/* Does no uprobe ever fire in the processes of the loader at @path? */
static bool loader_silent(const char *path)
{
	USDTKIT_OPTS(usdtkit_open_opts, oo);
	struct usdtkit_file *f = usdtkit_file_open(path, &oo);
	bool silent = f && usdtkit__no_uprobe(f, NULL, NULL) == USDTKIT__UPROBE_SILENT;

	usdtkit_file_close(f);
	return silent;
}

/* The uprobe on the loader at @path, for the traced processes. */
int usdtkit__follow_loader_path(struct usdtkit_trace *t, const char *path)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = USDTKIT__LOADER_FUNC);
	struct trace_follow *f = &t->follow;
	struct bpf_link **v, *l;
	int err;

	v = realloc(f->loaders, (f->nloaders + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	f->loaders = v;
	/* a 32-bit arm loader on an arm64 kernel: its uprobe would attach
	 * and never fire */
	err = loader_silent(path) ? -EOPNOTSUPP : 0;
	l = err ? NULL : bpf_program__attach_uprobe_opts(t->skel->progs.usdtkit_trace_loader,
							 t->kids.filter || t->all ? -1 : t->pid,
							 path, 0, &uo);
	if (!l) {
		/* (a loader in Thumb code, which uprobes cannot probe) */
		err = err ? err : -errno;
		trace_err(t, "%s: cannot watch it for objects loaded later (%s "
			  "uprobe): %s: they are looked for every second instead, "
			  "and hits before they are attached are lost", path,
			  USDTKIT__LOADER_FUNC, err == -EOPNOTSUPP ? "this kernel "
			  "fires no uprobe in its processes" : strerror(-err));
		f->poll_ns = 1;
		return err;
	}
	f->loaders[f->nloaders++] = l;
	usdtkit__info(&t->log, "watching %s (%s) for objects mapped later", path,
		      USDTKIT__LOADER_FUNC);
	return 0;
}

/* The loader of process @pid, watched unless it is already. */
void usdtkit__follow_loader(struct usdtkit_trace *t, int pid)
{
	char path[4352];
	int err = usdtkit__watch_loader(t->follow.w, pid, path, sizeof(path));

	if (!err)
		usdtkit__follow_loader_path(t, path);
}

/* -c: the loader the command asks for, before it runs; a script's is
 * its interpreter's, watched from the start: where no exec is held
 * (--no-hold), it is what tells of the program the script execs */
static void loader_of_cmd(struct usdtkit_trace *t)
{
	char path[4096];

	if (!usdtkit__watch_run_interp(t->cmd.path, path, sizeof(path)) &&
	    !usdtkit__watch_loader_path(t->follow.w, path))
		usdtkit__follow_loader_path(t, path);
}

/*
 * Several pids: one read of each, as for one, and of each the objects
 * no pid before it maps (by inode: a program they all run is one
 * object), marked seen here, before the probes are attached in them:
 * nothing is consumed in between. A pid gone since its targets were
 * read has no read (nothing of it to attach).
 */
static int snap_pids(struct usdtkit_trace *t)
{
	USDTKIT_OPTS(usdtkit_open_opts, oo, .print = usdtkit__trace_msg,
		     .print_ctx = t);
	struct trace_follow *f = &t->follow;
	size_t k, n;
	int err = 0;

	f->snaps = calloc(t->npids, sizeof(*f->snaps));
	f->snap_only = calloc(t->npids, sizeof(*f->snap_only));
	if (!f->snaps || !f->snap_only)
		return -ENOMEM;
	for (k = 0; !err && k < t->npids; k++) {
		f->snaps[k] = usdtkit_proc_open(t->pids[k], &oo);
		if (!f->snaps[k])
			continue;
		err = usdtkit__watch_unseen(f->w, f->snaps[k], &f->snap_only[k], &n);
		if (!err)
			err = usdtkit__watch_see(f->w, f->snaps[k], f->snap_only[k]);
		usdtkit__follow_loader(t, t->pids[k]);
	}
	return err;
}

static void snaps_free(struct trace_follow *f, size_t n)
{
	size_t k;

	for (k = 0; f->snaps && k < n; k++) {
		usdtkit_proc_close(f->snaps[k]);
		free(f->snap_only[k]);
	}
	free(f->snaps);
	free(f->snap_only);
	f->snaps = NULL;
	f->snap_only = NULL;
}

int usdtkit__follow_start(struct usdtkit_trace *t)
{
	USDTKIT_OPTS(usdtkit_open_opts, oo, .print = usdtkit__trace_msg,
		     .print_ctx = t);
	struct trace_follow *f = &t->follow;
	int err, group = f->no_hold ? -1 : usdtkit__refresh_group(t);
	if (!f->on) {
		if (group >= 0)
			usdtkit__follow_hold_begin(t, group);
		return 0;
	}
	/* ipmap's map holds addresses: a library loaded again elsewhere is
	 * attached again there */
	err = usdtkit__watch_new(&f->w, &t->log, usdtkit__mode_by_address(t->mode));
	if (err) {
		if (group >= 0)
			close(group);
		return err;
	}
	if (!f->no_hold)
		usdtkit__follow_hold_begin(t, group);
	if (t->has_cmd) {
		loader_of_cmd(t);
		return 0;
	}
	if (trace_several(t))
		return snap_pids(t);
	/* one read of the process for every probe: what the first attach
	 * takes is what is marked attached, and nothing mapped between two
	 * reads is attached twice or never */
	f->snap = usdtkit_proc_open(t->pid, &oo);
	usdtkit__follow_loader(t, t->pid);
	return 0;
}

void usdtkit__follow_attached(struct usdtkit_trace *t)
{
	struct trace_follow *f = &t->follow;
	size_t i;

	if (!f->on)
		return;
	if (f->snap)
		usdtkit__watch_see(f->w, f->snap, NULL);
	snaps_free(f, t->npids);
	for (i = 0; i < t->nprobes; i++)
		if (t->probes[i].follow && t->probes[i].path && t->probes[i].link)
			usdtkit__watch_see_path(f->w, t->probes[i].path);
	usdtkit_proc_close(f->snap);
	f->snap = NULL;
}

/* The first site of @prov:@name in the objects @only of @proc. */
static const struct usdtkit_site *first_site(const struct usdtkit_proc *proc,
					     const bool *only, const char *prov,
					     const char *name, size_t *obj)
{
	const struct usdtkit_site *s;
	size_t i;

	for (i = 0; i < usdtkit_proc_object_count(proc); i++) {
		const struct usdtkit_file *f = usdtkit_proc_object(proc, i);

		if (!only[i] || !f)
			continue;
		s = usdtkit_file_next_site(f, NULL, prov, name);
		if (s) {
			*obj = i;
			return s;
		}
	}
	return NULL;
}

/*
 * A pending probe typed by its first site, and its configuration made
 * for those types and put in place before it is attached: it must fit
 * the program as loaded (it was loaded for a probe of any types).
 */
static int type_pending(struct usdtkit_trace *t, size_t i, const struct usdtkit_site *s)
{
	struct probe *p = &t->probes[i], np = *p;
	struct usdtkit_trace_cfg c;
	unsigned int k = (unsigned int)i;
	int n;

	usdtkit__site_types(s, np.pub.args, &n);
	np.pub.nargs = n;
	np.pub.mixed = false;
	if (usdtkit__agg_cfg(t, &np, &c))
		return -EINVAL;
	if (!usdtkit__agg_fits(t, &np, &c)) {
		trace_err(t, "%s:%s: its arguments need more than the loaded "
			  "program reads: restart the trace", p->provider, p->name);
		return -EINVAL;
	}
	if (bpf_map__update_elem(t->skel->maps.probe_cfg, &k, sizeof(k), &c,
				 sizeof(c), 0))
		return -errno;
	t->agg.cfgs[i] = c;
	p->pub.nargs = np.pub.nargs;
	memcpy(p->pub.args, np.pub.args, sizeof(p->pub.args));
	p->pub.mixed = false;
	return 0;
}

/* Probe @i attached in the objects @only of @proc, or (no @proc) in
 * the file at @path, @f read already. NULL and errno. */
static struct usdtkit_link *attach_objects(struct usdtkit_trace *t, size_t i,
					   const struct usdtkit_proc *proc,
					   const bool *only, const char *path,
					   const struct usdtkit_file *f)
{
	const struct probe *p = &t->probes[i];
	/* a pending probe is the glob it was given, the others exact */
	char *prov = p->pending ? strdup(p->provider) : usdtkit__glob_quote(p->provider);
	char *name = p->pending ? strdup(p->name) : usdtkit__glob_quote(p->name);
	USDTKIT_OPTS(usdtkit_attach_opts, o, .cookie = i + 1,
		     .mode = t->attach_mode, .print = usdtkit__trace_msg,
		     .print_ctx = t, .any_process = t->kids.filter || t->all);
	struct usdtkit_link *l = NULL;

	if (!prov || !name)
		errno = ENOMEM;
	else if (proc)
		l = usdtkit__attach_proc(t->prog, proc, only, prov, name, &o);
	else
		l = usdtkit__trace_link(t, i, path, prov, name, f);
	free(prov);
	free(name);
	return l;
}

/* a site of @prov:@name in @f that is not probe @s's, or NULL */
static const struct usdtkit_site *other_in(const struct usdtkit_file *f,
					   const struct usdtkit_site *s, const char *prov,
					   const char *name)
{
	const struct usdtkit_site *o = NULL;

	while (f && (o = usdtkit_file_next_site(f, o, prov, name)))
		if (strcmp(usdtkit_site_provider(o), usdtkit_site_provider(s)) ||
		    strcmp(usdtkit_site_name(o), usdtkit_site_name(s)))
			return o;
	return NULL;
}

/*
 * A pending glob is one probe: the program was loaded with a slot per
 * TARGET before the probes it would match were known. Where it matches
 * several probes (a glob under a -c script, or of a library not loaded
 * yet), their hits count together, typed by the first: said once, with
 * the way to tell them apart, so that a table of one row is understood.
 */
static void say_merged(struct usdtkit_trace *t, const struct probe *p,
		       const struct usdtkit_site *s, const struct usdtkit_proc *proc,
		       const bool *only, const struct usdtkit_file *f)
{
	const struct usdtkit_site *o = NULL;
	size_t i;

	if (!usdtkit__is_glob(p->provider) && !usdtkit__is_glob(p->name))
		return;
	o = other_in(f, s, p->provider, p->name);
	for (i = 0; !o && proc && i < usdtkit_proc_object_count(proc); i++)
		if (only[i])
			o = other_in(usdtkit_proc_object(proc, i), s, p->provider, p->name);
	if (!o)
		return;
	trace_err(t, "%s:%s waited for the program that maps it, as one probe: the "
		  "hits of %s:%s, %s:%s and the others it matches count together; "
		  "name each PROVIDER:NAME to count them apart", p->provider, p->name,
		  usdtkit_site_provider(s), usdtkit_site_name(s),
		  usdtkit_site_provider(o), usdtkit_site_name(o));
}

/* Probe @i, whose first site there is @s, attached in the objects @only
 * of @proc or in the file at @path (@f): the link kept with the probe's
 * late ones, the probe typed if it waited. NULL when it could not be. */
static struct usdtkit_link *attach_at(struct usdtkit_trace *t, size_t i,
				      const struct usdtkit_site *s,
				      const struct usdtkit_proc *proc, const bool *only,
				      const char *path, const struct usdtkit_file *f,
				      int pid, const char *where)
{
	struct probe *p = &t->probes[i];
	struct usdtkit_link **v, *l;

	v = realloc(p->late, (p->nlate + 1) * sizeof(*v));
	if (!v)
		return NULL;
	p->late = v;
	if (p->pending && type_pending(t, i, s))
		return NULL;
	if (p->pending)
		say_merged(t, p, s, proc, only, f);
	l = attach_objects(t, i, proc, only, path, f);
	if (!l) {
		trace_err(t, "pid %d: cannot attach %s:%s in %s, which it %s: %s", pid,
			  p->provider, p->name, where, proc ? "mapped later" : "opens",
			  strerror(errno));
		return NULL;
	}
	p->late[p->nlate++] = l;
	p->pending = p->pub.waiting = false;
	p->pub.sites += usdtkit_link_site_count(l);
	p->pub.mode = usdtkit_link_mode(l);
	usdtkit__info(&t->log, "pid %d: %s:%s: %zu site(s) in %s, %s", pid, p->provider,
		      p->name, usdtkit_link_site_count(l), where,
		      proc ? "mapped later" : "opened");
	return l;
}

struct usdtkit_link *usdtkit__follow_attach(struct usdtkit_trace *t, size_t i,
					    const struct usdtkit_proc *proc,
					    const bool *only)
{
	const struct probe *p = &t->probes[i];
	const struct usdtkit_site *s;
	size_t obj;

	s = first_site(proc, only, p->provider, p->name, &obj);
	return s ? attach_at(t, i, s, proc, only, NULL, NULL, usdtkit_proc_pid(proc),
			     usdtkit_proc_object_path(proc, obj)) : NULL;
}

struct usdtkit_link *usdtkit__follow_attach_file(struct usdtkit_trace *t, size_t i,
						 const char *path, const char *name,
						 const struct usdtkit_file *f, int pid)
{
	const struct probe *p = &t->probes[i];
	const struct usdtkit_site *s = usdtkit_file_next_site(f, NULL, p->provider, p->name);

	return s ? attach_at(t, i, s, NULL, NULL, path, f, pid, name) : NULL;
}

/*
 * Process @pid's objects not attached yet, attached. Read whole (each
 * object's notes) only when its maps show code of a file not looked at
 * before: a loader says so at each dlopen() and dlclose(), twice, and a
 * library loaded again is no news.
 */
void usdtkit__follow_mapped(struct usdtkit_trace *t, int pid)
{
	USDTKIT_OPTS(usdtkit_open_opts, oo);
	struct trace_follow *f = &t->follow;
	struct usdtkit__watch_news *news = NULL;
	struct usdtkit_proc *proc;
	bool *only = NULL;
	size_t i, n = 0;

	/* its rows and mappings, whatever the news for the probes: a
	 * library another process loaded before is old news to them */
	usdtkit__unwind_pid(t, pid);
	if (!f->on || !f->w || usdtkit__watch_news(f->w, pid, &news) <= 0)
		return;
	proc = usdtkit_proc_open(pid, &oo);
	if (!proc) {
		usdtkit__watch_news_free(news);
		return;		/* gone: nothing of it to attach */
	}
	f->reads++;
	if (!usdtkit__watch_unseen(f->w, proc, &only, &n) && n) {
		if (f->on_objects)
			f->on_objects(t, proc, only);
		else
			for (i = 0; i < t->nprobes; i++)
				if (t->probes[i].follow)
					usdtkit__follow_attach(t, i, proc, only);
		usdtkit__watch_see(f->w, proc, only);
	}
	usdtkit__watch_looked(f->w, news);
	free(only);
	usdtkit_proc_close(proc);
}

/* A thread the tracer holds: what it mapped attached, then let go. */
static void on_held(struct usdtkit_trace *t, const struct usdtkit__hold_event *ev)
{
	if (ev->why == USDTKIT__HOLD_EXPIRED && ev->key < 0) {
		if (!t->follow.said_expired)
			trace_err(t, "pid %d: its exec, held until a replaced file "
				  "was attached, went on unanswered after 2 s (the "
				  "trace's events were not read): its first hits may "
				  "be lost", ev->tgid);
		t->follow.said_expired = true;
		return;
	}
	if (ev->why == USDTKIT__HOLD_OPEN_EXEC && t->follow.on_open) {
		t->follow.on_open(t, ev);
		return;
	}
	if (ev->why == USDTKIT__HOLD_OPEN_EXEC) {
		usdtkit__refresh_exec(t);
		usdtkit__hold_release(t->follow.hold, ev->key);
		return;
	}
	if (ev->why == USDTKIT__HOLD_EXPIRED) {
		if (!t->follow.said_expired)
			trace_err(t, "pid %d: a thread held until what it mapped was "
				  "attached went on unanswered after 2 s (the trace's "
				  "events were not read): hits until the attach may be "
				  "lost", ev->tgid);
		t->follow.said_expired = true;
		return;
	}
	if (ev->why == USDTKIT__HOLD_EXEC)
		usdtkit__follow_loader(t, ev->tgid);
	if (ev->why != USDTKIT__HOLD_EXIT)
		usdtkit__follow_mapped(t, ev->tgid);
	else if (ev->tid == ev->tgid)
		usdtkit__stack_keep(t, ev->tgid);
	t->follow.holds++;
	usdtkit__hold_release(t->follow.hold, ev->key);
}

/* every traced process, where no loader tells: each second */
static void poll_maps(struct usdtkit_trace *t)
{
	struct trace_follow *f = &t->follow;
	uint64_t now = clock_mono_ns();
	unsigned int key, *prev = NULL;
	int fd;

	if (!f->poll_ns || now - f->poll_ns < 1000000000ull)
		return;
	f->poll_ns = now;
	if (!t->kids.filter) {
		usdtkit__follow_mapped(t, t->pid);
		return;
	}
	fd = bpf_map__fd(t->skel->maps.traced_tgids);
	while (!bpf_map_get_next_key(fd, prev, &key)) {
		usdtkit__follow_mapped(t, (int)key);
		prev = &key;
	}
}

/* Process @pid stopped by a job-control signal ('T' in its stat)? */
static bool stopped(int pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'T';
}

/*
 * The tracer died (killed): a thread it held gets the hold's SIGSTOP for
 * real, and its process stops as a job would. Which thread it held is
 * gone with it: every traced process that stands stopped gets a SIGCONT
 * (one that a user stopped meanwhile is woken too: the lesser harm).
 */
static void unstop(struct usdtkit_trace *t)
{
	unsigned int key, *prev = NULL;
	int fd;

	if (!t->kids.filter) {
		if (stopped(t->pid))
			kill(t->pid, SIGCONT);
		return;
	}
	fd = bpf_map__fd(t->skel->maps.traced_tgids);
	while (!bpf_map_get_next_key(fd, prev, &key)) {
		if (stopped((int)key))
			kill((int)key, SIGCONT);
		prev = &key;
	}
}

int usdtkit__follow_poll(struct usdtkit_trace *t)
{
	struct usdtkit__hold_event ev;
	int n;

	poll_maps(t);
	if (!t->follow.hold)
		return 0;
	while ((n = usdtkit__hold_next(t->follow.hold, &ev)) > 0)
		on_held(t, &ev);
	if (n < 0) {
		/* the tracer died: nothing holds any more */
		t->skel->bss->hold_sig = 0;
		if (t->follow.on) {
			char pids[128];

			usdtkit__pids_label(t, pids, sizeof(pids));
			trace_err(t, "the tracer that holds %s is gone (%s): hits in "
				  "a library it loads later may be lost until it is "
				  "attached", pids, strerror(-n));
		} else
			trace_err(t, "the tracer that holds the execs of replaced "
				  "files is gone (%s): a process started from one may "
				  "lose its first hits", strerror(-n));
		usdtkit__hold_stop(t->follow.hold);
		t->follow.hold = NULL;
		unstop(t);
	}
	return 0;
}

/* usdtkit_trace_fd(): the ring buffer's and the tracer's, in one, and
 * @tick's (a timer, or -1) */
int usdtkit__follow_fd(struct usdtkit_trace *t, int tick)
{
	struct trace_follow *f = &t->follow;
	struct epoll_event ev = { .events = EPOLLIN };

	if ((!f->hold && tick < 0) || f->epfd >= 0)
		return 0;
	f->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (f->epfd < 0)
		return -errno;
	if (epoll_ctl(f->epfd, EPOLL_CTL_ADD, ring_buffer__epoll_fd(t->rb), &ev) ||
	    (f->hold && epoll_ctl(f->epfd, EPOLL_CTL_ADD, usdtkit__hold_fd(f->hold), &ev)) ||
	    (tick >= 0 && epoll_ctl(f->epfd, EPOLL_CTL_ADD, tick, &ev))) {
		int err = -errno;

		close(f->epfd);
		f->epfd = -1;
		return err;
	}
	return 0;
}

/*
 * A script's probes that no program it exec'd brought: it may have run
 * the program as a child (no exec, or a pipeline), which only
 * --children traces. Said once, after the probes are named.
 */
static void hint_script(struct usdtkit_trace *t)
{
	size_t i;

	if (!t->attached || !t->cmd.script || t->kids.on)
		return;
	for (i = 0; i < t->nprobes; i++)
		if (t->probes[i].pending && t->probes[i].pub.waits_exec)
			break;
	if (i < t->nprobes)
		trace_err(t, "%s is a script and its probes appeared in no program "
			  "it exec'd; a program it runs as a child is traced with "
			  "--children", t->cmd.argv[0]);
}

void usdtkit__follow_stop(struct usdtkit_trace *t)
{
	struct trace_follow *f = &t->follow;
	size_t i;

	if (f->on && t->attached && !t->all)
		usdtkit__info(&t->log, "following: %llu thread(s) held and let go, "
			      "%llu process read(s) for objects mapped later",
			      (unsigned long long)f->holds, (unsigned long long)f->reads);
	if (f->execs && t->attached && !t->all)
		usdtkit__info(&t->log, "upgrades: %llu exec(s) of files in the targets' "
			      "directories held until their file was looked at",
			      (unsigned long long)f->exec_holds);
	/* first: every held thread goes on, and the tracer lets go */
	usdtkit__hold_stop(f->hold);
	f->hold = NULL;
	for (i = 0; i < f->nloaders; i++)
		bpf_link__destroy(f->loaders[i]);
	free(f->loaders);
	f->loaders = NULL;
	f->nloaders = 0;
	for (i = 0; t->attached && i < t->nprobes; i++)
		if (t->probes[i].pending)
			trace_err(t, "%s:%s: no process mapped an object that has it",
				  t->probes[i].provider, t->probes[i].name);
	hint_script(t);
	usdtkit_proc_close(f->snap);
	f->snap = NULL;
	snaps_free(f, t->npids);
	usdtkit__watch_free(f->w);
	f->w = NULL;
	if (f->epfd >= 0)
		close(f->epfd);
	f->epfd = -1;
}
