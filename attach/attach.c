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
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "internal.h"
#include "opts.h"
#include "proc.h"
#include "spectable.h"

#define ET_EXEC_TYPE 2

struct attach_req {
	const struct bpf_program *prog;
	struct usdtkit_attach_opts o;
	int pid;		/* as given: -1 any, 0 self, N */
	const char *provider, *name;
};

static void link_release(struct usdtkit_link *l)
{
	size_t i;

	if (l->multi_fd >= 0)
		close(l->multi_fd);
	l->multi_fd = -1;
	usdtkit__perf_release(l->perf, l->nperf, l->detach_wait);
	l->nperf = 0;
	if (l->man) {
		pthread_mutex_lock(&l->man->lock);
		for (i = 0; i < l->nips; i++)
			usdtkit__ip_del(l->man, l->ips[i]);
		for (i = 0; i < l->nids; i++)
			usdtkit__spec_table_put(l->man->specs, l->ids[i]);
		pthread_mutex_unlock(&l->man->lock);
	}
	l->nips = l->nids = 0;
}

void usdtkit_link_destroy(struct usdtkit_link *l)
{
	if (!l)
		return;
	link_release(l);
	usdtkit__manager_put(l->man);
	free(l->perf);
	free(l->ids);
	free(l->ips);
	free(l);
}

/* ---- mode ---- */

static int pick_mode(const struct attach_req *r, enum usdtkit_spec_abi abi,
		     const struct usdtkit_log *lg)
{
	bool prepared = bpf_program__expected_attach_type(r->prog) ==
			(enum bpf_attach_type)USDTKIT_TRACE_UPROBE_MULTI;
	enum usdtkit_mode m = r->o.mode;

	if (m == USDTKIT_MODE_AUTO)
		m = prepared ? USDTKIT_MODE_MULTI :
		    usdtkit_features()->bpf_cookie ? USDTKIT_MODE_PERF :
		    USDTKIT_MODE_IPMAP;
	if ((m == USDTKIT_MODE_MULTI) != prepared) {
		usdtkit__warn(lg, "program '%s' was loaded for %s links, not %s: call "
			      "usdtkit_prog_prepare(prog, %s) before loading it",
			      bpf_program__name(r->prog), prepared ? "uprobe_multi" : "perf",
			      usdtkit_mode_str(m), usdtkit_mode_str(m));
		return -EINVAL;
	}
	/* say which feature is missing: EOPNOTSUPP alone does not tell a
	 * user on a 6.1 board that the kernel, not the probe, is the cause */
	if (m == USDTKIT_MODE_MULTI && !usdtkit_features()->uprobe_multi) {
		usdtkit__warn(lg, "mode multi: this kernel has no uprobe_multi links "
			      "(Linux 6.6 and later): use mode perf or ipmap");
		return -EOPNOTSUPP;
	}
	if (m == USDTKIT_MODE_PERF && !usdtkit_features()->bpf_cookie) {
		usdtkit__warn(lg, "mode perf: this kernel has no BPF cookies "
			      "(Linux 5.15 and later): use mode ipmap");
		return -EOPNOTSUPP;
	}
	/* libbpf's usdt.bpf.h looks at the IP map only on kernels without
	 * cookies; on others a cookie-less link would read spec 0 */
	if (m == USDTKIT_MODE_IPMAP && !usdtkit__abi_own(abi) &&
	    usdtkit_features()->bpf_cookie) {
		usdtkit__warn(lg, "programs built with libbpf's usdt.bpf.h use BPF "
			      "cookies on this kernel: IP-map mode would misread them");
		return -EOPNOTSUPP;
	}
	if ((unsigned int)m > USDTKIT_MODE_IPMAP)
		return -EINVAL;
	return (int)m;
}

/* ---- per site ---- */

static int record(void **arr, size_t *n, size_t elem, const void *v)
{
	void *p = realloc(*arr, (*n + 1) * elem);

	if (!p)
		return -ENOMEM;
	memcpy((char *)p + *n * elem, v, elem);
	*arr = p;
	(*n)++;
	return 0;
}

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
		err = record((void **)&l->ids, &l->nids, sizeof(int), &id);
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
	if (!usdtkit_site_status(s))
		return 0;
	usdtkit__warn(&l->log, "%s: %s:%s at 0x%llx: %s", usdtkit_file_name(f),
		      usdtkit_site_provider(s), usdtkit_site_name(s),
		      (unsigned long long)usdtkit_site_pc(s), usdtkit_site_error(s));
	return usdtkit_site_status(s);
}

