/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Following a process's objects, the BPF side (trace/follow.c is the
 * other): a uprobe on its dynamic loader's _dl_debug_state(), the
 * function every loader (glibc's, musl's) calls for debuggers each time
 * its list of objects changes: once the objects of a dlopen() are mapped
 * and before they are relocated or any of their code runs, and at the
 * start, before main(). The program tells the engine (an event with
 * USDTKIT_TRACE_EV_MAPPED) and, where the engine holds the process
 * (watch/hold.c, a ptrace tracer), stops the thread with hold_sig: the
 * tracer takes that signal as a ptrace stop, invisible to the parent and
 * to the process, and lets the thread go once its new objects' probes
 * are attached.
 *
 * Included by trace.bpf.c after trace_children.h; needs its events map.
 */
#ifndef USDTKIT_TRACE_FOLLOW_H
#define USDTKIT_TRACE_FOLLOW_H

/* 0: nobody holds; else the signal the tracer takes as a hold (SIGSTOP
 * of the engine's, and so the kernel's, architecture). Set by the engine
 * at run time, only while every followed thread has the tracer. */
volatile unsigned int hold_sig;

SEC("?uprobe")
int usdtkit_trace_loader(struct pt_regs *ctx)
{
	unsigned long long id = bpf_get_current_pid_tgid();
	struct usdtkit_trace_event *e;
	unsigned int sig = hold_sig;

	if (!tgid_traced())
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (e) {
		__builtin_memset(e, 0, sizeof(*e));
		e->ts_ns = bpf_ktime_get_ns();
		e->pid = id >> 32;
		e->tid = (unsigned int)id;
		e->flags = USDTKIT_TRACE_EV_MAPPED;
		bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	}
	if (sig)
		bpf_send_signal_thread(sig);
	return 0;
}

#endif
