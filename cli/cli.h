/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef USDTKIT_CLI_CLI_H
#define USDTKIT_CLI_CLI_H

#include <stdio.h>

#include <usdtkit/usdtkit.h>

#include "opts.h"

/* Exit codes shared by every subcommand. */
#define EXIT_OK 0
#define EXIT_BAD_INPUT 1
#define EXIT_USAGE 2
/* not an exit status: an option parser's "the help was printed" (exit 0) */
#define EXIT_HELP 3

int cmd_parse(int argc, char **argv);
int cmd_list(int argc, char **argv);
#ifdef USDTKIT_CLI_TRACE
int cmd_trace(int argc, char **argv);
int cmd_features(int argc, char **argv);
#endif

/*
 * Parse @spec into a growing array: returns the argument count and sets
 * *@args (caller frees), or a negative errno.
 */
int parse_all_args(const struct usdtkit_arch *arch, const char *spec,
		   size_t len, struct usdtkit_arg **args);

#endif
