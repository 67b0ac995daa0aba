// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit_trace_load(): what the kernel lacks, said once and before
 * anything is forked; then the generic program opened, sized to the
 * request and loaded, the verifier walking only what the request uses.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace/internal.h"
#include "trace.skel.h"

/*
 * -c with --mode ipmap or hwbp: the IP map needs each site's address in
 * CMD, and a PIE or a shared library is placed only once CMD runs, after
 * the probes must be attached. Said once, before anything is forked,
 * instead of a failed attach per probe. (AUTO takes mode inst for those
 * where it would take ipmap; hwbp has no such stand-in.)
 */
static int check_cmd_addresses(struct usdtkit_trace *t)
{
	bool hwbp = t->mode == USDTKIT_MODE_HWBP;
	size_t i;

	if (!t->has_cmd || (t->attach_mode != USDTKIT_MODE_IPMAP && !hwbp))
		return 0;
	for (i = 0; i < t->nprobes; i++) {
		const struct probe *p = &t->probes[i];

		if (p->file && usdtkit_file_type(p->file) != ET_EXEC) {
			trace_err(t, "-c with --mode %s: %s is placed in memory only "
				  "once the command runs (a PIE or a shared library), "
				  "too late to attach: %srun it and trace it with -p PID",
				  usdtkit_mode_str(t->mode), p->path,
				  hwbp ? "" : "use --mode inst, or ");
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

/*
 * Several pids: each object is attached once for any process and the
 * program keeps the pids' hits; a mode that finds a site by its address
 * (ipmap: one process's addresses in its IP map; hwbp: breakpoints in
 * one process's threads) cannot. Said once, before anything is loaded;
 * AUTO takes inst where it would take ipmap.
 */
static int check_several(struct usdtkit_trace *t)
{
	if (!trace_several(t) || !usdtkit__mode_by_address(t->mode))
		return 0;
	/* AUTO before Linux 5.15: inst, as for a PIE by path (no address) */
	if (t->attach_mode == USDTKIT_MODE_AUTO && t->mode == USDTKIT_MODE_IPMAP) {
		t->mode = t->attach_mode = USDTKIT_MODE_INST;
		usdtkit__info(&t->log, "several pids: mode inst, not ipmap, whose "
			      "addresses are one process's");
		return 0;
	}
	trace_err(t, "several pids: mode %s places its probes in one process: "
		  "trace each pid on its own%s", usdtkit_mode_str(t->mode),
		  t->mode == USDTKIT_MODE_HWBP ? "" : ", or use --mode inst");
	return -EOPNOTSUPP;
}

/*
 * Can no uprobe trace a probe of this trace's process (-p, -c), where a
 * hardware breakpoint can? The worst reason among the probes: a process
 * runs code of one instruction set, its libraries too. Without a
 * process (PATH targets, --all) the attach says why not.
 */
static enum usdtkit__no_uprobe no_uprobe(const struct usdtkit_trace *t)
{
	USDTKIT_OPTS(usdtkit_open_opts, oo);
	enum usdtkit__no_uprobe why = USDTKIT__UPROBE_OK, w;
	struct usdtkit_file *exe = NULL;
	char path[64];
	size_t i;

	if (t->all || (t->pid <= 0 && !t->has_cmd))
		return why;
	for (i = 0; i < t->nprobes && why != USDTKIT__UPROBE_SILENT; i++) {
		const struct probe *p = &t->probes[i];
		const struct usdtkit_file *f = p->file;

		/* a probe of "every object the pid maps": its program's */
		if (!f && !p->path && t->pid > 0) {
			if (!exe) {
				snprintf(path, sizeof(path), "/proc/%d/exe", t->pid);
				exe = usdtkit_file_open(path, &oo);
			}
			f = exe;
		}
		w = f ? usdtkit__no_uprobe(f, p->provider, p->name) : USDTKIT__UPROBE_OK;
		if (w > why)
			why = w;
	}
	usdtkit_file_close(exe);
	return why;
}

/*
 * AUTO where no uprobe reaches the process's probes: hardware
 * breakpoints (mode hwbp), if they work here. Where they do not, one
 * line says what this kernel lacks, and then: a process no uprobe fires
 * in at all (AArch32 on arm64) still takes mode hwbp, whose attach fails
 * with that reason; Thumb probes stay with uprobes, which trace the
 * ARM-state ones and refuse the Thumb ones, each naming its probe.
 */
static void auto_breakpoints(struct usdtkit_trace *t)
{
	enum usdtkit__no_uprobe why;
	const char *no;

	if (t->mode != USDTKIT_MODE_AUTO)
		return;
	why = no_uprobe(t);
	if (why == USDTKIT__UPROBE_OK)
		return;
	no = usdtkit_features_hwbp()->hwbp_why;
	if (!no || why == USDTKIT__UPROBE_SILENT) {
		t->mode = USDTKIT_MODE_HWBP;
		return;
	}
	trace_err(t, "Thumb code: no uprobe reaches it, and no hardware breakpoint "
		  "either (mode hwbp): %s", no);
}

/*
 * What this kernel lacks fails once, before anything is loaded or
 * forked, naming what is missing, rather than once per probe or as
 * libbpf's errors from the middle of the load.
 */
static int check_kernel(struct usdtkit_trace *t)
{
	const struct usdtkit_features *f = usdtkit_features();
	const char *why, *instead;

	if (!f->bpf)
		return 0;	/* the load says why */
	if (!f->ringbuf) {
		/* every hit and every counter read goes through it */
		trace_err(t, "this kernel has no BPF ring buffer "
			  "(Linux 5.8 and later), which trace needs");
		return -EOPNOTSUPP;
	}
	why = usdtkit__mode_refusal(t->mode, &instead);
	if (why) {
		/* the attach layer's reason, in the CLI's words */
		trace_err(t, "--mode %s: %s: use --mode %s", usdtkit_mode_str(t->mode),
			  why, instead);
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
 * Each hit's values (trace.bpf.c, "slots"): a slot per possible CPU, and
 * spares for the hits that find their CPU's slot held by a preempted or
 * sleeping one (as many as the CPUs, and at least SLOT_SPARES_MIN). Where
 * the JIT has no atomic add the program keeps its hash keyed by thread
 * instead (slot_cpus 0); so it does where the CPUs cannot be counted.
 */
#define SLOT_SPARES_MIN 32

static int size_slots(struct usdtkit_trace *t)
{
	int n = libbpf_num_possible_cpus();
	unsigned int spares;
	int err;

	if (!usdtkit_features()->jit_atomics || n <= 0)
		return 0;
	spares = n < SLOT_SPARES_MIN ? SLOT_SPARES_MIN : (unsigned int)n;
	err = bpf_map__set_max_entries(t->skel->maps.slots, (uint32_t)n + spares);
	if (err) {
		trace_err(t, "sizing map slots for %d CPUs: %s", n, strerror(-err));
		return err;
	}
	t->skel->rodata->slot_cpus = (unsigned int)n;
	t->skel->rodata->slot_spares = spares;
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
		return " (" TRACE_PRIV_HINT ")";
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
	int fd = bpf_program__fd(t->prog);
	const char *strs = t->prog == t->skel->progs.usdtkit_trace ||
			   t->prog == t->skel->progs.usdtkit_trace_by ? "" :
		t->cold_read ? ", strings faulted in at the hit (sleepable)" :
		", strings not in memory read late";
	const char *values = t->skel->rodata->slot_cpus ? "" :
		", per-hit values in a hash (the JIT has no atomic add)";

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		memset(&info, 0, sizeof(info));
	usdtkit__info(&t->log, "loaded usdtkit_trace: features 0x%x, "
		      "%llu insns processed, %u xlated, verified in %.3f ms, "
		      "load %.3f ms%s%s", t->skel->rodata->features,
		      log_num(log, "processed "), info.xlated_prog_len / 8,
		      log_num(log, "verification time ") / 1e3, ns / 1e6, strs, values);
}

/* BPF_TRACE_UPROBE_MULTI (Linux 6.6): Debian 12's headers stop before it */
#define UPROBE_MULTI_ATTACH ((enum bpf_attach_type)48)

/*
 * The program of this trace (trace.bpf.c), before usdtkit_prog_prepare().
 * A trace that reads no string gets usdtkit_trace, whose cost and
 * verification are what they were. One that does gets usdtkit_trace_str:
 * a string on a page the process has not touched yet faults in
 * bpf_probe_read_user_str() (a uprobe program runs with page faults
 * disabled); where the kernel runs a sleepable program from the links of
 * this mode it is loaded so, and faults the page in at the hit; else
 * (or with opts.no_fault_in) such a string is read late (late.c).
 */
static int pick_prog(struct usdtkit_trace *t)
{
	const struct usdtkit_features *f = usdtkit_features();
	struct trace *s = t->skel;
	bool str = s->rodata->features & STR_FEATURES;
	bool by = s->rodata->features & USDTKIT_TRACE_BY_ANY;
	bool multi;
	int err;

	/* keyed aggregations: usdtkit_trace_by(_str), the same program
	 * with the keyed code, which the two others leave out */
	t->prog = by ? (str ? s->progs.usdtkit_trace_by_str : s->progs.usdtkit_trace_by) :
		str ? s->progs.usdtkit_trace_str : s->progs.usdtkit_trace;
	if (t->prog == s->progs.usdtkit_trace)
		return usdtkit_prog_prepare(t->prog, t->mode);
	err = bpf_program__set_autoload(s->progs.usdtkit_trace, false);
	if (!err)
		err = bpf_program__set_autoload(t->prog, true);
	if (!err)
		err = usdtkit_prog_prepare(t->prog, t->mode);
	if (err || !str)
		return err;
	multi = bpf_program__expected_attach_type(t->prog) ==
		UPROBE_MULTI_ATTACH;
	/*
	 * Not in mode inst: its per-spec programs tail-call this one, which
	 * then runs in their non-sleepable context, where a fault may not
	 * sleep (and 6.x refuses a sleepable program in their prog array).
	 * AUTO takes inst only on kernels without cookies (before 5.15),
	 * which have no sleepable uprobes either.
	 */
	/* nor in mode hwbp: a perf-event program cannot sleep */
	t->cold_read = !t->no_fault_in && t->attach_mode != USDTKIT_MODE_INST &&
		t->mode != USDTKIT_MODE_HWBP &&
		f->bpf_cookie && (multi ? f->sleepable_multi : f->sleepable_uprobe);
	s->rodata->cold_read = t->cold_read;
	if (t->cold_read)
		err = bpf_program__set_flags(t->prog, bpf_program__flags(t->prog) |
					     BPF_F_SLEEPABLE);
	return err;
}

static int load_prog(struct usdtkit_trace *t)
{
	struct bpf_program *prog = t->prog;
	char *log = t->log.print ? calloc(1, LOAD_LOG_SIZE) : NULL;
	uint64_t t0;
	int err;

	if (log) {
		bpf_program__set_log_buf(prog, log, LOAD_LOG_SIZE);
		bpf_program__set_log_level(prog, 4);
	}
	t0 = clock_mono_ns();
	err = trace__load(t->skel);
	if (!err)
		say_loaded(t, log, clock_mono_ns() - t0);
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
	t->attach_mode = t->mode;
	auto_breakpoints(t);
	t->mode = usdtkit_mode_resolve(t->mode);
	err = check_kernel(t);
	if (!err)
		err = check_several(t);
	if (!err)
		err = check_cmd_addresses(t);
	/* a command's pid is needed to attach: forked now, held before
	 * its exec (the probes are not in its address space before that) */
	if (!err && t->has_cmd)
		err = usdtkit__cmd_start(t);
	if (!err)
		err = open_prog(t);
	if (err)
		return err;
	err = usdtkit__follow_prepare(t);
	if (!err)
		err = usdtkit__unwind_prepare(t);
	if (!err)
		err = usdtkit__agg_size(t);
	if (!err)
		err = pick_prog(t);
	if (!err)
		err = size_maps(t);
	if (!err)
		err = size_slots(t);
	if (!err)
		err = usdtkit__children_prepare(t);
	if (!err)
		err = load_prog(t);
	if (err) {
		trace_err(t, "loading the BPF program: %s%s", strerror(-err),
			  load_hint(err));
		return err;
	}
	err = usdtkit__agg_write(t);
	if (!err)
		err = usdtkit__unwind_start(t);
	if (!err)
		t->loaded = true;
	return err;
}
