// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The INST backend, for kernels without BPF cookies (before Linux 5.15)
 * where a site has no fixed address: a PIE or a shared library traced in
 * every process, or in a command that has not mapped it yet. IPMAP needs
 * the address; this needs neither address nor cookie.
 *
 * The program is loaded again once per distinct spec the link attaches
 * (sites that share a spec share it), from the instructions libbpf
 * loaded, with one change: its load of usdtkit_inst (usdtkit.bpf.h) now
 * names a one-entry map of its own holding that spec's id + 1, so
 * usdtkit_spec() finds the spec with one inlined array lookup. Every
 * other map is the program's own. Each site is a perf-event uprobe
 * (perf.c) bound, with no cookie, to its spec's instance.
 *
 * A map rather than a patched immediate: the handler has already turned
 * bpf_get_attach_cookie() into "r0 = 0" on these kernels, which leaves
 * nothing to find, while a map load carries an fd whose map id is known.
 *
 * The verifier walks each instance as it walked the program, so loads
 * cost time and kernel memory per instance (bench/README.md, "Mode
 * inst"): the manager counts them against INST_CAP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "backend.h"

/*
 * Instances a program's manager may hold at once. Each costs one
 * verification and a copy of the program in kernel memory (about 30 KiB
 * and 5 ms for usdtkit trace's program on the host; bench/README.md):
 * a glob over libstdc++'s or Python's probes stays under it, a request
 * that would pass it is refused naming the probe.
 */
#define INST_CAP 256

struct inst {
	int id;		/* spec id */
	int prog_fd, map_fd;
};

/* Its part of the link: the events, and the instances they run. */
struct inst_state {
	struct usdtkit__perf_sites perf;
	struct inst *v;
	size_t n;
};

static int inst_fd(const struct inst_state *st, int id)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		if (st->v[i].id == id)
			return st->v[i].prog_fd;
	return -1;
}

static uint32_t map_id_of(int fd)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

/*
 * The program's instructions with every load of usdtkit_inst (map id
 * @inst_id) naming @map_fd instead; malloc'ed, NULL with -errno in *@err.
 */
static struct bpf_insn *insns_for(const struct bpf_program *prog, uint32_t inst_id,
				  int map_fd, size_t *np, int *err)
{
	const struct bpf_insn *in = bpf_program__insns(prog);
	size_t i, n = bpf_program__insn_cnt(prog), patched = 0;
	struct bpf_insn *out;

	*err = -ENOENT;
	if (!in || !n)
		return NULL;
	out = malloc(n * sizeof(*out));
	if (!out) {
		*err = -ENOMEM;
		return NULL;
	}
	memcpy(out, in, n * sizeof(*out));
	for (i = 0; i + 1 < n; i++) {
		if (out[i].code != (BPF_LD | BPF_DW | BPF_IMM))
			continue;
		if (out[i].src_reg == BPF_PSEUDO_MAP_FD && map_id_of(out[i].imm) == inst_id) {
			out[i].imm = map_fd;
			patched++;
		}
		i++;	/* the second half of the 16-byte instruction */
	}
	if (!patched) {
		free(out);
		return NULL;
	}
	*np = n;
	return out;
}

/* The instance's map: spec id + 1, frozen (it never changes). */
static int inst_map(int id)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "usdtkit_inst", sizeof(int),
				sizeof(int), 1, NULL);
	int key = 0, val = id + 1;

	if (fd < 0)
		return -errno;
	if (bpf_map_update_elem(fd, &key, &val, BPF_ANY) || bpf_map_freeze(fd)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* One instance of @prog for spec @id: a prog fd, or -errno. */
static int inst_load(struct usdtkit_link *l, const struct bpf_program *prog, int id,
		     int map_fd, const char *where)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = bpf_program__expected_attach_type(prog),
		    .prog_flags = bpf_program__flags(prog));
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	struct bpf_insn *insns;
	size_t n = 0;
	int fd, err;

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return -errno;
	insns = insns_for(prog, l->man->inst_map_id, map_fd, &n, &err);
	if (!insns) {
		usdtkit__warn(&l->log, "%s: program '%s' never reads usdtkit_inst, which "
			      "mode inst sets", where, bpf_program__name(prog));
		return err;
	}
	fd = bpf_prog_load(bpf_program__type(prog), info.name,
			   info.gpl_compatible ? "GPL" : "Proprietary", insns, n, &o);
	err = fd < 0 ? -errno : 0;
	free(insns);
	if (err)
		usdtkit__warn(&l->log, "%s: loading the instance of program '%s' for "
			      "spec %d: %s", where, bpf_program__name(prog), id,
			      strerror(-err));
	return err ? err : fd;
}

