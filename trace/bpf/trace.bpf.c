// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The program behind `usdtkit trace` (and the attach tests). On every hit
 * it runs the probe's --filter, then sends the time, pid, tid, cookie and
 * every argument to user space, or adds the hit to the aggregations the
 * probe's configuration names (trace_event.h). One program for every
 * command line: what changes is data in its maps and .rodata.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>

/* The floor of the spec and IP maps: the engine raises both to its
 * targets' sites before the load (trace/load.c), so a small trace keeps
 * small maps, and a test passes this floor with few sites. */
#ifndef USDTKIT_MAX_SPECS
#define USDTKIT_MAX_SPECS 32
#endif
#include <usdtkit/usdtkit.bpf.h>

#include "trace_event.h"

/*
 * What this command uses (USDTKIT_TRACE_F_* and the cfg flags), set by
 * the engine before the load. A load-time constant: the verifier never
 * walks a path whose bit is clear and drops its instructions, so a
 * print of one probe verifies no filter, aggregation or string code
 * (per-probe configuration is map data, which the verifier cannot
 * know). Programs that leave it alone keep every path.
 */
const volatile unsigned int features = USDTKIT_TRACE_F_ALL;
/* bit n: some probe reads argument n; the code reading the others is
 * never verified (each argument's decoding is ~1,800 instructions to
 * walk). Also load-time, from the probes' argument counts. */
const volatile unsigned int args_used = (1u << USDTKIT_BPF_MAX_ARGS) - 1;
/* the longest --filter program of any probe: the steps to verify */
const volatile unsigned int filter_insns = USDTKIT_FILTER_MAX_INSNS;

/*
 * Strings on pages the process has not touched yet (a literal on a
 * .rodata page nothing read, an anonymous page swapped out): a uprobe
 * program reads user memory with page faults disabled, so
 * bpf_probe_read_user_str() returns -EFAULT for them as for a bad
 * pointer. Two programs: usdtkit_trace, for traces that read no string,
 * as before; usdtkit_trace_str, for those that do (trace/load.c picks
 * one), where a failed read is either retried once its pages are
 * faulted in (cold_read 1: the engine loaded it sleepable) or marked for
 * the engine to read late, from /proc/PID/mem (trace/late.c).
 *
 * cold_read: BPF_F_SLEEPABLE, where bpf_copy_from_user() may fault a
 * page in (uprobes over perf events from Linux 6.0, uprobe_multi links
 * from 6.6). A load-time constant.
 */
const volatile unsigned int cold_read;

/*
 * Fault in the pages of [ptr, ptr + size): a byte of each. 0 when the
 * first one came in (the string may end before the next page, which may
 * be unmapped), else the error: a really bad pointer (NULL, unmapped)
 * still fails. At most 3 pages: size <= 4098 (--strlen 4096 + 2).
 */
static __always_inline long fault_in(unsigned long ptr, unsigned long size)
{
	unsigned long page = ptr & ~4095ul;
	char c;
	long err;
	int k;

	err = bpf_copy_from_user(&c, 1, (const void *)ptr);
	if (err)
		return err;
#pragma unroll
	for (k = 1; k < 3; k++) {
		page += 4096;
		if (page >= ptr + size)
			break;
		if (bpf_copy_from_user(&c, 1, (const void *)page))
			break;
	}
	return 0;
}

/* usdtkit_trace_str's read: retried after a fault-in where cold_read */
static __always_inline long read_user_str(void *dst, unsigned long size,
					  unsigned long ptr)
{
	long n = bpf_probe_read_user_str(dst, size, (const void *)ptr);

	if (n >= 0 || !cold_read || fault_in(ptr, size))
		return n;
	return bpf_probe_read_user_str(dst, size, (const void *)ptr);
}

/* a failed read the engine may do late: not NULL, not the first page
 * (never mapped), and no fault-in was possible */
static __always_inline int may_read_late(unsigned long ptr)
{
	return !cold_read && ptr >= 4096;
}

#define USDTKIT_FILTER_INLINE static __always_inline
#define USDTKIT_FILTER_STR_ON (features & USDTKIT_TRACE_F_FILTER_STR)
#define USDTKIT_FILTER_RUN_MAX filter_insns
#define USDTKIT_FILTER_READ_STR(dst, size, ptr) \
	bpf_probe_read_user_str(dst, size, (const void *)(unsigned long)(ptr))
#define USDTKIT_FILTER_READ_STR_COLD(dst, size, ptr) read_user_str(dst, size, ptr)
#define USDTKIT_FILTER_UNDECIDED(n, ptr) may_read_late(ptr)
#include "trace_filter_run.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#include "trace_children.h"

#define EVENTS_BYTES (1 << 22)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, EVENTS_BYTES);
} events SEC(".maps");

/* per CPU, indexed by USDTKIT_TRACE_C_* */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, USDTKIT_TRACE_C_NR);
	__type(key, int);
	__type(value, unsigned long long);
} counters SEC(".maps");

