// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Auto-attached by the skeleton (usdtkit's libbpf section handler): the
 * probe consumer:hit of whichever binary /proc/self/exe names in the
 * process that attaches, i.e. the consumer itself. Counts hits and keeps
 * the last argument, read through usdtkit's spec.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>

#include <usdtkit/usdtkit.bpf.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

unsigned long long hits;
long last_arg;

SEC("usdtkit//proc/self/exe:consumer:hit")
int USDTKIT_PROBE(on_hit, long v)
{
	__sync_fetch_and_add(&hits, 1);
	last_arg = v;
	return 0;
}
