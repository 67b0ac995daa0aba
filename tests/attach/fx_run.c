// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fx_run.h"

/* fx_exec beside the fixture, into @buf: "" when there is none */
static void launcher(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	int n = slash ? (int)(slash - path) : 1;

	snprintf(buf, size, "%.*s/fx_exec", n, slash ? path : ".");
	if (access(buf, X_OK))
		buf[0] = 0;
}

/* no "ready": why, from how the child ended (fx_exec's status) */
static int start_error(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -EIO;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 126)
		return -ENOEXEC;
	return WIFEXITED(st) && WEXITSTATUS(st) == 127 ? -ENOENT : -EIO;
}

int fx_start(struct fx_proc *p, const char *path, int lib)
{
	const char *arg = lib ? "lib" : "nolib";
	char line[64], via[4096];
	int to[2], from[2];

	memset(p, 0, sizeof(*p));
	launcher(path, via, sizeof(via));
	/* close-on-exec: a second fixture must not hold this one's pipes */
	if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC))
		return -errno;
	p->pid = fork();
	if (p->pid < 0)
		return -errno;
	if (p->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		if (via[0])
			execl(via, via, path, arg, (char *)NULL);
		else
			execl(path, path, arg, (char *)NULL);
		_exit(errno == ENOEXEC ? 126 : 127);
	}
	close(to[0]);
	close(from[1]);
	p->in = fdopen(to[1], "w");
	p->out = fdopen(from[0], "r");
	if (!p->in || !p->out || !fgets(line, sizeof(line), p->out) ||
	    strncmp(line, "ready", 5)) {
		int err = start_error(p->pid);

		p->pid = 0;
		fx_stop(p);
		return err;
	}
	return 0;
}

int fx_fire(struct fx_proc *p, int rounds)
{
	char line[64];

	fprintf(p->in, "%d\n", rounds);
	fflush(p->in);
	if (!fgets(line, sizeof(line), p->out) || strncmp(line, "done", 4))
		return -EIO;
	return 0;
}

void fx_stop(struct fx_proc *p)
{
	int st;

	if (p->in)
		fclose(p->in);
	if (p->out)
		fclose(p->out);
	if (p->pid > 0 && waitpid(p->pid, &st, 0) != p->pid)
		kill(p->pid, SIGKILL);
	memset(p, 0, sizeof(*p));
}
