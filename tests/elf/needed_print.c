// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit_needed() of each EXE, one path a line, with the
 * LD_LIBRARY_PATH of the environment: tests/cli/cli_trace_needed.sh compares
 * it with ldd's list. usage: needed_print EXE...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usdtkit/usdtkit.h>

static void say(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	fprintf(stderr, "needed_print: %s\n", msg);
}

int main(int argc, char **argv)
{
	USDTKIT_OPTS(usdtkit_needed_opts, o, .print = say,
		     .library_path = getenv("LD_LIBRARY_PATH"));
	int i, rc = 0;

	for (i = 1; i < argc; i++) {
		char **paths;
		size_t n, k;
		int err = usdtkit_needed(argv[i], &o, &paths, &n);

		if (err) {
			fprintf(stderr, "needed_print: %s: %s\n", argv[i], strerror(-err));
			rc = 1;
			continue;
		}
		for (k = 0; k < n; k++)
			printf("%s\n", paths[k]);
		usdtkit_needed_free(paths, n);
	}
	return rc;
}
