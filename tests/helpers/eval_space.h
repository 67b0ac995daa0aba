/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A fake target for the evaluator tests of the architecture folders: a
 * small memory window at MEM_BASE that read_mem serves (anything outside
 * it is -EFAULT, as an unmapped page would be), a writer of register and
 * memory images in either byte order, and "parse one spec, evaluate it".
 */
#ifndef USDTKIT_TESTS_EVAL_SPACE_H
#define USDTKIT_TESTS_EVAL_SPACE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <usdtkit/usdtkit.h>

#define MEM_BASE 0x2000ull

struct space {
	uint8_t mem[64];
	int reads;
};

static inline int read_space(void *cookie, uint64_t addr, void *buf, size_t size)
{
	struct space *sp = cookie;

	sp->reads++;
	if (addr < MEM_BASE || addr + size > MEM_BASE + sizeof(sp->mem))
		return -EFAULT;
	memcpy(buf, sp->mem + (addr - MEM_BASE), size);
	return 0;
}

/* store @v in @n bytes at @p, big-endian if @be */
static inline void put_n(uint8_t *p, uint64_t v, int n, bool be)
{
	int i;

	for (i = 0; i < n; i++, v >>= 8)
		p[be ? n - 1 - i : i] = (uint8_t)v;
}

/* parse the one-argument @spec for @arch and evaluate it; -1000 when it
 * does not parse to one argument */
static inline int eval_one(const char *arch, const char *spec,
			   const struct usdtkit_eval_opts *o, uint64_t *v)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name(arch);
	struct usdtkit_arg arg;

	if (usdtkit_args_parse(a, spec, strlen(spec), &arg, 1) != 1)
		return -1000;
	return usdtkit_arg_eval(a, &arg, o, v);
}

#endif
