// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* For fixtures linked without libfxlib.so: "lib" mode is never used. */
void fxlib_fire(int r)
{
	(void)r;
}
