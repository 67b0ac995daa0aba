// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The attach API on the target's own kernel (tests/vm, docs/ARCHES.md):
 * a skeleton built from vm_api.bpf.c, attached with usdtkit_attach() and
 * usdtkit_attach_pid() to the VM workload (vm_sites), which it starts.
 *
 *   vm_api values WORKLOAD DIR
 *	attach five probes (a USDTKIT_PROBE program on the 64-bit values of
 *	"wide", the generic program on globals, stack, loop and the
 *	two-site semaphore probe "sema", that one for any process), let
 *	the workload fire two rounds, and compare every event with the
 *	values the workload wrote down (DIR/expect), hit by hit. The
 *	semaphore must read as the number of its sites while attached.
 *   vm_api rollback WORKLOAD DIR MODE
 *	a blocker uprobe with a wrong semaphore at the last site of "sema"
 *	makes the kernel refuse that site: the attach must fail and leave
 *	no fd, BPF link, perf event (in any process) or IP-map entry, and
 *	the semaphore the first site raised back at 0.
 *
 * Prints "FAIL ..." per failed check and "vm_api CASE: N passed, M
 * failed"; exit 1 on any failure or nothing checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <usdtkit/attach.h>

#include "kstate.h"
#include "trace/bpf/trace_event.h"
#include "vm_api.skel.h"

#define PROVIDER "usdtkit_cross"
#define MAX_HITS 256

static int passed, failed;

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		if (cond) {                                                  \
			passed++;                                            \
		} else {                                                     \
			failed++;                                            \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);          \
			printf(__VA_ARGS__);                                 \
			putchar('\n');                                       \
		}                                                            \
	} while (0)

static char last_msg[1024];

static void print_msg(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	snprintf(last_msg, sizeof(last_msg), "%s", msg);
	printf("usdtkit: %s\n", msg);
}

/* ---- the workload ---- */

struct workload {
	pid_t pid;
	const char *path, *dir;
	unsigned long sema, decoy;	/* runtime addresses */
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wait up to @secs for DIR/@name; 0 or -ETIMEDOUT. */
static int wait_file(const struct workload *w, const char *name, double secs)
{
	char path[512];
	double end = mono_s() + secs;

	snprintf(path, sizeof(path), "%s/%s", w->dir, name);
	while (access(path, F_OK)) {
		if (mono_s() > end)
			return -ETIMEDOUT;
		usleep(20 * 1000);
	}
	return 0;
}

static void touch(const struct workload *w, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", w->dir, name);
	f = fopen(path, "w");
	if (f)
		fclose(f);
}

static int start_workload(struct workload *w, const char *path, const char *dir,
			  const char *rounds)
{
	char info[512], key[16];
	unsigned long v;
	FILE *f;

	w->path = path;
	w->dir = dir;
	w->pid = fork();
	if (w->pid < 0)
		return -errno;
	if (!w->pid) {
		execl(path, path, "run", rounds, dir, (char *)NULL);
		_exit(127);
	}
	if (wait_file(w, "info", 60))
		return -ETIMEDOUT;
	usleep(100 * 1000);	/* the info file is written in one go */
	snprintf(info, sizeof(info), "%s/info", dir);
	f = fopen(info, "r");
	if (!f)
		return -errno;
	while (fscanf(f, "%15s %li", key, (long *)&v) == 2) {
		if (!strcmp(key, "sema"))
			w->sema = v;
		else if (!strcmp(key, "decoy"))
			w->decoy = v;
		else if (!strcmp(key, "pid") && (pid_t)v != w->pid)
			return -ESRCH;
	}
	fclose(f);
	return w->sema ? 0 : -ENOENT;
}

static void stop_workload(struct workload *w)
{
	int status;

	touch(w, "go");
	touch(w, "done");
	if (waitpid(w->pid, &status, 0) == w->pid)
		CHECK(WIFEXITED(status) && !WEXITSTATUS(status),
		      "workload exit status %#x", status);
}

/* A 16-bit counter of the workload (its semaphore), or -1. */
static int read_short(const struct workload *w, unsigned long addr)
{
	char path[64];
	unsigned short v;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)w->pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = pread(fd, &v, sizeof(v), (off_t)addr);
	close(fd);
	return n == sizeof(v) ? v : -1;
}

