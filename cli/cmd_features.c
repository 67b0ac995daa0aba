// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit features [--json]
 * What the running kernel offers the attach layer and which mode AUTO
 * picks: the first command to type on a new board. The kernel answers
 * come from usdtkit_features(); what belongs to this process and may
 * change while it runs (capabilities, perf_event_paranoid) is read here.
 *
 * A missing feature is an answer, not an error: like `bpftool feature
 * probe`, exit 0 once the report is printed, even when bpf(2) is
 * unusable. 1 only if the report could not be written, 2 on usage errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <usdtkit/attach.h>

#include "cli.h"
#include "json.h"

/* capability numbers (linux/capability.h; CAP_BPF/PERFMON are 5.8) */
#define CAP_NR_SYS_ADMIN 21
#define CAP_NR_PERFMON 38
#define CAP_NR_BPF 39

enum val { V_NO, V_YES, V_UNKNOWN, V_INT, V_STR };

enum { BOTH, JSON_ONLY };

/* One line of the text report, one key of the JSON object. */
struct item {
	const char *key;	/* JSON key; the text label too, unless label */
	const char *label;
	enum val v;
	long long n;		/* V_INT */
	const char *s;		/* V_STR */
	const char *note;	/* text only: " (why)" after the value */
	int only;
};

/* collect() adds 20 */
#define MAX_ITEMS 32

struct report {
	struct item it[MAX_ITEMS];
	int n;
	struct utsname uts;
	char errname[24];
	char bpf_note[128];
	char reason[160];	/* the longest, 5.10's, is 117 characters */
	char hwbp_note[96];
};

static void feat_err(const char *msg)
{
	fprintf(stderr, "usdtkit features: %s\n", msg);
}

static struct item *add(struct report *r, const char *key, enum val v)
{
	struct item *i;

	if (r->n >= MAX_ITEMS)	/* a report grown past its array: ours to fix */
		abort();
	i = &r->it[r->n++];

	memset(i, 0, sizeof(*i));
	i->key = key;
	i->v = v;
	return i;
}

static struct item *add_bool(struct report *r, const char *key, bool b)
{
	return add(r, key, b ? V_YES : V_NO);
}

/* a BPF probe's answer means nothing when no program could be loaded */
static struct item *add_bpf_bool(struct report *r, const char *key, bool b,
				 bool bpf)
{
	struct item *i = add(r, key, !bpf ? V_UNKNOWN : b ? V_YES : V_NO);

	if (!bpf)
		i->note = "needs bpf";
	return i;
}

static struct item *add_int(struct report *r, const char *key, bool known,
			    long long n)
{
	struct item *i = add(r, key, known ? V_INT : V_UNKNOWN);

	i->n = n;
	return i;
}

static struct item *add_str(struct report *r, const char *key, const char *s)
{
	struct item *i = add(r, key, V_STR);

	i->s = s;
	return i;
}

/* The errno's symbolic name, as bpftool users know it. */
static const char *errno_name(int err, char *buf, size_t len)
{
	static const struct {
		int err;
		const char *name;
	} names[] = {
		{ EPERM, "EPERM" }, { EACCES, "EACCES" }, { ENOSYS, "ENOSYS" },
		{ EINVAL, "EINVAL" }, { ENOMEM, "ENOMEM" }, { E2BIG, "E2BIG" },
		{ EFAULT, "EFAULT" }, { ENOENT, "ENOENT" }, { EBADF, "EBADF" },
		{ EOPNOTSUPP, "EOPNOTSUPP" }, { 524, "ENOTSUPP" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].err == err)
			return names[i].name;
	snprintf(buf, len, "errno %d", err);
	return buf;
}

/* What a failed trivial load means, for the text report. */
static const char *bpf_err_hint(int err)
{
	switch (err) {
	case EPERM:
		return "not privileged: needs root, or CAP_BPF and CAP_PERFMON";
	case ENOSYS:
		return "no bpf(2) syscall: a kernel without CONFIG_BPF_SYSCALL";
	case EINVAL:
		return "kprobe programs refused: a kernel without CONFIG_BPF_EVENTS?";
	default:
		return strerror(err);
	}
}

