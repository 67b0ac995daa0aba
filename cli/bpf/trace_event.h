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
	/* argument n as the site that fired has it: bytes (1, 2, 4, 8) |
	 * USDTKIT_TRACE_SIGNED. The sites of one probe may disagree (an int
	 * at one, a long at another), so the probe's first note cannot say */
	unsigned char types[USDTKIT_BPF_MAX_ARGS];
	unsigned char pad[2];
	long long args[USDTKIT_BPF_MAX_ARGS];
};

#define USDTKIT_TRACE_SIGNED	0x80

/*
 * --str: the event is followed by one slot per argument read as a string,
 * at the offsets the CLI chose (the program's str_off[]). len is what
 * bpf_probe_read_user_str() returned: the bytes in data with the NUL, or
 * a negative errno (a faulting pointer: -EFAULT).
 */
struct usdtkit_trace_str {
	int len;
	unsigned int pad;
	char data[];
};

_Static_assert(sizeof(struct usdtkit_trace_event) == 144, "trace event layout");

#endif
