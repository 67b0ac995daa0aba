// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The running kernel's version (base/kernel.h). */
#include <stdio.h>
#include <sys/utsname.h>

#include "base/kernel.h"

bool usdtkit__kernel_at_least(int major, int minor)
{
	struct utsname u;
	int a = 0, b = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &a, &b) != 2)
		return false;
	return a > major || (a == major && b >= minor);
}
