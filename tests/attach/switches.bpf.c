// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/attach/test_switches: built by default and with each form switch
 * (USDTKIT_BPF_FLAGS_switches_*). read_bulk and read_one read every
 * argument of the probe that fired, together and one by one; the readers of
 * bench/hit_uk.bpf.c come along, so that the test counts what the
 * verifier processes for the very programs bench/README.md reports.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>

#include "hit_uk.bpf.c"

#include "switches.h"

/* its own section, so that the host finds it at offset 0 of its map */
struct sw_out out SEC(".data.sw");

/* every argument at once, with a mask known only at run time */
SEC("usdtkit")
int read_bulk(struct pt_regs *ctx)
{
	const struct usdtkit_bpf_spec *spec = usdtkit_spec(ctx);
	/* initialized: clang cannot tell that the mask covers what is
	 * copied below, and may give an unwritten entry any register, one
	 * the verifier has seen no write to */
	long vals[SW_NARGS] = {};
	int errs[SW_NARGS] = {};
	unsigned int i, n;

	if (!spec)
		return 0;
	n = spec->arg_cnt;
	if (n > SW_NARGS)
		n = SW_NARGS;
	out.ret = usdtkit_spec_args_errs(ctx, spec, vals, errs, (1U << n) - 1);
	out.nargs = (int)n;
	for (i = 0; i < SW_NARGS; i++) {
		if (i >= n)
			break;
		out.bulk[i] = vals[i];
		out.bulk_err[i] = errs[i];
		/* a loop, not a memcpy() of unknown length, which BPF lacks */
		asm volatile("" ::: "memory");
	}
	out.hits++;
	return 0;
}

/* one by one: a separate program, both in one would pass the 1M limit */
SEC("usdtkit")
int read_one(struct pt_regs *ctx)
{
	const struct usdtkit_bpf_spec *spec = usdtkit_spec(ctx);
	long v;
	unsigned int i;

	if (!spec)
		return 0;
	for (i = 0; i < SW_NARGS; i++) {
		if (i >= spec->arg_cnt)
			break;
		out.one_err[i] = usdtkit_spec_arg(ctx, spec, i, &v);
		out.one[i] = v;
	}
	return 0;
}
