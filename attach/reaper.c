// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Hand file descriptors whose last close is slow to a background process.
 *
 * A perf-event uprobe costs the kernel ~0.1 s to release, one at a time
 * (perf.c). A child process that holds copies of the fds makes our own
 * closes cheap: the kernel releases an event when its last reference
 * goes, in whichever process that is. The child exits at once: the
 * kernel drops its memory (exit_mm) before it closes its files
 * (exit_files), so it holds no copy of our address space while the
 * events are released, and it runs no code of ours meanwhile.
 *
 * It is a grandchild, so that nothing has to wait for it and it outlives
 * us if we exit first (init reaps it). The child in between has no exit
 * signal: the application's wait() and SIGCHLD handler never see it.
 * Both run only async-signal-safe calls: we may have other threads.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

#define REAPER_STACK (64 * 1024)

struct reap_job {
	const int *fds;		/* sorted */
	size_t n;
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
	(void)arg;
	/* out of our session (no terminal signals), off our cwd's mount */
	setsid();
	if (chdir("/"))
		_exit(1);
	prctl(PR_SET_NAME, "usdtkit-reaper", 0, 0, 0);
	_exit(0);	/* the kernel closes the fds on the way out */
}

static int middle(void *arg)
{
	const struct reap_job *j = arg;
	unsigned int lo = 0;
	size_t i;

	/* keep nothing of ours alive but the fds handed over */
	for (i = 0; i < j->n; i++) {
		if ((unsigned int)j->fds[i] > lo)
			close_span(lo, (unsigned int)j->fds[i] - 1);
		lo = (unsigned int)j->fds[i] + 1;
	}
	close_span(lo, ~0U);
	_exit(clone(grandchild, j->stack2, SIGCHLD, NULL) < 0 ? 1 : 0);
}

/*
 * After this returns 0, a background process holds its own copies of
 * @fds: closing ours is fast. A negative errno if it could not be
 * started (closing ours then costs the full release).
 */
int usdtkit__reap_fds(const int *fds, size_t n)
{
	struct reap_job j = { .n = n };
	char *stacks = malloc(2 * REAPER_STACK);
	int *sorted = malloc(n * sizeof(*sorted));
	int st = 0, err = 0;
	pid_t pid;

	if (!stacks || !sorted) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(sorted, fds, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_int);
	j.fds = sorted;
	/* stacks grow down on every architecture usdtkit builds for */
	j.stack2 = stacks + 2 * REAPER_STACK;
	pid = clone(middle, stacks + REAPER_STACK, 0, &j);
	if (pid < 0) {
		err = -errno;
		goto out;
	}
	while (waitpid(pid, &st, __WCLONE) < 0)
		if (errno != EINTR) {
			st = 0;	/* SIGCHLD ignored: reaped for us */
			break;
		}
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		err = -ECHILD;
out:
	free(stacks);
	free(sorted);
	return err;
}
