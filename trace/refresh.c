// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit_trace_refresh(): a PATH target's file replaced under a running
 * trace (a package upgrade renames the new file over the old one) gets
 * its probes attached again, with the same cookies, so the aggregations
 * and counters, keyed by probe index, go on where they were.
 *
 * A uprobe belongs to an inode, not to a path: a process started before
 * the upgrade runs the old inode until it restarts, and only the old
 * link sees its hits; a process started after runs the new one, seen by
 * the new link only. No hit is counted twice, so the new link is
 * attached first (no window where a new process goes unseen) and the old
 * one is kept, not destroyed: its hits are those of the old processes,
 * as legitimate as before. It is released with the trace (the kernel
 * holds the old inode, and its disk blocks, as long as the link lives).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <bpf/libbpf.h>

#include "trace/internal.h"
#include "watch/watch.h"
#include "trace.skel.h"

/* The file at a path, opened once for all its probes in one refresh. */
struct new_file {
	const char *path;
	uint64_t dev, ino;
	struct usdtkit_file *f;	/* NULL: could not be read (err) */
	int err;
	bool said;		/* why it could not: once per refresh */
};

static bool same_file(const struct probe *p, const struct stat *st)
{
	return p->dev == (uint64_t)st->st_dev && p->ino == (uint64_t)st->st_ino;
}

void usdtkit__refresh_note(struct probe *p)
{
	struct stat st;

	if (p->path && !stat(p->path, &st)) {
		p->dev = st.st_dev;
		p->ino = st.st_ino;
	}
}

void usdtkit__refresh_release(struct usdtkit_trace *t)
{
	struct usdtkit_link **links;
	size_t i, j, n = 0;

	for (i = 0; i < t->nprobes; i++)
		n += t->probes[i].nold;
	links = n ? malloc(n * sizeof(*links)) : NULL;
	for (i = 0, n = 0; i < t->nprobes; i++) {
		struct probe *p = &t->probes[i];

		for (j = 0; j < p->nold; j++) {
			if (links)
				links[n++] = p->old[j];
			else
				usdtkit_link_destroy(p->old[j]);
		}
		free(p->old);
		p->old = NULL;
		p->nold = 0;
	}
	/* at once: their grace periods overlap (usdtkit_links_destroy()) */
	usdtkit_links_destroy(links, n);
	free(links);
}

/* @nf: the file now at @path (@st), read through an fd so that its
 * identity is that of the bytes read, not of a path that may change
 * again; one that cannot be read is said here or by the ELF reader */
static void open_new(struct usdtkit_trace *t, struct new_file *nf, const char *path,
		     const struct stat *st)
{
	USDTKIT_OPTS(usdtkit_open_opts, oo, .print = usdtkit__trace_msg,
		     .print_ctx = t, .name = path);
	struct stat fst;
	int fd;

	usdtkit_file_close(nf->f);
	*nf = (struct new_file){ .path = path, .dev = st->st_dev, .ino = st->st_ino };
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &fst)) {
		nf->err = -errno;
		if (fd >= 0)
			close(fd);
		return;
	}
	nf->dev = fst.st_dev;
	nf->ino = fst.st_ino;
	nf->f = usdtkit_file_open_fd(fd, &oo);
	nf->err = nf->f ? 0 : -errno;
	nf->said = !nf->f;
	close(fd);
}

/* the types of PROVIDER:NAME's sites in @f into @np; false: none */
static bool new_types(const struct usdtkit_file *f, const char *prov, const char *name,
		      struct probe *np)
{
	const struct usdtkit_site *s = NULL;
	struct usdtkit_trace_type types[MAX_ARGS];
	bool found = false;
	int n;

	np->pub.mixed = false;
	while ((s = usdtkit_file_next_site(f, s, prov, name))) {
		usdtkit__site_types(s, types, &n);
		if (!found) {
			np->pub.nargs = n;
			memcpy(np->pub.args, types, sizeof(types));
		} else if (n != np->pub.nargs ||
			   memcmp(np->pub.args, types, n * sizeof(types[0]))) {
			np->pub.mixed = true;
		}
		found = true;
	}
	return found;
}

static int write_cfg(struct usdtkit_trace *t, size_t i, const struct usdtkit_trace_cfg *c)
{
	unsigned int k = (unsigned int)i;

	return bpf_map__update_elem(t->skel->maps.probe_cfg, &k, sizeof(k), c,
				    sizeof(*c), 0);
}

