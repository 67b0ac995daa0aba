// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * count_by: how often a USDT probe fires, per value of one of its
 * arguments, counted in the kernel through <usdtkit/trace.h> alone: no
 * BPF code to write, no BPF compiler on the machine. Needs root.
 *
 *   count_by [-p PID | -c 'CMD ARGS'] [-d SEC] [-n TOP] [TARGET [KEY]]
 *
 * TARGET: PATH:PROVIDER:NAME, or PROVIDER:NAME in -p's process or -c's
 * command (default python:function__entry); KEY: argN or str(argN)
 * (default str(arg1), a Python function's name). The TOP keys (10; 0:
 * all) are printed at Ctrl-C, after SEC seconds, or when the process ends:
 *
 *   sudo ./count_by -c 'python3.11 script.py'
 *   sudo ./count_by -p "$(pidof app)" myprov:request 'str(arg3)'
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

/* the library never prints: its one-line diagnostics come here */
static void print(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	(void)ctx;
	if (level == USDTKIT_LOG_WARN)
		fprintf(stderr, "count_by: %s\n", msg);
}

/* "argN" or "str(argN)"; whether the probe has argN is prepare()'s to say */
static int parse_key(const char *s, struct usdtkit_trace_agg_opts *by)
{
	int n = 0;

	by->str = !strncmp(s, "str(", 4);
	s += by->str ? 4 : 0;
	if (sscanf(s, "arg%d%n", &by->arg, &n) != 1 || by->arg < 0)
		return -EINVAL;
	return strcmp(s + n, by->str ? ")" : "") ? -EINVAL : 0;
}

/*
 * python3.11 (Debian 12's 3.11.2) fires function__entry for a call made by
 * Python code only while python:line's semaphore is up too: without it,
 * only calls from C fire. line is attached for that alone, past the
 * first @nprobes, the ones reported.
 */
static int add_python_line(struct usdtkit_trace *t, size_t nprobes)
{
	const struct usdtkit_trace_probe *p;
	char target[4096];
	size_t i;

	for (i = 0; i < nprobes; i++) {
		p = usdtkit_trace_probe(t, i);
		if (strcmp(p->provider, "python") || strcmp(p->name, "function__entry"))
			continue;
		snprintf(target, sizeof(target), "%s%spython:line",
			 p->path ? p->path : "", p->path ? ":" : "");
		return usdtkit_trace_add(t, target);
	}
	return 0;
}

/* the counts live in the kernel: there is nothing to consume meanwhile */
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

static int report(struct usdtkit_trace *t, size_t nprobes, bool str, int top)
{
	struct usdtkit_trace_key_count *rows = NULL;
	const struct usdtkit_trace_probe *p;
	size_t n = 0, i, shown = 0;
	uint64_t full = 0;
	int err = usdtkit_trace_read_keys(t, 0, &rows, &n);

	for (i = 0; !err && i < n && (!top || shown < (size_t)top); i++) {
		const struct usdtkit_trace_key_count *r = &rows[i];

		if (r->probe >= nprobes)
			continue;
		shown++;
		printf("%12" PRIu64 "  ", r->count);
		/* each probe a glob matched has keys of its own */
		p = usdtkit_trace_probe(t, r->probe);
		if (nprobes > 1)
			printf("%s:%s ", p->provider, p->name);
		if (str && !r->str)
			puts("(bad pointer)");
		else if (str)
			printf("%.*s%s\n", (int)r->str_len, r->str, r->cut ? "..." : "");
		else if (r->is_signed)
			printf("%" PRId64 "\n", (int64_t)r->value);
		else
			printf("%" PRIu64 "\n", r->value);
	}
	usdtkit_trace_keys_free(rows, n);
	/* the kernel's table is sized at load: say what it could not hold */
	if (!err && !usdtkit_trace_counter(t, USDTKIT_TRACE_BY_FULL, &full) && full)
		fprintf(stderr, "count_by: %" PRIu64 " hits of keys past the first %d\n",
			full, USDTKIT_TRACE_BY_KEYS);
	return err;
}

static int usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-p PID | -c 'CMD ARGS'] [-d SEC] [-n TOP]"
		" [TARGET [argN | str(argN)]]\n", prog);
	return 2;
}

static const struct {
	const char *name;
	int (*fn)(struct usdtkit_trace *t);
} steps[] = {
	{ "prepare", usdtkit_trace_prepare },
	{ "load", usdtkit_trace_load },
	{ "attach", usdtkit_trace_attach },
	{ "go", usdtkit_trace_go },
};

int main(int argc, char **argv)
{
	USDTKIT_OPTS(usdtkit_trace_agg_opts, by, .arg = 1, .str = true);
	USDTKIT_OPTS(usdtkit_trace_opts, o, .print = print);
	const char *target = "python:function__entry", *key = "str(arg1)", *step = "setup";
	struct sigaction sa = { .sa_handler = on_signal };
	const char *cmd = NULL;
	int secs = 0, top = 10, c, err;
	struct usdtkit_trace *t;
	size_t nprobes, i;

	while ((c = getopt(argc, argv, "p:c:d:n:")) != -1) {
		if (c == 'p')
			o.pid = atoi(optarg);
		else if (c == 'c')	/* words as sh splits them, no expansion */
			cmd = optarg;
		else if (c == 'd')
			secs = atoi(optarg);
		else if (c == 'n')
			top = atoi(optarg);
		else
			return usage(argv[0]);
	}
	if (optind < argc)
		target = argv[optind++];
	if (optind < argc)
		key = argv[optind++];
	if (optind != argc || (o.pid && cmd) || parse_key(key, &by))
		return usage(argv[0]);
	/* no SA_RESTART: a signal cuts the wait short (the library handles
	 * none, and usdtkit_trace_free() stops a command still running) */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	t = usdtkit_trace_new(&o);
	if (!t) {
		fprintf(stderr, "count_by: %s\n", strerror(errno));
		return 1;
	}
	/* the command first: PROVIDER:NAME targets are looked up in it */
	err = cmd ? usdtkit_trace_set_command_line(t, cmd) : 0;
	if (!err)
		err = usdtkit_trace_add(t, target);
	nprobes = usdtkit_trace_probe_count(t);
	if (!err)
		err = add_python_line(t, nprobes);
	if (!err)
		err = usdtkit_trace_add_agg(t, USDTKIT_TRACE_AGG_COUNT_BY, &by);
	for (i = 0; !err && !stop && i < sizeof(steps) / sizeof(steps[0]); i++) {
		step = steps[i].name;
		err = steps[i].fn(t);
	}
	if (!err && !stop) {
		fprintf(stderr, "count_by: counting %s by %s; Ctrl-C to end\n", target, key);
		wait_end(t, cmd != NULL, secs);
		step = "read";
		err = report(t, nprobes, by.str, top);
	}
	if (err)
		fprintf(stderr, "count_by: %s: %s\n", step, strerror(-err));
	usdtkit_trace_free(t);
	return err ? 1 : 0;
}
