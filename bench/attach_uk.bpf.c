// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* attach_bench, usdtkit side: room for 10,000 sites of one probe. */
#define USDTKIT_MAX_SPECS 16384
#include <linux/bpf.h>
#include <linux/ptrace.h>

#include <usdtkit/usdtkit.bpf.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

long hits;

SEC("usdtkit")
int bench_uk(struct pt_regs *ctx)
{
	long v = 0;

	usdtkit_arg(ctx, 0, &v);
	hits += v;
	return 0;
}
