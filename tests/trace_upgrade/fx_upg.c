// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The traced program of test_trace_upgrade, built twice as two versions
 * of one package's binary. Reads commands on stdin: 'f' fires upg:tick
 * 10 times (arg0 = 1..10) and, in version 1 only, upg:gone(1) once, then
 * answers 'k' on stdout; end of input ends it. Version 2's tick takes a
 * signed 64-bit argument where version 1's took an unsigned int, so the
 * probe's configuration (the histogram's sign) changes with the upgrade.
 */
#include <sys/sdt.h>
#include <unistd.h>

#ifndef FX_VERSION
#error FX_VERSION: 1 or 2
#endif

static void fire(void)
{
	int i;

	for (i = 1; i <= 10; i++) {
#if FX_VERSION == 1
		unsigned int v = (unsigned int)i;
#else
		long long v = i;
#endif
		STAP_PROBE1(upg, tick, v);
	}
#if FX_VERSION == 1
	STAP_PROBE1(upg, gone, 1);
#endif
}

int main(void)
{
	char c;

	while (read(0, &c, 1) == 1) {
		if (c != 'f')
			continue;
		fire();
		if (write(1, "k", 1) != 1)
			return 1;
	}
	return 0;
}
