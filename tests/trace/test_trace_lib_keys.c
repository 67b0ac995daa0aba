// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The keyed aggregations through the library alone (<usdtkit/trace.h>),
 * on fx_tlib's known values: tl:name(s, i), i = 0..29, s = alpha, beta,
 * gamma in turn; tl:begin(id), tl:end(id), id = 0..4.
 *   - COUNT_BY by "pid,str(arg0)": three keys of 10, the command's pid;
 *     read_keys() still gives the first part (the pid) of each;
 *   - HIST of arg1 with SUM and MAX of arg1, by "str(arg0)": alpha's i
 *     are 0, 3, ..., 27 (sum 135, max 27), its buckets known;
 *   - LATENCY begin -> end by arg0 (the key taken at begin): five keys
 *     of one pair each;
 *   - refusals: a bad key, two keys, a key of an argument a probe lacks;
 *   - a RESET read empties the table.
 * Run under valgrind too. Needs root and BPF.
 * usage: test_trace_lib_keys DIR   (DIR: where fx_tlib is)
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include <usdtkit/trace.h>

#include "check.h"
#include "trace_test.h"

static char fx[4096];
static struct usdtkit_trace *new_cmd(const char *const *targets)
{
	USDTKIT_OPTS(usdtkit_trace_opts, o, .print = keep_msg);
	struct usdtkit_trace *t = usdtkit_trace_new(&o);
	char *argv[] = { fx, NULL };
	int err;

	if (!t)
		return NULL;
	err = trace_test_cmd(t, argv, targets);
	CHECK(!err, "targets: %d (%s)", err, last_msg);
	return t;
}

static int run(struct usdtkit_trace *t)
{
	int err = trace_test_start(t), st, i;

	CHECK(!err, "start: %s (%s)", strerror(-err), last_msg);
	for (i = 0; !err && i < 1000 && usdtkit_trace_command_exited(t, false, &st) != 1; i++)
		poll(NULL, 0, 10);
	return err;
}

static const struct usdtkit_trace_by_row *find(const struct usdtkit_trace_by_row *v,
					       size_t n, unsigned int part, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].parts[part].str && !strcmp(v[i].parts[part].str, s))
			return &v[i];
	return NULL;
}

static void test_count_by(void)
{
	static const char *const targets[] = { "tl:name", NULL };
	USDTKIT_OPTS(usdtkit_trace_agg_opts, by, .by = "pid, str(arg0)");
	struct usdtkit_trace *t = new_cmd(targets);
	struct usdtkit_trace_key_count *kc = NULL;
	struct usdtkit_trace_by_row *v = NULL;
	size_t n = 0, nk = 0, i;
	int err, pid;

	if (!t)
		return;
	err = usdtkit_trace_add_agg(t, USDTKIT_TRACE_AGG_COUNT_BY, &by);
	CHECK(!err, "count_by: %d (%s)", err, last_msg);
	if (err || run(t)) {
		usdtkit_trace_free(t);
		return;
	}
	pid = usdtkit_trace_pid(t);
	err = usdtkit_trace_read_by(t, USDTKIT_TRACE_AGG_COUNT_BY, 0, &v, &n);
	CHECK(!err && n == 3, "rows: %d, %zu", err, n);
	for (i = 0; !err && i < n; i++)
		CHECK(v[i].nparts == 2 && v[i].stats.count == 10 &&
		      v[i].parts[0].kind == USDTKIT_TRACE_PART_PID &&
		      v[i].parts[0].value == (uint64_t)pid &&
		      v[i].parts[1].kind == USDTKIT_TRACE_PART_STR && v[i].parts[1].str,
		      "row %zu: %u parts, count %llu, pid %llu", i, v[i].nparts,
		      (unsigned long long)v[i].stats.count,
		      (unsigned long long)v[i].parts[0].value);
	/* equal counts: by key, the strings in order */
	CHECK(n == 3 && !strcmp(v[0].parts[1].str, "alpha") &&
	      !strcmp(v[2].parts[1].str, "gamma"), "order");
	usdtkit_trace_by_free(v, n);
	err = usdtkit_trace_read_keys(t, 0, &kc, &nk);
	CHECK(!err && nk == 3 && kc[0].value == (uint64_t)pid && kc[0].count == 10,
	      "read_keys: %d, %zu", err, nk);
	usdtkit_trace_keys_free(kc, nk);
	/* RESET: read, then gone */
	err = usdtkit_trace_read_by(t, USDTKIT_TRACE_AGG_COUNT_BY, USDTKIT_TRACE_READ_RESET,
				    &v, &n);
	usdtkit_trace_by_free(v, n);
	err = err ? err : usdtkit_trace_read_by(t, USDTKIT_TRACE_AGG_COUNT_BY, 0, &v, &n);
	CHECK(!err && n == 0, "after a reset: %zu", n);
	usdtkit_trace_by_free(v, n);
	usdtkit_trace_free(t);
}

