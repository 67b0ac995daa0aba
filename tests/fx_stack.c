// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The process of tests/test_ustack.c, built as a PIE with
 * -fno-omit-frame-pointer: main -> fx_stack_a -> fx_stack_b -> fx_stack_c,
 * each called from the middle of its caller. fx_stack_c walks its own
 * frame-pointer chain and says, for each frame, the function it returns
 * into, the return address and its offset from that function's start
 * (the function's address as the program sees it), then more addresses
 * the test names: the functions' starts, an address in an anonymous
 * executable mapping, one on the stack (in no executable mapping). The
 * probe fxstack:hit (a string and an int) fires in fx_stack_c after
 * its frame is set up, for a trace of the whole stack. Then commands
 * on stdin, each answered:
 *   dlopen LIB  load LIB, say "lib fx_stack_lib ADDR" (its function)
 *   hit N       fire the probe N times through the whole chain, "ok"
 * and it exits at the end of stdin.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sdt.h>

#define NOINLINE __attribute__((noinline))

void fx_stack_a(int n);
void fx_stack_b(int n);
void fx_stack_c(int n);
int main(void);

static int walked;

static void say(const char *name, uintptr_t addr, uintptr_t fn)
{
	printf("%s %#jx %#jx\n", name, (uintmax_t)addr, (uintmax_t)(addr - fn));
}

/* The return addresses of the frame chain from fx_stack_c's own frame:
 * fx_stack_b's, fx_stack_a's, main's. */
static void walk(void **fp)
{
	static const struct { const char *name; void (*fn)(int); } up[] = {
		{ "fx_stack_b", fx_stack_b }, { "fx_stack_a", fx_stack_a },
	};
	size_t i;

	for (i = 0; i < 2; i++, fp = fp[0])
		say(up[i].name, (uintptr_t)fp[1], (uintptr_t)up[i].fn);
	say("main", (uintptr_t)fp[1], (uintptr_t)main);
}

NOINLINE void fx_stack_c(int n)
{
	volatile int here = n;

	DTRACE_PROBE2(fxstack, hit, "fx_stack_c", here);
	if (!walked++)
		walk(__builtin_frame_address(0));
	__asm__ __volatile__("" ::: "memory");
}

NOINLINE void fx_stack_b(int n)
{
	fx_stack_c(n + 1);
	__asm__ __volatile__("" ::: "memory");
}

NOINLINE void fx_stack_a(int n)
{
	fx_stack_b(n + 1);
	__asm__ __volatile__("" ::: "memory");
}

int main(void)
{
	char line[4200];
	void *anon = mmap(NULL, 4096, PROT_READ | PROT_EXEC,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int on_stack = 0;

	fx_stack_a(0);
	say("start_a", (uintptr_t)fx_stack_a, (uintptr_t)fx_stack_a);
	say("start_b", (uintptr_t)fx_stack_b, (uintptr_t)fx_stack_b);
	say("start_c", (uintptr_t)fx_stack_c, (uintptr_t)fx_stack_c);
	printf("anon %#jx\n", (uintmax_t)(uintptr_t)anon + 16);
	printf("stack %#jx\n", (uintmax_t)(uintptr_t)&on_stack);
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		int n;

		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "dlopen ", 7)) {
			void *h = dlopen(line + 7, RTLD_NOW);
			void *f = h ? dlsym(h, "fx_stack_lib") : NULL;

			printf("lib fx_stack_lib %#jx\n", (uintmax_t)(uintptr_t)f);
		} else if (sscanf(line, "hit %d", &n) == 1) {
			while (n-- > 0)
				fx_stack_a(n);
			printf("ok\n");
		}
		fflush(stdout);
	}
	return 0;
}