static int site_ip(struct usdtkit_link *l, const struct usdtkit_file *f,
		   const struct usdtkit_site *s, const struct usdtkit_proc *proc,
		   uint64_t *ip)
{
	int err;

	if (usdtkit_file_type(f) == ET_EXEC_TYPE) {
		*ip = usdtkit_site_pc(s);
		return 0;
	}
	if (!proc) {
		usdtkit__warn(&l->log, "%s: IP-map attach to a PIE or shared library "
			      "needs a PID (its load address differs per process)",
			      usdtkit_file_name(f));
		return -EINVAL;
	}
	err = usdtkit_proc_site_addr(proc, s, ip);
	if (err)
		usdtkit__warn(&l->log, "%s: %s:%s is not mapped in pid %d",
			      usdtkit_file_name(f), usdtkit_site_provider(s),
			      usdtkit_site_name(s), usdtkit_proc_pid(proc));
	return err;
}

/* Everything one file contributes, then one backend call for it. */
static int attach_file(struct usdtkit_link *l, const struct attach_req *r,
		       const char *kpath, const struct usdtkit_file *f,
		       const struct usdtkit_proc *proc)
{
	const struct usdtkit_site *s = NULL;
	struct usdtkit_target *t = NULL;
	size_t n = 0;
	int err = 0;

	while (!err && (s = usdtkit_file_next_site(f, s, r->provider, r->name))) {
		struct usdtkit_target tg = { .path = kpath, .offset = usdtkit_site_pc_offset(s),
					     .provider = usdtkit_site_provider(s),
					     .name = usdtkit_site_name(s) };
		uint64_t nop5 = usdtkit_site_nop5_offset(s);
		int64_t delta = 0;

		err = site_check(l, f, s);
		if (err)
			break;
		if (r->o.use_nop5 && nop5) {
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
		if (!err && l->mode == USDTKIT_MODE_IPMAP) {
			err = site_ip(l, f, s, proc, &tg.ip);
			if (!err) {
				char where[512];

				snprintf(where, sizeof(where), "%s: %s:%s",
					 usdtkit_file_name(f), usdtkit_site_provider(s),
					 usdtkit_site_name(s));
				tg.ip += (uint64_t)delta;
				pthread_mutex_lock(&l->man->lock);
				err = usdtkit__ip_add(l->man, tg.ip, tg.spec_id, &l->log,
						      where);
				if (!err && (err = record((void **)&l->ips, &l->nips,
							  sizeof(uint64_t), &tg.ip)))
					usdtkit__ip_del(l->man, tg.ip);
				pthread_mutex_unlock(&l->man->lock);
			}
		}
		if (!err)
			err = record((void **)&t, &n, sizeof(*t), &tg);
	}
	if (!err && n) {
		/* any_process: @proc placed the sites, the kernel filters none */
		int upid = r->o.any_process ? -1 : r->pid;
		int kpid = upid == 0 ? getpid() : upid;

		if (l->mode == USDTKIT_MODE_MULTI)
			err = usdtkit__attach_multi(l, r->prog, t, n, kpid);
		else
			err = usdtkit__attach_perf(l, r->prog, t, n, upid,
						   l->mode == USDTKIT_MODE_PERF);
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
	struct usdtkit_link *l;
	int mode;

	mode = usdtkit__opts_copy(&r->o, usdtkit_attach_opts, opts);
	if (mode) {
		errno = -mode;
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->multi_fd = -1;
	l->log.print = r->o.print;
	l->log.ctx = r->o.print_ctx;
	l->detach_wait = r->o.detach_wait;
	l->man = usdtkit__manager_get(r->prog, &l->log);
	mode = l->man ? pick_mode(r, l->man->abi, &l->log) : -errno;
	if (mode < 0) {
		usdtkit_link_destroy(l);
		errno = -mode;
		return NULL;
	}
	l->mode = (enum usdtkit_mode)mode;
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
	struct usdtkit_open_opts oo = { .sz = sizeof(oo), .print = l->log.print,
					.print_ctx = l->log.ctx };

	return usdtkit_proc_open(pid ? pid : getpid(), &oo);
}

/* Is @path the file the process maps as object @i? Same inode. */
static bool same_file(const struct usdtkit_proc *p, size_t i, const struct stat *st)
{
	char buf[4352];
	struct stat o;

	snprintf(buf, sizeof(buf), "/proc/%d/root%s", usdtkit_proc_pid(p),
		 usdtkit_proc_object_path(p, i));
	return !stat(buf, &o) && o.st_dev == st->st_dev && o.st_ino == st->st_ino;
}

static int attach_mapped(struct usdtkit_link *l, const struct attach_req *r,
			 const char *path, const struct usdtkit_file *f,
			 struct usdtkit_proc **procp)
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
		if (usdtkit_proc_object(proc, i) && same_file(proc, i, &st))
			return attach_file(l, r, path, usdtkit_proc_object(proc, i),
					   proc);
	usdtkit__warn(&l->log, "%s is not mapped by pid %d", usdtkit_file_name(f),
		      usdtkit_proc_pid(proc));
	return -ENOENT;
}

struct usdtkit_link *usdtkit_attach(struct bpf_program *prog, int pid,
				    const char *path, const char *provider,
				    const char *name,
				    const struct usdtkit_attach_opts *opts)
{
	struct attach_req r = { .prog = prog, .pid = pid, .provider = provider,
				.name = name };
	struct usdtkit_open_opts oo = { .sz = sizeof(oo) };
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
	if (l->mode == USDTKIT_MODE_IPMAP && pid != -1 &&
	    usdtkit_file_type(f) != ET_EXEC_TYPE)
		err = attach_mapped(l, &r, path, f, &proc);
	else
		err = attach_file(l, &r, path, f, NULL);
	usdtkit_proc_close(proc);
	usdtkit_file_close(opened);
	return finish(l, err, what);
}

struct usdtkit_link *usdtkit_attach_pid(struct bpf_program *prog, int pid,
					const char *provider, const char *name,
					const struct usdtkit_attach_opts *opts)
{
	struct attach_req r = { .prog = prog, .pid = pid, .provider = provider,
				.name = name };
	struct usdtkit_proc *proc;
	struct usdtkit_link *l;
	char what[512], kpath[4352];
	size_t i;
	int err = 0;

	if (!prog || pid < 0) {
		errno = EINVAL;
		return NULL;
	}
	l = link_new(&r, opts);
	if (!l)
		return NULL;
	snprintf(what, sizeof(what), "pid %d", pid ? pid : getpid());
	describe(what, sizeof(what), strdupa(what), &r);
	proc = open_proc(l, pid);
	if (!proc)
		return finish(l, -errno, what);
	for (i = 0; !err && i < usdtkit_proc_object_count(proc); i++) {
		const struct usdtkit_file *f = usdtkit_proc_object(proc, i);

		if (!f || !usdtkit_file_next_site(f, NULL, provider, name))
			continue;
		/* the process's own view of the path (containers), or the
		 * inode it maps when the file was deleted or replaced */
		err = usdtkit__proc_object_kpath(proc, i, kpath, sizeof(kpath));
		if (err)
			usdtkit__warn(&l->log, "pid %d: %s: %s", usdtkit_proc_pid(proc),
				      usdtkit_proc_object_path(proc, i), strerror(-err));
		else
			err = attach_file(l, &r, kpath, f, proc);
	}
	usdtkit_proc_close(proc);
	return finish(l, err, what);
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
	return l ? (l->multi_fd >= 0) + l->nperf : 0;
}

int usdtkit_prog_prepare(struct bpf_program *prog, enum usdtkit_mode mode)
{
	mode = usdtkit_mode_resolve(mode);
	if (!prog || (unsigned int)mode > USDTKIT_MODE_IPMAP)
		return -EINVAL;
	bpf_program__set_type(prog, BPF_PROG_TYPE_KPROBE);
	return bpf_program__set_expected_attach_type(prog, mode == USDTKIT_MODE_MULTI ?
			(enum bpf_attach_type)USDTKIT_TRACE_UPROBE_MULTI : 0);
}
