// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * uprobe_multi: one link for every site of one file, made with a raw
 * bpf(2) call (Debian 12's libbpf 1.1 has no API for it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
