// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The BPF side of the example: on every hit of the USDT probe hello:greet
 * (hello_target.c), read its three arguments and send them to user space
 * through a ring buffer.
 *
 * Built by usdtkit_add_bpf_skeleton() (CMakeLists.txt), which passes the
 * -target, -D__TARGET_ARCH_* and usdtkit defines this architecture needs.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>

/* brings bpf_helpers.h and bpf_tracing.h, and the map usdtkit writes
 * each site's argument specs into */
#include <usdtkit/usdtkit.bpf.h>

#include "hello.h"

/* bpf_probe_read_user_str() and the ring buffer are GPL-only helpers */
char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);	/* bytes; a power of 2 pages */
} events SEC(".maps");

/* events dropped because the ring buffer was full: the host reports them,
 * so that a slow reader never looks like a probe that did not fire */
__u64 dropped;

/*
 * SEC("usdtkit"): libusdtkit, linked into the host, tells libbpf what
 * this section is and prepares the program for the best attach mode of
 * the running kernel. The host attaches it with usdtkit_attach().
 *
 * USDTKIT_PROBE() looks up the spec of the site that fired once, and
 * reads each argument named here with exactly the size and signedness
 * the site declared; the C types only say how we want to use them. It
 * gives 0 for an argument it cannot read, so the third one is read by
 * hand with usdtkit_arg(), which returns the error.
 */
SEC("usdtkit")
int USDTKIT_PROBE(on_greet, unsigned int seq, long value)
{
	struct hello_event *e;
	long who = 0;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&dropped, 1);
		return 0;
	}
	e->pid = bpf_get_current_pid_tgid() >> 32;
	e->seq = seq;
	e->value = value;
	/* the spec of this site by hand: how many arguments it has, and the
	 * cookie the host gave usdtkit_attach() */
	e->nargs = usdtkit_arg_cnt(ctx);
	e->cookie = usdtkit_cookie(ctx);
	e->err = usdtkit_arg(ctx, 2, &who);
	/* a pointer into the traced process: copy the string now, while
	 * that process is stopped at the probe */
	if (e->err ||
	    bpf_probe_read_user_str(e->who, sizeof(e->who), (void *)who) < 0)
		e->who[0] = '\0';
	bpf_ringbuf_submit(e, 0);
	return 0;
}
