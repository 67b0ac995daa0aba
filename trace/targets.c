// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* usdtkit trace: TARGET arguments -> the probes to attach, one per
 * PROVIDER:NAME, with the sign and width of their arguments. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/internal.h"
#include "watch/watch.h"

/* ---- targets -> probes ---- */

/* fnmatch() quoting, so an attach by exact name matches only that name */
char *usdtkit__glob_quote(const char *s)
{
	char *q = malloc(2 * strlen(s) + 1), *p = q;

	if (!q)
		return NULL;
	for (; *s; s++) {
		if (strchr("*?[]\\", *s))
			*p++ = '\\';
		*p++ = *s;
	}
	*p = 0;
	return q;
}

/* "PATH:PROVIDER:NAME" (or "PROVIDER:NAME" for a -p target), for messages */
void usdtkit__probe_label(const struct probe *p, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s%s:%s", p->path ? p->path : "", p->path ? ":" : "",
		 p->provider, p->name);
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

void usdtkit__site_types(const struct usdtkit_site *s, struct usdtkit_trace_type *types,
			 int *nargs)
{
	int i, n = usdtkit_site_arg_count(s);

	*nargs = n < MAX_ARGS ? n : MAX_ARGS;
	for (i = 0; i < *nargs; i++) {
		const struct usdtkit_arg *a = usdtkit_site_arg(s, i);

		types[i] = (struct usdtkit_trace_type){ .size = (unsigned char)a->size,
					      .is_signed = a->is_signed,
					      .is_float = a->is_float };
	}
}

/* A new probe @prov:@name of @path (NULL: of the pid), at the end of
 * t's; NULL when out of memory (then freed with the trace) */
static struct probe *new_probe(struct usdtkit_trace *t, const char *path,
			       const char *prov, const char *name)
{
	struct probe *p;

	if (t->nprobes == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8;

		p = realloc(t->probes, cap * sizeof(*p));
		if (!p)
			return NULL;
		t->probes = p;
		t->cap = cap;
	}
	p = &t->probes[t->nprobes];
	memset(p, 0, sizeof(*p));
	p->path = path ? strdup(path) : NULL;
	p->provider = strdup(prov);
	p->name = strdup(name);
	t->nprobes++;
	return (path && !p->path) || !p->provider || !p->name ? NULL : p;
}

/* Add the probe of site @s under @path, or note how its arguments differ
 * from the sites seen before. */
static int add_site(struct usdtkit_trace *t, const char *path,
		    const struct usdtkit_file *f, const struct usdtkit_site *s,
		    bool glob)
{
	const char *prov = usdtkit_site_provider(s), *name = usdtkit_site_name(s);
	struct usdtkit_trace_type types[MAX_ARGS];
	struct probe *p;
	size_t i;
	int n;

	usdtkit__site_types(s, types, &n);
	t->nsites++;
	for (i = 0; i < t->nprobes; i++) {
		p = &t->probes[i];
		if (same_str(p->path, path) && !strcmp(p->provider, prov) &&
		    !strcmp(p->name, name)) {
			if (p->pub.nargs != n || memcmp(p->pub.args, types, n * sizeof(types[0])))
				p->pub.mixed = true;
			p->pub.optional &= glob;
			p->pub.role |= t->adding_role;
			p->follow |= t->adding_follow;
			return 0;
		}
	}
	p = new_probe(t, path, prov, name);
	if (!p)
		return -ENOMEM;
	p->file = path ? f : NULL;	/* -p: the process's, closed by now */
	p->pub.nargs = n;
	memcpy(p->pub.args, types, sizeof(types));
	p->pub.optional = glob;
	p->pub.role = t->adding_role;
	p->follow = t->adding_follow;
	p->pub.path = p->path;
	p->pub.provider = p->provider;
	p->pub.name = p->name;
	return 0;
}

bool usdtkit__is_glob(const char *s)
{
	return !s || strpbrk(s, "*?[");
}

