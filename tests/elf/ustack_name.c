// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The user stack symbolizer from the command line, for
 * tests/elf/ustack_bpftrace.sh: each ADDR (hex) of PID named by one cache,
 * one line each: "RC NAME" (RC 0 or -ESRCH's number).
 * usage: ustack_name PID ADDR...
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "elf/ustack.h"

int main(int argc, char **argv)
{
	struct usdtkit__syms *s = NULL;
	char buf[4200];
	int i, pid;

	if (argc < 3 || (pid = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: ustack_name PID ADDR...\n");
		return 2;
	}
	if (usdtkit__syms_new(&s))
		return 1;
	for (i = 2; i < argc; i++) {
		uint64_t a = strtoull(argv[i], NULL, 16);
		int rc = usdtkit__syms_name(s, pid, a, 0, buf, sizeof(buf));

		printf("%d %s\n", rc, buf);
	}
	usdtkit__syms_free(s);
	return 0;
}
