// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The workload of the VM scenario "agg" (tests/vm/guest.sh): probes with
 * known arguments for `usdtkit trace --filter` and the in-kernel
 * aggregations, and a START/END pair in a known order for --latency.
 * tests/vm/check.py models the same values (agg_model()): change both.
 *
 *   vm_agg agg DIR
 *	wait for DIR/go, then for id = 1..30
 *	  usdtkit_vm:req(id, id * 100, -id, PATHS[id % 3])
 *	and after id = 10, 20, 30 also
 *	  usdtkit_vm:tick(id, 2^64 - id, -id * 10^9, "/tick")
 *	(u64, u64, s64, a string; 64-bit values are register pairs on
 *	32-bit targets, and -id * 10^9 does not fit 32 bits)
 *   vm_agg lat DIR
 *	wait for DIR/go, then, as pairs by arg0 (--key arg0):
 *	  begin(1) 10 ms end(1); begin(2) 30 ms end(2);
 *	  begin(3) begin(4) 5 ms end(4) end(3)	(4 pairs)
 *	  end(1) again, end(99)			(2 unmatched)
 *	  begin(5)				(never ends)
 *   vm_agg tree DIR
 *	wait for DIR/go, then usdtkit_vm:forked(who) once in each task of
 *	a tree: who 0 itself, 1 a child it forks, 3 that child's thread, 2
 *	the child's child; each waits for its own (4 hits, 1 of them its
 *	own pid's: `trace --children` sees 4, without it 1)
 *   vm_agg threads DIR
 *	two threads started at once, which wait for DIR/go; then
 *	usdtkit_vm:forked(who) in each thread of the process: who 0 the
 *	main one, 1 and 2 those two, 3 and 4 two threads it starts after
 *	DIR/go (5 hits, all of its own pid: a tracer in a mode that is per
 *	thread, hwbp, must follow threads started before and after it)
 *
 * Run by `usdtkit trace -c`, so it is traced from its exec; DIR/go lets
 * the guest fire it once every concurrent trace is attached.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sys/sdt.h>
#include <sys/wait.h>

static const char *const paths[] = { "/", "/index.html", "/api/v1/items" };

static void wait_go(const char *dir)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/go", dir);
	while (access(path, F_OK))
		usleep(20 * 1000);
}

static void agg(void)
{
	unsigned long long id;
	long long neg;

	for (id = 1; id <= 30; id++) {
		neg = -(long long)id;
		STAP_PROBE4(usdtkit_vm, req, id, id * 100, neg, paths[id % 3]);
		if (id % 10 == 0) {
			neg = -(long long)id * 1000000000LL;
			STAP_PROBE4(usdtkit_vm, tick, id, -id, neg, "/tick");
		}
	}
}

static __attribute__((noinline)) void begin(unsigned int id)
{
	STAP_PROBE1(usdtkit_vm, begin, id);
}

static __attribute__((noinline)) void end(unsigned int id)
{
	STAP_PROBE1(usdtkit_vm, end, id);
}

static void lat(void)
{
	begin(1);
	usleep(10 * 1000);
	end(1);
	begin(2);
	usleep(30 * 1000);
	end(2);
	begin(3);
	begin(4);
	usleep(5 * 1000);
	end(4);
	end(3);
	end(1);
	end(99);
	begin(5);
}

static __attribute__((noinline)) void forked(int who)
{
	STAP_PROBE1(usdtkit_vm, forked, who);
}

static void *tree_thread(void *arg)
{
	(void)arg;
	forked(3);
	return NULL;
}

/* fork() then @fn in the child, which exits; the child's pid or -1 */
static pid_t spawn(void (*fn)(void))
{
	pid_t p = fork();

	if (p == 0) {
		fn();
		_exit(0);
	}
	return p;
}

static void grandchild(void)
{
	forked(2);
}

static void child(void)
{
	pthread_t th;
	int ok = !pthread_create(&th, NULL, tree_thread, NULL);

	forked(1);
	if (spawn(grandchild) > 0)
		wait(NULL);
	if (ok)
		pthread_join(th, NULL);
}

static void tree(void)
{
	forked(0);
	if (spawn(child) > 0)
		wait(NULL);
}

static const char *go_dir;

static void *thread_fire(void *arg)
{
	int who = (int)(long)arg;

	if (who <= 2)
		wait_go(go_dir);
	forked(who);
	return NULL;
}

static void threads(const char *dir)
{
	pthread_t th[5];
	int i, ok[5] = { 0 };

	go_dir = dir;
	for (i = 1; i <= 2; i++)
		ok[i] = !pthread_create(&th[i], NULL, thread_fire, (void *)(long)i);
	wait_go(dir);
	forked(0);
	for (i = 3; i <= 4; i++)
		ok[i] = !pthread_create(&th[i], NULL, thread_fire, (void *)(long)i);
	for (i = 1; i <= 4; i++)
		if (ok[i])
			pthread_join(th[i], NULL);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "agg")) {
		wait_go(argv[2]);
		agg();
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "lat")) {
		wait_go(argv[2]);
		lat();
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "tree")) {
		wait_go(argv[2]);
		tree();
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "threads")) {
		threads(argv[2]);
		return 0;
	}
	fprintf(stderr, "usage: vm_agg agg|lat|tree|threads DIR\n");
	return 2;
}
