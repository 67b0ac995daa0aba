// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hit_bench, libbpf side: count only, and BPF_USDT reading 3 or 6 arguments. */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/ptrace.h>

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

unsigned long hits, bad;
long last[6];

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

/* hit:real: i, -i - 1, 3i + 1, -(7i + 2), 11i + 4, 13i + 5 */
SEC("usdt")
int BPF_USDT(lb_read6, long a, long b, long c, long d, long e, long f)
{
	hits++;
	if (b != -a - 1 || c != 3 * a + 1 || d != -(7 * a + 2) || e != 11 * a + 4 ||
	    f != 13 * a + 5)
		bad++;
	last[0] = a;
	last[1] = b;
	last[2] = c;
	last[3] = d;
	last[4] = e;
	last[5] = f;
	return 0;
}
