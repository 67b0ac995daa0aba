/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* usdtkit trace as a service: its arguments from a file
 * (trace_args_file.c), and probes attached again to the files a package
 * upgrade replaces (trace_refresh.c). */
#ifndef USDTKIT_CLI_TRACE_FLEET_H
#define USDTKIT_CLI_TRACE_FLEET_H

#include <stdbool.h>
#include <stdint.h>

#include "trace.h"

/* the option's key: apart from trace_opts.h's enum, which grows too */
#define OPT_ARGS_FILE 0x1000

/*
 * `usdtkit trace --args-file FILE ...`: is the option first (elsewhere,
 * it is a usage error of the parser)? Then @run (cmd_trace()) with
 * FILE's lines in its place; its exit code.
 */
bool trace_args_file_first(int argc, char **argv);
int trace_args_file_run(int argc, char **argv, int (*run)(int argc, char **argv));

/* Every TRACE_REFRESH_NS, files replaced under PATH targets (*@next:
 * when next; 0 at the start). */
void trace_refresh_tick(struct tracer *t, uint64_t now, uint64_t *next);

#endif
