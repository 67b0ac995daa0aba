// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* attach_bench, libbpf side: <bpf/usdt.bpf.h> with room for 10,000 specs. */
#define BPF_USDT_MAX_SPEC_CNT 16384
#define BPF_USDT_MAX_IP_CNT 65536
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/ptrace.h>

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

long hits;

SEC("usdt")
int BPF_USDT(bench_lb, long a, long b)
{
	hits += a + b;
	return 0;
}
