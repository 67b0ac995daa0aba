// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The command of `usdtkit trace -c` tests (tests/cli_trace_cmd.sh,
 * tests/cli_trace_signal.sh) and the workload of -p ones.
 * usage: fx_cmd K [SLEEP [STATUS]]
 * Fires cmdt:start(i, argc) for i = 0..K-1 at the start of main(), so a
 * hit is seen only if the probes were attached before the program ran;
 * then cmdt:guarded(K) once if its semaphore is up (it is only when a
 * tracer raised it before main()); then sleeps SLEEP seconds (default 0)
 * and exits with STATUS (default 0). With $FX_CMD_LIB set, it then
 * dlopen()s that library (tests/fx_cmd_lib.c) and has it fire
 * cmdlib:fire K times: probes of a file mapped after the start.
 * With $FX_CMD_MARK set, it first creates that file: the proof that it
 * ran at all (tests/cli_trace_signal.sh: a trace stopped during its
 * setup must never run its command).
 */
#define _SDT_HAS_SEMAPHORES 1
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/sdt.h>

/* sdt.h gives every probe of the file a semaphore; start does not look
 * at its own */
unsigned short cmdt_start_semaphore __attribute__((section(".probes"), used));
unsigned short cmdt_guarded_semaphore __attribute__((section(".probes"), used));

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 1, i;

	if (getenv("FX_CMD_MARK")) {
		int fd = open(getenv("FX_CMD_MARK"), O_WRONLY | O_CREAT, 0644);

		if (fd >= 0)
			close(fd);
	}
	for (i = 0; i < k; i++)
		DTRACE_PROBE2(cmdt, start, i, argc);
	if (cmdt_guarded_semaphore)
		DTRACE_PROBE1(cmdt, guarded, k);
	if (getenv("FX_CMD_LIB")) {
		void *h = dlopen(getenv("FX_CMD_LIB"), RTLD_NOW);
		void (*fire)(int) = h ? (void (*)(int))dlsym(h, "fx_cmd_lib_fire") : NULL;

		if (!fire) {
			fprintf(stderr, "fx_cmd: %s\n", dlerror());
			return 99;
		}
		fire(k);
	}
	if (argc > 2)
		sleep((unsigned int)atoi(argv[2]));
	return argc > 3 ? atoi(argv[3]) : 0;
}
