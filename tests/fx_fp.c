// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A probe BPF cannot read: its double sits in an SSE register (the "x"
 * constraint), which pt_regs does not hold. usdtkit trace must refuse it,
 * or skip it with --best-effort (tests/cli_trace_hostile.sh).
 */
#define STAP_SDT_ARG_CONSTRAINT x
#include <sys/sdt.h>

void fx_fp_site(double d)
{
	DTRACE_PROBE1(fpprov, unreadable, d);
}
