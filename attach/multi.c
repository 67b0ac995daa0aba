// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The MULTI backend: one uprobe_multi link for every site of one file,
 * made with a raw bpf(2) call (Debian 12's libbpf 1.1 has no API for
 * it). Closing a link restores every site before close() returns.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "attach/backend.h"

/* Its part of the link: a uprobe_multi link per file attached. */
struct multi_links {
	int *fds;
	size_t n;
};

/* A link for @t[lo..hi) made and closed at once: 0 or the kernel's errno. */
static int try_sites(int prog_fd, const struct usdtkit_target *t, size_t lo,
		     size_t hi, const uint64_t *offs, const uint64_t *refs, int pid)
{
	int fd = usdtkit__sys_uprobe_multi(prog_fd, t[0].path, offs + lo,
					   refs ? refs + lo : NULL, NULL,
					   (uint32_t)(hi - lo), pid);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/*
 * The kernel refuses a whole uprobe_multi link for one site and does not
 * say which (nor why: EINVAL is mostly another tracer's semaphore offset
 * at a site, see usdtkit__uprobe_hint). Bisect for the first site it
 * refuses alone, with a program that does nothing so the user's program
 * never runs from these links. Its index, or -1 if none is refused alone.
 */
static long refused_site(const struct usdtkit_target *t, size_t n,
			 const uint64_t *offs, const uint64_t *refs, int pid,
			 int err)
{
	int prog = usdtkit__noop_multi_prog();
	size_t lo = 0, hi = n;

	if (prog < 0)
		return -1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (try_sites(prog, t, lo, mid, offs, refs, pid) == err)
			hi = mid;
		else
			lo = mid;
	}
	if (try_sites(prog, t, lo, lo + 1, offs, refs, pid) != err)
		lo = n;
	close(prog);
	return lo < n ? (long)lo : -1;
}

static void multi_failed(struct usdtkit_link *l, const struct usdtkit_target *t,
			 size_t n, const uint64_t *offs, const uint64_t *refs,
			 int pid, int err)
{
	long bad = err == -EINVAL ? refused_site(t, n, offs, refs, pid, err) : -1;
	char hint[320];

	if (bad < 0) {
		usdtkit__warn(&l->log, "%s: uprobe_multi link of %zu sites (first %s:%s): %s",
			      t[0].path, n, t[0].provider, t[0].name, strerror(-err));
		return;
	}
	usdtkit__uprobe_hint(hint, sizeof(hint), err, &t[bad], false);
	usdtkit__warn(&l->log, "%s: %s:%s: uprobe at file offset 0x%llx (site %ld of %zu): "
		      "uprobe_multi: %s%s", t[bad].path, t[bad].provider, t[bad].name,
		      (unsigned long long)t[bad].offset, bad + 1, n, strerror(-err), hint);
}

/*
 * All @n targets are in one file (@t[0].path): one link. The kernel
 * checks every offset and semaphore before it installs anything, so a
 * bad site fails the whole call with nothing attached.
 */
static int multi_attach(struct usdtkit_link *l, const struct bpf_program *prog,
			const struct usdtkit_target *t, size_t n, int pid)
{
	struct multi_links *ml = usdtkit__link_state(l);
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
	pid = pid == 0 ? getpid() : pid < 0 ? 0 : pid;
	fd = usdtkit__sys_uprobe_multi(bpf_program__fd(prog), t[0].path, offs,
				       any_ref ? refs : NULL, cookies,
				       (uint32_t)n, pid);
	if (fd < 0)
		multi_failed(l, t, n, offs, any_ref ? refs : NULL, pid, fd);
	else if (usdtkit__append((void **)&ml->fds, &ml->n, sizeof(fd), &fd)) {
		close(fd);
		fd = -ENOMEM;
	}
out:
	free(offs);
	free(refs);
	free(cookies);
	return fd < 0 ? fd : 0;
}

static void multi_release(struct usdtkit_link *l)
{
	struct multi_links *ml = usdtkit__link_state(l);
	size_t i;

	for (i = 0; i < ml->n; i++)
		close(ml->fds[i]);
	free(ml->fds);
	ml->fds = NULL;
	ml->n = 0;
}

static size_t multi_fd_count(const struct usdtkit_link *l)
{
	const struct multi_links *ml = usdtkit__link_state(l);

	return ml->n;
}

static bool multi_supported(const struct usdtkit_features *f)
{
	return f->uprobe_multi;
}

const struct usdtkit__backend usdtkit__backend_multi = {
	.name = "multi",
	.attach_type = (enum bpf_attach_type)USDTKIT_TRACE_UPROBE_MULTI,
	.links = "uprobe_multi",
	.supported = multi_supported,
	.refusal = "this kernel has no uprobe_multi links (Linux 6.6 and "
		   "later, 64-bit kernels)",
	.instead = "perf or ipmap",
	.state_size = sizeof(struct multi_links),
	.attach = multi_attach,
	.release = multi_release,
	.fd_count = multi_fd_count,
};
