// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/bpf/test_coalesce: every argument of the probe that fired, read
 * twice, by usdtkit_spec_args() (group windows) and one by one by
 * usdtkit_spec_arg() (exact-size reads). The attach cookie (0..3) says
 * which probe it was.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>

#include <usdtkit/usdtkit.bpf.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define NPROBES 4

unsigned long hits[NPROBES];
long bulk[NPROBES][USDTKIT_BPF_MAX_ARGS];
int bulk_err[NPROBES];
long one[NPROBES][USDTKIT_BPF_MAX_ARGS];
int one_err[NPROBES][USDTKIT_BPF_MAX_ARGS];
unsigned int groups[NPROBES];

SEC("usdtkit")
int read_all(struct pt_regs *ctx)
{
	const struct usdtkit_bpf_spec *spec = usdtkit_spec(ctx);
	long vals[USDTKIT_BPF_MAX_ARGS];
	unsigned int k, n, i;
	int err;

	if (!spec)
		return 0;
	k = (unsigned int)spec->cookie & (NPROBES - 1);
	n = spec->arg_cnt;
	if (n > USDTKIT_BPF_MAX_ARGS)
		n = USDTKIT_BPF_MAX_ARGS;
	/* a mask known only at run time: all twelve arguments' code */
	err = usdtkit_spec_args(ctx, spec, vals, (1U << n) - 1);
	bulk_err[k] = err;
	groups[k] = spec->group_cnt;
	for (i = 0; i < USDTKIT_BPF_MAX_ARGS; i++) {
		if (i >= n)
			break;
		bulk[k][i] = vals[i];
		one_err[k][i] = usdtkit_spec_arg(ctx, spec, i, &one[k][i]);
	}
	hits[k]++;
	return 0;
}
