// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The library tests/fx_stack.c dlopen()s: a function to name after. */
int fx_stack_lib(int n);

__attribute__((noinline)) int fx_stack_lib(int n)
{
	__asm__ __volatile__("" : "+r"(n));
	return n + 1;
}
