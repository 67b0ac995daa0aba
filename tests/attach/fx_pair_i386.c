// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * i386: a 64-bit argument in the register pair %edx:%eax ("-8@%eax", GCC's
 * pair order) and an 8-bit view of %edx, read by BPF from the x86-64
 * pt_regs of the kernel. Same protocol as fx_forms.
 */
#include <sys/sdt.h>

#include "fx_serve.h"

void fx_pair(long r);

/* cdecl: r at 4(%esp); %eax = r, %edx = ~r */
__asm__(".text\n"
	".globl fx_pair\n"
	".type fx_pair, @function\n"
	"fx_pair:\n"
	"	movl 4(%esp), %eax\n"
	"	movl %eax, %edx\n"
	"	notl %edx\n"
	STAP_PROBE_ASM(fxpair, all, -4@4(%esp) -8@%eax 1@%dl -4@%edx)
	"	ret\n"
	".size fx_pair, .-fx_pair\n");

int main(void)
{
	return fx_serve(fx_pair);
}