/* ---- the workload's own record of its hits (vm_sites.c's format) ---- */

struct hit {
	char name[32];
	int nargs;
	unsigned long long v[USDTKIT_BPF_MAX_ARGS];
};

static int read_expect(const struct workload *w, struct hit *h, int max)
{
	char path[512], line[1024], *tok, *save;
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/expect", w->dir);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f)) {
		tok = strtok_r(line, " \n", &save);
		if (!tok)
			continue;
		snprintf(h[n].name, sizeof(h[n].name), "%s", tok);
		h[n].nargs = 0;
		while ((tok = strtok_r(NULL, " \n", &save)) &&
		       h[n].nargs < USDTKIT_BPF_MAX_ARGS) {
			const char *hex = strrchr(tok, ':');

			h[n].v[h[n].nargs++] = strtoull(hex ? hex + 1 : tok, NULL, 16);
		}
		n++;
	}
	fclose(f);
	return n;
}

/* ---- values ---- */

/* One attach: which program, which probe, for whom, by which call. */
struct target {
	const char *name;
	bool typed;		/* on_wide (USDTKIT_PROBE) */
	bool any_pid;		/* usdtkit_attach(..., -1, ...) */
	bool by_pid;		/* usdtkit_attach_pid() */
	struct usdtkit_link *link;
};

static struct target targets[] = {
	{ "wide", .typed = true },
	{ "globals", .typed = false },
	{ "stack", .by_pid = true },
	{ "loop", .typed = false },
	{ "sema", .any_pid = true },
};
#define NTARGETS (int)(sizeof(targets) / sizeof(targets[0]))

static struct usdtkit_trace_event events[MAX_HITS];
static int nevents;

static int on_event(void *ctx, void *data, size_t size)
{
	(void)ctx;
	if (size >= sizeof(events[0]) && nevents < MAX_HITS)
		memcpy(&events[nevents], data, sizeof(events[0]));
	nevents++;
	return 0;
}

static void attach_targets(struct vm_api *skel, const struct workload *w,
			   enum usdtkit_mode mode)
{
	int i;

	for (i = 0; i < NTARGETS; i++) {
		struct target *t = &targets[i];
		USDTKIT_OPTS(usdtkit_attach_opts, o, .cookie = i + 1, .mode = mode,
			    .print = print_msg);
		struct bpf_program *p = t->typed ? skel->progs.on_wide :
						   skel->progs.usdtkit_trace;

		if (t->by_pid)
			t->link = usdtkit_attach_pid(p, w->pid, PROVIDER, t->name, &o);
		else
			t->link = usdtkit_attach(p, t->any_pid ? -1 : w->pid, w->path,
						 PROVIDER, t->name, &o);
		CHECK(t->link, "attach %s: %s (%s)", t->name, strerror(errno), last_msg);
		if (t->link)
			CHECK(usdtkit_link_mode(t->link) == mode, "%s: mode %s, want %s",
			      t->name, usdtkit_mode_str(usdtkit_link_mode(t->link)),
			      usdtkit_mode_str(mode));
	}
}

/* Events, in order, against the workload's hits of the attached probes. */
static void compare(const struct workload *w, const struct hit *h, int nh)
{
	int i, k, e = 0, a;

	for (i = 0; i < nh; i++) {
		for (k = 0; k < NTARGETS && strcmp(targets[k].name, h[i].name); k++)
			;
		if (k == NTARGETS)
			continue;	/* a probe not attached */
		if (e >= nevents || e >= MAX_HITS) {
			CHECK(0, "hit %d (%s): no event", i, h[i].name);
			e++;
			continue;
		}
		CHECK(events[e].cookie == k + 1, "event %d: cookie %lld, want %d (%s)",
		      e, events[e].cookie, k + 1, h[i].name);
		CHECK(events[e].pid == (unsigned int)w->pid, "event %d: pid %u", e,
		      events[e].pid);
		CHECK(events[e].nargs == h[i].nargs && !events[e].err_mask,
		      "event %d (%s): %d args (err mask %#x), want %d", e, h[i].name,
		      events[e].nargs, events[e].err_mask, h[i].nargs);
		for (a = 0; a < h[i].nargs && a < events[e].nargs; a++)
			CHECK((unsigned long long)events[e].args[a] == h[i].v[a],
			      "%s hit %d arg %d: got %#llx, want %#llx", h[i].name, i, a,
			      (unsigned long long)events[e].args[a], h[i].v[a]);
		e++;
	}
	CHECK(e == nevents, "%d events, %d hits of the attached probes", nevents, e);
}

