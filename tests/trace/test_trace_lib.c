// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The trace engine as a library (<usdtkit/trace.h>), without the CLI:
 * every feature against the known values of fx_tlib (fx_tlib.c says
 * them): hits with a filter, strings, every aggregation, latency, a
 * command whose probe is in its library, a pid target, the metrics
 * (text, file, endpoint), and requests the engine must refuse. Needs root and BPF.
 * usage: test_trace_lib DIR   (DIR: where fx_tlib and its library are)
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <usdtkit/trace.h>

#include "check.h"
#include "trace_test.h"

static char fx[4096];

struct hits {
	int n;
	struct usdtkit_trace_hit last[128];
	char strs[128][8];
};

static int on_hit(void *ctx, const struct usdtkit_trace_hit *h)
{
	struct hits *hs = ctx;

	if (hs->n < 128) {
		hs->last[hs->n] = *h;
		/* the string lives in the ring buffer only during the call */
		if (h->args[0].str)
			snprintf(hs->strs[hs->n], sizeof(hs->strs[0]), "%.*s",
				 (int)h->args[0].str_len, h->args[0].str);
	}
	hs->n++;
	return 0;
}

/* messages, kept for the tests of refusals */
static struct usdtkit_trace *new_trace(const char *filter, unsigned int str_mask,
				       unsigned int str_len, struct hits *hs, int pid)
{
	USDTKIT_OPTS(usdtkit_trace_opts, o, .filter = filter, .str_mask = str_mask,
		     .str_len = str_len, .print = keep_msg, .on_hit = on_hit,
		     .hit_ctx = hs, .pid = pid);

	return usdtkit_trace_new(&o);
}

/* run fx_tlib as the trace's command, attached to @targets */
static int with_cmd(struct usdtkit_trace *t, const char *const *targets)
{
	char *argv[] = { fx, NULL };

	return trace_test_cmd(t, argv, targets);
}

/* until the command exits, then what is left in the buffer */
static void drain_cmd(struct usdtkit_trace *t)
{
	struct pollfd pf = { .fd = usdtkit_trace_fd(t), .events = POLLIN };
	int st, i;

	for (i = 0; i < 1000 && usdtkit_trace_command_exited(t, false, &st) != 1; i++) {
		poll(&pf, 1, 10);
		usdtkit_trace_consume(t);
	}
	usdtkit_trace_consume(t);
}

/* the steps after a setup that returned @err, then the command's hits */
static void run(struct usdtkit_trace *t, int err)
{
	if (!err)
		err = trace_test_start(t);
	CHECK(!err, "start: %s (%s)", strerror(-err), last_msg);
	drain_cmd(t);
}

static void test_hits_filter(void)
{
	static const char *const targets[] = { "tl:val", NULL };
	struct hits hs = { 0 };
	struct usdtkit_trace *t = new_trace("arg0 >= 90", 0, 0, &hs, 0);
	uint64_t kept = 0, dropped = 0;
	int i;

	CHECK(t, "new: %s", strerror(errno));
	if (!t)
		return;
	run(t, with_cmd(t, targets));
	CHECK(hs.n == 10, "filtered hits: %d, want 10", hs.n);
	for (i = 0; i < hs.n && i < 10; i++) {
		const struct usdtkit_trace_hit *h = &hs.last[i];

		CHECK(h->nargs == 2 && h->args[0].ok && h->args[0].i == 90 + i &&
		      h->args[1].i == 1000L * (90 + i) - 50000,
		      "hit %d: nargs %d, %lld %lld", i, h->nargs,
		      (long long)h->args[0].i, (long long)h->args[1].i);
		CHECK(h->args[0].type.size == 4 && h->args[0].type.is_signed &&
		      h->args[1].type.size == 8, "hit %d: types %u %u", i,
		      h->args[0].type.size, h->args[1].type.size);
		CHECK(h->pid == (uint32_t)usdtkit_trace_pid(t) && h->probe == 0 &&
		      h->ts_ns >= usdtkit_trace_start_ns(t), "hit %d: pid %u", i, h->pid);
	}
	CHECK(!usdtkit_trace_counter(t, USDTKIT_TRACE_KEPT, &kept) && kept == 10,
	      "kept %llu", (unsigned long long)kept);
	CHECK(!usdtkit_trace_counter(t, USDTKIT_TRACE_DROPPED, &dropped) && dropped == 90,
	      "dropped %llu", (unsigned long long)dropped);
	usdtkit_trace_free(t);
}

