// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit_trace_refresh(): a traced file upgraded as dpkg does it (the
 * new version written beside it, then renamed over it) under a running
 * trace. A process of the old version keeps running, one of the new
 * starts: both are counted, into the same cumulative counts; a probe the
 * new version lacks is said once and keeps counting the old process; a
 * file missing mid-upgrade is waited for; no link outlives the trace.
 * Needs root and BPF.
 * usage: test_trace_upgrade DIR   (DIR: where fx_upg1 and fx_upg2 are)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <usdtkit/trace.h>

#include "check.h"
#include "kstate.h"
#include "trace_test.h"

static char v1[4096], v2[4096], scratch[] = "/tmp/usdtkit-upgrade-XXXXXX", fx[64];

/* warnings, counted, and the last one kept */
static int nwarn;
static char last_warn[1024];

static void print(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	(void)ctx;
	if (level != USDTKIT_LOG_WARN)
		return;
	nwarn++;
	snprintf(last_warn, sizeof(last_warn), "%s", msg);
}

/* @src copied to @dst beside the target, then renamed over it: 0 or -1 */
static int install(const char *src)
{
	char tmp[96], buf[65536];
	int in = open(src, O_RDONLY), out;
	ssize_t n;

	snprintf(tmp, sizeof(tmp), "%s.dpkg-new", fx);
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	if (in >= 0)
		close(in);
	if (out < 0 || close(out))
		return -1;
	return rename(tmp, fx);
}

/* a running fx: its pid and command pipe */
struct proc {
	pid_t pid;
	int cmd, ack;
};

