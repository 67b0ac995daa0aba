/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The attach layer's internals: shared by the files of attach/ only. */
#ifndef USDTKIT_ATTACH_INTERNAL_H
#define USDTKIT_ATTACH_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <linux/bpf.h>
#include <usdtkit/attach.h>
#include <usdtkit/bpf_spec.h>

#include "base/log.h"

struct bpf_object;
struct bpf_program;

/* BPF_TRACE_UPROBE_MULTI (Linux 6.6); Debian 12's uapi headers lack it */
#define USDTKIT_TRACE_UPROBE_MULTI 48

/* Which spec layout the program's spec map holds. */
enum usdtkit_spec_abi {
	USDTKIT_ABI_OWN = 0,		/* usdtkit.bpf.h: 400 bytes, groups */
	USDTKIT_ABI_LIBBPF_V1 = 1,	/* libbpf <= 1.6 usdt.bpf.h: 208 bytes */
	USDTKIT_ABI_LIBBPF_V2 = 2,	/* libbpf 1.7 usdt.bpf.h: 304 bytes, SIB */
	USDTKIT_ABI_OWN_V1 = 3,		/* usdtkit.bpf.h before groups: 304 bytes */
};

/* Programs built with usdtkit.bpf.h, of either spec version. */
static inline bool usdtkit__abi_own(enum usdtkit_spec_abi abi)
{
	return abi == USDTKIT_ABI_OWN || abi == USDTKIT_ABI_OWN_V1;
}

/* One IP-map entry this process put in, shared by attaches of one spec. */
struct usdtkit_ip_ent {
	uint64_t ip;
	int id;
	uint32_t refs;		/* 0: slot empty */
};

/*
 * Per BPF object state: its maps, the spec table behind the spec map and
 * a shadow of the IP map. Links hold a reference; the last one frees it.
 */
struct usdtkit_manager {
	struct usdtkit_manager *next;
	uint32_t spec_map_id;	/* kernel id of the spec map: the key */
	uint32_t refs;
	pthread_mutex_t lock;
	enum usdtkit_spec_abi abi;
	int spec_fd, ip_fd;
	uint32_t spec_value_size;
	int inst_fd;		/* usdtkit_inst, -1: none (inst.c) */
	size_t ninst;		/* mode inst's programs loaded */
	struct usdtkit_spec_table *specs;
	struct usdtkit_ip_ent *ips;	/* open addressing, power of two */
	size_t ip_cap, ip_used;
};

/* One site to attach, as the backends need it. */
struct usdtkit_target {
	const char *path;	/* file the kernel opens */
	uint64_t offset;	/* file offset of the probe */
	uint64_t ref_ctr;	/* semaphore file offset, 0 if none */
	uint64_t ip;		/* absolute address (IPMAP), 0 if unknown */
	int spec_id;
	int bp_len;		/* mode hwbp: the breakpoint's length */
	const char *provider, *name;	/* for messages */
};

struct usdtkit__backend;

/*
 * What every backend shares; the backend's own part (backend.h) follows,
 * sized by it: nothing here knows one backend from another.
 */
struct usdtkit_link {
	struct usdtkit_manager *man;
	struct usdtkit_log log;
	enum usdtkit_mode mode;
	const struct usdtkit__backend *b;	/* of mode */
	const struct bpf_program *prog;	/* the one usdtkit_attach*() got */
	size_t nsites;
	bool detach_wait;		/* opts.detach_wait */
	bool any_process;		/* opts.any_process */
	int *ids;			/* spec ids this link holds */
	size_t nids;
	max_align_t state[];		/* the backend's */
};

/* Append @v (@elem bytes) to the array *@arr of *@n; 0 or -ENOMEM. */
static inline int usdtkit__append(void **arr, size_t *n, size_t elem, const void *v)
{
	void *p = realloc(*arr, (*n + 1) * elem);

	if (!p)
		return -ENOMEM;
	memcpy((char *)p + *n * elem, v, elem);
	*arr = p;
	(*n)++;
	return 0;
}

/* sys.c: a uprobe_multi link (bpf(2) itself: libbpf 1.1 has no API) */
int usdtkit__sys_uprobe_multi(int prog_fd, const char *path,
			      const uint64_t *offsets, const uint64_t *ref_ctrs,
			      const uint64_t *cookies, uint32_t cnt, int pid);
/* sys.c: kprobe programs of @n insns for @type, "r0 = 0; exit", and one
 * that does nothing for uprobe_multi links that only ask the kernel a
 * question; an fd or a negative errno */
int usdtkit__load_probe_prog(const struct bpf_insn *insns, size_t n,
			     enum bpf_attach_type type);
int usdtkit__load_ret0(enum bpf_attach_type type);
int usdtkit__noop_multi_prog(void);

/* optprobe.c: features->uprobe_opt_nop5 and _nop10, by trying them */
void usdtkit__probe_uprobe_opt(struct usdtkit_features *f);
/* features.c: does the kernel walk user stacks (bench/features_probe.c
 * times it) */
bool usdtkit__probe_user_stack(void);
/* optprobe.c: has process @pid a [uprobes-trampoline] mapping (a uprobe
 * of it was optimized)? */
bool usdtkit__uprobe_trampoline(pid_t pid);

/*
 * Why the kernel refused to register the uprobe at @t, where the errno
 * alone does not say: an empty string or ": <reason>" (hint.c).
 */
void usdtkit__uprobe_hint(char *buf, size_t size, int err,
			  const struct usdtkit_target *t, bool perf_event);

/* encode.c: the IR of one site -> the program's spec layout */
int usdtkit__spec_encode(const struct usdtkit_log *lg, const char *where,
			 const struct usdtkit_arch *arch, const char *spec_text,
			 const struct usdtkit_arg *args, int nargs,
			 uint64_t cookie, int64_t ip_delta,
			 enum usdtkit_spec_abi abi, void *out, size_t out_size);

/* Group the memory arguments of an encoded version 2 spec (encode.c). */
int usdtkit__spec_group(struct usdtkit_bpf_spec *s);

/* Largest spec of any layout (own version 2: 400 bytes). */
#define USDTKIT_SPEC_MAX_BYTES sizeof(struct usdtkit_bpf_spec)

/* manager.c */
uint64_t usdtkit__cookie(const struct usdtkit_manager *m, int spec_id);
struct usdtkit_manager *usdtkit__manager_get(const struct bpf_program *prog,
					     const struct usdtkit_log *lg);
void usdtkit__manager_put(struct usdtkit_manager *m);
int usdtkit__ip_add(struct usdtkit_manager *m, uint64_t ip, int id,
		    const struct usdtkit_log *lg, const char *where);
void usdtkit__ip_del(struct usdtkit_manager *m, uint64_t ip);

/* reaper.c */
int usdtkit__close_in_background(const int *fds, size_t n);

#endif
