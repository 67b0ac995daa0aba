// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * LD_PRELOAD shim: a kernel built without CONFIG_NET, as far as BPF goes.
 * Such a kernel has no BPF_PROG_TYPE_SOCKET_FILTER (a bpf(BPF_PROG_LOAD)
 * of one fails with EINVAL: libbpf's probes of what the kernel supports
 * load exactly those) and no /proc/sys/net (open fails with ENOENT: that
 * is how usdtkit_features() tells). Everything else goes to the kernel
 * (tests/cli_trace_noringbuf.sh runs the CLI under it too).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "shim_syscall.h"

typedef int (*open_fn)(const char *, int, ...);
typedef FILE *(*fopen_fn)(const char *, const char *);

static int refuse(long cmd, const union bpf_attr *attr)
{
	return cmd == BPF_PROG_LOAD &&
	       attr->prog_type == BPF_PROG_TYPE_SOCKET_FILTER;
}

static int no_net_path(const char *path)
{
	return path && !strncmp(path, "/proc/sys/net", 13);
}

int open(const char *path, int flags, ...)
{
	static open_fn real;
	va_list ap;
	int mode;

	va_start(ap, flags);
	mode = va_arg(ap, int);
	va_end(ap);
	if (no_net_path(path)) {
		errno = ENOENT;
		return -1;
	}
	if (!real)
		real = (open_fn)dlsym(RTLD_NEXT, "open");
	return real(path, flags, mode);
}

FILE *fopen(const char *path, const char *how)
{
	static fopen_fn real;

	if (no_net_path(path)) {
		errno = ENOENT;
		return NULL;
	}
	if (!real)
		real = (fopen_fn)dlsym(RTLD_NEXT, "fopen");
	return real(path, how);
}