/* What to do with a probe's hits (trace_event.h); the engine sizes the
 * aggregation maps to its probes before the load. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct usdtkit_trace_cfg);
} probe_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct usdtkit_trace_agg_stats);
} agg_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, USDTKIT_TRACE_HIST_SLOTS);
	__type(key, int);
	__type(value, unsigned long long);
} agg_hist SEC(".maps");

/*
 * The keyed aggregations. key: a struct usdtkit_trace_by_head and the
 * key's parts (trace_event.h), cut to the bytes the key uses (the engine
 * sets the key size and the entries, --by-keys). agg_by: the hits, sum,
 * min and max of a key; agg_by_hist: one entry per key and log2 slot
 * that has hits, as bpftrace keeps hist() (a key's empty slots cost
 * nothing).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, USDTKIT_TRACE_BY_KEYS);
	__uint(key_size, 16);
	/* no BTF type: the engine sets the key size, which BTF would not match */
	__uint(value_size, sizeof(struct usdtkit_trace_agg_stats));
} agg_by SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, USDTKIT_TRACE_BY_KEYS);
	__uint(key_size, 16);
	__uint(value_size, 8);
} agg_by_hist SEC(".maps");

/* key: the key_buf from its val on; value: the START's time, and with
 * --by its key (struct by_scratch from ts on); a START nobody ends is
 * evicted */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 10240);
	__uint(key_size, 8);
	__uint(value_size, 8);
} lat_start SEC(".maps");

/* The types and errors of a hit's arguments, for its event. */
struct arg_state {
	unsigned char types[USDTKIT_BPF_MAX_ARGS];
	unsigned short err_mask;
	int err;
};

/*
 * A hit's arguments and their state: in a map value, not on the BPF
 * stack. That is for size, and for the verifier: what a program stores
 * in a map value is not tracked, so the 12 arguments' outcomes do not
 * multiply into 2^12 states to explore.
 *
 * The value must be the hit's own until it ends. A uprobe's program runs
 * with migration disabled, not preemption, so on a preemptible kernel
 * (Debian's 7.3 in tests/vm) another thread on the same CPU can run it in
 * the middle of this hit, and a sleepable one sleeps in page faults: with
 * one plain per-CPU value, hits came out with another thread's pid or
 * another probe's arguments. Two ways, picked at load (slot_cpus):
 *
 * - slots: one per CPU, and spares. A hit raises its CPU slot's busy
 *   with an atomic add and holds the slot when it then reads 1; every
 *   hit that raised it meanwhile reads 2 or more, puts it back, and tries
 *   a spare picked by its tid the same way (a hit that gets neither is
 *   counted LOST). An add without fetch, which Linux 5.10's verifier
 *   takes, and an array lookup the kernel inlines: about 80 ns a hit less
 *   than the hash lookup below on 6.18 (bench/README.md, "Per-hit
 *   values: slots").
 * - where the JIT cannot compile an atomic add (the 32-bit arm and x86
 *   JITs, usdtkit_features()->jit_atomics), a value per thread in an LRU
 *   hash keyed by its tid, created at its first hit. A thread never runs
 *   two hits at once; the LRU keeps the value of a thread in the middle
 *   of a hit, which was just looked up, unless SCRATCH_THREADS other
 *   threads start hitting before it resumes. The verifier walks only the
 *   way picked, and drops the other before the JIT sees it.
 */
struct scratch {
	struct arg_state st;
	struct usdtkit_filter_hit hit;
};

/* @busy: the hits that want the slot; the one that raised it to 1 has it */
struct slot {
	unsigned long long busy;
	struct scratch s;
};

/* the engine sets max_entries: slot_cpus + slot_spares */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct slot);
} slots SEC(".maps");

/* slot i < slot_cpus is CPU i's, the slot_spares after it spares; 0: the
 * LRU hash. Set by the engine (trace/load.c). */
const volatile unsigned int slot_cpus;
const volatile unsigned int slot_spares;

#define SCRATCH_THREADS 4096

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SCRATCH_THREADS);
	__type(key, unsigned int);
	__type(value, struct scratch);
} scratch SEC(".maps");

/* what a thread's value starts as: never written, all zero */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct scratch);
} scratch_init SEC(".maps");

/*
 * A string key (--count-by, --latency) is 4 KiB: per CPU, built and used
 * within a few instructions. The preemption above can still mix two
 * threads' keys on one CPU in that window (not seen in the VM's agg
 * scenario on 7.3).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct usdtkit_trace_key_buf);
} scratch_key SEC(".maps");

/*
 * The stacks of ustack keys, by id (struct usdtkit_trace_by_stack_id):
 * the engine sizes them (trace/agg.c); one 8-byte entry each when the
 * trace keys no stack, or keys by the frames (usdtkit_trace_by_str).
 */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1);
	__uint(key_size, 4);
	__uint(value_size, 8);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1);
	__uint(key_size, 4);
	__uint(value_size, 8);
} stacks2 SEC(".maps");

