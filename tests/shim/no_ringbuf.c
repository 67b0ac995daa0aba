// SPDX-License-Identifier: BSD-2-Clause
/*
 * LD_PRELOAD shim: a kernel from before Linux 5.8, as far as the ring
 * buffer goes. Every bpf(BPF_MAP_CREATE) of a BPF_MAP_TYPE_RINGBUF fails
 * with EINVAL, which is what such a kernel answers for a map type it does
 * not know; every other system call goes to the kernel unchanged. Both
 * libbpf and libusdtkit issue bpf(2) through libc's syscall(), so a
 * dynamically linked usdtkit sees no ring buffer anywhere, feature probe
 * and trace alike (tests/cli_trace_noringbuf.sh).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

typedef long (*syscall_fn)(long, ...);

long syscall(long nr, ...)
{
	static syscall_fn real;
	long a[6];
	va_list ap;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == __NR_bpf && a[0] == BPF_MAP_CREATE && a[1] &&
	    ((const union bpf_attr *)a[1])->map_type == BPF_MAP_TYPE_RINGBUF) {
		errno = EINVAL;
		return -1;
	}
	if (!real)
		real = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
