// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit trace [-p PID | -c CMD] [--mode auto|multi|perf|ipmap] [--count N]
 *               [--duration SEC] [--json] [-v] TARGET...
 * TARGET: PATH:PROVIDER:NAME, or PROVIDER:NAME with -p or -c (shell globs
 * in PROVIDER and NAME). One line (or JSON object) per probe hit, until
 * Ctrl-C, --count hits, --duration seconds or the end of PID or CMD; lost
 * events on stderr. -c runs CMD held before its exec until every probe is
 * attached (trace_cmd.c says how).
 *
 * Globs are expanded here, not by the attach layer: every matching probe
 * gets its own attach and cookie, so a hit names the exact probe, and its
 * arguments are printed with that probe's sign and width.
 */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <math.h>
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

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <usdtkit/attach.h>

#include "cli.h"
#include "trace.h"
#include "trace.skel.h"

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
 * tests/cli_trace_signal.sh checks each step without racing a sleep.
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

/* Messages quote names from files: escaped, one line each. */
void trace_err(const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	fputs("usdtkit trace: ", stderr);
	put_text_line(stderr, n < 0 ? "(out of memory)" : msg);
	free(msg);
}

/* The library's diagnostics: warnings always, the rest with -v. */
void trace_print_msg(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	struct tracer *t = ctx;

	if (level == USDTKIT_LOG_WARN)
		t->warnings++;
	if (level == USDTKIT_LOG_WARN && t->capture) {
		if (!t->captured)
			t->captured = strdup(msg);
		return;
	}
	if (level == USDTKIT_LOG_WARN || t->verbose) {
		/* one prefix for everything trace says */
		fputs("usdtkit trace: ", stderr);
		put_text_line(stderr, msg);
	}
}

/* libbpf explains a failed load at length: only with -v, we say why. */
static bool libbpf_verbose;

static int libbpf_msg(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!libbpf_verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Room for every site the targets have: a site needs at most one spec
 * and one IP-map entry. The program's own capacities stay the floor, so
 * a small trace costs what it did; the user has no limit to hit short
 * of kernel memory (a spec is 304 bytes).
 */
static int size_maps(struct tracer *t)
{
	struct bpf_map *maps[] = { t->skel->maps.usdtkit_specs,
				   t->skel->maps.usdtkit_ip_map };
	size_t i;
	int err;

	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		if (bpf_map__max_entries(maps[i]) >= t->nsites)
			continue;
		if (t->nsites > INT32_MAX)
			return -E2BIG;
		err = bpf_map__set_max_entries(maps[i], (uint32_t)t->nsites);
		if (err) {
			trace_err("sizing map %s for %zu sites: %s",
				  bpf_map__name(maps[i]), t->nsites, strerror(-err));
			return err;
		}
	}
	return 0;
}

/*
 * Why a load failed, where the kernel lacks something the program needs:
 * the feature and the Linux version that has it, not a bare errno.
 * EACCES is the verifier's answer too: only a non-root user is told that
 * privileges are missing.
 */
static const char *load_hint(int err)
{
	const struct usdtkit_features *f = usdtkit_features();

	if (geteuid() && (err == -EPERM || err == -EACCES))
		return " (tracing needs root, or CAP_BPF and CAP_PERFMON)";
	if (f->bpf && !f->ringbuf)
		return ": this kernel has no BPF ring buffer (Linux 5.8 and later)";
	/* no /proc/sys/net: libbpf's probes of what the kernel supports
	 * load socket filters, which need it (README) */
	if (f->jit_sysctl < 0)
		return ": this kernel has no CONFIG_NET, which libbpf needs to "
		       "probe the kernel's BPF support";
	return " (rejected by the kernel; -v shows the verifier's log)";
}

/*
 * What this kernel lacks fails once, before anything is loaded or
 * forked, naming what is missing, rather than once per probe or as
 * libbpf's errors from the middle of the load.
 */
