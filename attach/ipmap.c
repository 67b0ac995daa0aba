// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The IPMAP backend, for kernels without BPF cookies: perf-event uprobes
 * (perf.c) bound with no cookie, and an entry per site in the program's
 * IP map from the site's absolute address to its spec id. Entries are
 * shared by every attach of one spec at one address (manager.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include "attach/backend.h"
#include "elf/proc.h"

#define ET_EXEC_TYPE 2

/* Its part of the link: the events, and the IP-map entries it holds. */
struct ipmap_state {
	struct usdtkit__perf_sites perf;
	struct usdtkit__ips ips;
};

/* Where @s runs: its pc in an ET_EXEC, else in @proc's mapping of @f. */
static int site_ip(struct usdtkit_link *l, const struct usdtkit_file *f,
		   const struct usdtkit_site *s, const struct usdtkit_proc *proc,
		   uint64_t *ip)
{
	int err;

	if (usdtkit_file_type(f) == ET_EXEC_TYPE) {
		*ip = usdtkit_site_pc(s);
		return 0;
	}
	if (!proc) {
		usdtkit__warn(&l->log, "%s: IP-map attach to a PIE or shared library "
			      "needs a PID (its load address differs per process)",
			      usdtkit_file_name(f));
		return -EINVAL;
	}
	err = usdtkit_proc_site_addr(proc, s, ip);
	if (err)
		usdtkit__warn(&l->log, "%s: %s:%s is not mapped in pid %d",
			      usdtkit_file_name(f), usdtkit_site_provider(s),
			      usdtkit_site_name(s), usdtkit_proc_pid(proc));
	return err;
}

int usdtkit__ipmap_site(struct usdtkit_link *l, struct usdtkit_target *t,
			const struct usdtkit_file *f, const struct usdtkit_site *s,
			const struct usdtkit_proc *proc, int64_t delta,
			struct usdtkit__ips *ips)
{
	char where[512];
	int err = site_ip(l, f, s, proc, &t->ip);

	if (err)
		return err;
	snprintf(where, sizeof(where), "%s: %s:%s", usdtkit_file_name(f),
		 usdtkit_site_provider(s), usdtkit_site_name(s));
	t->ip += (uint64_t)delta;
	pthread_mutex_lock(&l->man->lock);
	err = usdtkit__ip_add(l->man, t->ip, t->spec_id, &l->log, where);
	if (!err && (err = usdtkit__append((void **)&ips->ip, &ips->n,
					   sizeof(uint64_t), &t->ip)))
		usdtkit__ip_del(l->man, t->ip);
	pthread_mutex_unlock(&l->man->lock);
	return err;
}

void usdtkit__ipmap_drop(struct usdtkit_link *l, struct usdtkit__ips *ips)
{
	size_t i;

	if (ips->n) {
		pthread_mutex_lock(&l->man->lock);
		for (i = 0; i < ips->n; i++)
			usdtkit__ip_del(l->man, ips->ip[i]);
		pthread_mutex_unlock(&l->man->lock);
	}
	free(ips->ip);
	ips->ip = NULL;
	ips->n = 0;
}

/* The site's IP-map entry, recorded in the link the moment it is taken. */
static int ipmap_site(struct usdtkit_link *l, struct usdtkit_target *t,
		      const struct usdtkit_file *f, const struct usdtkit_site *s,
		      const struct usdtkit_proc *proc, int64_t delta)
{
	struct ipmap_state *st = usdtkit__link_state(l);

	return usdtkit__ipmap_site(l, t, f, s, proc, delta, &st->ips);
}

static int ipmap_attach(struct usdtkit_link *l, const struct bpf_program *prog,
			const struct usdtkit_target *t, size_t n, int pid)
{
	struct ipmap_state *st = usdtkit__link_state(l);

	return usdtkit__perf_attach(l, &st->perf, prog, NULL, t, n, pid, false);
}

/* The events first: no site may run the program once its entry is gone. */
static void ipmap_release(struct usdtkit_link *l)
{
	struct ipmap_state *st = usdtkit__link_state(l);

	usdtkit__perf_release(&st->perf, l->detach_wait);
	usdtkit__ipmap_drop(l, &st->ips);
}

static size_t ipmap_fd_count(const struct usdtkit_link *l)
{
	const struct ipmap_state *st = usdtkit__link_state(l);

	return st->perf.n;
}

/* libbpf's usdt.bpf.h looks at the IP map only on kernels without
 * cookies; on others a cookie-less link would read spec 0 */
static int ipmap_check_abi(enum usdtkit_spec_abi abi, const struct usdtkit_log *lg)
{
	if (usdtkit__abi_own(abi) || !usdtkit_features()->bpf_cookie)
		return 0;
	usdtkit__warn(lg, "programs built with libbpf's usdt.bpf.h use BPF "
		      "cookies on this kernel: IP-map mode would misread them");
	return -EOPNOTSUPP;
}

const struct usdtkit__backend usdtkit__backend_ipmap = {
	.name = "ipmap",
	.attach_type = 0,
	.links = "perf",
	.check_abi = ipmap_check_abi,
	.by_address = true,
	.state_size = sizeof(struct ipmap_state),
	.site = ipmap_site,
	.attach = ipmap_attach,
	.release = ipmap_release,
	.fd_count = ipmap_fd_count,
};
