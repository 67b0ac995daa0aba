// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The trace program's per-hit slots (trace/bpf/trace.bpf.c) under
 * contention. slots.bpf.c reads every CPU as CPU 0, so the hits of
 * fx_slots' threads, on every CPU at once, contend for one slot and the
 * losers take spares, as hits on one CPU do when one is preempted or
 * sleeps. Every hit must come out whole and its own: arg2 = arg0 *
 * 1000003 + arg1, one arg0 per thread; none lost; the spares used; every
 * slot given back. A slot taken without its busy count mixes hits.
 *
 * usage: test_trace_slots FIXTURES_DIR   (root, BPF, atomics in the JIT)
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <usdtkit/attach.h>

#include "check.h"
#include "kstate.h"
#include "slots.skel.h"
#include "trace_event.h"

#define THREADS 4
#define HITS 20000
#define SPARES 4

struct seen {
	long n, bad;
	unsigned int tid_of[THREADS];
};

static int on_event(void *ctx, void *data, size_t size)
{
	const struct usdtkit_trace_event *e = data;
	struct seen *s = ctx;
	long long i;

	if (size < sizeof(*e)) {
		s->bad++;
		return 0;
	}
	s->n++;
	i = e->args[0];
	if (e->nargs != 3 || e->err || i < 0 || i >= THREADS ||
	    e->args[2] != i * 1000003LL + e->args[1]) {
		s->bad++;
		return 0;
	}
	if (!s->tid_of[i])
		s->tid_of[i] = e->tid;
	else if (s->tid_of[i] != e->tid)
		s->bad++;
	return 0;
}

/* fx_slots THREADS HITS, held on its stdin: its pid, *@go its pipe */
static pid_t start(const char *exe, int *go)
{
	char threads[16], hits[16];
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	snprintf(threads, sizeof(threads), "%d", THREADS);
	snprintf(hits, sizeof(hits), "%d", HITS);
	pid = fork();
	if (pid == 0) {
		dup2(p[0], 0);
		close(p[1]);
		execl(exe, exe, threads, hits, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

/* counter @which, summed over the CPUs */
static unsigned long long counter(struct slots *skel, int which)
{
	return percpu_sum(bpf_map__fd(skel->maps.counters), which);
}

/* the slots after the run: all given back (busy, their first 8 bytes,
 * 0); the spares written (not all zero) */
static void check_slots(struct slots *skel)
{
	size_t vs = bpf_map__value_size(skel->maps.slots), j;
	unsigned char *v = calloc(1, vs);
	int fd = bpf_map__fd(skel->maps.slots), used = 0, held = 0;
	unsigned int i;

	if (!v)
		return;
	for (i = 0; i < 1 + SPARES; i++) {
		if (bpf_map_lookup_elem(fd, &i, v))
			continue;
		held += *(unsigned long long *)v != 0;
		for (j = 8; j < vs && i && !v[j]; j++)
			;
		used += i && j < vs;
	}
	free(v);
	CHECK(!held, "%d slots still held after the run", held);
	CHECK(used > 0, "no spare slot was used: no contention seen");
	printf("spare slots used: %d of %d\n", used, SPARES);
}

int main(int argc, char **argv)
{
	USDTKIT_OPTS(usdtkit_attach_opts, o);
	struct seen s = { 0 };
	struct ring_buffer *rb = NULL;
	struct usdtkit_link *l = NULL;
	struct slots *skel;
	char exe[4096];
	int go = -1, st = 0;
	pid_t pid;

	if (argc != 2)
		return 2;
	if (geteuid() != 0) {
		printf("SKIP: needs root for BPF\n");
		return 77;
	}
	if (!usdtkit_features()->jit_atomics) {
		printf("SKIP: this kernel's JIT has no atomic add: the trace "
		       "program keeps its hash, not slots\n");
		return 77;
	}
	snprintf(exe, sizeof(exe), "%s/fx_slots", argv[1]);
	skel = slots__open();
	CHECK(skel, "open: %s", strerror(errno));
	if (!skel)
		return check_done();
	skel->rodata->slot_cpus = 1;
	skel->rodata->slot_spares = SPARES;
	CHECK(!bpf_map__set_max_entries(skel->maps.slots, 1 + SPARES), "size slots");
	CHECK(!usdtkit_prog_prepare(skel->progs.usdtkit_trace, USDTKIT_MODE_AUTO) &&
	      !slots__load(skel), "load: %s", strerror(errno));
	pid = start(exe, &go);
	CHECK(pid > 0, "start %s", exe);
	if (pid > 0)
		l = usdtkit_attach(skel->progs.usdtkit_trace, pid, exe, "fxslots", "hit", &o);
	CHECK(l, "attach: %s", strerror(errno));
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, &s, NULL);
	CHECK(rb, "ring buffer");
	if (l && rb && write(go, "\n", 1) == 1) {
		while (waitpid(pid, &st, WNOHANG) == 0)
			ring_buffer__poll(rb, 100);
		ring_buffer__consume(rb);
		pid = 0;
		CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "fx_slots status %d", st);
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	CHECK(s.n == (long)THREADS * HITS && !s.bad, "hits %ld of %d, mixed or bad %ld",
	      s.n, THREADS * HITS, s.bad);
	CHECK(counter(skel, USDTKIT_TRACE_C_LOST) == 0, "lost %llu",
	      counter(skel, USDTKIT_TRACE_C_LOST));
	check_slots(skel);
	ring_buffer__free(rb);
	usdtkit_link_destroy(l);
	if (go >= 0)
		close(go);
	slots__destroy(skel);
	return check_done();
}