static int spawn(struct proc *p)
{
	int in[2], out[2];

	/* close-on-exec: the next fx must not hold this one's stdin open */
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		return -1;
	p->pid = fork();
	if (p->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(fx, fx, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	p->cmd = in[1];
	p->ack = out[0];
	return p->pid > 0 ? 0 : -1;
}

/* fire @p's probes once and wait until it has */
static int fire(struct proc *p)
{
	char c;

	return write(p->cmd, "f", 1) == 1 && read(p->ack, &c, 1) == 1 ? 0 : -1;
}

static void stop(struct proc *p)
{
	int st;

	close(p->cmd);
	close(p->ack);
	waitpid(p->pid, &st, 0);
}

static uint64_t count(struct usdtkit_trace *t, size_t probe)
{
	struct usdtkit_trace_stats s = { 0 };

	return usdtkit_trace_read_stats(t, probe, 0, &s) ? (uint64_t)-1 : s.count;
}

/* the histogram's total and whether every value landed in 1..10's
 * buckets (slots 2 to 5: [1,2) .. [8,16)) */
static bool hist_ok(struct usdtkit_trace *t, size_t probe, uint64_t want)
{
	uint64_t h[USDTKIT_TRACE_HIST_SLOTS], n = 0;
	int i;

	if (usdtkit_trace_read_hist(t, probe, 0, h))
		return false;
	for (i = 2; i <= 5; i++)
		n += h[i];
	return n == want;
}

/* a trace of fx's two probes, of every process or of @pid (and, with
 * @children, of what it forks) */
static struct usdtkit_trace *start(int pid, bool children)
{
	USDTKIT_OPTS(usdtkit_trace_opts, o, .pid = pid, .print = print,
		     .children = children);
	USDTKIT_OPTS(usdtkit_trace_agg_opts, ao, .arg = 0);
	char tick[128], gone[128];
	struct usdtkit_trace *t = usdtkit_trace_new(&o);
	int err;

	if (!t)
		return NULL;
	snprintf(tick, sizeof(tick), "%s:upg:tick", fx);
	snprintf(gone, sizeof(gone), "%s:upg:gone", fx);
	err = usdtkit_trace_add(t, tick);
	err = err ? err : usdtkit_trace_add(t, gone);
	err = err ? err : usdtkit_trace_add_agg(t, USDTKIT_TRACE_AGG_COUNTS, &ao);
	err = err ? err : usdtkit_trace_add_agg(t, USDTKIT_TRACE_AGG_HIST, &ao);
	err = err ? err : usdtkit_trace_prepare(t);
	err = err ? err : usdtkit_trace_load(t);
	err = err ? err : usdtkit_trace_attach(t);
	CHECK(!err, "start: %s (%s)", strerror(-err), last_warn);
	if (err) {
		usdtkit_trace_free(t);
		return NULL;
	}
	return t;
}

static void test_upgrade(void)
{
	const struct usdtkit_link *was;
	struct proc old, new;
	struct usdtkit_trace *t;
	int fds = count_fds(), warned, n;

	CHECK(!install(v1), "install version 1: %s", strerror(errno));
	t = start(0, false);
	if (!t)
		return;
	was = usdtkit_trace_probe(t, 0)->link;
	CHECK(!spawn(&old) && !fire(&old), "version 1 runs");
	CHECK(count(t, 0) == 10 && count(t, 1) == 1, "before: tick %llu gone %llu",
	      (unsigned long long)count(t, 0), (unsigned long long)count(t, 1));
	n = usdtkit_trace_refresh(t);
	CHECK(n == 0 && !nwarn, "nothing replaced: refresh %d, %d warnings", n, nwarn);

	/* the upgrade: version 1 keeps running, version 2 starts */
	CHECK(!install(v2), "install version 2: %s", strerror(errno));
	warned = nwarn;
	n = usdtkit_trace_refresh(t);
	CHECK(n == 1, "the upgrade: refresh %d, want 1 (tick; gone is gone)", n);
	CHECK(nwarn == warned + 1 && strstr(last_warn, "upg:gone") &&
	      strstr(last_warn, "gone from"), "%d warnings, last: %s", nwarn - warned,
	      last_warn);
	CHECK(usdtkit_trace_probe(t, 0)->link != was && usdtkit_trace_probe(t, 0)->sites >= 1 &&
	      usdtkit_trace_probe(t, 0)->args[0].size == 8, "tick: a new link, its sites, "
	      "a 64-bit argument");
	n = usdtkit_trace_refresh(t);
	CHECK(n == 0 && nwarn == warned + 1, "again: refresh %d, %d more warnings", n,
	      nwarn - warned - 1);
	CHECK(!spawn(&new) && !fire(&new), "version 2 runs");
	CHECK(!fire(&old), "version 1 fires again");
	CHECK(count(t, 0) == 30 && count(t, 1) == 2,
	      "after: tick %llu (want 30: both versions, cumulative), gone %llu (want 2: "
	      "version 1's)", (unsigned long long)count(t, 0),
	      (unsigned long long)count(t, 1));
	CHECK(hist_ok(t, 0, 30), "tick's histogram holds 30 values in 1..10");
	stop(&old);
	stop(&new);

	/* mid-upgrade: the path is missing for a while, then back */
	CHECK(!unlink(fx), "unlink: %s", strerror(errno));
	warned = nwarn;
	n = usdtkit_trace_refresh(t);
	CHECK(n == 0 && nwarn == warned, "missing file: refresh %d, %d warnings", n,
	      nwarn - warned);
	CHECK(!install(v1), "reinstall version 1: %s", strerror(errno));
	n = usdtkit_trace_refresh(t);
	CHECK(n == 2 && nwarn == warned, "back to version 1: refresh %d (want 2), %d "
	      "warnings", n, nwarn - warned);
	CHECK(!spawn(&new) && !fire(&new), "version 1 again runs");
	CHECK(count(t, 0) == 40 && count(t, 1) == 3, "last: tick %llu gone %llu",
	      (unsigned long long)count(t, 0), (unsigned long long)count(t, 1));
	stop(&new);
	usdtkit_trace_free(t);
	CHECK(count_fds() == fds, "fds: %d after, %d before", count_fds(), fds);
}

/*
 * -p PID --children, PID's children running the file upgraded: a child
 * started after the upgrade runs the new file, and the refresh's link
 * to it must, like the first attach's, run for every process and leave
 * the filtering to the program (any_process), or the child's hits never
 * reach it. PID is this test; its children are fx.
 */
static void test_upgrade_children(void)
{
	struct proc old, new;
	struct usdtkit_trace *t;
	int fds = count_fds(), n;

	CHECK(!install(v1), "install version 1: %s", strerror(errno));
	t = start(getpid(), true);
	if (!t)
		return;
	CHECK(!spawn(&old) && !fire(&old), "children: version 1 runs");
	CHECK(count(t, 0) == 10, "children: before: tick %llu, want 10",
	      (unsigned long long)count(t, 0));
	CHECK(!install(v2), "install version 2: %s", strerror(errno));
	n = usdtkit_trace_refresh(t);
	CHECK(n == 1, "children: the upgrade: refresh %d, want 1", n);
	CHECK(!spawn(&new) && !fire(&new) && !fire(&new), "children: version 2 runs");
	CHECK(!fire(&old), "children: version 1 fires again");
	CHECK(count(t, 0) == 40, "children: after: tick %llu, want 40 (the new "
	      "child's 20 after the upgrade, the old child's 10 + 10)",
	      (unsigned long long)count(t, 0));
	stop(&old);
	stop(&new);
	usdtkit_trace_free(t);
	CHECK(count_fds() == fds, "children: fds: %d after, %d before", count_fds(), fds);
}

static void test_refusals(void)
{
	USDTKIT_OPTS(usdtkit_trace_opts, o, .print = print);
	struct usdtkit_trace *t = usdtkit_trace_new(&o);

	CHECK(usdtkit_trace_refresh(t) == -EINVAL, "refresh before attach: -EINVAL");
	CHECK(usdtkit_trace_refresh(NULL) == -EINVAL, "refresh(NULL): -EINVAL");
	usdtkit_trace_free(t);
}

int main(int argc, char **argv)
{
	int rc = trace_test_begin(argc, argv, "fx_upg1", v1, sizeof(v1));

	if (rc || (rc = trace_test_begin(argc, argv, "fx_upg2", v2, sizeof(v2))))
		return rc;
	if (!mkdtemp(scratch)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(fx, sizeof(fx), "%s/fx", scratch);
	signal(SIGPIPE, SIG_IGN);
	test_refusals();
	test_upgrade();
	test_upgrade_children();
	unlink(fx);
	rmdir(scratch);
	return check_done();
}
