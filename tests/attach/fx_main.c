// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Attach-test fixture: prints "ready", then for each number N read from
 * stdin fires N rounds of its probes (and, with argument "lib", those of
 * libfxlib.so) and prints "done". Built as PIE and non-PIE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROV fx
#include "fx_probes.h"
#include "fx_serve.h"

void fxlib_fire(int r);
void fx_sema_fire(int r);

static int use_lib;

static void round_all(long r)
{
	fx_fire_round(r);
	fx_sema_fire(r);
	if (use_lib)
		fxlib_fire(r);
}

int main(int argc, char **argv)
{
	use_lib = argc > 1 && !strcmp(argv[1], "lib");
	return fx_serve(round_all);
}
