// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Known hits per key, for the keyed aggregations (tests/cli_trace_keys.sh):
 * keys:evt(const char *op, long v) and around it keys:start(op),
 * keys:done(), fired by threads run one after the other:
 *   "kw-a" 10 hits, "kw-b" 20, "kw-c" 30: hit j (0-based) has op "GET"
 *          when j % 3 == 0, else "POST", and v = j + 1;
 *   "kw\x1b[2J" (a name with an escape) 2 hits ("ESC", 5);
 *   the main thread ("fx_keys") 4 hits ("MAIN", 100);
 *   with "fork", a child process 6 hits ("CHILD", 7).
 * Each thread's name and tid, and the child's pid, are written to FILE.
 * "many N": N hits with v = 0..N-1 (N distinct keys), op "M".
 * "slow": as without, with 30 ms between the threads, and between the
 * main thread's hits (for several --interval reports).
 *
 * usage: fx_keys FILE [fork | many N | slow]   (fires once a line is on stdin)
 *
 * Built -O0 -fno-omit-frame-pointer: every function has its frame, so a
 * user stack walked from hit()'s probes has each caller's call site (at
 * -O2 the compiler gives the leaf hit() no frame, even with
 * -mno-omit-leaf-frame-pointer, and the walk misses its caller).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sys/sdt.h>

static FILE *out;

__attribute__((noinline)) static void hit(const char *op, long v)
{
	DTRACE_PROBE1(keys, start, op);
	DTRACE_PROBE2(keys, evt, op, v);
	DTRACE_PROBE(keys, done);
}

struct job {
	const char *name;
	int n;
};

static struct job jobs[] = { { "kw-a", 10 }, { "kw-b", 20 }, { "kw-c", 30 },
			     { "kw\x1b[2J", 2 } };

static void *run(void *arg)
{
	const struct job *j = arg;
	int i;

	pthread_setname_np(pthread_self(), j->name);
	fprintf(out, "tid %ld %d\n", (long)syscall(SYS_gettid), (int)(j - jobs));
	fflush(out);
	for (i = 0; i < j->n; i++) {
		if (!strcmp(j->name, "kw\x1b[2J"))
			hit("ESC", 5);
		else
			hit(i % 3 == 0 ? "GET" : "POST", i + 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	char line[16];
	pthread_t th;
	size_t i;
	pid_t pid;

	if (argc < 2 || !(out = fopen(argv[1], "w")))
		return 2;
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	if (argc > 3 && !strcmp(argv[2], "many")) {
		long n = atol(argv[3]), k;

		for (k = 0; k < n; k++)
			hit("M", k);
		return 0;
	}
	struct timespec ms30 = { 0, 30 * 1000 * 1000 };
	int slow = argc > 2 && !strcmp(argv[2], "slow");

	for (i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		if (pthread_create(&th, NULL, run, &jobs[i]) || pthread_join(th, NULL))
			return 1;
		if (slow)
			nanosleep(&ms30, NULL);
	}
	for (i = 0; i < 4; i++) {
		hit("MAIN", 100);
		if (slow)
			nanosleep(&ms30, NULL);
	}
	fprintf(out, "pid %d\n", (int)getpid());
	if (argc > 2 && !strcmp(argv[2], "fork")) {
		fflush(out);
		pid = fork();
		if (pid == 0) {
			/* a fork does not copy the page tables of file pages:
			 * "CHILD" is on a .rodata page this process has not
			 * touched, which bpftrace reads as a fault (usdtkit
			 * faults it in: cli_trace_cold.sh). Touched here, so
			 * the two agree on what this test is about, keys */
			const volatile char *c = "CHILD";

			while (*c)
				c++;
			for (i = 0; i < 6; i++)
				hit("CHILD", 7);
			fprintf(out, "child %d\n", (int)getpid());
			return 0;
		}
		waitpid(pid, NULL, 0);
	}
	fclose(out);
	return 0;
}
