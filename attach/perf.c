// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Perf-event uprobes: one per site, each bound to the program by a BPF
 * link that carries the site's cookie (the PERF backend, at the end) or
 * none (IPMAP, ipmap.c, which uses the same events).
 *
 * usdtkit opens the perf events itself rather than through libbpf, whose
 * bpf_link owns both fds and closes them together, because detach has
 * two parts of very different cost (measured in bench/README.md):
 *  - closing a BPF perf link unhooks the program after an RCU
 *    tasks-trace grace period (~30 ms); closes from many threads share
 *    grace periods, so all links go in about the time of one;
 *  - closing the perf event removes the breakpoint and its trace event,
 *    which the kernel serializes on event_mutex (~0.1 s each).
 * Once the links are gone the events run nothing, so the second part can
 * be left to a background process (reaper.c) and detach costs the first.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach/backend.h"

#define UPROBE_PMU "/sys/bus/event_source/devices/uprobe/"

/* A perf-event uprobe and the BPF link that binds the program to it. */
struct usdtkit_perf_site {
	int pfd;
	int link_fd;	/* -1: none (the event itself holds the program) */
};

static int read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -EINVAL;
	buf[n] = 0;
	return 0;
}

/*
 * The uprobe PMU's dynamic type, and where its config takes the
 * semaphore offset ("config:32-63"; -1 if the kernel has no
 * ref_ctr_offset). Read once per attach: sysfs is the only source.
 */
static int uprobe_pmu(int *ref_shift)
{
	char buf[64];
	int type, lo, hi, err;

	err = read_small(UPROBE_PMU "type", buf, sizeof(buf));
	if (err)
		return err;
	if (sscanf(buf, "%d", &type) != 1 || type < 0)
		return -EINVAL;
	*ref_shift = -1;
	if (!read_small(UPROBE_PMU "format/ref_ctr_offset", buf, sizeof(buf)) &&
	    sscanf(buf, "config:%d-%d", &lo, &hi) == 2 && lo > 0 && lo < 64)
		*ref_shift = lo;
	return type;
}

/* libbpf's pid convention: -1 any process (the event is then
 * system-wide, which needs a CPU), 0 this one, N that one */