static int run_values(const char *path, const char *dir)
{
	enum usdtkit_mode mode = usdtkit_mode_resolve(USDTKIT_MODE_AUTO);
	struct vm_api *skel = vm_api__open();
	static struct hit hits[MAX_HITS * 2];
	struct ring_buffer *rb = NULL;
	struct workload w = { 0 };
	int i, nh, sema;

	CHECK(skel && !usdtkit_prog_prepare(skel->progs.on_wide, mode) &&
	      !usdtkit_prog_prepare(skel->progs.usdtkit_trace, mode) &&
	      !usdtkit_prog_prepare(skel->progs.on_sub, mode) &&
	      !vm_api__load(skel), "load the skeleton (mode %s)", usdtkit_mode_str(mode));
	if (failed)
		return 1;
	CHECK(!start_workload(&w, path, dir, "2"), "start %s", path);
	if (failed)
		return 1;
	attach_targets(skel, &w, mode);
	/* the kernel counts the semaphore once per uprobe: one per site */
	sema = read_short(&w, w.sema);
	CHECK(targets[4].link && sema == (int)usdtkit_link_site_count(targets[4].link) &&
	      sema == 2, "semaphore %d with %zu sites attached", sema,
	      targets[4].link ? usdtkit_link_site_count(targets[4].link) : 0);
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, NULL, NULL);
	CHECK(rb, "ring buffer");
	touch(&w, "go");
	CHECK(!wait_file(&w, "fired", 120), "workload fired");
	if (rb)
		ring_buffer__consume(rb);
	nh = read_expect(&w, hits, MAX_HITS * 2);
	CHECK(nh > 0, "expect file: %d hits", nh);
	compare(&w, hits, nh);
	printf("vm_api values: mode %s, %d events\n", usdtkit_mode_str(mode), nevents);
	for (i = 0; i < NTARGETS; i++)
		usdtkit_link_destroy(targets[i].link);
	ring_buffer__free(rb);
	stop_workload(&w);
	vm_api__destroy(skel);
	return 0;
}

/* ---- rollback ---- */

/* The last site of PROVIDER:sema in @path: pc and semaphore file offsets. */
static int last_sema_site(const char *path, uint64_t *pc_off, uint64_t *sema_off)
{
	struct usdtkit_file *f = usdtkit_file_open(path, NULL);
	const struct usdtkit_site *s = NULL, *last = NULL;
	int n = 0;

	if (!f)
		return -errno;
	while ((s = usdtkit_file_next_site(f, s, PROVIDER, "sema"))) {
		last = s;
		n++;
	}
	if (last) {
		*pc_off = usdtkit_site_pc_offset(last);
		*sema_off = usdtkit_site_semaphore_offset(last);
	}
	usdtkit_file_close(f);
	return n;
}

