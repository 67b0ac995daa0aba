// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The attach-test fixture's shared library: provider fxlib. */
#define PROV fxlib
#include "fx_probes.h"

void fxlib_fire(int r)
{
	fx_fire_round(r);
}
