/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One probe hit, as the trace program sends it through its ring buffer. */
#ifndef USDTKIT_TRACE_EVENT_H
#define USDTKIT_TRACE_EVENT_H

#include <usdtkit/bpf_spec.h>

#include "trace_filter.h"

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
	unsigned char flags;		/* USDTKIT_TRACE_EV_* */
	unsigned char pad;
	long long args[USDTKIT_BPF_MAX_ARGS];
};

/* the --filter compared a string it could not read (a page not in
 * memory, no sleepable uprobes): kept, for the engine to decide */
#define USDTKIT_TRACE_EV_UNDECIDED	0x01
/* no hit: a followed process's loader says its list of objects changed
 * (trace_follow.h); cookie 0, no arguments */
#define USDTKIT_TRACE_EV_MAPPED		0x02
/* not a hit: process pid's first ustack key (only pid is set); the
 * engine keeps its mappings now, to name its frames after it exits */
#define USDTKIT_TRACE_EV_STACK_PID	0x04

#define USDTKIT_TRACE_SIGNED	0x80

/* keys kept by default (agg_by's and agg_by_hist's entries; the public
 * header says it too; usdtkit_trace_agg_opts.by_keys sizes them) */
#define USDTKIT_TRACE_BY_KEYS 10240

/* bytes of a string key (--count-by str(argN), --key str(argN)) */
#define USDTKIT_TRACE_KEY_STR_MAX	4096

/*
 * --str: the event is followed by one slot per argument read as a string,
 * at the offsets the engine chose (the program's str_off[]). len is what
 * bpf_probe_read_user_str() returned: the bytes in data with the NUL, or
 * a negative errno (a faulting pointer: -EFAULT).
 */
struct usdtkit_trace_str {
	int len;
	unsigned int pad;
	char data[];
};

_Static_assert(sizeof(struct usdtkit_trace_event) == 144, "trace event layout");

/* the program's counters (per CPU); one is counted per hit, kept or
 * dropped, so that every hit = KEPT + DROPPED */
enum {
	USDTKIT_TRACE_C_KEPT,		/* hits kept (all, without a filter) */
	USDTKIT_TRACE_C_LOST,		/* events the ring buffer had no room
					 * for, hits with no value (slots) */
	USDTKIT_TRACE_C_DROPPED,	/* hits the filter dropped */
	USDTKIT_TRACE_C_BY_FULL,	/* keyed hits lost: agg_by or
					 * agg_by_hist full */
	USDTKIT_TRACE_C_UNMATCHED,	/* latency ENDs with no START */
	USDTKIT_TRACE_C_UNDECIDED,	/* hits kept: the filter could not
					 * read a string (EV_UNDECIDED) */
	USDTKIT_TRACE_C_STACK_FULL,	/* ustack keys with no stack id: both
					 * stack maps' buckets taken */
	USDTKIT_TRACE_C_STACK_FP,	/* ustack keys with a frame found by the
					 * frame pointer, or by the kernel's walk */
	USDTKIT_TRACE_C_NR
};

/*
 * What the program does with a hit of one probe: struct usdtkit_trace_cfg
 * in the array map probe_cfg, key = the probe's cookie - 1. A probe with
 * no entry (the attach tests' programs) is printed, as before there were
 * aggregations.
 */
#define USDTKIT_TRACE_EMIT	0x01	/* send the hit to the ring buffer */
#define USDTKIT_TRACE_COUNTS	0x02	/* agg_stats[probe].n++ */
#define USDTKIT_TRACE_COUNT_BY	0x04	/* agg_by[{probe, 0, key}].n++ */
#define USDTKIT_TRACE_HIST	0x08	/* agg_hist[probe][log2 bucket]++ */
#define USDTKIT_TRACE_STATS	0x10	/* agg_stats[probe]: sum, min, max */
#define USDTKIT_TRACE_LAT_START	0x20	/* lat_start[key] = now */
#define USDTKIT_TRACE_LAT_END	0x40	/* latency since lat_start[key] */
/*
 * The keyed kinds (--by KEY): bits of their own, so that a probe that
 * aggregates by no key takes the paths it always did, instruction for
 * instruction. The key is the program's by_* constants (one per trace).
 */
#define USDTKIT_TRACE_BY_STATS	0x80	/* agg_by[{probe, 0, key}]: n, sum.. */
#define USDTKIT_TRACE_BY_HIST	0x1000	/* agg_by_hist[{probe, slot, key}]++ */
#define USDTKIT_TRACE_BY_LAT_START 0x2000 /* lat_start[pair] = {now, key} */
#define USDTKIT_TRACE_BY_LAT_END 0x4000	/* agg_by and agg_by_hist[{lat_slot,
					 * .., the START's key}] */
#define USDTKIT_TRACE_BY_ANY	(USDTKIT_TRACE_COUNT_BY | USDTKIT_TRACE_BY_STATS | \
				 USDTKIT_TRACE_BY_HIST | USDTKIT_TRACE_BY_LAT_START | \
				 USDTKIT_TRACE_BY_LAT_END)