static int run_rollback(const char *path, const char *dir, enum usdtkit_mode mode)
{
	USDTKIT_OPTS(usdtkit_attach_opts, o, .mode = mode, .print = print_msg,
		    .detach_wait = true);
	struct vm_api *skel = vm_api__open(), *blk = vm_api__open();
	struct bpf_link *blocker = NULL;
	struct usdtkit_link *l;
	struct workload w = { 0 };
	uint64_t pc_off = 0, sema_off = 0;
	int fds, links, perfs, ips, sema = -1, nsites;
	double t0;

	mode = usdtkit_mode_resolve(mode);
	o.mode = mode;
	CHECK(skel && blk && !usdtkit_prog_prepare(skel->progs.usdtkit_trace, mode) &&
	      !usdtkit_prog_prepare(skel->progs.on_wide, mode) &&
	      !usdtkit_prog_prepare(skel->progs.on_sub, mode) && !vm_api__load(skel) &&
	      !usdtkit_prog_prepare(blk->progs.usdtkit_trace, USDTKIT_MODE_PERF) &&
	      !usdtkit_prog_prepare(blk->progs.on_wide, USDTKIT_MODE_PERF) &&
	      !usdtkit_prog_prepare(blk->progs.on_sub, USDTKIT_MODE_PERF) &&
	      !vm_api__load(blk), "load two skeletons (%s, perf)", usdtkit_mode_str(mode));
	nsites = last_sema_site(path, &pc_off, &sema_off);
	CHECK(nsites >= 2 && sema_off, "%s: %d sites of sema, semaphore at %#llx", path,
	      nsites, (unsigned long long)sema_off);
	if (failed)
		return 1;
	CHECK(!start_workload(&w, path, dir, "1"), "start %s", path);
	/* the blocker's wrong semaphore must be harmless memory */
	CHECK(w.decoy == w.sema + 2, "decoy at %#lx, semaphore at %#lx", w.decoy, w.sema);
	if (failed)
		return 1;
	{
		LIBBPF_OPTS(bpf_uprobe_opts, bo, .ref_ctr_offset = sema_off + 2);

		blocker = bpf_program__attach_uprobe_opts(blk->progs.usdtkit_trace, w.pid,
							  path, pc_off, &bo);
		CHECK(!libbpf_get_error(blocker), "blocker uprobe: %ld",
		      libbpf_get_error(blocker));
		if (libbpf_get_error(blocker))
			blocker = NULL;
	}
	CHECK(read_short(&w, w.decoy) == 1, "the blocker holds the decoy: %d",
	      read_short(&w, w.decoy));
	fds = count_fds();
	links = settled_links(-1);
	perfs = count_perf_events();
	ips = map_entries(bpf_map__fd(skel->maps.usdtkit_ip_map));

	l = usdtkit_attach(skel->progs.usdtkit_trace, w.pid, path, PROVIDER, "sema", &o);
	CHECK(!l, "attach %s must fail at the last site of sema", usdtkit_mode_str(mode));
	CHECK(strstr(last_msg, PROVIDER ":sema") && strstr(last_msg, "uprobe"),
	      "the refusal names the probe: %s", last_msg);
	usdtkit_link_destroy(l);
	CHECK(count_fds() == fds, "fds %d, before %d", count_fds(), fds);
	CHECK(settled_links(links) == links, "BPF links %d, before %d", count_links(), links);
	CHECK(count_perf_events() == perfs, "perf events %d, before %d",
	      count_perf_events(), perfs);
	CHECK(map_entries(bpf_map__fd(skel->maps.usdtkit_ip_map)) == ips && ips == 0,
	      "IP-map entries %d, before %d",
	      map_entries(bpf_map__fd(skel->maps.usdtkit_ip_map)), ips);
	/* the first site's uprobe is gone once its perf event is closed
	 * (detach_wait): its semaphore count with it */
	t0 = mono_s();
	while ((sema = read_short(&w, w.sema)) != 0 && mono_s() - t0 < 60)
		usleep(100 * 1000);
	CHECK(sema == 0, "semaphore %d after the rollback", sema);
	printf("vm_api rollback %s: semaphore back to 0 after %.2f s\n",
	       usdtkit_mode_str(mode), mono_s() - t0);
	bpf_link__destroy(blocker);
	stop_workload(&w);
	vm_api__destroy(skel);
	vm_api__destroy(blk);
	return 0;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	int m;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* a static link has no constructor registering SEC("usdtkit") */
	if (usdtkit_register_libbpf_handler()) {
		printf("FAIL: usdtkit_register_libbpf_handler\n");
		return 1;
	}
	if (argc == 4 && !strcmp(what, "values")) {
		run_values(argv[2], argv[3]);
	} else if (argc == 5 && !strcmp(what, "rollback") &&
		   (m = usdtkit_mode_parse(argv[4])) >= 0) {
		run_rollback(argv[2], argv[3], (enum usdtkit_mode)m);
		what = argv[4];
	} else {
		fprintf(stderr, "usage: vm_api values WORKLOAD DIR | "
			"rollback WORKLOAD DIR auto|perf|ipmap\n");
		return 2;
	}
	printf("vm_api %s: %d passed, %d failed\n", what, passed, failed);
	return failed || !passed ? 1 : 0;
}