static void test_hist_stats(void)
{
	static const char *const targets[] = { "tl:name", NULL };
	USDTKIT_OPTS(usdtkit_trace_agg_opts, o, .arg = 1, .by = "str(arg0)");
	/* alpha: 0 | 3 | 6 | 9 12 15 | 18 21 24 27 */
	static const uint64_t alpha[8] = { 0, 1, 0, 1, 1, 3, 4, 0 };
	struct usdtkit_trace *t = new_cmd(targets);
	struct usdtkit_trace_by_row *v = NULL;
	const struct usdtkit_trace_by_row *a;
	size_t n = 0;
	int err = 0, k, bad = 0;

	if (!t)
		return;
	for (k = USDTKIT_TRACE_AGG_HIST; !err && k <= USDTKIT_TRACE_AGG_MAX; k++)
		if (k != USDTKIT_TRACE_AGG_AVG && k != USDTKIT_TRACE_AGG_MIN)
			err = usdtkit_trace_add_agg(t, k, &o);
	CHECK(!err, "aggs: %d (%s)", err, last_msg);
	if (err || run(t)) {
		usdtkit_trace_free(t);
		return;
	}
	err = usdtkit_trace_read_by(t, USDTKIT_TRACE_AGG_HIST, 0, &v, &n);
	a = find(v, n, 0, "alpha");
	CHECK(!err && n == 3 && a && a->hist && a->stats.count == 10 && a->stats.sum == 135,
	      "hist: %d, %zu rows", err, n);
	for (k = 0; a && a->hist && k < 8; k++)
		bad += a->hist[k] != alpha[k];
	CHECK(!bad, "alpha's buckets");
	usdtkit_trace_by_free(v, n);
	err = usdtkit_trace_read_by(t, USDTKIT_TRACE_AGG_MAX, 0, &v, &n);
	/* the largest max first: gamma's 29, beta's 28, alpha's 27 */
	CHECK(!err && n == 3 && v[0].stats.max == 29 && v[2].stats.max == 27 &&
	      !strcmp(v[2].parts[0].str, "alpha") && v[2].stats.sum == 135,
	      "max: %d, %zu", err, n);
	usdtkit_trace_by_free(v, n);
	/* AVG was not asked: SUM..MAX share one table, it reads as well */
	err = usdtkit_trace_read_by(t, USDTKIT_TRACE_AGG_AVG, 0, &v, &n);
	CHECK(!err && n == 3 && !strcmp(v[0].parts[0].str, "gamma") &&
	      v[0].stats.sum == 155 && v[0].stats.count == 10, "avg: %d, %zu", err, n);
	usdtkit_trace_by_free(v, n);
	/* one report's parts from one read: RESET once, then AGAIN gives
	 * that read's keys sorted for another kind, the kernel's table
	 * already empty */
	err = usdtkit_trace_read_by(t, USDTKIT_TRACE_AGG_SUM, USDTKIT_TRACE_READ_RESET,
				    &v, &n);
	CHECK(!err && n == 3 && v[0].stats.sum == 155, "sum, reset: %d, %zu", err, n);
	usdtkit_trace_by_free(v, n);
	err = usdtkit_trace_read_by(t, USDTKIT_TRACE_AGG_MAX, USDTKIT_TRACE_READ_AGAIN,
				    &v, &n);
	CHECK(!err && n == 3 && v[0].stats.max == 29 && v[2].stats.max == 27 &&
	      v[2].stats.count == 10, "max, again: %d, %zu", err, n);
	usdtkit_trace_by_free(v, n);
	err = usdtkit_trace_read_by(t, USDTKIT_TRACE_AGG_MAX, 0, &v, &n);
	CHECK(!err && n == 0, "max after the reset: %d, %zu rows", err, n);
	usdtkit_trace_by_free(v, n);
	usdtkit_trace_free(t);
}

