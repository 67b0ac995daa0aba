// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit_attach(): sites -> specs -> spec ids -> kernel links, all or
 * nothing. Every resource is recorded in the link the moment it is
 * taken, so one teardown path (link_release) serves both detach and the
 * rollback of a failed attach.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach/backend.h"
#include "attach/proc.h"
#include "base/opts.h"
#include "elf/file.h"
#include "elf/proc.h"
#include "spec/arch.h"
#include "spec/spectable.h"

#define ET_EXEC_TYPE 2

struct attach_req {
	const struct bpf_program *prog;
	struct usdtkit_attach_opts o;
	int pid;		/* as given: -1 any, 0 self, N */
	const char *provider, *name;
};

/* The backend's part first: no site may run the program once its spec
 * id can be handed out again. */
static void link_release(struct usdtkit_link *l)
{
	size_t i;

	l->b->release(l);
	if (l->nids) {
		pthread_mutex_lock(&l->man->lock);
		for (i = 0; i < l->nids; i++)
			usdtkit__spec_table_put(l->man->specs, l->ids[i]);
		pthread_mutex_unlock(&l->man->lock);
	}
	l->nids = 0;
}

void usdtkit_link_destroy(struct usdtkit_link *l)
{
	if (!l)
		return;
	link_release(l);
	usdtkit__manager_put(l->man);
	free(l->ids);
	free(l);
}

/* ---- per site ---- */

/* Encode the site's spec, take an id for it and write it to the map. */
static int site_spec(struct usdtkit_link *l, const struct attach_req *r,
		     const struct usdtkit_file *f, const struct usdtkit_site *s,
		     int64_t ip_delta, int *idp)
{
	struct usdtkit_manager *m = l->man;
	unsigned char spec[USDTKIT_SPEC_MAX_BYTES];
	const struct usdtkit_arg *args = usdtkit_site_arg(s, 0);
	int id, err, n = usdtkit_site_arg_count(s);
	bool created = false;
	char where[512];

	snprintf(where, sizeof(where), "%s: %s:%s", usdtkit_file_name(f),
		 usdtkit_site_provider(s), usdtkit_site_name(s));
	err = usdtkit__spec_encode(&l->log, where, usdtkit_file_arch(f),
				   usdtkit_site_args_text(s), args, n, r->o.cookie,
				   ip_delta, m->abi, spec, sizeof(spec));
	if (err)
		return err;
	/* the spec is written under the lock: another attach that finds the
	 * id must find its bytes in the map too */
	pthread_mutex_lock(&m->lock);
	id = usdtkit__spec_table_get_raw(m->specs, spec, m->spec_value_size, &created);
	if (id >= 0) {
		err = usdtkit__append((void **)&l->ids, &l->nids, sizeof(int), &id);
		if (err)
			usdtkit__spec_table_put(m->specs, id);
		else if (created && bpf_map_update_elem(m->spec_fd, &id, spec, BPF_ANY))
			err = -errno;	/* the id stays in l->ids: released with it */
	}
	pthread_mutex_unlock(&m->lock);
	if (id < 0) {
		usdtkit__warn(&l->log, "%s: map usdtkit_specs is full (%u specs): "
			      "build the program with a larger USDTKIT_MAX_SPECS, "
			      "or set its max_entries before load", where,
			      usdtkit__spec_table_used(m->specs));
		return id;
	}
	if (err) {
		usdtkit__warn(&l->log, "%s: spec %d: %s", where, id, strerror(-err));
		return err;
	}
	*idp = id;
	return 0;
}

static int site_check(const struct usdtkit_link *l, const struct usdtkit_file *f,
		      const struct usdtkit_site *s)
{
	/* Thumb code fails for uprobes only: a breakpoint takes it */
	if (!usdtkit_site_status(s) || (usdtkit__site_thumb(s) && l->b->breakpoints))
		return 0;
	usdtkit__warn(&l->log, "%s: %s:%s at 0x%llx: %s", usdtkit_file_name(f),
		      usdtkit_site_provider(s), usdtkit_site_name(s),
		      (unsigned long long)usdtkit_site_pc(s), usdtkit_site_error(s));
	return usdtkit_site_status(s);
}

/* a kernel that runs @f's programs and fires no uprobe in them */
static bool uprobes_silent(const struct usdtkit_file *f)
{
	const struct usdtkit_arch *a = usdtkit_file_arch(f);
	struct utsname u;

	return a && !uname(&u) && usdtkit__machine_in(a->no_uprobe_kernels, u.machine);
}

/*
 * A kernel that runs @f's processes but fires no uprobe in them (the
 * manifest's no_uprobe_kernels: an arm64 kernel and AArch32 code, whose
 * uprobes it accepts and never fires): refused in one line rather than
 * attached to count nothing.
 */