static void test_strings(void)
{
	static const char *const targets[] = { "tl:name", NULL };
	static const char *const want[] = { "alp", "bet", "gam" };
	struct hits hs = { 0 };
	struct usdtkit_trace *t = new_trace(NULL, 1, 3, &hs, 0);
	int i, bad = 0;

	if (!t)
		return;
	run(t, with_cmd(t, targets));
	CHECK(hs.n == 30, "string hits: %d", hs.n);
	for (i = 0; i < hs.n && i < 30; i++)
		bad += strcmp(hs.strs[i], want[i % 3]) || !hs.last[i].args[0].str_cut ||
		       hs.last[i].args[1].i != i;
	CHECK(!bad, "%d hits with a wrong string, cut mark or number", bad);
	usdtkit_trace_free(t);
}

static int add(struct usdtkit_trace *t, enum usdtkit_trace_agg_kind k, int arg, bool str)
{
	USDTKIT_OPTS(usdtkit_trace_agg_opts, o, .arg = arg, .str = str);

	return usdtkit_trace_add_agg(t, k, &o);
}

/* tl:val arg0 = 0..99: count, sum, min, max and the log2 buckets */
static void test_stats_hist(void)
{
	static const char *const targets[] = { "tl:val", NULL };
	/* [0] [1] [2,4) [4,8) ... [64,128): slots 1..8 */
	static const uint64_t want[] = { 0, 1, 1, 2, 4, 8, 16, 32, 36 };
	enum usdtkit_trace_agg_kind k;
	struct usdtkit_trace_stats s;
	uint64_t h[USDTKIT_TRACE_HIST_SLOTS];
	struct hits hs = { 0 };
	struct usdtkit_trace *t = new_trace(NULL, 0, 0, &hs, 0);
	int err = 0, i, bad = 0;

	if (!t)
		return;
	err = add(t, USDTKIT_TRACE_AGG_COUNTS, 0, false);
	err = err ? err : add(t, USDTKIT_TRACE_AGG_HIST, 0, false);
	for (k = USDTKIT_TRACE_AGG_SUM; !err && k <= USDTKIT_TRACE_AGG_MAX; k++)
		err = add(t, k, 0, false);
	CHECK(add(t, USDTKIT_TRACE_AGG_MIN, 1, false) == -EINVAL,
	      "a second argument for the stats is refused");
	run(t, err ? err : with_cmd(t, targets));
	CHECK(hs.n == 0, "aggregated hits are not handed over: %d", hs.n);
	err = usdtkit_trace_read_stats(t, 0, 0, &s);
	CHECK(!err && s.count == 100 && s.sum == 4950 && s.min == 0 && s.max == 99 &&
	      s.is_signed, "stats: %d: count %llu sum %llu min %llu max %llu", err,
	      (unsigned long long)s.count, (unsigned long long)s.sum,
	      (unsigned long long)s.min, (unsigned long long)s.max);
	err = usdtkit_trace_read_hist(t, 0, USDTKIT_TRACE_READ_RESET, h);
	for (i = 0; !err && i < USDTKIT_TRACE_HIST_SLOTS; i++)
		bad += h[i] != (i < 9 ? want[i] : 0);
	CHECK(!err && !bad, "hist: %d, %d buckets wrong", err, bad);
	/* read again: RESET zeroed it, the stats were not reset */
	err = usdtkit_trace_read_hist(t, 0, 0, h);
	for (i = 0, bad = 0; !err && i < USDTKIT_TRACE_HIST_SLOTS; i++)
		bad += h[i] != 0;
	CHECK(!err && !bad, "hist after a reset: %d, %d buckets", err, bad);
	CHECK(!usdtkit_trace_read_stats(t, 0, 0, &s) && s.count == 100, "stats kept");
	CHECK(usdtkit_trace_read_stats(t, 1, 0, &s) == -EINVAL, "no probe 1");
	usdtkit_trace_free(t);
}

