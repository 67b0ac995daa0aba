// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * x86-64 nop5 fixture: a leaf function keeps two values in the red zone
 * (below %rsp, where a leaf may write without moving %rsp) across a
 * "nop; nop5" probe site, then returns their sum. Any write below %rsp
 * during the probe (an optimized uprobe's call pushes a return address
 * there) shows up as a wrong sum.
 *
 * Prints "ready"; for each number N on stdin runs N calls and prints
 * "done CORRUPT NS_PER_CALL".
 */
#include <sys/sdt.h>

#include "fx_loop.h"

long fx_redzone(long r);

/* r in %rdi; -8(%rsp) = r, -16(%rsp) = r + 1; returns 2r + 1 when the
 * red zone survived the probe */
__asm__(".text\n"
	".globl fx_redzone\n"
	".type fx_redzone, @function\n"
	"fx_redzone:\n"
	"	movq %rdi, -8(%rsp)\n"
	"	leaq 1(%rdi), %rax\n"
	"	movq %rax, -16(%rsp)\n"
	STAP_PROBE_ASM(fxnop5, hit, -8@%rdi -8@-8(%rsp) -8@-16(%rsp))
	"	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	"	movq -8(%rsp), %rax\n"
	"	addq -16(%rsp), %rax\n"
	"	ret\n"
	".size fx_redzone, .-fx_redzone\n");

int main(void)
{
	return fx_loop(fx_redzone);
}
