// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit trace [-p PID] [--mode auto|multi|perf|ipmap] [--count N]
 *               [--duration SEC] [--json] [-v] TARGET...
 * TARGET: PATH:PROVIDER:NAME, or PROVIDER:NAME with -p (shell globs in
 * PROVIDER and NAME). One line (or JSON object) per probe hit, until
 * Ctrl-C, --count hits or --duration seconds; lost events on stderr.
 *
 * Globs are expanded here, not by the attach layer: every matching probe
 * gets its own attach and cookie, so a hit names the exact probe, and its
 * arguments are printed with that probe's sign and width.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <usdtkit/attach.h>

#include "cli.h"
#include "json.h"
#include "trace.skel.h"
#include "trace_event.h"

#define MAX_ARGS USDTKIT_BPF_MAX_ARGS

/* How one argument is printed: from the ELF note, not from the event. */
struct arg_type {
	unsigned char size;
	bool is_signed;
	bool is_float;
};

/* One PROVIDER:NAME of one target, attached with cookie = index + 1. */
struct probe {
	char *path;		/* NULL: every object mapped by -p PID */
	char *provider, *name;
	int nargs;
	struct arg_type args[MAX_ARGS];
	bool mixed;		/* its sites disagree on the arguments */
	bool optional;		/* only a glob matched it: may fail to attach */
	struct usdtkit_link *link;
};

struct tracer {
	int pid;		/* 0: any process */
	enum usdtkit_mode mode;
	unsigned long long count;	/* 0: no limit */
	double duration;		/* seconds, 0: no limit */
	bool json, verbose;

	struct trace *skel;
	struct ring_buffer *rb;
	struct probe *probes;
	size_t nprobes, cap;
	unsigned long long printed;
	unsigned int warnings;	/* the library's, printed so far */
	uint64_t start_ns;	/* CLOCK_MONOTONIC, the clock of ts_ns */
	struct jw *out;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void err_msg(const char *fmt, ...)
{
	va_list ap;