/*
 * The processes whose stacks are in keys, each told to the engine once,
 * by an event of its own (USDTKIT_TRACE_EV_STACK_PID): the engine keeps
 * their mappings at once, to name their frames after they exit
 * (trace/stack.c). Sized by the engine for a ustack key (1 entry
 * otherwise); it deletes a process once no key refers to it, and one
 * evicted is told again, which costs a read of its maps.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, unsigned int);
	__type(value, unsigned int);
} stack_pids SEC(".maps");

/* the key of a keyed aggregation, built here (per CPU, as scratch_key);
 * ts first, so that a latency's START stores {ts, key} in one piece */
struct by_scratch {
	unsigned long long ts;
	unsigned char key[USDTKIT_TRACE_BY_KEY_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct by_scratch);
} scratch_by SEC(".maps");

/*
 * --str, set by the engine before the load. They are .rodata: the verifier
 * sees them as constants, so the record size passed to
 * bpf_ringbuf_reserve() (which wants a constant) and every slot offset
 * are known, and the bounds below are checked once, at load time.
 * ev_size: the event plus one slot per string argument; str_off[n]: the
 * slot of argument n, 0 if it is not read as a string; str_size: the
 * bytes read into a slot (--strlen + 2: the NUL, and one more byte to
 * tell a string of exactly --strlen bytes from a longer one).
 * key_str: the bytes of a string key (a multiple of 8, 0: none);
 * lat_slot: the latency's index in agg_stats and agg_hist.
 */
const volatile unsigned int ev_size = sizeof(struct usdtkit_trace_event);
const volatile unsigned short str_off[USDTKIT_BPF_MAX_ARGS];
const volatile unsigned int str_size;
const volatile unsigned int key_str;
const volatile unsigned int lat_slot;

/*
 * The key of the keyed aggregations (one per trace), set by the engine:
 * part i is of kind by_kind[i] (USDTKIT_TRACE_BY_*, NONE past the last),
 * reads argument by_arg[i], and lies at byte by_off[i] of the key.
 * Load-time constants: the verifier walks only the kinds used.
 * stack_depth: the frames of a ustack part.
 */
const volatile unsigned char by_kind[USDTKIT_TRACE_BY_PARTS];
const volatile unsigned char by_arg[USDTKIT_TRACE_BY_PARTS];
const volatile unsigned short by_off[USDTKIT_TRACE_BY_PARTS];
const volatile unsigned int stack_depth = USDTKIT_TRACE_STACK_DEFAULT;

#include "trace_unwind.h"

static __always_inline void count(int which)
{
	unsigned long long *c = bpf_map_lookup_elem(&counters, &which);

	if (c)
		(*c)++;
}

/* argument @i (its value @v: a user pointer) as a string, into its
 * slot; with @cold, 1 if it failed and may be read late */
static __always_inline int read_str(struct usdtkit_trace_event *e, int i,
				    long v, int ok, const int cold)
{
	unsigned int off = str_off[i], n = str_size;
	struct usdtkit_trace_str *s;

	if (!(features & USDTKIT_TRACE_F_STR) || !off || off + sizeof(*s) + n > ev_size)
		return 0;
	s = (void *)e + off;
	/* a slot is always written: the record is not zeroed */
	s->pad = 0;
	if (!ok) {
		s->len = -USDTKIT__EINVAL;
		return 0;
	}
	if (!cold) {
		s->len = bpf_probe_read_user_str(s->data, n, (const void *)v);
		return 0;
	}
	s->len = read_user_str(s->data, n, v);
	return s->len < 0 && may_read_late(v);
}

/*
 * The arguments in @mask into h->args, their types and errors into @st;
 * the others are left as they are. A hit reads what its filter needs
 * first, and the rest only when the filter keeps it.
 */
static __always_inline void read_args(struct pt_regs *ctx,
				      const struct usdtkit_bpf_spec *spec,
				      unsigned int mask,
				      struct usdtkit_filter_hit *h,
				      struct arg_state *st)
{
	int i;

	/*
	 * A loop, not unrolled: one copy of the argument code instead of
	 * twelve per call keeps the ELF program small, and the kernel's
	 * dead-code and liveness passes scale with it, not with what is
	 * walked. It ends after the last argument wanted, and the verifier,
	 * knowing args_used, walks no further either.
	 */
	mask &= args_used;
#pragma clang loop unroll(disable)
	for (i = 0; i < USDTKIT_BPF_MAX_ARGS; i++) {
		long v = 0;
		int err;

		if (!(mask >> i))
			break;
		if (!(mask & (1u << i)))
			continue;
		h->args[i] = 0;
		st->types[i] = 0;
		if (i >= spec->arg_cnt)
			continue;
		st->types[i] = (spec->args[i].size & 15) |
			(spec->args[i].flags & USDTKIT_BPF_F_SIGNED ?
			 USDTKIT_TRACE_SIGNED : 0);
		err = usdtkit_spec_arg(ctx, spec, i, &v);
		if (err) {
			st->err_mask |= 1 << i;
			if (!st->err)
				st->err = err;
		}
		h->args[i] = v;
	}
}

static __always_inline unsigned long long get_id(struct usdtkit_filter_hit *h)
{
	unsigned long long id = bpf_get_current_pid_tgid();

	h->pid = id >> 32;
	h->tid = (unsigned int)id;
	return id;
}

