// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The three libraries of tests/needed/fx_needed.c, one source: built with
 * -DLIB=a, b or c, each fires fxn:LIB(i) in fxn_LIB(i); a calls c.
 */
#include <sys/sdt.h>

#define CAT(x, y) x##y
#define FN(l) CAT(fxn_, l)

#ifdef CALLS_C
void fxn_c(int i);
#endif

void FN(LIB)(int i)
{
	DTRACE_PROBE1(fxn, LIB, i);
#ifdef CALLS_C
	fxn_c(i);
#endif
}