static void test_latency(void)
{
	static const char *const targets[] = { "tl:val", NULL };
	USDTKIT_OPTS(usdtkit_trace_agg_opts, o, .start = "tl:begin", .end = "tl:end",
		     .pair = USDTKIT_TRACE_PAIR_ARG, .arg = 0, .by = "arg0");
	struct usdtkit_trace *t = new_cmd(targets);
	struct usdtkit_trace_by_row *v = NULL;
	size_t n = 0, i;
	int err;

	if (!t)
		return;
	err = usdtkit_trace_add_agg(t, USDTKIT_TRACE_AGG_LATENCY, &o);
	CHECK(!err, "latency: %d (%s)", err, last_msg);
	if (err || run(t)) {
		usdtkit_trace_free(t);
		return;
	}
	err = usdtkit_trace_read_by(t, USDTKIT_TRACE_AGG_LATENCY, 0, &v, &n);
	CHECK(!err && n == 5, "latency rows: %d, %zu", err, n);
	for (i = 0; !err && i < n; i++)
		CHECK(v[i].probe == usdtkit_trace_probe_count(t) && v[i].stats.count == 1 &&
		      v[i].parts[0].value < 5 && v[i].hist && v[i].stats.min > 0,
		      "latency row %zu", i);
	usdtkit_trace_by_free(v, n);
	usdtkit_trace_free(t);
}

static void test_refusals(void)
{
	static const char *const targets[] = { "tl:name", NULL };
	USDTKIT_OPTS(usdtkit_trace_agg_opts, bad, .by = "pid,nope");
	USDTKIT_OPTS(usdtkit_trace_agg_opts, a, .by = "comm");
	USDTKIT_OPTS(usdtkit_trace_agg_opts, b, .arg = 1, .by = "tid");
	USDTKIT_OPTS(usdtkit_trace_agg_opts, c, .by = "str(arg5)");
	struct usdtkit_trace *t = new_cmd(targets);
	int err;

	if (!t)
		return;
	err = usdtkit_trace_add_agg(t, USDTKIT_TRACE_AGG_COUNT_BY, &bad);
	CHECK(err == -EINVAL && strstr(last_msg, "bad key 'pid,nope'"), "%d: %s", err, last_msg);
	CHECK(!usdtkit_trace_add_agg(t, USDTKIT_TRACE_AGG_COUNT_BY, &a), "comm");
	err = usdtkit_trace_add_agg(t, USDTKIT_TRACE_AGG_HIST, &b);
	CHECK(err == -EINVAL && strstr(last_msg, "one key per trace"), "%d: %s", err, last_msg);
	usdtkit_trace_free(t);
	t = new_cmd(targets);
	if (!t)
		return;
	CHECK(!usdtkit_trace_add_agg(t, USDTKIT_TRACE_AGG_COUNT_BY, &c), "str(arg5)");
	err = usdtkit_trace_prepare(t);
	CHECK(err == -EINVAL && strstr(last_msg, "key str(arg5): the probe has 2 arguments"),
	      "%d: %s", err, last_msg);
	usdtkit_trace_free(t);
}

int main(int argc, char **argv)
{
	int rc = trace_test_begin(argc, argv, "fx_tlib", fx, sizeof(fx));

	if (rc)
		return rc;
	test_refusals();
	test_count_by();
	test_hist_stats();
	test_latency();
	return check_done();
}
