/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Hardware breakpoints for mode hwbp: the events (hwbp_probe.c) and what
 * this machine can do with them, asked once (hwbp_probe.c). */
#ifndef USDTKIT_ATTACH_HWBP_H
#define USDTKIT_ATTACH_HWBP_H

#include <stdbool.h>
#include <stdint.h>

/* usdtkit__hwbp_open() flags: perf_event_attr bits */
#define USDTKIT__HWBP_INHERIT		0x1	/* new threads (and forks) get it */
#define USDTKIT__HWBP_THREADS		0x2	/* inherit_thread: threads only */
#define USDTKIT__HWBP_REMOVE_ON_EXEC	0x4	/* an exec drops it */
#define USDTKIT__HWBP_ENABLE_ON_EXEC	0x8	/* armed by the next exec */
#define USDTKIT__HWBP_DISABLED		0x10

struct usdtkit__hwbp_caps {
	int err;		/* 0: breakpoints fire, carry BPF and step */
	int slots;		/* breakpoint registers a thread can take */
	char why[480];		/* when err: the one line that says why */
	char kernel[160];	/* "this aarch64 kernel (Linux 7.3.0-...)" */
};

/* What this machine does, found by doing it once per process. */
const struct usdtkit__hwbp_caps *usdtkit__hwbp_caps(void);

/* The breakpoint length: 2 for Thumb, the kernel's long on x86-64,
 * else 4. */
int usdtkit__hwbp_len(bool thumb);

/* An execute breakpoint in thread @pid (0: this one); fd or -errno. */
int usdtkit__hwbp_open(uint64_t addr, int len, int pid, unsigned int flags);

#endif