/* CapEff of this process from /proc/self/status; 0 or -errno */
static int read_cap_eff(unsigned long long *caps)
{
	char line[256];
	int err = -ENOENT;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *end;

		if (strncmp(line, "CapEff:", 7))
			continue;
		*caps = strtoull(line + 7, &end, 16);
		err = end == line + 7 ? -EINVAL : 0;
		break;
	}
	fclose(f);
	return err;
}

static int read_paranoid(int *v)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%d", v) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

static void add_caps(struct report *r)
{
	unsigned long long caps = 0;
	bool known = !read_cap_eff(&caps);

	add(r, "cap_bpf", !known ? V_UNKNOWN : caps >> CAP_NR_BPF & 1 ? V_YES : V_NO);
	add(r, "cap_perfmon",
	    !known ? V_UNKNOWN : caps >> CAP_NR_PERFMON & 1 ? V_YES : V_NO);
	add(r, "cap_sys_admin",
	    !known ? V_UNKNOWN : caps >> CAP_NR_SYS_ADMIN & 1 ? V_YES : V_NO);
}

/*
 * What usdtkit_mode_resolve(AUTO) gives, and why; "none" when that mode
 * cannot attach here: no BPF at all, or perf events without the uprobe PMU.
 */
static const char *auto_mode(const struct usdtkit_features *f, char *why,
			     size_t len, const char *errname)
{
	enum usdtkit_mode m = usdtkit_mode_resolve(USDTKIT_MODE_AUTO);

	if (!f->bpf) {
		snprintf(why, len, "bpf unavailable: %s", errname);
		return "none";
	}
	if (m == USDTKIT_MODE_MULTI) {
		snprintf(why, len, "uprobe_multi");
		return usdtkit_mode_str(m);
	}
	if (!f->uprobe_pmu) {
		snprintf(why, len, "no uprobe_multi and no uprobe PMU for %s",
			 usdtkit_mode_str(m));
		return "none";
	}
	/* before 5.15 (Debian 11, CIP SLTS boards) the mode depends on the
	 * target: the one line such a user reads (tests/vm prove each) */
	snprintf(why, len, m == USDTKIT_MODE_PERF ? "no uprobe_multi" :
		 "no uprobe_multi, no bpf_cookie: ipmap for -p PID and non-PIE "
		 "executables, inst for a PIE or library by path and for -c");
	return usdtkit_mode_str(m);
}

/*
 * Which long nop a uprobe is optimized on (x86-64): usdtkit attaches at
 * the nop10 of "nop; nop10" sites where it is, and at a nop5 only when
 * asked (opts.use_nop5), for 6.18's call writes into the red zone.
 * Without the uprobe syscall there is no trampoline to call: none. With
 * it, the answer needs a BPF program and a uprobe_multi link.
 */
static void add_uprobe_opt(struct report *r, const struct usdtkit_features *f)
{
	static const char *const names[2][2] = {
		{ "none", "nop10" }, { "nop5", "nop5+nop10" },
	};
	struct item *i;

	if (f->uprobe_syscall && !(f->bpf && f->uprobe_multi)) {
		i = add(r, "uprobe_optimization", V_UNKNOWN);
		i->note = "needs bpf and uprobe_multi";
		return;
	}
	i = add_str(r, "uprobe_optimization",
		    names[f->uprobe_opt_nop5][f->uprobe_opt_nop10]);
	if (f->uprobe_opt_nop10)
		i->note = "nop;nop10 sites are attached at the nop10";
	else if (f->uprobe_opt_nop5)
		i->note = "opts.use_nop5 only: its call writes into the red zone";
}

