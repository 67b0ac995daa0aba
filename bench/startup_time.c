// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The clock of bench/startup_bench.sh: the wall time of one command,
 * measured around fork and exec (no shell, no date(1) in between).
 *
 *   startup_time CMD [ARG...]
 *	prints the ns from fork to the command's exit; exits with its
 *	status (1 if it died of a signal)
 *   startup_time --line PREFIX CMD [ARG...]
 *	prints the ns from fork to the first line of its stdout or stderr
 *	(one file) that starts with PREFIX, then sends it SIGINT and
 *	waits; exits 1 if it ends without such a line
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* CMD with its stdout and stderr into @out (-1: left alone) */
static pid_t spawn(char **argv, int out)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	if (out >= 0) {
		dup2(out, 1);
		dup2(out, 2);
	}
	execvp(argv[0], argv);
	perror(argv[0]);
	_exit(127);
}

static int exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int time_exit(char **argv)
{
	long long t0 = now_ns();
	pid_t pid = spawn(argv, -1);
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 1;
	printf("%lld\n", now_ns() - t0);
	return exit_code(status);
}

/*
 * The command's output goes to a file, polled every 0.5 ms: bpftrace
 * 0.17 writing into a pipe its reader holds was seen to stall before
 * attaching (bench/README.md, "Startup"), a file never.
 */
static long long wait_line(const char *prefix, const char *file, long long t0,
			   pid_t pid)
{
	const struct timespec tick = { 0, 500000 };
	size_t n = strlen(prefix);
	char line[4096];
	int status;

	for (;;) {
		FILE *in = fopen(file, "r");

		while (in && fgets(line, sizeof(line), in)) {
			if (!strncmp(line, prefix, n)) {
				fclose(in);
				return now_ns() - t0;
			}
		}
		if (in)
			fclose(in);
		if (waitpid(pid, &status, WNOHANG))
			return -1;	/* ended without the line */
		nanosleep(&tick, NULL);
	}
}

static int time_line(const char *prefix, char **argv)
{
	char file[] = "/tmp/startup_time.XXXXXX";
	int fd = mkstemp(file), status;
	long long t0, t;
	pid_t pid;

	if (fd < 0)
		return 1;
	t0 = now_ns();
	pid = spawn(argv, fd);
	close(fd);
	if (pid < 0) {
		unlink(file);
		return 1;
	}
	t = wait_line(prefix, file, t0, pid);
	kill(pid, SIGINT);
	waitpid(pid, &status, 0);
	unlink(file);
	if (t < 0)
		return 1;
	printf("%lld\n", t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 3 && !strcmp(argv[1], "--line"))
		return time_line(argv[2], argv + 3);
	if (argc > 1 && strcmp(argv[1], "--line"))
		return time_exit(argv + 1);
	fprintf(stderr, "usage: startup_time [--line PREFIX] CMD [ARG...]\n");
	return 2;
}
