/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The syscall() of the LD_PRELOAD shims in this folder: libbpf and
 * libusdtkit issue bpf(2) through libc's syscall(), so a dynamically
 * linked usdtkit goes through this one. A call the shim's refuse() names
 * fails with EINVAL, as on the kernel the shim plays; every other goes
 * to the kernel unchanged. Include once, after defining refuse().
 */
#ifndef USDTKIT_TESTS_SHIM_SYSCALL_H
#define USDTKIT_TESTS_SHIM_SYSCALL_H

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

typedef long (*syscall_fn)(long, ...);

/* the bpf(2) command @cmd with attributes @attr: refused? */
static int refuse(long cmd, const union bpf_attr *attr);

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
	if (nr == __NR_bpf && a[1] && refuse(a[0], (const union bpf_attr *)a[1])) {
		errno = EINVAL;
		return -1;
	}
	if (!real)
		real = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

#endif
