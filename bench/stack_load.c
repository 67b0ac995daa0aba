// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The workload of bench/stack_bench.sh: one USDT probe, sload:hit (arg0
 * the iteration), fired M times in a tight loop from a stack 8 frames
 * deep in this file (main -> sl_loop -> sl_d1 .. sl_d5 -> sl_leaf),
 * under libc's start (3 frames more on glibc: 11 in all). Built twice
 * (bench/CMakeLists.txt): -O2 -fomit-frame-pointer, where only the call
 * frame information finds the callers (the frame-pointer walk stops
 * after the leaf or follows a stale rbp), and -O2 -fno-omit-frame-pointer,
 * where both walks are whole, so that their costs compare at one depth.
 *
 * Half the middle frames have a frame of their own (a local array, so
 * that their rows say CFA = rsp + N, N > 8), half none (CFA = rsp + 8):
 * both kinds of row on every stack. Each call is followed by a compiler
 * barrier so that no call becomes a tail call (a frame gone from the
 * stack).
 *
 * It reads one line on stdin before the loop (so that a tracer can
 * attach first), prints the loop's time in ns on stdout, and reads one
 * more line before it exits (so that the tracer's counters can be read
 * while it still runs): bench/kstats.sh's traced_run.
 *
 *   stack_load M
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

#include "load_common.h"

#define NOINLINE __attribute__((noinline))
/* after a call: the call is not the function's last act */
#define KEEP_FRAME() __asm__ __volatile__("" ::: "memory")

NOINLINE long sl_leaf(long i)
{
	/* a local in the frame: the probe comes after the prologue */
	volatile long v = i;
	long a = v;

	__asm__ __volatile__("" : "+r"(a));
	DTRACE_PROBE1(sload, hit, a);
	KEEP_FRAME();
	return a & 1;
}

/* a frame with a local array: a row with CFA = rsp + N past the call */
#define MID_FRAME(name, next)					\
	NOINLINE long name(long i)				\
	{							\
		volatile char pad[24];				\
		long r;						\
								\
		pad[i & 7] = (char)i;				\
		r = next(i);					\
		KEEP_FRAME();					\
		return r + pad[i & 7];				\
	}
/* no frame of its own: CFA = rsp + 8 */
#define MID_BARE(name, next)					\
	NOINLINE long name(long i)				\
	{							\
		long r = next(i);				\
								\
		KEEP_FRAME();					\
		return r + 1;					\
	}

MID_FRAME(sl_d5, sl_leaf)
MID_BARE(sl_d4, sl_d5)
MID_FRAME(sl_d3, sl_d4)
MID_BARE(sl_d2, sl_d3)
MID_FRAME(sl_d1, sl_d2)

NOINLINE long sl_loop(long m)
{
	long i, s = 0;

	for (i = 0; i < m; i++)
		s += sl_d1(i);
	KEEP_FRAME();
	return s;
}

int main(int argc, char **argv)
{
	long long t0, t1;
	long m, s;

	if (argc != 2 || (m = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: stack_load M\n");
		return 2;
	}
	wait_line();
	t0 = now_ns();
	s = sl_loop(m);
	t1 = now_ns();
	printf("%lld\n", t1 - t0);
	fflush(stdout);
	wait_line();
	return s == -1;
}
