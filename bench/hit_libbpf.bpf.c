// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hit_bench, libbpf side: count only, and BPF_USDT reading 3 arguments. */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/ptrace.h>

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

unsigned long hits, bad;
long last[3];

SEC("usdt")
int lb_count(struct pt_regs *ctx)
{
	(void)ctx;
	hits++;
	return 0;
}

SEC("usdt")
int BPF_USDT(lb_read3, long a, long b, long c)
{
	hits++;
	if (b != 3 * a + 1 || c != 7 * a + 2)
		bad++;
	last[0] = a;
	last[1] = b;
	last[2] = c;
	return 0;
}
