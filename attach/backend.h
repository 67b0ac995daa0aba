/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An attach backend: what it needs from the kernel and from the program,
 * and its operations. One file per backend fills in one of these; the
 * table in backend.c indexes them by enum usdtkit_mode, and nothing
 * outside a backend's file knows its state.
 */
#ifndef USDTKIT_ATTACH_BACKEND_H
#define USDTKIT_ATTACH_BACKEND_H

#include <linux/bpf.h>

#include "attach/internal.h"
#include "attach/mode.h"

struct usdtkit_proc;

struct usdtkit__backend {
	const char *name;	/* usdtkit_mode_str(), usdtkit_mode_parse() */
	/* the program's type: 0 is BPF_PROG_TYPE_KPROBE (every uprobe) */
	enum bpf_prog_type prog_type;
	/* the program's expected attach type, fixed before load, and the
	 * kernel objects it binds to ("... was loaded for %s links") */
	enum bpf_attach_type attach_type;
	const char *links;
	/* does the kernel have what it needs? NULL: whatever attaches at all */
	bool (*supported)(const struct usdtkit_features *f);
	/* when it does not: the missing feature and the Linux that has it,
	 * after "mode NAME: ", and the modes to use instead */
	const char *refusal, *instead;
	/* may a program of this spec layout use it on this kernel? NULL: any */
	int (*check_abi)(enum usdtkit_spec_abi abi, const struct usdtkit_log *lg);
	/* the program finds a site's spec by its absolute address, so a PIE's
	 * or library's sites are attached through a process's own mappings */
	bool by_address;
	/*
	 * Hardware breakpoints (mode hwbp): one per thread of a process, so
	 * it is given the pid also for opts.any_process; AUTO never takes
	 * it by kernel features alone (the trace engine does, where no
	 * uprobe can fire); Thumb sites are its to attach.
	 */
	bool breakpoints;
	size_t state_size;	/* its part of struct usdtkit_link, zeroed */
	/*
	 * One site, after its spec id is taken and before its file's
	 * attach (@delta: the attach point's distance from the probe pc);
	 * may set t->ip. NULL: nothing to do.
	 */
	int (*site)(struct usdtkit_link *l, struct usdtkit_target *t,
		    const struct usdtkit_file *f, const struct usdtkit_site *s,
		    const struct usdtkit_proc *proc, int64_t delta);
	/* The @n targets of one file; @pid as libbpf: -1 any, 0 self, N. */
	int (*attach)(struct usdtkit_link *l, const struct bpf_program *prog,
		      const struct usdtkit_target *t, size_t n, int pid);
	/*
	 * Detach everything its state holds and free it, once, before the
	 * link's spec ids go. After it the program runs at none of the
	 * link's sites; l->detach_wait says whether what stays in the kernel
	 * may be released in the background.
	 */
	void (*release)(struct usdtkit_link *l);
	size_t (*fd_count)(const struct usdtkit_link *l);
};

extern const struct usdtkit__backend usdtkit__backend_multi;	/* multi.c */
extern const struct usdtkit__backend usdtkit__backend_perf;	/* perf.c */
extern const struct usdtkit__backend usdtkit__backend_ipmap;	/* ipmap.c */
extern const struct usdtkit__backend usdtkit__backend_inst;	/* inst.c */
extern const struct usdtkit__backend usdtkit__backend_hwbp;	/* hwbp.c */

/* backend.c: the backend of @mode, NULL for AUTO and unknown modes */
const struct usdtkit__backend *usdtkit__backend_of(enum usdtkit_mode mode);

/*
 * The mode an attach of @prog in @mode uses: AUTO resolved among the
 * backends the program was loaded for (by_address ones only when the
 * sites' addresses are known, @placed), then refused (one line through
 * @lg, negative errno) when the program, its spec layout or the kernel
 * does not fit it.
 */
int usdtkit__mode_pick(const struct bpf_program *prog, enum usdtkit_mode mode,
		       bool placed, enum usdtkit_spec_abi abi,
		       const struct usdtkit_log *lg);
/* The largest state_size: a link's mode may change before it attaches. */
size_t usdtkit__backend_state_max(void);

/* The backend's part of @l (state_size bytes). */
static inline void *usdtkit__link_state(const struct usdtkit_link *l)
{
	return (void *)l->state;
}

/* perf.c: the perf-event uprobes that PERF and IPMAP are made of */
struct usdtkit_perf_site;
struct usdtkit__perf_sites {
	struct usdtkit_perf_site *s;
	size_t n;
};

/* Bind @prog_fd to perf event @pfd with @cookie: a BPF link (Linux
 * 5.15; *@link_fd), else, without a cookie, the event holds it. */
int usdtkit__perf_bind(int prog_fd, int pfd, uint64_t cookie, bool enable, int *link_fd);

/* One event per target; each binds the program (or @prog_fds[i], when
 * given) with the spec id's cookie when @cookies, else with none. */
int usdtkit__perf_attach(struct usdtkit_link *l, struct usdtkit__perf_sites *ps,
			 const struct bpf_program *prog, const int *prog_fds,
			 const struct usdtkit_target *t, size_t n, int pid,
			 bool cookies);
void usdtkit__perf_release(struct usdtkit__perf_sites *ps, bool wait);

/* ipmap.c: the IP-map entries a link holds */
struct usdtkit__ips {
	uint64_t *ip;
	size_t n;
};

/* ipmap.c: @s's absolute address (t->ip, moved by @delta) and its entry
 * in the IP map, recorded in @ips */
int usdtkit__ipmap_site(struct usdtkit_link *l, struct usdtkit_target *t,
			const struct usdtkit_file *f, const struct usdtkit_site *s,
			const struct usdtkit_proc *proc, int64_t delta,
			struct usdtkit__ips *ips);
/* ipmap.c: every entry of @ips out of the IP map; @ips is empty again */
void usdtkit__ipmap_drop(struct usdtkit_link *l, struct usdtkit__ips *ips);

#endif
