// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The program behind `usdtkit trace` (and the attach tests): on every hit
 * send the time, pid, tid, cookie and every argument to user space.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>

#include <usdtkit/usdtkit.bpf.h>

#include "trace_event.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} events SEC(".maps");

/* [0]: hits, [1]: events lost because the ring buffer was full */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, unsigned long long);
} counters SEC(".maps");

/*
 * --str, set by the CLI before the load. They are .rodata: the verifier
 * sees them as constants, so the record size passed to
 * bpf_ringbuf_reserve() (which wants a constant) and every slot offset
 * are known, and the bounds below are checked once, at load time.
 * ev_size: the event plus one slot per string argument; str_off[n]: the
 * slot of argument n, 0 if it is not read as a string; str_size: the
 * bytes read into a slot (--strlen + 2: the NUL, and one more byte to
 * tell a string of exactly --strlen bytes from a longer one).
 */
const volatile unsigned int ev_size = sizeof(struct usdtkit_trace_event);
const volatile unsigned short str_off[USDTKIT_BPF_MAX_ARGS];
const volatile unsigned int str_size;

static __always_inline void count(int which)
{
	unsigned long long *c = bpf_map_lookup_elem(&counters, &which);

	if (c)
		(*c)++;
}

/* argument @i (its value @v: a user pointer) as a string, into its slot */
static __always_inline void read_str(struct usdtkit_trace_event *e, int i,
				     long v, int ok)
{
	unsigned int off = str_off[i], n = str_size;
	struct usdtkit_trace_str *s;

	if (!off || off + sizeof(*s) + n > ev_size)
		return;
	s = (void *)e + off;
	/* a slot is always written: the record is not zeroed */
	s->pad = 0;
	if (!ok) {
		s->len = -USDTKIT__EINVAL;
		return;
	}
	s->len = bpf_probe_read_user_str(s->data, n, (const void *)v);
}

/* one hit -> one event; also the body of test programs that include
 * this file (tests/bpf/) */
static __always_inline int trace_hit(struct pt_regs *ctx)
{
	const struct usdtkit_bpf_spec *spec = usdtkit_spec(ctx);
	struct usdtkit_trace_event *e;
	unsigned long long id;
	int i;

	count(0);
	e = bpf_ringbuf_reserve(&events, ev_size, 0);
	if (!e) {
		count(1);
		return 0;
	}
	id = bpf_get_current_pid_tgid();
	e->ts_ns = bpf_ktime_get_ns();
	e->pid = id >> 32;
	e->tid = (unsigned int)id;
	e->cookie = spec ? spec->cookie : 0;
	e->nargs = spec ? spec->arg_cnt : -USDTKIT__ESRCH;
	e->err = 0;
	e->err_mask = 0;
	e->pad[0] = e->pad[1] = 0;
#pragma unroll
	for (i = 0; i < USDTKIT_BPF_MAX_ARGS; i++) {
		long v = 0;
		int err;

		e->args[i] = 0;
		e->types[i] = 0;
		if (!spec || i >= spec->arg_cnt) {
			read_str(e, i, 0, 0);
			continue;
		}
		e->types[i] = (spec->args[i].size & 15) |
			(spec->args[i].flags & USDTKIT_BPF_F_SIGNED ?
			 USDTKIT_TRACE_SIGNED : 0);
		err = usdtkit_spec_arg(ctx, spec, i, &v);
		if (err) {
			e->err_mask |= 1 << i;
			if (!e->err)
				e->err = err;
		}
		e->args[i] = v;
		read_str(e, i, v, !err);
	}
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("usdtkit")
int usdtkit_trace(struct pt_regs *ctx)
{
	return trace_hit(ctx);
}
