// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Binding a program to an open perf event, shared by the perf-event
 * backends (perf.c, ipmap.c) and the hardware breakpoints (hwbp.c,
 * hwbp_probe.c). A file of its own because the breakpoint self-test runs
 * from the feature probe, below the manager that perf.c calls.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach/backend.h"

/*
 * Bind the program to the event. Kernels before 5.15 have no perf links
 * (and no cookies): there, IPMAP, INST and HWBP attach the old way and
 * the event itself holds the program (*@link_fd stays -1), enabled now
 * when @enable (not an event that an exec is to arm).
 */
int usdtkit__perf_bind(int prog_fd, int pfd, uint64_t cookie, bool enable, int *link_fd)
{
	LIBBPF_OPTS(bpf_link_create_opts, o, .perf_event.bpf_cookie = cookie);
	int fd = bpf_link_create(prog_fd, pfd, BPF_PERF_EVENT, &o);

	*link_fd = -1;
	if (fd >= 0) {
		*link_fd = fd;
		return 0;
	}
	fd = -errno;
	if (cookie || fd != -EINVAL)
		return fd;
	if (ioctl(pfd, PERF_EVENT_IOC_SET_BPF, prog_fd) ||
	    (enable && ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0)))
		return -errno;
	return 0;
}