static int uprobes_fire(const struct usdtkit_link *l, const struct usdtkit_file *f,
			const struct usdtkit_proc *proc)
{
	const struct usdtkit_arch *a = usdtkit_file_arch(f);
	struct utsname u;
	char who[32] = "";

	if (l->b->breakpoints || !uprobes_silent(f) || uname(&u))
		return 0;
	if (proc)
		snprintf(who, sizeof(who), " (pid %d)", usdtkit_proc_pid(proc));
	usdtkit__warn(&l->log, "%s%s: this %s kernel (Linux %s) runs %s programs "
		      "but fires no uprobe in them: nothing attached, as its hits "
		      "would never be seen (--mode hwbp traces a process, by pid; "
		      "docs/ARCHES.md)",
		      usdtkit_file_name(f), who, u.machine, u.release,
		      usdtkit_arch_name(a));
	return -EOPNOTSUPP;
}

enum usdtkit__no_uprobe usdtkit__no_uprobe(const struct usdtkit_file *f,
					   const char *provider, const char *name)
{
	const struct usdtkit_site *s = NULL;

	if (uprobes_silent(f))
		return USDTKIT__UPROBE_SILENT;
	while ((s = usdtkit_file_next_site(f, s, provider, name)))
		if (usdtkit__site_thumb(s))
			return USDTKIT__UPROBE_THUMB;
	return USDTKIT__UPROBE_OK;
}

/* Everything one file contributes, then one backend call for it. */
static int attach_file(struct usdtkit_link *l, const struct attach_req *r,
		       const char *kpath, const struct usdtkit_file *f,
		       const struct usdtkit_proc *proc)
{
	const struct usdtkit_site *s = NULL;
	struct usdtkit_target *t = NULL;
	size_t n = 0;
	int err = uprobes_fire(l, f, proc);

	while (!err && (s = usdtkit_file_next_site(f, s, r->provider, r->name))) {
		struct usdtkit_target tg = { .path = kpath, .offset = usdtkit_site_pc_offset(s),
					     .provider = usdtkit_site_provider(s),
					     .name = usdtkit_site_name(s) };
		uint64_t nop5 = usdtkit_site_nop5_offset(s);
		uint64_t nop10 = usdtkit_site_nop10_offset(s);
		int64_t delta = 0;

		err = site_check(l, f, s);
		if (err)
			break;
		/* a long nop only where this kernel optimizes it: 6.18
		 * refuses a BPF uprobe on a nop10 (a tracefs one it accepts
		 * and never fires) */
		if (nop10 && usdtkit_features_uprobe_opt()->uprobe_opt_nop10) {
			delta = (int64_t)(nop10 - tg.offset);
			tg.offset = nop10;
		} else if (r->o.use_nop5 && nop5) {
			delta = (int64_t)(nop5 - tg.offset);
			tg.offset = nop5;
		}
		if (usdtkit_site_semaphore(s)) {
			if (!usdtkit_features()->ref_ctr_offset) {
				usdtkit__warn(&l->log, "%s: %s:%s has a semaphore and this "
					      "kernel has no ref_ctr_offset",
					      usdtkit_file_name(f), usdtkit_site_provider(s),
					      usdtkit_site_name(s));
				err = -EOPNOTSUPP;
				break;
			}
			tg.ref_ctr = usdtkit_site_semaphore_offset(s);
		}
		err = site_spec(l, r, f, s, delta, &tg.spec_id);
		if (!err && l->b->site)
			err = l->b->site(l, &tg, f, s, proc, delta);
		if (!err)
			err = usdtkit__append((void **)&t, &n, sizeof(*t), &tg);
	}
	if (!err && n) {
		/* any_process: @proc placed the sites, the kernel filters none */
		err = l->b->attach(l, r->prog, t, n, r->o.any_process &&
				   !l->b->breakpoints ? -1 : r->pid);
		if (!err)
			l->nsites += n;
	}
	free(t);
	return err;
}

/* ---- public entry points ---- */

