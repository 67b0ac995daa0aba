// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The workload of tests/trace_lib/test_trace_lib.c: probes with known
 * values, in the program and in its library (libfx_tlib.so, found
 * through RUNPATH $ORIGIN).
 * usage: fx_tlib [wait]   (wait: fire once a line comes on stdin)
 *   tl:val(int i, long v)      i = 0..99, v = 1000 * i - 50000
 *   tl:name(char *s, int i)    i = 0..29, s = alpha, beta, gamma in turn
 *   tl:begin(long id), tl:end(long id)   id = 0..4, 2 ms apart
 *   tlibl:fire(int k)          k = 0..6, in the library
 */
#include <stdio.h>
#include <time.h>

#include <sys/sdt.h>

void fx_tlib_fire(int n);

static const char *const names[] = { "alpha", "beta", "gamma" };

int main(int argc, char **argv)
{
	struct timespec ms2 = { 0, 2 * 1000 * 1000 };
	char line[16];
	long id;
	int i;

	(void)argv;
	if (argc > 1 && !fgets(line, sizeof(line), stdin))
		return 1;
	for (i = 0; i < 100; i++)
		DTRACE_PROBE2(tl, val, i, 1000L * i - 50000);
	for (i = 0; i < 30; i++)
		DTRACE_PROBE2(tl, name, names[i % 3], i);
	for (id = 0; id < 5; id++) {
		DTRACE_PROBE1(tl, begin, id);
		nanosleep(&ms2, NULL);
		DTRACE_PROBE1(tl, end, id);
	}
	fx_tlib_fire(7);
	return 0;
}
