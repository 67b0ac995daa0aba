// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --all: every process of the host that maps an object with a probe the
 * trace asks for, those running at the start and those started later.
 *
 * One link set per object (inode), for any process (pid -1): a uprobe
 * belongs to the inode, so a library shared by a thousand processes, or
 * a program run ten thousand times, is attached once. Found three ways:
 * - at the start, a scan of /proc (usdtkit_host_*: an object is read
 *   once, however many processes map it);
 * - at an open of an ELF file, held by the tracer (watch/exec.c:
 *   fanotify permission events on every filesystem mounted here): the
 *   file is read, attached if it has a probe, and (a program) its loader
 *   watched, before the open may go on. execve() opens the program and
 *   the loader opens a library before it maps it, so a new program or
 *   library is counted from its first hit. The answer for a file without
 *   a probe is remembered (an ignore mark the kernel keeps with the
 *   inode, Linux 5.19; here by device, inode and mtime), so most opens
 *   pay nothing. Before 5.19, on tmpfs and on a filesystem with its own
 *   devices, only execs are held (watch/exec.c says why);
 * - at each loader's news (_dl_debug_state(), trace_follow.h): the
 *   libraries whose open was not held. Not held either: holding a
 *   thread needs a ptrace tracer, which on every process of a host would
 *   keep debuggers out and drop the privileges of a set-user-ID exec. So
 *   such a library is attached while its process runs on: said once,
 *   measured in bench/.
 *
 * An object no process maps any more is detached (a sweep of the maps
 * every few seconds): the links of a host's churn do not pile up.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>

#include "attach/proc.h"
#include "elf/proc.h"
#include "trace/internal.h"
#include "watch/watch.h"

/* how long an object stays attached with no process mapping it: an exec
 * held was answered before the program mapped anything */
#define ALL_GRACE_NS (2 * 1000000000ull)
/* the sweep's period */
#define ALL_SWEEP_NS (2 * 1000000000ull)
/* files without a probe remembered here (a kernel without evictable
 * ignore marks): past that, forgotten all at once */
#define ALL_NONE_MAX 65536

struct all_link {
	size_t probe;
	struct usdtkit_link *link;
};

struct all_obj {
	uint64_t ino;		/* (the maps' devices are not stat()'s: by
				 * inode alone, a sweep keeps too much at
				 * worst) */
	struct all_link *v;
	size_t n;
	uint64_t since_ns;	/* attached, or last exec'd */
};

struct file_key {
	uint64_t dev, ino;
	int64_t mtime_ns;
};

struct trace_all {
	struct all_obj *obj;
	size_t nobj, cap;
	struct file_key *none;	/* opened, no probe */
	size_t nnone, ncap;
	int mounts;		/* /proc/self/mountinfo: polled for new mounts */
	int group;		/* the tracer's exec group (our copy), or -1 */
	int tick;		/* a timerfd: the trace woken for its sweep */
	bool opens;		/* every open held, not only execs */
	const struct usdtkit_arch *self; /* ours: what may be attached */
	char execs_only[256];	/* a disk's mount whose opens are not */
	uint64_t swept_ns;
	uint64_t opens_held, reads, detached;
};

static struct all_obj *obj_find(struct trace_all *a, uint64_t ino)
{
	size_t i;

	for (i = 0; i < a->nobj; i++)
		if (a->obj[i].ino == ino)
			return &a->obj[i];
	return NULL;
}