/*
 * Probe @i as the new file has it, into @np and @c: its argument types
 * and, when they changed, its configuration (the filter compiled again,
 * the arguments checked), which must fit the program as loaded. 0, or
 * -ENOENT (the probe is gone) or -EINVAL (said).
 */
static int new_probe(struct usdtkit_trace *t, size_t i, const struct new_file *nf,
		     const char *prov, const char *name, struct probe *np,
		     struct usdtkit_trace_cfg *c)
{
	const struct probe *p = &t->probes[i];
	char label[512];

	*np = *p;
	*c = t->agg.cfgs[i];
	usdtkit__probe_label(p, label, sizeof(label));
	if (!new_types(nf->f, prov, name, np)) {
		trace_err(t, "%s: gone from the new file at that path (an upgrade): "
			  "only the processes still running the old file are traced",
			  label);
		return -ENOENT;
	}
	if (np->pub.nargs == p->pub.nargs && np->pub.mixed == p->pub.mixed &&
	    !memcmp(np->pub.args, p->pub.args, sizeof(p->pub.args)))
		return 0;
	if (usdtkit__agg_cfg(t, np, c))
		return -EINVAL;
	if (!usdtkit__agg_fits(t, np, c)) {
		trace_err(t, "%s: its arguments in the new file at that path (an "
			  "upgrade) need more than the loaded program reads: only the "
			  "processes still running the old file are traced; restart "
			  "the trace", label);
		return -EINVAL;
	}
	/* the old link's hits (an old process) are read with the new
	 * configuration too: the probe is mixed, as if sites differed */
	np->pub.mixed = true;
	return 0;
}

/*
 * Attach probe @i, as @np with configuration @c, to the file at its
 * path, from @nf; 1 once done, 0 to try again at the next refresh (the
 * file changed meanwhile), or -errno.
 */
static int attach_new(struct usdtkit_trace *t, size_t i, const struct new_file *nf,
		      const char *prov, const char *name, const struct probe *np,
		      const struct usdtkit_trace_cfg *cfg)
{
	struct probe *p = &t->probes[i];
	struct usdtkit_trace_cfg c = *cfg, was = t->agg.cfgs[i];
	struct usdtkit_link *l, **old;
	struct stat st;
	int err;

	old = realloc(p->old, (p->nold + 1) * sizeof(*old));
	if (!old)
		return -ENOMEM;
	p->old = old;
	err = memcmp(&c, &was, sizeof(c)) ? write_cfg(t, i, &c) : 0;
	if (err)
		return err;
	l = usdtkit__trace_link(t, i, p->path, prov, name, nf->f);
	err = l ? 0 : -errno;
	/* the kernel took the path's inode: it must be the file read */
	if (l && (stat(p->path, &st) || (uint64_t)st.st_dev != nf->dev ||
		  (uint64_t)st.st_ino != nf->ino)) {
		usdtkit_link_destroy(l);
		l = NULL;
	}
	if (!l) {
		if (memcmp(&c, &was, sizeof(c)))
			write_cfg(t, i, &was);
		return err;
	}
	p->old[p->nold++] = p->link;
	p->link = l;
	t->agg.cfgs[i] = c;
	p->pub = np->pub;
	p->pub.link = l;
	p->pub.sites = usdtkit_link_site_count(l);
	p->pub.mode = usdtkit_link_mode(l);
	return 1;
}

/* probe @i, its file replaced by @nf: 1 re-attached, 0 not (said, or
 * to be tried again), -ENOMEM */
static int refresh_probe(struct usdtkit_trace *t, size_t i, const struct new_file *nf)
{
	struct probe *p = &t->probes[i];
	char *prov = usdtkit__glob_quote(p->provider), *name = usdtkit__glob_quote(p->name);
	struct usdtkit_trace_cfg c;
	struct probe np;
	char label[512];
	int ret;

	if (!prov || !name) {
		ret = -ENOMEM;
		goto out;
	}
	/* gone, or not configurable: said; else attached, or not */
	ret = new_probe(t, i, nf, prov, name, &np, &c);
	if (!ret)
		ret = attach_new(t, i, nf, prov, name, &np, &c);
	else
		ret = -ECANCELED;
	if (ret == -ENOMEM || ret == 0)	/* 0: replaced again meanwhile */
		goto out;
	/* once per file: the next replacement is the next chance */
	p->dev = nf->dev;
	p->ino = nf->ino;
	usdtkit__probe_label(p, label, sizeof(label));
	if (ret == 1)
		usdtkit__info(&t->log, "%s: re-attached to the new file at that path, "
			      "%zu site(s), mode %s; the old file's link stays for "
			      "its processes", label, p->pub.sites,
			      usdtkit_mode_str(p->pub.mode));
	else if (ret != -ECANCELED)
		trace_err(t, "%s: cannot attach to the new file at that path: %s",
			  label, strerror(-ret));
	ret = ret == 1;
out:
	free(prov);
	free(name);
	return ret;
}

