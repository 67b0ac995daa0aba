// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Which long nop this kernel optimizes (x86-64): a uprobe on it is
 * turned into a call into a trampoline the kernel maps into the process
 * as [uprobes-trampoline]. Linux 6.18 does it on a nop5 (and its call
 * writes into the red zone, docs/ATTACH.md) and refuses a BPF uprobe on
 * a nop10 (ENOTSUPP); 7.x does it on a nop10. The uprobe syscall libbpf
 * probes for (uprobe_syscall) exists in both, so it cannot tell them
 * apart: this file asks the kernel by doing it. A child runs a
 * site of each kind twice (the first hit is a trap that optimizes it)
 * under a uprobe_multi link of a program that does nothing, and the
 * parent looks for the trampoline in the child's maps.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attach/internal.h"

#if defined(__x86_64__)

/* The two sites, with the bytes sys/sdt.h and libbpf's usdt.h emit after
 * their 1-byte nop: each function is the long nop and a ret. */
__asm__(".pushsection .text\n"
	".p2align 4\n"
	".globl usdtkit__opt_nop5\n"
	".hidden usdtkit__opt_nop5\n"
	".type usdtkit__opt_nop5, @function\n"
	"usdtkit__opt_nop5:\n"
	".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	"ret\n"
	".size usdtkit__opt_nop5, . - usdtkit__opt_nop5\n"
	".p2align 4\n"
	".globl usdtkit__opt_nop10\n"
	".hidden usdtkit__opt_nop10\n"
	".type usdtkit__opt_nop10, @function\n"
	"usdtkit__opt_nop10:\n"
	".byte 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00\n"
	"ret\n"
	".size usdtkit__opt_nop10, . - usdtkit__opt_nop10\n"
	".popsection\n");

void usdtkit__opt_nop5(void);
void usdtkit__opt_nop10(void);

/* The file and file offset of @addr in this process; 0 or -errno. */
static int file_of(const void *addr, char *path, size_t len, uint64_t *off)
{
	unsigned long long start, end, pgoff, a = (uintptr_t)addr;
	char line[4200];
	int err = -ENOENT;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		int n = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &start, &end,
			   &pgoff, &n) != 3 || !n || a < start || a >= end)
			continue;
		line[strcspn(line, "\n")] = 0;
		if (line[n] != '/' || strlen(line + n) >= len)
			break;
		strcpy(path, line + n);
		*off = a - start + pgoff;
		err = 0;
	}
	fclose(f);
	return err;
}

static bool maps_trampoline(pid_t pid)
{
	char path[32], line[512];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "[uprobes-trampoline]") != NULL;
	fclose(f);
	return found;
}

/*
 * The child: wait for the parent's byte, hit the site twice, say so,
 * wait to be looked at. Only recv, send and _exit after the fork: the
 * caller may have threads.
 */
static void child(void (*site)(void), int fd)
{
	char c;

	if (recv(fd, &c, 1, 0) == 1) {
		site();
		site();
		if (send(fd, &c, 1, MSG_NOSIGNAL) == 1)
			(void)!recv(fd, &c, 1, 0);
	}
	_exit(0);
}

/*
 * Does a uprobe on @site become a call? false on any doubt. A socket
 * pair, not pipes: MSG_NOSIGNAL, so a child that died raises no SIGPIPE
 * in the caller, and closing the child's end here makes our recv()
 * return 0 then.
 */
static bool optimized(void (*site)(void))
{
	int sv[2], prog, link = -1;
	char path[4096], c = 0;
	bool opt = false;
	uint64_t off;
	pid_t pid;

	if (file_of((const void *)site, path, sizeof(path), &off))
		return false;
	prog = usdtkit__noop_multi_prog();
	if (prog < 0)
		return false;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		close(prog);
		return false;
	}
	pid = fork();
	if (pid == 0)
		child(site, sv[1]);
	close(sv[1]);
	if (pid > 0) {
		link = usdtkit__sys_uprobe_multi(prog, path, &off, NULL, NULL, 1, pid);
		/* the child's reply means both hits are done */
		if (link >= 0 && send(sv[0], &c, 1, MSG_NOSIGNAL) == 1 &&
		    recv(sv[0], &c, 1, 0) == 1)
			opt = maps_trampoline(pid);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	if (link >= 0)
		close(link);
	close(prog);
	close(sv[0]);
	return opt;
}

void usdtkit__probe_uprobe_opt(struct usdtkit_features *f)
{
	f->uprobe_opt_nop5 = optimized(usdtkit__opt_nop5);
	f->uprobe_opt_nop10 = optimized(usdtkit__opt_nop10);
}

#else

void usdtkit__probe_uprobe_opt(struct usdtkit_features *f)
{
	f->uprobe_opt_nop5 = false;
	f->uprobe_opt_nop10 = false;
}

#endif
