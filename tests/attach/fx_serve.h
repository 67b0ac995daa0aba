/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The fixtures' side of tests/attach/fx_run.c: print "ready", then for each
 * number N read from stdin run N rounds (numbered from 1 across calls)
 * and print "done".
 */
#ifndef FX_SERVE_H
#define FX_SERVE_H

#include <stdio.h>
#include <stdlib.h>

static inline int fx_serve(void (*round)(long r))
{
	char line[64];
	long next = 1;

	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		long i, n = atol(line);

		for (i = 0; i < n; i++)
			round(next++);
		printf("done\n");
		fflush(stdout);
	}
	return 0;
}

#endif