/* has probe @p's file been replaced? (a missing file: not yet, it is
 * being replaced) */
static bool replaced(const struct probe *p, struct stat *st)
{
	return p->path && p->link && !stat(p->path, st) && !same_file(p, st);
}

/* the probes re-attached since the last usdtkit_trace_refresh(), at a
 * held exec or now */
static int refresh_count(struct usdtkit_trace *t, int n)
{
	n += t->follow.refreshed;
	t->follow.refreshed = 0;
	return n;
}

static int refresh(struct usdtkit_trace *t)
{
	struct new_file nf = { 0 };
	struct stat st;
	size_t i;
	int n = 0, ret = 0;

	if (!t || !t->attached)
		return -EINVAL;
	for (i = 0; i < t->nprobes && ret >= 0; i++) {
		struct probe *p = &t->probes[i];

		if (!replaced(p, &st))
			continue;
		if (!nf.path || strcmp(nf.path, p->path))
			open_new(t, &nf, p->path, &st);
		if (nf.err == -ENOENT)	/* gone again between stat and open */
			continue;
		if (nf.err) {
			if (!nf.said)
				trace_err(t, "%s: %s", p->path, strerror(-nf.err));
			nf.said = true;
			/* once per file: the next replacement is the next chance */
			p->dev = nf.dev;
			p->ino = nf.ino;
			continue;
		}
		ret = refresh_probe(t, i, &nf);
		n += ret > 0;
	}
	usdtkit_file_close(nf.f);
	return ret < 0 ? ret : n;
}

int usdtkit_trace_refresh(struct usdtkit_trace *t)
{
	int n = refresh(t);

	return n < 0 ? n : refresh_count(t, n);
}

/*
 * An exec of a file in a PATH target's directory, held (watch/exec.c):
 * the file at the target's path looked at now, before that exec maps
 * it. Any exec there comes here, the target's or not: a stat() a probe,
 * nothing more when no file was replaced.
 */
void usdtkit__refresh_exec(struct usdtkit_trace *t)
{
	int n = t->attached ? refresh(t) : 0;

	if (n > 0)
		t->follow.refreshed += n;
	t->follow.exec_holds++;
}

/* The directory the file at @path is in (its links followed: an exec
 * through a symlink opens the file it names), into @buf. */
static int dir_of(const char *path, char *buf)
{
	char *slash;

	if (!realpath(path, buf))
		return -errno;
	slash = strrchr(buf, '/');
	if (slash == buf)
		slash[1] = 0;
	else if (slash)
		*slash = 0;
	return 0;
}

static void group_failed(struct usdtkit_trace *t, const char *path, int err)
{
	trace_err(t, "%s: cannot hold a process that execs it after an upgrade "
		  "replaced it (fanotify exec permission events: %s%s): its "
		  "hits until the new file is attached may be lost", path,
		  strerror(-err), err == -EPERM ? "; they need CAP_SYS_ADMIN" :
		  err == -EINVAL || err == -ENOSYS ? "; the kernel lacks "
		  "CONFIG_FANOTIFY_ACCESS_PERMISSIONS" : "");
}

int usdtkit__refresh_group(struct usdtkit_trace *t)
{
	char dir[PATH_MAX];
	const char *path = NULL;
	int group = -1, err = 0;
	size_t i;

	for (i = 0; i < t->nprobes && !err; i++) {
		const struct probe *p = &t->probes[i];

		/* a PATH target's own; -p's and -c's objects are the
		 * tracer's to follow */
		if (!p->path || p->follow || p->pending)
			continue;
		path = p->path;
		if (group < 0 && (group = usdtkit__exec_group()) < 0) {
			err = group;
			break;
		}
		err = dir_of(path, dir);
		if (!err)
			err = usdtkit__exec_mark(group, dir);
	}
	if (!err)
		return group;
	group_failed(t, path, err);
	if (group >= 0)
		close(group);
	return -1;
}
