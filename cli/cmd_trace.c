// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit trace [-p PID[,PID...]... | -c CMD] [--mode auto|multi|perf|ipmap|inst|hwbp] [--count N]
 *               [--duration SEC] [--json] [-v] TARGET...
 * TARGET: PATH:PROVIDER:NAME, or PROVIDER:NAME with -p or -c (shell globs
 * in PROVIDER and NAME). One line (or JSON object) per probe hit, until
 * Ctrl-C, --count hits, --duration seconds or the end of PID or CMD; lost
 * events on stderr. -c runs CMD held before its exec until every probe is
 * attached (trace_cmd.c says how).
 *
 * The engine is the library's (<usdtkit/trace.h>, trace/): this file
 * reads the options, drives the engine's steps, waits on its ring buffer
 * and the signals, and prints.
 */
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include <bpf/libbpf.h>

#include <usdtkit/trace.h>

#include "base/clock.h"
#include "cli.h"
#include "trace.h"
#include "trace_opts.h"

/*
 * Signals. SIGINT and SIGTERM (and SIGCHLD, CMD's end) are blocked from
 * the start of the command and read from a signalfd: one that comes at
 * any point stays pending until read. The setup looks at it between its
 * steps (setup_step()), and run() polls it with the ring buffer, so one
 * that comes after the loop's test and before the poll still wakes it.
 * (A handler setting a flag was looked at only once the setup was done,
 * and only at the next 100 ms tick of the poll.) No handler is left for
 * the held child of -c: a Ctrl-C it gets while held kills it.
 */
static int signals_open(void)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	/* a shell starts a background job with SIGINT ignored: Ctrl-C (or
	 * kill -INT) still ends a trace, as it did with a handler */
	sigaction(SIGINT, &dfl, NULL);
	sigaction(SIGTERM, &dfl, NULL);
	signal(SIGPIPE, SIG_IGN);
	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* The first SIGINT or SIGTERM received, or 0 (a SIGCHLD is only read:
 * run() asks waitpid() whether CMD has ended). */
static int stop_signal(struct tracer *t)
{
	struct signalfd_siginfo si;

	while (!t->stop_sig && read(t->sig_fd, &si, sizeof(si)) == sizeof(si))
		if (si.ssi_signo != SIGCHLD)
			t->stop_sig = (int)si.ssi_signo;
	return t->stop_sig;
}

/*
 * The points of setup() where a signal stops it. Test hook, not for
 * users: USDTKIT_TEST_SIGNAL_AT=STEP has trace send itself SIGTERM on
 * reaching STEP, as if it came from outside at that moment, so that
 * tests/cli/cli_trace_signal.sh checks each step without racing a sleep.
 */
enum setup_step { STEP_OPEN, STEP_SPAWN, STEP_LOAD, STEP_ATTACH, STEP_GO };

static const char *const step_names[] = {
	[STEP_OPEN] = "open",		/* a TARGET's files read */
	[STEP_SPAWN] = "spawn",		/* -c: CMD forked, held before exec */
	[STEP_LOAD] = "load",		/* the BPF program loaded */
	[STEP_ATTACH] = "attach",	/* a probe attached (others may follow) */
	[STEP_GO] = "go",		/* all attached: -c lets CMD exec next */
};

/* At @step of the setup: -EINTR once a SIGINT or SIGTERM has come. */
static int setup_step(struct tracer *t, enum setup_step step)
{
	const char *at = getenv("USDTKIT_TEST_SIGNAL_AT");

	if (at && !strcmp(at, step_names[step]))
		kill(getpid(), SIGTERM);
	return stop_signal(t) ? -EINTR : 0;
}

/* libbpf explains a failed load at length: only with -v, we say why. */
static bool libbpf_verbose;

