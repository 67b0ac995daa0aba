// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A program built against libbpf's own <bpf/usdt.bpf.h> (Debian's 1.1):
 * usdtkit attaches it by filling libbpf's __bpf_usdt_specs map in the
 * layout the program was built with. Same events as the trace program.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#include "../../trace/bpf/trace_event.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

SEC("usdt")
int compat_trace(struct pt_regs *ctx)
{
	struct usdtkit_trace_event *e;
	unsigned long long id;
	int i, n;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e)
		return 0;
	id = bpf_get_current_pid_tgid();
	n = bpf_usdt_arg_cnt(ctx);
	e->ts_ns = bpf_ktime_get_ns();
	e->pid = id >> 32;
	e->tid = (unsigned int)id;
	e->cookie = bpf_usdt_cookie(ctx);
	e->nargs = n;
	e->err = 0;
	e->err_mask = 0;
#pragma unroll
	for (i = 0; i < 12; i++) {
		long v = 0;
		int err = 0;

		if (i < n)
			err = bpf_usdt_arg(ctx, i, &v);
		if (err) {
			e->err_mask |= 1 << i;
			if (!e->err)
				e->err = err;
		}
		e->args[i] = v;
	}
	bpf_ringbuf_submit(e, 0);
	return 0;
}
