/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A fixture process driven through its stdin and stdout, for the unit
 * tests that read a live process (test_proc_sema, test_ustack): started
 * with both as pipes, stopped by closing its stdin (it exits) and
 * reaping it. Header only. */
#ifndef USDTKIT_TESTS_FX_PROC_H
#define USDTKIT_TESTS_FX_PROC_H

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/sched.h>

static inline void fx_proc_child(const char *path, int in[2], int out[2])
{
	char *argv[] = { (char *)path, NULL };

	dup2(in[0], 0);
	dup2(out[1], 1);
	close(in[0]);
	close(in[1]);
	close(out[0]);
	close(out[1]);
	execv(path, argv);
	_exit(127);
}

/*
 * The fixture at @path started with its stdin and stdout as pipes,
 * @want its pid if not 0 (clone3's set_tid, Linux 5.5, root: the pid of
 * a process that exited, reused at once, as the pid space's wrap would
 * reuse it; -EEXIST if some process took it meanwhile, -ENOSYS before
 * 5.5). 0, or -errno; *@in and *@out are NULL when fdopen() failed.
 */
static inline int fx_proc_start_at(const char *path, pid_t want, pid_t *pid, FILE **in,
				   FILE **out)
{
	struct clone_args ca = { .exit_signal = SIGCHLD, .set_tid_size = 1,
				 .set_tid = (uint64_t)(uintptr_t)&want };
	int pin[2], pout[2], err;
	long r;

	*in = *out = NULL;
	if (pipe(pin))
		return -errno;
	if (pipe(pout)) {
		err = -errno;
		close(pin[0]);
		close(pin[1]);
		return err;
	}
	fflush(NULL);	/* nothing buffered is written twice */
	r = want ? syscall(SYS_clone3, &ca, sizeof(ca)) : fork();
	if (r < 0) {
		err = -errno;
		close(pin[0]);
		close(pin[1]);
		close(pout[0]);
		close(pout[1]);
		return err;
	}
	if (!r)
		fx_proc_child(path, pin, pout);
	*pid = (pid_t)r;
	close(pin[0]);
	close(pout[1]);
	*in = fdopen(pin[1], "w");
	*out = fdopen(pout[0], "r");
	return *in && *out ? 0 : -EIO;
}

/* fx_proc_start_at(), any pid */
static inline int fx_proc_start(const char *path, pid_t *pid, FILE **in, FILE **out)
{
	return fx_proc_start_at(path, 0, pid, in, out);
}

/* End of stdin: the fixture exits, and is reaped. */
static inline void fx_proc_stop(pid_t *pid, FILE **in, FILE **out)
{
	if (*in)
		fclose(*in);
	if (*out)
		fclose(*out);
	if (*pid > 0 && waitpid(*pid, NULL, 0) < 0)
		kill(*pid, SIGKILL);
	*pid = 0;
	*in = *out = NULL;
}

#endif
