// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The VM's attach-API program (vm_api.c): the trace program (every
 * argument through usdtkit_spec_arg, one event per hit), plus one written
 * with USDTKIT_PROBE whose C arguments are the four 64-bit values of
 * usdtkit_cross:wide (register pairs on 32-bit targets), and on_sub,
 * loaded only, with a subprogram.
 */
#include "../../trace/bpf/trace.bpf.c"

SEC("usdtkit")
int USDTKIT_PROBE(on_wide, long long z, unsigned long long w, long long x,
		  unsigned long long y)
{
	struct usdtkit_trace_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	unsigned long long id = bpf_get_current_pid_tgid();

	count(0);
	if (!e) {
		count(1);
		return 0;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->ts_ns = bpf_ktime_get_ns();
	e->pid = id >> 32;
	e->tid = (unsigned int)id;
	e->cookie = usdtkit_cookie(ctx);
	e->nargs = 4;
	e->args[0] = z;
	e->args[1] = (long long)w;
	e->args[2] = x;
	e->args[3] = (long long)y;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * A program with a BPF-to-BPF call, as users write them: the never-taken
 * tail call of usdtkit_spec_args() lands in a subprogram. Kernels whose
 * JIT takes no tail call beside such calls (arm64 before 6.0, every
 * 32-bit or interpreted one) refused the whole skeleton; libusdtkit's
 * handler drops the call there (attach/handler.c). Loading is the test.
 */
static __noinline int first_arg(struct pt_regs *ctx, long *v)
{
	return usdtkit_spec_args(ctx, usdtkit_spec(ctx), v, 1);
}

SEC("usdtkit")
int on_sub(struct pt_regs *ctx)
{
	long v[USDTKIT_BPF_MAX_ARGS] = { 0 };

	return first_arg(ctx, v) ? 1 : v[0] == 0x5eed;
}