/* Every probe of @f matching the globs; how many sites matched. */
static int add_file(struct usdtkit_trace *t, const char *path,
		    const struct usdtkit_file *f, const char *prov,
		    const char *name, size_t *nsites)
{
	bool glob = usdtkit__is_glob(prov) || usdtkit__is_glob(name);
	const struct usdtkit_site *s = NULL;
	int err;

	while ((s = usdtkit_file_next_site(f, s, prov, name))) {
		err = add_site(t, path, f, s, glob);
		if (err)
			return err;
		(*nsites)++;
	}
	return 0;
}

/* A probe that waits for an object mapped later to have it (follow.c):
 * typed as any site until then */
static int add_pending(struct usdtkit_trace *t, const char *prov, const char *name)
{
	struct probe *p = new_probe(t, NULL, prov ? prov : "*", name ? name : "*");
	int i;

	if (!p)
		return -ENOMEM;
	p->follow = p->pending = p->pub.waiting = true;
	/* its sites are unknown: it reads every argument, as wide as any,
	 * and is typed when its first object is attached */
	p->pub.nargs = MAX_ARGS;
	for (i = 0; i < MAX_ARGS; i++)
		p->pub.args[i] = (struct usdtkit_trace_type){ .size = 8 };
	p->pub.mixed = true;
	p->pub.role = t->adding_role;
	p->pub.provider = p->provider;
	p->pub.name = p->name;
	return 0;
}

/*
 * A -p or -c PROVIDER:NAME that nothing has yet: it waits for an object
 * mapped later that has it (follow.c), said once.
 */
