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
 * CMD is split into words here, not by sh -c: the pid that is traced
 * and the file that PROVIDER:NAME targets are resolved in must be those
 * of CMD itself, and a shell in between would be neither (it may fork
 * CMD instead of exec'ing it). Words are split at blanks; '...', "..."
 * and \ quote as in sh, with no expansion of any kind. CMD is looked up
 * in $PATH as execvp() does, once, so the file attached to is the one
 * executed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "trace.h"

/* ---- CMD -> words ---- */

/* Append word @w (@n bytes) to *@argv; 0 or -ENOMEM. */
static int push_word(char ***argv, size_t *argc, const char *w, size_t n)
{
	char **a = realloc(*argv, (*argc + 2) * sizeof(*a));

	if (!a)
		return -ENOMEM;
	*argv = a;
	a[*argc] = strndup(w, n);
	if (!a[*argc])
		return -ENOMEM;
	a[++*argc] = NULL;
	return 0;
}

void trace_cmd_free_argv(char **argv)
{
	char **a;

	for (a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

/*
 * @s split as described above into a NULL-terminated array (malloc'ed);
 * 0, -EINVAL with *@why set (an unterminated quote, no word at all) or
 * -ENOMEM.
 */
int trace_cmd_split(const char *s, char ***argvp, const char **why)
{
	size_t len = strlen(s), argc = 0, n;
	char **argv = NULL, *w = malloc(len + 1), q;
	bool in_word;
	int err = 0;

	*argvp = NULL;
	if (!w)
		return -ENOMEM;
	while (!err) {
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			break;
		n = 0;
		in_word = true;
		while (in_word && *s) {
			switch (*s) {
			case ' ': case '\t': case '\n':
				in_word = false;
				continue;
			case '\'': case '"':
				q = *s++;
				while (*s && *s != q) {
					/* in "...", \ quotes only what sh lets it */
					if (q == '"' && *s == '\\' && s[1] &&
					    strchr("\"\\$`", s[1]))
						s++;
					w[n++] = *s++;
				}
				if (!*s) {
					*why = "unterminated quote";
					err = -EINVAL;
					in_word = false;
					continue;
				}
				s++;
				break;
			case '\\':
				if (s[1])
					s++;
				/* fallthrough */
			default:
				w[n++] = *s++;
			}
		}
		if (!err)
			err = push_word(&argv, &argc, w, n);
	}
	free(w);
	if (!err && !argc) {
		*why = "empty command";
		err = -EINVAL;
	}
	if (err) {
		trace_cmd_free_argv(argv);
		return err;
	}
	*argvp = argv;
	return 0;
}

/* ---- running it ---- */

static bool is_exec_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

/*
 * The file execvp() would run for @file (malloc'ed), or NULL with errno:
 * a name with a '/' as it is, else the first executable file of $PATH.
 */
char *trace_cmd_resolve(const char *file)
{
	const char *path = getenv("PATH"), *p, *end;
	char *cand;
	int err = ENOENT;

	if (strchr(file, '/')) {
		if (is_exec_file(file))
			return strdup(file);
		if (!access(file, F_OK))
			errno = EACCES;
		return NULL;
	}
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = end + 1) {
		end = strchrnul(p, ':');
		/* an empty element is the current directory */
		if (asprintf(&cand, "%.*s%s%s", (int)(end - p), p,
			     end == p ? "" : "/", file) < 0)
			return NULL;
		if (is_exec_file(cand))
			return cand;
		if (!access(cand, F_OK))
			err = EACCES;
		free(cand);
		if (!*end)
			break;
	}
	errno = err;
	return NULL;
}

/* The child: wait for "go", then become CMD with signals as trace found
 * them (trace ignores SIGPIPE and blocks SIGINT, SIGTERM and SIGCHLD,
 * which it reads from a signalfd). Unblocked at once, not after "go": a
 * SIGINT or SIGTERM sent to the held child (Ctrl-C reaches the whole
 * process group) kills it before CMD can run. */
static void __attribute__((noreturn))
child(struct tracer *t, int go_fd, int err_fd)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	char c = 0;
	int e;

	sigaction(SIGPIPE, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	while (read(go_fd, &c, 1) < 0 && errno == EINTR)
		;
	/* EOF: trace gave up (or died) before attaching: never run CMD */
	if (c != 'g')
		_exit(127);
	execv(t->cmd_path, t->cmd_argv);
	e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* Fork CMD, held before its exec; t->pid is then its pid. */
int trace_cmd_start(struct tracer *t)
{
	int go[2], ex[2];
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
		child(t, go[0], ex[1]);
	}
	close(go[0]);
	close(ex[1]);
	if (pid < 0) {
		close(go[1]);
		close(ex[0]);
		goto fail;
	}
	t->pid = pid;
	t->cmd_go_fd = go[1];
	t->cmd_err_fd = ex[0];
	return 0;
fail:
	trace_err("cannot start %s: %s", t->cmd_argv[0], strerror(errno));
	return -errno;
}

/* Let CMD exec; 0 once it has, or -errno of its execv(). */
int trace_cmd_go(struct tracer *t)
{
	ssize_t n;
	int e = 0;

	n = write(t->cmd_go_fd, "g", 1);
	close(t->cmd_go_fd);
	t->cmd_go_fd = -1;
	if (n != 1) {
		trace_err("cannot start %s: %s", t->cmd_argv[0], strerror(errno));
		return -errno;
	}
	/* EOF once the exec closed the pipe; an errno if it failed */
	do
		n = read(t->cmd_err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(t->cmd_err_fd);
	t->cmd_err_fd = -1;
	if (n == sizeof(e)) {
		trace_err("cannot run %s: %s", t->cmd_path, strerror(e));
		return -e;
	}
	return 0;
}

/* Has CMD exited? Reaps it and says how, once. */
bool trace_cmd_exited(struct tracer *t, bool block)
{
	int st;
	pid_t r;

	if (t->cmd_reaped)
		return true;
	do
		r = waitpid(t->pid, &st, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return false;
	t->cmd_reaped = true;
	if (r < 0)
		return true;
	/* not yet exec'd: our own _exit(127), nothing to say */
	if (t->cmd_go_fd >= 0)
		return true;
	if (WIFEXITED(st))
		trace_err("command pid %d exited with status %d", t->pid,
			  WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		trace_err("command pid %d killed by signal %d (%s)", t->pid,
			  WTERMSIG(st), strsignal(WTERMSIG(st)));
	return true;
}

/*
 * The trace ends first (Ctrl-C, --count, --duration, an error): CMD is
 * not left to run untraced. It gets SIGTERM, then SIGKILL if it is still
 * there 2 s later; trace waits for it either way, so that the hits of its
 * way out are still printed.
 */
void trace_cmd_stop(struct tracer *t)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	int i;

	if (!t->cmd_argv || !t->pid || t->cmd_reaped)
		return;
	if (t->cmd_go_fd >= 0) {
		/* still before its exec: the EOF makes it _exit() */
		close(t->cmd_go_fd);
		t->cmd_go_fd = -1;
		close(t->cmd_err_fd);
		t->cmd_err_fd = -1;
		while (waitpid(t->pid, NULL, 0) < 0 && errno == EINTR)
			;
		t->cmd_reaped = true;
		return;
	}
	kill(t->pid, SIGTERM);
	for (i = 0; i < 100; i++) {
		if (trace_cmd_exited(t, false))
			return;
		nanosleep(&tick, NULL);
	}
	kill(t->pid, SIGKILL);
	trace_cmd_exited(t, true);
}
