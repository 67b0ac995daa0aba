// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit trace -c CMD: run CMD, traced from its first instruction.
 *
 * The probes must be in place before CMD runs, yet CMD's pid only exists
 * once it is forked, and until it execs, that pid runs a copy of trace.
 * Uprobes are registered on a file (an inode), not on an address space:
 * the kernel puts the breakpoints into every mapping of that file made
 * later, by a process that the link's PID filter accepts, and raises
 * the semaphores (ref_ctr_offset) there too. So:
 *
 *   1. fork; the child blocks reading a pipe, before execv();
 *   2. trace attaches by PATH (CMD's executable, or any PATH a TARGET
 *      names) with the child's pid as filter, exactly as -p PID would;
 *   3. trace writes "go": the child execs, and the exec maps CMD with
 *      the breakpoints and semaphores already in it, before main();
 *      libraries it maps later (dlopen) get theirs when they are mapped.
 *
 * A pipe, not ptrace(PTRACE_TRACEME) (which stops the child at the exec
 * boundary and would allow attaching by pid to the new image): ptrace
 * may be denied (Yama ptrace_scope 3, seccomp in containers), and a
 * traced CMD would differ from an untraced one (a debugger cannot attach
 * to it, its signals pass through trace). The child leaves the pipe by
 * exec or by _exit(): if trace dies first, the read sees EOF and CMD
 * never runs untraced. A second pipe, close-on-exec, carries the errno of
 * a failed execv() back, and its EOF tells that the exec has happened.
 *
 * CMD comes as words (or as a line: cmd_line.c). It is looked up in
 * $PATH as execvp() does, once, so the file attached to is the one
 * executed. A CMD that is no ELF file (a #! script, a version manager's
 * shim) is executed as it is, the kernel running its interpreter: its
 * PROVIDER:NAME targets wait for the program it execs (targets.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "trace/internal.h"
#include "watch/watch.h"

/* ---- running it ---- */

/* Does @path start as an ELF file does? One that cannot be read is
 * taken for one: the ELF reader then says why it cannot read it. */
static bool is_elf_file(const char *path)
{
	unsigned char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return true;
	n = pread(fd, magic, sizeof(magic), 0);
	close(fd);
	return n < 0 || (n == (ssize_t)sizeof(magic) && !memcmp(magic, "\177ELF", 4));
}

/* The child: wait for "go", then become CMD with signals as the tracer
 * found them, but SIGINT, SIGTERM and SIGCHLD unblocked and SIGPIPE at
 * its default (a tracer like the CLI blocks the first three to read
 * them from a signalfd, and ignores SIGPIPE). Unblocked at once, not
 * after "go": a SIGINT or SIGTERM sent to the held child (Ctrl-C reaches
 * the whole process group) kills it before CMD can run. */
static void __attribute__((noreturn))
child(const struct trace_cmd *c, int go_fd, int err_fd)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	char ch = 0;
	int e;

	sigaction(SIGPIPE, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	while (read(go_fd, &ch, 1) < 0 && errno == EINTR)
		;
	/* EOF: the tracer gave up (or died) before attaching: never run CMD */
	if (ch != 'g')
		_exit(127);
	execv(c->path, c->argv);
	e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* Fork CMD, held before its exec; t->pid is then its pid. */
int usdtkit__cmd_start(struct usdtkit_trace *t)
{
	struct trace_cmd *c = &t->cmd;
	int go[2], ex[2], err;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		goto fail;
	if (pipe2(ex, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		goto fail;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		close(ex[0]);
		child(c, go[0], ex[1]);
	}
	close(go[0]);
	close(ex[1]);
	if (pid < 0) {
		close(go[1]);
		close(ex[0]);
		goto fail;
	}
	t->pid = pid;
	c->go_fd = go[1];
	c->err_fd = ex[0];
	return 0;
fail:
	err = -errno;
	trace_err(t, "cannot start %s: %s", c->argv[0], strerror(-err));
	return err;
}

/* Let CMD exec; 0 once it has, or -errno of its execv(). */
/*
 * Until the command's exec is done, the tracer's holds are served: the
 * exec itself may be one (a file of a PATH target's directory,
 * refresh.c), and would otherwise wait its 2 s for us.
 */
static void wait_exec(struct usdtkit_trace *t)
{
	struct pollfd pf[2] = {
		{ .fd = t->cmd.err_fd, .events = POLLIN },
		{ .fd = usdtkit__hold_fd(t->follow.hold), .events = POLLIN },
	};

	while (pf[1].fd >= 0 && !pf[0].revents) {
		if (poll(pf, 2, -1) < 0 && errno != EINTR)
			return;
		if (pf[1].revents)
			usdtkit__follow_poll(t);
		pf[1].fd = usdtkit__hold_fd(t->follow.hold);
	}
}

int usdtkit__cmd_go(struct usdtkit_trace *t)
{
	struct trace_cmd *c = &t->cmd;
	ssize_t n;
	int e = 0;

	n = write(c->go_fd, "g", 1);
	e = errno;
	close(c->go_fd);
	c->go_fd = -1;
	if (n != 1) {
		trace_err(t, "cannot start %s: %s", c->argv[0], strerror(e));
		return -e;
	}
	/* EOF once the exec closed the pipe; an errno if it failed */
	e = 0;
	wait_exec(t);
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n == sizeof(e)) {
		trace_err(t, "cannot run %s: %s", c->path, strerror(e));
		return -e;
	}
	return 0;
}

/*
 * Has CMD exited? 0 no; 1 yes, *@wstatus its status the first time it
 * is seen (reaped here), -1 after or when it never ran (our own
 * _exit(127) before the exec).
 */
int usdtkit__cmd_exited(struct usdtkit_trace *t, bool block, int *wstatus)
{
	struct trace_cmd *c = &t->cmd;
	int st;
	pid_t r;

	*wstatus = -1;
	if (!t->has_cmd || !t->pid)
		return 1;
	if (c->reaped)
		return 1;
	do
		r = waitpid(t->pid, &st, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return 0;
	c->reaped = true;
	if (r > 0 && c->go_fd < 0)
		*wstatus = st;
	return 1;
}

/*
 * The trace ends first (Ctrl-C, --count, --duration, an error): CMD is
 * not left to run untraced. It gets SIGTERM, then SIGKILL if it is still
 * there 2 s later; the tracer waits for it either way, so that the hits
 * of its way out are still seen. 1 and *@wstatus as usdtkit__cmd_exited().
 */
int usdtkit__cmd_stop(struct usdtkit_trace *t, int *wstatus)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	struct trace_cmd *c = &t->cmd;
	int i;

	*wstatus = -1;
	if (!t->has_cmd || !t->pid || c->reaped)
		return 1;
	if (c->go_fd >= 0) {
		/* still before its exec: the EOF makes it _exit() */
		close(c->go_fd);
		c->go_fd = -1;
		close(c->err_fd);
		c->err_fd = -1;
		while (waitpid(t->pid, NULL, 0) < 0 && errno == EINTR)
			;
		c->reaped = true;
		return 1;
	}
	kill(t->pid, SIGTERM);
	for (i = 0; i < 100; i++) {
		if (usdtkit__cmd_exited(t, false, wstatus))
			return 1;
		nanosleep(&tick, NULL);
	}
	kill(t->pid, SIGKILL);
	return usdtkit__cmd_exited(t, true, wstatus);
}

void usdtkit__cmd_free(struct usdtkit_trace *t)
{
	char **a;
	int st;

	usdtkit__cmd_stop(t, &st);
	for (a = t->cmd.argv; a && *a; a++)
		free(*a);
	free(t->cmd.argv);
	free(t->cmd.path);
}

int usdtkit_trace_command_exited(struct usdtkit_trace *t, bool block, int *wstatus)
{
	int st;

	return usdtkit__cmd_exited(t, block, wstatus ? wstatus : &st);
}

int usdtkit_trace_command_stop(struct usdtkit_trace *t, int *wstatus)
{
	int st;

	return usdtkit__cmd_stop(t, wstatus ? wstatus : &st);
}

int usdtkit_trace_set_command(struct usdtkit_trace *t, char *const argv[])
{
	size_t n = 0, i;
	char **copy;

	if (!argv || !argv[0] || t->pid || t->has_cmd || t->all)
		return -EINVAL;
	while (argv[n])
		n++;
	copy = calloc(n + 1, sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		copy[i] = strdup(argv[i]);
		if (!copy[i])
			goto nomem;
	}
	t->cmd.path = usdtkit__cmd_resolve(argv[0]);
	if (!t->cmd.path) {
		int err = -errno;

		trace_err(t, "cannot run %s: %s", argv[0], strerror(-err));
		for (i = 0; i < n; i++)
			free(copy[i]);
		free(copy);
		return err;
	}
	t->cmd.argv = copy;
	t->cmd.script = !is_elf_file(t->cmd.path);
	t->has_cmd = true;
	return 0;
nomem:
	while (i--)
		free(copy[i]);
	free(copy);
	return -ENOMEM;
}
