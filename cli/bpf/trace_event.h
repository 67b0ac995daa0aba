/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One probe hit, as the trace program sends it through its ring buffer. */
#ifndef USDTKIT_TRACE_EVENT_H
#define USDTKIT_TRACE_EVENT_H

#include <usdtkit/bpf_spec.h>

struct usdtkit_trace_event {
	unsigned long long ts_ns;	/* bpf_ktime_get_ns() */
	unsigned int pid, tid;
	long long cookie;		/* the attach's cookie: which target */
	int nargs;			/* as the spec says, <= 12 */
	int err;			/* first failing read, 0 if none */
	unsigned short err_mask;	/* bit n: argument n failed */
	unsigned short pad[3];
	long long args[USDTKIT_BPF_MAX_ARGS];
};

_Static_assert(sizeof(struct usdtkit_trace_event) == 136, "trace event layout");

#endif
