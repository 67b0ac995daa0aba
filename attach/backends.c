// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The two kinds of kernel attachment: one uprobe_multi link per file, or
 * one perf-event uprobe link per site. Both undo their own partial work
 * on failure; the caller undoes the rest.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "internal.h"

/*
 * All @n targets are in one file (@t[0].path): one link. The kernel
 * checks every offset and semaphore before it installs anything, so a
 * bad site fails the whole call with nothing attached.
 */
int usdtkit__attach_multi(struct usdtkit_link *l, const struct bpf_program *prog,
			  const struct usdtkit_target *t, size_t n, int pid)
{
	uint64_t *offs = calloc(n, sizeof(*offs));
	uint64_t *refs = calloc(n, sizeof(*refs));
	uint64_t *cookies = calloc(n, sizeof(*cookies));
	bool any_ref = false;
	size_t i;
	int fd;

	if (!offs || !refs || !cookies) {
		fd = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		offs[i] = t[i].offset;
		refs[i] = t[i].ref_ctr;
		any_ref |= t[i].ref_ctr != 0;
		cookies[i] = usdtkit__cookie(l->man, t[i].spec_id);
	}
	/* the kernel's pid 0 means any process */
	fd = usdtkit__sys_uprobe_multi(bpf_program__fd(prog), t[0].path, offs,
				       any_ref ? refs : NULL, cookies,
				       (uint32_t)n, pid < 0 ? 0 : pid);
	if (fd < 0)
		usdtkit__warn(&l->log, "%s: uprobe_multi link of %zu sites (first %s:%s): %s",
			      t[0].path, n, t[0].provider, t[0].name, strerror(-fd));
	else
		l->multi_fd = fd;
out:
	free(offs);
	free(refs);
	free(cookies);
	return fd < 0 ? fd : 0;
}

/* One perf-event uprobe per site; the cookie carries the spec id unless
 * the program looks IPs up instead (IPMAP). */
int usdtkit__attach_perf(struct usdtkit_link *l, const struct bpf_program *prog,
			 const struct usdtkit_target *t, size_t n, int pid,
			 bool cookies)
{
	struct bpf_link **links;
	size_t i;

	links = realloc(l->plinks, (l->nplinks + n) * sizeof(*links));
	if (!links)
		return -ENOMEM;
	l->plinks = links;
	for (i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, o,
			    .ref_ctr_offset = (size_t)t[i].ref_ctr,
			    .bpf_cookie = cookies ? usdtkit__cookie(l->man, t[i].spec_id) : 0);
		struct bpf_link *bl;
		int err;

		/* libbpf: pid -1 any process, 0 this one */
		bl = bpf_program__attach_uprobe_opts(prog, pid, t[i].path,
						     (size_t)t[i].offset, &o);
		err = libbpf_get_error(bl);
		if (err) {
			usdtkit__warn(&l->log, "%s: %s:%s: uprobe at file offset 0x%llx "
				      "(site %zu of %zu): %s", t[i].path, t[i].provider,
				      t[i].name, (unsigned long long)t[i].offset, i + 1, n,
				      strerror(-err));
			return err;
		}
		l->plinks[l->nplinks++] = bl;
	}
	return 0;
}

/*
 * Detaching a perf-event uprobe waits for an RCU grace period in the
 * kernel (about 0.1 s here). Closed one after another, 1000 sites cost
 * 100 s; closed from many threads at once, the waits overlap.
 */
#define DETACH_THREADS 64

struct detach_job {
	struct bpf_link **links;
	size_t n, step, first;
};

static void *detach_worker(void *arg)
{
	struct detach_job *j = arg;
	size_t i;

	for (i = j->first; i < j->n; i += j->step)
		bpf_link__destroy(j->links[i]);
	return NULL;
}

void usdtkit__links_destroy(struct bpf_link **links, size_t n)
{
	struct detach_job jobs[DETACH_THREADS];
	pthread_t th[DETACH_THREADS];
	size_t i, nth = n < DETACH_THREADS ? n : DETACH_THREADS;
	size_t started = 0;

	if (n <= 1) {
		if (n)
			bpf_link__destroy(links[0]);
		return;
	}
	for (i = 0; i < nth; i++) {
		jobs[i] = (struct detach_job){ links, n, nth, i };
		if (pthread_create(&th[i], NULL, detach_worker, &jobs[i]))
			break;
		started++;
	}
	/* the jobs no thread took (thread creation failed) run here */
	for (i = started; i < nth; i++)
		detach_worker(&jobs[i]);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
}
