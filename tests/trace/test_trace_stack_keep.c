// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit__stack_keep(), the engine's entry point for whoever sees a
 * process exit (an exit stop), on tests/fixtures/fx_stack.c traced by
 * pid with COUNT_BY ustack: its ring buffer never read (so the
 * program's own event keeps nothing), the fixture hits, is kept by
 * that call, exits and is reaped; its stack is still named, frame by
 * frame. A process with no stack in the keys is not kept. A RESET read
 * empties the table: the next read finds no key of the pid, which is
 * let go. Needs root and BPF.
 * usage: test_trace_stack_keep DIR   (DIR: where fx_stack is)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <usdtkit/trace.h>

#include "check.h"
#include "fx_proc.h"
#include "trace_test.h"
#include "trace/internal.h"

/* the fixture's next line, until one that is @want */
static bool fx_wait(FILE *out, const char *want)
{
	char line[256];

	while (fgets(line, sizeof(line), out))
		if (!strcmp(line, want))
			return true;
	return false;
}

static bool starts(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

static void check_named(struct usdtkit_trace *t)
{
	static const char *const fns[] = { "fx_stack_c+0x", "fx_stack_b+0x",
					   "fx_stack_a+0x", "main+0x" };
	struct usdtkit_trace_by_row *v = NULL;
	const struct usdtkit_trace_key_value *k;
	size_t n = 0, i;
	int err;

	err = usdtkit_trace_read_by(t, USDTKIT_TRACE_AGG_COUNT_BY, USDTKIT_TRACE_READ_RESET,
				    &v, &n);
	CHECK(!err && n == 1, "read: %d, %zu rows", err, n);
	if (err || n != 1) {
		usdtkit_trace_by_free(v, n);
		return;
	}
	k = &v[0].parts[0];
	CHECK(v[0].stats.count == 2, "count %llu", (unsigned long long)v[0].stats.count);
	CHECK(!k->stack_gone && k->nframes >= 4, "gone %d, %zu frames", k->stack_gone,
	      k->nframes);
	for (i = 0; i < 4 && i < k->nframes; i++)
		CHECK(starts(k->frames[i], fns[i]), "frame %zu: %s, want %s...", i,
		      k->frames[i], fns[i]);
	usdtkit_trace_by_free(v, n);
}

int main(int argc, char **argv)
{
	static const char *const targets[] = { "fxstack:hit", NULL };
	USDTKIT_OPTS(usdtkit_trace_agg_opts, by, .by = "ustack");
	USDTKIT_OPTS(usdtkit_trace_opts, o, .print = keep_msg);
	struct usdtkit_trace_by_row *v = NULL;
	struct usdtkit_trace *t;
	FILE *in = NULL, *out = NULL;
	char fx[4096];
	size_t n = 0;
	pid_t pid;
	int err;

	err = trace_test_begin(argc, argv, "fx_stack", fx, sizeof(fx));
	if (err)
		return err;
	if (fx_proc_start(fx, &pid, &in, &out) || !fx_wait(out, "ready\n")) {
		fprintf(stderr, "%s: not started\n", fx);
		return 1;
	}
	o.pid = pid;
	t = usdtkit_trace_new(&o);
	CHECK(t, "new: %s", strerror(errno));
	err = t ? usdtkit_trace_add(t, targets[0]) : -EINVAL;
	if (!err)
		err = usdtkit_trace_add_agg(t, USDTKIT_TRACE_AGG_COUNT_BY, &by);
	if (!err)
		err = trace_test_start(t);
	CHECK(!err, "start: %s (%s)", strerror(-err), last_msg);
	if (err) {
		fx_proc_stop(&pid, &in, &out);
		usdtkit_trace_free(t);
		return check_done();
	}
	CHECK(!usdtkit__stack_keep(t, (int)getpid()) && t->stacks.npids == 0,
	      "no stack, kept: %zu", t->stacks.npids);
	fprintf(in, "hit 2\n");
	fflush(in);
	CHECK(fx_wait(out, "ok\n"), "hits");
	err = usdtkit__stack_keep(t, (int)pid);
	CHECK(!err && t->stacks.npids == 1, "keep: %d, %zu kept", err, t->stacks.npids);
	fx_proc_stop(&pid, &in, &out);
	check_named(t);
	CHECK(t->stacks.npids == 1, "seen, let go: %zu kept", t->stacks.npids);
	err = usdtkit_trace_read_by(t, USDTKIT_TRACE_AGG_COUNT_BY, 0, &v, &n);
	CHECK(!err && n == 0 && t->stacks.npids == 0, "read %d, %zu rows: %zu kept", err, n,
	      t->stacks.npids);
	usdtkit_trace_by_free(v, n);
	usdtkit_trace_free(t);
	return check_done();
}
