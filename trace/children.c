// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Children (usdtkit_trace_opts.children, `usdtkit trace --children`):
 * with a pid (or a command), also the processes it forks, and theirs, for
 * as long as they live.
 *
 * A pid filter in the attach (the uprobe_multi link's, perf_event_open's)
 * names one process, and a fork makes another: the children's hits never
 * reach the program. So with --children the probes are attached for
 * every process (usdtkit_attach_opts.any_process: still at PID's files
 * and, in ipmap mode, PID's addresses, which a forked child shares), and
 * the program keeps the hits of the tgids in its map traced_tgids
 * (bpf/trace_children.h). Its tracepoints follow forks and exits; here
 * the map is seeded, before the probes are attached (usdtkit_trace_attach()):
 *
 *   - PID, then the two tracepoints, then PID's descendants alive now
 *     (from /proc): a child forked at any point is in the map either by
 *     its fork (its parent was in the map) or by the scan (it was alive).
 *     Unlike strace -f, the children already there are traced: a
 *     prefork server or a worker pool has forked its workers long before
 *     anyone traces it, and they are what its user calls the server.
 *   - A process that exits is removed by its group leader's exit, so
 *     its pid, once reused, is not traced. One whose main thread exits
 *     first (pthread_exit() in main, or an exec from another thread) is
 *     dropped then.
 *
 * Several pids (usdtkit_trace_opts.pids) take the same filter, the map
 * seeded with all of them, with no tracepoint unless --children too.
 *
 * The check in the program sits behind the load-time constant
 * follow_children: without children the verifier drops its branch
 * (a hit keeps the constant's load), the map has one entry and the
 * tracepoint programs are not loaded (SEC("?...")).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace/internal.h"
#include "trace.skel.h"

/* processes traced at once: the map is preallocated (a hash map that
 * allocates at run time is unsafe in a tracepoint program), 2 MiB */
#define CHILDREN_MAX 32768

static const char *const tracefs[] = { "/sys/kernel/tracing",
				       "/sys/kernel/debug/tracing" };

/* The offset and size of field @name ("field:TYPE NAME;\toffset:N;\t
 * size:M;") in the format file @fmt; 0 or -ENOENT. */
static int field_at(const char *fmt, const char *name, unsigned int *off,
		    unsigned int *size)
{
	size_t len = strlen(name);
	const char *p;

	for (p = strstr(fmt, name); p; p = strstr(p + 1, name)) {
		const char *o;

		/* the whole name, as the last word of a declaration */
		if ((p[-1] != ' ' && p[-1] != '\t') || p[len] != ';')
			continue;
		o = strstr(p, "offset:");
		if (o && sscanf(o, "offset:%u;%*[ \t]size:%u;", off, size) == 2)
			return 0;
	}
	return -ENOENT;
}

/*
 * tracefs where the kernel has it but nobody mounted it (a minimal
 * system, a fresh VM, a container's own /sys): mounted at its usual
 * place, as perf and libtracefs do, since the tracepoints' ids and
 * formats are only found there (libbpf reads them from the same path).
 * 0, or -errno of mount(2); -EPERM without CAP_SYS_ADMIN.
 */
static int tracefs_mount(struct usdtkit_trace *t)
{
	if (mount("nodev", tracefs[0], "tracefs", 0, NULL))
		return -errno;
	usdtkit__info(&t->log, "--children: mounted tracefs at %s", tracefs[0]);
	return 0;
}

/* tracefs's format of task/task_newtask into @buf; 0 or -errno */
static int read_newtask_format(char *buf, size_t len)
{
	int err = -ENOENT;
	size_t i, n;

	for (i = 0; i < sizeof(tracefs) / sizeof(tracefs[0]); i++) {
		char path[128];
		FILE *f;

		snprintf(path, sizeof(path), "%s/events/task/task_newtask/format",
			 tracefs[i]);
		f = fopen(path, "re");
		if (!f) {
			err = -errno;
			continue;
		}
		n = fread(buf, 1, len - 1, f);
		fclose(f);
		buf[n] = 0;
		return 0;
	}
	return err;
}

/* the same, mounting tracefs first if no path had it */
static int newtask_format(struct usdtkit_trace *t, char *buf, size_t len)
{
	int err = read_newtask_format(buf, len);

	if (err == -ENOENT && !tracefs_mount(t))
		err = read_newtask_format(buf, len);
	return err;
}

/* The program for this kernel's task_newtask: the one that reads the
 * low 32 bits of clone_flags where they are (bpf/trace_children.h) */
static struct bpf_program *fork_prog(struct usdtkit_trace *t, struct trace *skel)
{
	const struct { unsigned int off; struct bpf_program *prog; } progs[] = {
		{ 28, skel->progs.usdtkit_trace_fork28 },
		{ 32, skel->progs.usdtkit_trace_fork32 },
		{ 36, skel->progs.usdtkit_trace_fork36 },
	};
	unsigned int pid_off = 0, pid_size = 0, fl_off = 0, fl_size = 0;
	char fmt[4096];
	size_t i;
	int err = newtask_format(t, fmt, sizeof(fmt));

	if (err) {
		trace_err(t, "--children: cannot read the format of tracepoint "
			  "task/task_newtask (is tracefs mounted?): %s", strerror(-err));
		errno = -err;
		return NULL;
	}
	if (!field_at(fmt, "pid", &pid_off, &pid_size) && pid_off == 8 &&
	    pid_size == 4 && !field_at(fmt, "clone_flags", &fl_off, &fl_size) &&
	    (fl_size == 4 || fl_size == 8)) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		fl_off += fl_size - 4;	/* CLONE_THREAD is in the low half */
#endif
		for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
			if (progs[i].off == fl_off)
				return progs[i].prog;
	}
	trace_err(t, "--children: tracepoint task/task_newtask has a layout "
		  "trace does not know (pid, clone_flags)");
	errno = EOPNOTSUPP;
	return NULL;
}

/*
 * Several pids without --children: the same filter, seeded with them,
 * and the exit tracepoint only (nothing forked is traced). A pid leaves
 * the map as it exits, so its number, reused by a process that maps a
 * traced object, is never counted, whether or not the caller ever asks
 * usdtkit_trace_pid_gone().
 */
static int several_prepare(struct usdtkit_trace *t)
{
	int err;

	t->skel->rodata->follow_children = 1;
	err = bpf_map__set_max_entries(t->skel->maps.traced_tgids, (uint32_t)t->npids);
	if (!err)
		err = bpf_program__set_autoload(t->skel->progs.usdtkit_trace_exit, true);
	if (err)
		trace_err(t, "several pids: %s", strerror(-err));
	return err;
}

/*
 * Several pids: the exit tracepoint, at best. Where it cannot attach (a
 * kernel or container without tracefs), usdtkit_trace_pid_gone() prunes
 * the map as it did before, and the trace goes on: it is not worth a
 * failure that one -p did not have.
 */
static void several_start(struct usdtkit_trace *t)
{
	t->kids.exit = bpf_program__attach(t->skel->progs.usdtkit_trace_exit);
}

int usdtkit__children_prepare(struct usdtkit_trace *t)
{
	struct trace *skel = t->skel;
	int err;

	if (!t->kids.on)
		return t->kids.filter ? several_prepare(t) : 0;
	t->kids.fork_prog = fork_prog(t, skel);
	if (!t->kids.fork_prog)
		return -errno;
	skel->rodata->follow_children = 1;
	err = bpf_map__set_max_entries(skel->maps.traced_tgids, CHILDREN_MAX);
	if (!err)
		err = bpf_program__set_autoload(t->kids.fork_prog, true);
	if (!err)
		err = bpf_program__set_autoload(skel->progs.usdtkit_trace_exit, true);
	if (err)
		trace_err(t, "--children: %s", strerror(-err));
	return err;
}

static int add_tgid(int fd, unsigned int tgid, unsigned int parent)
{
	return bpf_map_update_elem(fd, &tgid, &parent, BPF_ANY) ? -errno : 0;
}

/* /proc/@pid/stat's parent pid, or -1 (after "(comm)", which may hold
 * blanks and parentheses, come the state and the ppid) */
static int parent_of(const char *pid)
{
	char path[sizeof("/proc//stat") + 256], buf[512], *p;	/* (a d_name) */
	size_t n;
	FILE *f;
	int ppid;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && sscanf(p + 1, " %*c %d", &ppid) == 1 ? ppid : -1;
}

struct proc_pair {
	unsigned int pid, ppid;
};

/* Every process's pid and parent; the count, or -errno. */
static long list_procs(struct proc_pair **out)
{
	struct proc_pair *v = NULL, *nv;
	size_t n = 0, cap = 0;
	struct dirent *d;
	DIR *dir = opendir("/proc");

	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		int ppid;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		ppid = parent_of(d->d_name);
		if (ppid <= 0)
			continue;	/* gone since, or a child of the kernel */
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(dir);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n].pid = (unsigned int)strtoul(d->d_name, NULL, 10);
		v[n++].ppid = (unsigned int)ppid;
	}
	closedir(dir);
	*out = v;
	return (long)n;
}

