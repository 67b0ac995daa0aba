// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fx_run.h"

/*
 * The exec's own errno, sent back through a close-on-exec pipe: a test
 * tells "this kernel cannot run that ELF" (-ENOEXEC: an i386 fixture on a
 * kernel without IA-32 emulation) from a fixture that broke.
 */
static int exec_error(int fd)
{
	int err = 0;

	if (read(fd, &err, sizeof(err)) != sizeof(err))
		err = 0;
	close(fd);
	return err;
}

int fx_start(struct fx_proc *p, const char *path, int lib)
{
	int to[2], from[2], ex[2], err;
	char line[64];

	memset(p, 0, sizeof(*p));
	/* close-on-exec: a second fixture must not hold this one's pipes */
	if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC) || pipe2(ex, O_CLOEXEC))
		return -errno;
	p->pid = fork();
	if (p->pid < 0)
		return -errno;
	if (p->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		execl(path, path, lib ? "lib" : "nolib", (char *)NULL);
		err = errno;
		if (write(ex[1], &err, sizeof(err)) < 0)
			_exit(126);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	close(ex[1]);
	err = exec_error(ex[0]);
	if (err) {
		close(to[1]);
		close(from[0]);
		waitpid(p->pid, NULL, 0);
		memset(p, 0, sizeof(*p));
		return -err;
	}
	p->in = fdopen(to[1], "w");
	p->out = fdopen(from[0], "r");
	if (!p->in || !p->out || !fgets(line, sizeof(line), p->out) ||
	    strncmp(line, "ready", 5)) {
		fx_stop(p);
		return -EIO;
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
