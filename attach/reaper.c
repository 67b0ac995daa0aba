// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Hand file descriptors whose last close is slow to a background process.
 *
 * A perf-event uprobe costs the kernel ~0.1 s to release, one at a time
 * (perf.c). A child process that holds copies of the fds makes our own
 * closes cheap: the kernel releases an event when its last reference
 * goes, in whichever process that is. The child must be the last to
 * close, so it waits on a pipe until we have closed ours (else the
 * release falls to whichever of us closes last: our closes took 9 s for
 * 100 sites when it exited first). Then it exits: the kernel drops its
 * memory (exit_mm) before it closes its files (exit_files), so it holds
 * no copy of our address space while the events are released, and it
 * runs no code of ours meanwhile.
 *
 * It is a grandchild, so that nothing has to wait for it and it outlives
 * us if we exit first (init reaps it). The child in between has no exit
 * signal: the application's wait() and SIGCHLD handler never see it.
 * Both run only async-signal-safe calls (we may have other threads) and
 * with every signal blocked (no handler of the application runs there).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attach/internal.h"

#define REAPER_STACK (64 * 1024)

struct reap_job {
	const int *keep;	/* sorted: the fds handed over and the pipe's read end */
	size_t n;
	int wait_fd;		/* the pipe's read end: EOF once we closed ours */
	char *stack2;		/* the grandchild's, top of it */
};

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static void close_span(unsigned int lo, unsigned int hi)
{
	struct rlimit rl;
	unsigned int fd;

	if (lo > hi || !syscall(SYS_close_range, lo, hi, 0))
		return;
	/* before Linux 5.9: one by one, up to the fd limit */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < hi)
		hi = (unsigned int)rl.rlim_cur;
	for (fd = lo; fd <= hi && fd != ~0U; fd++)
		close((int)fd);
}

static int grandchild(void *arg)
{
	const struct reap_job *j = arg;
	char c;

	/* out of our session (no terminal signals), off our cwd's mount */
	setsid();
	if (chdir("/"))
		_exit(1);
	prctl(PR_SET_NAME, "usdtkit-reaper", 0, 0, 0);
	while (read(j->wait_fd, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);	/* the kernel closes the fds on the way out */
}

static int middle(void *arg)
{
	const struct reap_job *j = arg;
	unsigned int lo = 0;
	size_t i;

	/* keep nothing of ours alive but the fds handed over (the pipe's
	 * write end goes too: the grandchild waits for its EOF) */
	for (i = 0; i < j->n; i++) {
		if ((unsigned int)j->keep[i] > lo)
			close_span(lo, (unsigned int)j->keep[i] - 1);
		lo = (unsigned int)j->keep[i] + 1;
	}
	close_span(lo, ~0U);
	_exit(clone(grandchild, j->stack2, SIGCHLD, (void *)j) < 0 ? 1 : 0);
}

/* Start the reaper holding copies of @fds; 0 or a negative errno. */
static int reaper_start(const int *fds, size_t n, int pipe_rd)
{
	struct reap_job j = { .n = n + 1, .wait_fd = pipe_rd };
	char *stacks = malloc(2 * REAPER_STACK);
	int *keep = malloc((n + 1) * sizeof(*keep));
	sigset_t all, old;
	int st = 0, err = 0;
	pid_t pid;

	if (!stacks || !keep) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(keep, fds, n * sizeof(*keep));
	keep[n] = pipe_rd;
	qsort(keep, n + 1, sizeof(*keep), cmp_int);
	j.keep = keep;
	/* stacks grow down on every architecture usdtkit builds for */
	j.stack2 = stacks + 2 * REAPER_STACK;
	/* the children inherit our handlers: with every signal blocked no
	 * handler of the application ever runs in them (SIGKILL still works) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = clone(middle, stacks + REAPER_STACK, 0, &j);
	err = pid < 0 ? -errno : 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		goto out;
	while (waitpid(pid, &st, __WCLONE) < 0)
		if (errno != EINTR) {
			st = 0;	/* SIGCHLD ignored: reaped for us */
			break;
		}
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		err = -ECHILD;
out:
	free(stacks);
	free(keep);
	return err;
}

/*
 * Close @fds, leaving the kernel's release of them to a background
 * process when one can be started (else it happens here). 0 if it did.
 */
int usdtkit__close_in_background(const int *fds, size_t n)
{
	int p[2] = { -1, -1 }, err;
	size_t i;

	err = pipe2(p, O_CLOEXEC) ? -errno : reaper_start(fds, n, p[0]);
	for (i = 0; i < n; i++)
		close(fds[i]);
	/* now the reaper holds the last references: let it go */
	if (p[0] >= 0) {
		close(p[0]);
		close(p[1]);
	}
	return err;
}
