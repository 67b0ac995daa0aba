// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The workload of tests/cli_trace_children.sh: a process tree that fires
 * forkt:hit(who) K times in each process (and thread), who telling them
 * apart. usage: fx_fork C G K
 *
 *   who 4  a child forked at the start, before the trace: it waits for
 *          its parent's word, so it is alive when the trace begins;
 *   then "ready" on stdout, and a line (or EOF) read from stdin;
 *   who 0  the process itself;
 *   who 1  each of C children forked then, each of which also has
 *   who 3  a thread, and forks G children of its own:
 *   who 2  the grandchildren.
 *
 * Every process waits for its children, so the tree is gone when it
 * exits (status 0). Hits: K * (2 + C * (2 + G)), K of them its own.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/sdt.h>
#include <sys/wait.h>

static int k;

/* one site for every hit: perf mode attaches (and releases) only one */
static __attribute__((noinline)) void fire(int who)
{
	int i;

	for (i = 0; i < k; i++)
		DTRACE_PROBE1(forkt, hit, who);
}

static void *thread_main(void *arg)
{
	(void)arg;
	fire(3);
	return NULL;
}

static int wait_all(void)
{
	int st, bad = 0;

	while (wait(&st) > 0)
		bad |= !WIFEXITED(st) || WEXITSTATUS(st);
	return bad;
}

static void child(int g)
{
	pthread_t th;
	int i;

	if (pthread_create(&th, NULL, thread_main, NULL))
		_exit(3);
	fire(1);
	for (i = 0; i < g; i++) {
		pid_t p = fork();

		if (p < 0)
			_exit(4);
		if (!p) {
			fire(2);
			_exit(0);
		}
	}
	pthread_join(th, NULL);
	_exit(wait_all() ? 5 : 0);
}

int main(int argc, char **argv)
{
	int c, g, i, go[2];
	char line[64], b;
	pid_t early;

	if (argc != 4) {
		fprintf(stderr, "usage: fx_fork C G K\n");
		return 2;
	}
	c = atoi(argv[1]);
	g = atoi(argv[2]);
	k = atoi(argv[3]);
	if (pipe(go))
		return 1;
	early = fork();
	if (early < 0)
		return 1;
	if (!early) {
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(6);
		fire(4);
		_exit(0);
	}
	close(go[0]);
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;	/* EOF: go too (-c with no input) */
	fire(0);
	if (write(go[1], "g", 1) != 1)
		return 1;
	close(go[1]);
	for (i = 0; i < c; i++) {
		pid_t p = fork();

		if (p < 0)
			return 1;
		if (!p)
			child(g);
	}
	return wait_all();
}