static void test_count_by(bool str)
{
	static const char *const targets[] = { "tl:name", NULL };
	struct usdtkit_trace_key_count *rows = NULL;
	struct hits hs = { 0 };
	struct usdtkit_trace *t = new_trace(NULL, 0, 0, &hs, 0);
	size_t n = 0, i;
	int err, bad = 0;

	if (!t)
		return;
	err = add(t, USDTKIT_TRACE_AGG_COUNT_BY, str ? 0 : 1, str);
	run(t, err ? err : with_cmd(t, targets));
	err = usdtkit_trace_read_keys(t, USDTKIT_TRACE_READ_RESET, &rows, &n);
	CHECK(!err && n == (str ? 3 : 30), "keys: %d, %zu", err, n);
	for (i = 0; !err && i < n; i++) {
		if (str)
			bad += rows[i].count != 10 || !rows[i].str || rows[i].cut ||
			       rows[i].str_len != strlen(rows[i].str);
		else
			bad += rows[i].count != 1 || rows[i].str || rows[i].value >= 30;
	}
	/* equal counts: ordered by key */
	if (str && n == 3)
		bad += strcmp(rows[0].str, "alpha") || strcmp(rows[2].str, "gamma");
	CHECK(!bad, "%d wrong key rows", bad);
	usdtkit_trace_keys_free(rows, n);
	err = usdtkit_trace_read_keys(t, 0, &rows, &n);
	CHECK(!err && n == 0, "keys after a reset: %zu", n);
	usdtkit_trace_keys_free(rows, n);
	usdtkit_trace_free(t);
}

static void test_latency(void)
{
	struct usdtkit_trace_stats s;
	uint64_t h[USDTKIT_TRACE_HIST_SLOTS], unmatched = 1;
	struct hits hs = { 0 };
	struct usdtkit_trace *t = new_trace(NULL, 0, 0, &hs, 0);
	char *argv[] = { fx, NULL };
	int err;

	if (!t)
		return;
	USDTKIT_OPTS(usdtkit_trace_agg_opts, o, .start = "tl:begin", .end = "tl:end",
		     .pair = USDTKIT_TRACE_PAIR_ARG, .arg = 0);
	err = usdtkit_trace_set_command(t, argv);
	if (!err)
		err = usdtkit_trace_add_agg(t, USDTKIT_TRACE_AGG_LATENCY, &o);
	run(t, err);
	err = usdtkit_trace_read_latency(t, 0, &s, h, &unmatched);
	/* 2 ms asleep between begin and end, each of 5 ids */
	CHECK(!err && s.count == 5 && s.min >= 2000000 && unmatched == 0,
	      "latency: %d: count %llu min %llu unmatched %llu", err,
	      (unsigned long long)s.count, (unsigned long long)s.min,
	      (unsigned long long)unmatched);
	CHECK(usdtkit_trace_probe_count(t) == 2 &&
	      usdtkit_trace_probe(t, 0)->role == USDTKIT_TRACE_ROLE_START &&
	      usdtkit_trace_probe(t, 1)->role == USDTKIT_TRACE_ROLE_END, "roles");
	usdtkit_trace_free(t);
}

/* the probe is in the command's library, found as the loader finds it */
static void test_cmd_library(void)
{
	static const char *const targets[] = { "tlibl:fire", NULL };
	struct hits hs = { 0 };
	struct usdtkit_trace *t = new_trace(NULL, 0, 0, &hs, 0);
	const struct usdtkit_trace_probe *p;

	if (!t)
		return;
	run(t, with_cmd(t, targets));
	p = usdtkit_trace_probe(t, 0);
	CHECK(hs.n == 7 && p && p->path && strstr(p->path, "libfx_tlib.so"),
	      "library hits %d, path %s", hs.n, p && p->path ? p->path : "-");
	usdtkit_trace_free(t);
}

/* -p: a process that is running, its objects' probes */
static void test_pid(void)
{
	struct hits hs = { 0 };
	struct usdtkit_trace *t;
	int fd[2], st, err, i;
	pid_t pid;

	if (pipe(fd))
		return;
	pid = fork();
	if (pid == 0) {
		dup2(fd[0], 0);
		close(fd[1]);
		execl(fx, fx, "wait", (char *)NULL);
		_exit(127);
	}
	close(fd[0]);
	/* its libraries are mapped once the loader is done: wait for it */
	for (i = 0; i < 200; i++) {
		char maps[64], buf[8192];
		FILE *f;
		size_t n;

		snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
		f = fopen(maps, "r");
		n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		if (f)
			fclose(f);
		buf[n] = 0;
		if (strstr(buf, "libfx_tlib.so"))
			break;
		usleep(10000);
	}
	t = new_trace(NULL, 0, 0, &hs, pid);
	err = t ? usdtkit_trace_add(t, "tl:val") : -errno;
	if (!err)
		err = usdtkit_trace_add(t, "tlibl:fire");
	if (!err)
		err = trace_test_start(t);
	CHECK(!err, "pid target: %s (%s)", strerror(-err), last_msg);
	if (write(fd[1], "go\n", 3) != 3)
		CHECK(0, "write");
	close(fd[1]);
	waitpid(pid, &st, 0);
	if (t)
		usdtkit_trace_consume(t);
	CHECK(hs.n == 107, "pid hits %d, want 100 + 7", hs.n);
	usdtkit_trace_free(t);
}

