// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The "follow" scenario's workload (tests/vm/guest.sh): a host that
 * loads its plugin late, as runtimes load their modules. Nothing of the
 * plugin (vm_follow_lib.c) is mapped until the host dlopen()s it, so a
 * trace that starts first has its probes nowhere yet: they wait, and
 * must be attached before the first hit (trace/follow.c).
 * usage: vm_follow PLUGIN N K [DIR]
 *   N rounds: dlopen(PLUGIN) (its constructor fires follow:init before
 *   dlopen() returns), follow:fire(round * 10 + k) for k < K the moment
 *   it returns, dlclose(PLUGIN): N init and N * K fire hits, in that
 *   order, the plugin unmapped and mapped again each round.
 *   DIR: first "pid N" in DIR/info, then DIR/go awaited (120 s at most),
 *   so that a trace by -p attaches before the plugin is loaded.
 * At the end, on stderr: "vm_follow: done N" (fire hits made).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "vm_go.h"

int main(int argc, char **argv)
{
	int r, k, nr, nk, n = 0;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: vm_follow PLUGIN N K [DIR]\n");
		return 2;
	}
	nr = atoi(argv[2]);
	nk = atoi(argv[3]);
	if (argc == 5 && vm_wait_go(argv[4]))
		return 1;
	for (r = 0; r < nr; r++) {
		void (*fire)(int);
		void *h;

		h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "vm_follow: %s\n", dlerror());
			return 1;
		}
		*(void **)&fire = dlsym(h, "vm_follow_fire");
		if (!fire)
			return 1;
		for (k = 0; k < nk; k++, n++)
			fire(r * 10 + k);
		dlclose(h);
	}
	fprintf(stderr, "vm_follow: done %d\n", n);
	return 0;
}
