// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The trace engine's steps: a request (targets, a filter, aggregations)
 * -> the generic program configured, loaded, attached, and its ring
 * buffer polled. Globs are expanded here, not by the attach layer: every
 * matching probe gets its own attach and cookie (its index + 1), so a
 * hit names the exact probe, with that probe's argument types.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "internal.h"
#include "opts.h"
#include "trace.skel.h"

uint64_t usdtkit__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * What the layers below say, passed on; while attaching, the first
 * warning is held back to become the one line about the failure.
 */
void usdtkit__trace_msg(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	struct usdtkit_trace *t = ctx;

	if (level == USDTKIT_LOG_WARN)
		t->warnings++;
	if (level == USDTKIT_LOG_WARN && t->capture) {
		if (!t->captured)
			t->captured = strdup(msg);
		return;
	}
	if (t->log.print)
		t->log.print(t->log.ctx, level, msg);
}

struct usdtkit_trace *usdtkit_trace_new(const struct usdtkit_trace_opts *opts)
{
	struct usdtkit_trace_opts o;
	struct usdtkit_trace_filter_err fe = { 0 };
	struct usdtkit_trace *t;
	int err;

	err = usdtkit__opts_copy(&o, usdtkit_trace_opts, opts);
	if (!err && (o.str_len > USDTKIT_TRACE_STRLEN_MAX || o.pid < 0 ||
		     o.str_mask >> MAX_ARGS || (unsigned int)o.mode > USDTKIT_MODE_IPMAP))
		err = -EINVAL;
	t = err ? NULL : calloc(1, sizeof(*t));
	if (!t) {
		errno = err ? -err : ENOMEM;
		return NULL;
	}
	t->log = (struct usdtkit_log){ .print = o.print, .ctx = o.print_ctx };
	t->pid = o.pid;
	t->mode = o.mode;
	t->str_mask = o.str_mask;
	t->str_len = o.str_len ? o.str_len : USDTKIT_TRACE_STRLEN_DEFAULT;
	t->best_effort = o.best_effort;
	t->on_hit = o.on_hit;
	t->hit_ctx = o.hit_ctx;
	t->cmd.go_fd = t->cmd.err_fd = -1;
	if (o.filter) {
		t->agg.filter_text = strdup(o.filter);
		err = t->agg.filter_text ? usdtkit__filter_parse(o.filter, &t->agg.filter, &fe) :
			-ENOMEM;
		if (err == -EINVAL)
			trace_err(t, "bad filter '%s': column %d: %s", o.filter, fe.col,
				  fe.msg);
		if (err) {
			usdtkit_trace_free(t);
			errno = -err;
			return NULL;
		}
	}
	return t;
}

int usdtkit_trace_add(struct usdtkit_trace *t, const char *target)
{
	if (t->prepared || !target)
		return -EINVAL;
	return usdtkit__trace_add_target(t, target);
}

/*
 * -c in IPMAP mode (AUTO before Linux 5.15): the map needs each site's
 * address in CMD, and a PIE or a shared library is placed only once CMD
 * runs, after the probes must be attached. Said once, before anything is
 * forked, instead of a failed attach per probe.
 */
