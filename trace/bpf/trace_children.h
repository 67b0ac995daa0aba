/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --children, the BPF side (cli/trace_children.c is the other): the
 * probes are attached for every process, and a hit counts only when its
 * process is in traced_tgids. The engine seeds the map with the traced pid
 * (and its descendants alive then); a tracepoint adds each process a
 * traced one forks, another removes a process when it exits, before its
 * pid can be given to an unrelated one.
 *
 * Included by trace.bpf.c after its helpers; needs <linux/bpf.h> and
 * <bpf/bpf_helpers.h>.
 */
#ifndef USDTKIT_TRACE_CHILDREN_H
#define USDTKIT_TRACE_CHILDREN_H

#define USDTKIT_CLONE_THREAD 0x00010000	/* <linux/sched.h> */

/*
 * A load-time constant, set by the engine before the load: 0 (no
 * --children), the verifier removes the branch of the check in
 * trace_hit() and never walks the lookup; a hit keeps only the load of
 * the constant.
 */
const volatile unsigned int follow_children;

/* tgid -> the tgid that forked it (0 for the seeds); max_entries is 1
 * without --children, so the map costs nothing then */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, unsigned int);
	__type(value, unsigned int);
} traced_tgids SEC(".maps");

/* forks followed, per CPU: -v reports them, and the tests see from
 * them that threads are left out */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, unsigned long long);
} children_forks SEC(".maps");

/* this hit's process is traced (always, without --children) */
static __always_inline int tgid_traced(void)
{
	unsigned int tgid;

	if (!follow_children)
		return 1;
	tgid = bpf_get_current_pid_tgid() >> 32;
	return bpf_map_lookup_elem(&traced_tgids, &tgid) != NULL;
}

/*
 * A new task, in its parent's context, before it first runs: it cannot
 * hit a probe before it is in the map. Threads (CLONE_THREAD) are left
 * out: a hit is looked up by its tgid, and a thread's tid in the map
 * would only wait there for its number to be reused by a process.
 */
static __always_inline int on_fork(unsigned int child, unsigned int flags)
{
	unsigned int parent = bpf_get_current_pid_tgid() >> 32;
	unsigned long long *n;
	int zero = 0;

	if ((flags & USDTKIT_CLONE_THREAD) ||
	    !bpf_map_lookup_elem(&traced_tgids, &parent) ||
	    bpf_map_update_elem(&traced_tgids, &child, &parent, BPF_ANY))
		return 0;
	n = bpf_map_lookup_elem(&children_forks, &zero);
	if (n)
		(*n)++;
	return 0;
}

/*
 * task_newtask's pid is at 8 in every kernel, and the low 32 bits of
 * its clone_flags at 32 (64-bit kernels: an unsigned long, a u64 in
 * recent ones such as 6.18), 28 (32-bit kernels while it was an
 * unsigned long) or 36 (64-bit big-endian): one program per place, the
 * engine loads the one the tracepoint's format names. A record is read at
 * constant offsets only, and none past its end: the kernel refuses to
 * attach a program that reads further (EACCES).
 */
#define USDTKIT_TRACE_FORK(off)						\
SEC("?tracepoint/task/task_newtask")					\
int usdtkit_trace_fork##off(void *ctx)					\
{									\
	return on_fork(*(unsigned int *)(ctx + 8),			\
		       *(unsigned int *)(ctx + off));			\
}
USDTKIT_TRACE_FORK(28)
USDTKIT_TRACE_FORK(32)
USDTKIT_TRACE_FORK(36)

/*
 * A process ends with its main thread, whose tid is its tgid: the
 * exiting task is current, so no field of the record is needed. Any
 * task's tid is deleted, not only a main thread's: a thread's is no key
 * (task_newtask left it out), and should one be, it goes with its thread.
 */
SEC("?tracepoint/sched/sched_process_exit")
int usdtkit_trace_exit(void *ctx)
{
	unsigned int tid = (unsigned int)bpf_get_current_pid_tgid();

	bpf_map_delete_elem(&traced_tgids, &tid);
	return 0;
}

#endif