/*
 * The program's .rodata `features`: the union of the flags above over
 * every probe, and what else some probe uses. The verifier walks only
 * the paths whose bit is set (bench/README.md, "Startup").
 */
#define USDTKIT_TRACE_F_FILTER	0x100	/* some probe has a --filter */
#define USDTKIT_TRACE_F_FILTER_STR 0x200 /* ... comparing a str(argN) */
#define USDTKIT_TRACE_F_STR	0x400	/* --str: string slots in events */
#define USDTKIT_TRACE_F_KEY_STR	0x800	/* a str(argN) key */
#define USDTKIT_TRACE_F_ALL	0x7fff

#define USDTKIT_TRACE_NEED_TIME	0x01	/* bpf_ktime_get_ns() */
#define USDTKIT_TRACE_NEED_ID	0x02	/* bpf_get_current_pid_tgid() */
#define USDTKIT_TRACE_NEED_FILTER_ID 0x04 /* that, before the filter */

/* usdtkit_trace_cfg.key_kind: the latency pair's key */
enum usdtkit_trace_pair_key {
	USDTKIT_TRACE_KEY_TID = 0,
	USDTKIT_TRACE_KEY_PID,
	USDTKIT_TRACE_KEY_ARG,
	USDTKIT_TRACE_KEY_STR,		/* str(arg key_arg) */
};

struct usdtkit_trace_cfg {
	unsigned int flags;		/* USDTKIT_TRACE_* */
	unsigned int arg_mask;		/* bit n: argument n is read */
	unsigned char by_arg, by_str;	/* unused: the key is the program's
					 * by_* constants, one per trace */
	unsigned char hist_arg, stats_arg;
	unsigned char key_kind, key_arg; /* --latency --key */
	unsigned char hist_signed, stats_signed;
	/* what the hit needs besides its arguments (USDTKIT_TRACE_NEED_*):
	 * each helper call costs, and a count needs neither */
	unsigned int need;
	unsigned int filter_mask;	/* the arguments the filter reads */
	struct usdtkit_filter filter;
};

/*
 * log2 histograms, as bpftrace's hist(): slot 0 counts negative values,
 * slot 1 zero, slot k + 2 the values in [2^k, 2^(k+1)).
 */
#define USDTKIT_TRACE_HIST_SLOTS	66

/* agg_stats[probe], per CPU; latency: the slot after the last probe */
struct usdtkit_trace_agg_stats {
	unsigned long long n;		/* hits kept (0: min, max unset) */
	unsigned long long sum;		/* wraps like the C type */
	unsigned long long min, max;	/* signed or not, as the argument */
};

/*
 * lat_start's key after its first 8 bytes (--key): a string key
 * (str(argN)) is cut at the map's key size and zero-padded; the engine sets
 * the key size, so an integer key costs no string bytes.
 */
/* key_buf.val of a str() key whose string could not be read in the
 * kernel but maybe later: pad is the pid, str[0..8] the address
 * (0: the string, 1: a bad pointer) */
#define USDTKIT_TRACE_KEY_LATE	2

struct usdtkit_trace_key_buf {
	unsigned int probe;
	unsigned int pad;
	unsigned long long val;
	char str[USDTKIT_TRACE_KEY_STR_MAX];
};

/*
 * The keys of the keyed aggregations (agg_by, agg_by_hist): a head, then
 * up to USDTKIT_TRACE_BY_PARTS parts at the offsets the engine chose
 * (the program's by_off[]), each laid out as its kind says below; the
 * engine sets the maps' key size to the bytes the key uses, so only those
 * are hashed. Offsets and sizes are multiples of 8.
 */
#define USDTKIT_TRACE_BY_PARTS	3

enum usdtkit_trace_by_kind {
	USDTKIT_TRACE_BY_NONE = 0,
	USDTKIT_TRACE_BY_ARG,		/* u64: argN */
	USDTKIT_TRACE_BY_STR,		/* struct usdtkit_trace_by_str */
	USDTKIT_TRACE_BY_PID,		/* u64: the pid (tgid) */
	USDTKIT_TRACE_BY_TID,		/* u64: the tid */
	USDTKIT_TRACE_BY_COMM,		/* char[16]: bpf_get_current_comm() */
	USDTKIT_TRACE_BY_USTACK,	/* struct usdtkit_trace_by_stack */
	USDTKIT_TRACE_BY_CGROUP,	/* u64: bpf_get_current_cgroup_id() */
	USDTKIT_TRACE_BY_NR
};

struct usdtkit_trace_by_head {
	unsigned int probe;		/* lat_slot: the latency */
	unsigned int slot;		/* agg_by_hist: the log2 slot; else 0 */
};

/* str(argN): val as key_buf.val (0: the string, 1: a bad pointer,
 * KEY_LATE: read late, str[0..8] the address and pid the process) */
struct usdtkit_trace_by_str {
	unsigned long long val;
	unsigned int pid, pad;
	char str[];			/* key_str bytes, zero-padded */
};

/* ustack: the frames bpf_get_stack() wrote, zero past them (it zeroes
 * the rest of its buffer), so equal stacks are equal keys; with the pid,
 * since addresses mean something in one process only */
