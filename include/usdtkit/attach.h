/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * usdtkit attach layer: attach a loaded BPF program (built with
 * <usdtkit/usdtkit.bpf.h>, or with libbpf's <bpf/usdt.bpf.h>) to USDT
 * probes. Needs libbpf; link with -lusdtkit -lbpf -lelf.
 *
 * Backends, chosen at run time (or forced):
 *   MULTI  one BPF_TRACE_UPROBE_MULTI link for every site (1 fd);
 *   PERF   one perf-event uprobe + BPF link per site, with a BPF cookie;
 *   IPMAP  perf-event uprobes without cookies; the program finds the spec
 *          by the probe's absolute address in an IP map.
 * MULTI needs the program loaded with expected attach type
 * BPF_TRACE_UPROBE_MULTI, so the choice is made before load: sections
 * SEC("usdtkit") and SEC("usdtkit/PATH:PROVIDER:NAME") get it from a
 * libbpf program handler that usdtkit registers when it is loaded, and
 * usdtkit_prog_prepare() changes it for one program before load.
 *
 * An attach succeeds whole or leaves nothing behind: no link, no map
 * entry, no spec id.
 */
#ifndef USDTKIT_ATTACH_H
#define USDTKIT_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <usdtkit/usdtkit.h>

#ifdef __cplusplus
extern "C" {
#endif

struct bpf_program;
struct bpf_link;

enum usdtkit_mode {
	USDTKIT_MODE_AUTO = 0,	/* MULTI > PERF > IPMAP > INST, by kernel features */
	USDTKIT_MODE_MULTI = 1,
	USDTKIT_MODE_PERF = 2,
	USDTKIT_MODE_IPMAP = 3,
	/* a program instance per spec: no cookie, no address (inst.c) */
	USDTKIT_MODE_INST = 4,
	/* hardware breakpoints, per thread of a process (hwbp.c): where no
	 * uprobe fires (32-bit arm processes on arm64 kernels, Thumb code).
	 * A program for it is a perf-event program: usdtkit_prog_prepare()
	 * before load. AUTO takes it only in usdtkit trace, per process. */
	USDTKIT_MODE_HWBP = 5,
};

/*
 * Kernel features, probed once per process (the BPF ones need CAP_BPF and
 * CAP_PERFMON, or root; without them they read false and bpf_err says
 * why). The library owns the struct and hands out a pointer to it, so
 * fields are only ever appended: a program built against an older header
 * reads the fields it knows.
 */
struct usdtkit_features {
	bool bpf_cookie;	/* bpf_get_attach_cookie() in kprobe programs */
	bool uprobe_multi;	/* BPF_TRACE_UPROBE_MULTI with fixed PID filter */
	bool ref_ctr_offset;	/* semaphores counted by the kernel */
	bool uprobe_syscall;	/* x86-64: nop5 sites can be optimized */
	/* appended for `usdtkit features` */
	bool bpf;		/* a trivial kprobe program loads: bpf(2) works
				 * for this process */
	int bpf_err;		/* 0, or the negative errno of that load:
				 * -EPERM not privileged, -ENOSYS a kernel
				 * without CONFIG_BPF_SYSCALL */
	bool jit;		/* that program was JIT-compiled (its
				 * jited_prog_len > 0): the truth, also with
				 * CONFIG_BPF_JIT_ALWAYS_ON, which no sysctl
				 * shows; false when !bpf */
	int jit_sysctl;		/* /proc/sys/net/core/bpf_jit_enable (0 off,
				 * 1 on, 2 on + debug), -1 if there is no such
				 * file (kernels without CONFIG_NET) */
	bool btf;		/* /sys/kernel/btf/vmlinux exists */
	bool uprobe_pmu;	/* the uprobe PMU (perf_event type in
				 * /sys/bus/event_source/devices/uprobe/type)
				 * that PERF and IPMAP attach through */
	bool ringbuf;		/* BPF_MAP_TYPE_RINGBUF maps (Linux 5.8), as
				 * `usdtkit trace` uses; false when !bpf */
	/* x86-64: a uprobe on this long nop becomes a call into a
	 * trampoline (the process maps [uprobes-trampoline]), found by
	 * doing it in a child; false without bpf or uprobe_multi, and
	 * until usdtkit_features_uprobe_opt() has run */
	bool uprobe_opt_nop5;	/* Linux 6.18; its call writes into the red
				 * zone: opts.use_nop5 stays opt-in */
	bool uprobe_opt_nop10;	/* Linux 7.x: sites "nop; nop10" are
				 * attached at the nop10 */
	/* a kprobe program loaded sleepable (BPF_F_SLEEPABLE) and calling
	 * bpf_copy_from_user(), which may fault a page in: attached as a
	 * uprobe over a perf event (Linux 6.0), and for uprobe_multi links
	 * (6.6); false when !bpf. `usdtkit trace` reads strings on pages
	 * the process has not touched yet with it (docs/ATTACH.md) */
	bool sleepable_uprobe;
	bool sleepable_multi;
	/* an atomic add (BPF_XADD) loads, and is JIT-compiled where the
	 * kernel JITs: false on the 32-bit arm and x86 JITs, and when !bpf.
	 * `usdtkit trace` then keeps its per-hit values in a hash, not in
	 * per-CPU slots (docs/ARCHITECTURE.md, "Trace engine") */
	bool jit_atomics;
	/* bpf_get_stack(BPF_F_USER_STACK) returns frames: false where the
	 * kernel cannot walk user stacks (mips; s390 6.1), and when !bpf.
	 * There every ustack key of `usdtkit trace` has no frames */
	bool user_stack;
	/* mode hwbp: hardware breakpoints fire here, carry a BPF program,
	 * and the process goes on past them; hwbp_slots breakpoint
	 * registers a thread can take; hwbp_why the one line that says why
	 * not (NULL when hwbp). False, 0 and NULL until
	 * usdtkit_features_hwbp() has run */
	bool hwbp;
	int hwbp_slots;
	const char *hwbp_why;
};

USDTKIT_API const struct usdtkit_features *usdtkit_features(void);
/* usdtkit_features() with uprobe_opt_nop5 and _nop10 found (once per
 * process: a fork and two uprobe_multi links, ~0.1 s on Linux 6.18) */
USDTKIT_API const struct usdtkit_features *usdtkit_features_uprobe_opt(void);
/* usdtkit_features() with hwbp, hwbp_slots and hwbp_why found (once per
 * process: a child runs a function under a breakpoint, up to a second
 * where the kernel does not step over it) */
USDTKIT_API const struct usdtkit_features *usdtkit_features_hwbp(void);

/*
 * AUTO -> the backend this kernel gets; others as they are. Without
 * BPF (features->bpf false) AUTO still names IPMAP, which then fails to
 * attach: check features->bpf to tell "no backend at all".
 */
USDTKIT_API enum usdtkit_mode usdtkit_mode_resolve(enum usdtkit_mode mode);
USDTKIT_API const char *usdtkit_mode_str(enum usdtkit_mode mode);
/* "auto", "multi", "perf", "ipmap" -> mode; -EINVAL for anything else */
USDTKIT_API int usdtkit_mode_parse(const char *s);

/*
 * Before bpf_object__load(): make @prog loadable for @mode (the expected
 * attach type). SEC("usdtkit...") programs are prepared for AUTO already.
 */
USDTKIT_API int usdtkit_prog_prepare(struct bpf_program *prog,
				     enum usdtkit_mode mode);

struct usdtkit_attach_opts {
	size_t sz;		/* sizeof(struct usdtkit_attach_opts) */
	uint64_t cookie;	/* read back with usdtkit_cookie(ctx) */
	enum usdtkit_mode mode;	/* AUTO: the mode the program was prepared for */
	bool use_nop5;		/* x86-64: attach at the nop5 of nop;nop5
				 * sites (faster when the kernel optimizes
				 * it, but see docs: red zone) */
	usdtkit_print_fn print;	/* diagnostics, may be NULL */
	void *print_ctx;
	bool detach_wait;	/* PERF/IPMAP: usdtkit_link_destroy() waits
				 * until the kernel has removed every uprobe
				 * (~0.1 s per site) instead of leaving that
				 * to a background process */
	const struct usdtkit_file *file; /* usdtkit_attach(): @path as the
				 * caller's usdtkit_file_open() read it; its
				 * sites are attached without reading and
				 * parsing the file again (a caller that
				 * listed the probes first has it; the caller
				 * keeps and closes it) */
	bool any_process;	/* with a pid: the sites and addresses are
				 * that process's, but the kernel runs the
				 * program for every process that hits them
				 * (the children it forks share them); the
				 * program does the filtering */
	size_t :0;		/* new fields go above */
};
/* the last field: the library's view of the struct ends there */
#define usdtkit_attach_opts__last_field any_process

struct usdtkit_link;

/*
 * Attach @prog to every site of PROVIDER:NAME in @path (shell globs
 * allowed in both). @pid: 0 this process, -1 any process, N one process.
 * NULL with errno set on failure (and a message through opts->print
 * naming the file, probe and argument).
 */
USDTKIT_API struct usdtkit_link *
usdtkit_attach(struct bpf_program *prog, int pid, const char *path,
	       const char *provider, const char *name,
	       const struct usdtkit_attach_opts *opts);

/* The same for every object mapped by process @pid that has the probe. */
USDTKIT_API struct usdtkit_link *
usdtkit_attach_pid(struct bpf_program *prog, int pid, const char *provider,
		   const char *name, const struct usdtkit_attach_opts *opts);

/*
 * Detach everything the link holds and free it. NULL is a no-op. When it
 * returns the program runs at none of the link's sites. Perf-event
 * uprobes (PERF, IPMAP) then stay in the kernel, their breakpoints
 * trapping and their semaphores raised, until a background process
 * "usdtkit-reaper" has released them (the kernel takes ~0.1 s each, one
 * at a time), unless opts.detach_wait was set. MULTI restores both before
 * it returns.
 */
USDTKIT_API void usdtkit_link_destroy(struct usdtkit_link *link);

/*
 * usdtkit_link_destroy() for each of @n links (NULL entries are skipped),
 * from several threads: the kernel's grace periods for the links then
 * overlap, so a tracer of hundreds of probes exits at once.
 */
USDTKIT_API void usdtkit_links_destroy(struct usdtkit_link **links, size_t n);

USDTKIT_API enum usdtkit_mode usdtkit_link_mode(const struct usdtkit_link *link);
USDTKIT_API size_t usdtkit_link_site_count(const struct usdtkit_link *link);
/* Kernel links (fds) the link holds: one per file for MULTI, one per site
 * otherwise. */
USDTKIT_API size_t usdtkit_link_fd_count(const struct usdtkit_link *link);

/*
 * Register the libbpf program handler for SEC("usdtkit") and
 * SEC("usdtkit/PATH:PROVIDER:NAME"). A constructor does it when the
 * library is in the process, which the installed pkg-config file and
 * CMake targets ensure even for a program that calls nothing else of
 * usdtkit (they link with --no-as-needed, and --undefined= this function
 * for libusdtkit.a). A link made without them needs this call once
 * before opening skeletons; without either, libbpf fails at open with
 * "missing BPF prog type, check ELF section name 'usdtkit...'".
 * Idempotent; 0 or a negative errno from libbpf.
 */
USDTKIT_API int usdtkit_register_libbpf_handler(void);

/*
 * The same link as a libbpf struct bpf_link, for skeletons: destroying
 * it with bpf_link__destroy() destroys the usdtkit link. Consumes @link.
 */
USDTKIT_API struct bpf_link *usdtkit_link_to_bpf(struct usdtkit_link *link);

#ifdef __cplusplus
}
#endif

#endif /* USDTKIT_ATTACH_H */
