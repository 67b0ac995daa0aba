/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the tests of <usdtkit/trace.h> alone (tests/trace/) share: the
 * library's last warning, kept for the checks' messages, and the start
 * of main(): the fixtures' directory argument, and the skip (77) on a
 * kernel, or in a process, without BPF. Header only, as check.h. */
#ifndef USDTKIT_TESTS_TRACE_TEST_H
#define USDTKIT_TESTS_TRACE_TEST_H

#include <stdio.h>
#include <string.h>

#include <usdtkit/trace.h>

/* (unused by a test with a print callback of its own) */
__attribute__((unused)) static char last_msg[512];

/* opts.print: the last warning into last_msg */
__attribute__((unused)) static void keep_msg(void *ctx, enum usdtkit_log_level level,
					     const char *msg)
{
	(void)ctx;
	if (level == USDTKIT_LOG_WARN)
		snprintf(last_msg, sizeof(last_msg), "%s", msg);
}

/* @argv as the trace's command, attached to @targets (NULL-ended) */
__attribute__((unused)) static int trace_test_cmd(struct usdtkit_trace *t, char **argv,
						  const char *const *targets)
{
	int err = usdtkit_trace_set_command(t, argv);

	for (; !err && *targets; targets++)
		err = usdtkit_trace_add(t, *targets);
	return err;
}

/* prepare, load, attach and let the command go: 0 or the first error */
__attribute__((unused)) static int trace_test_start(struct usdtkit_trace *t)
{
	int err = usdtkit_trace_prepare(t);

	if (!err)
		err = usdtkit_trace_load(t);
	if (!err)
		err = usdtkit_trace_attach(t);
	if (!err)
		err = usdtkit_trace_go(t);
	return err;
}

/* @path = DIR/@fixture (DIR: argv[1]); 0 to go on, else main's exit
 * status: 2 (usage), 77 (no BPF here, said on stdout) */
static inline int trace_test_begin(int argc, char **argv, const char *fixture,
				   char *path, size_t len)
{
	if (argc != 2 || snprintf(path, len, "%s/%s", argv[1], fixture) >= (int)len) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	if (!usdtkit_features()->bpf) {
		printf("SKIP: no BPF for this process (%s)\n",
		       strerror(-usdtkit_features()->bpf_err));
		return 77;
	}
	return 0;
}

#endif
