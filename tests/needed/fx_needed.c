// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The command of tests/cli_trace_needed.sh: its probes are all in the
 * libraries it is linked with, none in itself. usage: fx_needed K
 * calls fxn_a(i) and fxn_b(i) for i = 0..K-1; fxn_a calls fxn_c.
 *   libfxn_a.so  in lib/, found through this file's RUNPATH $ORIGIN/lib
 *   libfxn_c.so  in lib/ too, found through libfxn_a's RUNPATH $ORIGIN
 *   libfxn_b.so  elsewhere, found only through LD_LIBRARY_PATH
 */
#include <stdlib.h>

void fxn_a(int i);
void fxn_b(int i);

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 1, i;

	for (i = 0; i < k; i++) {
		fxn_a(i);
		fxn_b(i);
	}
	return 0;
}
