// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The pause a held thread sees, for bench/hold_bench.sh to run untraced,
 * traced (held until attached, or not) and under gdb:
 *   - hold_load LIB ROUNDS: ROUNDS times dlopen(LIB) (timed alone), one
 *     call into it, dlclose(LIB);
 *   - hold_load -x PROG ROUNDS: ROUNDS times fork, execve(PROG) and wait
 *     (each timed whole): the exec a trace holds when PROG's directory
 *     has a PATH target (an upgrade's new file attached first).
 * Prints the median and the 90th percentile of one round in us, the
 * first one (where a tracer attaches the library), and the rounds'
 * total in ms.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return (x > y) - (x < y);
}

/* the dlopen() alone into *@ns */
static int load_once(const char *lib, int i, unsigned long long *ns)
{
	unsigned long long t0 = now_ns();
	void (*fire)(int);
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);

	*ns = now_ns() - t0;
	if (!h) {
		fprintf(stderr, "hold_load: %s\n", dlerror());
		return -1;
	}
	*(void **)&fire = dlsym(h, "fx_plug_fire");
	if (fire)
		fire(i);
	dlclose(h);
	return 0;
}

/* fork, exec and wait, all of it into *@ns */
static int exec_once(const char *prog, unsigned long long *ns)
{
	unsigned long long t0 = now_ns();
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (!pid) {
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "hold_load: %s: status %#x\n", prog, st);
		return -1;
	}
	*ns = now_ns() - t0;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long *v, t0, start, first;
	int i, n, exec = argc == 4 && !strcmp(argv[1], "-x");
	const char *what = argv[1 + exec];

	if (argc != 3 + exec || (n = atoi(argv[2 + exec])) <= 0)
		return 2;
	v = calloc((size_t)n, sizeof(*v));
	if (!v)
		return 1;
	start = now_ns();
	for (i = 0; i < n; i++) {
		if (exec ? exec_once(what, &v[i]) : load_once(what, i, &v[i]))
			return 1;
	}
	t0 = now_ns() - start;
	first = v[0];
	qsort(v, (size_t)n, sizeof(*v), cmp);
	printf("%s median %.1f us p90 %.1f us first %.1f us; %d rounds %.1f ms\n",
	       exec ? "exec" : "dlopen", v[n / 2] / 1e3, v[n * 9 / 10] / 1e3, first / 1e3, n,
	       t0 / 1e6);
	free(v);
	return 0;
}