/* One hit -> one event. spec NULL: an IP no spec knows, sent as such. */
static __always_inline void emit(const struct usdtkit_bpf_spec *spec,
				 const struct usdtkit_filter_hit *h,
				 const struct arg_state *st, unsigned long long ts,
				 const int cold)
{
	struct usdtkit_trace_event *e;
	int i, late = 0;

	e = bpf_ringbuf_reserve(&events, ev_size, 0);
	if (!e) {
		count(USDTKIT_TRACE_C_LOST);
		return;
	}
	e->ts_ns = ts;
	e->pid = h->pid;
	e->tid = h->tid;
	e->cookie = spec ? spec->cookie : 0;
	e->nargs = spec ? spec->arg_cnt : -USDTKIT__ESRCH;
	e->err = st->err;
	e->err_mask = st->err_mask;
	e->flags = e->pad = 0;
	if (cold && (features & USDTKIT_TRACE_F_FILTER_STR) && h->undecided) {
		e->flags = USDTKIT_TRACE_EV_UNDECIDED;
		late = 1;
	}
#pragma unroll
	for (i = 0; i < USDTKIT_BPF_MAX_ARGS; i++) {
		e->args[i] = h->args[i];
		e->types[i] = st->types[i];
		if (read_str(e, i, h->args[i], !(st->err_mask & (1 << i)) &&
			     spec && i < spec->arg_cnt, cold))
			late = 1;
	}
	/* waking the reader per event costs more than the rest of the hit
	 * (an irq_work and a wakeup: ~1 us): wake it when an eighth of the
	 * ring is waiting; the caller consumes the rest (the CLI: every 100 ms).
	 * A string to read late wakes it now: the sooner it reads, the
	 * likelier the process is still there and the page unchanged. */
	bpf_ringbuf_submit(e, (cold && late) ||
			   bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >=
			   EVENTS_BYTES / 8 ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
}

static __always_inline unsigned long long
arg_at(const struct usdtkit_filter_hit *h, unsigned int n)
{
	return n < USDTKIT_BPF_MAX_ARGS ? h->args[n] : 0;
}

/* bpftrace's hist() slots (trace_event.h) */
static __always_inline int hist_slot(unsigned long long v, int is_signed)
{
	int k = 0;

	if (is_signed && (long long)v < 0)
		return 0;
	if (!v)
		return 1;
	if (v >> 32) { k += 32; v >>= 32; }
	if (v >> 16) { k += 16; v >>= 16; }
	if (v >> 8) { k += 8; v >>= 8; }
	if (v >> 4) { k += 4; v >>= 4; }
	if (v >> 2) { k += 2; v >>= 2; }
	if (v >> 1) k += 1;
	return k + 2;
}

static __always_inline void hist_add(unsigned int slot, unsigned long long v,
				     int is_signed)
{
	int i = slot * USDTKIT_TRACE_HIST_SLOTS + hist_slot(v, is_signed);
	unsigned long long *c = bpf_map_lookup_elem(&agg_hist, &i);

	if (c)
		(*c)++;
}

/* n always; sum, min and max when @v counts (--sum... or a latency) */
static __always_inline void stats_put(struct usdtkit_trace_agg_stats *s,
				      unsigned long long v, int with_value,
				      int is_signed)
{
	s->n++;
	if (!with_value)
		return;
	s->sum += v;
	if (s->n == 1) {
		s->min = s->max = v;
	} else if (is_signed) {
		if ((long long)v < (long long)s->min)
			s->min = v;
		if ((long long)v > (long long)s->max)
			s->max = v;
	} else {
		if (v < s->min)
			s->min = v;
		if (v > s->max)
			s->max = v;
	}
}

static __always_inline void stats_add(unsigned int slot, unsigned long long v,
				      int with_value, int is_signed)
{
	struct usdtkit_trace_agg_stats *s = bpf_map_lookup_elem(&agg_stats, &slot);

	if (s)
		stats_put(s, v, with_value, is_signed);
}

/* feature @f is in this command and in @cfg */
static __always_inline int uses(const struct usdtkit_trace_cfg *cfg,
				unsigned int f)
{
	return features & f & cfg->flags;
}

/* The key of --key into k: its val, or its string (cut and zero-padded
 * to key_str bytes: the hash compares them all). */
static __always_inline void zero_key_str(char *str)
{
	unsigned int i;

	for (i = 0; i < USDTKIT_TRACE_KEY_STR_MAX / 8; i++) {
		if (i >= key_str / 8)
			break;
		((unsigned long long *)str)[i] = 0;
	}
}

/* the string at @v into @str (key_str bytes), *@val 0; a bad pointer:
 * *@val 1; one the engine may read late: KEY_LATE, the process in *@pid
 * and the address in str */
static __always_inline void read_key_str(unsigned long long *val, unsigned int *pid,
					 char *str, unsigned long long v,
					 const int cold)
{
	if (!(features & USDTKIT_TRACE_F_KEY_STR))
		return;
	if (!cold) {
		zero_key_str(str);
		if (key_str > 1 && key_str <= USDTKIT_TRACE_KEY_STR_MAX &&
		    bpf_probe_read_user_str(str, key_str, (const void *)(unsigned long)v) < 0)
			*val = 1;	/* a bad pointer: its own key, "<fault>" */
		return;
	}
	zero_key_str(str);
	if (key_str <= 1 || key_str > USDTKIT_TRACE_KEY_STR_MAX ||
	    bpf_probe_read_user_str(str, key_str, (const void *)(unsigned long)v) >= 0)
		return;
	if (cold_read && !fault_in(v, key_str)) {
		/* zeroed again: while this thread slept in the fault, another
		 * one on this CPU may have used the buffer */
		zero_key_str(str);
		if (bpf_probe_read_user_str(str, key_str,
					    (const void *)(unsigned long)v) >= 0)
			return;
	}
	if (may_read_late(v)) {
		/* the engine reads the string late: the process in pid, the
		 * address in str (trace/late.c) */
		*val = USDTKIT_TRACE_KEY_LATE;
		/* not h->pid: a count does not ask for it */
		*pid = bpf_get_current_pid_tgid() >> 32;
		((unsigned long long *)str)[0] = v;
		return;
	}
	*val = 1;
}

static __always_inline void make_key(struct usdtkit_trace_key_buf *k,
				     const struct usdtkit_filter_hit *h,
				     unsigned int kind, unsigned int arg,
				     const int cold)
{
	unsigned long long v = arg_at(h, arg);

	k->pad = 0;
	switch (kind) {
	case USDTKIT_TRACE_KEY_TID:
		k->val = h->tid;
		return;
	case USDTKIT_TRACE_KEY_PID:
		k->val = h->pid;
		return;
	case USDTKIT_TRACE_KEY_ARG:
		k->val = v;
		return;
	}
	k->val = 0;
	read_key_str(&k->val, &k->pad, k->str, v, cold);
}

/* ---- the keyed aggregations (--count-by, --by) ---- */

/* the engine told of process @pid's stacks, the first time only */
static __always_inline void note_stack_pid(unsigned int pid)
{
	struct usdtkit_trace_event *e;
	unsigned int one = 1;

	/* BPF_NOEXIST: of two CPUs at once, one tells */
	if (bpf_map_lookup_elem(&stack_pids, &pid) ||
	    bpf_map_update_elem(&stack_pids, &pid, &one, BPF_NOEXIST))
		return;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		/* no room: told at its next key */
		bpf_map_delete_elem(&stack_pids, &pid);
		return;
	}
	e->ts_ns = 0;
	e->pid = pid;
	e->tid = 0;
	e->cookie = 0;
	e->nargs = 0;
	e->err = 0;
	e->err_mask = 0;
	e->flags = USDTKIT_TRACE_EV_STACK_PID;
	e->pad = 0;
	/* woken now, not when the ring fills: the process may exit at once */
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
}

