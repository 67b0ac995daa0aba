// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* usdtkit__kernel_at_least() against this machine's own uname(). */
#include <stdio.h>
#include <sys/utsname.h>

#include "base/kernel.h"
#include "check.h"

int main(void)
{
	struct utsname u;
	int a = 0, b = 0;

	CHECK(!uname(&u) && sscanf(u.release, "%d.%d", &a, &b) == 2, "uname %s", u.release);
	CHECK(usdtkit__kernel_at_least(a, b), "%d.%d is at least itself", a, b);
	CHECK(!usdtkit__kernel_at_least(a, b + 1), "%d.%d is not %d.%d", a, b, a, b + 1);
	CHECK(!usdtkit__kernel_at_least(a + 1, 0), "%d.%d is not %d.0", a, b, a + 1);
	CHECK(usdtkit__kernel_at_least(a - 1, 99), "%d.%d is past %d.99", a, b, a - 1);
	CHECK(usdtkit__kernel_at_least(0, 0), "any is at least 0.0");
	return check_done();
}