static int perf_open(int type, int ref_shift, const struct usdtkit_target *t, int pid)
{
	struct perf_event_attr a;
	long fd;

	if (t->ref_ctr && ref_shift < 0)
		return -EOPNOTSUPP;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = (uint32_t)type;
	a.config = t->ref_ctr ? t->ref_ctr << ref_shift : 0;
	a.config1 = (uint64_t)(uintptr_t)t->path;
	a.config2 = t->offset;
	fd = syscall(__NR_perf_event_open, &a, pid < 0 ? -1 : pid, pid == -1 ? 0 : -1,
		     -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

/* One perf-event uprobe per site; the cookie carries the spec id unless
 * the program looks IPs up instead (IPMAP). */
int usdtkit__perf_attach(struct usdtkit_link *l, struct usdtkit__perf_sites *ps,
			 const struct bpf_program *prog, const int *prog_fds,
			 const struct usdtkit_target *t, size_t n, int pid,
			 bool cookies)
{
	struct usdtkit_perf_site *arr;
	const char *what = "perf_event_open";
	int type, shift = -1, err = 0;
	size_t i;

	type = uprobe_pmu(&shift);
	if (type < 0) {
		usdtkit__warn(&l->log, "%s: no uprobe PMU in " UPROBE_PMU ": %s",
			      t[0].path, strerror(-type));
		return type;
	}
	arr = realloc(ps->s, (ps->n + n) * sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	ps->s = arr;
	for (i = 0; i < n && !err; i++) {
		struct usdtkit_perf_site *s = &ps->s[ps->n];

		s->link_fd = -1;
		what = "perf_event_open";
		s->pfd = perf_open(type, shift, &t[i], pid);
		if (s->pfd < 0) {
			err = s->pfd;
			break;
		}
		ps->n++;	/* from here on the teardown closes it */
		what = "BPF link";
		err = usdtkit__perf_bind(prog_fds ? prog_fds[i] : bpf_program__fd(prog), s->pfd,
					 cookies ? usdtkit__cookie(l->man, t[i].spec_id) : 0,
					 true, &s->link_fd);
	}
	if (err) {
		char hint[320] = "";

		/* only the event's creation registers the uprobe */
		if (!strcmp(what, "perf_event_open"))
			usdtkit__uprobe_hint(hint, sizeof(hint), err, &t[i], true);
		usdtkit__warn(&l->log, "%s: %s:%s: uprobe at file offset 0x%llx (site %zu of %zu): "
			      "%s: %s%s", t[i].path, t[i].provider, t[i].name,
			      (unsigned long long)t[i].offset, i + 1, n, what,
			      strerror(-err), hint);
	}
	return err;
}

/* ---- detach ---- */

/* Threads that close BPF links at once; their grace periods overlap. */
#define CLOSE_THREADS 128
#define CLOSE_STACK (64 * 1024)

struct close_job {
	const struct usdtkit_perf_site *s;
	size_t n, step, first;
};

static void *close_links(void *arg)
{
	const struct close_job *j = arg;
	size_t i;

	for (i = j->first; i < j->n; i += j->step)
		if (j->s[i].link_fd >= 0)
			close(j->s[i].link_fd);
	return NULL;
}

static void links_close(const struct usdtkit_perf_site *s, size_t n)
{
	struct close_job jobs[CLOSE_THREADS];
	pthread_t th[CLOSE_THREADS];
	size_t i, nth = n < CLOSE_THREADS ? n : CLOSE_THREADS, started = 0;
	pthread_attr_t at;

	if (nth <= 1) {
		struct close_job j = { s, n, 1, 0 };

		close_links(&j);
		return;
	}
	/* small stacks: 128 threads must fit a 32-bit address space too */
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, CLOSE_STACK);
	for (i = 0; i < nth; i++) {
		jobs[i] = (struct close_job){ s, n, nth, i };
		if (pthread_create(&th[i], &at, close_links, &jobs[i]))
			break;
		started++;
	}
	pthread_attr_destroy(&at);
	/* the jobs no thread took (thread creation failed) run here */
	for (i = started; i < nth; i++)
		close_links(&jobs[i]);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
}

/*
 * Unhook the program from every site, then release the perf events: in
 * place when @wait, else by a background process when one can be
 * started. Events that hold the program themselves (no link) are always
 * closed here, since closing them is what detaches.
 */
static void events_release(const struct usdtkit_perf_site *s, size_t n, bool wait)
{
	int *fds = NULL;
	size_t i, k = 0;

	links_close(s, n);
	if (!wait)
		fds = malloc(n * sizeof(*fds));
	for (i = 0; i < n; i++) {
		if (fds && s[i].link_fd >= 0)
			fds[k++] = s[i].pfd;
		else
			close(s[i].pfd);
	}
	if (k)
		usdtkit__close_in_background(fds, k);
	free(fds);
}

/* All of @ps's events, then its array: @ps is empty again. */
void usdtkit__perf_release(struct usdtkit__perf_sites *ps, bool wait)
{
	if (ps->n)
		events_release(ps->s, ps->n, wait);
	free(ps->s);
	ps->s = NULL;
	ps->n = 0;
}

/* ---- the backend: a cookie per site ---- */

static bool perf_supported(const struct usdtkit_features *f)
{
	return f->bpf_cookie;
}

static int perf_attach(struct usdtkit_link *l, const struct bpf_program *prog,
		       const struct usdtkit_target *t, size_t n, int pid)
{
	return usdtkit__perf_attach(l, usdtkit__link_state(l), prog, NULL, t, n, pid, true);
}

static void perf_release(struct usdtkit_link *l)
{
	usdtkit__perf_release(usdtkit__link_state(l), l->detach_wait);
}

static size_t perf_fd_count(const struct usdtkit_link *l)
{
	const struct usdtkit__perf_sites *ps = usdtkit__link_state(l);

	return ps->n;
}

const struct usdtkit__backend usdtkit__backend_perf = {
	.name = "perf",
	.attach_type = 0,
	.links = "perf",
	.supported = perf_supported,
	.refusal = "this kernel has no BPF cookies (Linux 5.15 and later)",
	.instead = "ipmap",
	.state_size = sizeof(struct usdtkit__perf_sites),
	.attach = perf_attach,
	.release = perf_release,
	.fd_count = perf_fd_count,
};
