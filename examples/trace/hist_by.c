// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * hist_by: a log2 histogram of a USDT probe's argument per key, as
 * bpftrace's @[KEY] = hist(argN), counted in the kernel through
 * <usdtkit/trace.h> alone. Needs root.
 *
 *   hist_by [-p PID | -c 'CMD ARGS'] [-d SEC] TARGET ARG KEY
 *
 * ARG: argN; KEY: argN, str(argN), pid, tid, comm, ustack, or up to 3
 * of them joined by ',' (usdtkit_trace_key_parse()). At Ctrl-C, after
 * SEC seconds or when the process ends, each key's histogram:
 *
 *   sudo ./hist_by -c './db' db:query__done arg1 'str(arg0)'
 *   sudo ./hist_by -p "$(pidof app)" app:request arg2 comm
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <usdtkit/trace.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void print(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	(void)ctx;
	if (level == USDTKIT_LOG_WARN)
		fprintf(stderr, "hist_by: %s\n", msg);
}

static void wait_end(struct usdtkit_trace *t, bool cmd, int secs)
{
	int pid = usdtkit_trace_pid(t);
	long ms;

	for (ms = 0; !stop && (!secs || ms < secs * 1000L); ms += 100) {
		if (cmd ? usdtkit_trace_command_exited(t, false, NULL) == 1 :
			  pid && kill(pid, 0) && errno == ESRCH)
			return;
		poll(NULL, 0, 100);
	}
}

/* one part of a key; strings are raw bytes: shown with control
 * characters as '?' here (usdtkit itself escapes them) */
static void put_part(const struct usdtkit_trace_key_value *v)
{
	size_t i;

	switch (v->kind) {
	case USDTKIT_TRACE_PART_STR:
	case USDTKIT_TRACE_PART_COMM:
		if (!v->str) {
			fputs("(bad pointer)", stdout);
			return;
		}
		for (i = 0; i < v->str_len; i++)
			putchar((unsigned char)v->str[i] < 0x20 || v->str[i] == 0x7f ?
				'?' : v->str[i]);
		return;
	case USDTKIT_TRACE_PART_USTACK:
		for (i = 0; i < v->nframes; i++)
			printf("\n    %s", v->frames[i]);
		printf("\n    (pid %" PRIu64 ")\n", v->value);
		return;
	default:
		printf(v->is_signed ? "%" PRId64 : "%" PRIu64, v->value);
	}
}

/* bucket k: 0 the negatives, 1 zero, k >= 2 [2^(k-2), 2^(k-1)) */
static void put_hist(const uint64_t *h)
{
	int k;

	for (k = 0; k < USDTKIT_TRACE_HIST_SLOTS; k++) {
		if (!h[k])
			continue;
		if (k == 0)
			printf("(..., 0) %12" PRIu64 "\n", h[k]);
		else if (k == 1)
			printf("[0] %12" PRIu64 "\n", h[k]);
		else
			printf("[%" PRIu64 ", %" PRIu64 ") %12" PRIu64 "\n", (uint64_t)1 << (k - 2),
			       k == 65 ? UINT64_MAX : (uint64_t)1 << (k - 1), h[k]);
	}
}

static int report(struct usdtkit_trace *t)
{
	struct usdtkit_trace_by_row *rows = NULL;
	size_t n = 0, i;
	unsigned int p;
	uint64_t full = 0;
	int err = usdtkit_trace_read_by(t, USDTKIT_TRACE_AGG_HIST, 0, &rows, &n);

	/* rows come the key with the most values first */
	for (i = 0; !err && i < n; i++) {
		fputs("@[", stdout);
		for (p = 0; p < rows[i].nparts; p++) {
			if (p)
				fputs(", ", stdout);
			put_part(&rows[i].parts[p]);
		}
		printf("]: %" PRIu64 " values\n", rows[i].stats.count);
		put_hist(rows[i].hist);
	}
	usdtkit_trace_by_free(rows, n);
	if (!err && !usdtkit_trace_counter(t, USDTKIT_TRACE_BY_FULL, &full) && full)
		fprintf(stderr, "hist_by: %" PRIu64 " hits past the table's keys\n", full);
	return err;
}

static int usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-p PID | -c 'CMD ARGS'] [-d SEC] TARGET argN KEY\n", prog);
	return 2;
}

int main(int argc, char **argv)
{
	USDTKIT_OPTS(usdtkit_trace_agg_opts, hist);
	USDTKIT_OPTS(usdtkit_trace_opts, o, .print = print);
	static int (*const steps[])(struct usdtkit_trace *t) = {
		usdtkit_trace_prepare, usdtkit_trace_load, usdtkit_trace_attach,
		usdtkit_trace_go,
	};
	struct sigaction sa = { .sa_handler = on_signal };
	struct usdtkit_trace_key key;
	const char *cmd = NULL;
	int secs = 0, c, n = 0, err;
	struct usdtkit_trace *t;
	size_t i;

	while ((c = getopt(argc, argv, "p:c:d:")) != -1) {
		if (c == 'p')
			o.pid = atoi(optarg);
		else if (c == 'c')
			cmd = optarg;
		else if (c == 'd')
			secs = atoi(optarg);
		else
			return usage(argv[0]);
	}
	if (argc - optind != 3 || (o.pid && cmd) ||
	    sscanf(argv[optind + 1], "arg%d%n", &hist.arg, &n) != 1 || argv[optind + 1][n])
		return usage(argv[0]);
	/* the key's syntax now: a bad one is a usage error */
	if (usdtkit_trace_key_parse(argv[optind + 2], &key)) {
		fprintf(stderr, "hist_by: bad key '%s': want argN, str(argN), pid, tid, "
			"comm or ustack, up to 3 joined by ','\n", argv[optind + 2]);
		return 2;
	}
	hist.by = argv[optind + 2];
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	t = usdtkit_trace_new(&o);
	if (!t) {
		fprintf(stderr, "hist_by: %s\n", strerror(errno));
		return 1;
	}
	err = cmd ? usdtkit_trace_set_command_line(t, cmd) : 0;
	if (!err)
		err = usdtkit_trace_add(t, argv[optind]);
	if (!err)
		err = usdtkit_trace_add_agg(t, USDTKIT_TRACE_AGG_HIST, &hist);
	for (i = 0; !err && !stop && i < sizeof(steps) / sizeof(steps[0]); i++)
		err = steps[i](t);
	if (!err && !stop) {
		fprintf(stderr, "hist_by: counting %s %s by %s; Ctrl-C to end\n", argv[optind],
			argv[optind + 1], hist.by);
		wait_end(t, cmd != NULL, secs);
		err = report(t);
	}
	if (err)
		fprintf(stderr, "hist_by: %s\n", strerror(-err));
	usdtkit_trace_free(t);
	return err ? 1 : 0;
}
