/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Run an attach-test fixture as a child and drive it through pipes. */
#ifndef FX_RUN_H
#define FX_RUN_H

#include <stdio.h>
#include <sys/types.h>

struct fx_proc {
	pid_t pid;
	FILE *in;	/* its stdin */
	FILE *out;	/* its stdout */
};

/*
 * Start @path (with "lib" when @lib) and wait for "ready"; 0 or -errno:
 * -ENOEXEC when this kernel cannot run it (through fx_exec beside it).
 */
int fx_start(struct fx_proc *p, const char *path, int lib);
/* Fire @rounds rounds and wait until they are done; 0 or -errno. */
int fx_fire(struct fx_proc *p, int rounds);
/* Close its stdin and reap it. */
void fx_stop(struct fx_proc *p);

#endif
