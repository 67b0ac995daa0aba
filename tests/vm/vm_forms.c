// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The "forms" scenario's workload (tests/vm/guest.sh): one probe in the
 * executable, forms:exe(i, -i), and one in libvmforms.so, forms:lib(i),
 * each fired 3 times with i = BASE, BASE + 1, BASE + 2. Built as a PIE
 * and as a non-PIE executable, both linked to the library, so every
 * target form of `usdtkit trace` has a small, known set of hits.
 * usage: vm_forms wait DIR   "pid N" in DIR/info, then DIR/go awaited
 *                            (120 s at most), BASE 100
 *        vm_forms now        at once, BASE 200 (for -c)
 *        vm_forms tree       a child fires BASE 300, then the process
 *                            BASE 400 (for --children)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vm_go.h"

void vm_forms_lib(int i);

static void fire(int base)
{
	int i;

	for (i = base; i < base + 3; i++) {
		DTRACE_PROBE2(forms, exe, i, -i);
		vm_forms_lib(i);
	}
}

int main(int argc, char **argv)
{
	pid_t c;

	if (argc == 3 && !strcmp(argv[1], "wait")) {
		if (vm_wait_go(argv[2]))
			return 1;
		fire(100);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "now")) {
		fire(200);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "tree")) {
		c = fork();
		if (c == 0) {
			fire(300);
			_exit(0);
		}
		if (c > 0)
			waitpid(c, NULL, 0);
		fire(400);
		return 0;
	}
	fprintf(stderr, "usage: vm_forms wait DIR | now | tree\n");
	return 2;
}
