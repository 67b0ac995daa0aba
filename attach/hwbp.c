// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The HWBP backend: a hardware breakpoint (perf_event_open,
 * PERF_TYPE_BREAKPOINT, HW_BREAKPOINT_X) per site and thread, for code
 * no uprobe reaches: 32-bit arm processes on an arm64 kernel, whose
 * uprobes it accepts and never fires, and Thumb code, which uprobes
 * refuse. The program is a perf-event program (its context's registers
 * are the task's, for a compat task the AArch32 ones in the compat
 * layout) and finds its spec in the IP map, as IPMAP does: a thread
 * started later inherits the event, but not the BPF cookie of a link.
 *
 * A breakpoint belongs to a thread, so:
 *  - each thread of the process gets one per site, and the list of
 *    threads is read again until a pass finds no new one: a thread
 *    started meanwhile was started by a thread that already had them;
 *  - inherit gives them to threads started later; inherit_thread keeps
 *    them out of forks, unless the caller follows forks (any_process,
 *    usdtkit trace --children);
 *  - remove_on_exec drops them at an exec, whose image has other code
 *    at those addresses. A command not yet exec'd (usdtkit trace -c)
 *    is the reverse: its probes are not mapped yet, an ET_EXEC's
 *    addresses are known, and enable_on_exec arms them at the exec.
 *
 * A thread has few breakpoint registers (4 on x86, 2 to 16 on arm64; 6
 * in qemu's): a link of more sites than a thread can take is refused
 * with the number, before the kernel says ENOSPC.
 *
 * Closing the event, not the link, is what removes the breakpoint from
 * the threads that inherited it: release closes both, here and now.
 *
 * The kernel raises a semaphore (ref_ctr_offset) for a uprobe only:
 * here it is raised through /proc/PID/mem once the breakpoints are in,
 * and lowered at release, as bcc did before the kernel could. A command
 * not exec'd yet has no semaphore to raise: refused, in one line.
 */
/* pread() at an address above 2 GiB from a 32-bit build */
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "attach/backend.h"
#include "attach/hwbp.h"
#include "elf/file.h"
#include "elf/proc.h"

struct hwbp_event {
	int pfd, link_fd;
};

struct hwbp_state {
	struct usdtkit__ips ips;
	uint64_t *sema;		/* the semaphores' addresses, raised by one */
	size_t nsema, raised;
	int pid;		/* whose semaphores they are */
	struct hwbp_event *ev;
	size_t nev;
	size_t nsites;
	const char *file;	/* the file's name, while its sites attach */
};

static int hwbp_site(struct usdtkit_link *l, struct usdtkit_target *t,
		     const struct usdtkit_file *f, const struct usdtkit_site *s,
		     const struct usdtkit_proc *proc, int64_t delta)
{
	struct hwbp_state *st = usdtkit__link_state(l);
	int err;

	err = usdtkit__ipmap_site(l, t, f, s, proc, delta, &st->ips);
	st->file = usdtkit_file_name(f);
	t->bp_len = usdtkit__hwbp_len(usdtkit__site_thumb(s));
	if (!err && t->ref_ctr) {
		/* where the file is loaded: the site's address less its pc */
		uint64_t a = usdtkit_site_semaphore(s) + (t->ip - (uint64_t)delta -
							 usdtkit_site_pc(s));

		err = usdtkit__append((void **)&st->sema, &st->nsema, sizeof(a), &a);
	}
	return err;
}

/*
 * Does @pid run @t's code now: a mapping of its file (by inode) covers
 * the address? Not yet (usdtkit trace -c, before the exec) when false.
 */
static bool mapped_now(int pid, const struct usdtkit_target *t)
{
	struct usdtkit__maps_line m;
	char path[64], *line = NULL;
	size_t cap = 0;
	bool found = false;
	struct stat sb;
	FILE *fp;

	if (stat(t->path, &sb))
		return true;	/* the attach says what is wrong */
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fp = fopen(path, "re");
	if (!fp)
		return true;
	while (!found && getline(&line, &cap, fp) > 0) {
		line[strcspn(line, "\n")] = 0;
		found = !usdtkit__maps_line_parse(line, &m) && m.exec &&
			m.inode == sb.st_ino && t->ip >= m.start && t->ip < m.end;
	}
	free(line);
	fclose(fp);
	return found;
}

static bool seen(const pid_t *tids, size_t n, pid_t tid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (tids[i] == tid)
			return true;
	return false;
}

/* The @n sites in thread @tid; a thread gone meanwhile is not an error. */
static int arm_thread(struct usdtkit_link *l, const struct bpf_program *prog,
		      const struct usdtkit_target *t, size_t n, pid_t tid,
		      unsigned int flags)
{
	struct hwbp_state *st = usdtkit__link_state(l);
	const char *what;
	struct hwbp_event e;
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		what = "perf_event_open";
		e.link_fd = -1;
		e.pfd = usdtkit__hwbp_open(t[i].ip, t[i].bp_len, tid, flags);
		if (e.pfd == -ESRCH)
			return 0;
		err = e.pfd < 0 ? e.pfd : usdtkit__append((void **)&st->ev, &st->nev,
							  sizeof(e), &e);
		if (err) {
			if (e.pfd >= 0)
				close(e.pfd);
			break;
		}
		what = "BPF link";
		err = usdtkit__perf_bind(bpf_program__fd(prog), e.pfd, 0,
					 !(flags & USDTKIT__HWBP_ENABLE_ON_EXEC),
					 &st->ev[st->nev - 1].link_fd);
		if (err)
			break;
	}
	if (!err)
		return 0;
	if (err == -ENOSPC)
		usdtkit__warn(&l->log, "%s (thread %d): %s:%s at 0x%llx: no hardware "
			      "breakpoint left: a thread has %d here, and each site "
			      "traced in mode hwbp takes one", st->file, (int)tid,
			      t[i].provider, t[i].name, (unsigned long long)t[i].ip,
			      usdtkit__hwbp_caps()->slots);
	else
		usdtkit__warn(&l->log, "%s (thread %d): %s:%s at 0x%llx: hardware "
			      "breakpoint: %s: %s", st->file, (int)tid, t[i].provider,
			      t[i].name, (unsigned long long)t[i].ip, what, strerror(-err));
	return err;
}

