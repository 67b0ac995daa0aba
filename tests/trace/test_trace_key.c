// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit_trace_key_parse(): the keys of --count-by and --by, each kind
 * alone and joined, with the spaces bpftrace's @[pid, comm] has; and what
 * is refused (an unknown part, a fourth part, argN past the twelfth, an
 * empty part, str() of anything but argN, stray text).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <usdtkit/trace.h>

#include "check.h"

struct good {
	const char *text;
	unsigned int n;
	enum usdtkit_trace_part kind[3];
	unsigned int arg[3];
};

static const struct good goods[] = {
	{ "arg0", 1, { USDTKIT_TRACE_PART_ARG }, { 0 } },
	{ "arg11", 1, { USDTKIT_TRACE_PART_ARG }, { 11 } },
	{ "str(arg3)", 1, { USDTKIT_TRACE_PART_STR }, { 3 } },
	{ "pid", 1, { USDTKIT_TRACE_PART_PID }, { 0 } },
	{ "tid", 1, { USDTKIT_TRACE_PART_TID }, { 0 } },
	{ "comm", 1, { USDTKIT_TRACE_PART_COMM }, { 0 } },
	{ "ustack", 1, { USDTKIT_TRACE_PART_USTACK }, { 0 } },
	{ "pid,str(arg0)", 2, { USDTKIT_TRACE_PART_PID, USDTKIT_TRACE_PART_STR }, { 0, 0 } },
	{ " comm , str(arg1),arg2 ", 3,
	  { USDTKIT_TRACE_PART_COMM, USDTKIT_TRACE_PART_STR, USDTKIT_TRACE_PART_ARG },
	  { 0, 1, 2 } },
	{ "pid, pid", 2, { USDTKIT_TRACE_PART_PID, USDTKIT_TRACE_PART_PID }, { 0, 0 } },
};

static const char *const bads[] = {
	"", " ", "foo", "arg", "arg12", "arg-1", "arg1x", "str(arg1", "str(pid)",
	"str()", "str(arg12)", "pid,", ",pid", "pid,,tid", "pid,tid,comm,ustack",
	"PID", "comm;pid", "arg01x", "str( arg1)", "ustack(3)",
};

int main(void)
{
	struct usdtkit_trace_key k;
	size_t i;
	unsigned int p;

	for (i = 0; i < sizeof(goods) / sizeof(goods[0]); i++) {
		const struct good *g = &goods[i];
		int err = usdtkit_trace_key_parse(g->text, &k);

		CHECK(!err && k.nparts == g->n, "'%s': %d, %u parts", g->text, err, k.nparts);
		for (p = 0; !err && p < g->n; p++)
			CHECK(k.parts[p].kind == g->kind[p] && k.parts[p].arg == g->arg[p],
			      "'%s' part %u: %d arg%u", g->text, p, k.parts[p].kind,
			      k.parts[p].arg);
	}
	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++)
		CHECK(usdtkit_trace_key_parse(bads[i], &k) == -EINVAL, "'%s' accepted", bads[i]);
	CHECK(usdtkit_trace_key_parse(NULL, &k) == -EINVAL, "NULL accepted");
	CHECK(!strcmp(usdtkit_trace_part_name(USDTKIT_TRACE_PART_COMM), "comm") &&
	      !strcmp(usdtkit_trace_part_name(USDTKIT_TRACE_PART_USTACK), "ustack") &&
	      !strcmp(usdtkit_trace_part_name((enum usdtkit_trace_part)99), "?"),
	      "part names");
	return check_done();
}