#define STACK_EEXIST	17
#define STACK_ENOMEM	12

/*
 * A ustack part at @off of @k: the stack's id, exact (trace_event.h).
 * No BPF_F_REUSE_STACKID, which would give a taken bucket to the new
 * stack and so the old id to another stack, nor BPF_F_FAST_STACK_CMP,
 * which would take a stack of the same hash for this one.
 */
static __always_inline void by_stack_id(struct pt_regs *ctx, unsigned char *k,
					unsigned int off,
					const struct usdtkit_filter_hit *h)
{
	struct usdtkit_trace_by_stack_id *si;
	long id;

	if (off > USDTKIT_TRACE_BY_KEY_MAX - sizeof(*si))
		return;
	si = (void *)(k + off);
	si->pid = h->pid;
	id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
	/* its bucket holds another stack, or no entry is left */
	if (id == -STACK_EEXIST || id == -STACK_ENOMEM) {
		id = bpf_get_stackid(ctx, &stacks2, BPF_F_USER_STACK);
		if (id >= 0)
			id |= USDTKIT_TRACE_STACK_ID2;
		else if (id == -STACK_EEXIST || id == -STACK_ENOMEM)
			count(USDTKIT_TRACE_C_STACK_FULL);
	}
	si->id = (int)id;
}

/* part @i of the key into @k: the by_* constants say which and where,
 * so the verifier walks the one kind of each part */