/* The descendants of the map's processes into the map, to a fixed point
 * (a child may be listed before its parent); 0 or -errno. */
static int add_descendants(int fd)
{
	struct proc_pair *v = NULL;
	long n = list_procs(&v), i;
	unsigned int val;
	bool more = n > 0;
	int err = n < 0 ? (int)n : 0;

	while (more && !err) {
		more = false;
		for (i = 0; i < n && !err; i++) {
			if (bpf_map_lookup_elem(fd, &v[i].pid, &val) &&
			    !bpf_map_lookup_elem(fd, &v[i].ppid, &val)) {
				err = add_tgid(fd, v[i].pid, v[i].ppid);
				more = true;
			}
		}
	}
	free(v);
	return err;
}

static int attach_tp(struct usdtkit_trace *t, struct bpf_program *prog,
		     struct bpf_link **link, const char *what)
{
	int err;

	*link = bpf_program__attach(prog);
	if (*link)
		return 0;
	err = -errno;
	trace_err(t, "--children: attaching tracepoint %s: %s", what, strerror(-err));
	return err;
}

/* the pids traced, seeds of the map (their parent 0); one gone fails
 * the trace, named, as one pid's attach does (a PATH target's pid
 * filter is checked by no link: the map has it) */
static int add_pids(struct usdtkit_trace *t, int fd)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < t->npids; i++) {
		if (trace_several(t) && kill(t->pids[i], 0) && errno == ESRCH) {
			trace_err(t, "pid %d: %s", t->pids[i], strerror(ESRCH));
			return -ESRCH;
		}
		err = add_tgid(fd, (unsigned int)t->pids[i], 0);
	}
	/* a command's, not in pids */
	if (!err && !t->npids)
		err = add_tgid(fd, (unsigned int)t->pid, 0);
	if (err)
		trace_err(t, "the map of the traced pids: %s", strerror(-err));
	return err;
}

