/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A ustack key's frames from the call frame information (trace_event.h
 * says what the maps hold): how the profilers unwind code built without
 * frame pointers, and how gdb does. Per frame: the mapping of its pc
 * (the trie, or the last one), the row that covers the pc (a binary
 * search of its object's rows), then the caller's registers: the CFA
 * from the stack or frame pointer, the return address and the frame
 * pointer read where the row says they were saved. Where no row covers
 * the pc (no table for that object, or a rule the rows cannot say), the
 * frame pointer is followed, as the kernel's walk does, and the stack
 * is marked (USDTKIT_TRACE_STACK_VIA_FP): the frame-pointer hint is true of
 * it.
 *
 * x86-64 and arm64 only; elsewhere, and in a process with no mapping in
 * the trie (a compat task, one the engine has not read yet), the
 * kernel's walk (bpf_get_stack()).
 *
 * Bounded loops (Linux 5.3), not bpf_loop() (5.17), for the 5.10 floor.
 * Not in the sleepable program: it may not use an LPM trie.
 */
#ifndef USDTKIT_TRACE_UNWIND_H
#define USDTKIT_TRACE_UNWIND_H

#include <bpf/bpf_endian.h>

#if defined(__TARGET_ARCH_x86) && !defined(__i386__)
#define UNW_PC	128
#define UNW_SP	152
#define UNW_FP	32
#define UNW_ARCH 1
#elif defined(__TARGET_ARCH_arm64)
#define UNW_PC	256
#define UNW_SP	248
#define UNW_FP	232
#define UNW_LR	240
#define UNW_ARCH 1
#endif

/* set by the engine when a ustack key is unwound (trace/unwind.c) */
const volatile unsigned int unwind;

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct usdtkit_unw_key);
	__type(value, struct usdtkit_unw_map);
} unw_maps SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, unsigned int);
	__type(value, struct usdtkit_unw_obj);
} unw_objs SEC(".maps");

/* written by the engine through mmap(): an object's rows in one copy */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, unsigned int);
	__type(value, struct usdtkit_unw_row);
} unw_rows SEC(".maps");

#ifdef UNW_ARCH

/* rows of an object at most 2^UNW_SEARCH (python3.11 has 70000) */
#define UNW_SEARCH 23

struct unw_state {
	unsigned long long pc, sp, fp, lr;
	struct usdtkit_unw_map m;	/* the mapping of the last pc */
	unsigned int pid;
	int via_fp;
};

/*
 * The walk's registers, per CPU: the step is a global function, which
 * the verifier checks once, not once per frame (127 frames of a binary
 * search each would pass its limit), and which before Linux 5.12 may
 * take no pointer to the caller's stack.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct unw_state);
} unw_scratch SEC(".maps");

static __always_inline unsigned long long unw_read(unsigned long long addr, int *ok)
{
	unsigned long long v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (void *)addr))
		*ok = 0;
	return v;
}

/*
 * The mapping of @pc into s->m: 0, or -1 (in none the engine knows). A
 * process forked under --children that the engine has not read yet has
 * its parent's mappings: it cannot have others before an exec, which
 * the engine holds until it has read them (trace/follow.c).
 */
static __always_inline int unw_mapping(struct unw_state *s, unsigned long long pc)
{
	struct usdtkit_unw_key k;
	struct usdtkit_unw_map *m;
	unsigned int *parent;

	if (pc >= s->m.start && pc < s->m.end)
		return 0;
	k.prefixlen = 32 + 64;
	k.pid = s->pid;
	k.addr_be = __bpf_cpu_to_be64(pc);
	m = bpf_map_lookup_elem(&unw_maps, &k);
	if (!m && follow_children) {
		parent = bpf_map_lookup_elem(&traced_tgids, &k.pid);
		if (parent && *parent) {
			k.pid = *parent;
			m = bpf_map_lookup_elem(&unw_maps, &k);
		}
	}
	if (!m || pc < m->start || pc >= m->end)
		return -1;
	s->m = *m;
	return 0;
}

/* the row of @rel in object @o's rows, or NULL */
static __always_inline const struct usdtkit_unw_row *
unw_row(unsigned int obj, unsigned long long rel)
{
	const struct usdtkit_unw_row *r;
	struct usdtkit_unw_obj *o;
	unsigned int lo, hi, mid;
	int j;

	o = bpf_map_lookup_elem(&unw_objs, &obj);
	if (!o || !o->n || rel >> 32)
		return NULL;
	lo = o->first;
	hi = o->first + o->n;
	for (j = 0; j < UNW_SEARCH; j++) {
		if (lo + 1 >= hi)
			break;
		mid = lo + (hi - lo) / 2;
		r = bpf_map_lookup_elem(&unw_rows, &mid);
		if (!r)
			return NULL;
		if (r->pc <= rel)
			lo = mid;
		else
			hi = mid;
	}
	r = bpf_map_lookup_elem(&unw_rows, &lo);
	return r && r->pc <= rel ? r : NULL;
}

