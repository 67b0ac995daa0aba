// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Options structs carry their size: a caller built against an older,
 * smaller struct works (unknown fields read as zero), one built against a
 * newer, bigger struct works while the fields this library does not know
 * stay zero, and anything else is -EINVAL.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "base/opts.h"
#if USDTKIT_HAVE_BPF
#include <usdtkit/attach.h>
#endif

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

/*
 * A later usdtkit appends "bool future" after the last bool: it lands in
 * what is trailing padding today, sizeof stays the same, and a check
 * against sizeof would take a caller's future = true and ignore it. The
 * library (v1, the view of this build) must refuse it instead.
 */
struct v1_opts {
	size_t sz;
	int a;
	bool b;
	size_t :0;
};
#define v1_opts__last_field b

struct v2_opts {
	size_t sz;
	int a;
	bool b;
	bool future;
	size_t :0;
};

_Static_assert(sizeof(struct v1_opts) == sizeof(struct v2_opts),
	       "the appended field must sit in v1's trailing padding");

static int v1_library(const void *user, struct v1_opts *o)
{
	return usdtkit__opts_copy(o, v1_opts, user);
}

static void padding_field(void)
{
	struct v2_opts n;
	struct v1_opts o;

	memset(&n, 0, sizeof(n));
	n.sz = sizeof(n);
	n.a = 3;
	n.b = true;
	CHECK(v1_library(&n, &o) == 0 && o.a == 3 && o.b && o.sz == sizeof(o),
	      "newer caller, new field zero");
	n.future = true;
	CHECK(v1_library(&n, &o) == -EINVAL, "newer caller, new field set: ignored");
	/* an older caller that knew only sz and a: b reads as false */
	memset(&n, 0xff, sizeof(n));
	n.sz = offsetof(struct v1_opts, b);
	n.a = 5;
	CHECK(v1_library(&n, &o) == 0 && o.a == 5 && !o.b,
	      "older caller: field past its size is zero");
}

/* USDTKIT_OPTS() zeroes the padding the library checks, and sets sz. */
static void opts_macro(void)
{
	unsigned char *p;
	size_t i, bad = 0;

#if USDTKIT_HAVE_BPF
	{
		USDTKIT_OPTS(usdtkit_attach_opts, o, .detach_wait = true);

		p = (unsigned char *)&o;
		for (i = usdtkit__opts_known(usdtkit_attach_opts); i < sizeof(o); i++)
			bad += p[i] != 0;
		CHECK(o.sz == sizeof(o) && o.detach_wait && !bad,
		      "attach opts: sz %zu, %zu padding bytes set", o.sz, bad);
	}
#endif
	{
		USDTKIT_OPTS(usdtkit_open_opts, o, .name = "x");

		p = (unsigned char *)&o;
		for (i = usdtkit__opts_known(usdtkit_open_opts); i < sizeof(o); i++)
			bad += p[i] != 0;
		CHECK(o.sz == sizeof(o) && !strcmp(o.name, "x") && !o.print && !bad,
		      "open opts");
	}
}

/* The version the headers were generated with is the library's. */
static void version(void)
{
	char want[32];

	snprintf(want, sizeof(want), "%d.%d.%d", USDTKIT_VERSION_MAJOR,
		 USDTKIT_VERSION_MINOR, USDTKIT_VERSION_PATCH);
	CHECK(!strcmp(usdtkit_version_string(), USDTKIT_VERSION) &&
	      !strcmp(want, USDTKIT_VERSION), "version %s, headers %s (%s)",
	      usdtkit_version_string(), USDTKIT_VERSION, want);
	CHECK(USDTKIT_VERSION_CODE == USDTKIT_VERSION_NUM(USDTKIT_VERSION_MAJOR,
							  USDTKIT_VERSION_MINOR,
							  USDTKIT_VERSION_PATCH),
	      "version code");
}

int main(void)
{
	uint64_t v = 0;

	padding_field();
	opts_macro();
	version();

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