static __always_inline void by_part(struct pt_regs *ctx, unsigned char *k,
				    unsigned int i, const struct usdtkit_filter_hit *h,
				    const int cold)
{
	unsigned int off = by_off[i], room = USDTKIT_TRACE_BY_KEY_MAX;
	struct usdtkit_trace_by_stack *st;
	struct usdtkit_trace_by_str *bs;
	long n;

	switch (by_kind[i]) {
	case USDTKIT_TRACE_BY_ARG:
		if (off <= room - 8)
			*(unsigned long long *)(k + off) = arg_at(h, by_arg[i]);
		return;
	case USDTKIT_TRACE_BY_PID:
		if (off <= room - 8)
			*(unsigned long long *)(k + off) = h->pid;
		return;
	case USDTKIT_TRACE_BY_TID:
		if (off <= room - 8)
			*(unsigned long long *)(k + off) = h->tid;
		return;
	case USDTKIT_TRACE_BY_CGROUP:
		/* the process's cgroup v2 (Linux 4.18); named by the engine */
		if (off <= room - 8)
			*(unsigned long long *)(k + off) = bpf_get_current_cgroup_id();
		return;
	case USDTKIT_TRACE_BY_COMM:
		/* the helper zero-pads the 16 bytes: equal names, equal keys */
		if (off <= room - 16)
			bpf_get_current_comm(k + off, 16);
		return;
	case USDTKIT_TRACE_BY_STR:
		if (off > room - 16 - USDTKIT_TRACE_KEY_STR_MAX)
			return;
		bs = (void *)(k + off);
		bs->val = 0;
		bs->pid = bs->pad = 0;
		read_key_str(&bs->val, &bs->pid, bs->str, arg_at(h, by_arg[i]), cold);
		return;
	case USDTKIT_TRACE_BY_USTACK:
		note_stack_pid(h->pid);
		if (!cold && !unwind) {
			count(USDTKIT_TRACE_C_STACK_FP);
			by_stack_id(ctx, k, off, h);
			return;
		}
		/* unwound, or a sleepable program, which may use no stack
		 * trace map: the frames themselves (trace_event.h) */
		if (off > room - 8 - USDTKIT_TRACE_STACK_MAX * 8 ||
		    !stack_depth || stack_depth > USDTKIT_TRACE_STACK_MAX)
			return;
		st = (void *)(k + off);
		st->pid = h->pid;
		if (!cold && unwind) {
			st->n = unwind_user(ctx, st->ip, h->pid);
			if (st->n & USDTKIT_TRACE_STACK_VIA_FP)
				count(USDTKIT_TRACE_C_STACK_FP);
			if (st->n >= 0)
				return;
		}
		count(USDTKIT_TRACE_C_STACK_FP);
		/* zero past the frames written, or all of it on an error */
		n = bpf_get_stack(ctx, st->ip, stack_depth * 8, BPF_F_USER_STACK);
		st->n = n < 0 ? (int)n : (int)((unsigned long)n >> 3);
		return;
	}
}

/*
 * The value of key @k in keyed map @m, created zero if it is new (by
 * this CPU or, at the same moment, by another: then that one's); NULL
 * when the table is full, counted BY_FULL.
 */
static __always_inline void *by_value(void *m, const void *k, const void *zero)
{
	void *v = bpf_map_lookup_elem(m, k);

	if (v)
		return v;
	bpf_map_update_elem(m, k, zero, BPF_NOEXIST);
	v = bpf_map_lookup_elem(m, k);
	if (!v)
		count(USDTKIT_TRACE_C_BY_FULL);
	return v;
}

/* agg_by[@k]: one hit more, and @v in its sum, min and max when
 * @with_value */
static __always_inline void by_stats(const void *k, unsigned long long v,
				     int with_value, int is_signed)
{
	struct usdtkit_trace_agg_stats zero = { 0 }, *s;

	s = by_value(&agg_by, k, &zero);
	if (s)
		stats_put(s, v, with_value, is_signed);
}

/* agg_by_hist[{@k's probe, the slot of @v, @k's parts}]++ */
static __always_inline void by_hist(struct usdtkit_trace_by_head *k,
				    unsigned long long v, int is_signed)
{
	unsigned long long zero = 0, *c;

	k->slot = hist_slot(v, is_signed);
	c = by_value(&agg_by_hist, k, &zero);
	if (c)
		(*c)++;
	k->slot = 0;
}

/* a keyed latency's END: its START's time and key, looked up by the
 * pair (--key) */
static __always_inline void by_lat_end(const struct usdtkit_trace_cfg *cfg,
				       struct scratch *s,
				       struct usdtkit_trace_key_buf *pair,
				       unsigned long long ts, const int cold)
{
	struct by_scratch *v;
	struct usdtkit_trace_by_head *k;
	unsigned long long d;

	make_key(pair, &s->hit, cfg->key_kind, cfg->key_arg, cold);
	v = bpf_map_lookup_elem(&lat_start, &pair->val);
	if (!v) {
		count(USDTKIT_TRACE_C_UNMATCHED);
		return;
	}
	d = ts - v->ts;
	k = (void *)v->key;
	k->probe = lat_slot;
	k->slot = 0;
	by_stats(k, d, 1, 0);
	by_hist(k, d, 0);
	bpf_map_delete_elem(&lat_start, &pair->val);
}

