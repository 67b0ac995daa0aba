// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel feature probes, run once per process: the answers cannot change
 * while it runs, and most probes load a BPF program (sys.c's).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "attach/hwbp.h"
#include "attach/internal.h"

static struct usdtkit_features features;

/*
 * The least a tracer needs: a kprobe program ("r0 = 0; exit") loads. A
 * socket filter would be the smaller question, but unprivileged users
 * may load those (unprivileged_bpf_disabled=0) and still attach nothing.
 * The fd (kept for the JIT probe) or the load's negative errno.
 */
static int probe_bpf(void)
{
	return usdtkit__load_ret0(0);
}

/*
 * bpf_jit_enable can read 0 while every program is JITed
 * (CONFIG_BPF_JIT_ALWAYS_ON), and 1 on an arch whose JIT gave up on this
 * program: a loaded program's JIT image size is the answer.
 */
static bool probe_jit(int prog_fd)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return false;
	return info.jited_prog_len > 0;
}

/* The decimal integer that starts file @path into *@v; 0 or -errno. */
static int read_int_file(const char *path, int *v)
{
	char buf[32], *end;
	ssize_t n;
	long l;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -ENODATA;
	buf[n] = 0;
	errno = 0;
	l = strtol(buf, &end, 10);
	if (end == buf || errno || l < -2147483647L - 1 || l > 2147483647L)
		return -EINVAL;
	*v = (int)l;
	return 0;
}

/* -1 without the sysctl: kernels without CONFIG_NET have none */
static int probe_jit_sysctl(void)
{
	int v;

	return read_int_file("/proc/sys/net/core/bpf_jit_enable", &v) ? -1 : v;
}

static bool probe_btf(void)
{
	return !access("/sys/kernel/btf/vmlinux", F_OK);
}

/* PERF and IPMAP open perf events of this PMU type (CONFIG_UPROBE_EVENTS) */
static bool probe_uprobe_pmu(void)
{
	int type;

	return !read_int_file("/sys/bus/event_source/devices/uprobe/type", &type);
}

/* A ring buffer of one page: the smallest size the kernel accepts. */
static bool probe_ringbuf(void)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, NULL, 0, 0,
				page > 0 ? (__u32)page : 4096, NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * An atomic add (BPF_STX | BPF_XADD, no fetch: what Linux 5.10 has)
 * runs where the program runs. The 32-bit arm and x86 JITs have none
 * ("notyet"): a kernel that JITs then refuses the load (ENOTSUPP, 6.1)
 * or, older, interprets the whole program. True when a program with one
 * loads and, where this kernel JITs, is JITed.
 */
static bool probe_jit_atomics(void)
{
	const struct bpf_insn insns[] = {
		/* *(u64 *)(r10 - 8) = 0; r1 = 1; lock *(u64 *)(r10 - 8) += r1 */
		{ .code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .off = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_XADD | BPF_DW, .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1, .off = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = usdtkit__load_probe_prog(insns, sizeof(insns) / sizeof(insns[0]), 0);
	bool ok;

	if (fd < 0)
		return false;
	ok = !features.jit || probe_jit(fd);
	close(fd);
	return ok;
}

/*
 * Does this kernel walk user stacks? An arch without perf_callchain_user
 * (mips; s390 before it had one) gives bpf_get_stack(BPF_F_USER_STACK)
 * no frame, and every ustack key comes back empty. Asked without a
 * uprobe, whose release would cost ~0.1 s: a raw tracepoint program run
 * by BPF_PROG_TEST_RUN (Linux 5.10) from this syscall walks this
 * thread's user stack, from the regs it entered the kernel with, with
 * the same arch code a uprobe's hit does. Its return: the bytes of
 * frames written, or -EFAULT when there were none. Only that answer is
 * a no: a program that does not load or run tells nothing, and a false
 * no would have `trace` warn about stacks that are fine.
 */
bool usdtkit__probe_user_stack(void)
{
#define Z(o) { .code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .off = (o) }
	const struct bpf_insn insns[] = {
		/* the buffer zeroed: the raw_tp helper of older kernels
		 * wants initialised memory (6.1 refuses the load: EACCES) */
		Z(-8), Z(-16), Z(-24), Z(-32), Z(-40), Z(-48), Z(-56), Z(-64),
		/* r2 = r10 - 64; r3 = 64; r4 = BPF_F_USER_STACK; call get_stack */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_2,
		  .src_reg = BPF_REG_10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_2, .imm = -64 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_3, .imm = 64 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_4,
		  .imm = BPF_F_USER_STACK },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_get_stack },
		{ .code = BPF_JMP | BPF_EXIT },
	};
#undef Z
	LIBBPF_OPTS(bpf_test_run_opts, run);
	int fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, NULL, "GPL", insns,
			       sizeof(insns) / sizeof(insns[0]), NULL);
	bool ok;

	if (fd < 0)
		return true;
	ok = bpf_prog_test_run_opts(fd, &run) || (int)run.retval > 0;
	close(fd);
	return ok;
}

