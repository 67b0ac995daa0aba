/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The print callbacks of the benches that drive libbpf and usdtkit side
 * by side (attach_bench.c, hit_bench.c): libbpf's messages and usdtkit's
 * info lines only with -v, usdtkit's warnings always (a run that loses
 * a probe says why). Header only: each bench is one program. */
#ifndef USDTKIT_BENCH_PRINT_H
#define USDTKIT_BENCH_PRINT_H

#include <stdarg.h>
#include <stdio.h>

#include <bpf/libbpf.h>
#include <usdtkit/usdtkit.h>

/* set by the bench's -v */
static int verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void uk_print(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	(void)ctx;
	if (verbose || level == USDTKIT_LOG_WARN)
		fprintf(stderr, "usdtkit: %s\n", msg);
}

#endif
