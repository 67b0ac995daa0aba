// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The process of tests/test_proc_sema.c: a probe behind a semaphore
 * (fxsema:guarded, this file) and one without (fxplain:tick,
 * tests/fx_sema_plain.c: sys/sdt.h gives all the probes of a file a
 * semaphore or none). It says "ready", then reads commands on stdin:
 *   N     set the semaphore to N, fire the probes, answer "ok"
 *   exec  execve() itself again (a new address space, same pid)
 * and exits at the end of stdin. It sets its own semaphore, so the test
 * checks the reading side against the program's own variable.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/sdt.h>

unsigned short fxsema_guarded_semaphore __attribute__((section(".probes"), used));

void fx_sema_plain(int n);

int main(int argc, char **argv)
{
	char line[32];

	(void)argc;
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (!strcmp(line, "exec\n")) {
			execv("/proc/self/exe", argv);
			return 99;
		}
		fxsema_guarded_semaphore = (unsigned short)atoi(line);
		if (fxsema_guarded_semaphore)
			STAP_PROBE1(fxsema, guarded, fxsema_guarded_semaphore);
		fx_sema_plain(1);
		printf("ok\n");
		fflush(stdout);
	}
	return 0;
}
