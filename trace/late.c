// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Strings read after the hit. A uprobe program reads user memory with
 * page faults disabled, so a string on a page the process has not
 * touched yet (a literal on a .rodata page nothing read, an anonymous
 * page swapped out) faults there as a bad pointer does. Where the kernel
 * cannot fault it in at the hit (no sleepable uprobes: before Linux 6.0,
 * uprobe_multi before 6.6, or opts.no_fault_in), the engine reads it
 * here, from /proc/PID/mem, when it reads the event: exact for a
 * read-only page (a literal), maybe changed since for a writable one,
 * and impossible once the process has exited. What was read here is
 * marked as such (str_late, filter_undecided, key late/unread).
 */
/* pread() at an address above 2 GiB from a 32-bit build */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/internal.h"

#define PAGE 4096ul

/* /proc/PID/mem, where pread() faults pages in as the process would */
static int open_mem(int pid)
{
	char path[32];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

long usdtkit__late_read(int pid, uint64_t addr, char *buf, size_t size)
{
	size_t got = 0, want;
	char *nul;
	ssize_t n;
	int fd;

	/* NULL and the first page are never mapped: a bad pointer, as in
	 * the kernel; so is a string that would wrap around */
	if (addr < PAGE || !size || addr + size < addr || pid <= 0)
		return -EFAULT;
	fd = open_mem(pid);
	if (fd < 0)
		return fd == -ENOENT ? -ESRCH : fd;
	/* a page at a time: a string that ends before an unmapped page
	 * is read whole */
	while (got < size - 1) {
		want = PAGE - ((addr + got) & (PAGE - 1));
		if (want > size - 1 - got)
			want = size - 1 - got;
		n = pread(fd, buf + got, want, (off_t)(addr + got));
		if (n == 0) {
			/* its memory is gone: it exited since the open, maybe
			 * between two pages of this string (an unmapped page
			 * is -EIO, not 0): unread, not a bad pointer */
			close(fd);
			return -ESRCH;
		}
		if (n <= 0)
			break;
		nul = memchr(buf + got, 0, (size_t)n);
		if (nul) {
			close(fd);
			return nul - buf + 1;
		}
		got += (size_t)n;
	}
	close(fd);
	if (got < size - 1)
		return -EFAULT;	/* unmapped before its NUL, as the kernel says */
	buf[size - 1] = 0;
	return (long)size;
}

/*
 * The filter interpreter of the BPF program, run here on an event: its
 * string reads are late reads of the hit's process (h->pid, which the
 * event has, as the includer's macros may use). One that fails because
 * the process is gone (ESRCH) is unknown; one on an unmapped address is
 * a bad pointer, a mismatch as in the kernel.
 */
#define USDTKIT_FILTER_INLINE static inline
#define USDTKIT_FILTER_READ_STR(dst, size, ptr) \
	usdtkit__late_read((int)h->pid, ptr, dst, size)
#define USDTKIT_FILTER_UNDECIDED(n, ptr) ((n) == -ESRCH)
#include "trace/bpf/trace_filter_run.h"

int usdtkit__late_filter(struct usdtkit_trace *t, size_t probe,
			 const struct usdtkit_trace_event *e, bool *undecided)
{
	struct usdtkit_filter_hit h;
	int keep;

	*undecided = false;
	if (!t->agg.cfgs || probe >= t->nprobes)
		return 1;
	memset(&h, 0, sizeof(h));
	memcpy(h.args, e->args, sizeof(h.args));
	h.pid = e->pid;
	h.tid = e->tid;
	keep = usdtkit_filter_run_cold(&t->agg.cfgs[probe].filter, &h);
	*undecided = h.undecided;
	return keep;
}

void usdtkit__late_free(struct usdtkit_trace *t)
{
	size_t i;

	for (i = 0; i < MAX_ARGS; i++) {
		free(t->late_buf[i]);
		t->late_buf[i] = NULL;
	}
}
