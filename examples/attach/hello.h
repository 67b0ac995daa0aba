/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One event per hit of hello:greet, as hello.bpf.c sends it through the
 * ring buffer and hello_attach.c reads it: shared by both sides, so only
 * fixed-width types, and padding spelled out (a BPF program and the host
 * must agree on every offset).
 */
#ifndef HELLO_H
#define HELLO_H

#include <linux/types.h>

#define HELLO_WHO_LEN 16

struct hello_event {
	__u64 cookie;		/* what the host passed to usdtkit_attach() */
	__s64 value;		/* argument 1 */
	__u32 pid;
	__u32 seq;		/* argument 0 */
	__s32 nargs;		/* arguments of the site, or a negative errno */
	__s32 err;		/* reading argument 2: 0 or a negative errno */
	char who[HELLO_WHO_LEN]; /* argument 2: the string it points to */
};

#endif /* HELLO_H */
