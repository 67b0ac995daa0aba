// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Spec dedup: equal resolved specs share an id; ids are dense, recycled
 * through the free list, and a full table says -E2BIG. */
#include <errno.h>

#include "check.h"
#include "spec/spectable.h"

static int parse(const char *arch, const char *spec, struct usdtkit_arg *a)
{
	return usdtkit_args_parse(usdtkit_arch_by_name(arch), spec, strlen(spec),
				  a, 8);
}

int main(void)
{
	const struct usdtkit_arch *x = usdtkit_arch_by_name("x86_64");
	struct usdtkit_spec_table *t = usdtkit__spec_table_new(3);
	struct usdtkit_arg a[8], b[8], c[8];
	int na, nb, nc, ia, ib, ic, id;

	CHECK(t != NULL, "new");
	na = parse("x86_64", "-4@%eax 8@-8(%rbp)", a);
	/* same meaning, other spelling: same id */
	nb = parse("x86_64", "-4@%eax  8@-0x8(%rbp)", b);
	ia = usdtkit__spec_table_get(t, a, na, 0);
	ib = usdtkit__spec_table_get(t, b, nb, 0);
	CHECK(ia == 0 && ib == 0, "dedup %d %d", ia, ib);
	/* the width of the view matters */
	nc = parse("x86_64", "-8@%rax 8@-8(%rbp)", c);
	ic = usdtkit__spec_table_get(t, c, nc, 0);
	CHECK(ic == 1, "different spec, next id: %d", ic);
	/* the cookie is part of the key */
	id = usdtkit__spec_table_get(t, a, na, 42);
	CHECK(id == 2, "cookie: %d", id);
	CHECK(usdtkit__spec_table_used(t) == 3, "used");
	/* full */
	nc = parse("x86_64", "1@%al", c);
	CHECK(usdtkit__spec_table_get(t, c, nc, 0) == -E2BIG, "full");
	/* same text, resolved at two sites: different displacements */
	{
		struct usdtkit_arg s1[1], s2[1];

		parse("x86_64", "4@x(%rip)", s1);
		parse("x86_64", "4@x(%rip)", s2);
		usdtkit_arg_resolve(x, s1, 0x1000, 0x3000, 0);
		usdtkit_arg_resolve(x, s2, 0x2000, 0x3000, 0);
		CHECK(usdtkit__spec_table_put(t, 2) == 0, "put");
		id = usdtkit__spec_table_get(t, s1, 1, 0);
		CHECK(id == 2, "freed id reused: %d", id);
		CHECK(usdtkit__spec_table_get(t, s2, 1, 0) == -E2BIG,
		      "pc-relative specs at two sites differ");
	}
	/* references: id 0 was taken twice */
	CHECK(usdtkit__spec_table_put(t, 0) == 0, "put 1");
	CHECK(usdtkit__spec_table_used(t) == 3, "still referenced");
	CHECK(usdtkit__spec_table_put(t, 0) == 0, "put 2");
	CHECK(usdtkit__spec_table_used(t) == 2, "released");
	CHECK(usdtkit__spec_table_put(t, 0) == -EINVAL, "double put");
	CHECK(usdtkit__spec_table_put(t, 7) == -EINVAL, "bad id");
	nc = parse("x86_64", "1@%al", c);
	CHECK(usdtkit__spec_table_get(t, c, nc, 0) == 0, "free list first");
	CHECK(usdtkit__spec_table_get(NULL, c, nc, 0) == -EINVAL, "NULL");
	CHECK(!usdtkit__spec_table_new(0), "capacity 0");
	usdtkit__spec_table_free(t);
	return check_done();
}
