// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The program to trace: fires the USDT probe hello:greet once per round.
 *
 *   hello_target [-n ROUNDS] [-i INTERVAL_MS]
 *
 * Round SEQ (1, 2, 3, ...) passes SEQ (u32), -SEQ * 1000 (s64) and one of
 * three names, names[SEQ % 3], so that a tracer can check every value it
 * reads. Runs until killed without -n. Needs only <sys/sdt.h>
 * (systemtap-sdt-dev): a probe is a nop and a note in the ELF file, and
 * costs nothing until a tracer attaches.
 */
/* getopt(), nanosleep(), sigaction(), kill() under -std=c11 too */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <sys/sdt.h>

static const char *const names[] = { "alice", "bob", "carol" };

/* noinline: one probe site, whatever the optimizer does with the loop */
static __attribute__((noinline)) void greet(uint32_t seq)
{
	/* volatile: the compiler cannot fold the value into a constant
	 * operand, so the site reads it from a register or memory, as real
	 * probes do */
	volatile int64_t value = -(int64_t)seq * 1000;
	const char *who = names[seq % 3];

	DTRACE_PROBE3(hello, greet, seq, value, who);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

int main(int argc, char **argv)
{
	unsigned long rounds = 0;
	long interval = 100;
	uint32_t seq;
	int c;

	while ((c = getopt(argc, argv, "n:i:h")) != -1) {
		switch (c) {
		case 'n':
			rounds = strtoul(optarg, NULL, 10);
			break;
		case 'i':
			interval = strtol(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: %s [-n ROUNDS] [-i INTERVAL_MS]\n",
				argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	/* line-buffered: a script reading our pid through a pipe gets it now */
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("hello_target: pid %d\n", (int)getpid());
	for (seq = 1; !rounds || seq <= rounds; seq++) {
		greet(seq);
		if (interval > 0)
			sleep_ms(interval);
	}
	return 0;
}