/* the caller by the frame pointer: 0, or -1 where the chain ends */
static __always_inline int unw_step_fp(struct unw_state *s)
{
	int ok = 1;
	unsigned long long fp = s->fp;

	if (!fp || fp < s->sp)
		return -1;
	s->fp = unw_read(fp, &ok);
	s->pc = unw_read(fp + 8, &ok);
	s->sp = fp + 16;
	s->via_fp = 1;
	return ok ? 0 : -1;
}

/* the caller by row @r: 0, or -1 at the outermost frame or a bad read */
static __always_inline int unw_step_row(struct unw_state *s,
					const struct usdtkit_unw_row *r)
{
	unsigned int kind = r->kind;
	unsigned long long cfa, ra;
	int ok = 1;

	switch (USDTKIT_UNW_CFA(kind)) {
	case USDTKIT_UNW_CFA_SP:
		cfa = s->sp + r->cfa_off;
		break;
	case USDTKIT_UNW_CFA_FP:
		cfa = s->fp + r->cfa_off;
		break;
	case USDTKIT_UNW_CFA_PLT:
		cfa = s->sp + 8 + ((s->pc & 15) >= 11 ? 8 : 0);
		break;
	default:
		return -1;
	}
	switch (USDTKIT_UNW_RA(kind)) {
	case USDTKIT_UNW_OFFSET:
		ra = unw_read(cfa + (long long)r->ra_off8 * 8, &ok);
		break;
#ifdef UNW_LR
	case USDTKIT_UNW_SAME:
		/* a leaf's: still in the link register */
		ra = s->lr;
		break;
#endif
	default:
		return -1;
	}
	if (USDTKIT_UNW_FP(kind) == USDTKIT_UNW_OFFSET)
		s->fp = unw_read(cfa + (long long)r->fp_off8 * 8, &ok);
#ifdef UNW_LR
	/* signed by pointer authentication: the top bits are the code */
	if (r->flags & USDTKIT_UNW_F_PAC)
		ra &= (1ull << 48) - 1;
	s->lr = ra;
#endif
	s->sp = cfa;
	s->pc = ra;
	return ok ? 0 : -1;
}

/*
 * From frame @i's pc to its caller's, in the state unw_scratch holds:
 * 0, or -1 where the stack ends.
 */
__noinline int usdtkit_unw_step(int i)
{
	const struct usdtkit_unw_row *r;
	struct unw_state *s;
	unsigned long long pc;
	int zero = 0;

	s = bpf_map_lookup_elem(&unw_scratch, &zero);
	if (!s)
		return -1;
	/* a return address may be past its call's function (a noreturn
	 * call last): the row is the call's */
	pc = i ? s->pc - 1 : s->pc;
	if (unw_mapping(s, pc))
		return unw_step_fp(s);
	r = unw_row(s->m.obj, pc - s->m.bias);
	if (!r || USDTKIT_UNW_CFA(r->kind) == USDTKIT_UNW_CFA_NONE)
		return unw_step_fp(s);
	return unw_step_row(s, r);
}

/* the walk's start: the registers at the hit, and the pc's mapping */
static __always_inline struct unw_state *unw_begin(struct pt_regs *ctx,
						   unsigned int pid)
{
	struct unw_state *s;
	int zero = 0;

	s = bpf_map_lookup_elem(&unw_scratch, &zero);
	if (!s)
		return NULL;
	s->pid = pid;
	s->via_fp = 0;
	s->m.start = s->m.end = 0;
	usdtkit__slot(ctx, 8, UNW_PC, &s->pc);
	usdtkit__slot(ctx, 8, UNW_SP, &s->sp);
	usdtkit__slot(ctx, 8, UNW_FP, &s->fp);
#ifdef UNW_LR
	usdtkit__slot(ctx, 8, UNW_LR, &s->lr);
#endif
	return unw_mapping(s, s->pc) ? NULL : s;
}

/*
 * The frames of the current user stack into @ip (stack_depth slots,
 * zero past the frames): how many, with USDTKIT_TRACE_STACK_VIA_FP; or
 * -1 when the first pc is in no mapping the engine gave (the caller
 * takes the kernel's walk).
 */
static __always_inline int unwind_user(struct pt_regs *ctx, unsigned long long *ip,
				       unsigned int pid)
{
	struct unw_state *s = unw_begin(ctx, pid);
	int i, n = 0;

	if (!s)
		return -1;
	/* zero first, then a walk that may stop anywhere: a loop that
	 * zeroed what its walk left would be walked by the verifier once
	 * per frame the stack can end at */
	__builtin_memset(ip, 0, USDTKIT_TRACE_STACK_MAX * 8);
	for (i = 0; i < USDTKIT_TRACE_STACK_MAX; i++) {
		if (i >= stack_depth)
			break;
		ip[i] = s->pc;
		n = i + 1;
		if (n >= stack_depth || usdtkit_unw_step(i) || s->pc < 4096)
			break;
	}
	return n | (s->via_fp ? USDTKIT_TRACE_STACK_VIA_FP : 0);
}
#else
static __always_inline int unwind_user(struct pt_regs *ctx, unsigned long long *ip,
				       unsigned int pid)
{
	return -1;
}
#endif

#endif