/* A link with its manager and mode; NULL with errno set. */
static struct usdtkit_link *link_new(struct attach_req *r,
				     const struct usdtkit_attach_opts *opts)
{
	struct usdtkit_log log;
	struct usdtkit_manager *man;
	const struct usdtkit__backend *b;
	struct usdtkit_link *l;
	int mode;

	mode = usdtkit__opts_copy(&r->o, usdtkit_attach_opts, opts);
	if (mode) {
		errno = -mode;
		return NULL;
	}
	log.print = r->o.print;
	log.ctx = r->o.print_ctx;
	man = usdtkit__manager_get(r->prog, &log);
	if (!man)
		return NULL;
	mode = usdtkit__mode_pick(r->prog, r->o.mode, true, man->abi, &log);
	b = mode < 0 ? NULL : usdtkit__backend_of((enum usdtkit_mode)mode);
	/* room for any backend's state: AUTO may change its mind once the
	 * file is read (unplaced()) */
	l = b ? calloc(1, sizeof(*l) + usdtkit__backend_state_max()) : NULL;
	if (!l) {
		usdtkit__manager_put(man);
		errno = mode < 0 ? -mode : ENOMEM;
		return NULL;
	}
	l->man = man;
	l->log = log;
	l->mode = (enum usdtkit_mode)mode;
	l->b = b;
	l->prog = r->prog;
	l->detach_wait = r->o.detach_wait;
	l->any_process = r->o.any_process;
	return l;
}

static struct usdtkit_link *finish(struct usdtkit_link *l, int err,
				   const char *what)
{
	if (!err && !l->nsites) {
		usdtkit__warn(&l->log, "%s: no such probe", what);
		err = -ENOENT;
	}
	if (!err)
		return l;
	usdtkit_link_destroy(l);
	errno = -err;
	return NULL;
}

static void describe(char *buf, size_t size, const char *where,
		     const struct attach_req *r)
{
	/* truncation only shortens a message */
	if (snprintf(buf, size, "%s: %s:%s", where, r->provider ? r->provider : "*",
		     r->name ? r->name : "*") < 0)
		buf[0] = 0;
}

static struct usdtkit_proc *open_proc(struct usdtkit_link *l, int pid)
{
	USDTKIT_OPTS(usdtkit_open_opts, oo, .print = l->log.print,
		     .print_ctx = l->log.ctx);

	return usdtkit_proc_open(pid ? pid : getpid(), &oo);
}

/*
 * Is @st the file the process maps as object @i? Same inode as the path
 * the object was opened through, its map_files link most often: the
 * path in maps is the process's view, which a chroot makes another.
 */
static bool same_file(const struct usdtkit_proc *p, size_t i, const struct stat *st)
{
	char buf[4352];
	struct stat o;

	return !usdtkit__proc_object_kpath(p, i, buf, sizeof(buf)) && !stat(buf, &o) &&
	       o.st_dev == st->st_dev && o.st_ino == st->st_ino;
}

/* @path as the process maps it (*@objp), or -ENOENT when it does not. */
static int find_mapped(struct usdtkit_link *l, const struct attach_req *r,
		       const char *path, struct usdtkit_proc **procp,
		       const struct usdtkit_file **objp)
{
	struct usdtkit_proc *proc = open_proc(l, r->pid);
	struct stat st;
	size_t i;

	*procp = proc;
	if (!proc)
		return -errno;
	if (stat(path, &st))
		return -errno;
	for (i = 0; i < usdtkit_proc_object_count(proc); i++)
		if (usdtkit_proc_object(proc, i) && same_file(proc, i, &st)) {
			*objp = usdtkit_proc_object(proc, i);
			return 0;
		}
	return -ENOENT;
}

/*
 * AUTO picked a backend that needs the sites' addresses, and no process
 * gives them (no PID, or a command that has not mapped the file yet):
 * the next backend that needs none. Nothing is attached yet, so the
 * link's state is still zero.
 */
static int unplaced(struct usdtkit_link *l, const struct attach_req *r)
{
	int mode = usdtkit__mode_pick(r->prog, USDTKIT_MODE_AUTO, false, l->man->abi,
				      &l->log);

	if (mode < 0)
		return mode;
	l->mode = (enum usdtkit_mode)mode;
	l->b = usdtkit__backend_of(l->mode);
	return 0;
}

/* A PIE or library for a backend that finds specs by address. */
static int attach_placed(struct usdtkit_link *l, const struct attach_req *r,
			 const char *path, const struct usdtkit_file *f,
			 struct usdtkit_proc **procp)
{
	const struct usdtkit_file *obj = NULL;
	int err = r->pid == -1 ? -ENOENT : find_mapped(l, r, path, procp, &obj);

	if (!err)
		return attach_file(l, r, path, obj, *procp);
	if (err != -ENOENT)
		return err;
	if (r->o.mode == USDTKIT_MODE_AUTO) {
		err = unplaced(l, r);
		return err ? err : attach_file(l, r, path, f, NULL);
	}
	if (r->pid == -1)	/* the backend says why it needs one */
		return attach_file(l, r, path, f, NULL);
	usdtkit__warn(&l->log, "%s is not mapped by pid %d", usdtkit_file_name(f),
		      usdtkit_proc_pid(*procp));
	return -ENOENT;
}

