// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit trace --children: with -p PID (or -c CMD), also the processes
 * that PID forks, and theirs, for as long as they live.
 *
 * A pid filter in the attach (the uprobe_multi link's, perf_event_open's)
 * names one process, and a fork makes another: the children's hits never
 * reach the program. So with --children the probes are attached for
 * every process (usdtkit_attach_opts.any_process: still at PID's files
 * and, in ipmap mode, PID's addresses, which a forked child shares), and
 * the program keeps the hits of the tgids in its map traced_tgids
 * (bpf/trace_children.h). Its tracepoints follow forks and exits; here
 * the map is seeded, before the probes are attached:
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
 * The check in the program sits behind the load-time constant
 * follow_children: without --children the verifier drops its branch
 * (a hit keeps the constant's load), the map has one entry and the
 * tracepoint programs are not loaded (SEC("?...")).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace.h"
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

/* tracefs's format of task/task_newtask into @buf; 0 or -errno */
static int newtask_format(char *buf, size_t len)
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

/* The program for this kernel's task_newtask: the one that reads the
 * low 32 bits of clone_flags where they are (bpf/trace_children.h) */
static struct bpf_program *fork_prog(struct trace *skel)
{
	const struct { unsigned int off; struct bpf_program *prog; } progs[] = {
		{ 28, skel->progs.usdtkit_trace_fork28 },
		{ 32, skel->progs.usdtkit_trace_fork32 },
		{ 36, skel->progs.usdtkit_trace_fork36 },
	};
	unsigned int pid_off = 0, pid_size = 0, fl_off = 0, fl_size = 0;
	char fmt[4096];
	size_t i;
	int err = newtask_format(fmt, sizeof(fmt));

	if (err) {
		trace_err("--children: cannot read the format of tracepoint "
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
	trace_err("--children: tracepoint task/task_newtask has a layout "
		  "trace does not know (pid, clone_flags)");
	errno = EOPNOTSUPP;
	return NULL;
}

int trace_children_prepare(struct tracer *t)
{
	struct trace *skel = t->skel;
	int err;

	if (!t->kids.on)
		return 0;
	t->kids.fork_prog = fork_prog(skel);
	if (!t->kids.fork_prog)
		return -errno;
	skel->rodata->follow_children = 1;
	err = bpf_map__set_max_entries(skel->maps.traced_tgids, CHILDREN_MAX);
	if (!err)
		err = bpf_program__set_autoload(t->kids.fork_prog, true);
	if (!err)
		err = bpf_program__set_autoload(skel->progs.usdtkit_trace_exit, true);
	if (err)
		trace_err("--children: %s", strerror(-err));
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
	char path[64], buf[512], *p;
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

static int attach_tp(struct bpf_program *prog, struct bpf_link **link,
		     const char *what)
{
	*link = bpf_program__attach(prog);
	if (*link)
		return 0;
	trace_err("--children: attaching tracepoint %s: %s", what, strerror(errno));
	return -errno;
}

int trace_children_start(struct tracer *t)
{
	int fd, err;

	if (!t->kids.on)
		return 0;
	fd = bpf_map__fd(t->skel->maps.traced_tgids);
	err = add_tgid(fd, (unsigned int)t->pid, 0);
	if (!err)
		err = attach_tp(t->kids.fork_prog, &t->kids.fork,
				"task/task_newtask");
	if (!err)
		err = attach_tp(t->skel->progs.usdtkit_trace_exit, &t->kids.exit,
				"sched/sched_process_exit");
	if (err)
		return err;
	err = add_descendants(fd);
	if (err)
		trace_err("--children: the children of pid %d: %s", t->pid,
			  strerror(-err));
	return err;
}

/*
 * No traced process is left. The map says, and is the truth but for a
 * process that exited before its exit could be seen (PID, between the
 * options and the tracepoint's attach): such a key is removed here.
 * Looks at keys only until a live one.
 */
bool trace_children_gone(struct tracer *t)
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

/* -v: the forks followed (the processes seeded from /proc are not) */
void trace_children_report(struct tracer *t)
{
	int ncpu = libbpf_num_possible_cpus(), zero = 0, i;
	unsigned long long *v, sum = 0;

	if (!t->kids.on || ncpu <= 0 || !(v = calloc((size_t)ncpu, sizeof(*v))))
		return;
	if (!bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.children_forks), &zero, v)) {
		for (i = 0; i < ncpu; i++)
			sum += v[i];
		fprintf(stderr, "usdtkit trace: --children: %llu fork%s followed\n",
			sum, sum == 1 ? "" : "s");
	}
	free(v);
}

void trace_children_stop(struct tracer *t)
{
	bpf_link__destroy(t->kids.fork);
	bpf_link__destroy(t->kids.exit);
	t->kids.fork = t->kids.exit = NULL;
}
