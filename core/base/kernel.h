/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The running kernel's version, where no feature probe can tell. */
#ifndef USDTKIT_BASE_KERNEL_H
#define USDTKIT_BASE_KERNEL_H

#include <stdbool.h>

/* Whether uname()'s release is @major.@minor or later (false when it
 * cannot be read). */
bool usdtkit__kernel_at_least(int major, int minor);

#endif