static bool probe_cookie(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_get_attach_cookie },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = usdtkit__load_probe_prog(insns, 2, 0);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * A sleepable program that calls bpf_copy_from_user() loads where the
 * kernel may run it from a uprobe: before Linux 6.0 only fentry/fexit
 * and LSM programs could be sleepable (the load fails with EINVAL). For
 * uprobe_multi links (6.6) the program is loaded for that attach type,
 * and a link asked as probe_multi() does: the kernel that has the link
 * runs sleepable programs from it (libbpf's "uprobe.multi.s" came with
 * it).
 */
static bool probe_sleepable(enum bpf_attach_type type)
{
	const struct bpf_insn insns[] = {
		/* r1 = r10 - 8; r2 = 1; r3 = 0; call copy_from_user */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_1,
		  .src_reg = BPF_REG_10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_1, .imm = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2, .imm = 1 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_3 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_copy_from_user },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = type,
		    .prog_flags = BPF_F_SLEEPABLE);
	int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns,
			       sizeof(insns) / sizeof(insns[0]), &o);
	uint64_t off = 0;
	int l;

	if (fd < 0)
		return false;
	if (type) {
		l = usdtkit__sys_uprobe_multi(fd, "/", &off, NULL, NULL, 1, 0);
		if (l >= 0)
			close(l);
		close(fd);
		return l == -EBADF;
	}
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
	uint64_t off = 0;
	int fd = usdtkit__noop_multi_prog();
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

static pthread_once_t features_once = PTHREAD_ONCE_INIT;

/* Files first: they answer without privileges, the BPF probes do not. */
static void probe_all(void)
{
	int fd;

	features.ref_ctr_offset = probe_ref_ctr();
	features.uprobe_syscall = probe_uprobe_syscall();
	features.jit_sysctl = probe_jit_sysctl();
	features.btf = probe_btf();
	features.uprobe_pmu = probe_uprobe_pmu();
	fd = probe_bpf();
	if (fd < 0) {
		/* every other BPF probe would fail the same way */
		features.bpf_err = fd;
		return;
	}
	features.bpf = true;
	features.jit = probe_jit(fd);
	close(fd);
	features.jit_atomics = probe_jit_atomics();
	features.bpf_cookie = probe_cookie();
	features.uprobe_multi = probe_multi();
	features.ringbuf = probe_ringbuf();
	features.sleepable_uprobe = probe_sleepable(0);
	features.sleepable_multi = features.uprobe_multi &&
		probe_sleepable((enum bpf_attach_type)USDTKIT_TRACE_UPROBE_MULTI);
	features.user_stack = usdtkit__probe_user_stack();
}

const struct usdtkit_features *usdtkit_features(void)
{
	pthread_once(&features_once, probe_all);
	return &features;
}

static pthread_once_t uprobe_opt_once = PTHREAD_ONCE_INIT;

/* Only a kernel with the uprobe syscall has a trampoline to call. */
static void probe_opt(void)
{
	if (features.uprobe_syscall && features.uprobe_multi)
		usdtkit__probe_uprobe_opt(&features);
}

/*
 * Apart, and on demand: trying costs a fork and two uprobe_multi links,
 * about 0.1 s on 6.18, which `usdtkit trace` would otherwise pay at every
 * start. Asked by the first attach of a "nop; nop10" site.
 */
const struct usdtkit_features *usdtkit_features_uprobe_opt(void)
{
	usdtkit_features();
	pthread_once(&uprobe_opt_once, probe_opt);
	return &features;
}

static pthread_once_t hwbp_once = PTHREAD_ONCE_INIT;

static void probe_hwbp(void)
{
	const struct usdtkit__hwbp_caps *c = usdtkit__hwbp_caps();

	features.hwbp = !c->err;
	features.hwbp_slots = c->slots;
	features.hwbp_why = c->err ? c->why : NULL;
}

/* Apart, and on demand too: a fork, and a second where a kernel does
 * not step over the breakpoint (hwbp_probe.c) */
const struct usdtkit_features *usdtkit_features_hwbp(void)
{
	usdtkit_features();
	pthread_once(&hwbp_once, probe_hwbp);
	return &features;
}