struct usdtkit_link *usdtkit_attach(struct bpf_program *prog, int pid,
				    const char *path, const char *provider,
				    const char *name,
				    const struct usdtkit_attach_opts *opts)
{
	struct attach_req r = { .prog = prog, .pid = pid, .provider = provider,
				.name = name };
	USDTKIT_OPTS(usdtkit_open_opts, oo);
	struct usdtkit_proc *proc = NULL;
	struct usdtkit_file *opened = NULL;
	const struct usdtkit_file *f;
	struct usdtkit_link *l;
	char what[512];
	int err;

	if (!prog || !path || pid < -1) {
		errno = EINVAL;
		return NULL;
	}
	l = link_new(&r, opts);
	if (!l)
		return NULL;
	describe(what, sizeof(what), path, &r);
	oo.print = l->log.print;
	oo.print_ctx = l->log.ctx;
	f = r.o.file;
	if (!f) {
		f = opened = usdtkit_file_open(path, &oo);
		if (!f)
			return finish(l, -errno, what);
	}
	/* IP-map addresses of a PIE or library come from the process: attach
	 * through its own view of the file, the one it has the mappings of */
	if (l->b->by_address && usdtkit_file_type(f) != ET_EXEC_TYPE)
		err = attach_placed(l, &r, path, f, &proc);
	else
		err = attach_file(l, &r, path, f, NULL);
	usdtkit_proc_close(proc);
	usdtkit_file_close(opened);
	return finish(l, err, what);
}

/* The objects of @proc (those with @only[i], or all) with the probe. */
static int attach_objects(struct usdtkit_link *l, const struct attach_req *r,
			  const struct usdtkit_proc *proc, const bool *only)
{
	char kpath[4352];
	size_t i;
	int err = 0;

	for (i = 0; !err && i < usdtkit_proc_object_count(proc); i++) {
		const struct usdtkit_file *f = usdtkit_proc_object(proc, i);

		if (!f || (only && !only[i]) ||
		    !usdtkit_file_next_site(f, NULL, r->provider, r->name))
			continue;
		/* the path the object was read through, which the kernel
		 * resolves to the inode mapped (a chroot, a container, a
		 * file deleted or replaced) */
		err = usdtkit__proc_object_kpath(proc, i, kpath, sizeof(kpath));
		if (err)
			usdtkit__warn(&l->log, "pid %d: %s: %s", usdtkit_proc_pid(proc),
				      usdtkit_proc_object_path(proc, i), strerror(-err));
		else
			err = attach_file(l, r, kpath, f, proc);
	}
	return err;
}

struct usdtkit_link *usdtkit__attach_proc(struct bpf_program *prog,
					  const struct usdtkit_proc *proc,
					  const bool *only, const char *provider,
					  const char *name,
					  const struct usdtkit_attach_opts *opts)
{
	struct attach_req r = { .prog = prog, .provider = provider, .name = name };
	struct usdtkit_link *l;
	char what[512];

	if (!prog || !proc) {
		errno = EINVAL;
		return NULL;
	}
	r.pid = usdtkit_proc_pid(proc);
	l = link_new(&r, opts);
	if (!l)
		return NULL;
	snprintf(what, sizeof(what), "pid %d", r.pid);
	describe(what, sizeof(what), strdupa(what), &r);
	return finish(l, attach_objects(l, &r, proc, only), what);
}

struct usdtkit_link *usdtkit_attach_pid(struct bpf_program *prog, int pid,
					const char *provider, const char *name,
					const struct usdtkit_attach_opts *opts)
{
	USDTKIT_OPTS(usdtkit_open_opts, oo);
	struct usdtkit_attach_opts ao;
	struct usdtkit_proc *proc;
	struct usdtkit_link *l;
	int err = usdtkit__opts_copy(&ao, usdtkit_attach_opts, opts);

	if (!prog || pid < 0 || err) {
		errno = err ? -err : EINVAL;
		return NULL;
	}
	/* what reading the process says goes to the caller's callback */
	oo.print = ao.print;
	oo.print_ctx = ao.print_ctx;
	proc = usdtkit_proc_open(pid ? pid : getpid(), &oo);
	if (!proc)
		return NULL;
	l = usdtkit__attach_proc(prog, proc, NULL, provider, name, opts);
	err = l ? 0 : errno;
	usdtkit_proc_close(proc);
	errno = err;
	return l;
}

enum usdtkit_mode usdtkit_link_mode(const struct usdtkit_link *l)
{
	return l ? l->mode : USDTKIT_MODE_AUTO;
}

size_t usdtkit_link_site_count(const struct usdtkit_link *l)
{
	return l ? l->nsites : 0;
}

size_t usdtkit_link_fd_count(const struct usdtkit_link *l)
{
	return l ? l->b->fd_count(l) : 0;
}
