// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Can a hardware breakpoint carry a BPF program here, and does the
 * process go on past it? Asked by doing it, once per process, at the
 * first attach in mode hwbp (hwbp.c):
 *
 *  - a kernel without breakpoints, or without the perf flags the mode
 *    needs (inherit_thread and remove_on_exec, Linux 5.13), refuses the
 *    event;
 *  - a hypervisor that does not pass the debug registers through takes
 *    the event and never fires it (the x86-64 host usdtkit is built on);
 *  - a kernel that does not step over a breakpoint whose BPF program
 *    handled it (before Linux 6.6, unless its stable branch took the fix;
 *    and every 32-bit arm kernel under qemu, which lacks the mismatch
 *    breakpoints that kernel steps with) traps on it forever.
 *
 * The last two attach cleanly and would count 0, or hang the traced
 * process: a child of ours runs a function twice under a breakpoint and
 * a program that counts, and must exit within a second having counted
 * 2. The child is killed otherwise. The same pass counts the breakpoint
 * registers a thread can have, by taking them until the kernel says
 * ENOSPC.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "attach/backend.h"
#include "attach/hwbp.h"

/* more than any CPU has (arm64: 16 at most; x86: 4) */
#define SLOTS_MAX 32
#define WAIT_MS 1000

static struct usdtkit__hwbp_caps caps;
static pthread_once_t caps_once = PTHREAD_ONCE_INIT;

/* The function the child runs under the breakpoint. */
__attribute__((noinline, used)) static void hwbp_target(void)
{
	__asm__ volatile("" ::: "memory");
}

int usdtkit__hwbp_len(bool thumb)
{
	struct utsname u;

	if (thumb)
		return 2;
	/* x86 takes only the kernel's sizeof(long) for an execute breakpoint */
	if (!uname(&u) && !strcmp(u.machine, "x86_64"))
		return 8;
	return 4;
}

