// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit_host_*(): every process of the host that maps an object with
 * USDT probes. /proc is read in pid order; each process is opened as
 * usdtkit_proc_open() does, but a file that an earlier process mapped
 * (maps' device and inode) is not opened again when it had no probes:
 * a host's processes share a handful of libraries (libc, the loader)
 * that most have none, and reading their notes once per process would
 * be most of the scan (docs/ARCHITECTURE.md, "ELF core").
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/opts.h"
#include "elf/proc.h"

struct usdtkit_host {
	struct usdtkit_open_opts oo;
	DIR *proc;
	struct usdtkit__probe_cache *cache;
	size_t procs;
};

struct usdtkit_host *usdtkit_host_open(const struct usdtkit_host_opts *user)
{
	struct usdtkit_host_opts o;
	struct usdtkit_host *h;
	int err = usdtkit__opts_copy(&o, usdtkit_host_opts, user);

	if (err) {
		errno = -err;
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->oo.sz = sizeof(h->oo);
	h->oo.print = o.print;
	h->oo.print_ctx = o.print_ctx;
	h->cache = usdtkit__probe_cache_new();
	h->proc = opendir("/proc");
	if (!h->cache || !h->proc) {
		err = h->cache ? errno : ENOMEM;
		usdtkit_host_close(h);
		errno = err;
		return NULL;
	}
	return h;
}

/* a process's directory: digits only */
static int pid_of(const char *name)
{
	const char *c;

	for (c = name; *c; c++)
		if (!isdigit((unsigned char)*c))
			return 0;
	return c == name || c - name > 9 ? 0 : atoi(name);
}

struct usdtkit_proc *usdtkit_host_next(struct usdtkit_host *h)
{
	struct dirent *d;

	if (!h) {
		errno = EINVAL;
		return NULL;
	}
	for (;;) {
		struct usdtkit_proc *p;
		int pid;

		errno = 0;
		d = readdir(h->proc);
		if (!d)
			return NULL;	/* errno: 0 at the end */
		pid = pid_of(d->d_name);
		if (!pid)
			continue;
		h->procs++;
		p = usdtkit__proc_open_cached(pid, &h->oo, h->cache);
		/* gone meanwhile, a kernel thread (no maps), or no probes */
		if (p && usdtkit_proc_object_count(p))
			return p;
		usdtkit_proc_close(p);
	}
}

void usdtkit_host_stats(const struct usdtkit_host *h, size_t *procs, size_t *files)
{
	if (procs)
		*procs = h ? h->procs : 0;
	if (files)
		*files = h ? usdtkit__probe_cache_opened(h->cache) : 0;
}

void usdtkit_host_close(struct usdtkit_host *h)
{
	if (!h)
		return;
	if (h->proc)
		closedir(h->proc);
	usdtkit__probe_cache_free(h->cache);
	free(h);
}
