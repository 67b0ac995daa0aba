// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Options structs carry their size: a caller built against an older,
 * smaller struct works (unknown fields read as zero), one built against a
 * newer, bigger struct works while the fields this library does not know
 * stay zero, and anything else is -EINVAL.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"

struct newer_eval_opts {
	struct usdtkit_eval_opts o;
	uint64_t future;	/* a field a later usdtkit might add */
};

static int eval_with(size_t sz, uint64_t future, uint64_t *v)
{
	static const uint8_t regs[512];
	struct newer_eval_opts n = { .o = { .regs = regs, .regs_size = sizeof(regs) },
				     .future = future };
	struct usdtkit_arg a;

	n.o.sz = sz;
	parse_arg("x86_64", "-4@$-7", &a);
	return usdtkit_arg_eval(usdtkit_arch_by_name("x86_64"), &a, &n.o, v);
}

int main(void)
{
	uint64_t v = 0;

	CHECK(eval_with(sizeof(struct usdtkit_eval_opts), 0, &v) == 0 &&
	      (int64_t)v == -7, "current size: %llu", (unsigned long long)v);
	/* an older struct that ended before read_mem */
	v = 0;
	CHECK(eval_with(offsetof(struct usdtkit_eval_opts, read_mem), 0, &v) == 0 &&
	      (int64_t)v == -7, "older, smaller size");
	CHECK(eval_with(sizeof(struct newer_eval_opts), 0, &v) == 0,
	      "newer size, unknown field zero");
	CHECK(eval_with(sizeof(struct newer_eval_opts), 1, &v) == -EINVAL,
	      "newer size, unknown field set");
	CHECK(eval_with(0, 0, &v) == -EINVAL, "size 0");
	CHECK(eval_with(sizeof(size_t) - 1, 0, &v) == -EINVAL, "size smaller than sz");
	return check_done();
}