struct usdtkit_trace_by_stack {
	unsigned int pid;
	int n;				/* frames, or bpf_get_stack()'s -errno */
	unsigned long long ip[];	/* stack_depth of them */
};

/*
 * A ustack part as usdtkit_trace_by keys it: the stack's id in the
 * stack map stacks, or with STACK_ID2 in stacks2; a negative id is
 * bpf_get_stackid()'s -errno. The kernel hashes and compares the stack
 * once, in the stack map, and agg_by then hashes 8 bytes, not the
 * frames. The ids are exact: without BPF_F_REUSE_STACKID a bucket keeps
 * its stack, and nothing deletes it while the trace runs, so an id
 * never names another stack; a different stack in a taken bucket gets
 * -EEXIST, and tries stacks2, which has twice the buckets (another
 * bucket for most stacks). usdtkit_trace_by_str, which may be loaded
 * sleepable, keys by the frames (struct usdtkit_trace_by_stack): the
 * kernel lets no sleepable program use a stack trace map.
 */
struct usdtkit_trace_by_stack_id {
	unsigned int pid;
	int id;
};

#define USDTKIT_TRACE_STACK_ID2	(1 << 30)

/* the longest stack kept, and the default (--stack-depth) */
#define USDTKIT_TRACE_STACK_MAX	127

/*
 * Unwinding with the call frame information (trace_unwind.h; the engine
 * fills the maps, trace/unwind.c). A ustack key's frames, where the
 * program knows the code at a pc, come from that code's .eh_frame or
 * .debug_frame rows, compiled per object (core/elf/cfi.c); elsewhere
 * the frame pointer is followed, as the kernel would.
 *
 * unw_maps, an LPM trie: the code mappings of each process, a mapping
 * cut into aligned blocks, each a key of the pid and the block's first
 * address (big-endian, so that prefixes of the address are prefixes of
 * the key). Its value: the mapping (to skip the trie for the next pc
 * in it), the object's slot in unw_objs and what a pc of it minus is
 * in the object's rows.
 */
struct usdtkit_unw_key {
	unsigned int prefixlen;		/* 32 (the pid) + the block's bits */
	unsigned int pid;
	unsigned long long addr_be;
};

struct usdtkit_unw_map {
	unsigned long long start, end;	/* the mapping */
	unsigned long long bias;	/* pc - bias: the pc in the rows */
	unsigned int obj;		/* slot in unw_objs */
	unsigned int pad;
};

/* an object's rows: unw_rows[first, first + n), sorted by pc */
struct usdtkit_unw_obj {
	unsigned int first, n;
};

/* kind: the CFA's rule in bits 0-2, the frame pointer's in 3-4, the
 * return address's in 5-6 (below); offsets from the CFA in 8-byte
 * units for the two registers, as saves are aligned (the engine makes
 * a row whose offsets are not a NONE row) */
struct usdtkit_unw_row {
	unsigned int pc;		/* from the object's lowest row */
	int cfa_off;
	signed char fp_off8, ra_off8;
	unsigned char kind, flags;
	unsigned int pad;		/* an array's elements are 8-aligned:
					 * the mmap()ed map is this struct's */
};

#define USDTKIT_UNW_CFA_NONE	0	/* no rule: the frame pointer */
#define USDTKIT_UNW_CFA_SP	1
#define USDTKIT_UNW_CFA_FP	2
#define USDTKIT_UNW_CFA_PLT	3	/* x86-64 .plt: sp + 8, + 8 past its push */
#define USDTKIT_UNW_CFA_END	4	/* the outermost frame */
#define USDTKIT_UNW_CFA(k)	((k) & 7)
#define USDTKIT_UNW_SAME	0	/* the register keeps its value */
#define USDTKIT_UNW_OFFSET	1	/* saved at CFA + off8 * 8 */
#define USDTKIT_UNW_UNDEF	2
#define USDTKIT_UNW_FP(k)	(((k) >> 3) & 3)
#define USDTKIT_UNW_RA(k)	(((k) >> 5) & 3)
#define USDTKIT_UNW_F_PAC	0x01	/* arm64: the return address is signed */

/* the maps' sizes when a ustack is unwound (the engine's defaults) */
#define USDTKIT_UNW_ROWS	(1u << 19)	/* 8 MiB: python3.11, libc and
					 * libstdc++ are 127,000 */
#define USDTKIT_UNW_OBJS	1024
#define USDTKIT_UNW_MAPS	65536

/* ustack part's n: frames in the low 16 bits; this bit: some frame was
 * found by the frame pointer (code with no rows), which may stop short */
#define USDTKIT_TRACE_STACK_VIA_FP	(1 << 16)
#define USDTKIT_TRACE_STACK_N(n) ((n) & 0xffff)
#define USDTKIT_TRACE_STACK_DEFAULT 16

/* the largest key: the head, and three strings of the longest */
#define USDTKIT_TRACE_BY_KEY_MAX (8 + USDTKIT_TRACE_BY_PARTS * \
				  (16 + USDTKIT_TRACE_KEY_STR_MAX))

#endif