static void collect(struct report *r)
{
	/* with the uprobe optimizations: this report names them */
	const struct usdtkit_features *f = usdtkit_features_uprobe_opt();
	const char *errname = "";
	struct item *i;
	int paranoid = 0;
	bool known;

	if (uname(&r->uts))
		memset(&r->uts, 0, sizeof(r->uts));
	add_str(r, "kernel", r->uts.release);
	add_str(r, "machine", r->uts.machine);
	i = add(r, "bpf", f->bpf ? V_YES : V_NO);
	if (!f->bpf) {
		errname = errno_name(-f->bpf_err, r->errname, sizeof(r->errname));
		snprintf(r->bpf_note, sizeof(r->bpf_note), "%s: %s", errname,
			 bpf_err_hint(-f->bpf_err));
		i->note = r->bpf_note;
		add_str(r, "bpf_error", errname)->only = JSON_ONLY;
	} else {
		add(r, "bpf_error", V_UNKNOWN)->only = JSON_ONLY;
	}
	/* the JIT as a loaded program shows it, then the sysctl */
	i = add_bpf_bool(r, "jit", f->jit, f->bpf);
	if (f->bpf && !f->jit)
		i->note = "interpreted";
	i = add_bpf_bool(r, "jit_atomics", f->jit_atomics, f->bpf);
	if (f->bpf && !f->jit_atomics)
		i->note = "the JIT has no atomic add: trace keeps per-hit "
			  "values in a hash (slower)";
	i = add_int(r, "bpf_jit_enable", f->jit_sysctl >= 0, f->jit_sysctl);
	if (f->jit_sysctl < 0)
		i->note = "no such sysctl";
	add_bool(r, "btf", f->btf);
	add_bpf_bool(r, "bpf_cookie", f->bpf_cookie, f->bpf);
	add_bpf_bool(r, "uprobe_multi", f->uprobe_multi, f->bpf);
	add_bool(r, "ref_ctr_offset", f->ref_ctr_offset);
	i = add(r, "uprobe_syscall", f->uprobe_syscall ? V_YES : V_NO);
#if !defined(__x86_64__)
	i->note = "x86-64 only";
#endif
	add_uprobe_opt(r, f);
	i = add_bool(r, "uprobes", f->uprobe_pmu);
	if (!f->uprobe_pmu)
		i->note = "no uprobe PMU: perf and ipmap modes cannot attach";
	i = add_bpf_bool(r, "ringbuf", f->ringbuf, f->bpf);
	if (f->bpf && !f->ringbuf)
		i->note = "usdtkit trace needs it";
	/* strings on pages not yet in memory: read at the hit, or late */
	i = add_bpf_bool(r, "sleepable_uprobe", f->sleepable_uprobe, f->bpf);
	if (f->bpf && !f->sleepable_uprobe)
		i->note = "Linux 6.0: trace reads a string whose page is not in "
			  "memory late, from /proc/PID/mem";
	i = add_bpf_bool(r, "sleepable_multi", f->sleepable_multi, f->bpf);
	if (f->bpf && !f->sleepable_multi)
		i->note = "Linux 6.6 (uprobe_multi)";
	i = add_bpf_bool(r, "user_stack", f->user_stack, f->bpf);
	if (f->bpf && !f->user_stack)
		i->note = "this kernel walks no user stack: trace's ustack "
			  "keys have no frames";
	/* mode hwbp: found by doing it (a fork, a breakpoint) */
	usdtkit_features_hwbp();
	i = add_bool(r, "hwbp", f->hwbp);
	i->note = f->hwbp_why;
	add_int(r, "hwbp_slots", f->hwbp, f->hwbp_slots)->only = JSON_ONLY;
	if (f->hwbp_why)
		add_str(r, "hwbp_reason", f->hwbp_why)->only = JSON_ONLY;
	else
		add(r, "hwbp_reason", V_UNKNOWN)->only = JSON_ONLY;
	if (f->hwbp) {
		snprintf(r->hwbp_note, sizeof(r->hwbp_note), "%d breakpoint "
			 "registers a thread (--mode hwbp: that many sites)",
			 f->hwbp_slots);
		i->note = r->hwbp_note;
	}
	/* read first: argument evaluation order is unspecified */
	known = !read_paranoid(&paranoid);
	add_int(r, "perf_event_paranoid", known, paranoid);
	add_caps(r);
	i = add_str(r, "auto_mode",
		    auto_mode(f, r->reason, sizeof(r->reason), errname));
	i->label = "auto mode";
	i->note = r->reason;
	add_str(r, "auto_mode_reason", r->reason)->only = JSON_ONLY;
}

