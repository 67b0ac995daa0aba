// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Several pids through the library alone (usdtkit_trace_opts.pids and
 * pid_cnt): the requests refused (with pid, a pid <= 0, no array, with
 * all), duplicates dropped in order (usdtkit_trace_pids(), the first as
 * usdtkit_trace_pid()), and live on three fx_pids processes: the hits
 * of the two traced, each its own count, none of the third's;
 * a traced pid that exits and is taken at once by another process
 * (clone3's set_tid) not counted, without a call to
 * usdtkit_trace_pid_gone(); that call true once both have exited, not
 * before; mode hwbp refused at the load. Needs root and BPF.
 * usage: test_trace_pids DIR   (DIR: where fx_pids is)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <usdtkit/trace.h>

#include "check.h"
#include "fx_proc.h"
#include "trace_test.h"

static char fx[4096];

struct proc {
	pid_t pid;
	FILE *in, *out;
};

/* hits per traced pid (the first 3 pids seen) */
struct hits {
	uint32_t pid[3];
	int n[3], other;
};

static int on_hit(void *ctx, const struct usdtkit_trace_hit *h)
{
	struct hits *hs = ctx;
	int i;

	for (i = 0; i < 3; i++) {
		if (!hs->pid[i])
			hs->pid[i] = h->pid;
		if (hs->pid[i] == h->pid) {
			hs->n[i]++;
			return 0;
		}
	}
	hs->other++;
	return 0;
}

static struct usdtkit_trace *new_trace(const int *pids, size_t n, int pid, bool all,
				       enum usdtkit_mode mode, struct hits *hs)
{
	USDTKIT_OPTS(usdtkit_trace_opts, o, .pids = pids, .pid_cnt = n, .pid = pid,
		     .all = all, .mode = mode, .print = keep_msg, .on_hit = on_hit,
		     .hit_ctx = hs);

	return usdtkit_trace_new(&o);
}

static void test_refusals(void)
{
	static const int two[] = { 7, 8 }, zero[] = { 7, 0 }, dup[] = { 9, 7, 9, 7, 8 };
	struct usdtkit_trace *t;
	const int *v;
	size_t n = 0;

	errno = 0;
	CHECK(!new_trace(two, 2, 7, false, 0, NULL) && errno == EINVAL, "pids with pid");
	errno = 0;
	CHECK(!new_trace(zero, 2, 0, false, 0, NULL) && errno == EINVAL, "a pid 0");
	errno = 0;
	CHECK(!new_trace(NULL, 2, 0, false, 0, NULL) && errno == EINVAL, "no array");
	errno = 0;
	CHECK(!new_trace(two, 2, 0, true, 0, NULL) && errno == EINVAL, "pids with all");
	t = new_trace(dup, 5, 0, false, 0, NULL);
	v = t ? usdtkit_trace_pids(t, &n) : NULL;
	CHECK(v && n == 3 && v[0] == 9 && v[1] == 7 && v[2] == 8 &&
	      usdtkit_trace_pid(t) == 9, "duplicates: %zu pids", n);
	usdtkit_trace_free(t);
	t = new_trace(NULL, 0, 7, false, 0, NULL);
	v = t ? usdtkit_trace_pids(t, &n) : NULL;
	CHECK(v && n == 1 && v[0] == 7, "pid alone: its pids %zu", n);
	usdtkit_trace_free(t);
	t = new_trace(NULL, 0, 0, false, 0, NULL);
	v = t ? usdtkit_trace_pids(t, &n) : NULL;
	CHECK(t && !v && !n, "no pid: no pids");
	usdtkit_trace_free(t);
}

static int start(struct proc *p)
{
	char line[64];
	int err = fx_proc_start(fx, &p->pid, &p->in, &p->out);

	/* not in the processes started next: each ends at its own EOF */
	if (!err && (fcntl(fileno(p->in), F_SETFD, FD_CLOEXEC) ||
		     fcntl(fileno(p->out), F_SETFD, FD_CLOEXEC)))
		err = -errno;
	if (!err && (!fgets(line, sizeof(line), p->out) || strcmp(line, "ready\n")))
		err = -EIO;
	return err;
}

/* @cmd to @p, and its answer waited for: it fired before this returns */
static int say(struct proc *p, const char *cmd)
{
	char line[64];

	fprintf(p->in, "%s\n", cmd);
	fflush(p->in);
	return fgets(line, sizeof(line), p->out) && !strcmp(line, "ok\n") ? 0 : -EIO;
}

static pid_t reused_pid;	/* for hung(), which kills it */

static void hung(int sig)
{
	static const char msg[] = "FAIL: the process on the reused pid hung "
				  "(held as a traced one is at its exec)\n";

	(void)sig;
	kill(reused_pid, SIGKILL);
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

/*
 * @p exits, and its pid is taken at once by another fx_pids, before
 * anyone asks usdtkit_trace_pid_gone(): its hits are not counted (the
 * exit took the pid out of the filter in the kernel).
 */
static void reused(struct usdtkit_trace *t, struct proc *p, struct hits *hs)
{
	struct proc q = { 0 };
	pid_t pid = p->pid;
	char line[64];
	int err, before = hs->n[0] + hs->n[1] + hs->n[2] + hs->other;

	fx_proc_stop(&p->pid, &p->in, &p->out);
	/* a reused pid still in the filter is held at its exec, and this
	 * thread, which would let it go, waits on it: bounded */
	reused_pid = pid;
	signal(SIGALRM, hung);
	alarm(20);
	err = fx_proc_start_at(fx, pid, &q.pid, &q.in, &q.out);
	if (err == -ENOSYS) {
		printf("SKIP the reused pid: no clone3 set_tid (Linux 5.5)\n");
		return;
	}
	if (!err && (!fgets(line, sizeof(line), q.out) || strcmp(line, "ready\n")))
		err = -EIO;
	if (!err)
		err = say(&q, "fire 4");
	alarm(0);
	CHECK(!err && q.pid == pid, "pid %d reused: %s", pid, strerror(-err));
	usdtkit_trace_consume(t);
	CHECK(hs->n[0] + hs->n[1] + hs->n[2] + hs->other == before,
	      "pid %d reused by another process: %d hits counted", pid,
	      hs->n[0] + hs->n[1] + hs->n[2] + hs->other - before);
	fx_proc_stop(&q.pid, &q.in, &q.out);
}

static void test_live(void)
{
	struct proc p[3] = { 0 };
	struct hits hs = { 0 };
	struct usdtkit_trace *t = NULL;
	int pids[2], err = 0, i;

	for (i = 0; i < 3 && !err; i++)
		err = start(&p[i]);
	CHECK(!err, "fx_pids: %s", strerror(-err));
	if (err)
		goto out;
	pids[0] = p[0].pid;
	pids[1] = p[1].pid;
	t = new_trace(pids, 2, 0, false, 0, &hs);
	err = t ? usdtkit_trace_add(t, "pidt:tick") : -errno;
	if (!err)
		err = usdtkit_trace_add(t, "pidt:guarded");
	if (!err)
		err = trace_test_start(t);
	CHECK(!err, "trace: %s (%s)", strerror(-err), last_msg);
	if (err)
		goto out;
	/* (each probe is one, over both processes) */
	CHECK(usdtkit_trace_probe_count(t) == 2, "%zu probes", usdtkit_trace_probe_count(t));
	err = say(&p[0], "fire 3");
	if (!err)
		err = say(&p[1], "fire 5");
	if (!err)
		err = say(&p[2], "fire 7");
	CHECK(!err, "fire");
	usdtkit_trace_consume(t);
	/* 3 ticks + guarded, 5 ticks + guarded; not the third's */
	CHECK(hs.pid[0] == (uint32_t)p[0].pid && hs.n[0] == 4 &&
	      hs.pid[1] == (uint32_t)p[1].pid && hs.n[1] == 6 && !hs.n[2] && !hs.other,
	      "hits: %u %d, %u %d, %d; other %d", hs.pid[0], hs.n[0], hs.pid[1], hs.n[1],
	      hs.n[2], hs.other);
	CHECK(!usdtkit_trace_pid_gone(t), "gone while both run");
	reused(t, &p[0], &hs);
	CHECK(!usdtkit_trace_pid_gone(t), "gone while one runs");
	fx_proc_stop(&p[1].pid, &p[1].in, &p[1].out);
	CHECK(usdtkit_trace_pid_gone(t), "not gone once both exited");
out:
	usdtkit_trace_free(t);
	for (i = 0; i < 3; i++)
		fx_proc_stop(&p[i].pid, &p[i].in, &p[i].out);
}

/* a mode that places a probe in one process: refused at the load */
static void test_hwbp(void)
{
	struct proc p[2] = { 0 };
	struct usdtkit_trace *t = NULL;
	int pids[2], err = start(&p[0]);

	if (!err)
		err = start(&p[1]);
	if (err)
		goto out;
	pids[0] = p[0].pid;
	pids[1] = p[1].pid;
	t = new_trace(pids, 2, 0, false, USDTKIT_MODE_HWBP, NULL);
	err = t ? usdtkit_trace_add(t, "pidt:tick") : -errno;
	if (!err)
		err = usdtkit_trace_prepare(t);
	if (!err)
		err = usdtkit_trace_load(t);
	CHECK(err == -EOPNOTSUPP && strstr(last_msg, "several pids: mode hwbp"),
	      "hwbp: %d %s", err, last_msg);
out:
	usdtkit_trace_free(t);
	fx_proc_stop(&p[0].pid, &p[0].in, &p[0].out);
	fx_proc_stop(&p[1].pid, &p[1].in, &p[1].out);
}

int main(int argc, char **argv)
{
	int rc = trace_test_begin(argc, argv, "fx_pids", fx, sizeof(fx));

	if (rc)
		return rc;
	signal(SIGPIPE, SIG_IGN);
	test_refusals();
	test_live();
	test_hwbp();
	return check_done();
}