/* what the engine refuses, each with -errno and a message */
static void test_refusals(void)
{
	struct hits hs = { 0 };
	struct usdtkit_trace *t;
	char path[4200];
	int err;

	errno = 0;
	CHECK(!new_trace("arg0 >", 0, 0, &hs, 0) && errno == EINVAL &&
	      strstr(last_msg, "column"), "bad filter: %s", last_msg);
	CHECK(!new_trace(NULL, 0, 5000, &hs, 0) && errno == EINVAL, "str_len 5000");
	CHECK(usdtkit_trace_filter_check("arg1 == 3 && pid != 1", NULL) == 0, "good filter");
	t = new_trace(NULL, 0, 0, &hs, 0);
	if (!t)
		return;
	CHECK(usdtkit_trace_add(t, "nopath") == -EINVAL, "bad target");
	CHECK(usdtkit_trace_add(t, "tl:val") == -EINVAL, "PROVIDER:NAME without pid");
	/* malformed, -EINVAL (the caller's fault), with the form meant */
	snprintf(path, sizeof(path), "usdt:%s:tl:val", fx);
	err = usdtkit_trace_add(t, path);
	CHECK(err == -EINVAL && strstr(last_msg, "no 'usdt:' prefix: ") &&
	      !strcmp(strstr(last_msg, "prefix: ") + 8, path + 5), "usdt: %d %s", err, last_msg);
	snprintf(path, sizeof(path), "%s:val", fx);
	err = usdtkit_trace_add(t, path);
	CHECK(err == -EINVAL && strstr(last_msg, "::val"), "PATH:NAME: %d %s", err, last_msg);
	snprintf(path, sizeof(path), "%s:x:tl:val", fx);
	err = usdtkit_trace_add(t, path);
	CHECK(err == -EINVAL && strstr(last_msg, "hold no ':'"), "a ':' too many: %d %s", err,
	      last_msg);
	CHECK(usdtkit_trace_add(t, "/nonexistent:tl:val") == -ENOENT, "no file: not malformed");
	snprintf(path, sizeof(path), "%s:tl:vals", fx);
	err = usdtkit_trace_add(t, path);
	CHECK(err == -ENOENT && strstr(last_msg, "did you mean tl:val"),
	      "a typo: %d %s", err, last_msg);
	CHECK(add(t, USDTKIT_TRACE_AGG_COUNT_BY, 12, false) == -EINVAL, "arg12");
	CHECK(add(t, USDTKIT_TRACE_AGG_HIST, 0, true) == -EINVAL, "hist of a string");
	snprintf(path, sizeof(path), "%s:tl:begin", fx);
	CHECK(!usdtkit_trace_add(t, path), "add begin");
	CHECK(!add(t, USDTKIT_TRACE_AGG_HIST, 1, false), "hist arg1");
	err = usdtkit_trace_prepare(t);
	CHECK(err == -EINVAL && strstr(last_msg, "the probe has 1 argument"),
	      "hist arg1 of a 1-argument probe: %d %s", err, last_msg);
	CHECK(usdtkit_trace_load(t) == -EINVAL, "load before a prepare that passed");
	usdtkit_trace_free(t);
}

static bool has(const char *text, size_t len, const char *want)
{
	return memmem(text, len, want, strlen(want)) != NULL;
}

/* GET /metrics from @s, stepping it from this loop as a caller would */
static ssize_t get(struct usdtkit_trace_server *s, char *buf, size_t n)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(usdtkit_trace_server_port(s)),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	static const char req[] = "GET /metrics HTTP/1.0\r\n\r\n";
	struct pollfd pf[2] = { { .fd = usdtkit_trace_server_fd(s), .events = POLLIN } };
	size_t got = 0;
	ssize_t r = 1;
	int fd = socket(AF_INET, SOCK_STREAM, 0), i;

	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    write(fd, req, sizeof(req) - 1) != (ssize_t)sizeof(req) - 1)
		r = -1;
	pf[1] = (struct pollfd){ .fd = fd, .events = POLLIN };
	for (i = 0; r > 0 && got < n && i < 1000; i++) {
		poll(pf, 2, 10);
		usdtkit_trace_server_step(s);
		if (pf[1].revents & POLLIN)
			r = read(fd, buf + got, n - got);
		got += r > 0 ? (size_t)r : 0;
	}
	close(fd);
	return r < 0 ? -1 : (ssize_t)got;
}

