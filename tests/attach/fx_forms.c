// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * x86-64, non-PIE: one probe whose arguments are written by hand to cover
 * every location form the BPF side reads: high-byte and narrow register
 * views, base + index * scale, index * scale + absolute symbol, %rip-
 * relative and absolute symbols, a constant and a displaced base.
 * Prints "ready"; for each number N on stdin fires rounds and prints "done".
 */
#include <sys/sdt.h>

#include "fx_serve.h"

#include "fx_forms.h"

long fx_val;
int fx_arr32[4];
short fx_arr16[4];

void fx_forms(long r);

/* r in %rdi: %rax = r << 8 | 0x7f (so %ah = r, %al = 0x7f),
 * %rcx = fx_arr32, %rsi = r & 3 */
__asm__(".text\n"
	".globl fx_forms\n"
	".type fx_forms, @function\n"
	"fx_forms:\n"
	"	movq %rdi, %rax\n"
	"	shlq $8, %rax\n"
	"	orq $0x7f, %rax\n"
	"	movl $fx_arr32, %ecx\n"
	"	movq %rdi, %rsi\n"
	"	andq $3, %rsi\n"
	STAP_PROBE_ASM(fxforms, all,
		       -1@%ah 1@%al -2@%ax -8@%rdi -4@(%rcx,%rsi,4)
		       -2@fx_arr16(,%rsi,2) -8@fx_val(%rip) -8@fx_val -4@$-5
		       8@8(%rcx))
	/* an index register alone: what libbpf's usdt.bpf.h cannot read */
	STAP_PROBE_ASM(fxforms, sib, -4@(%rcx,%rsi,4))
	"	ret\n"
	".size fx_forms, .-fx_forms\n");

static void forms_round(long r)
{
	fx_forms_set(r, &fx_val, fx_arr32, fx_arr16);
	fx_forms(r);
}

int main(void)
{
	return fx_serve(forms_round);
}
