/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A minimal test harness: CHECK() counts, failures print where and why,
 * and check_done() prints "N passed, M failed" and gives the exit code.
 * Header-only, one test program per file, so nothing here is shared state.
 */
#ifndef USDTKIT_TESTS_CHECK_H
#define USDTKIT_TESTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usdtkit/usdtkit.h>

/* UK_TEST_ASAN: built with AddressSanitizer, by gcc (which says so with
 * __SANITIZE_ADDRESS__) or clang (which answers __has_feature only) */
#if defined(__SANITIZE_ADDRESS__)
#define UK_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UK_TEST_ASAN 1
#endif
#endif

static int check_passed, check_failed;

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		if (cond) {                                                  \
			check_passed++;                                      \
		} else {                                                     \
			check_failed++;                                      \
			fprintf(stderr, "%s:%d: FAIL (%s): ", __FILE__,      \
				__LINE__, #cond);                            \
			fprintf(stderr, __VA_ARGS__);                        \
			fputc('\n', stderr);                                 \
		}                                                            \
	} while (0)

static inline int check_done(void)
{
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed || !check_passed ? 1 : 0;
}

/* The status message of a symbol-relative argument before resolution. */
#define UNRES "symbol-relative: needs the ELF symbol table"

/* Parse the single-argument @spec for @arch_name into @arg. */
static inline int parse_arg(const char *arch_name, const char *spec,
			    struct usdtkit_arg *arg)
{
	return usdtkit_args_parse(usdtkit_arch_by_name(arch_name), spec,
				  strlen(spec), arg, 1);
}

/* Parse @spec for @arch and render every argument with
 * usdtkit_arg_snprintf(), joined by " | ". Returns the argument count. */
static inline int render_spec(const char *arch_name, const char *spec,
			      char *out, size_t outsz)
{
	const struct usdtkit_arch *arch = usdtkit_arch_by_name(arch_name);
	struct usdtkit_arg args[64];
	size_t used = 0;
	int n, i;

	out[0] = 0;
	if (!arch)
		return -1;
	n = usdtkit_args_parse(arch, spec, strlen(spec), args, 64);
	for (i = 0; i < n && i < 64; i++) {
		if (i && used + 3 < outsz) {
			strcpy(out + used, " | ");
			used += 3;
		}
		if (used < outsz)
			used += (size_t)usdtkit_arg_snprintf(out + used,
				outsz - used, arch, spec, &args[i]);
	}
	return n;
}

/* Expect @spec on @arch to render exactly as @want. */
#define EXPECT_SPEC(arch, spec, want)                                        \
	do {                                                                 \
		char got_[2048];                                             \
		render_spec(arch, spec, got_, sizeof(got_));                 \
		CHECK(strcmp(got_, want) == 0, "%s %s\n   got: %s\n  want: %s", \
		      arch, spec, got_, want);                               \
	} while (0)

#endif
