// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The INST backend, for kernels without BPF cookies (before Linux 5.15)
 * where a site has no fixed address: a PIE or a shared library traced in
 * every process, or in a command that has not mapped it yet. IPMAP needs
 * the address; this needs neither address nor cookie.
 *
 * Per distinct spec the link attaches (sites that share a spec share
 * it), one program of 24 instructions, written here: it stores the
 * spec's id + 1 in this CPU's slot of usdtkit_inst (usdtkit.bpf.h) and
 * tail-calls the program, whose usdtkit_spec() takes it from there. Each
 * site is a perf-event uprobe (perf.c) bound, with no cookie, to its
 * spec's program. The prog array of the tail call, one per link, holds
 * the program.
 *
 * Why not copies of the program with the id as a constant: each copy is
 * verified again (usdtkit trace's program: 13 to 47 ms on the host),
 * where these load in well under a millisecond and take one page of
 * kernel memory each (bench/README.md, "Mode inst").
 *
 * The slot is per CPU: exact where uprobe programs run with preemption
 * off (before 5.15, where AUTO takes this mode); not on a kernel that
 * preempts them (docs/ATTACH.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach/backend.h"

/*
 * Programs a manager (one spec map) may hold at once: each is a program
 * fd and its kernel memory, beside the perf event every site needs
 * anyway. Python's or libstdc++'s probes are far under it; a request
 * that would pass it is refused naming the probe.
 */
#define INST_CAP 1024

struct inst {
	int id;		/* spec id */
	int prog_fd;
};

/* Its part of the link: the events, the programs they run, and the
 * prog array through which those call the link's program. */
struct inst_state {
	struct usdtkit__perf_sites perf;
	struct inst *v;
	size_t n;
	int array_fd;
	bool array_made;	/* the state starts zeroed: fd 0 may be ours */
};

static int inst_fd(const struct inst_state *st, int id)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		if (st->v[i].id == id)
			return st->v[i].prog_fd;
	return -1;
}

/* The link's prog array: one entry, the program its instances call. */
static int array_make(struct usdtkit_link *l, struct inst_state *st)
{
	int key = 0, prog_fd = bpf_program__fd(l->prog), fd;

	if (st->array_made)
		return 0;
	fd = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "usdtkit_inst_ar", sizeof(int),
			    sizeof(int), 1, NULL);
	if (fd < 0)
		return -errno;
	if (bpf_map_update_elem(fd, &key, &prog_fd, BPF_ANY)) {
		int err = -errno;

		close(fd);
		return err;
	}
	st->array_fd = fd;
	st->array_made = true;
	return 0;
}

/* struct bpf_insn by hand: uapi has no BPF_MOV64_REG() and the like */
#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define LD_MAP(d, fd) \
	INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd), INSN(0, 0, 0, 0, 0)
#define SLOT_PTR(slot_fd) \
	INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0),	/* key 0 */ \
	INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0), \
	INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4), \
	LD_MAP(BPF_REG_1, slot_fd), \
	INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem)

/*
 * slot = id + 1; tail-call the program; only if that fails (it does not
 * return when it works), slot = 0 again, so that no later hit on this
 * CPU reads it.
 */
static int inst_load(struct usdtkit_link *l, int slot_fd, int array_fd, int id)
{
	const struct bpf_insn insns[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_6, BPF_REG_1, 0, 0),
		SLOT_PTR(slot_fd),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 1, 0),
		INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_0, 0, 0, id + 1),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_6, 0, 0),
		LD_MAP(BPF_REG_2, array_fd),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_tail_call),
		SLOT_PTR(slot_fd),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 1, 0),
		INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_0, 0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = bpf_program__expected_attach_type(l->prog));
	int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "usdtkit_inst", "GPL", insns,
			       sizeof(insns) / sizeof(insns[0]), &o);

	return fd < 0 ? -errno : fd;
}

/*
 * The site's spec gets a program, unless an earlier site's has one:
 * counted against the cap here, loaded by inst_attach() once the file's
 * sites are all counted, so that a request past the cap is refused
 * before any program is loaded (and before a low RLIMIT_NOFILE, 1024 on
 * a board, runs out on the programs' fds first, as it did on the 5.10
 * VMs).
 */
static int inst_site(struct usdtkit_link *l, struct usdtkit_target *t,
		     const struct usdtkit_file *f, const struct usdtkit_site *s,
		     const struct usdtkit_proc *proc, int64_t delta)
{
	struct inst_state *st = usdtkit__link_state(l);
	struct usdtkit_manager *m = l->man;
	struct inst in = { .id = t->spec_id, .prog_fd = -1 };
	char where[512];
	size_t had, i;
	int err;

	(void)proc;
	(void)delta;
	for (i = 0; i < st->n; i++)
		if (st->v[i].id == t->spec_id)
			return 0;
	snprintf(where, sizeof(where), "%s: %s:%s", usdtkit_file_name(f),
		 usdtkit_site_provider(s), usdtkit_site_name(s));
	if (m->inst_fd < 0) {
		usdtkit__warn(&l->log, "%s: program '%s' has no usdtkit_inst map, which "
			      "mode inst needs: rebuild it against this usdtkit.bpf.h",
			      where, bpf_program__name(l->prog));
		return -EOPNOTSUPP;
	}
	pthread_mutex_lock(&m->lock);
	had = m->ninst;
	if (had < INST_CAP)
		m->ninst++;
	pthread_mutex_unlock(&m->lock);
	if (had >= INST_CAP) {
		usdtkit__warn(&l->log, "%s: mode inst loads a program per distinct "
			      "argument spec, and this one would pass its cap of %d: "
			      "trace fewer probes, or give -p PID", where, INST_CAP);
		return -E2BIG;
	}
	/* counted in st->n from here: inst_release() gives it back */
	err = usdtkit__append((void **)&st->v, &st->n, sizeof(in), &in);
	if (err) {
		pthread_mutex_lock(&m->lock);
		m->ninst--;
		pthread_mutex_unlock(&m->lock);
	}
	return err;
}

/* The programs of the file's new specs, then its events. */
static int inst_attach(struct usdtkit_link *l, const struct bpf_program *prog,
		       const struct usdtkit_target *t, size_t n, int pid)
{
	struct inst_state *st = usdtkit__link_state(l);
	int *fds;
	size_t i, j;
	int err = 0;

	for (i = 0; i < st->n && !err; i++) {
		if (st->v[i].prog_fd >= 0)
			continue;
		err = array_make(l, st);
		if (!err) {
			st->v[i].prog_fd = inst_load(l, l->man->inst_fd, st->array_fd,
						     st->v[i].id);
			err = st->v[i].prog_fd < 0 ? st->v[i].prog_fd : 0;
		}
		if (err) {
			for (j = 0; j < n && t[j].spec_id != st->v[i].id; j++)
				;
			usdtkit__warn(&l->log, "%s: %s:%s: loading the program of its "
				      "spec (mode inst): %s", j < n ? t[j].path : "?",
				      j < n ? t[j].provider : "?", j < n ? t[j].name : "?",
				      strerror(-err));
			st->v[i].prog_fd = -1;
		}
	}
	if (err)
		return err;
	fds = malloc(n * sizeof(*fds));
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
	for (i = 0; i < st->n; i++)
		if (st->v[i].prog_fd >= 0)
			close(st->v[i].prog_fd);
	if (st->array_made)
		close(st->array_fd);
	st->array_made = false;
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

	return st->perf.n + st->n + st->array_made;
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