static int check_ipmap_cmd(struct usdtkit_trace *t)
{
	size_t i;

	if (!t->has_cmd || t->mode != USDTKIT_MODE_IPMAP)
		return 0;
	for (i = 0; i < t->nprobes; i++) {
		const struct probe *p = &t->probes[i];

		if (p->file && usdtkit_file_type(p->file) != ET_EXEC) {
			trace_err(t, "-c with --mode ipmap%s: %s is placed in memory only "
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

int usdtkit_trace_prepare(struct usdtkit_trace *t)
{
	int err;

	if (t->prepared)
		return -EALREADY;
	if (!t->nprobes) {
		trace_err(t, "no probe to trace");
		return -EINVAL;
	}
	err = usdtkit__agg_check(t);
	if (!err)
		t->prepared = true;
	return err;
}

/*
 * What this kernel lacks fails once, before anything is loaded or
 * forked, naming what is missing, rather than once per probe or as
 * libbpf's errors from the middle of the load.
 */
static int check_kernel(struct usdtkit_trace *t)
{
	const struct usdtkit_features *f = usdtkit_features();

	if (!f->bpf)
		return 0;	/* the load says why */
	if (!f->ringbuf) {
		/* every hit and every counter read goes through it */
		trace_err(t, "this kernel has no BPF ring buffer "
			  "(Linux 5.8 and later), which trace needs");
		return -EOPNOTSUPP;
	}
	if (t->mode == USDTKIT_MODE_MULTI && !f->uprobe_multi) {
		trace_err(t, "--mode multi: this kernel has no uprobe_multi links "
			  "(Linux 6.6 and later, 64-bit kernels): use --mode perf or ipmap");
		return -EOPNOTSUPP;
	}
	if (t->mode == USDTKIT_MODE_PERF && !f->bpf_cookie) {
		trace_err(t, "--mode perf: this kernel has no BPF cookies "
			  "(Linux 5.15 and later): use --mode ipmap");
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * Room for every site the targets have: a site needs at most one spec
 * and one IP-map entry. The program's own capacities stay the floor, so
 * a small trace costs what it did; the caller has no limit to hit short
 * of kernel memory (a spec is 304 bytes).
 */
static int size_maps(struct usdtkit_trace *t)
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
			trace_err(t, "sizing map %s for %zu sites: %s",
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
 * What the load cost, from the verifier's statistics (log level 4: a
 * few lines, and no slower verification), said at INFO level. "processed
 * N insns" is on every kernel, where verified_insns in bpf_prog_info
 * needs 5.16. bench/startup_bench.sh and the verifier count test read
 * this line.
 */
#define LOAD_LOG_SIZE 16384

static unsigned long long log_num(const char *log, const char *key)
{
	const char *p = log ? strstr(log, key) : NULL;

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

static void say_loaded(struct usdtkit_trace *t, const char *log, uint64_t ns)
{
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info);
	int fd = bpf_program__fd(t->skel->progs.usdtkit_trace);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		memset(&info, 0, sizeof(info));
	usdtkit__info(&t->log, "loaded usdtkit_trace: features 0x%x, "
		      "%llu insns processed, %u xlated, verified in %.3f ms, "
		      "load %.3f ms", t->skel->rodata->features,
		      log_num(log, "processed "), info.xlated_prog_len / 8,
		      log_num(log, "verification time ") / 1e3, ns / 1e6);
}

static int load_prog(struct usdtkit_trace *t)
{
	struct bpf_program *prog = t->skel->progs.usdtkit_trace;
	char *log = t->log.print ? calloc(1, LOAD_LOG_SIZE) : NULL;
	uint64_t t0;
	int err;

	if (log) {
		bpf_program__set_log_buf(prog, log, LOAD_LOG_SIZE);
		bpf_program__set_log_level(prog, 4);
	}
	t0 = usdtkit__now_ns();
	err = trace__load(t->skel);
	if (!err)
		say_loaded(t, log, usdtkit__now_ns() - t0);
	free(log);
	return err;
}

static int open_prog(struct usdtkit_trace *t)
{
	size_t i;
	int err;

	t->skel = trace__open();
	if (!t->skel) {
		err = -errno;
		trace_err(t, "opening the BPF program: %s", strerror(-err));
		return err;
	}
	if (t->str_mask) {
		t->skel->rodata->ev_size = (unsigned int)usdtkit__str_layout(t);
		t->skel->rodata->str_size = t->str_len + 2;
		for (i = 0; i < MAX_ARGS; i++)
			t->skel->rodata->str_off[i] = t->str_off[i];
	}
	return 0;
}

int usdtkit_trace_load(struct usdtkit_trace *t)
{
	int err;

	if (!t->prepared || t->loaded)
		return -EINVAL;
	t->mode = usdtkit_mode_resolve(t->mode);
	err = check_kernel(t);
	if (!err)
		err = check_ipmap_cmd(t);
	/* a command's pid is needed to attach: forked now, held before
	 * its exec (the probes are not in its address space before that) */
	if (!err && t->has_cmd)
		err = usdtkit__cmd_start(t);
	if (!err)
		err = open_prog(t);
	if (err)
		return err;
	err = usdtkit__agg_size(t);
	if (!err)
		err = usdtkit_prog_prepare(t->skel->progs.usdtkit_trace, t->mode);
	if (!err)
		err = size_maps(t);
	if (!err)
		err = load_prog(t);
	if (err) {
		trace_err(t, "loading the BPF program: %s%s", strerror(-err),
			  load_hint(err));
		return err;
	}
	err = usdtkit__agg_write(t);
	if (!err)
		t->loaded = true;
	return err;
}

/* Attach probe @i; on failure, -errno and *@why: the reason, naming the
 * file, probe and argument when the library said which (malloc'ed). */
static int attach_one(struct usdtkit_trace *t, size_t i, char **why)
{
	struct probe *p = &t->probes[i];
	struct usdtkit_attach_opts o = { .sz = sizeof(o), .cookie = i + 1,
					 .mode = t->mode, .print = usdtkit__trace_msg,
					 .print_ctx = t, .file = p->file };
	char *prov = usdtkit__glob_quote(p->provider), *name = usdtkit__glob_quote(p->name);
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
	p->pub.link = p->link;
	if (p->link) {
		p->pub.sites = usdtkit_link_site_count(p->link);
		p->pub.mode = usdtkit_link_mode(p->link);
	}
	if (!p->link) {
		usdtkit__probe_label(p, label, sizeof(label));
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
		trace_err(t, "%s", t->captured);
		free(t->captured);
		t->captured = NULL;
	}
	/* a probe whose sites differ (an int here, a long there) is fine:
	 * every hit carries the width and sign of the site that fired */
	usdtkit__info(&t->log, "%s:%s: %zu site(s), mode %s%s", p->provider, p->name,
		      p->pub.sites, usdtkit_mode_str(p->pub.mode),
		      p->pub.mixed ? ", sites differ in their arguments" : "");
out:
	free(prov);
	free(name);
	return err;
}

/* a probe that failed: one line, with the attach layer's reason; a
 * probe named by a glob, not by the caller, leaves the rest with
 * best_effort (1), any other fails the trace (the error) */
static int attach_failed(struct usdtkit_trace *t, size_t i, int err, char *why)
{
	const struct probe *p = &t->probes[i];

	if (p->pub.optional && t->best_effort)
		trace_err(t, "skipping %s:%s (%s)", p->provider, p->name,
			  why ? why : strerror(-err));
	else
		trace_err(t, "cannot attach: %s", why ? why : strerror(-err));
	free(why);
	return p->pub.optional ? 1 : err;
}

int usdtkit_trace_attach(struct usdtkit_trace *t)
{
	size_t i, attached = 0, skipped = 0;
	int err;

	if (!t->loaded || t->attached)
		return -EINVAL;
	for (i = 0; i < t->nprobes; i++) {
		char *why = NULL;

		err = attach_one(t, i, &why);
		if (!err) {
			attached++;
			continue;
		}
		err = attach_failed(t, i, err, why);
		if (err < 0)
			return err;
		skipped++;
	}
	usdtkit__trace_targets_release(t);
	if (skipped && !t->best_effort) {
		trace_err(t, "%zu of %zu probes could not be attached "
			  "(--best-effort traces the others)", skipped, t->nprobes);
		return -EOPNOTSUPP;
	}
	if (!attached) {
		trace_err(t, "no probe could be attached");
		return -ENOENT;
	}
	/* the trace starts once every target is attached: hits of the first
	 * targets while later ones were still attaching are dropped, so no
	 * caller sees one probe and not yet another */
	t->start_ns = usdtkit__now_ns();
	t->rb = ring_buffer__new(bpf_map__fd(t->skel->maps.events),
				 usdtkit__on_event, t, NULL);
	if (!t->rb) {
		err = -errno;
		trace_err(t, "ring buffer: %s", strerror(-err));
		return err;
	}
	t->attached = true;
	return 0;
}

int usdtkit_trace_go(struct usdtkit_trace *t)
{
	if (!t->attached)
		return -EINVAL;
	return t->has_cmd && t->cmd.go_fd >= 0 ? usdtkit__cmd_go(t) : 0;
}

int usdtkit_trace_fd(const struct usdtkit_trace *t)
{
	return t->rb ? ring_buffer__epoll_fd(t->rb) : -EINVAL;
}

int usdtkit_trace_consume(struct usdtkit_trace *t)
{
	return t->rb ? ring_buffer__consume(t->rb) : -EINVAL;
}

size_t usdtkit_trace_probe_count(const struct usdtkit_trace *t)
{
	return t->nprobes;
}

const struct usdtkit_trace_probe *usdtkit_trace_probe(const struct usdtkit_trace *t,
						      size_t i)
{
	return i < t->nprobes ? &t->probes[i].pub : NULL;
}

enum usdtkit_mode usdtkit_trace_mode(const struct usdtkit_trace *t)
{
	return t->mode;
}

int usdtkit_trace_pid(const struct usdtkit_trace *t)
{
	return t->pid;
}

uint64_t usdtkit_trace_start_ns(const struct usdtkit_trace *t)
{
	return t->start_ns;
}

static void destroy_links(struct usdtkit_trace *t)
{
	struct usdtkit_link **links;
	size_t i;

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
}

void usdtkit_trace_free(struct usdtkit_trace *t)
{
	size_t i;

	if (!t)
		return;
	/* a command, maybe not yet exec'd, goes first */
	usdtkit__cmd_free(t);
	ring_buffer__free(t->rb);
	destroy_links(t);
	for (i = 0; i < t->nprobes; i++) {
		free(t->probes[i].path);
		free(t->probes[i].provider);
		free(t->probes[i].name);
	}
	usdtkit__trace_targets_release(t);
	usdtkit__agg_free(t);
	free(t->probes);
	free(t->captured);
	trace__destroy(t->skel);
	free(t);
}