/* The site's spec gets its instance, unless an earlier site's has one. */
static int inst_site(struct usdtkit_link *l, struct usdtkit_target *t,
		     const struct usdtkit_file *f, const struct usdtkit_site *s,
		     const struct usdtkit_proc *proc, int64_t delta)
{
	struct inst_state *st = usdtkit__link_state(l);
	struct usdtkit_manager *m = l->man;
	struct inst in = { .id = t->spec_id, .prog_fd = -1, .map_fd = -1 };
	const struct bpf_program *prog = l->prog;
	char where[512];
	size_t had;
	int err;

	(void)proc;
	(void)delta;
	if (inst_fd(st, t->spec_id) >= 0)
		return 0;
	snprintf(where, sizeof(where), "%s: %s:%s", usdtkit_file_name(f),
		 usdtkit_site_provider(s), usdtkit_site_name(s));
	if (!m->inst_map_id) {
		usdtkit__warn(&l->log, "%s: program '%s' has no usdtkit_inst map, which "
			      "mode inst needs: rebuild it against this usdtkit.bpf.h",
			      where, bpf_program__name(prog));
		return -EOPNOTSUPP;
	}
	pthread_mutex_lock(&m->lock);
	had = m->ninst;
	if (had < INST_CAP)
		m->ninst++;
	pthread_mutex_unlock(&m->lock);
	if (had >= INST_CAP) {
		usdtkit__warn(&l->log, "%s: mode inst loads one program per distinct "
			      "argument spec, and this one would pass its cap of %d "
			      "(%zu loaded): trace fewer probes, or give -p PID",
			      where, INST_CAP, had);
		return -E2BIG;
	}
	in.map_fd = inst_map(t->spec_id);
	err = in.map_fd < 0 ? in.map_fd : 0;
	if (!err) {
		in.prog_fd = inst_load(l, prog, t->spec_id, in.map_fd, where);
		err = in.prog_fd < 0 ? in.prog_fd : 0;
	}
	if (!err)
		err = usdtkit__append((void **)&st->v, &st->n, sizeof(in), &in);
	if (err) {
		if (in.prog_fd >= 0)
			close(in.prog_fd);
		if (in.map_fd >= 0)
			close(in.map_fd);
		pthread_mutex_lock(&m->lock);
		m->ninst--;
		pthread_mutex_unlock(&m->lock);
	}
	return err;
}

static int inst_attach(struct usdtkit_link *l, const struct bpf_program *prog,
		       const struct usdtkit_target *t, size_t n, int pid)
{
	struct inst_state *st = usdtkit__link_state(l);
	int *fds = malloc(n * sizeof(*fds));
	size_t i;
	int err;

	if (!fds)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		fds[i] = inst_fd(st, t[i].spec_id);
	err = usdtkit__perf_attach(l, &st->perf, prog, fds, t, n, pid, false);
	free(fds);
	return err;
}

/* The events first: they run the instances. */
static void inst_release(struct usdtkit_link *l)
{
	struct inst_state *st = usdtkit__link_state(l);
	size_t i;

	usdtkit__perf_release(&st->perf, l->detach_wait);
	for (i = 0; i < st->n; i++) {
		close(st->v[i].prog_fd);
		close(st->v[i].map_fd);
	}
	if (st->n) {
		pthread_mutex_lock(&l->man->lock);
		l->man->ninst -= st->n;
		pthread_mutex_unlock(&l->man->lock);
	}
	free(st->v);
	st->v = NULL;
	st->n = 0;
}

static size_t inst_fd_count(const struct usdtkit_link *l)
{
	const struct inst_state *st = usdtkit__link_state(l);

	return st->perf.n + 2 * st->n;
}

/* libbpf's usdt.bpf.h has no usdtkit_inst to set */
static int inst_check_abi(enum usdtkit_spec_abi abi, const struct usdtkit_log *lg)
{
	if (abi == USDTKIT_ABI_OWN)
		return 0;
	usdtkit__warn(lg, "mode inst needs a program built against this usdtkit.bpf.h "
		      "(its usdtkit_inst map): use mode ipmap with a PID");
	return -EOPNOTSUPP;
}

const struct usdtkit__backend usdtkit__backend_inst = {
	.name = "inst",
	.attach_type = 0,
	.links = "perf",
	.check_abi = inst_check_abi,
	.state_size = sizeof(struct inst_state),
	.site = inst_site,
	.attach = inst_attach,
	.release = inst_release,
	.fd_count = inst_fd_count,
};