/* One pass over /proc/PID/task: the threads not armed yet; *@added how many. */
static int arm_new_threads(struct usdtkit_link *l, const struct bpf_program *prog,
			   const struct usdtkit_target *t, size_t n, int pid,
			   unsigned int flags, pid_t **tids, size_t *ntids, size_t *added)
{
	struct hwbp_state *st = usdtkit__link_state(l);
	char dir[64];
	struct dirent *d;
	DIR *dp;
	int err = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	dp = opendir(dir);
	if (!dp) {
		err = -errno;
		usdtkit__warn(&l->log, "%s (pid %d): %s: %s", st->file, pid, dir,
			      strerror(-err));
		return err;
	}
	while (!err && (d = readdir(dp))) {
		pid_t tid = (pid_t)atoi(d->d_name);

		if (tid <= 0 || seen(*tids, *ntids, tid))
			continue;
		err = usdtkit__append((void **)tids, ntids, sizeof(tid), &tid);
		if (!err)
			err = arm_thread(l, prog, t, n, tid, flags);
		(*added)++;
	}
	closedir(dp);
	return err;
}

/* Add @by to the u16 semaphore at @addr in @pid's memory. */
static int sema_add(int pid, uint64_t addr, int by)
{
	char path[64];
	uint16_t v;
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (pread(fd, &v, sizeof(v), (off_t)addr) != sizeof(v)) {
		err = -EIO;
	} else if (by > 0 || v) {	/* (an exec since: not ours to lower) */
		v = (uint16_t)(v + by);
		if (pwrite(fd, &v, sizeof(v), (off_t)addr) != sizeof(v))
			err = -EIO;
	}
	close(fd);
	return err;
}

/* The semaphores of the sites just armed, raised in @pid. */
static int raise_semas(struct usdtkit_link *l, int pid, const struct usdtkit_target *t,
		       bool running)
{
	struct hwbp_state *st = usdtkit__link_state(l);
	int err;

	if (st->raised == st->nsema)
		return 0;
	if (!running) {
		usdtkit__warn(&l->log, "%s: %s:%s has a semaphore, which mode hwbp "
			      "raises in a running process only: trace it with -p PID",
			      st->file, t->provider, t->name);
		return -EOPNOTSUPP;
	}
	st->pid = pid;
	for (; st->raised < st->nsema; st->raised++) {
		err = sema_add(pid, st->sema[st->raised], 1);
		if (err) {
			usdtkit__warn(&l->log, "%s (pid %d): semaphore at 0x%llx: "
				      "/proc/%d/mem: %s", st->file, pid,
				      (unsigned long long)st->sema[st->raised], pid,
				      strerror(-err));
			return err;
		}
	}
	return 0;
}