/* link @l of probe @i under the object of inode @ino */
static int obj_add(struct trace_all *a, uint64_t ino, size_t i, struct usdtkit_link *l)
{
	struct all_obj *o = obj_find(a, ino);
	struct all_link *v;

	if (!o) {
		if (a->nobj == a->cap) {
			size_t c = a->cap ? 2 * a->cap : 16;

			o = realloc(a->obj, c * sizeof(*o));
			if (!o)
				return -ENOMEM;
			a->obj = o;
			a->cap = c;
		}
		o = &a->obj[a->nobj++];
		*o = (struct all_obj){ .ino = ino };
	}
	v = realloc(o->v, (o->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	o->v = v;
	o->v[o->n++] = (struct all_link){ .probe = i, .link = l };
	o->since_ns = clock_mono_ns();
	return 0;
}

static bool none_has(const struct trace_all *a, const struct file_key *k)
{
	size_t i;

	for (i = 0; i < a->nnone; i++)
		if (!memcmp(&a->none[i], k, sizeof(*k)))
			return true;
	return false;
}

static void none_add(struct trace_all *a, const struct file_key *k)
{
	if (a->nnone == ALL_NONE_MAX)
		a->nnone = 0;
	if (a->nnone == a->ncap) {
		size_t c = a->ncap ? 2 * a->ncap : 64;
		void *v = realloc(a->none, c * sizeof(*a->none));

		if (!v)
			return;
		a->none = v;
		a->ncap = c;
	}
	a->none[a->nnone++] = *k;
}

static void all_objects(struct usdtkit_trace *t, const struct usdtkit_proc *proc,
			const bool *only)
{
	size_t count = usdtkit_proc_object_count(proc), j, i;
	bool *one = calloc(count ? count : 1, sizeof(*one));

	if (!one)
		return;
	/* one object at a time: each link is one inode's, detached with it */
	for (j = 0; j < count; j++) {
		char kpath[4352];
		struct stat st;

		if (!only[j] || !usdtkit__watch_native(usdtkit_proc_object(proc, j),
						       t->every->self) ||
		    usdtkit__proc_object_kpath(proc, j, kpath, sizeof(kpath)) ||
		    stat(kpath, &st))
			continue;
		one[j] = true;
		for (i = 0; i < t->nprobes; i++) {
			struct usdtkit_link *l = usdtkit__follow_attach(t, i, proc, one);

			if (l && obj_add(t->every, st.st_ino, i, l))
				break;
		}
		one[j] = false;
	}
	free(one);
}

/* The loader the program at @path asks for, as process @pid (its root)
 * will find it, watched before the program runs. */
static void exec_loader(struct usdtkit_trace *t, const char *path, int pid)
{
	char interp[PATH_MAX], lp[PATH_MAX + 64];

	if (usdtkit__watch_interp(path, interp, sizeof(interp)) || interp[0] != '/')
		return;
	snprintf(lp, sizeof(lp), "/proc/%d/root%s", pid, interp);
	if (!usdtkit__watch_loader_path(t->follow.w, lp))
		usdtkit__follow_loader_path(t, lp);
}

/* The file of a held open: attached when it has a probe; 1 when it has
 * none (its next opens need not be held) */
static int open_file(struct usdtkit_trace *t, const char *path, int pid,
		     const struct stat *st)
{
	USDTKIT_OPTS(usdtkit_open_opts, oo);
	struct trace_all *a = t->every;
	struct file_key k = { .dev = st->st_dev, .ino = st->st_ino,
			      .mtime_ns = st->st_mtim.tv_sec * 1000000000ll +
					  st->st_mtim.tv_nsec };
	struct usdtkit_file *f;
	struct all_obj *o = obj_find(a, st->st_ino);
	char name[PATH_MAX];
	bool any = false;
	ssize_t n;
	size_t i;

	if (o) {
		o->since_ns = clock_mono_ns();
		return 0;
	}
	if (none_has(a, &k))
		return 1;
	a->reads++;
	exec_loader(t, path, pid);
	/* (a script, or a file of no known machine: no probe of ours) */
	f = usdtkit_file_open(path, &oo);
	if (f && !usdtkit__watch_native(f, a->self)) {
		usdtkit_file_close(f);
		f = NULL;
	}
	/* (its name as we see it, for messages) */
	n = readlink(path, name, sizeof(name) - 1);
	name[n > 0 ? n : 0] = 0;
	for (i = 0; f && i < t->nprobes; i++) {
		struct usdtkit_link *l = usdtkit__follow_attach_file(t, i, path, name, f, pid);

		if (l) {
			any = true;
			obj_add(a, st->st_ino, i, l);
		}
	}
	usdtkit_file_close(f);
	if (any) {
		usdtkit__watch_see_path(t->follow.w, path);
		return 0;
	}
	none_add(a, &k);
	return 1;
}

static void all_open(struct usdtkit_trace *t, const struct usdtkit__hold_event *ev)
{
	char path[64];
	struct stat st;
	int none = 0;

	t->every->opens_held++;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d",
		 usdtkit__hold_pid(t->follow.hold), ev->fd);
	if (ev->fd >= 0 && !stat(path, &st) && S_ISREG(st.st_mode))
		none = open_file(t, path, ev->tgid, &st);
	t->follow.exec_holds++;
	usdtkit__hold_answer(t->follow.hold, ev->key, none == 1);
}

/* the links of object @o destroyed, and taken out of their probes */
static void obj_detach(struct usdtkit_trace *t, struct all_obj *o)
{
	size_t i, j;

	for (i = 0; i < o->n; i++) {
		struct probe *p = &t->probes[o->v[i].probe];

		for (j = 0; j < p->nlate; j++)
			if (p->late[j] == o->v[i].link) {
				p->late[j] = p->late[--p->nlate];
				break;
			}
		p->pub.sites -= usdtkit_link_site_count(o->v[i].link);
		usdtkit_link_destroy(o->v[i].link);
	}
	free(o->v);
	usdtkit__watch_forget(t->follow.w, o->ino);
}

/* new mounts (a container started): their filesystems marked too */
static void mounts_changed(struct trace_all *a)
{
	struct pollfd pf = { .fd = a->mounts, .events = POLLPRI };

	if (a->group < 0 || poll(&pf, 1, 0) <= 0 || !(pf.revents & POLLPRI))
		return;
	usdtkit__exec_mark_mounts(a->group, a->opens, a->execs_only, sizeof(a->execs_only));
}

void usdtkit__all_sweep(struct usdtkit_trace *t)
{
	struct trace_all *a = t->every;
	uint64_t now = clock_mono_ns(), *inos = NULL;
	size_t n = 0, i = 0;

	if (!a)
		return;
	if (a->tick >= 0) {
		uint64_t ticks;

		if (read(a->tick, &ticks, sizeof(ticks)) < 0)
			ticks = 0;	/* (none due yet: EAGAIN) */
	}
	if (!t->follow.hold && a->group >= 0) {
		/* the tracer is gone: no exec waits on our copy */
		close(a->group);
		a->group = -1;
	}
	mounts_changed(a);
	if (now - a->swept_ns < ALL_SWEEP_NS || !a->nobj)
		return;
	a->swept_ns = now;
	if (usdtkit__watch_mapped(&inos, &n))
		return;
	while (i < a->nobj) {
		struct all_obj *o = &a->obj[i];

		if (now - o->since_ns < ALL_GRACE_NS ||
		    usdtkit__watch_in_mapped(inos, n, o->ino)) {
			i++;
			continue;
		}
		obj_detach(t, o);
		a->detached++;
		a->obj[i] = a->obj[--a->nobj];
	}
	free(inos);
}

/* The filesystems' opens (or execs) held by a group given to the
 * tracer; said once when they cannot be. */
static void hold_execs(struct usdtkit_trace *t)
{
	struct trace_all *a = t->every;
	int group = t->follow.no_hold ? -EPERM : usdtkit__exec_group(), n = 0;

	if (group >= 0) {
		a->opens = t->follow.remember = usdtkit__exec_can_remember(group);
		n = usdtkit__exec_mark_mounts(group, a->opens, a->execs_only,
					      sizeof(a->execs_only));
		if (n <= 0) {
			close(group);
			group = n ? n : -ENODEV;
		}
	}
	if (group < 0) {
		if (!t->follow.no_hold)
			trace_err(t, "--all: cannot hold a process's exec until its "
				  "program is attached (fanotify exec permission events: "
				  "%s%s): a program started later is attached at its "
				  "loader's news (a static one not at all), and its first "
				  "hits may be lost", strerror(-group),
				  group == -EPERM ? "; they need CAP_SYS_ADMIN" :
				  group == -EINVAL ? "; the kernel lacks "
				  "CONFIG_FANOTIFY_ACCESS_PERMISSIONS" : "");
		return;
	}
	a->group = fcntl(group, F_DUPFD_CLOEXEC, 0);
	usdtkit__info(&t->log, "--all: the %s of %d filesystem(s) held until their "
		      "probes are attached", a->opens ? "opens of ELF files" : "execs", n);
	usdtkit__follow_hold_begin(t, group);
	if (!t->follow.hold && a->group >= 0) {
		close(a->group);
		a->group = -1;
	}
}

/* the loader of every process running now, watched (each loader once:
 * a host has a few), so that any of them may load a library later */
static void scan_loaders(struct usdtkit_trace *t)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (isdigit((unsigned char)e->d_name[0]))
			usdtkit__follow_loader(t, atoi(e->d_name));
	closedir(d);
}

