// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A probe with a string argument, for `usdtkit trace --str`
 * (tests/cli_trace_str.sh): str:s(int case, const char *s) fires once per
 * case, in this order: a plain string, one of 300 bytes (longer than a
 * small --strlen), NULL, a pointer into nothing, control characters and
 * ill-formed UTF-8, and "".
 *
 * usage: fx_str ROUNDS   (starts firing when it reads a line on stdin, so
 * a tracer can attach first)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/sdt.h>

__attribute__((noinline)) static void site(int i, const char *s)
{
	DTRACE_PROBE2(str, s, i, s);
}

int main(int argc, char **argv)
{
	static char longstr[301];
	const char *cases[] = {
		"hello, world",
		longstr,
		NULL,
		(const char *)16,	/* the first page is never mapped */
		/* ESC [2J, quote, backslash, newline, DEL, a stray 0xff,
		 * U+00E9 (well-formed), U+009B (a C1 control: CSI) */
		"a\x1b[2J\"\\\n\x7f\xff\xc3\xa9\xc2\x9b",
		"",
	};
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	char line[16];
	int r;
	size_t i;

	memset(longstr, 'x', sizeof(longstr) - 1);
	/*
	 * This fixture is about how strings print, not about when their
	 * pages come in: each readable string is read once here, so its
	 * page is in the page tables when the probe fires, and what this
	 * test expects (no "(read late)" mark) is the same on every kernel
	 * and with either compiler's layout. Strings on pages the process
	 * has not touched are tested on their own, by design: tests/fx_cold.c
	 * and cli_trace_cold.sh (docs/ATTACH.md, "Strings").
	 */
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const volatile char *p = cases[i];

		while ((uintptr_t)p >= 4096 && *p)
			p++;
	}
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	for (r = 0; r < rounds; r++)
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			site((int)i, cases[i]);
	return 0;
}