	fputs("usdtkit trace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The library's diagnostics: warnings always, the rest with -v. */
static void print_msg(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	struct tracer *t = ctx;

	if (level == USDTKIT_LOG_WARN)
		t->warnings++;
	if (level == USDTKIT_LOG_WARN || t->verbose)
		fprintf(stderr, "usdtkit: %s\n", msg);
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

/* ---- targets -> probes ---- */

/* fnmatch() quoting, so an attach by exact name matches only that name */
static char *glob_quote(const char *s)
{
	char *q = malloc(2 * strlen(s) + 1), *p = q;

	if (!q)
		return NULL;
	for (; *s; s++) {
		if (strchr("*?[]\\", *s))
			*p++ = '\\';
		*p++ = *s;
	}
	*p = 0;
	return q;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static void site_types(const struct usdtkit_site *s, struct arg_type *types,
		       int *nargs)
{
	int i, n = usdtkit_site_arg_count(s);

	*nargs = n < MAX_ARGS ? n : MAX_ARGS;
	for (i = 0; i < *nargs; i++) {
		const struct usdtkit_arg *a = usdtkit_site_arg(s, i);

		types[i] = (struct arg_type){ .size = (unsigned char)a->size,
					      .is_signed = a->is_signed,
					      .is_float = a->is_float };
	}
}

/* Add the probe of site @s under @path, or note how its arguments differ
 * from the sites seen before. */
static int add_site(struct tracer *t, const char *path,
		    const struct usdtkit_site *s, bool glob)
{
	const char *prov = usdtkit_site_provider(s), *name = usdtkit_site_name(s);
	struct arg_type types[MAX_ARGS];
	struct probe *p;
	size_t i;
	int n;

	site_types(s, types, &n);
	for (i = 0; i < t->nprobes; i++) {
		p = &t->probes[i];
		if (same_str(p->path, path) && !strcmp(p->provider, prov) &&
		    !strcmp(p->name, name)) {
			if (p->nargs != n || memcmp(p->args, types, n * sizeof(types[0])))
				p->mixed = true;
			p->optional &= glob;
			return 0;
		}
	}
	if (t->nprobes == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8;

		p = realloc(t->probes, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		t->probes = p;
		t->cap = cap;
	}
	p = &t->probes[t->nprobes];
	memset(p, 0, sizeof(*p));
	p->path = path ? strdup(path) : NULL;
	p->provider = strdup(prov);
	p->name = strdup(name);
	t->nprobes++;
	if ((path && !p->path) || !p->provider || !p->name)
		return -ENOMEM;
	p->nargs = n;
	memcpy(p->args, types, sizeof(types));
	p->optional = glob;
	return 0;
}

static bool is_glob(const char *s)
{
	return !s || strpbrk(s, "*?[");
}

/* Every probe of @f matching the globs; how many sites matched. */
static int add_file(struct tracer *t, const char *path,
		    const struct usdtkit_file *f, const char *prov,
		    const char *name, size_t *nsites)
{
	bool glob = is_glob(prov) || is_glob(name);
	const struct usdtkit_site *s = NULL;
	int err;

	while ((s = usdtkit_file_next_site(f, s, prov, name))) {
		err = add_site(t, path, s, glob);
		if (err)
			return err;
		(*nsites)++;
	}
	return 0;
}

static int add_path_target(struct tracer *t, const char *path, const char *prov,
			   const char *name)
{
	struct usdtkit_open_opts oo = { .sz = sizeof(oo), .print = print_msg,
					.print_ctx = t };
	unsigned int warned = t->warnings;
	struct usdtkit_file *f = usdtkit_file_open(path, &oo);
	size_t n = 0;
	int err;

	if (!f) {
		err = -errno;
		/* once is enough: the library names the file too */
		if (t->warnings == warned)
			err_msg("%s: %s", path, strerror(-err));
		return err;
	}
	err = add_file(t, path, f, prov, name, &n);
	usdtkit_file_close(f);
	if (!err && !n) {
		err_msg("%s: no probe %s:%s", path, prov ? prov : "*", name ? name : "*");
		err = -ENOENT;
	}
	return err;
}

static int add_pid_target(struct tracer *t, const char *prov, const char *name)
{
	struct usdtkit_open_opts oo = { .sz = sizeof(oo), .print = print_msg,
					.print_ctx = t };
	unsigned int warned = t->warnings;
	struct usdtkit_proc *p = usdtkit_proc_open(t->pid, &oo);
	size_t i, n = 0;
	int err = 0;

	if (!p) {
		err = -errno;
		if (t->warnings == warned)
			err_msg("pid %d: %s", t->pid, strerror(-err));
		return err;
	}
	for (i = 0; !err && i < usdtkit_proc_object_count(p); i++)
		if (usdtkit_proc_object(p, i))
			err = add_file(t, NULL, usdtkit_proc_object(p, i), prov,
				       name, &n);
	usdtkit_proc_close(p);
	if (!err && !n) {
		err_msg("pid %d: no probe %s:%s", t->pid, prov ? prov : "*",
			name ? name : "*");
		err = -ENOENT;
	}
	return err;
}

/*
 * PATH:PROVIDER:NAME, split from the right (a path may hold ':'), or
 * PROVIDER:NAME with -p. An empty PROVIDER or NAME matches any.
 */
static int add_target(struct tracer *t, const char *target)
{
	char *s = strdup(target), *name, *prov, *path = NULL;
	int err;

	if (!s)
		return -ENOMEM;
	name = strrchr(s, ':');
	if (!name)
		goto bad;
	*name++ = 0;
	prov = strrchr(s, ':');
	if (prov) {
		*prov++ = 0;
		path = s;
	} else {
		prov = s;
	}
	if ((path && !*path) || (!path && !t->pid))
		goto bad;
	err = path ? add_path_target(t, path, *prov ? prov : NULL, *name ? name : NULL)
		   : add_pid_target(t, *prov ? prov : NULL, *name ? name : NULL);
	free(s);
	return err;
bad:
	err_msg("bad target '%s': want PATH:PROVIDER:NAME%s", target,
		t->pid ? " or PROVIDER:NAME" : " (or PROVIDER:NAME with -p PID)");
	free(s);
	return -EINVAL;
}

/* ---- BPF ---- */

static int load(struct tracer *t)
{
	int err;

	t->skel = trace__open();
	if (!t->skel) {
		err_msg("opening the BPF program: %s", strerror(errno));
		return -errno;
	}
	err = usdtkit_prog_prepare(t->skel->progs.usdtkit_trace, t->mode);
	if (!err)
		err = trace__load(t->skel);
	if (err) {
		/* EACCES is the verifier's answer too: only a non-root user
		 * is told that privileges are missing */
		err_msg("loading the BPF program: %s%s", strerror(-err),
			geteuid() && (err == -EPERM || err == -EACCES) ?
			" (tracing needs root, or CAP_BPF and CAP_PERFMON)" :
			err == -EACCES ? " (rejected by the verifier; -v shows why)" : "");
		return err;
	}
	return 0;
}

static int attach_one(struct tracer *t, size_t i)
{
	struct probe *p = &t->probes[i];
	struct usdtkit_attach_opts o = { .sz = sizeof(o), .cookie = i + 1,
					 .mode = t->mode, .print = print_msg,
					 .print_ctx = t };
	char *prov = glob_quote(p->provider), *name = glob_quote(p->name);
	int err = 0;

	if (!prov || !name) {
		err = -ENOMEM;
		goto out;
	}
	if (p->path)
		p->link = usdtkit_attach(t->skel->progs.usdtkit_trace,
					 t->pid ? t->pid : -1, p->path, prov, name, &o);
	else
		p->link = usdtkit_attach_pid(t->skel->progs.usdtkit_trace, t->pid,
					     prov, name, &o);
	if (!p->link) {
		err = -errno;
		err_msg("cannot attach to %s%s%s:%s: %s", p->path ? p->path : "",
			p->path ? ":" : "", p->provider, p->name, strerror(-err));
		goto out;
	}
	if (p->mixed)
		err_msg("note: the sites of %s:%s differ in their arguments; "
			"printing them as the first site has them", p->provider,
			p->name);
	if (t->verbose)
		fprintf(stderr, "usdtkit trace: %s:%s: %zu site(s), mode %s\n",
			p->provider, p->name, usdtkit_link_site_count(p->link),
			usdtkit_mode_str(usdtkit_link_mode(p->link)));
out:
	free(prov);
	free(name);
	return err;
}

/* Events the ring buffer had no room for, summed over the CPUs. */
static int read_counter(struct tracer *t, int which, unsigned long long *sum)
{
	int ncpu = libbpf_num_possible_cpus(), i, err;
	unsigned long long *v;

	*sum = 0;
	if (ncpu < 0)
		return ncpu;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	err = bpf_map__lookup_elem(t->skel->maps.counters, &which, sizeof(which),
				   v, ncpu * sizeof(*v), 0);
	for (i = 0; !err && i < ncpu; i++)
		*sum += v[i];
	free(v);
	return err;
}

/* ---- output ---- */

static void put_float(struct jw *w, const struct arg_type *ty, long long raw)
{
	char buf[40];
	double d;

	if (ty->size == 4) {
		uint32_t u = (uint32_t)raw;
		float f;

		memcpy(&f, &u, sizeof(f));
		d = f;
	} else {
		memcpy(&d, &raw, sizeof(d));
	}
	/* JSON has no NaN or infinity */
	if (isfinite(d))
		snprintf(buf, sizeof(buf), "%.17g", d);
	else
		snprintf(buf, sizeof(buf), "%s", isnan(d) ? "\"nan\"" :
			 d > 0 ? "\"inf\"" : "\"-inf\"");
	json_raw(w, buf);
}

/* The value as the note types it: the program extended it already, but
 * the width of a mixed probe's first site is what the user is shown. */
static void put_value(struct jw *w, const struct arg_type *ty, long long raw)
{
	unsigned int bits = 64 - 8 * (ty->size & 15);
	uint64_t v = (uint64_t)raw;

	if (ty->is_float) {
		put_float(w, ty, raw);
		return;
	}
	if (bits && bits < 64) {
		if (ty->is_signed)
			v = (uint64_t)((int64_t)(v << bits) >> bits);
		else
			v &= ~0ull >> bits;
	}
	if (ty->is_signed)
		json_i64(w, (int64_t)v);
	else
		json_u64(w, v);
}

static void put_type(struct jw *w, const struct arg_type *ty)
{
	jw_putc(w, ty->is_float ? 'f' : ty->is_signed ? 's' : 'u');
	json_i64(w, ty->size * 8);
	jw_putc(w, ' ');
}

static const struct arg_type unknown_type = { .size = 8, .is_signed = true };

static void event_json(struct jw *w, const struct probe *p,
		       const struct usdtkit_trace_event *e)
{
	int i;

	JW_LIT(w, "{\"ts_ns\":");
	json_u64(w, e->ts_ns);
	JW_LIT(w, ",\"pid\":");
	json_u64(w, e->pid);
	JW_LIT(w, ",\"tid\":");
	json_u64(w, e->tid);
	JW_LIT(w, ",\"provider\":");
	json_str(w, p->provider, strlen(p->provider));
	JW_LIT(w, ",\"name\":");
	json_str(w, p->name, strlen(p->name));
	JW_LIT(w, ",\"args\":[");
	for (i = 0; i < e->nargs && i < MAX_ARGS; i++) {
		if (i)
			jw_putc(w, ',');
		if (e->err_mask & (1u << i))
			JW_LIT(w, "null");
		else
			put_value(w, i < p->nargs ? &p->args[i] : &unknown_type,
				  e->args[i]);
	}
	jw_putc(w, ']');
	if (e->err || e->nargs < 0) {
		/* unreadable arguments are null, and why is here */
		JW_LIT(w, ",\"err\":");
		json_i64(w, e->err ? e->err : e->nargs);
	}
	JW_LIT(w, "}\n");
}

static void event_text(struct jw *w, const struct tracer *t,
		       const struct probe *p, const struct usdtkit_trace_event *e)
{
	/* on_event() drops hits older than start_ns */
	uint64_t rel = e->ts_ns > t->start_ns ? e->ts_ns - t->start_ns : 0;
	char buf[64];
	int i;

	snprintf(buf, sizeof(buf), "%3" PRIu64 ".%06" PRIu64 " ",
		 rel / 1000000000, rel % 1000000000 / 1000);
	json_raw(w, buf);
	JW_LIT(w, "pid ");
	json_u64(w, e->pid);
	JW_LIT(w, " tid ");
	json_u64(w, e->tid);
	jw_putc(w, ' ');
	json_raw(w, p->provider);
	jw_putc(w, ':');
	json_raw(w, p->name);
	jw_putc(w, '(');
	for (i = 0; i < e->nargs && i < MAX_ARGS; i++) {
		const struct arg_type *ty = i < p->nargs ? &p->args[i] : &unknown_type;

		if (i)
			JW_LIT(w, ", ");
		put_type(w, ty);
		if (e->err_mask & (1u << i)) {
			snprintf(buf, sizeof(buf), "?(error %d)", e->err);
			json_raw(w, buf);
		} else {
			put_value(w, ty, e->args[i]);
		}
	}
	jw_putc(w, ')');
	if (e->nargs < 0) {
		snprintf(buf, sizeof(buf), " [no spec: error %d]", e->nargs);
		json_raw(w, buf);
	}
	jw_putc(w, '\n');
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
		event_json(t->out, &t->probes[e->cookie - 1], e);
	else
		event_text(t->out, t, &t->probes[e->cookie - 1], e);
	t->printed++;
	return 0;
}

/* Poll until a signal, the count or the duration; 0 or a negative errno. */
static int run(struct tracer *t)
{
	uint64_t end = t->duration > 0 ? t->start_ns + (uint64_t)(t->duration * 1e9) : 0;
	int err;

	while (!stop && !(t->count && t->printed >= t->count)) {
		int timeout = 100;
		uint64_t now = now_ns();

		if (end) {
			if (now >= end)
				break;
			if ((end - now) / 1000000 < (uint64_t)timeout)
				timeout = (int)((end - now) / 1000000) + 1;
		}
		err = ring_buffer__poll(t->rb, timeout);
		jw_flush(t->out);
		/* a closed pipe (| head) ends the trace like Ctrl-C */
		if (fflush(stdout) || ferror(stdout))
			break;
		/* -p: nothing more can come once the process is gone */
		if (t->pid && kill(t->pid, 0) && errno == ESRCH) {
			err_msg("pid %d exited", t->pid);
			break;
		}
		/* EINTR: a signal, seen by the loop condition */
		if (err < 0 && err != -EINTR) {
			err_msg("reading events: %s", strerror(-err));
			return err;
		}
	}
	return 0;
}

static void report(struct tracer *t)
{
	unsigned long long hits = 0, lost = 0;

	if (read_counter(t, 0, &hits) || read_counter(t, 1, &lost)) {
		err_msg("cannot read the event counters");
		return;
	}
	fprintf(stderr, "usdtkit trace: %llu hit%s printed, %llu lost%s\n",
		t->printed, t->printed == 1 ? "" : "s", lost,
		lost ? " (ring buffer full)" : "");
	if (t->verbose)
		fprintf(stderr, "usdtkit trace: %llu hits in BPF\n", hits);
}

static void cleanup(struct tracer *t)
{
	size_t i;

	ring_buffer__free(t->rb);
	/* links first: they hold entries of the program's maps */
	for (i = 0; i < t->nprobes; i++) {
		usdtkit_link_destroy(t->probes[i].link);
		free(t->probes[i].path);
		free(t->probes[i].provider);
		free(t->probes[i].name);
	}
	free(t->probes);
	trace__destroy(t->skel);
	free(t->out);
}

/* ---- options ---- */

static void trace_usage(FILE *f)
{
	fprintf(f,
		"usage: usdtkit trace [-p PID] [--mode auto|multi|perf|ipmap]\n"
		"                     [--count N] [--duration SEC] [--json] [-v] TARGET...\n"
		"  Print every hit of USDT probes: time (s since start), pid, tid,\n"
		"  probe and arguments with their sign and width. TARGET is\n"
		"  PATH:PROVIDER:NAME, or PROVIDER:NAME with -p (every object that\n"
		"  PID maps); PROVIDER and NAME are shell globs. -p also limits a\n"
		"  PATH target to that process. Stops on Ctrl-C, after N hits or\n"
		"  SEC seconds; lost events are reported on stderr.\n"
		"  --json: one object per hit: {\"ts_ns\",\"pid\",\"tid\",\"provider\",\n"
		"  \"name\",\"args\":[...]} (+ \"err\" when an argument is unreadable).\n");
}

static int need_arg(int argc, char **argv, int i)
{
	if (i + 1 < argc)
		return 0;
	err_msg("%s needs a value", argv[i]);
	return -1;
}

/* Options into @t; the index of the first TARGET, or -EXIT code. */
static int parse_opts(struct tracer *t, int argc, char **argv)
{
	char *end;
	int i, m;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--json")) {
			t->json = true;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			t->verbose = true;
		} else if (!strcmp(a, "-p") || !strcmp(a, "--pid")) {
			if (need_arg(argc, argv, i))
				return -EXIT_USAGE;
			t->pid = (int)strtol(argv[++i], &end, 10);
			if (*end || t->pid <= 0) {
				err_msg("bad pid '%s'", argv[i]);
				return -EXIT_BAD_INPUT;
			}
		} else if (!strcmp(a, "--mode")) {
			if (need_arg(argc, argv, i))
				return -EXIT_USAGE;
			m = usdtkit_mode_parse(argv[++i]);
			if (m < 0) {
				err_msg("bad mode '%s': want auto, multi, perf or ipmap",
					argv[i]);
				return -EXIT_BAD_INPUT;
			}
			t->mode = (enum usdtkit_mode)m;
		} else if (!strcmp(a, "--count") || !strcmp(a, "-c")) {
			if (need_arg(argc, argv, i))
				return -EXIT_USAGE;
			t->count = strtoull(argv[++i], &end, 10);
			if (*end || !t->count || argv[i][0] == '-') {
				err_msg("bad count '%s'", argv[i]);
				return -EXIT_BAD_INPUT;
			}
		} else if (!strcmp(a, "--duration") || !strcmp(a, "-d")) {
			if (need_arg(argc, argv, i))
				return -EXIT_USAGE;
			t->duration = strtod(argv[++i], &end);
			if (*end || !(t->duration > 0) || t->duration > 1e9) {
				err_msg("bad duration '%s'", argv[i]);
				return -EXIT_BAD_INPUT;
			}
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			trace_usage(stdout);
			return -EXIT_OK;
		} else if (!strcmp(a, "--")) {
			return i + 1;
		} else if (a[0] == '-' && a[1]) {
			err_msg("unknown option %s", a);
			trace_usage(stderr);
			return -EXIT_USAGE;
		} else {
			return i;
		}
	}
	return i;
}

static int setup(struct tracer *t, int ntargets, char **targets)
{
	size_t i, attached = 0;
	int k, err;

	for (k = 0; k < ntargets; k++) {
		err = add_target(t, targets[k]);
		if (err)
			return err;
	}
	t->mode = usdtkit_mode_resolve(t->mode);
	err = load(t);
	if (err)
		return err;
	for (i = 0; i < t->nprobes; i++) {
		err = attach_one(t, i);
		if (!err) {
			attached++;
		} else if (t->probes[i].optional) {
			/* a probe named by a glob, not by the user: one that
			 * cannot be attached (FP argument...) leaves the rest */
			err_msg("skipping %s:%s", t->probes[i].provider,
				t->probes[i].name);
		} else {
			return err;
		}
	}
	if (!attached) {
		err_msg("no probe could be attached");
		return -ENOENT;
	}
	/* the trace starts once every target is attached: hits of the first
	 * targets while later ones were still attaching are dropped, so the
	 * output never shows one probe and not yet another */
	t->start_ns = now_ns();
	t->rb = ring_buffer__new(bpf_map__fd(t->skel->maps.events), on_event, t, NULL);
	if (!t->rb) {
		err_msg("ring buffer: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

int cmd_trace(int argc, char **argv)
{
	struct tracer t = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	int first, rc = EXIT_OK;

	first = parse_opts(&t, argc, argv);
	if (first < 0)
		return -first;
	if (first >= argc) {
		err_msg("no TARGET");
		trace_usage(stderr);
		return EXIT_USAGE;
	}
	libbpf_verbose = t.verbose;
	libbpf_set_print(libbpf_msg);
	t.out = malloc(sizeof(*t.out));
	if (!t.out)
		return EXIT_BAD_INPUT;
	jw_init(t.out, stdout);
	/* no SA_RESTART: Ctrl-C interrupts the poll at once */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (setup(&t, argc - first, argv + first) || run(&t))
		rc = EXIT_BAD_INPUT;
	jw_flush(t.out);
	fflush(stdout);
	if (t.rb)
		report(&t);
	cleanup(&t);
	return rc;
}
