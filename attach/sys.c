// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The attach layer's own bpf(2) calls: the one Debian's libbpf 1.1 has no
 * API for (a uprobe_multi link), and the tiny programs the feature probes
 * (features.c, optprobe.c) and the multi backend's questions load. Below
 * both: a file of its own, so neither calls the other for them.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "attach/internal.h"

/*
 * The BPF_LINK_CREATE part of union bpf_attr for uprobe_multi (Linux 6.6),
 * defined here because the uapi headers of Debian 12 (6.1) stop before it.
 * Our own name, so newer headers do not clash with it.
 */
struct usdtkit_attr_uprobe_multi {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t multi_flags;
	uint32_t pid;
};

_Static_assert(__builtin_offsetof(struct usdtkit_attr_uprobe_multi, path) == 16,
	       "link_create.uprobe_multi starts at byte 16 of bpf_attr");
_Static_assert(__builtin_offsetof(struct usdtkit_attr_uprobe_multi, pid) == 56,
	       "link_create.uprobe_multi.pid");

int usdtkit__sys_uprobe_multi(int prog_fd, const char *path,
			      const uint64_t *offsets, const uint64_t *ref_ctrs,
			      const uint64_t *cookies, uint32_t cnt, int pid)
{
	struct usdtkit_attr_uprobe_multi a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)prog_fd;
	a.attach_type = USDTKIT_TRACE_UPROBE_MULTI;
	a.path = (uint64_t)(uintptr_t)path;
	a.offsets = (uint64_t)(uintptr_t)offsets;
	a.ref_ctr_offsets = (uint64_t)(uintptr_t)ref_ctrs;
	a.cookies = (uint64_t)(uintptr_t)cookies;
	a.cnt = cnt;
	a.pid = (uint32_t)pid;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : (int)fd;
}

int usdtkit__load_probe_prog(const struct bpf_insn *insns, size_t n,
			   enum bpf_attach_type type)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = type);
	int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, n, &o);

	return fd < 0 ? -errno : fd;
}

/* A kprobe program that does nothing ("r0 = 0; exit"), for @type. */
int usdtkit__load_ret0(enum bpf_attach_type type)
{
	static const struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return usdtkit__load_probe_prog(ret0, 2, type);
}

/*
 * A kprobe program that does nothing, for uprobe_multi links that only
 * ask the kernel a question (multi.c): the user's program must never run
 * from them. Its fd, or a negative errno.
 */
int usdtkit__noop_multi_prog(void)
{
	return usdtkit__load_ret0((enum bpf_attach_type)USDTKIT_TRACE_UPROBE_MULTI);
}
