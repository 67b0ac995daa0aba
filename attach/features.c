// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel feature probes, run once per process: the answers cannot change
 * while it runs, and each probe loads a BPF program. Also the one bpf(2)
 * call Debian's libbpf 1.1 has no API for: a uprobe_multi link.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "internal.h"

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

static int load_probe_prog(const struct bpf_insn *insns, size_t n,
			   enum bpf_attach_type type)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = type);
	int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, n, &o);

	return fd < 0 ? -errno : fd;
}

static bool probe_cookie(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_get_attach_cookie },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = load_probe_prog(insns, 2, 0);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * A uprobe_multi link on "/" fails with EBADF once the kernel has the
 * link type. Kernels whose PID filter matched threads instead of
 * processes take pid -1 as a PID (ESRCH); fixed ones reject it first
 * (EINVAL). Attach modes are fixed at load time, so only a kernel with
 * the fix counts.
 */
static bool probe_multi(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	uint64_t off = 0;
	int fd = load_probe_prog(insns, 2, (enum bpf_attach_type)USDTKIT_TRACE_UPROBE_MULTI);
	int l1, l2;

	if (fd < 0)
		return false;
	l1 = usdtkit__sys_uprobe_multi(fd, "/", &off, NULL, NULL, 1, 0);
	l2 = l1 == -EBADF ?
		usdtkit__sys_uprobe_multi(fd, "/", &off, NULL, NULL, 1, -1) : 0;
	if (l1 >= 0)
		close(l1);
	if (l2 >= 0)
		close(l2);
	close(fd);
	return l1 == -EBADF && l2 == -EINVAL;
}

static bool probe_ref_ctr(void)
{
	return !access("/sys/bus/event_source/devices/uprobe/format/ref_ctr_offset",
		       F_OK);
}

/*
 * x86-64 sys_uprobe (336) is only legal from the kernel's trampoline; a
 * call from anywhere else fails (ENXIO on 6.18) or, on some versions,
 * gets SIGILL. Ask in a child, so a signal cannot hit us: only ENOSYS
 * means there is no such syscall (and no nop5 optimization).
 */
static bool probe_uprobe_syscall(void)
{
#if defined(__x86_64__)
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return false;
	if (pid == 0) {
		long r = syscall(336);

		_exit(r < 0 && errno == ENOSYS ? 1 : 0);
	}
	if (waitpid(pid, &st, 0) != pid)
		return false;
	return WIFSIGNALED(st) ? WTERMSIG(st) == SIGILL : WEXITSTATUS(st) == 0;
#else
	return false;
#endif
}

static struct usdtkit_features features;
static pthread_once_t features_once = PTHREAD_ONCE_INIT;

static void probe_all(void)
{
	features.bpf_cookie = probe_cookie();
	features.uprobe_multi = probe_multi();
	features.ref_ctr_offset = probe_ref_ctr();
	features.uprobe_syscall = probe_uprobe_syscall();
}

const struct usdtkit_features *usdtkit_features(void)
{
	pthread_once(&features_once, probe_all);
	return &features;
}

enum usdtkit_mode usdtkit_mode_resolve(enum usdtkit_mode mode)
{
	const struct usdtkit_features *f;

	if (mode != USDTKIT_MODE_AUTO)
		return mode;
	f = usdtkit_features();
	if (f->uprobe_multi)
		return USDTKIT_MODE_MULTI;
	return f->bpf_cookie ? USDTKIT_MODE_PERF : USDTKIT_MODE_IPMAP;
}

static const char *const mode_names[] = {
	[USDTKIT_MODE_AUTO] = "auto", [USDTKIT_MODE_MULTI] = "multi",
	[USDTKIT_MODE_PERF] = "perf", [USDTKIT_MODE_IPMAP] = "ipmap",
};

const char *usdtkit_mode_str(enum usdtkit_mode mode)
{
	return (unsigned int)mode < 4 ? mode_names[mode] : "unknown";
}

int usdtkit_mode_parse(const char *s)
{
	int i;

	for (i = 0; s && i < 4; i++)
		if (!strcmp(s, mode_names[i]))
			return i;
	return -EINVAL;
}
