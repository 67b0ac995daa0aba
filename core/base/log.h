/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Diagnostics go to the caller's print callback, nowhere else. */
#ifndef USDTKIT_CORE_LOG_H
#define USDTKIT_CORE_LOG_H

#include <usdtkit/usdtkit.h>

struct usdtkit_log {
	usdtkit_print_fn print;
	void *ctx;
};

__attribute__((format(printf, 3, 4)))
void usdtkit__log(const struct usdtkit_log *lg, enum usdtkit_log_level level,
		  const char *fmt, ...);

#define usdtkit__warn(lg, ...) usdtkit__log(lg, USDTKIT_LOG_WARN, __VA_ARGS__)
#define usdtkit__info(lg, ...) usdtkit__log(lg, USDTKIT_LOG_INFO, __VA_ARGS__)
#define usdtkit__debug(lg, ...) usdtkit__log(lg, USDTKIT_LOG_DEBUG, __VA_ARGS__)

#endif
