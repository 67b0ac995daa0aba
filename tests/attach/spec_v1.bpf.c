// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A program built against spec version 1 (tests/attach/v1, 304-byte specs):
 * the attach layer must keep writing that layout for it. Same globals and
 * cookies as coalesce.bpf.c, read with the old header's per-argument reads.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>

#include "v1/usdtkit.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define NPROBES 4

unsigned long hits[NPROBES];
long one[NPROBES][USDTKIT_BPF_MAX_ARGS];
int one_err[NPROBES][USDTKIT_BPF_MAX_ARGS];
unsigned int version[NPROBES];

SEC("usdtkit")
int read_v1(struct pt_regs *ctx)
{
	const struct usdtkit_bpf_spec *spec = usdtkit_spec(ctx);
	unsigned int k, i;

	if (!spec)
		return 0;
	k = (unsigned int)spec->cookie & (NPROBES - 1);
	version[k] = spec->version;
	for (i = 0; i < USDTKIT_BPF_MAX_ARGS; i++) {
		if (i >= spec->arg_cnt)
			break;
		one_err[k][i] = usdtkit_spec_arg(ctx, spec, i, &one[k][i]);
	}
	hits[k]++;
	return 0;
}
