// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The workload of bench/trace_bench.sh --set keys: one hot USDT probe, kload:hit,
 * with a string (arg0, one of 8 operations "op0".."op7") and an int
 * (arg1, i % 1024: ten log2 buckets and zero), fired M times in all by T
 * threads named "kload-0".."kload-T-1" (pthread_setname_np: the comm a
 * hit carries), one thread after the other, so the loop is timed on one
 * core as bench/trace_load.c's is. Built with -fno-omit-frame-pointer:
 * each hit comes through kl_run -> kl_mid_a or kl_mid_b (alternately)
 * -> kl_leaf, whose probe fires once its frame is set up, so the kernel
 * walks whole user stacks: 2 distinct stacks per thread (their bottom
 * frames are the thread's start in libc).
 *
 * It reads one line on stdin before the loop (so that a tracer can
 * attach first), prints the loop's time in ns on stdout (all threads,
 * started to joined), and reads one more line before it exits (so that
 * the tracer's counters can be read while it still runs).
 *
 *   keys_load M [T]     (T 4, at most 16)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

#include "load_common.h"

#define NOINLINE __attribute__((noinline))

static const char *const ops[8] = {
	"op0", "op1", "op2", "op3", "op4", "op5", "op6", "op7",
};

struct job {
	long first, count;
	int index;
};

NOINLINE void kl_leaf(long i)
{
	/* a local in the frame: the probe comes after the prologue */
	volatile long v = i;
	const char *op = ops[v % 8];
	int val = (int)(v % 1024);

	__asm__ __volatile__("" : "+r"(op), "+r"(val));
	DTRACE_PROBE2(kload, hit, op, val);
	__asm__ __volatile__("" ::: "memory");
}

NOINLINE void kl_mid_a(long i)
{
	kl_leaf(i);
	__asm__ __volatile__("" ::: "memory");
}

NOINLINE void kl_mid_b(long i)
{
	kl_leaf(i);
	__asm__ __volatile__("" ::: "memory");
}

static void *kl_run(void *arg)
{
	const struct job *j = arg;
	char name[16];
	long i;

	snprintf(name, sizeof(name), "kload-%d", j->index);
	pthread_setname_np(pthread_self(), name);
	for (i = j->first; i < j->first + j->count; i++) {
		if (i & 1)
			kl_mid_b(i);
		else
			kl_mid_a(i);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct job jobs[16];
	long m, t = 4, k;
	long long t0, t1;

	if (argc < 2 || argc > 3 || (m = strtol(argv[1], NULL, 10)) <= 0 ||
	    (argc == 3 && ((t = strtol(argv[2], NULL, 10)) < 1 || t > 16))) {
		fprintf(stderr, "usage: keys_load M [T]\n");
		return 2;
	}
	wait_line();
	t0 = now_ns();
	for (k = 0; k < t; k++) {
		pthread_t th;

		jobs[k].index = (int)k;
		jobs[k].first = m / t * k;
		jobs[k].count = k == t - 1 ? m - jobs[k].first : m / t;
		if (pthread_create(&th, NULL, kl_run, &jobs[k]) ||
		    pthread_join(th, NULL)) {
			fprintf(stderr, "keys_load: thread %ld failed\n", k);
			return 1;
		}
	}
	t1 = now_ns();
	printf("%lld\n", t1 - t0);
	fflush(stdout);
	wait_line();
	return 0;
}