static const char *label(const struct item *i)
{
	return i->label ? i->label : i->key;
}

static void print_text(const struct report *r)
{
	int k, w = 0;

	for (k = 0; k < r->n; k++)
		if (r->it[k].only != JSON_ONLY && (int)strlen(label(&r->it[k])) > w)
			w = (int)strlen(label(&r->it[k]));
	for (k = 0; k < r->n; k++) {
		const struct item *i = &r->it[k];

		if (i->only == JSON_ONLY)
			continue;
		printf("%s:%*s ", label(i), w - (int)strlen(label(i)), "");
		switch (i->v) {
		case V_NO:
			fputs("no", stdout);
			break;
		case V_YES:
			fputs("yes", stdout);
			break;
		case V_UNKNOWN:
			fputs("unknown", stdout);
			break;
		case V_INT:
			printf("%lld", i->n);
			break;
		case V_STR:
			fputs(i->s, stdout);
			break;
		}
		if (i->note)
			printf(" (%s)", i->note);
		putchar('\n');
	}
}

static void print_json(const struct report *r)
{
	static struct jw w;
	int k;

	jw_init(&w, stdout);
	JW_OPEN(&w, JSON_SCHEMA_FEATURES);
	for (k = 0; k < r->n; k++) {
		const struct item *i = &r->it[k];

		jw_putc(&w, ',');
		json_str(&w, i->key, strlen(i->key));
		jw_putc(&w, ':');
		switch (i->v) {
		case V_NO:
			JW_LIT(&w, "false");
			break;
		case V_YES:
			JW_LIT(&w, "true");
			break;
		case V_UNKNOWN:
			JW_LIT(&w, "null");
			break;
		case V_INT:
			json_i64(&w, i->n);
			break;
		case V_STR:
			json_str(&w, i->s, strlen(i->s));
			break;
		}
	}
	JW_LIT(&w, "}\n");
	jw_flush(&w);
}

static const struct cli_opt features_options[] = {
	{ 'j', 0, "json", NULL, "one JSON object; answers that need bpf are null without it" },
	{ 'h', 'h', "help", NULL, "print this help and exit" },
	{ 0 }
};

const struct cli_cmd cli_cmd_features = {
	.name = "features",
	.fn = cmd_features,
	.summary = "what this kernel offers for tracing, the mode AUTO picks",
	.synopsis = "[--json]",
	.description =
		"  What the running kernel offers for USDT tracing (bpf(2), JIT,\n"
		"  BTF, bpf cookies, uprobe_multi, ref_ctr_offset, the x86-64\n"
		"  uprobe syscall, the uprobe PMU, ring buffers), this process's\n"
		"  privileges, and the mode `--mode auto` picks, with the reason.\n"
		"  A missing feature is not an error: exit 0 once printed.\n",
	.opts = features_options,
};

int cmd_features(int argc, char **argv)
{
	struct cli_parser p;
	struct report *r;
	bool json = false;
	int key;

	cli_parser_init(&p, &cli_cmd_features, argc, argv);
	while ((key = cli_next(&p)) != CLI_END) {
		switch (key) {
		case 'j':
			json = true;
			break;
		case 'h':
			cli_print_help(stdout, &cli_cmd_features);
			return EXIT_OK;
		case CLI_OPERAND:
			cli_usage_err(&cli_cmd_features, "unexpected argument '%s'",
				      p.val);
			return EXIT_USAGE;
		default:
			return EXIT_USAGE;
		}
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		feat_err("out of memory");
		return EXIT_BAD_INPUT;
	}
	collect(r);
	if (json)
		print_json(r);
	else
		print_text(r);
	free(r);
	if (fflush(stdout) || ferror(stdout)) {
		feat_err("cannot write the report");
		return EXIT_BAD_INPUT;
	}
	return EXIT_OK;
}
