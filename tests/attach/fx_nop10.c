// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * x86-64 nop10 fixture: the site libbpf's newer usdt.h emits, "nop;
 * nop10", written by hand (sys/sdt.h's note, then the nop10's bytes), in
 * a leaf function that keeps two values in the red zone like fx_nop5.c,
 * plus an argument relative to %rip, which must be read right whether
 * the uprobe sits on the nop or on the nop10 (one byte later).
 *
 * Prints "ready"; for each number N on stdin runs N calls and prints
 * "done CORRUPT NS_PER_CALL".
 */
#include <sys/sdt.h>

#include "fx_loop.h"

long fx_nop10(long r);
long fx_glob;

/* r in %rdi; -8(%rsp) = r, -16(%rsp) = r + 1, fx_glob = r + 1000;
 * returns 2r + 1 when the red zone survived the probe */
__asm__(".text\n"
	".globl fx_nop10\n"
	".type fx_nop10, @function\n"
	"fx_nop10:\n"
	"	movq %rdi, -8(%rsp)\n"
	"	leaq 1(%rdi), %rax\n"
	"	movq %rax, -16(%rsp)\n"
	"	leaq 1000(%rdi), %rax\n"
	"	movq %rax, fx_glob(%rip)\n"
	STAP_PROBE_ASM(fxnop10, hit, -8@%rdi -8@-8(%rsp) -8@-16(%rsp) 8@fx_glob(%rip))
	"	.byte 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00\n"
	"	movq -8(%rsp), %rax\n"
	"	addq -16(%rsp), %rax\n"
	"	ret\n"
	".size fx_nop10, .-fx_nop10\n");

int main(void)
{
	return fx_loop(fx_nop10);
}