int usdtkit__hwbp_open(uint64_t addr, int len, int pid, unsigned int flags)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_BREAKPOINT;
	a.bp_type = HW_BREAKPOINT_X;
	a.bp_addr = addr;
	a.bp_len = (uint64_t)len;
	a.sample_period = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.inherit = !!(flags & USDTKIT__HWBP_INHERIT);
	a.inherit_thread = !!(flags & USDTKIT__HWBP_THREADS);
	a.remove_on_exec = !!(flags & USDTKIT__HWBP_REMOVE_ON_EXEC);
	a.enable_on_exec = !!(flags & USDTKIT__HWBP_ENABLE_ON_EXEC);
	a.disabled = !!(flags & (USDTKIT__HWBP_ENABLE_ON_EXEC | USDTKIT__HWBP_DISABLED));
	fd = syscall(__NR_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

/* Breakpoint registers a thread of ours can take, past any in use:
 * ENOSPC ends the count; any other refusal is the kernel's answer. */
static int count_slots(uint64_t addr, int len)
{
	int fds[SLOTS_MAX], n, i, err = 0;

	for (n = 0; n < SLOTS_MAX; n++) {
		/* disabled: a slot is reserved at creation all the same */
		fds[n] = usdtkit__hwbp_open(addr + (uint64_t)n * 4, len, 0,
					    USDTKIT__HWBP_DISABLED);
		if (fds[n] < 0) {
			err = fds[n];
			break;
		}
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
	return n ? n : (err == -ENOSPC ? 0 : err);
}

static int counter_map(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 8, 1, NULL);

	return fd < 0 ? -errno : fd;
}

/* *(u64 *)lookup(@map, 0) += 1; return 0 (no atomics: arm32's JIT
 * lacks them, and one child thread runs it) */
static int counter_prog(int map)
{
	struct bpf_insn p[] = {
		{ .code = BPF_ST | BPF_MEM | BPF_W, .dst_reg = BPF_REG_10, .off = -4 },
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = BPF_REG_1,
		  .src_reg = BPF_PSEUDO_MAP_FD, .imm = map },
		{ 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_2,
		  .src_reg = BPF_REG_10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_2, .imm = -4 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_lookup_elem },
		{ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = BPF_REG_0, .off = 3 },
		{ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_1,
		  .src_reg = BPF_REG_0 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_0,
		  .src_reg = BPF_REG_1 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_PERF_EVENT, NULL, "GPL", p,
			       sizeof(p) / sizeof(p[0]), NULL);

	return fd < 0 ? -errno : fd;
}

/* The child: runs the target twice once told to, and exits. */
static pid_t start_child(int *go)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		pid = -errno;
		close(p[0]);
		close(p[1]);
		return pid;
	}
	if (!pid) {
		close(p[1]);
		if (read(p[0], &c, 1) == 1) {
			hwbp_target();
			hwbp_target();
		}
		_exit(0);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

/* Has @pid exited within WAIT_MS? It is reaped either way. */
static bool child_exits(pid_t pid)
{
	struct timespec ms = { 0, 1000000 };
	int i, st;

	for (i = 0; i < WAIT_MS; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return true;
		nanosleep(&ms, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return false;
}

/* "this aarch64 kernel (Linux 6.1.0-...)", for every answer */
static void name_kernel(void)
{
	struct utsname u;

	if (uname(&u))
		snprintf(caps.kernel, sizeof(caps.kernel), "this kernel");
	else
		snprintf(caps.kernel, sizeof(caps.kernel), "this %s kernel (Linux %s)",
			 u.machine, u.release);
}

/* Run the child under a breakpoint with the counter; caps.err and
 * caps.why say what failed. */
static void try_child(uint64_t addr, int len, int prog)
{
	int go = -1, pfd, link_fd = -1, err;
	bool exited;
	pid_t pid = start_child(&go);

	if (pid < 0) {
		caps.err = pid;
		snprintf(caps.why, sizeof(caps.why), "fork: %s", strerror(-pid));
		return;
	}
	pfd = usdtkit__hwbp_open(addr, len, pid, USDTKIT__HWBP_INHERIT |
				 USDTKIT__HWBP_THREADS | USDTKIT__HWBP_REMOVE_ON_EXEC);
	if (pfd == -EINVAL && usdtkit__hwbp_open(addr, len, pid, 0) >= 0) {
		caps.err = -EOPNOTSUPP;
		snprintf(caps.why, sizeof(caps.why), "%s has no perf inherit_thread "
			 "and remove_on_exec (Linux 5.13)", caps.kernel);
	} else if (pfd < 0) {
		caps.err = pfd == -ENOENT || pfd == -EINVAL ? -EOPNOTSUPP : pfd;
		snprintf(caps.why, sizeof(caps.why), "%s takes no hardware "
			 "breakpoint: %s", caps.kernel, strerror(-pfd));
	} else if ((err = usdtkit__perf_bind(prog, pfd, 0, false, &link_fd))) {
		caps.err = err;
		snprintf(caps.why, sizeof(caps.why), "%s runs no BPF program on a "
			 "hardware breakpoint: %s", caps.kernel, strerror(-err));
	}
	if (caps.err) {
		close(go);	/* EOF: the child exits without running */
		waitpid(pid, &err, 0);
		if (pfd >= 0)
			close(pfd);
		return;
	}
	if (write(go, "g", 1) != 1)
		caps.err = -errno;
	close(go);
	exited = child_exits(pid);
	if (link_fd >= 0)
		close(link_fd);
	close(pfd);
	if (!exited) {
		caps.err = -EOPNOTSUPP;
		snprintf(caps.why, sizeof(caps.why), "%s does not step over a "
			 "hardware breakpoint whose BPF program ran: the process "
			 "would stop there for good (Linux 6.6 steps, and stable "
			 "kernels that took the fix; a 32-bit arm kernel under "
			 "qemu cannot)", caps.kernel);
	}
}

static void probe(void)
{
	uintptr_t fn = (uintptr_t)hwbp_target;
	uint64_t addr = fn & ~(uintptr_t)1, runs = 0;
	int len = usdtkit__hwbp_len(fn & 1);
	int map, prog;

	name_kernel();
	caps.slots = count_slots(addr, len);
	if (caps.slots < 0) {
		caps.err = caps.slots == -ENOENT || caps.slots == -EINVAL ?
			   -EOPNOTSUPP : caps.slots;
		snprintf(caps.why, sizeof(caps.why), "%s takes no hardware "
			 "breakpoint: %s", caps.kernel, strerror(-caps.slots));
		caps.slots = 0;
		return;
	}
	if (!caps.slots) {
		caps.err = -ENOSPC;
		snprintf(caps.why, sizeof(caps.why), "%s has no hardware "
			 "breakpoint register free", caps.kernel);
		return;
	}
	map = counter_map();
	prog = map < 0 ? map : counter_prog(map);
	if (prog < 0) {
		caps.err = prog;
		snprintf(caps.why, sizeof(caps.why), "a BPF program for a "
			 "breakpoint does not load: %s", strerror(-prog));
	} else {
		try_child(addr, len, prog);
		close(prog);
	}
	if (!caps.err && bpf_map_lookup_elem(map, &(int){ 0 }, &runs))
		caps.err = -errno;
	if (!caps.err && !runs) {
		caps.err = -EOPNOTSUPP;
		snprintf(caps.why, sizeof(caps.why), "hardware breakpoints never fire "
			 "under %s: a hypervisor that does not pass the CPU's debug "
			 "registers through?", caps.kernel);
	} else if (!caps.err && runs != 2) {
		/* the step over the first hit never re-armed it: a 32-bit
		 * arm kernel steps with a mismatch breakpoint, which qemu
		 * does not implement */
		caps.err = -EOPNOTSUPP;
		snprintf(caps.why, sizeof(caps.why), "a hardware breakpoint fires once "
			 "under %s, then no more: the kernel's step over it does not "
			 "come back (qemu lacks the mismatch breakpoints a 32-bit arm "
			 "kernel steps with)", caps.kernel);
	}
	if (map >= 0)
		close(map);
}

const struct usdtkit__hwbp_caps *usdtkit__hwbp_caps(void)
{
	pthread_once(&caps_once, probe);
	return &caps;
}