/* every process running now: its objects with a probe attached */
static int scan(struct usdtkit_trace *t)
{
	USDTKIT_OPTS(usdtkit_host_opts, ho, .print = usdtkit__trace_msg, .print_ctx = t);
	struct usdtkit_host *h = usdtkit_host_open(&ho);
	struct usdtkit_proc *proc;
	size_t n;

	if (!h)
		return -errno;
	while ((proc = usdtkit_host_next(h))) {
		bool *only = NULL;

		if (!usdtkit__watch_unseen(t->follow.w, proc, &only, &n) && n) {
			all_objects(t, proc, only);
			usdtkit__watch_see(t->follow.w, proc, only);
		}
		free(only);
		usdtkit_proc_close(proc);
	}
	usdtkit_host_close(h);
	scan_loaders(t);
	return 0;
}

int usdtkit__all_start(struct usdtkit_trace *t)
{
	struct trace_all *a = calloc(1, sizeof(*a));
	int err;

	if (!a)
		return -ENOMEM;
	a->group = -1;
	a->tick = -1;
	a->mounts = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	a->swept_ns = clock_mono_ns();
	a->self = usdtkit__watch_self_arch();
	t->every = a;
	t->follow.on_objects = all_objects;
	t->follow.on_open = all_open;
	err = usdtkit__watch_new(&t->follow.w, &t->log, usdtkit__mode_by_address(t->mode));
	if (err)
		return err;
	/* execs first: a program started during the scan is held, not missed */
	hold_execs(t);
	err = scan(t);
	if (err)
		trace_err(t, "--all: cannot read the processes of this host: %s",
			  strerror(-err));
	if (!a->opens || a->execs_only[0])
		trace_err(t, "--all: a library new to the trace is attached once its "
			  "loader has mapped it, while its process runs on (%s%s%s): "
			  "its first hits, about a millisecond's, may be lost",
			  a->opens ? "the opens of " : "holding its open needs "
			  "Linux 5.19's evictable fanotify marks",
			  a->opens ? a->execs_only : "", a->opens ? " are not held: "
			  "its filesystem has devices in its own /dev, or cannot be "
			  "marked" : "");
	return err;
}