static int hwbp_attach(struct usdtkit_link *l, const struct bpf_program *prog,
		       const struct usdtkit_target *t, size_t n, int pid)
{
	struct hwbp_state *st = usdtkit__link_state(l);
	const struct usdtkit__hwbp_caps *c;
	unsigned int flags = USDTKIT__HWBP_INHERIT;
	pid_t *tids = NULL;
	size_t ntids = 0, added;
	bool running;
	int err = 0;

	if (pid < 0) {
		usdtkit__warn(&l->log, "%s: mode hwbp: a hardware breakpoint belongs "
			      "to a thread: it needs a process (a pid), not any "
			      "process", st->file);
		return -EINVAL;
	}
	c = usdtkit__hwbp_caps();
	if (c->err) {
		usdtkit__warn(&l->log, "%s (pid %d): mode hwbp: %s", st->file, pid, c->why);
		return c->err;
	}
	if (st->nsites + n > (size_t)c->slots) {
		const struct usdtkit_target *x = &t[c->slots > (int)st->nsites ?
						    c->slots - st->nsites : 0];

		usdtkit__warn(&l->log, "%s: %s:%s at 0x%llx: site %zu of %zu: a thread "
			      "has %d hardware breakpoints here, one per site traced "
			      "in mode hwbp", st->file, x->provider, x->name,
			      (unsigned long long)x->ip, (size_t)(x - t) + st->nsites + 1,
			      st->nsites + n, c->slots);
		return -ENOSPC;
	}
	if (!pid)
		pid = getpid();
	if (!l->any_process)
		flags |= USDTKIT__HWBP_THREADS;
	running = mapped_now(pid, t);
	flags |= running ? USDTKIT__HWBP_REMOVE_ON_EXEC : USDTKIT__HWBP_ENABLE_ON_EXEC;
	do {
		added = 0;
		err = arm_new_threads(l, prog, t, n, pid, flags, &tids, &ntids, &added);
	} while (!err && added);
	free(tids);
	if (!err)
		err = raise_semas(l, pid, t, running);
	if (!err)
		st->nsites += n;
	return err;
}

static void hwbp_release(struct usdtkit_link *l)
{
	struct hwbp_state *st = usdtkit__link_state(l);
	size_t i;

	for (i = 0; i < st->nev; i++) {
		if (st->ev[i].link_fd >= 0)
			close(st->ev[i].link_fd);
		close(st->ev[i].pfd);
	}
	free(st->ev);
	st->ev = NULL;
	st->nev = 0;
	st->nsites = 0;
	/* a process gone meanwhile has no semaphore to lower */
	while (st->raised)
		sema_add(st->pid, st->sema[--st->raised], -1);
	free(st->sema);
	st->sema = NULL;
	st->nsema = 0;
	usdtkit__ipmap_drop(l, &st->ips);
}

static size_t hwbp_fd_count(const struct usdtkit_link *l)
{
	const struct hwbp_state *st = usdtkit__link_state(l);
	size_t i, n = st->nev;

	for (i = 0; i < st->nev; i++)
		n += st->ev[i].link_fd >= 0;
	return n;
}

/* A program built with libbpf's usdt.bpf.h reads registers as memory,
 * which a perf-event program's context is not. */
static int hwbp_check_abi(enum usdtkit_spec_abi abi, const struct usdtkit_log *lg)
{
	if (usdtkit__abi_own(abi))
		return 0;
	usdtkit__warn(lg, "mode hwbp: programs built with libbpf's usdt.bpf.h read "
		      "registers through bpf_probe_read_kernel(), which a perf-event "
		      "program cannot: build it with usdtkit.bpf.h");
	return -EOPNOTSUPP;
}

const struct usdtkit__backend usdtkit__backend_hwbp = {
	.name = "hwbp",
	.prog_type = BPF_PROG_TYPE_PERF_EVENT,
	.attach_type = 0,
	.links = "hardware breakpoint",
	.check_abi = hwbp_check_abi,
	.by_address = true,
	.breakpoints = true,
	.state_size = sizeof(struct hwbp_state),
	.site = hwbp_site,
	.attach = hwbp_attach,
	.release = hwbp_release,
	.fd_count = hwbp_fd_count,
};