int usdtkit__children_start(struct usdtkit_trace *t)
{
	char pids[128];
	int fd, err;

	if (!t->kids.filter)
		return 0;
	fd = bpf_map__fd(t->skel->maps.traced_tgids);
	err = add_pids(t, fd);
	if (err)
		return err;
	if (!t->kids.on) {
		several_start(t);
		return 0;
	}
	err = attach_tp(t, t->kids.fork_prog, &t->kids.fork,
				"task/task_newtask");
	if (!err)
		err = attach_tp(t, t->skel->progs.usdtkit_trace_exit, &t->kids.exit,
				"sched/sched_process_exit");
	if (err)
		return err;
	err = add_descendants(fd);
	if (err) {
		usdtkit__pids_label(t, pids, sizeof(pids));
		trace_err(t, "--children: the children of %s: %s", pids, strerror(-err));
	}
	return err;
}

/*
 * No traced process is left. The map says, and is the truth but for a
 * process that exited before its exit could be seen (the pid, between
 * its choice and the tracepoint's attach): such a key is removed here.
 * Looks at keys only until a live one.
 */
static bool children_gone(const struct usdtkit_trace *t)
{
	int fd = bpf_map__fd(t->skel->maps.traced_tgids);
	unsigned int key;

	/* the first key each time: a deleted key leads nowhere */
	while (!bpf_map_get_next_key(fd, NULL, &key)) {
		if (!kill((int)key, 0) || errno != ESRCH)
			return false;
		bpf_map_delete_elem(fd, &key);
	}
	return true;
}

bool usdtkit_trace_pid_gone(const struct usdtkit_trace *t)
{
	if (!t->pid || !t->loaded)
		return false;
	/* (several pids: gone ones deleted, a reused number never counted) */
	if (t->kids.filter)
		return children_gone(t);
	return kill(t->pid, 0) && errno == ESRCH;
}

/* the forks followed (the processes seeded from /proc are not) */
int usdtkit__children_forks(const struct usdtkit_trace *t, uint64_t *sum)
{
	int ncpu = libbpf_num_possible_cpus(), zero = 0, i, err;
	uint64_t *v;

	*sum = 0;
	if (!t->kids.on)
		return 0;
	if (ncpu <= 0 || !(v = calloc((size_t)ncpu, sizeof(*v))))
		return -ENOMEM;
	err = bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.children_forks), &zero, v) ?
		-errno : 0;
	for (i = 0; !err && i < ncpu; i++)
		*sum += v[i];
	free(v);
	return err;
}

void usdtkit__children_stop(struct usdtkit_trace *t)
{
	bpf_link__destroy(t->kids.fork);
	bpf_link__destroy(t->kids.exit);
	t->kids.fork = t->kids.exit = NULL;
}
