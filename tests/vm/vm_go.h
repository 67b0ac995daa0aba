/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A VM workload's start (tests/vm/guest.sh): "pid N" written to
 * DIR/info, for the guest to trace that pid, then DIR/go awaited (120 s
 * at most) before the first hit. Header only: each workload is its own
 * cross-built program.
 */
#ifndef USDTKIT_VM_GO_H
#define USDTKIT_VM_GO_H

#include <stdio.h>
#include <unistd.h>

/* 0, or 1 when DIR/info cannot be written */
static inline int vm_wait_go(const char *dir)
{
	char path[256];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/info", dir);
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "pid %d\n", (int)getpid());
	fclose(f);
	snprintf(path, sizeof(path), "%s/go", dir);
	for (n = 0; n < 12000 && access(path, F_OK); n++)
		usleep(10000);
	return 0;
}

#endif
