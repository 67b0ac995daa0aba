/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * USDTKIT_OPTS(): how every options struct of usdtkit is declared.
 *
 * Options structs start with their own size (sz). The library reads the
 * fields it knows and refuses (-EINVAL) a non-zero byte past its last
 * one, since that byte may be a field of a newer header it does not have.
 * So the bytes past the last field, padding included, must be zero. An
 * initializer such as `struct usdtkit_open_opts o = { .sz = sizeof(o) }`
 * zeroes the fields but C leaves the padding unspecified: gcc happens to
 * clear it, clang at -O0 does not, and the call then fails with EINVAL
 * depending on what the stack held. The macro zeroes the whole object
 * first, as libbpf's LIBBPF_OPTS does:
 *
 *	USDTKIT_OPTS(usdtkit_open_opts, o, .print = my_print);
 *
 * or, with no field given, a memset of its own:
 *
 *	struct usdtkit_open_opts o;
 *	memset(&o, 0, sizeof(o));
 *	o.sz = sizeof(o);
 *
 * C++: the macro works with g++ and clang++ (it uses GNU statement
 * expressions and compound literals, which both take in C++). Designated
 * initializers are C++20 and must follow the fields' declared order; a
 * C++17 caller declares the struct with no field and assigns after:
 *
 *	USDTKIT_OPTS(usdtkit_trace_opts, o);
 *	o.pid = pid;
 */
#ifndef USDTKIT_OPTS_H
#define USDTKIT_OPTS_H

#if defined(__cplusplus) && defined(__GNUC__)
/*
 * g++ warns (-Wmissing-field-initializers) about every designated
 * initializer that leaves a field out, which is what the macro is for;
 * the warning is reported where the macro was defined, so a system header
 * keeps a caller's -Wextra -Werror build quiet. C compilers do not warn.
 */
#pragma GCC system_header
#endif

#include <string.h>

#define USDTKIT_OPTS(TYPE, NAME, ...)                                         \
	struct TYPE NAME = ({                                                  \
		memset(&NAME, 0, sizeof(struct TYPE));                         \
		(struct TYPE){                                                 \
			.sz = sizeof(struct TYPE),                             \
			__VA_ARGS__                                            \
		};                                                             \
	})

#endif
