// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The library's own version, which may differ from the USDTKIT_VERSION a
 * program was compiled against (a newer libusdtkit.so.0 under an older
 * program): the string is baked in here, not taken from the caller.
 */
#include <usdtkit/usdtkit.h>

const char *usdtkit_version_string(void)
{
	return USDTKIT_VERSION;
}
