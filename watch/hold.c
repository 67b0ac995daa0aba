// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Holding a thread until what it mapped is attached, so that no hit of a
 * library loaded later (or of a program a child execs) is lost between
 * its mapping and the attach.
 *
 * A BPF program cannot wait, and a SIGSTOP would show: the parent's
 * waitpid(WUNTRACED) would see the stop, a shell would print
 * "Stopped" and put the job in the background. So the hold is a ptrace
 * stop. A tracer process, this file's, seizes the followed processes
 * (PTRACE_SEIZE: no stop, no signal) and the BPF program on the loader's
 * _dl_debug_state() sends the thread a signal (hold_sig in the trace
 * program). A traced thread stops for the tracer before any signal is
 * delivered; the tracer reports it here, and once the engine has
 * attached, resumes it with no signal: the signal is never delivered.
 * The parent sees no stop (a ptrace stop is the tracer's, not the
 * parent's), job control sees nothing, the process's handlers run
 * nothing. An exec and an exit are held the same way (PTRACE_O_TRACEEXEC,
 * _TRACEEXIT), and forks (PTRACE_O_TRACEFORK) start held from their first
 * instruction.
 *
 * A thread is held at most HOLD_MAX_MS: an engine that does not serve
 * its tracer (a library caller that stopped calling
 * usdtkit_trace_consume(), a tracer stopped by Ctrl-Z) must not stop
 * the traced program for good; past that, the tracer lets the thread go
 * and says so (MSG_EXPIRED).
 *
 * The tracer also answers the exec-open permission events of exec.c's
 * group, when it is given one: an exec is held like a thread, by the
 * same rules (2 s at most, let go when the tracer ends). A hold is known
 * by a key of its own (negative for an exec), not by its tid or fd: a
 * release that comes after the hold expired lets nothing else go.
 *
 * What shows: a debugger cannot attach while the tracer has the process
 * (one tracer per thread), and /proc/PID/status shows TracerPid. Other
 * signals pass through the tracer (a round trip each); a job-control
 * stop is left to the kernel (PTRACE_LISTEN), so the parent still sees
 * it as it would without us.
 *
 * The tracer is a process of its own, not a thread: ptrace stops are
 * reported to the tracer's wait(), which must not be the application's
 * (or -c's command, whose parent we are, would have its stops and exit
 * status taken by whichever thread waits first). It has no exit signal
 * (an application's wait() does not see it), runs only system calls
 * (the application may have other threads: no malloc() or stdio in a
 * forked copy), keeps no fd of ours but its socket (no BPF link stays
 * alive in it), and ends when its socket does: the engine's close, or
 * our death. Then it lets every held thread go before it exits; the
 * kernel detaches the rest as they were.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "watch/watch.h"

#define HOLD_STACK (64 * 1024)
/* tids the tracer knows, one bit each (pid_max is at most 2^22) */
#define TID_MAX (1u << 22)
/* threads held at once, and for how long at most */
#define HELD_MAX 4096
#define HOLD_MAX_MS 2000

enum { MSG_SEIZE = 1, MSG_SEIZED, MSG_HELD, MSG_RELEASE, MSG_EXPIRED };

struct hold_msg {
	int op, tid, arg;
	int key;	/* the hold's (MSG_HELD, _RELEASE, _EXPIRED) */
	int fd;		/* MSG_HELD of an exec: the tracer's fd of its file;
			 * MSG_RELEASE: 1 to remember the answer for the
			 * file (usdtkit__exec_ignore()) */
};

/*
 * A hold's key is its own, never a tid's or an fd's again: a release
 * the engine sends late (after the hold expired) must not let go a
 * later hold of the same thread, or of an exec whose event reused the
 * fd. Positive for a thread, negative for an exec.
 */
#define KEY_MAX 0x3fffffff


struct usdtkit__hold {
	int pid;			/* the tracer */
	int fd;				/* our end of its socket */
	char *stack;
	struct hold_msg *queue;		/* held threads read while waiting
					 * for a reply */
	size_t nq, capq;
};

/* ---- the tracer (a forked copy: system calls only) ---- */

struct held {
	int key;
	int tid;			/* the thread, or the process of an exec */
	int fd;				/* an exec's event's, or -1 */
	unsigned long long until_ms;	/* let go then, answered or not */
};

struct tracer {
	int sock, sigfd;
	int group;			/* exec.c's, or -1 */
	bool elf_only;			/* only an ELF file's open is held */
	bool remember;			/* answers kept with the inode */
	int engine;			/* the engine's pid (our parent) */
	unsigned long opts;		/* PTRACE_O_* */
	int hold_sig;
	bool exits, closing;
	unsigned char *seized;		/* a bitmap by tid */
	struct held *held;		/* HELD_MAX, the first nheld in use */
	unsigned int nheld;
	int last_key;			/* the newest hold's, unsigned */
};

static unsigned long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000 + (unsigned long long)ts.tv_nsec / 1000000;
}

static int held_at(const struct tracer *tr, int key)
{
	unsigned int i;

	for (i = 0; i < tr->nheld; i++)
		if (tr->held[i].key == key)
			return (int)i;
	return -1;
}

static bool bit(const unsigned char *m, int tid)
{
	return tid > 0 && (unsigned int)tid < TID_MAX && (m[tid / 8] >> (tid % 8)) & 1;
}

static void set_bit(unsigned char *m, int tid, bool on)
{
	if (tid <= 0 || (unsigned int)tid >= TID_MAX)
		return;
	if (on)
		m[tid / 8] |= (unsigned char)(1u << (tid % 8));
	else
		m[tid / 8] &= (unsigned char)~(1u << (tid % 8));
}

static void send_msg(struct tracer *tr, int op, int tid, int arg, int key, int fd)
{
	struct hold_msg m = { .op = op, .tid = tid, .arg = arg, .key = key, .fd = fd };

	while (send(tr->sock, &m, sizeof(m), MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

/* a thread that is not held (any more) on its way */
static void resume(int tid, int sig)
{
	ptrace(PTRACE_CONT, tid, 0, (void *)(long)sig);
}

/* the hold at @i let go: its thread resumed, or its exec allowed */
static void let_go(struct tracer *tr, unsigned int i)
{
	struct held h = tr->held[i];

	tr->held[i] = tr->held[--tr->nheld];
	if (h.fd >= 0)
		usdtkit__exec_allow(tr->group, h.fd);
	else
		resume(h.tid, 0);
}

/* a stop the engine must see, or (while closing, or with no room) one
 * it never will; @tid: the thread, or the process of an exec; @fd: an
 * exec's event's, or -1 */
static void hold_one(struct tracer *tr, int tid, int fd, int why)
{
	int key;

	if (tr->closing || tr->nheld == HELD_MAX) {
		if (fd >= 0)
			usdtkit__exec_allow(tr->group, fd);
		else
			resume(tid, 0);
		return;
	}
	tr->last_key = tr->last_key == KEY_MAX ? 1 : tr->last_key + 1;
	key = fd >= 0 ? -tr->last_key : tr->last_key;
	tr->held[tr->nheld++] = (struct held){ .key = key, .tid = tid, .fd = fd,
					       .until_ms = now_ms() + HOLD_MAX_MS };
	send_msg(tr, MSG_HELD, tid, why, key, fd);
}

static void hold(struct tracer *tr, int tid, int why)
{
	hold_one(tr, tid, -1, why);
}

/* a thread gone: its hold with it */
static void forget(struct tracer *tr, int tid)
{
	unsigned int i;

	for (i = 0; i < tr->nheld; i++)
		if (tr->held[i].fd < 0 && tr->held[i].tid == tid) {
			tr->held[i] = tr->held[--tr->nheld];
			return;
		}
}

/* "/proc/PID/LEAF" into @buf (room for 40 bytes more than @leaf),
 * without stdio: the tracer's too */
static void proc_path(char *buf, int pid, const char *leaf)
{
	char digits[16];
	int n = 0;

	do {
		digits[n++] = (char)('0' + pid % 10);
		pid /= 10;
	} while (pid);
	memcpy(buf, "/proc/", 6);
	buf += 6;
	while (n)
		*buf++ = digits[--n];
	*buf++ = '/';
	memcpy(buf, leaf, strlen(leaf) + 1);
}

/* The start of /proc/PID/LEAF into @buf, NUL-terminated: its length,
 * or -1 (gone) */
static ssize_t proc_read(int pid, const char *leaf, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	proc_path(path, pid, leaf);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return n;
}

/* Whether process @pid is another trace's: usdtkit's CLI, or a tracer
 * process (by its comm). */
static bool other_trace(int pid)
{
	char comm[32];

	return proc_read(pid, "comm", comm, sizeof(comm)) > 0 &&
	       (!strcmp(comm, "usdtkit\n") || !strcmp(comm, "usdtkit-hold\n"));
}

/*
 * Whether the open of @fd by @pid needs the engine's answer. Not the
 * engine's own opens (it reads the files it is asked about: waiting for
 * itself, it would wait its 2 s), nor another trace's (two traces under
 * --all would each wait for the other, 2 s an open), nor, with
 * elf_only, a file that is no ELF object: let go at once, and the
 * answer kept with the inode where that can be.
 */
static bool needs_engine(const struct tracer *tr, int pid, int fd)
{
	unsigned char magic[4];
	struct stat st;

	if (pid == tr->engine)
		return false;
	if (!tr->elf_only)
		return true;
	/* (a device or a fifo is not read: a read may take its data) */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
	    !memcmp(magic, "\177ELF", 4))
		return !other_trace(pid);
	if (tr->remember)
		usdtkit__exec_ignore(tr->group, fd);
	return false;
}

/* the execs (opens) waiting on the group, each held */
static void on_execs(struct tracer *tr)
{
	struct usdtkit__exec_open ev[USDTKIT__EXEC_BATCH];
	int i, n;

	while ((n = usdtkit__exec_read(tr->group, ev, USDTKIT__EXEC_BATCH)) > 0)
		for (i = 0; i < n; i++)
			if (needs_engine(tr, ev[i].pid, ev[i].fd))
				hold_one(tr, ev[i].pid, ev[i].fd, USDTKIT__HOLD_OPEN_EXEC);
			else
				usdtkit__exec_allow(tr->group, ev[i].fd);
}

/* the threads held past HOLD_MAX_MS go, said; how long until the next
 * one is due (ms), -1 when none is held */
static int expire(struct tracer *tr)
{
	unsigned long long now = now_ms(), next = ~0ull;
	unsigned int i = 0;

	while (i < tr->nheld) {
		struct held *h = &tr->held[i];

		if (h->until_ms <= now) {
			int key = h->key, tid = h->tid;

			let_go(tr, i);	/* moves the last one here */
			send_msg(tr, MSG_EXPIRED, tid, HOLD_MAX_MS, key, -1);
			continue;
		}
		if (h->until_ms < next)
			next = h->until_ms;
		i++;
	}
	return next == ~0ull ? -1 : (int)(next - now);
}

/* a signal-delivery stop: ours (the BPF side's, SI_KERNEL) is a hold
 * and is never delivered; anything else is delivered as it came */
static void on_signal(struct tracer *tr, int tid, int sig)
{
	siginfo_t si;

	if (sig == tr->hold_sig && !ptrace(PTRACE_GETSIGINFO, tid, 0, &si) &&
	    si.si_code == SI_KERNEL) {
		hold(tr, tid, USDTKIT__HOLD_LOADER);
		return;
	}
	resume(tid, sig);
}

static void on_event(struct tracer *tr, int tid, int sig, int ev)
{
	unsigned long msg;

	switch (ev) {
	case PTRACE_EVENT_STOP:
		/* a job-control stop stays one, for the parent to see */
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
			ptrace(PTRACE_LISTEN, tid, 0, 0);
		else
			resume(tid, 0);	/* a new thread or child's first stop */
		return;
	case PTRACE_EVENT_EXEC:
		hold(tr, tid, USDTKIT__HOLD_EXEC);
		return;
	case PTRACE_EVENT_EXIT:
		if (tr->exits)
			hold(tr, tid, USDTKIT__HOLD_EXIT);
		else
			resume(tid, 0);
		return;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		if (!ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg))
			set_bit(tr->seized, (int)msg, true);
		resume(tid, 0);
		return;
	default:
		resume(tid, 0);
	}
}

static void reap(struct tracer *tr)
{
	int st, tid;

	while ((tid = waitpid(-1, &st, __WALL | WNOHANG)) > 0) {
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			set_bit(tr->seized, tid, false);
			forget(tr, tid);
		} else if (WIFSTOPPED(st) && (st >> 16)) {
			on_event(tr, tid, WSTOPSIG(st), st >> 16);
		} else if (WIFSTOPPED(st)) {
			on_signal(tr, tid, WSTOPSIG(st));
		}
	}
}


struct dirent64_raw {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Seize the threads of @tgid not seized yet: how many, or -errno. */
static int seize_pass(struct tracer *tr, int tgid)
{
	char path[48], buf[4096] __attribute__((aligned(8)));
	int fd, n = 0, err = 0;
	long got;

	proc_path(path, tgid, "task");
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	while (!err && (got = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		long off;

		for (off = 0; !err && off < got;) {
			const struct dirent64_raw *d = (const void *)(buf + off);
			int tid = (int)strtol(d->d_name, NULL, 10);

			off += d->d_reclen;
			if (tid <= 0 || bit(tr->seized, tid))
				continue;
			if (!ptrace(PTRACE_SEIZE, tid, 0, (void *)tr->opts)) {
				set_bit(tr->seized, tid, true);
				n++;
			} else if (errno != ESRCH) {	/* ESRCH: it exited */
				err = -errno;
			}
		}
	}
	close(fd);
	return err ? err : n;
}

/* Every thread, also those started while we seize: until a pass finds
 * none new (a thread started after its creator was seized is ours by
 * PTRACE_O_TRACECLONE). */
static int seize(struct tracer *tr, int tgid)
{
	int n;

	while ((n = seize_pass(tr, tgid)) > 0)
		;
	return n;
}

static void finish(struct tracer *tr)
{
	tr->closing = true;
	reap(tr);	/* stops that came meanwhile: resumed, not reported */
	while (tr->nheld)
		let_go(tr, 0);
	_exit(0);
}

static void on_msg(struct tracer *tr)
{
	struct hold_msg m;
	ssize_t n = recv(tr->sock, &m, sizeof(m), 0);
	int i;

	if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
		finish(tr);
	if (n != (ssize_t)sizeof(m))
		return;
	if (m.op == MSG_SEIZE)
		send_msg(tr, MSG_SEIZED, m.tid, seize(tr, m.tid), 0, -1);
	else if (m.op == MSG_RELEASE && (i = held_at(tr, m.key)) >= 0) {
		if (m.fd == 1 && tr->remember && tr->held[i].fd >= 0)
			usdtkit__exec_ignore(tr->group, tr->held[i].fd);
		let_go(tr, (unsigned int)i);
	}
}

static void close_span(unsigned int lo, unsigned int hi)
{
	struct rlimit rl;
	unsigned int fd;

	if (lo > hi || !syscall(SYS_close_range, lo, hi, 0))
		return;
	/* before Linux 5.9: one by one, up to the fd limit */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < hi)
		hi = (unsigned int)rl.rlim_cur;
	for (fd = lo; fd <= hi && fd != ~0U; fd++)
		close((int)fd);
}

/* every fd closed but @a and @b (-1: none) */
static void close_all_but(int a, int b)
{
	int keep[2] = { a < b ? a : b, a < b ? b : a }, i;
	unsigned int lo = 0;

	for (i = 0; i < 2; i++) {
		if (keep[i] < 0)
			continue;
		if ((unsigned int)keep[i] > lo)
			close_span(lo, (unsigned int)keep[i] - 1);
		lo = (unsigned int)keep[i] + 1;
	}
	close_span(lo, ~0U);
}

static int tracer_main(void *arg)
{
	struct tracer *tr = arg;
	struct pollfd pf[3];
	sigset_t chld;

	setsid();
	if (chdir("/"))
		_exit(1);
	prctl(PR_SET_NAME, "usdtkit-hold", 0, 0, 0);
	/* our fds (BPF links above all) must not live on in here */
	close_all_but(tr->sock, tr->group);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	tr->sigfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	if (tr->sigfd < 0)
		_exit(1);
	tr->seized = mmap(NULL, TID_MAX / 8 + HELD_MAX * sizeof(struct held),
			  PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (tr->seized == MAP_FAILED)
		_exit(1);
	tr->held = (struct held *)(void *)(tr->seized + TID_MAX / 8);
	for (;;) {
		struct signalfd_siginfo si;

		pf[0] = (struct pollfd){ .fd = tr->sock, .events = POLLIN };
		pf[1] = (struct pollfd){ .fd = tr->sigfd, .events = POLLIN };
		/* (a negative fd is skipped by poll()) */
		pf[2] = (struct pollfd){ .fd = tr->group, .events = POLLIN };
		if (poll(pf, 3, expire(tr)) < 0 && errno != EINTR)
			finish(tr);
		while (read(tr->sigfd, &si, sizeof(si)) > 0)
			;
		reap(tr);
		if (pf[2].revents)
			on_execs(tr);
		if (pf[0].revents)
			on_msg(tr);
	}
}

/* ---- the engine's side ---- */

int usdtkit__hold_start(struct usdtkit__hold **out, const struct usdtkit__hold_opts *o)
{
	struct tracer tr = { .hold_sig = o->signal, .exits = o->exits,
			     .group = o->execs ? o->exec_group : -1,
			     .elf_only = o->exec_elf_only, .engine = getpid(),
			     .remember = o->exec_remember,
			     .opts = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC };
	struct usdtkit__hold *h = calloc(1, sizeof(*h));
	sigset_t all, old;
	int sv[2], err;

	if (!h)
		return -ENOMEM;
	if (o->forks)
		tr.opts |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	if (o->exits)
		tr.opts |= PTRACE_O_TRACEEXIT;
	h->stack = malloc(HOLD_STACK);
	if (!h->stack || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		err = h->stack ? -errno : -ENOMEM;
		free(h->stack);
		free(h);
		return err;
	}
	tr.sock = sv[1];
	/* no handler of the application may run in the copy: every signal
	 * blocked there (SIGKILL still works); SIGCHLD read from a signalfd */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	/* exit signal 0: only a __WCLONE wait (ours) sees it end */
	h->pid = clone(tracer_main, h->stack + HOLD_STACK, 0, &tr);
	err = h->pid < 0 ? -errno : 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(sv[1]);
	if (err) {
		close(sv[0]);
		free(h->stack);
		free(h);
		return err;
	}
	h->fd = sv[0];
	*out = h;
	return 0;
}

static int recv_msg(struct usdtkit__hold *h, struct hold_msg *m, int flags)
{
	ssize_t n;

	do
		n = recv(h->fd, m, sizeof(*m), flags);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	/* EOF: the tracer is gone (killed): nothing is held any more */
	return n == (ssize_t)sizeof(*m) ? 1 : -EPIPE;
}

static int queue(struct usdtkit__hold *h, const struct hold_msg *m)
{
	if (h->nq == h->capq) {
		size_t cap = h->capq ? 2 * h->capq : 8;
		void *n = realloc(h->queue, cap * sizeof(*h->queue));

		if (!n)
			return -ENOMEM;
		h->queue = n;
		h->capq = cap;
	}
	h->queue[h->nq++] = *m;
	return 0;
}

int usdtkit__hold_seize(struct usdtkit__hold *h, int tgid)
{
	struct hold_msg m = { .op = MSG_SEIZE, .tid = tgid };
	int err;

	if (send(h->fd, &m, sizeof(m), MSG_NOSIGNAL) < 0)
		return -errno;
	for (;;) {
		err = recv_msg(h, &m, 0);
		if (err < 0)
			return err;
		if (m.op == MSG_SEIZED && m.tid == tgid)
			return m.arg < 0 ? m.arg : 0;
		if ((m.op == MSG_HELD || m.op == MSG_EXPIRED) && (err = queue(h, &m)))
			return err;
	}
}

int usdtkit__hold_fd(const struct usdtkit__hold *h)
{
	return h ? h->fd : -1;
}

/* The process of thread @tid (itself when it cannot be read: a thread
 * at its exit, whose process is its own tid's most of the time). */
static int tgid_of(int tid)
{
	char buf[512], *p;

	if (proc_read(tid, "status", buf, sizeof(buf)) < 0)
		return tid;
	p = strstr(buf, "\nTgid:");
	return p ? atoi(p + 6) : tid;
}

int usdtkit__hold_next(struct usdtkit__hold *h, struct usdtkit__hold_event *ev)
{
	struct hold_msg m;
	int n;

	if (h->nq) {
		m = h->queue[0];
		memmove(h->queue, h->queue + 1, --h->nq * sizeof(*h->queue));
	} else {
		n = recv_msg(h, &m, MSG_DONTWAIT);
		if (n <= 0)
			return n;
	}
	ev->why = m.op == MSG_EXPIRED ? USDTKIT__HOLD_EXPIRED : m.arg;
	ev->tid = m.tid;
	ev->key = m.key;
	ev->fd = m.op == MSG_HELD && m.key < 0 ? m.fd : -1;
	/* an exec's is its process already */
	ev->tgid = m.key < 0 ? m.tid : tgid_of(m.tid);
	return 1;
}

int usdtkit__hold_pid(const struct usdtkit__hold *h)
{
	return h ? h->pid : -1;
}

int usdtkit__hold_answer(struct usdtkit__hold *h, int key, bool remember)
{
	struct hold_msg m = { .op = MSG_RELEASE, .key = key, .fd = remember };

	return send(h->fd, &m, sizeof(m), MSG_NOSIGNAL) < 0 ? -errno : 0;
}

int usdtkit__hold_release(struct usdtkit__hold *h, int key)
{
	return usdtkit__hold_answer(h, key, false);
}

void usdtkit__hold_stop(struct usdtkit__hold *h)
{
	if (!h)
		return;
	close(h->fd);
	while (waitpid(h->pid, NULL, __WCLONE) < 0 && errno == EINTR)
		;
	free(h->stack);
	free(h->queue);
	free(h);
}