static int wait_probe(struct usdtkit_trace *t, const char *where, const char *prov,
		      const char *name, const char *near)
{
	trace_err(t, "%s: no probe %s:%s yet%s%s%s: waiting for a library that has "
		  "it to be loaded", where, prov ? prov : "*", name ? name : "*",
		  near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
	return add_pending(t, prov, name);
}

/*
 * -c CMD PROVIDER:NAME, CMD no ELF program (a #! script, a version
 * manager's shim): it has no probe of its own, its interpreter none we
 * want; the program it execs (at once, or at the end of a chain of
 * shims) has them. It waits for that exec, which is held until the new
 * program is attached (follow.c): none of its hits is lost. No typo can
 * be told before it runs: said with -v only.
 */
static int wait_exec(struct usdtkit_trace *t, const char *prov, const char *name)
{
	int err;

	usdtkit__info(&t->log, "%s is no ELF program (a script?): %s:%s is looked "
		      "for in the program it execs", t->cmd.path, prov ? prov : "*",
		      name ? name : "*");
	err = add_pending(t, prov, name);
	if (!err)
		t->probes[t->nprobes - 1].pub.waits_exec = true;
	return err;
}

/* WHERE: no probe PROVIDER:NAME[ (did you mean NEAR?)] */
static void no_probe(struct usdtkit_trace *t, const char *where, const char *prov, const char *name,
		     const char *near)
{
	trace_err(t, "%s: no probe %s:%s%s%s%s", where, prov ? prov : "*",
		  name ? name : "*", near ? " (did you mean " : "",
		  near ? near : "", near ? "?)" : "");
}

/* The libraries the loader maps for @path, with the LD_LIBRARY_PATH a
 * command started by trace inherits: 0 or -errno */
static int needed_libs(const char *path, char ***libs, size_t *n)
{
	USDTKIT_OPTS(usdtkit_needed_opts, no,
		     .library_path = getenv("LD_LIBRARY_PATH"));

	return usdtkit_needed(path, &no, libs, n);
}

/*
 * The first library that @path loads (usdtkit_needed()) with a probe
 * @prov:@name, into @lib: a probe asked of an executable that its
 * library has (ruby's are in libruby) is named where it is.
 */
static bool in_libraries(const char *path, const char *prov, const char *name,
			 char *lib, size_t len)
{
	USDTKIT_OPTS(usdtkit_open_opts, oo);
	char **libs;
	size_t n, i;
	bool found = false;

	if (needed_libs(path, &libs, &n))
		return false;
	for (i = 0; !found && i < n; i++) {
		struct usdtkit_file *f = usdtkit_file_open(libs[i], &oo);

		found = f && usdtkit_file_next_site(f, NULL, prov, name);
		if (found)
			snprintf(lib, len, "%s", libs[i]);
		usdtkit_file_close(f);
	}
	usdtkit_needed_free(libs, n);
	return found;
}

/*
 * The probes of a PATH target keep the parsed @f until they are
 * attached: usdtkit_attach() then reads their sites from it instead of
 * opening and parsing the file once more per probe. Closed on failure.
 */
static int keep_file(struct usdtkit_trace *t, struct usdtkit_file *f)
{
	struct usdtkit_file **v = realloc(t->files, (t->nfiles + 1) * sizeof(*v));

	if (!v) {
		usdtkit_file_close(f);
		return -ENOMEM;
	}
	t->files = v;
	t->files[t->nfiles++] = f;
	return 0;
}

void usdtkit__trace_targets_release(struct usdtkit_trace *t)
{
	size_t i;

	for (i = 0; i < t->nprobes; i++)
		t->probes[i].file = NULL;
	for (i = 0; i < t->nfiles; i++)
		usdtkit_file_close(t->files[i]);
	free(t->files);
	t->files = NULL;
	t->nfiles = 0;
}

/*
 * The probes of @path that match, added to t; *@n: how many sites. A
 * file that cannot be read is an error (said once, unless @quiet); a
 * file with no match is not: it is then left in *@fp for the caller to
 * look into and close, where a file with a match is kept (keep_file()).
 */
static int scan_path(struct usdtkit_trace *t, const char *path, const char *prov,
		     const char *name, bool quiet, size_t *n,
		     struct usdtkit_file **fp)
{
	USDTKIT_OPTS(usdtkit_open_opts, oo, .print = usdtkit__trace_msg,
		     .print_ctx = t);
	unsigned int warned = t->warnings;
	struct usdtkit_file *f;
	size_t before = *n;
	int err;

	if (quiet)
		oo.print = NULL;
	*fp = NULL;
	f = usdtkit_file_open(path, &oo);
	if (!f) {
		err = -errno;
		/* once is enough: the library names the file too */
		if (!quiet && t->warnings == warned)
			trace_err(t, "%s: %s", path, strerror(-err));
		return err;
	}
	err = add_file(t, path, f, prov, name, n);
	if (err || *n > before) {
		/* probes may point into it already: kept until the end */
		int kept = keep_file(t, f);

		return err ? err : kept;
	}
	*fp = f;
	return 0;
}

static int add_path_target(struct usdtkit_trace *t, const char *path, const char *prov,
			   const char *name)
{
	struct usdtkit_file *f;
	size_t n = 0;
	int err = scan_path(t, path, prov, name, false, &n, &f);

	if (!err && !n) {
		char near[512], lib[PATH_MAX];
		size_t best = (size_t)-1;
		bool typo = !usdtkit__is_glob(prov) && !usdtkit__is_glob(name) &&
			    usdtkit_file_nearest_probe(f, prov, name, near, sizeof(near), &best);

		if (!typo && in_libraries(path, prov, name, lib, sizeof(lib)))
			trace_err(t, "%s: no probe %s:%s; %s, a library it loads, has "
				  "it: trace %s:%s:%s, or run it with -c", path,
				  prov ? prov : "*", name ? name : "*", lib, lib,
				  prov ? prov : "", name ? name : "");
		else
			no_probe(t, path, prov, name, typo ? near : NULL);
		err = -ENOENT;
	}
	usdtkit_file_close(f);
	return err;
}

/*
 * -c CMD PROVIDER:NAME: the probes of CMD's executable and of the
 * libraries the loader maps for it at its start (usdtkit_needed(), with
 * the LD_LIBRARY_PATH CMD inherits), attached by path as CMD is not
 * mapped by its pid yet. A library that cannot be read is passed over.
 * A CMD that is no ELF program waits for the one it execs (wait_exec()).
 */
static int add_cmd_target(struct usdtkit_trace *t, const char *prov, const char *name)
{
	char **libs = NULL, near[512];
	size_t nlibs = 0, n = 0, best = (size_t)-1, i;
	bool typo = false, guess = !usdtkit__is_glob(prov) && !usdtkit__is_glob(name);
	struct usdtkit_file *f;
	int err;

	if (t->cmd.script)
		return wait_exec(t, prov, name);
	err = scan_path(t, t->cmd.path, prov, name, false, &n, &f);
	if (err)
		return err;
	if (f)
		typo |= guess && usdtkit_file_nearest_probe(f, prov, name, near,
						     sizeof(near), &best);
	usdtkit_file_close(f);
	/* a static CMD, or one of another machine: its executable alone */
	if (needed_libs(t->cmd.path, &libs, &nlibs))
		nlibs = 0;
	for (i = 0; !err && i < nlibs; i++) {
		if (scan_path(t, libs[i], prov, name, true, &n, &f))
			continue;
		if (f)
			typo |= guess && usdtkit_file_nearest_probe(f, prov, name, near,
							     sizeof(near), &best);
		usdtkit_file_close(f);
	}
	usdtkit_needed_free(libs, nlibs);
	if (!n) {
		char where[PATH_MAX + 64];

		snprintf(where, sizeof(where), "%s and its %zu libraries",
			 t->cmd.path, nlibs);
		/* a static command loads no library, but it may exec a
		 * program that has the probe (chroot DIR PROG, env, nice:
		 * busybox's are static): it waits as well, the exec held
		 * until the new program is attached (follow.c) */
		if (!nlibs)
			snprintf(where, sizeof(where), "%s", t->cmd.path);
		return wait_probe(t, where, prov, name, typo ? near : NULL);
	}
	return 0;
}

/*
 * -p PID that this user may not read (another user's process, without
 * CAP_SYS_PTRACE): said with what tracing needs, as a load refused for
 * privileges is, where a bare EACCES tells a newcomer nothing. 0 when
 * it may be read, or is not there (usdtkit_proc_open() says so).
 */
static int pid_readable(struct usdtkit_trace *t, int pid)
{
	char path[32];
	int fd, err;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	err = -errno;
	if (err != -EACCES && err != -EPERM)
		return 0;
	trace_err(t, "pid %d: cannot read %s: %s (" TRACE_PRIV_HINT "; another user's "
		  "process, CAP_SYS_PTRACE too)", pid, path, strerror(-err));
	return err;
}

/*
 * The probes of pid @pid's objects that match, added (one per
 * PROVIDER:NAME, whichever pid's object has it); *@n: how many sites,
 * and the nearest probe in @near when there is none.
 */
static int add_one_pid(struct usdtkit_trace *t, int pid, const char *prov,
		       const char *name, size_t *n, char *near, size_t len,
		       size_t *best, bool *typo)
{
	USDTKIT_OPTS(usdtkit_open_opts, oo, .print = usdtkit__trace_msg,
		     .print_ctx = t);
	unsigned int warned = t->warnings;
	struct usdtkit_proc *p;
	size_t i, before = *n;
	int err = pid_readable(t, pid);

	if (err)
		return err;
	p = usdtkit_proc_open(pid, &oo);
	if (!p) {
		err = -errno;
		if (t->warnings == warned)
			trace_err(t, "pid %d: %s", pid, strerror(-err));
		return err;
	}
	for (i = 0; !err && i < usdtkit_proc_object_count(p); i++)
		if (usdtkit_proc_object(p, i))
			err = add_file(t, NULL, usdtkit_proc_object(p, i), prov,
				       name, n);
	for (i = 0; !err && *n == before && !usdtkit__is_glob(prov) && !usdtkit__is_glob(name) &&
		    i < usdtkit_proc_object_count(p); i++)
		if (usdtkit_proc_object(p, i))
			*typo |= usdtkit_file_nearest_probe(usdtkit_proc_object(p, i), prov,
							    name, near, len, best);
	usdtkit_proc_close(p);
	return err;
}

/* -p PID[,PID...] PROVIDER:NAME: the probes of every object of each
 * pid; a pid that cannot be read fails the target, naming it */
static int add_pid_target(struct usdtkit_trace *t, const char *prov, const char *name)
{
	char near[512], where[128];
	size_t best = (size_t)-1, n = 0, k;
	bool typo = false;
	int err = 0;

	for (k = 0; !err && k < t->npids; k++)
		err = add_one_pid(t, t->pids[k], prov, name, &n, near, sizeof(near),
				  &best, &typo);
	if (err || n)
		return err;
	usdtkit__pids_label(t, where, sizeof(where));
	return wait_probe(t, where, prov, name, typo ? near : NULL);
}

/*
 * --all PROVIDER:NAME: a probe for each one the processes running now
 * map (their objects read once each, usdtkit_host_*), attached in every
 * object that has it, now and later (all.c); one that none has waits
 * for a process that will.
 */
static int add_all_target(struct usdtkit_trace *t, const char *prov, const char *name)
{
	USDTKIT_OPTS(usdtkit_host_opts, ho, .print = usdtkit__trace_msg, .print_ctx = t);
	struct usdtkit_host *h = usdtkit_host_open(&ho);
	const struct usdtkit_arch *self = usdtkit__watch_self_arch();
	struct usdtkit_proc *p;
	size_t i, n = 0;
	int err = 0;

	if (!h) {
		err = -errno;
		trace_err(t, "--all: cannot read the processes of this host: %s",
			  strerror(-err));
		return err;
	}
	while (!err && (p = usdtkit_host_next(h))) {
		/* (not a program of another machine, under qemu-user) */
		for (i = 0; !err && i < usdtkit_proc_object_count(p); i++)
			if (usdtkit__watch_native(usdtkit_proc_object(p, i), self))
				err = add_file(t, NULL, usdtkit_proc_object(p, i), prov,
					       name, &n);
		usdtkit_proc_close(p);
	}
	usdtkit_host_close(h);
	if (err || n)
		return err;
	trace_err(t, "--all: no process maps a probe %s:%s yet: waiting for one "
		  "that does", prov ? prov : "*", name ? name : "*");
	return add_pending(t, prov, name);
}

/* The probes of a well-formed target, by what it names (NULL: any) */
static int add_split_target(struct usdtkit_trace *t, const char *target,
			    const char *path, const char *prov, const char *name)
{
	t->adding_follow = !path;
	if (path && t->all) {
		trace_err(t, "bad target '%s': --all takes PROVIDER:NAME, the probes "
			  "of every process", target);
		return -EINVAL;
	}
	if (t->all)
		return add_all_target(t, prov, name);
	if (path)
		return add_path_target(t, path, prov, name);
	if (t->cmd.path)
		return add_cmd_target(t, prov, name);
	return add_pid_target(t, prov, name);
}

/*
 * PATH:PROVIDER:NAME, split from the right (a path may hold ':'), or
 * PROVIDER:NAME with -p. An empty PROVIDER or NAME matches any. A
 * malformed one is -EINVAL, told with the form it likely meant
 * (target_hint.c).
 */
int usdtkit__trace_add_target(struct usdtkit_trace *t, const char *target)
{
	char *s = strdup(target), *name, *prov, *path = NULL;
	int err;

	if (!s)
		return -ENOMEM;
	name = strrchr(s, ':');
	if (!name)
		goto bad;
	*name++ = 0;
	prov = strrchr(s, ':');
	if (prov) {
		*prov++ = 0;
		path = s;
	} else {
		prov = s;
	}
	if (path && !*path)
		goto bad;
	err = usdtkit__target_form(t, target, path, prov, name);
	if (!err && !path && !t->pid && !t->cmd.path && !t->all)
		goto bad;
	if (!err)
		err = add_split_target(t, target, path, *prov ? prov : NULL,
				       *name ? name : NULL);
	free(s);
	return err;
bad:
	usdtkit__target_form_bad(t, target);
	free(s);
	return -EINVAL;
}

/* ---- BPF ---- */