/* one hit of a probe with a keyed aggregation */
static __always_inline void by_hit(struct pt_regs *ctx,
				   const struct usdtkit_trace_cfg *cfg,
				   unsigned int probe, struct scratch *s,
				   struct usdtkit_trace_key_buf *pair,
				   unsigned long long ts, const int cold)
{
	struct usdtkit_trace_by_head *k;
	struct by_scratch *b;
	unsigned int i;
	int zero = 0;

	if (uses(cfg, USDTKIT_TRACE_BY_LAT_END))
		by_lat_end(cfg, s, pair, ts, cold);
	if (!uses(cfg, USDTKIT_TRACE_BY_ANY & ~USDTKIT_TRACE_BY_LAT_END))
		return;
	b = bpf_map_lookup_elem(&scratch_by, &zero);
	if (!b)
		return;
#pragma unroll
	for (i = 0; i < USDTKIT_TRACE_BY_PARTS; i++)
		by_part(ctx, b->key, i, &s->hit, cold);
	k = (void *)b->key;
	k->probe = probe;
	k->slot = 0;
	if (uses(cfg, USDTKIT_TRACE_COUNT_BY | USDTKIT_TRACE_BY_STATS))
		by_stats(k, arg_at(&s->hit, cfg->stats_arg),
			 uses(cfg, USDTKIT_TRACE_BY_STATS), cfg->stats_signed);
	if (uses(cfg, USDTKIT_TRACE_BY_HIST))
		by_hist(k, arg_at(&s->hit, cfg->hist_arg), cfg->hist_signed);
	if (uses(cfg, USDTKIT_TRACE_BY_LAT_START)) {
		make_key(pair, &s->hit, cfg->key_kind, cfg->key_arg, cold);
		b->ts = ts;
		bpf_map_update_elem(&lat_start, &pair->val, &b->ts, BPF_ANY);
	}
}

static __always_inline void latency(const struct usdtkit_trace_cfg *cfg,
				    struct scratch *s,
				    struct usdtkit_trace_key_buf *key,
				    unsigned long long ts, const int cold)
{
	unsigned long long *t0, d;

	make_key(key, &s->hit, cfg->key_kind, cfg->key_arg, cold);
	if (cfg->flags & USDTKIT_TRACE_LAT_START) {
		bpf_map_update_elem(&lat_start, &key->val, &ts, BPF_ANY);
		return;
	}
	t0 = bpf_map_lookup_elem(&lat_start, &key->val);
	if (!t0) {
		count(USDTKIT_TRACE_C_UNMATCHED);
		return;
	}
	d = ts - *t0;
	bpf_map_delete_elem(&lat_start, &key->val);
	hist_add(lat_slot, d, 0);
	stats_add(lat_slot, d, 1, 0);
}

/* a probe without configuration (the attach tests' programs): print
 * every hit */
static const struct usdtkit_trace_cfg cfg_emit = {
	.flags = USDTKIT_TRACE_EMIT, .arg_mask = ~0u,
	.need = USDTKIT_TRACE_NEED_TIME | USDTKIT_TRACE_NEED_ID,
};

/* one hit -> its filter, then its event or aggregations, in @s */
static __always_inline void trace_hit_in(struct pt_regs *ctx,
					 const struct usdtkit_bpf_spec *spec,
					 struct scratch *s, const int cold,
					 const int by)
{
	const struct usdtkit_trace_cfg *cfg = &cfg_emit;
	struct usdtkit_trace_key_buf *key;
	unsigned long long ts;
	unsigned int probe = 0, filter_mask = 0;
	int zero = 0;

	if (spec && spec->cookie > 0) {
		probe = (unsigned int)(spec->cookie - 1);
		cfg = bpf_map_lookup_elem(&probe_cfg, &probe);
		/* flags 0: an entry nobody wrote */
		if (!cfg || !cfg->flags)
			cfg = &cfg_emit;
	}
	s->st.err = 0;
	s->st.err_mask = 0;
	if (!spec) {
		/* an IP no spec knows: reported, not filtered */
		count(USDTKIT_TRACE_C_KEPT);
		get_id(&s->hit);
		__builtin_memset(&s->st, 0, sizeof(s->st));
		__builtin_memset(s->hit.args, 0, sizeof(s->hit.args));
		if (cold)
			s->hit.undecided = 0;
		emit(spec, &s->hit, &s->st, bpf_ktime_get_ns(), cold);
		return;
	}
	/* what the filter needs, then the filter: a dropped hit costs only
	 * that (no clock, no other argument) */
	if (features & USDTKIT_TRACE_F_FILTER) {
		filter_mask = cfg->filter_mask;
		if (cfg->need & USDTKIT_TRACE_NEED_FILTER_ID)
			get_id(&s->hit);
		read_args(ctx, spec, filter_mask, &s->hit, &s->st);
		if (!(cold ? usdtkit_filter_run_cold(&cfg->filter, &s->hit) :
		      usdtkit_filter_run(&cfg->filter, &s->hit))) {
			count(USDTKIT_TRACE_C_DROPPED);
			return;
		}
		if (cold && (features & USDTKIT_TRACE_F_FILTER_STR) &&
		    s->hit.undecided)
			count(USDTKIT_TRACE_C_UNDECIDED);
	} else if (cold) {
		s->hit.undecided = 0;
	}
	count(USDTKIT_TRACE_C_KEPT);
	ts = cfg->need & USDTKIT_TRACE_NEED_TIME ? bpf_ktime_get_ns() : 0;
	if ((cfg->need & (USDTKIT_TRACE_NEED_ID | USDTKIT_TRACE_NEED_FILTER_ID)) ==
	    USDTKIT_TRACE_NEED_ID)
		get_id(&s->hit);
	read_args(ctx, spec, cfg->arg_mask & ~filter_mask, &s->hit, &s->st);
	if (uses(cfg, USDTKIT_TRACE_EMIT))
		emit(spec, &s->hit, &s->st, ts, cold);
	if (uses(cfg, USDTKIT_TRACE_COUNTS | USDTKIT_TRACE_STATS))
		stats_add(probe, arg_at(&s->hit, cfg->stats_arg),
			  uses(cfg, USDTKIT_TRACE_STATS), cfg->stats_signed);
	if (uses(cfg, USDTKIT_TRACE_HIST))
		hist_add(probe, arg_at(&s->hit, cfg->hist_arg),
			 cfg->hist_signed);
	if (!uses(cfg, USDTKIT_TRACE_BY_ANY | USDTKIT_TRACE_LAT_START |
		  USDTKIT_TRACE_LAT_END))
		return;
	key = bpf_map_lookup_elem(&scratch_key, &zero);
	if (!key)
		return;
	if (uses(cfg, USDTKIT_TRACE_BY_ANY)) {
		if (by)
			by_hit(ctx, cfg, probe, s, key, ts, cold);
		else	/* not reached: the engine loads usdtkit_trace_by
			 * for keys. There so that this program compiles as
			 * before keys (tests/trace_verifier_insns.sh) */
			count(USDTKIT_TRACE_C_BY_FULL);
	}
	if (uses(cfg, USDTKIT_TRACE_LAT_START | USDTKIT_TRACE_LAT_END))
		latency(cfg, s, key, ts, cold);
}