static int libbpf_msg(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!libbpf_verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int on_hit(void *ctx, const struct usdtkit_trace_hit *h)
{
	struct tracer *t = ctx;
	const struct usdtkit_trace_probe *p = usdtkit_trace_probe(t->tr, h->probe);

	if (t->count && t->printed >= t->count)
		return 0;
	if (t->json)
		trace_event_json(t->out, p, h);
	else
		trace_event_text(t->out, usdtkit_trace_start_ns(t->tr), p, h);
	t->printed++;
	return 0;
}

/* --count with aggregations: the hits the filter kept, as the program
 * counts them (read at each poll: a few more may be aggregated) */
static bool count_reached(struct tracer *t)
{
	uint64_t kept;

	if (!t->count)
		return false;
	if (!trace_agg_any(t))
		return t->printed >= t->count;
	return !usdtkit_trace_counter(t->tr, USDTKIT_TRACE_KEPT, &kept) && kept >= t->count;
}

/* ms until @deadline (0: none), at most @timeout */
static int until(uint64_t now, uint64_t deadline, int timeout)
{
	if (deadline && (deadline - now) / 1000000 < (uint64_t)timeout)
		return (int)((deadline - now) / 1000000) + 1;
	return timeout;
}

/*
 * Wait up to @timeout ms for the ring buffer or a signal, then read the
 * events; their number or a negative errno. One poll for both: a signal
 * that came since run() last looked stays pending and ends it at once.
 */
static int wait_events(struct tracer *t, int timeout)
{
	struct pollfd fds[] = {
		{ .fd = usdtkit_trace_fd(t->tr), .events = POLLIN },
		{ .fd = t->sig_fd, .events = POLLIN },
		{ .fd = t->server ? usdtkit_trace_server_fd(t->server) : -1,
		  .events = POLLIN },
	};

	if (poll(fds, 3, timeout) < 0)
		return -errno;
	/* the program wakes us only when the ring fills up (a wakeup per
	 * hit costs more than the hit): read what came anyway */
	return usdtkit_trace_consume(t->tr);
}

/* how CMD ended, once, as the library tells it (-1: nothing to say) */
static void say_exit(const struct tracer *t, int st)
{
	int pid = usdtkit_trace_pid(t->tr);

	if (st == -1)
		return;
	if (WIFEXITED(st))
		trace_err("command pid %d exited with status %d", pid, WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		trace_err("command pid %d killed by signal %d (%s)", pid,
			  WTERMSIG(st), strsignal(WTERMSIG(st)));
}

/* -c: has CMD exited? (reaped, its status said) */
static bool cmd_exited(struct tracer *t)
{
	int st;

	if (usdtkit_trace_command_exited(t->tr, false, &st) != 1)
		return false;
	say_exit(t, st);
	return true;
}

/* --serve: the end of PID or CMD is said once, and the trace goes on
 * serving its counts until a signal; else it ends the trace */
static bool target_gone(struct tracer *t)
{
	if (t->cmd && !t->gone && cmd_exited(t))
		t->gone = true;
	/* -p: nothing more can come once the process is gone
	 * (--children: once every process traced is) */
	if (!t->cmd && !t->gone && usdtkit_trace_pid_gone(t->tr)) {
		char pids[96] = "";
		size_t i;

		/* (several: every one of them) */
		for (i = 0; i < t->pids.n; i++)
			snprintf(pids + strlen(pids), sizeof(pids) - strlen(pids), "%s%d",
				 i ? "," : "", t->pids.v[i]);
		trace_err("pid%s %s%s exited", t->pids.n > 1 ? "s" : "", pids,
			  !t->children ? "" : t->pids.n > 1 ? " and their children" :
			  " and its children");
		t->gone = true;
	}
	return t->gone && !t->server;
}

/* Poll until a signal, the count or the duration; 0 or a negative errno. */
static int run(struct tracer *t)
{
	uint64_t start = usdtkit_trace_start_ns(t->tr);
	uint64_t end = t->duration > 0 ? start + (uint64_t)(t->duration * 1e9) : 0;
	/* metrics: --interval is the textfile's, and nothing is reset */
	uint64_t step = trace_metrics_on(t) ? 0 : (uint64_t)(t->agg.interval * 1e9);
	uint64_t tick = step ? start + step : 0;
	uint64_t refresh = 0;	/* trace_refresh_tick()'s */
	int err, st;

	while (!stop_signal(t) && !count_reached(t)) {
		int timeout = 100;
		uint64_t now = clock_mono_ns();

		if (end && now >= end)
			break;
		/* --interval: a report per interval, each starting afresh */
		if (tick && now >= tick) {
			if (trace_agg_report(t, true, now))
				return -EIO;
			tick += step;
		}
		/* a package upgrade replaced a traced file: attach to the new one */
		trace_refresh_tick(t, now, &refresh);
		timeout = until(now, end, until(now, tick, timeout));
		err = wait_events(t, timeout);
		if (trace_metrics_step(t, clock_mono_ns()))
			return -EIO;
		/* a closed pipe (| head) ends the trace like Ctrl-C, a
		 * full -o FILE too (said at the end) */
		if (trace_out_broken(t))
			break;
		/* -c: CMD has exited (reaped, with its status on stderr) */
		if (target_gone(t))
			break;
		/* EINTR would be harmless: the signalfd says what came */
		if (err < 0 && err != -EINTR) {
			trace_err("reading events: %s", strerror(-err));
			return err;
		}
	}
	/* -c: CMD ends with the trace, still traced on its way out */
	if (t->cmd && usdtkit_trace_command_stop(t->tr, &st) == 1)
		say_exit(t, st);
	/* what came in since the last poll: the last hits of a process that
	 * has exited, or those before Ctrl-C (on_hit() keeps to --count) */
	if (!t->out->err && !ferror(t->out->f)) {
		usdtkit_trace_consume(t->tr);
		jw_flush(t->out);
	}
	return 0;
}

static void report(struct tracer *t)
{
	uint64_t dropped = 0, lost = 0, kept = 0;

	if (usdtkit_trace_counter(t->tr, USDTKIT_TRACE_DROPPED, &dropped) ||
	    usdtkit_trace_counter(t->tr, USDTKIT_TRACE_LOST, &lost) ||
	    usdtkit_trace_counter(t->tr, USDTKIT_TRACE_KEPT, &kept)) {
		trace_err("cannot read the event counters");
		return;
	}
	if (trace_agg_any(t))
		fprintf(stderr, "usdtkit trace: %" PRIu64 " hit%s aggregated", kept,
			kept == 1 ? "" : "s");
	else
		fprintf(stderr, "usdtkit trace: %llu hit%s printed, %" PRIu64 " lost%s",
			t->printed, t->printed == 1 ? "" : "s", lost,
			lost ? " (ring buffer full)" : "");
	if (t->filter)
		fprintf(stderr, ", %" PRIu64 " dropped by the filter", dropped);
	fputc('\n', stderr);
	/* aggregated in the kernel before the filter could read a string:
	 * kept, never dropped for it (printed hits are decided late) */
	if (t->filter && trace_agg_any(t) &&
	    !usdtkit_trace_counter(t->tr, USDTKIT_TRACE_UNDECIDED, &lost) && lost)
		trace_err("--filter: %" PRIu64 " hit%s kept undecided: a string was not "
			  "in memory and this kernel cannot fault it in at the hit",
			  lost, lost == 1 ? "" : "s");
	/* keys past the keyed tables' entries: their hits are in no row */
	if (t->agg.by_kinds && !usdtkit_trace_counter(t->tr, USDTKIT_TRACE_BY_FULL, &lost) &&
	    lost)
		trace_err("%s: %" PRIu64 " hit%s of keys past the first %llu not counted",
			  t->agg.count_by ? "--count-by" : "--by",
			  lost, lost == 1 ? "" : "s",
			  t->agg.by_keys ? t->agg.by_keys : USDTKIT_TRACE_BY_KEYS);
	/* stacks past the stack maps' room: counted, without frames */
	if (t->agg.by_kinds &&
	    !usdtkit_trace_counter(t->tr, USDTKIT_TRACE_STACK_FULL, &lost) && lost)
		trace_err("ustack: %" PRIu64 " hit%s of stacks past the stack maps' room "
			  "counted without frames (--by-keys raises it)",
			  lost, lost == 1 ? "" : "s");
	if (t->verbose)
		fprintf(stderr, "usdtkit trace: %" PRIu64 " hits in BPF\n", kept + dropped);
	if (t->verbose && t->children &&
	    !usdtkit_trace_counter(t->tr, USDTKIT_TRACE_FORKS, &lost))
		fprintf(stderr, "usdtkit trace: --children: %" PRIu64 " fork%s followed\n",
			lost, lost == 1 ? "" : "s");
}

static void cleanup(struct tracer *t)
{
	trace_metrics_end(t);
	usdtkit_trace_free(t->tr);
	cli_pids_free(&t->pids);
	free(t->out);
	/* the signals stay blocked: one during the exit changes nothing */
	close(t->sig_fd);
}

/* ---- options ---- */

static const struct cli_opt trace_options[] = {
	{ 'p', 'p', "pid", "PID[,PID...]", "only these processes (repeatable); PROVIDER:NAME targets are their objects" },
	{ 'c', 'c', "command", "CMD", "run CMD, traced from its start, until it exits" },
	{ OPT_ALL, 0, "all", NULL,
	  "every process of the host, now and later: PROVIDER:NAME targets" },
	{ OPT_CHILDREN, 0, "children", NULL,
	  "with -p or -c: also the processes it forks, and theirs" },
	{ OPT_NO_HOLD, 0, "no-hold", NULL,
	  "with -p or -c: attach a library it loads later without holding it (no ptrace)" },
	{ OPT_MODE, 0, "mode", "MODE", "auto, multi, perf, ipmap, inst or hwbp (default auto)" },
	{ OPT_COUNT, 0, "count", "N", "stop after N hits" },
	{ 'd', 'd', "duration", "SEC", "stop after SEC seconds (a fraction is fine)" },
	{ 'j', 0, "json", NULL, "one JSON object per hit" },
	{ 'o', 'o', "output", "FILE",
	  "write the hits and tables to FILE (created or truncated), not stdout" },
	{ OPT_STR, 0, "str", "N[,N...]",
	  "print argument N (0-based) as the string it points to" },
	{ OPT_STRLEN, 0, "strlen", "L",
	  "print at most L bytes of a --str string (default 128, max 4096)" },
	{ OPT_NO_FAULT_IN, 0, "no-fault-in", NULL,
	  "never fault a string's page in at the hit: read it late (read late)" },
	{ 'f', 'f', "filter", "EXPR", "keep only the hits where EXPR holds (in the kernel)" },
	{ OPT_COUNTS, 0, "counts", NULL, "count the hits of each probe" },
	{ OPT_COUNT_BY, 0, "count-by", "KEY", "count hits by KEY (argN, str(argN), pid, tid, comm, "
	  "ustack, cgroup, or up to 3 joined by ','): a top-N table" },
	{ OPT_BY, 0, "by", "KEY", "--hist, --sum..., --latency per KEY (as --count-by's)" },
	{ OPT_TOP, 0, "top", "N", "rows (keys) of a keyed table (default 20)" },
	{ OPT_STACK_DEPTH, 0, "stack-depth", "N", "frames of a ustack key (default 16, max 127)" },
	{ OPT_STACK_FP, 0, "stack-fp", NULL,
	  "ustack by frame pointers only (the kernel's walk), not by .eh_frame" },
	{ OPT_BY_KEYS, 0, "by-keys", "N", "entries of the keyed tables (default 10240)" },
	{ OPT_HIST, 0, "hist", "ARG", "a log2 histogram of argN per probe" },
	{ OPT_SUM, 0, "sum", "ARG", "the sum of argN per probe" },
	{ OPT_AVG, 0, "avg", "ARG", "the average of argN per probe" },
	{ OPT_MIN, 0, "min", "ARG", "the minimum of argN per probe" },
	{ OPT_MAX, 0, "max", "ARG", "the maximum of argN per probe" },
	{ 'i', 'i', "interval", "SEC", "print (and reset) the aggregations every SEC seconds" },
	{ OPT_SERVE, 0, "serve", "ADDR:PORT", "answer GET /metrics (Prometheus) until a signal" },
	{ OPT_TEXTFILE, 0, "textfile", "PATH", "write the metrics to PATH every --interval (15s)" },
	{ OPT_MAX_SERIES, 0, "max-series", "N", "at most N --count-by series (default 10000)" },
	{ OPT_PRINT_HITS, 0, "print-hits", NULL, "--serve, --textfile: print the hits too" },
	{ OPT_LATENCY, 0, "latency", "START END",
	  "histogram of the time from each START hit to the next END hit" },
	{ OPT_KEY, 0, "key", "KEY", "pair --latency hits by tid (default), pid, argN or str(argN)" },
	{ 'v', 'v', "verbose", NULL, "say what is attached, what the load cost, and libbpf's messages" },
	{ 'q', 'q', "quiet", NULL, "no \"Tracing N probes\" line once attached" },
	{ OPT_BEST_EFFORT, 0, "best-effort", NULL,
	  "skip probes a glob matched that cannot be attached" },
	{ OPT_ARGS_FILE, 0, "args-file", "FILE",
	  "the arguments from FILE, one per line (first, before any other)" },
	{ 'h', 'h', "help", NULL, "print this help and exit" },
	{ 0 }
};

const struct cli_cmd cli_cmd_trace = {
	.name = "trace",
	.fn = cmd_trace,
	.summary = "print USDT probe hits with their arguments (BPF)",
	.synopsis = "[-p PID[,PID...]... | -c CMD | --all] [--children] [--no-hold] [--mode auto|multi|perf|ipmap|inst|hwbp] [--count N]\n"
		"                     [--duration SEC] [--json] [-o FILE] [--str N[,N...]] [--strlen L]\n"
		"                     [--no-fault-in] [-v] [-q]\n"
		"                     [--filter EXPR] [--counts] [--count-by KEY [--top N]]\n"
		"                     [--hist ARG] [--sum|--avg|--min|--max ARG] [--interval SEC]\n"
		"                     [--latency START END [--key KEY]] [--by KEY]\n"
		"                     [--stack-depth N] [--stack-fp] [--by-keys N] [--best-effort]\n"
		"                     [--serve ADDR:PORT] [--textfile PATH] [--max-series N]\n"
		"                     [--print-hits] TARGET...",
	.description =
		"  Print every hit of USDT probes: time (s since start), pid, tid,\n"
		"  probe and arguments with their sign and width. TARGET is\n"
		"  PATH:PROVIDER:NAME, or PROVIDER:NAME with -p (every object that\n"
		"  PID maps); PROVIDER and NAME are shell globs. -p also limits a\n"
		"  PATH target to that process. Several pids: -p 1,2 -p 3 (pidof -d,\n"
		"  NAME prints them so); a probe's hits in all of them count as one,\n"
		"  and the trace ends when every one has exited.\n"
		"  --all: PROVIDER:NAME in every process\n"
		"  of the host that maps an object with it, running or started later\n"
		"  (each exec held until its program is attached: CAP_SYS_ADMIN).\n"
		"  Stops on Ctrl-C, after N hits or\n"
		"  SEC seconds; lost events are reported on stderr. Once every\n"
		"  target is attached, a line on stderr says so (-q: not).\n"
		"  -c CMD: run CMD (split into words; quotes but no expansions; a\n"
		"  #! script too), its probes attached before it starts, as with -p\n"
		"  its pid; PROVIDER:NAME targets are those of its executable, of the\n"
		"  libraries it loads, and of the program it execs (a script's, a\n"
		"  shim's: attached at that exec). The trace ends when CMD exits; a\n"
		"  trace that ends first terminates CMD.\n"
		"  -o FILE: the hits and tables go to FILE (created or truncated), not\n"
		"  to stdout; messages stay on stderr, and CMD keeps trace's stdout.\n"
		"  --json: one object per hit: {\"ts_ns\",\"pid\",\"tid\",\"provider\",\n"
		"  \"name\",\"args\":[...]} (+ \"err\" when an argument is unreadable).\n"
		"  --str 0,2: arguments 0 and 2 (numbered as in `usdtkit list`) are\n"
		"  pointers to NUL-terminated strings, printed quoted and escaped;\n"
		"  one longer than --strlen is cut (text: \"...\"..., JSON: listed in\n"
		"  \"truncated\"); a bad pointer prints <fault 0xADDR> (JSON: null).\n"
		"  A string on a page the process has not touched yet is faulted in\n"
		"  at the hit where the kernel can (sleepable uprobes, Linux 6.0;\n"
		"  uprobe_multi 6.6); elsewhere, or with --no-fault-in, it is read\n"
		"  after the hit from /proc/PID/mem and marked (read late) (JSON:\n"
		"  listed in \"late\"); a filter that needs such a string keeps the\n"
		"  hit and decides once it is read (see usdtkit-trace(1)).\n"
		"  A probe that a glob matched and that cannot be attached fails the\n"
		"  trace (exit 1); --best-effort skips it and traces the others.\n"
		"  --filter EXPR: argN, integers, pid, tid, == != < <= > >=, & (a mask),\n"
		"  && || ! ( ), str(argN) == \"text\" (\"text*\": a prefix); e.g.\n"
		"  'arg1 > 100 && str(arg0) == \"/api*\"'. Run in the kernel: a hit that\n"
		"  fails is never sent. A bad EXPR: its column, exit 2.\n"
		"  --counts, --count-by, --hist, --sum, --avg, --min, --max, --latency:\n"
		"  counted in the kernel, nothing printed per hit; the result comes at\n"
		"  the end (and every --interval SEC, each interval on its own). ARG is\n"
		"  argN. --latency START END: a log2\n"
		"  histogram of the ns from START to the next END of the same --key\n"
		"  (tid, pid, argN or str(argN)). Every option applies to every TARGET.\n"
		"  KEY (--count-by, --by): argN, str(argN), pid, tid, comm (the thread's\n"
		"  name), ustack (the user stack, --stack-depth frames), or up to 3 of\n"
		"  them joined by ','; --by KEY makes --hist, --sum... and --latency (its\n"
		"  key taken at START) one per KEY; one KEY per trace. --top N: the N\n"
		"  highest keys of each. A ustack is unwound with each object's call\n"
		"  frame information (.eh_frame, on x86-64 and arm64), by frame\n"
		"  pointers where there is none, or with --stack-fp.\n"
		"  --serve ADDR:PORT (127.0.0.1:9464), --textfile PATH: the aggregations\n"
		"  as Prometheus metrics, cumulative, --serve until a signal; no table or\n"
		"  hit is printed (--print-hits: hits are). See docs/METRICS.md.\n"
		"  No compiler runs: one precompiled BPF program, configured by maps.\n"
		"  --args-file FILE: the arguments, one per line (no quoting; blank\n"
		"  and # lines skipped), for a service. A PATH target's file replaced\n"
		"  by an upgrade is attached again within 2 s, its counts going on.\n",
	.opts = trace_options,
	.operand = "target",
};

/* --str N[,N...]: argument numbers into t->str_mask; -1 if bad */
static int parse_str(struct tracer *t, const char *val)
{
	char *copy = strdup(val), *tok, *save = NULL;
	unsigned long long n;
	int err = copy ? 0 : -1;

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		if (cli_parse_ulong(tok, 0, MAX_ARGS - 1, &n))
			t->str_mask |= 1u << n;
		else
			err = -1;
	}
	/* "" or "," names no argument */
	if (!err && !strpbrk(val, "0123456789"))
		err = -1;
	free(copy);
	return err;
}

/*
 * "trace PATH:P:N -p 123": options stop at the first TARGET, so -p would
 * be a TARGET. A word that begins with '-' and has no ':' is no TARGET
 * (each has one): said as the option it is.
 */
static bool option_after_target(const struct cli_cmd *c, int argc, char **argv, int first)
{
	int i;

	for (i = first + 1; i < argc; i++) {
		if (argv[i][0] != '-' || strchr(argv[i], ':'))
			continue;
		cli_usage_err(c, "options go before the TARGETs: '%s' comes after '%s'",
			      argv[i], argv[first]);
		return true;
	}
	return false;
}

/* Options into @t; the index of the first TARGET, or -EXIT code
 * (-EXIT_HELP: the help was printed). */
static int parse_opts(struct tracer *t, int argc, char **argv)
{
	const struct cli_cmd *c = &cli_cmd_trace;
	unsigned long long v;
	struct cli_parser p;
	char *end;
	int key, m, first;

	cli_parser_init(&p, c, argc, argv);
	while ((key = cli_next(&p)) != CLI_END) {
		switch (key) {
		case CLI_ERROR:
			return -EXIT_USAGE;
		case CLI_OPERAND:
			/* options stop at the first TARGET, as before */
			first = p.i - 1;
			goto done;
		case 'j':
			t->json = true;
			break;
		case OPT_BEST_EFFORT:
			t->best_effort = true;
			break;
		case OPT_STR:
			if (parse_str(t, p.val)) {
				cli_usage_err(c, "bad --str '%s': want argument numbers "
					      "0 to %d, separated by commas", p.val,
					      MAX_ARGS - 1);
				return -EXIT_USAGE;
			}
			break;
		case OPT_STRLEN:
			if (!cli_parse_ulong(p.val, 1, USDTKIT_TRACE_STRLEN_MAX, &v)) {
				cli_usage_err(c, "bad --strlen '%s': want 1 to %d bytes",
					      p.val, USDTKIT_TRACE_STRLEN_MAX);
				return -EXIT_USAGE;
			}
			t->str_len = (unsigned int)v;
			break;
		case 'v':
			t->verbose = true;
			break;
		case 'q':
			t->quiet = true;
			break;
		case OPT_CHILDREN:
			t->children = true;
			break;
		case OPT_NO_FAULT_IN:
			t->no_fault_in = true;
			break;
		case OPT_NO_HOLD:
			t->no_hold = true;
			break;
		case OPT_STACK_FP:
			t->stack_fp = true;
			break;
		case OPT_ALL:
			t->all = true;
			break;
		case 'p':
			/* repeated, or PID,PID...: several */
			if (!cli_parse_pids(c, p.val, &t->pids))
				return -EXIT_USAGE;
			t->pid = t->pids.v[0];
			break;
		case OPT_MODE:
			m = usdtkit_mode_parse(p.val);
			if (m < 0) {
				cli_usage_err(c, "bad mode '%s': want auto, multi, perf, ipmap, inst or hwbp",
					      p.val);
				return -EXIT_USAGE;
			}
			t->mode = (enum usdtkit_mode)m;
			break;
		case 'o':
			t->out_path = p.val;
			break;
		case 'c':
			/* split (and a bad one told, exit 2) by the library */
			t->cmd = p.val;
			break;
		case OPT_COUNT:
			if (!cli_parse_ulong(p.val, 1, ULLONG_MAX, &t->count)) {
				cli_usage_err(c, "bad count '%s': want a number of hits > 0",
					      p.val);
				return -EXIT_USAGE;
			}
			break;
		case 'd':
			t->duration = strtod(p.val, &end);
			if (*end || end == p.val || !(t->duration > 0) ||
			    t->duration > 1e9) {
				cli_usage_err(c, "bad duration '%s': want seconds > 0",
					      p.val);
				return -EXIT_USAGE;
			}
			break;
		case OPT_ARGS_FILE:
			cli_usage_err(c, "--args-file comes first, and once");
			return -EXIT_USAGE;
		case 'h':
			cli_print_help(stdout, c);
			return -EXIT_HELP;
		default:
			if (key >= OPT_SERVE && key < OPT_BY ? trace_parse_metrics_opt(t, &p, key) :
			    trace_parse_agg_opt(t, &p, key))
				return -EXIT_USAGE;
		}
	}
	first = p.i;
done:
	if (option_after_target(c, argc, argv, first))
		return -EXIT_USAGE;
	if (t->pid && t->cmd) {
		cli_usage_err(c, "-p and -c exclude each other");
		return -EXIT_USAGE;
	}
	if (t->all && (t->pid || t->cmd || t->children)) {
		cli_usage_err(c, "--all excludes -p, -c and --children");
		return -EXIT_USAGE;
	}
	if (t->children && !t->pid && !t->cmd) {
		cli_usage_err(c, "--children goes with -p PID or -c CMD");
		return -EXIT_USAGE;
	}
	/* a hardware breakpoint belongs to a thread: no "any process" */
	if (t->mode == USDTKIT_MODE_HWBP && !t->pid && !t->cmd) {
		cli_usage_err(c, "--mode hwbp goes with -p PID or -c CMD (a hardware "
			      "breakpoint is set in a process's threads)");
		return -EXIT_USAGE;
	}
	if (t->mode == USDTKIT_MODE_HWBP && t->pids.n > 1) {
		cli_usage_err(c, "--mode hwbp takes one pid (its breakpoints are set in "
			      "one process's threads): trace each pid on its own");
		return -EXIT_USAGE;
	}
	if (trace_check_metrics_opts(t, c) || trace_check_agg_opts(t, c) ||
	    trace_check_out_opts(t, c))
		return -EXIT_USAGE;
	return first;
}

/*
 * "Tracing N probes (M sites) in MODE mode. Ctrl-C to end." once every
 * target is attached: a user (or a script waiting to start a workload)
 * knows hits from now on are seen. Modes are listed when links differ.
 */
static void say_tracing(const struct tracer *t)
{
	unsigned int seen = 0, nmodes = 0, k = 0;
	size_t i, probes = 0, sites = 0, waiting = 0, execs = 0;
	char modes[64] = "", more[64] = "";
	int m;

	for (i = 0; i < usdtkit_trace_probe_count(t->tr); i++) {
		const struct usdtkit_trace_probe *p = usdtkit_trace_probe(t->tr, i);

		waiting += p->waiting;
		execs += p->waiting && p->waits_exec;
		/* (--all: links per object, none of the probe's own) */
		if (!p->link && !p->sites)
			continue;
		probes++;
		sites += p->sites;
		m = (int)p->mode;
		if (m >= 0 && m < 32 && !(seen & (1u << m))) {
			seen |= 1u << m;
			nmodes++;
		}
	}
	for (m = 0; m < 32; m++) {
		if (!(seen & (1u << m)))
			continue;
		k++;
		snprintf(modes + strlen(modes), sizeof(modes) - strlen(modes), "%s%s",
			 k == 1 ? "" : k == nmodes ? " and " : ", ",
			 usdtkit_mode_str((enum usdtkit_mode)m));
	}
	if (waiting)
		snprintf(more, sizeof(more), "%s%zu waiting for %s",
			 probes ? "; " : "", waiting,
			 t->all ? "a process that maps it" :
			 execs == waiting ? "the program the script execs" : "a library");
	if (!probes)
		fprintf(stderr, "Tracing %s. Ctrl-C to end.\n", more);
	else
		fprintf(stderr, "Tracing %zu probe%s (%zu site%s) in %s mode%s%s. "
			"Ctrl-C to end.\n", probes, probes == 1 ? "" : "s", sites,
			sites == 1 ? "" : "s", modes, nmodes > 1 ? "s" : "", more);
}

/* the engine, with the options' request and the TARGETs */
static int make_trace(struct tracer *t, int ntargets, char **targets)
{
	USDTKIT_OPTS(usdtkit_trace_opts, o, .pids = t->pids.v, .pid_cnt = t->pids.n,
		     .mode = t->mode,
		     .filter = t->filter, .str_mask = t->str_mask,
		     .str_len = t->str_len, .best_effort = t->best_effort,
		     .print = trace_print_msg, .print_ctx = t, .on_hit = on_hit,
		     .hit_ctx = t, .children = t->children,
		     .no_fault_in = t->no_fault_in, .no_hold = t->no_hold,
		     .all = t->all, .stack_fp = t->stack_fp);
	int k, err;

	t->tr = usdtkit_trace_new(&o);
	if (!t->tr)
		return -errno;
	if (t->cmd) {
		err = usdtkit_trace_set_command_line(t->tr, t->cmd);
		/* a bad line: exit 2, as an option's error */
		t->usage_error = err == -EINVAL;
		if (err)
			return err;
	}
	/* -EINTR from setup_step(): a signal; cleanup() releases what is
	 * set up so far, and a held CMD is never let go. -EINVAL from a
	 * step before the load is the request's fault (a malformed TARGET,
	 * an option that does not fit a probe): exit 2; a file or a probe
	 * that is not there is not (exit 1) */
	for (k = 0; k < ntargets; k++) {
		err = usdtkit_trace_add(t->tr, targets[k]);
		t->usage_error = err == -EINVAL;
		if (!err)
			err = setup_step(t, STEP_OPEN);
		if (err)
			return err;
	}
	err = trace_request_aggs(t);
	t->usage_error = err == -EINVAL;
	if (!err && t->agg.lat_start)
		err = setup_step(t, STEP_OPEN);
	if (!err) {
		err = usdtkit_trace_prepare(t->tr);
		t->usage_error = err == -EINVAL;
	}
	return err;
}

/* The engine's steps, a signal looked for between them. */
static int setup(struct tracer *t, int ntargets, char **targets)
{
	int err;

	err = make_trace(t, ntargets, targets);
	if (!err)
		err = trace_metrics_open(t);
	if (err)
		return err;
	/* -c: CMD is forked in the load, held before its exec */
	err = usdtkit_trace_load(t->tr);
	if (!err && t->cmd)
		err = setup_step(t, STEP_SPAWN);
	if (!err)
		err = setup_step(t, STEP_LOAD);
	if (!err)
		err = usdtkit_trace_attach(t->tr);
	t->began = !err;
	if (!err)
		err = setup_step(t, STEP_ATTACH);
	/* the last look before CMD may run: a signal from now on is run()'s,
	 * which ends CMD as it ends the trace */
	if (!err)
		err = setup_step(t, STEP_GO);
	if (err)
		return err;
	/* the first textfile is there once "Tracing" is said */
	trace_metrics_begin(t, clock_mono_ns());
	if (!t->quiet)
		say_tracing(t);
	return usdtkit_trace_go(t->tr);
}

/* No probe was ever attached: each waited for a library that never
 * came (the engine names them): the trace did nothing, exit 1. */
static bool all_waited(const struct tracer *t)
{
	size_t i, n = usdtkit_trace_probe_count(t->tr);

	for (i = 0; i < n; i++)
		if (!usdtkit_trace_probe(t->tr, i)->waiting)
			return false;
	return n > 0;
}

int cmd_trace(int argc, char **argv)
{
	struct tracer t = { .str_len = USDTKIT_TRACE_STRLEN_DEFAULT };
	int first, err, rc = EXIT_OK;

	/* --args-file FILE: this again, with FILE's arguments */
	if (trace_args_file_first(argc, argv))
		return trace_args_file_run(argc, argv, cmd_trace);
	/* before anything else: a signal from here on is never lost */
	t.sig_fd = signals_open();
	if (t.sig_fd < 0) {
		trace_err("signalfd: %s", strerror(-t.sig_fd));
		return EXIT_BAD_INPUT;
	}
	first = parse_opts(&t, argc, argv);
	if (first >= 0 && first >= argc && !t.agg.lat_start) {
		cli_usage_err(&cli_cmd_trace, "no TARGET (PATH:PROVIDER:NAME)");
		first = -EXIT_USAGE;
	}
	if (first < 0) {
		cli_pids_free(&t.pids);
		close(t.sig_fd);
		return first == -EXIT_HELP ? EXIT_OK : -first;
	}
	libbpf_verbose = t.verbose;
	libbpf_set_print(libbpf_msg);
	t.out = malloc(sizeof(*t.out));
	if (!t.out) {
		close(t.sig_fd);
		return EXIT_BAD_INPUT;
	}
	/* before CMD is forked: an -o FILE that cannot be written runs nothing */
	if (trace_out_open(&t)) {
		free(t.out);
		close(t.sig_fd);
		return EXIT_BAD_INPUT;
	}
	err = setup(&t, argc - first, argv + first);
	if (!err)
		err = run(&t);
	if (err == -EINTR && t.stop_sig) {
		/* a signal during the setup ends the trace as Ctrl-C does
		 * (exit 0), before it began: nothing to report */
		trace_err("stopped by %s before the trace began%s",
			  t.stop_sig == SIGINT ? "SIGINT" : "SIGTERM",
			  t.cmd ? "; the command was not run" : "");
		t.began = false;
	} else if (err) {
		rc = t.usage_error ? EXIT_USAGE : EXIT_BAD_INPUT;
	} else if (trace_agg_any(&t) && !trace_metrics_on(&t) &&
		   trace_agg_report(&t, false, clock_mono_ns())) {
		rc = EXIT_BAD_INPUT;
	}
	if (!rc && t.began && all_waited(&t))
		rc = EXIT_BAD_INPUT;
	if (trace_out_close(&t) && !rc)
		rc = EXIT_BAD_INPUT;
	if (t.began)
		report(&t);
	cleanup(&t);
	return rc;
}