static int check_kernel(enum usdtkit_mode m)
{
	const struct usdtkit_features *f = usdtkit_features();

	if (!f->bpf)
		return 0;	/* the load says why */
	if (!f->ringbuf) {
		/* every hit and every counter read goes through it */
		trace_err("this kernel has no BPF ring buffer "
			  "(Linux 5.8 and later), which trace needs");
		return -EOPNOTSUPP;
	}
	if (m == USDTKIT_MODE_MULTI && !f->uprobe_multi) {
		trace_err("--mode multi: this kernel has no uprobe_multi links "
			  "(Linux 6.6 and later, 64-bit kernels): use --mode perf or ipmap");
		return -EOPNOTSUPP;
	}
	if (m == USDTKIT_MODE_PERF && !f->bpf_cookie) {
		trace_err("--mode perf: this kernel has no BPF cookies "
			  "(Linux 5.15 and later): use --mode ipmap");
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * -c in IPMAP mode (AUTO before Linux 5.15): the map needs each site's
 * address in CMD, and a PIE or a shared library is placed only once CMD
 * runs, after the probes must be attached. Said once, before anything is
 * forked, instead of a failed attach per probe.
 */
static int check_ipmap_cmd(const struct tracer *t)
{
	size_t i;

	if (!t->cmd_argv || t->mode != USDTKIT_MODE_IPMAP)
		return 0;
	for (i = 0; i < t->nprobes; i++) {
		const struct probe *p = &t->probes[i];

		if (p->file && usdtkit_file_type(p->file) != ET_EXEC) {
			trace_err("-c with --mode ipmap%s: %s is placed in memory only "
				  "once the command runs (a PIE or a shared library), "
				  "too late to attach: run it, then trace it with -p PID",
				  usdtkit_features()->bpf_cookie ? "" :
				  " (this kernel has no BPF cookies, Linux 5.15)",
				  p->path);
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

/*
 * -v: what the load cost, from the verifier's statistics (log level 4:
 * a few lines, and no slower verification; an error is still logged).
 * "processed N insns" is on every kernel, where verified_insns in
 * bpf_prog_info needs 5.16. bench/startup_bench.sh and the verifier
 * count test read this line.
 */
#define LOAD_LOG_SIZE 16384

static unsigned long long log_num(const char *log, const char *key)
{
	const char *p = log ? strstr(log, key) : NULL;

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

static void say_loaded(const struct tracer *t, const char *log, uint64_t ns)
{
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info);
	int fd = bpf_program__fd(t->skel->progs.usdtkit_trace);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		memset(&info, 0, sizeof(info));
	fprintf(stderr, "usdtkit trace: loaded usdtkit_trace: features 0x%x, "
		"%llu insns processed, %u xlated, verified in %.3f ms, "
		"load %.3f ms\n", t->skel->rodata->features,
		log_num(log, "processed "), info.xlated_prog_len / 8,
		log_num(log, "verification time ") / 1e3, ns / 1e6);
}

static int load_prog(struct tracer *t)
{
	struct bpf_program *prog = t->skel->progs.usdtkit_trace;
	char *log = t->verbose ? calloc(1, LOAD_LOG_SIZE) : NULL;
	uint64_t t0;
	int err;

	if (log) {
		bpf_program__set_log_buf(prog, log, LOAD_LOG_SIZE);
		bpf_program__set_log_level(prog, 4);
	}
	t0 = now_ns();
	err = trace__load(t->skel);
	if (!err && t->verbose)
		say_loaded(t, log, now_ns() - t0);
	free(log);
	return err;
}

static int load(struct tracer *t)
{
	int err;

	t->skel = trace__open();
	if (!t->skel) {
		trace_err("opening the BPF program: %s", strerror(errno));
		return -errno;
	}
	if (t->str_mask) {
		size_t i;

		t->skel->rodata->ev_size = (unsigned int)trace_str_layout(t);
		t->skel->rodata->str_size = t->str_len + 2;
		for (i = 0; i < MAX_ARGS; i++)
			t->skel->rodata->str_off[i] = t->str_off[i];
	}
	err = trace_agg_prepare(t);
	if (err) {
		/* a --filter or an aggregation that does not fit a probe */
		t->usage_error = err == -EINVAL;
		return err;
	}
	err = usdtkit_prog_prepare(t->skel->progs.usdtkit_trace, t->mode);
	if (!err)
		err = size_maps(t);
	if (!err)
		err = trace_children_prepare(t);
	if (!err)
		err = load_prog(t);
	if (err) {
		trace_err("loading the BPF program: %s%s", strerror(-err),
			  load_hint(err));
		return err;
	}
	return trace_agg_write(t);
}

/* Attach probe @i; on failure, -errno and *@why: the reason, naming the
 * file, probe and argument when the library said which (malloc'ed). */
static int attach_one(struct tracer *t, size_t i, char **why)
{
	struct probe *p = &t->probes[i];
	struct usdtkit_attach_opts o = { .sz = sizeof(o), .cookie = i + 1,
					 .mode = t->mode, .print = trace_print_msg,
					 .print_ctx = t, .file = p->file,
					 .any_process = t->kids.on };
	char *prov = trace_glob_quote(p->provider), *name = trace_glob_quote(p->name);
	char label[512];
	int err = 0;

	if (!prov || !name) {
		err = -ENOMEM;
		goto out;
	}
	t->capture = true;
	if (p->path)
		p->link = usdtkit_attach(t->skel->progs.usdtkit_trace,
					 t->pid ? t->pid : -1, p->path, prov, name, &o);
	else
		p->link = usdtkit_attach_pid(t->skel->progs.usdtkit_trace, t->pid,
					     prov, name, &o);
	err = p->link ? 0 : -errno;
	t->capture = false;
	if (!p->link) {
		trace_probe_label(p, label, sizeof(label));
		if (t->captured) {
			*why = t->captured;
			t->captured = NULL;
		} else if (asprintf(why, "%s: %s", label, strerror(-err)) < 0) {
			*why = NULL;
		}
		goto out;
	}
	/* warnings of a link that did attach are news, not a failure */
	if (t->captured) {
		trace_err("%s", t->captured);
		free(t->captured);
		t->captured = NULL;
	}
	/* a probe whose sites differ (an int here, a long there) is fine:
	 * every hit carries the width and sign of the site that fired */
	if (t->verbose)
		trace_err("%s:%s: %zu site(s), mode %s%s", p->provider, p->name,
			  usdtkit_link_site_count(p->link),
			  usdtkit_mode_str(usdtkit_link_mode(p->link)),
			  p->mixed ? ", sites differ in their arguments" : "");
out:
	free(prov);
	free(name);
	return err;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct tracer *t = ctx;
	const struct usdtkit_trace_event *e = data;

	if (size < sizeof(*e) || (t->count && t->printed >= t->count) ||
	    e->ts_ns < t->start_ns)
		return 0;
	/* the cookie is the probe's index + 1; anything else is not ours */
	if (e->cookie < 1 || (unsigned long long)e->cookie > t->nprobes)
		return 0;
	if (t->json)
		trace_event_json(t->out, t, &t->probes[e->cookie - 1], e, size);
	else
		trace_event_text(t->out, t, &t->probes[e->cookie - 1], e, size);
	t->printed++;
	return 0;
}

/* Poll until a signal, the count or the duration; 0 or a negative errno. */
/* --count with aggregations: the hits the filter kept, as the program
 * counts them (read at each poll: a few more may be aggregated) */
static bool count_reached(struct tracer *t)
{
	unsigned long long kept;

	if (!t->count)
		return false;
	if (!trace_agg_any(t))
		return t->printed >= t->count;
	return !trace_read_counter(t, USDTKIT_TRACE_C_KEPT, &kept) && kept >= t->count;
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
		{ .fd = ring_buffer__epoll_fd(t->rb), .events = POLLIN },
		{ .fd = t->sig_fd, .events = POLLIN },
	};

	if (poll(fds, 2, timeout) < 0)
		return -errno;
	/* the program wakes us only when the ring fills up (a wakeup per
	 * hit costs more than the hit): read what came anyway */
	return ring_buffer__consume(t->rb);
}

static int run(struct tracer *t)
{
	uint64_t end = t->duration > 0 ? t->start_ns + (uint64_t)(t->duration * 1e9) : 0;
	uint64_t step = (uint64_t)(t->agg.interval * 1e9), tick = step ? t->start_ns + step : 0;
	int err;

	while (!stop_signal(t) && !count_reached(t)) {
		int timeout = 100;
		uint64_t now = now_ns();

		if (end && now >= end)
			break;
		/* --interval: a report per interval, each starting afresh */
		if (tick && now >= tick) {
			if (trace_agg_report(t, true, now))
				return -EIO;
			tick += step;
		}
		timeout = until(now, end, until(now, tick, timeout));
		err = wait_events(t, timeout);
		jw_flush(t->out);
		/* a closed pipe (| head) ends the trace like Ctrl-C */
		if (fflush(stdout) || ferror(stdout))
			break;
		/* -c: CMD has exited (reaped, with its status on stderr) */
		if (t->cmd_argv && trace_cmd_exited(t, false))
			break;
		/* -p: nothing more can come once the process is gone
		 * (--children: once every process traced is) */
		if (!t->cmd_argv && t->pid &&
		    (t->kids.on ? trace_children_gone(t) :
		     kill(t->pid, 0) && errno == ESRCH)) {
			trace_err("pid %d%s exited", t->pid,
				  t->kids.on ? " and its children" : "");
			break;
		}
		/* EINTR would be harmless: the signalfd says what came */
		if (err < 0 && err != -EINTR) {
			trace_err("reading events: %s", strerror(-err));
			return err;
		}
	}
	/* -c: CMD ends with the trace, still traced on its way out */
	trace_cmd_stop(t);
	/* what came in since the last poll: the last hits of a process that
	 * has exited, or those before Ctrl-C (on_event() keeps to --count) */
	if (!ferror(stdout)) {
		ring_buffer__consume(t->rb);
		jw_flush(t->out);
	}
	return 0;
}

static void report(struct tracer *t)
{
	unsigned long long dropped = 0, lost = 0, kept = 0;

	if (trace_read_counter(t, USDTKIT_TRACE_C_DROPPED, &dropped) ||
	    trace_read_counter(t, USDTKIT_TRACE_C_LOST, &lost) ||
	    trace_read_counter(t, USDTKIT_TRACE_C_KEPT, &kept)) {
		trace_err("cannot read the event counters");
		return;
	}
	if (trace_agg_any(t))
		fprintf(stderr, "usdtkit trace: %llu hit%s aggregated", kept,
			kept == 1 ? "" : "s");
	else
		fprintf(stderr, "usdtkit trace: %llu hit%s printed, %llu lost%s",
			t->printed, t->printed == 1 ? "" : "s", lost,
			lost ? " (ring buffer full)" : "");
	if (t->agg.filter)
		fprintf(stderr, ", %llu dropped by the filter", dropped);
	fputc('\n', stderr);
	/* keys past agg_by's capacity: their hits are in no row */
	if (t->agg.by.set && !trace_read_counter(t, USDTKIT_TRACE_C_BY_FULL, &lost) && lost)
		trace_err("--count-by: %llu hit%s of keys past the first %u not counted",
			  lost, lost == 1 ? "" : "s",
			  bpf_map__max_entries(t->skel->maps.agg_by));
	if (t->verbose)
		fprintf(stderr, "usdtkit trace: %llu hits in BPF\n", kept + dropped);
	if (t->verbose)
		trace_children_report(t);
}

static void cleanup(struct tracer *t)
{
	struct usdtkit_link **links;
	size_t i;

	/* an error before run(): CMD, maybe not yet exec'd, goes too */
	trace_cmd_stop(t);
	trace_cmd_free_argv(t->cmd_argv);
	free(t->cmd_path);
	ring_buffer__free(t->rb);
	trace_agg_free(t);
	/* links first (they hold entries of the program's maps), all at
	 * once: each waits for a kernel grace period */
	links = calloc(t->nprobes ? t->nprobes : 1, sizeof(*links));
	for (i = 0; i < t->nprobes; i++) {
		if (links)
			links[i] = t->probes[i].link;
		else
			usdtkit_link_destroy(t->probes[i].link);
	}
	usdtkit_links_destroy(links, links ? t->nprobes : 0);
	free(links);
	trace_children_stop(t);
	for (i = 0; i < t->nprobes; i++) {
		free(t->probes[i].path);
		free(t->probes[i].provider);
		free(t->probes[i].name);
	}
	trace_targets_release(t);
	free(t->probes);
	free(t->captured);
	trace__destroy(t->skel);
	free(t->out);
	/* the signals stay blocked: one during the exit changes nothing */
	close(t->sig_fd);
}

/* ---- options ---- */

enum { OPT_MODE = 256, OPT_BEST_EFFORT, OPT_STR, OPT_STRLEN, OPT_COUNT,
       OPT_FILTER, OPT_COUNTS, OPT_COUNT_BY, OPT_TOP, OPT_HIST, OPT_SUM,
       OPT_AVG, OPT_MIN, OPT_MAX, OPT_INTERVAL, OPT_LATENCY, OPT_KEY,
       OPT_CHILDREN };

static const struct cli_opt trace_options[] = {
	{ 'p', 'p', "pid", "PID", "only this process; PROVIDER:NAME targets are its objects" },
	{ 'c', 'c', "command", "CMD", "run CMD, traced from its start, until it exits" },
	{ OPT_CHILDREN, 0, "children", NULL,
	  "with -p or -c: also the processes it forks, and theirs" },
	{ OPT_MODE, 0, "mode", "MODE", "auto, multi, perf or ipmap (default auto)" },
	{ OPT_COUNT, 0, "count", "N", "stop after N hits" },
	{ 'd', 'd', "duration", "SEC", "stop after SEC seconds (a fraction is fine)" },
	{ 'j', 0, "json", NULL, "one JSON object per hit" },
	{ OPT_STR, 0, "str", "N[,N...]",
	  "print argument N (0-based) as the string it points to" },
	{ OPT_STRLEN, 0, "strlen", "L",
	  "print at most L bytes of a --str string (default 128, max 4096)" },
	{ 'f', 'f', "filter", "EXPR", "keep only the hits where EXPR holds (in the kernel)" },
	{ OPT_COUNTS, 0, "counts", NULL, "count the hits of each probe" },
	{ OPT_COUNT_BY, 0, "count-by", "ARG", "count hits by argN or str(argN): a top-N table" },
	{ OPT_TOP, 0, "top", "N", "rows of a --count-by table (default 20)" },
	{ OPT_HIST, 0, "hist", "ARG", "a log2 histogram of argN per probe" },
	{ OPT_SUM, 0, "sum", "ARG", "the sum of argN per probe" },
	{ OPT_AVG, 0, "avg", "ARG", "the average of argN per probe" },
	{ OPT_MIN, 0, "min", "ARG", "the minimum of argN per probe" },
	{ OPT_MAX, 0, "max", "ARG", "the maximum of argN per probe" },
	{ 'i', 'i', "interval", "SEC", "print (and reset) the aggregations every SEC seconds" },
	{ OPT_LATENCY, 0, "latency", "START END",
	  "histogram of the time from each START hit to the next END hit" },
	{ OPT_KEY, 0, "key", "KEY", "pair --latency hits by tid (default), pid, argN or str(argN)" },
	{ 'v', 'v', "verbose", NULL, "say what is attached, what the load cost, and libbpf's messages" },
	{ 'q', 'q', "quiet", NULL, "no \"Tracing N probes\" line once attached" },
	{ OPT_BEST_EFFORT, 0, "best-effort", NULL,
	  "skip probes a glob matched that cannot be attached" },
	{ 'h', 'h', "help", NULL, "print this help and exit" },
	{ 0 }
};

const struct cli_cmd cli_cmd_trace = {
	.name = "trace",
	.fn = cmd_trace,
	.summary = "print USDT probe hits with their arguments (BPF)",
	.synopsis = "[-p PID | -c CMD] [--children] [--mode auto|multi|perf|ipmap] [--count N]\n"
		"                     [--duration SEC] [--json] [--str N[,N...]] [--strlen L] [-v] [-q]\n"
		"                     [--filter EXPR] [--counts] [--count-by ARG [--top N]]\n"
		"                     [--hist ARG] [--sum|--avg|--min|--max ARG] [--interval SEC]\n"
		"                     [--latency START END [--key KEY]] [--best-effort] TARGET...",
	.description =
		"  Print every hit of USDT probes: time (s since start), pid, tid,\n"
		"  probe and arguments with their sign and width. TARGET is\n"
		"  PATH:PROVIDER:NAME, or PROVIDER:NAME with -p (every object that\n"
		"  PID maps); PROVIDER and NAME are shell globs. -p also limits a\n"
		"  PATH target to that process. Stops on Ctrl-C, after N hits or\n"
		"  SEC seconds; lost events are reported on stderr. Once every\n"
		"  target is attached, a line on stderr says so (-q: not).\n"
		"  -c CMD: run CMD (split into words; quotes but no expansions),\n"
		"  its probes attached before it starts, as with -p its pid;\n"
		"  PROVIDER:NAME targets are those of its executable. The trace ends\n"
		"  when CMD exits; a trace that ends first terminates CMD.\n"
		"  --json: one object per hit: {\"ts_ns\",\"pid\",\"tid\",\"provider\",\n"
		"  \"name\",\"args\":[...]} (+ \"err\" when an argument is unreadable).\n"
		"  --str 0,2: arguments 0 and 2 (numbered as in `usdtkit list`) are\n"
		"  pointers to NUL-terminated strings, printed quoted and escaped;\n"
		"  one longer than --strlen is cut (text: \"...\"..., JSON: listed in\n"
		"  \"truncated\"); a bad pointer prints <fault 0xADDR> (JSON: null).\n"
		"  A probe that a glob matched and that cannot be attached fails the\n"
		"  trace (exit 1); --best-effort skips it and traces the others.\n"
		"  --filter EXPR: argN, integers, pid, tid, == != < <= > >=, & (a mask),\n"
		"  && || ! ( ), str(argN) == \"text\" (\"text*\": a prefix); e.g.\n"
		"  'arg1 > 100 && str(arg0) == \"/api*\"'. Run in the kernel: a hit that\n"
		"  fails is never sent. A bad EXPR: its column, exit 2.\n"
		"  --counts, --count-by, --hist, --sum, --avg, --min, --max, --latency:\n"
		"  counted in the kernel, nothing printed per hit; the result comes at\n"
		"  the end (and every --interval SEC, each interval on its own). ARG is\n"
		"  argN, or str(argN) for --count-by. --latency START END: a log2\n"
		"  histogram of the ns from START to the next END of the same --key\n"
		"  (tid, pid, argN or str(argN)). Every option applies to every TARGET.\n"
		"  No compiler runs: one precompiled BPF program, configured by maps.\n",
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

/* --filter EXPR: parsed now, so a bad one is told before anything loads */
static int parse_filter(struct tracer *t, const char *expr)
{
	struct filter_err e = { 0 };

	trace_filter_free(t->agg.filter);
	t->agg.filter = NULL;
	t->agg.filter_text = expr;
	if (!trace_filter_parse(expr, &t->agg.filter, &e))
		return 0;
	cli_usage_err(&cli_cmd_trace, "bad --filter '%s': column %d: %s", expr,
		      e.col, e.msg);
	return -1;
}

/* --sum/--avg/--min/--max argN: one argument for all four */
static int parse_stat(struct tracer *t, const char *opt, const char *val,
		      unsigned int which)
{
	struct agg_arg a;

	if (trace_agg_parse_arg(val, false, &a)) {
		cli_usage_err(&cli_cmd_trace, "bad %s '%s': want argN", opt, val);
		return -1;
	}
	if (t->agg.stat_mask && t->agg.stats.arg != a.arg) {
		cli_usage_err(&cli_cmd_trace, "%s arg%u: --sum, --avg, --min and --max "
			      "take the same argument (here arg%u)", opt, a.arg,
			      t->agg.stats.arg);
		return -1;
	}
	t->agg.stats = a;
	t->agg.stat_mask |= which;
	return 0;
}

static int parse_key(struct tracer *t, const char *val)
{
	static const char *const fixed[] = { "tid", "pid" };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (!strcmp(val, fixed[i])) {
			t->agg.key_kind = i == 0 ? USDTKIT_TRACE_KEY_TID : USDTKIT_TRACE_KEY_PID;
			memset(&t->agg.key, 0, sizeof(t->agg.key));
			return 0;
		}
	}
	if (trace_agg_parse_arg(val, true, &t->agg.key)) {
		cli_usage_err(&cli_cmd_trace, "bad --key '%s': want tid, pid, argN or str(argN)",
			      val);
		return -1;
	}
	t->agg.key_kind = t->agg.key.str ? USDTKIT_TRACE_KEY_STR : USDTKIT_TRACE_KEY_ARG;
	return 0;
}

/* the aggregation options; 0 or -1 (told) */
static int parse_agg_opt(struct tracer *t, struct cli_parser *p, int key)
{
	const struct cli_cmd *c = &cli_cmd_trace;
	const char *opt = cli_opt_spelling(p);
	unsigned long long v;
	char *end;

	switch (key) {
	case 'f':
		return parse_filter(t, p->val);
	case OPT_COUNTS:
		t->agg.counts = true;
		return 0;
	case OPT_COUNT_BY:
		if (!trace_agg_parse_arg(p->val, true, &t->agg.by))
			return 0;
		cli_usage_err(c, "bad %s '%s': want argN or str(argN)", opt, p->val);
		return -1;
	case OPT_HIST:
		if (!trace_agg_parse_arg(p->val, false, &t->agg.hist))
			return 0;
		cli_usage_err(c, "bad %s '%s': want argN", opt, p->val);
		return -1;
	case OPT_SUM:
		return parse_stat(t, opt, p->val, AGG_SUM);
	case OPT_AVG:
		return parse_stat(t, opt, p->val, AGG_AVG);
	case OPT_MIN:
		return parse_stat(t, opt, p->val, AGG_MIN);
	case OPT_MAX:
		return parse_stat(t, opt, p->val, AGG_MAX);
	case OPT_TOP:
		if (cli_parse_ulong(p->val, 1, 1000000, &v)) {
			t->agg.top = (unsigned int)v;
			return 0;
		}
		cli_usage_err(c, "bad %s '%s': want 1 to 1000000 rows", opt, p->val);
		return -1;
	case 'i':
		t->agg.interval = strtod(p->val, &end);
		if (!*end && end != p->val && t->agg.interval >= 0.01 &&
		    t->agg.interval <= 1e6)
			return 0;
		cli_usage_err(c, "bad %s '%s': want seconds, 0.01 or more", opt, p->val);
		return -1;
	case OPT_LATENCY:
		/* two values: START is this option's, END the next argument */
		if (p->i >= p->argc) {
			cli_usage_err(c, "%s START END: END is missing", opt);
			return -1;
		}
		t->agg.lat_start = p->val;
		t->agg.lat_end = p->argv[p->i++];
		return 0;
	case OPT_KEY:
		return parse_key(t, p->val);
	}
	return 0;
}

/* options that mean nothing without others */
static int check_agg_opts(struct tracer *t)
{
	const struct cli_cmd *c = &cli_cmd_trace;

	if (!t->agg.top)
		t->agg.top = 20;
	else if (!t->agg.by.set)
		return cli_usage_err(c, "--top goes with --count-by"), -1;
	if (t->agg.interval > 0 && !trace_agg_any(t))
		return cli_usage_err(c, "--interval goes with an aggregation "
				     "(--counts, --count-by, --hist, --sum..., --latency)"), -1;
	if ((t->agg.key.set || t->agg.key_kind) && !t->agg.lat_start)
		return cli_usage_err(c, "--key goes with --latency"), -1;
	if (t->str_mask && trace_agg_any(t))
		return cli_usage_err(c, "--str prints hits; with an aggregation, "
				     "use --count-by str(argN)"), -1;
	return 0;
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
			if (!cli_parse_ulong(p.val, 1, TRACE_STRLEN_MAX, &v)) {
				cli_usage_err(c, "bad --strlen '%s': want 1 to %d bytes",
					      p.val, TRACE_STRLEN_MAX);
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
			t->kids.on = true;
			break;
		case 'p':
			if (!cli_parse_ulong(p.val, 1, INT32_MAX, &v)) {
				cli_usage_err(c, "bad pid '%s'", p.val);
				return -EXIT_USAGE;
			}
			t->pid = (int)v;
			break;
		case OPT_MODE:
			m = usdtkit_mode_parse(p.val);
			if (m < 0) {
				cli_usage_err(c, "bad mode '%s': want auto, multi, perf or ipmap",
					      p.val);
				return -EXIT_USAGE;
			}
			t->mode = (enum usdtkit_mode)m;
			break;
		case 'c': {
			const char *why = NULL;
			int err;

			trace_cmd_free_argv(t->cmd_argv);
			err = trace_cmd_split(p.val, &t->cmd_argv, &why);
			if (err == -ENOMEM)
				return -EXIT_BAD_INPUT;
			if (err) {
				cli_usage_err(c, "bad command '%s': %s", p.val, why);
				return -EXIT_USAGE;
			}
			break;
		}
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
		case 'h':
			cli_print_help(stdout, c);
			return -EXIT_HELP;
		default:
			if (parse_agg_opt(t, &p, key))
				return -EXIT_USAGE;
		}
	}
	first = p.i;
done:
	if (t->pid && t->cmd_argv) {
		cli_usage_err(c, "-p and -c exclude each other");
		return -EXIT_USAGE;
	}
	if (t->kids.on && !t->pid && !t->cmd_argv) {
		cli_usage_err(c, "--children goes with -p PID or -c CMD");
		return -EXIT_USAGE;
	}
	if (check_agg_opts(t))
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
	size_t i, probes = 0, sites = 0;
	char modes[64] = "";
	int m;

	for (i = 0; i < t->nprobes; i++) {
		if (!t->probes[i].link)
			continue;
		probes++;
		sites += usdtkit_link_site_count(t->probes[i].link);
		m = (int)usdtkit_link_mode(t->probes[i].link);
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
	fprintf(stderr, "Tracing %zu probe%s (%zu site%s) in %s mode%s. Ctrl-C to end.\n",
		probes, probes == 1 ? "" : "s", sites, sites == 1 ? "" : "s",
		modes, nmodes > 1 ? "s" : "");
}

/* --latency START END: their probes, marked (a TARGET may be one too,
 * as every option applies to it); no probe may be both */
static int add_role(struct tracer *t, const char *target, int role)
{
	size_t i;
	int err;

	t->adding_role = (unsigned char)role;
	err = trace_add_target(t, target);
	t->adding_role = 0;
	for (i = 0; !err && i < t->nprobes; i++) {
		if (t->probes[i].role != (ROLE_START | ROLE_END))
			continue;
		trace_err("--latency: %s:%s is both START and END", t->probes[i].provider,
			  t->probes[i].name);
		t->usage_error = true;
		return -EINVAL;
	}
	return err;
}

static int setup(struct tracer *t, int ntargets, char **targets)
{
	size_t i, attached = 0, skipped = 0;
	int k, err;

	/* -EINTR from setup_step(): a signal; cleanup() releases what is
	 * set up so far, and a held CMD is never let go */
	for (k = 0; k < ntargets; k++) {
		err = trace_add_target(t, targets[k]);
		if (!err)
			err = setup_step(t, STEP_OPEN);
		if (err)
			return err;
	}
	if (t->agg.lat_start) {
		err = add_role(t, t->agg.lat_start, ROLE_START);
		if (!err)
			err = add_role(t, t->agg.lat_end, ROLE_END);
		if (!err)
			err = setup_step(t, STEP_OPEN);
		if (err)
			return err;
	}
	t->mode = usdtkit_mode_resolve(t->mode);
	err = check_kernel(t->mode);
	if (!err)
		err = check_ipmap_cmd(t);
	if (err)
		return err;
	/* -c: CMD's pid is needed to attach: fork it now, held before its
	 * exec (the probes are not in its address space before that) */
	if (t->cmd_argv) {
		err = trace_cmd_start(t);
		if (!err)
			err = setup_step(t, STEP_SPAWN);
		if (err)
			return err;
	}
	err = load(t);
	if (!err)
		err = setup_step(t, STEP_LOAD);
	if (!err)
		err = trace_children_start(t);
	if (err)
		return err;
	for (i = 0; i < t->nprobes; i++) {
		char *why = NULL;

		err = attach_one(t, i, &why);
		if (!err) {
			attached++;
			err = setup_step(t, STEP_ATTACH);
			if (err)
				return err;
			continue;
		}
		/* one line per probe that failed, with the library's reason */
		if (t->probes[i].optional && t->best_effort)
			trace_err("skipping %s:%s (%s)", t->probes[i].provider,
				  t->probes[i].name, why ? why : strerror(-err));
		else
			trace_err("cannot attach: %s", why ? why : strerror(-err));
		free(why);
		/* a probe named by a glob, not by the user: one that cannot
		 * be attached (FP argument...) leaves the rest */
		if (!t->probes[i].optional)
			return err;
		skipped++;
	}
	trace_targets_release(t);
	if (skipped && !t->best_effort) {
		trace_err("%zu of %zu probes could not be attached "
			  "(--best-effort traces the others)", skipped, t->nprobes);
		return -EOPNOTSUPP;
	}
	if (!attached) {
		trace_err("no probe could be attached");
		return -ENOENT;
	}
	/* the trace starts once every target is attached: hits of the first
	 * targets while later ones were still attaching are dropped, so the
	 * output never shows one probe and not yet another */
	t->start_ns = now_ns();
	t->rb = ring_buffer__new(bpf_map__fd(t->skel->maps.events), on_event, t, NULL);
	if (!t->rb) {
		trace_err("ring buffer: %s", strerror(errno));
		return -errno;
	}
	/* the last look before CMD may run: a signal from now on is run()'s,
	 * which ends CMD as it ends the trace */
	err = setup_step(t, STEP_GO);
	if (err)
		return err;
	if (!t->quiet)
		say_tracing(t);
	return t->cmd_argv ? trace_cmd_go(t) : 0;
}

int cmd_trace(int argc, char **argv)
{
	struct tracer t = { .str_len = TRACE_STRLEN_DEFAULT, .cmd_go_fd = -1,
			    .cmd_err_fd = -1 };
	int first, err, rc = EXIT_OK;

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
		/* -c's words and the filter are all parsing allocates */
		trace_cmd_free_argv(t.cmd_argv);
		trace_filter_free(t.agg.filter);
		close(t.sig_fd);
		return first == -EXIT_HELP ? EXIT_OK : -first;
	}
	/* a CMD that does not exist: one line, before anything is loaded */
	if (t.cmd_argv) {
		t.cmd_path = trace_cmd_resolve(t.cmd_argv[0]);
		if (!t.cmd_path) {
			trace_err("cannot run %s: %s", t.cmd_argv[0], strerror(errno));
			trace_cmd_free_argv(t.cmd_argv);
			trace_filter_free(t.agg.filter);
			close(t.sig_fd);
			return EXIT_BAD_INPUT;
		}
	}
	libbpf_verbose = t.verbose;
	libbpf_set_print(libbpf_msg);
	t.out = malloc(sizeof(*t.out));
	if (!t.out)
		return EXIT_BAD_INPUT;
	jw_init(t.out, stdout);
	err = setup(&t, argc - first, argv + first);
	if (!err)
		err = run(&t);
	if (err == -EINTR && t.stop_sig) {
		/* a signal during the setup ends the trace as Ctrl-C does
		 * (exit 0), before it began: nothing to report */
		trace_err("stopped by %s before the trace began%s",
			  t.stop_sig == SIGINT ? "SIGINT" : "SIGTERM",
			  t.cmd_argv ? "; the command was not run" : "");
		ring_buffer__free(t.rb);
		t.rb = NULL;
	} else if (err) {
		rc = t.usage_error ? EXIT_USAGE : EXIT_BAD_INPUT;
	} else if (trace_agg_any(&t) && trace_agg_report(&t, false, now_ns())) {
		rc = EXIT_BAD_INPUT;
	}
	jw_flush(t.out);
	fflush(stdout);
	if (t.rb)
		report(&t);
	cleanup(&t);
	return rc;
}
