// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A library that tests/fx_cmd.c dlopen()s after it has started: its
 * probe cmdlib:fire is mapped only then. */
#include <sys/sdt.h>

void fx_cmd_lib_fire(int n);

void fx_cmd_lib_fire(int n)
{
	int i;

	for (i = 0; i < n; i++)
		DTRACE_PROBE1(cmdlib, fire, i);
}
