// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/attach/test_coalesce: every argument of the probe that fired, read
 * by two programs attached to it: read_bulk with usdtkit_spec_args_errs()
 * (group windows), read_one one by one with usdtkit_spec_arg() (exact-size
 * reads). The attach cookie (0..3) says which probe it was.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>

#include <usdtkit/usdtkit.bpf.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define NPROBES 4

unsigned long hits[NPROBES];
long bulk[NPROBES][USDTKIT_BPF_MAX_ARGS];
int bulk_err[NPROBES];
int bulk_errs[NPROBES][USDTKIT_BPF_MAX_ARGS];
long one[NPROBES][USDTKIT_BPF_MAX_ARGS];
int one_err[NPROBES][USDTKIT_BPF_MAX_ARGS];
unsigned int groups[NPROBES];

/* which probe fired: the attach cookie */
static __always_inline unsigned int probe_of(const struct usdtkit_bpf_spec *spec)
{
	return (unsigned int)spec->cookie & (NPROBES - 1);
}

SEC("usdtkit")
int read_bulk(struct pt_regs *ctx)
{
	const struct usdtkit_bpf_spec *spec = usdtkit_spec(ctx);
	/* zeroed: with a mask known only at run time, clang may read a
	 * slot the call did not write, which the verifier refuses */
	long vals[USDTKIT_BPF_MAX_ARGS] = { 0 };
	int errs[USDTKIT_BPF_MAX_ARGS] = { 0 };
	unsigned int k, n, i;

	if (!spec)
		return 0;
	k = probe_of(spec);
	n = spec->arg_cnt;
	if (n > USDTKIT_BPF_MAX_ARGS)
		n = USDTKIT_BPF_MAX_ARGS;
	/* a mask known only at run time: all twelve arguments' code */
	bulk_err[k] = usdtkit_spec_args_errs(ctx, spec, vals, errs, (1U << n) - 1);
	groups[k] = spec->group_cnt;
	for (i = 0; i < USDTKIT_BPF_MAX_ARGS; i++) {
		if (i >= n)
			break;
		bulk[k][i] = vals[i];
		bulk_errs[k][i] = errs[i];
		/* a loop, not a memcpy() of unknown length, which BPF lacks */
		asm volatile("" ::: "memory");
	}
	hits[k]++;
	return 0;
}

SEC("usdtkit")
int read_one(struct pt_regs *ctx)
{
	const struct usdtkit_bpf_spec *spec = usdtkit_spec(ctx);
	unsigned int k, i;

	if (!spec)
		return 0;
	k = probe_of(spec);
	for (i = 0; i < USDTKIT_BPF_MAX_ARGS; i++) {
		if (i >= spec->arg_cnt)
			break;
		one_err[k][i] = usdtkit_spec_arg(ctx, spec, i, &one[k][i]);
	}
	return 0;
}