/* new mounts are looked for 4 times a second (a container's first exec
 * comes soon after its mounts), the maps swept each ALL_SWEEP_NS */
int usdtkit__all_tick(struct usdtkit_trace *t)
{
	struct itimerspec its = { .it_interval = { .tv_nsec = 250000000 },
				  .it_value = { .tv_nsec = 250000000 } };
	struct trace_all *a = t->every;

	if (!a)
		return -1;
	if (a->tick < 0) {
		a->tick = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (a->tick >= 0 && timerfd_settime(a->tick, 0, &its, NULL)) {
			close(a->tick);
			a->tick = -1;
		}
	}
	return a->tick;
}

void usdtkit__all_free(struct usdtkit_trace *t)
{
	struct trace_all *a = t->every;

	if (!a)
		return;
	if (t->attached)
		usdtkit__info(&t->log, "--all: %llu open(s) held, %llu file(s) "
			      "read, %llu object(s) detached with their last process",
			      (unsigned long long)a->opens_held, (unsigned long long)a->reads,
			      (unsigned long long)a->detached);
	/* the links are the probes' late ones, destroyed with them */
	for (size_t i = 0; i < a->nobj; i++)
		free(a->obj[i].v);
	free(a->obj);
	free(a->none);
	if (a->mounts >= 0)
		close(a->mounts);
	if (a->group >= 0)
		close(a->group);
	if (a->tick >= 0)
		close(a->tick);
	free(a);
	t->every = NULL;
}
