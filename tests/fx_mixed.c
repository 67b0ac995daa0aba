// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A probe whose sites disagree on an argument's width, as real ones do
 * (libruby's string__create: `-4@$0` at one site, `-8@%reg` at others):
 * mixed:val fires with an int at one site and a long at another. Also
 * hostile:name, whose provider and name tests/cli_trace_hostile.sh
 * rewrites in a copy with terminal control characters, and (fx_fp.c) a
 * probe whose argument sits where BPF cannot read it.
 *
 * usage: fx_mixed ROUNDS   (one round fires each site once; then waits
 * for stdin to close, so a tracer can attach first: it starts firing when
 * it reads a line)
 */
#include <stdio.h>
#include <stdlib.h>

#include <sys/sdt.h>

void fx_fp_site(double d);	/* fx_fp.c */

__attribute__((noinline)) static void int_site(int v)
{
	DTRACE_PROBE1(mixed, val, v);
}

__attribute__((noinline)) static void long_site(long v)
{
	DTRACE_PROBE1(mixed, val, v);
}

__attribute__((noinline)) static void hostile_site(int v)
{
	DTRACE_PROBE1(hostileprovider, hostilenamexxxxxxxxxx, v);
}

int main(int argc, char **argv)
{
	/* the long values do not fit an int: printed at the int site's
	 * width they would wrap (705032704, -2147483648) */
	static const long longs[] = { 5000000000L, 2147483648L, -5000000000L };
	static const int ints[] = { 2147483647, -5, -2147483647 - 1 };
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	char line[16];
	int r, i;

	if (!fgets(line, sizeof(line), stdin))
		return 1;
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < 3; i++) {
			int_site(ints[i]);
			long_site(longs[i]);
		}
		hostile_site(r);
	}
	fx_fp_site(0.5);
	return 0;
}