/* slot @i of slots, if no other hit holds it: then *@held */
static __always_inline struct scratch *slot_take(unsigned int i,
						 struct slot **held)
{
	struct slot *sl = bpf_map_lookup_elem(&slots, &i);

	if (!sl)
		return NULL;
	__sync_fetch_and_add(&sl->busy, 1);
	if (*(volatile unsigned long long *)&sl->busy == 1) {
		*held = sl;
		return &sl->s;
	}
	__sync_fetch_and_add(&sl->busy, -1);
	return NULL;
}

/* this thread's value in the LRU hash, created at its first hit */
static __always_inline struct scratch *thread_scratch(void)
{
	unsigned int tid = (unsigned int)bpf_get_current_pid_tgid();
	struct scratch *s = bpf_map_lookup_elem(&scratch, &tid);
	int zero = 0;

	if (s)
		return s;
	/* this thread's first hit (or its value was evicted) */
	s = bpf_map_lookup_elem(&scratch_init, &zero);
	if (s)
		bpf_map_update_elem(&scratch, &tid, s, BPF_NOEXIST);
	return bpf_map_lookup_elem(&scratch, &tid);
}

/* one hit, in a value of its own (above); also the body of test programs
 * that include this file (tests/attach/) */
static __always_inline int trace_hit_as(struct pt_regs *ctx, const int cold,
					const int by)
{
	const struct usdtkit_bpf_spec *spec = usdtkit_spec(ctx);
	struct slot *held = NULL;
	struct scratch *s = NULL;
	unsigned int cpu;

	/* children: a hit outside the traced processes (the probes are
	 * attached for all) ends here, before anything is counted */
	if (!tgid_traced())
		return 0;
	/* this program's frame is large: keep it off the private stack of
	 * Linux 6.13+, where each user read costs more (usdtkit.bpf.h). A
	 * sleepable program may not name the prog array: libusdtkit's
	 * handler takes the call out of usdtkit_trace_str when it loads it
	 * sleepable (attach/handler.c) */
	usdtkit__no_priv_stack(ctx, spec);
	if (slot_cpus) {
		cpu = bpf_get_smp_processor_id();
		if (cpu < slot_cpus)
			s = slot_take(cpu, &held);
		if (!s && slot_spares)
			s = slot_take(slot_cpus + (unsigned int)bpf_get_current_pid_tgid() %
				      slot_spares, &held);
	} else {
		s = thread_scratch();
	}
	if (!s) {
		count(USDTKIT_TRACE_C_LOST);
		return 0;
	}
	trace_hit_in(ctx, spec, s, cold, by);
	if (held)
		__sync_fetch_and_add(&held->busy, -1);
	return 0;
}

static __always_inline int trace_hit(struct pt_regs *ctx)
{
	return trace_hit_as(ctx, 0, 0);
}

SEC("usdtkit")
int usdtkit_trace(struct pt_regs *ctx)
{
	return trace_hit(ctx);
}

/* for traces that read strings; loaded only when picked ("?") */
SEC("?usdtkit")
int usdtkit_trace_str(struct pt_regs *ctx)
{
	return trace_hit_as(ctx, 1, 0);
}

/*
 * For traces with a keyed aggregation (--count-by, --by), without and
 * with strings. Programs of their own, so that the two above compile
 * as they did before keys: the keyed code, inlined into them, changed
 * the compiler's register allocation of the whole program and with it
 * the instructions every trace verifies.
 */
SEC("?usdtkit")
int usdtkit_trace_by(struct pt_regs *ctx)
{
	return trace_hit_as(ctx, 0, 1);
}

SEC("?usdtkit")
int usdtkit_trace_by_str(struct pt_regs *ctx)
{
	return trace_hit_as(ctx, 1, 1);
}

#include "trace_follow.h"