/* tl:name: 30 hits, keys alpha, beta, gamma 10 each, as the metrics say */
static void test_metrics(void)
{
	static const char *const targets[] = { "tl:name", NULL };
	USDTKIT_OPTS(usdtkit_trace_metrics_opts, top1, .top = 1);
	struct { struct usdtkit_trace_metrics_opts o; long junk; } big = { top1, 1 };
	struct usdtkit_trace_server *srv;
	struct hits hs = { 0 };
	struct usdtkit_trace *t = new_trace(NULL, 0, 0, &hs, 0);
	char *text = NULL, buf[8192], path[] = "/tmp/usdtkit-metrics-XXXXXX", file[64];
	size_t len = 0;
	ssize_t n;
	FILE *f;
	int err;

	if (!t)
		return;
	err = add(t, USDTKIT_TRACE_AGG_COUNT_BY, 0, true);
	err = err ? err : add(t, USDTKIT_TRACE_AGG_COUNTS, 0, false);
	CHECK(usdtkit_trace_metrics(t, NULL, &text, &len) == -EINVAL, "metrics before the load");
	run(t, err ? err : with_cmd(t, targets));
	err = usdtkit_trace_metrics(t, NULL, &text, &len);
	CHECK(!err && has(text, len, "usdtkit_probe_hits_total{probe=\"tl:name\"} 30\n") &&
	      has(text, len, "{probe=\"tl:name\",key=\"alpha\"} 10\n"), "metrics: %d", err);
	free(text);
	err = usdtkit_trace_metrics(t, &top1, &text, &len);
	CHECK(!err && has(text, len, "key=\"__other__\"} 20\n") &&
	      has(text, len, "usdtkit_series_dropped_total 2\n"), "metrics, top 1: %d", err);
	free(text);
	big.o.sz = sizeof(big);
	CHECK(usdtkit_trace_metrics(t, &big.o, &text, &len) == -EINVAL, "unknown options");
	CHECK(usdtkit_trace_metrics_write(t, NULL, "/nonexistent/x.prom") == -ENOENT &&
	      strstr(last_msg, "/nonexistent/x.prom"), "a file it cannot write: %s", last_msg);
	if (mkdtemp(path)) {
		snprintf(file, sizeof(file), "%s/x.prom", path);
		err = usdtkit_trace_metrics_write(t, NULL, file);
		f = fopen(file, "r");

		n = f ? (ssize_t)fread(buf, 1, sizeof(buf), f) : -1;
		CHECK(!err && n > 0 && has(buf, (size_t)n, "key=\"beta\"} 10\n"), "textfile %d", err);
		if (f)
			fclose(f);
		unlink(file);
		rmdir(path);
	}
	errno = 0;
	CHECK(!usdtkit_trace_serve(t, ":9464", NULL) && errno == EINVAL, "no host: EINVAL");
	srv = usdtkit_trace_serve(t, "127.0.0.1:0", NULL);
	CHECK(srv && usdtkit_trace_server_port(srv) > 0, "serve: %s", last_msg);
	n = srv ? get(srv, buf, sizeof(buf)) : -1;
	CHECK(n > 0 && has(buf, (size_t)n, " 200 OK\r\n") &&
	      has(buf, (size_t)n, "key=\"gamma\"} 10\n"), "GET /metrics: %zd", n);
	usdtkit_trace_server_free(srv);
	usdtkit_trace_free(t);
}

int main(int argc, char **argv)
{
	int rc = trace_test_begin(argc, argv, "fx_tlib", fx, sizeof(fx));

	if (rc)
		return rc;
	signal(SIGPIPE, SIG_IGN);
	test_refusals();
	test_hits_filter();
	test_strings();
	test_stats_hist();
	test_count_by(true);
	test_count_by(false);
	test_latency();
	test_cmd_library();
	test_pid();
	test_metrics();
	return check_done();
}
