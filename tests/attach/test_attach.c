// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Real attachments, one backend per run:
 *
 *   test_attach multi|perf|ipmap BUILD_DIR
 *   test_attach rollback BUILD_DIR
 *   test_attach detach BUILD_DIR
 *
 * Every probe of the fixtures (0, 3 and 12 arguments of every width and
 * sign, registers, stack, a global through %rip, an array element through
 * SIB, a constant, a semaphore) in a non-PIE executable, a PIE and a
 * shared library, PID-filtered (a second process fires too, and must not
 * be seen) and for any process; every value the BPF side reads must equal
 * the value the fixture passed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <usdtkit/attach.h>

#include "attach/internal.h"
#include "check.h"
#include "kstate.h"
#include "fx_run.h"
#include "fx_forms.h"
#include "fx_pair.h"
#include "fx_values.h"
#include "auto_bpf.skel.h"
#include "compat.skel.h"
#include "small.skel.h"
#include "trace.skel.h"
#include "trace/bpf/trace_event.h"

#define ROUNDS 3

static const char *dir;
static char last_msg[1024];

static void print_msg(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	(void)ctx;
	if (level == USDTKIT_LOG_WARN)
		snprintf(last_msg, sizeof(last_msg), "%s", msg);
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *path_of(const char *name)
{
	static char buf[4][4096];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

/* ---- what came back ---- */

/* probe ids = cookies */
enum { P_ZERO = 1, P_THREE, P_TWELVE, P_SEMA, NPROBES };
static const char *const probe_names[NPROBES] = {
	[P_ZERO] = "zero", [P_THREE] = "three", [P_TWELVE] = "twelve", [P_SEMA] = "sema",
};

struct seen {
	int hits[NPROBES];
	int bad;	/* events whose values were wrong */
	int foreign;	/* events from a pid that must not be seen */
	pid_t want_pid;	/* 0: any */
};

static int expect_args(const struct usdtkit_trace_event *e, int64_t *want, int n)
{
	int i;

	if (e->nargs != n || e->err) {
		fprintf(stderr, "  %s: nargs %d (want %d), err %d mask %#x\n",
			probe_names[e->cookie], e->nargs, n, e->err, e->err_mask);
		return 1;
	}
	for (i = 0; i < n; i++)
		if (e->args[i] != want[i]) {
			fprintf(stderr, "  %s: arg %d = %lld, want %lld\n",
				probe_names[e->cookie], i, e->args[i], (long long)want[i]);
			return 1;
		}
	return 0;
}

static int on_event(void *ctx, void *data, size_t size)
{
	const struct usdtkit_trace_event *e = data;
	struct seen *s = ctx;
	int64_t want[12];
	int r = (int)e->args[0];

	if (size < sizeof(*e) || e->cookie <= 0 || e->cookie >= NPROBES) {
		s->bad++;
		return 0;
	}
	if (s->want_pid && (pid_t)e->pid != s->want_pid) {
		s->foreign++;
		return 0;
	}
	s->hits[e->cookie]++;
	switch (e->cookie) {
	case P_ZERO:
		s->bad += e->nargs != 0 || e->err;
		break;
	case P_THREE:
		fx_three(r, want);
		s->bad += expect_args(e, want, 3);
		break;
	case P_TWELVE:
		fx_twelve(r, want);
		s->bad += expect_args(e, want, 12);
		break;
	case P_SEMA:
		want[0] = r;
		want[1] = fx_s32(r);
		s->bad += expect_args(e, want, 2);
		break;
	}
	return 0;
}

/* ---- the program under test: usdtkit's trace program or libbpf's ---- */

struct progset {
	struct bpf_program *prog;
	int events_fd;
	int ip_map_fd;		/* usdtkit's IP map, -1 for libbpf's program */
	void *skel;
	void (*destroy)(void *skel);
};

static void trace_destroy(void *s) { trace__destroy(s); }
static void compat_destroy(void *s) { compat__destroy(s); }

/* Open, prepare for @mode and load; 0 or a negative errno. */
static int progset_load(struct progset *ps, bool libbpf, enum usdtkit_mode mode)
{
	int err;

	memset(ps, 0, sizeof(*ps));
	if (libbpf) {
		struct compat *c = compat__open();

		if (!c)
			return -errno;
		ps->skel = c;
		ps->destroy = compat_destroy;
		ps->prog = c->progs.compat_trace;
		err = usdtkit_prog_prepare(ps->prog, mode);
		err = err ? err : compat__load(c);
		ps->events_fd = bpf_map__fd(c->maps.events);
		ps->ip_map_fd = -1;
	} else {
		struct trace *t = trace__open();

		if (!t)
			return -errno;
		ps->skel = t;
		ps->destroy = trace_destroy;
		ps->prog = t->progs.usdtkit_trace;
		err = usdtkit_prog_prepare(ps->prog, mode);
		err = err ? err : trace__load(t);
		ps->events_fd = bpf_map__fd(t->maps.events);
		ps->ip_map_fd = bpf_map__fd(t->maps.usdtkit_ip_map);
	}
	return err;
}

static void progset_destroy(struct progset *ps)
{
	if (ps->skel)
		ps->destroy(ps->skel);
	memset(ps, 0, sizeof(*ps));
}

/* ---- one scenario ---- */

struct scenario {
	const char *label;
	const char *exe;	/* fixture to run */
	const char *target;	/* file to attach to */
	const char *provider;
	bool lib;		/* fixture runs with its library */
	bool any_pid;		/* attach for any process */
	bool by_pid;		/* usdtkit_attach_pid() */
	bool sema;		/* has fx:sema */
};

/* What happens to the fixture's file once it runs: unlinked, or another
 * file renamed over it (a package upgrade of a running program). */
struct file_change {
	bool unlink_exe;
	const char *replace_with;
};

static int attach_all(const struct progset *ps, const struct scenario *sc,
		      enum usdtkit_mode mode, pid_t pid, struct usdtkit_link **links)
{
	int p, n = 0;

	for (p = P_ZERO; p < NPROBES; p++) {
		USDTKIT_OPTS(usdtkit_attach_opts, o, .cookie = (uint64_t)p, .mode = mode,
			    .print = print_msg);

		if (p == P_SEMA && !sc->sema)
			continue;
		if (sc->by_pid)
			links[p] = usdtkit_attach_pid(ps->prog, pid,
						      sc->provider, probe_names[p], &o);
		else
			links[p] = usdtkit_attach(ps->prog, sc->any_pid ? -1 : pid, sc->target,
						  sc->provider, probe_names[p], &o);
		if (!links[p])
			return -errno;
		n++;
	}
	return n;
}

static void run_scenario_changed(enum usdtkit_mode mode, const struct scenario *sc,
				 bool libbpf, const struct file_change *ch)
{
	struct usdtkit_link *links[NPROBES] = { 0 };
	struct fx_proc a, b;
	struct seen s = { 0 };
	struct ring_buffer *rb = NULL;
	struct progset ps;
	int p, err, nprobes;

	printf("  %s%s / %s\n", libbpf ? "libbpf usdt.bpf.h / " : "",
	       usdtkit_mode_str(mode), sc->label);
	err = progset_load(&ps, libbpf, mode);
	CHECK(!err, "%s: load: %d", sc->label, err);
	if (err) {
		progset_destroy(&ps);
		return;
	}
	err = fx_start(&a, sc->exe, sc->lib);
	CHECK(!err, "start %s", sc->exe);
	err = err ? err : fx_start(&b, sc->exe, sc->lib);
	CHECK(!err, "start second %s", sc->exe);
	if (err)
		goto out;
	if (ch && ch->unlink_exe)
		CHECK(!unlink(sc->exe), "unlink %s", sc->exe);
	if (ch && ch->replace_with)
		CHECK(!rename(ch->replace_with, sc->exe), "replace %s", sc->exe);
	nprobes = attach_all(&ps, sc, mode, a.pid, links);
	/* IP-map mode cannot know a PIE's or library's address in processes
	 * that do not exist yet: a clear refusal is the right answer */
	if (mode == USDTKIT_MODE_IPMAP && sc->any_pid && strcmp(sc->exe, sc->target) == 0 &&
	    strstr(sc->label, "nopie") == NULL) {
		CHECK(nprobes == -EINVAL && strstr(last_msg, "needs a PID"),
		      "%s: ipmap any-pid on PIE: %d '%s'", sc->label, nprobes, last_msg);
		goto stop;
	}
	if (mode == USDTKIT_MODE_IPMAP && sc->any_pid && sc->lib && !sc->by_pid) {
		CHECK(nprobes == -EINVAL && strstr(last_msg, "needs a PID"),
		      "%s: ipmap any-pid on a library: %d '%s'", sc->label, nprobes, last_msg);
		goto stop;
	}
	CHECK(nprobes > 0, "%s: attach: %d (%s)", sc->label, nprobes, last_msg);
	if (nprobes <= 0)
		goto stop;
	for (p = P_ZERO; p < NPROBES; p++)
		if (links[p])
			CHECK(usdtkit_link_mode(links[p]) == mode, "mode of link");
	rb = ring_buffer__new(ps.events_fd, on_event, &s, NULL);
	CHECK(rb, "ring buffer");
	s.want_pid = sc->any_pid ? 0 : a.pid;
	CHECK(!fx_fire(&a, ROUNDS) && !fx_fire(&b, ROUNDS), "fire");
	if (rb)
		ring_buffer__consume(rb);
	for (p = P_ZERO; p < NPROBES; p++) {
		int want = (p == P_SEMA && !sc->sema) ? 0 :
			   sc->any_pid ? 2 * ROUNDS : ROUNDS;

		CHECK(s.hits[p] == want, "%s: %s hits %d, want %d", sc->label,
		      probe_names[p], s.hits[p], want);
	}
	CHECK(!s.bad, "%s: %d events with wrong values", sc->label, s.bad);
	CHECK(!s.foreign, "%s: %d events from the filtered-out process",
	      sc->label, s.foreign);
stop:
	fx_stop(&a);
	fx_stop(&b);
out:
	for (p = P_ZERO; p < NPROBES; p++)
		usdtkit_link_destroy(links[p]);
	ring_buffer__free(rb);
	progset_destroy(&ps);
}

static void run_scenario(enum usdtkit_mode mode, const struct scenario *sc,
			 bool libbpf)
{
	run_scenario_changed(mode, sc, libbpf, NULL);
}

/*
 * An i386 process on this x86-64 kernel: its specs name 32-bit registers
 * (%ecx, -120(%ebp), GOTOFF(%ebx)) that BPF reads from the 64-bit
 * pt_regs. Without IA32 emulation in the kernel the fixture cannot run.
 */
static void run_i386(enum usdtkit_mode mode)
{
	const char *exe = path_of("fx_i386");
	const struct scenario sc[] = {
		{ "i386 nopie pid", exe, exe, "fx", false, false, false, true },
		{ "i386 nopie any", exe, exe, "fx", false, true, false, true },
	};
	struct fx_proc p;
	int err;

	if (access(exe, X_OK)) {
		CHECK(0, "%s was not built (i686-linux-gnu-gcc is in scripts/setup.sh)", exe);
		return;
	}
	err = fx_start(&p, exe, 0);
	if (err == -ENOEXEC) {
		printf("  SKIP i386: this kernel cannot run i386 programs (no IA-32 emulation)\n");
		return;
	}
	if (err) {
		CHECK(0, "start %s: %s", exe, strerror(-err));
		return;
	}
	fx_stop(&p);
	run_scenario(mode, &sc[0], false);
	run_scenario(mode, &sc[1], false);
}

static void run_mode(enum usdtkit_mode mode)
{
	const char *pie = path_of("fx_pie"), *nopie = path_of("fx_nopie");
	const char *lib = path_of("libfxlib.so");
	const struct scenario sc[] = {
		{ "nopie pid", nopie, nopie, "fx", false, false, false, true },
		{ "nopie any", nopie, nopie, "fx", false, true, false, true },
		{ "pie pid", pie, pie, "fx", true, false, false, true },
		{ "pie any", pie, pie, "fx", true, true, false, true },
		{ "lib pid", pie, lib, "fxlib", true, false, false, false },
		{ "lib any", pie, lib, "fxlib", true, true, false, false },
		{ "lib by pid alone", pie, NULL, "fxlib", true, false, true, false },
	};
	size_t i;

	for (i = 0; i < sizeof(sc) / sizeof(sc[0]); i++)
		run_scenario(mode, &sc[i], false);
	run_i386(mode);
}

/* A copy of @src at @dst, mode 0755; 0 or -errno. */
static int copy_file(const char *src, const char *dst)
{
	char buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC), out = -1, err = 0;
	ssize_t n;

	if (in >= 0)
		out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (in < 0 || out < 0)
		err = -errno;
	while (!err && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			err = -EIO;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out))
		err = err ? err : -errno;
	return err;
}

/*
 * A running program whose file was deleted, or replaced by a new version
 * (renamed over it, as package managers do): maps shows "(deleted)", and
 * usdtkit_attach_pid() must attach to the inode the process maps.
 */
static void run_deleted(enum usdtkit_mode mode)
{
	char tmp[] = "/tmp/usdtkit-deleted.XXXXXX", del[64], rep[64], next[64];
	const struct scenario sc[] = {
		{ "deleted pie, by pid", del, NULL, "fx", true, false, true, true },
		{ "replaced nopie, by pid", rep, NULL, "fx", false, false, true, true },
	};
	const struct file_change gone = { .unlink_exe = true },
				 upgraded = { .replace_with = next };

	if (!mkdtemp(tmp)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(del, sizeof(del), "%s/fx_del", tmp);
	snprintf(rep, sizeof(rep), "%s/fx_rep", tmp);
	snprintf(next, sizeof(next), "%s/fx_rep.new", tmp);
	/* the new version is another build: its sites are elsewhere */
	CHECK(!copy_file(path_of("fx_pie"), del) && !copy_file(path_of("fx_nopie"), rep) &&
	      !copy_file(path_of("fx_pie"), next), "copies in %s", tmp);
	run_scenario_changed(mode, &sc[0], false, &gone);
	run_scenario_changed(mode, &sc[1], false, &upgraded);
	unlink(del);
	unlink(rep);
	unlink(next);
	rmdir(tmp);
}

/*
 * libbpf's usdt.bpf.h (1.1 here: 208-byte specs, no index register): the
 * -O0 non-PIE fixture has only forms it can express and must read right;
 * on x86-64, fx_forms's hand-written fxforms:sib passes an array element
 * through SIB, which must be refused naming the argument. (fx_pie's fx:twelve did so once, as gcc compiles it; clang
 * addresses the same arguments without an index.)
 */
static void run_compat(enum usdtkit_mode mode)
{
	const char *nopie = path_of("fx_nopie");
	const struct scenario ok = { "nopie any", nopie, nopie, "fx", false, true, false, true };
	struct usdtkit_link *l;
	struct progset ps;
	int err;

	run_scenario(mode, &ok, true);
	err = progset_load(&ps, true, mode);
	CHECK(!err, "load compat: %d", err);
#if defined(__x86_64__)
	if (!err) {
		USDTKIT_OPTS(usdtkit_attach_opts, o, .mode = mode, .print = print_msg);

		l = usdtkit_attach(ps.prog, -1, path_of("fx_forms"), "fxforms", "sib", &o);
		CHECK(!l && errno == EOPNOTSUPP, "SIB refused: %p errno %d", (void *)l, errno);
		CHECK(strstr(last_msg, "fxforms:sib: argument 0 '-4@(%rcx,%rsi,4)'") &&
		      strstr(last_msg, "SIB"), "message names the argument: %s", last_msg);
		usdtkit_link_destroy(l);
	}
#endif
	progset_destroy(&ps);
}

/* ---- x86-64 nop5 sites: the opt-in and what it costs ---- */

#define NOP5_CALLS 2000

struct nop5_seen {
	int hits, reg_ok, stack_ok;
};

static int on_nop5(void *ctx, void *data, size_t size)
{
	const struct usdtkit_trace_event *e = data;
	struct nop5_seen *s = ctx;

	if (size < sizeof(*e) || e->nargs != 3)
		return 0;
	s->hits++;
	s->reg_ok += !e->err && e->args[0] > 0;
	/* the red-zone values, as the program stored them */
	s->stack_ok += !e->err && e->args[1] == e->args[0] &&
		       e->args[2] == e->args[0] + 1;
	return 0;
}

/* Fire NOP5_CALLS calls; returns the fixture's corrupted-sum count. */
static long nop5_fire(struct fx_proc *p, long long *ns)
{
	char line[128];
	long corrupt = -1;

	fprintf(p->in, "%d\n", NOP5_CALLS);
	fflush(p->in);
	if (fgets(line, sizeof(line), p->out))
		sscanf(line, "done %ld %lld", &corrupt, ns);
	return corrupt;
}

static void nop5_case(bool use_nop5)
{
	USDTKIT_OPTS(usdtkit_attach_opts, o, .use_nop5 = use_nop5, .print = print_msg);
	const char *exe = path_of("fx_nop5");
	struct nop5_seen s = { 0 };
	struct ring_buffer *rb = NULL;
	struct usdtkit_link *l = NULL;
	struct progset ps;
	struct fx_proc a;
	long long ns = 0, base_ns = 0;
	long corrupt;

	CHECK(!progset_load(&ps, false, USDTKIT_MODE_AUTO), "load");
	CHECK(!fx_start(&a, exe, 0), "start fx_nop5");
	CHECK(nop5_fire(&a, &base_ns) == 0, "no probe: red zone intact");
	l = usdtkit_attach(ps.prog, a.pid, exe, "fxnop5", "hit", &o);
	CHECK(l, "attach (nop5 %d): %s", use_nop5, last_msg);
	rb = ring_buffer__new(ps.events_fd, on_nop5, &s, NULL);
	corrupt = nop5_fire(&a, &ns);
	if (rb)
		ring_buffer__consume(rb);
	printf("  %s site: %d hits, %d register args right, %d red-zone args right, "
	       "program's red zone corrupted in %ld of %d calls, %lld ns/call "
	       "(%lld without a probe)\n",
	       use_nop5 ? "nop5" : "nop (default)", s.hits, s.reg_ok, s.stack_ok,
	       corrupt, NOP5_CALLS, ns, base_ns);
	CHECK(s.hits == NOP5_CALLS, "hits %d", s.hits);
	CHECK(s.reg_ok == NOP5_CALLS, "register argument right on every hit");
	if (!use_nop5) {
		/* the default must never disturb the traced program */
		CHECK(corrupt == 0, "default site corrupted the red zone %ld times", corrupt);
		CHECK(s.stack_ok == NOP5_CALLS, "red-zone args read right: %d", s.stack_ok);
	} else {
		/* what the opt-in breaks on this kernel, shown, not hidden:
		 * once optimized, the site calls a trampoline whose return
		 * address lands in the caller's red zone */
		/* a kernel that optimized the site has the uprobe syscall */
		CHECK(!corrupt || usdtkit_features()->uprobe_syscall,
		      "sites were optimized but usdtkit_features() says no uprobe syscall");
		printf("  nop5 opt-in: %s\n", corrupt ?
		       "the traced program's red zone was clobbered and its red-zone "
		       "arguments misread (the reason nop5 is opt-in)" :
		       "the red zone survived (the kernel did not optimize the site)");
	}
	usdtkit_link_destroy(l);
	ring_buffer__free(rb);
	fx_stop(&a);
	progset_destroy(&ps);
}

/* ---- x86-64 "nop; nop10" sites (libbpf's usdt.h) ---- */

struct nop10_seen {
	int hits, ok;
};

/* every argument as the fixture stored it: r, r, r + 1, r + 1000 */
static int on_nop10(void *ctx, void *data, size_t size)
{
	const struct usdtkit_trace_event *e = data;
	struct nop10_seen *s = ctx;

	if (size < sizeof(*e) || e->nargs != 4)
		return 0;
	s->hits++;
	s->ok += !e->err && e->args[0] > 0 && e->args[1] == e->args[0] &&
		 e->args[2] == e->args[0] + 1 && e->args[3] == e->args[0] + 1000;
	return 0;
}

/*
 * Every hit counted with every argument right, in @mode, and the site
 * optimized exactly where the kernel optimizes nop10: there usdtkit
 * attaches at the nop10 and the process gets the trampoline; elsewhere
 * (6.18 accepts a uprobe on the nop10 and never fires it) at the nop,
 * which no kernel optimizes.
 */
static void nop10_case(enum usdtkit_mode mode)
{
	const struct usdtkit_features *f = usdtkit_features_uprobe_opt();
	struct usdtkit_attach_opts o;
	const char *exe = path_of("fx_nop10");
	struct nop10_seen s = { 0 };
	struct ring_buffer *rb = NULL;
	struct usdtkit_link *l = NULL;
	long long ns = 0, base_ns = 0;
	struct progset ps;
	struct fx_proc a;
	long corrupt;
	bool tramp;

	/* zeroed whole, padding too: the library refuses non-zero bytes
	 * past the fields it knows (main's tests/tree/opts_decl.py) */
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.mode = mode;
	o.print = print_msg;
	CHECK(!progset_load(&ps, false, mode), "load (%s)", usdtkit_mode_str(mode));
	CHECK(!fx_start(&a, exe, 0), "start fx_nop10");
	CHECK(nop5_fire(&a, &base_ns) == 0, "no probe: red zone intact");
	l = usdtkit_attach(ps.prog, a.pid, exe, "fxnop10", "hit", &o);
	CHECK(l, "attach (%s): %s", usdtkit_mode_str(mode), last_msg);
	rb = ring_buffer__new(ps.events_fd, on_nop10, &s, NULL);
	corrupt = nop5_fire(&a, &ns);
	if (rb)
		ring_buffer__consume(rb);
	tramp = usdtkit__uprobe_trampoline(a.pid);
	printf("  %s: %d hits of %d, %d with every argument right, red zone "
	       "corrupted in %ld calls, trampoline %s (kernel optimizes nop10: %s), "
	       "%lld ns/call (%lld without a probe)\n", usdtkit_mode_str(mode),
	       s.hits, NOP5_CALLS, s.ok, corrupt, tramp ? "mapped" : "not mapped",
	       f->uprobe_opt_nop10 ? "yes" : "no", ns, base_ns);
	CHECK(s.hits == NOP5_CALLS, "hits %d", s.hits);
	CHECK(s.ok == NOP5_CALLS, "arguments right on every hit: %d", s.ok);
	CHECK(corrupt == 0, "red zone corrupted %ld times", corrupt);
	CHECK(tramp == f->uprobe_opt_nop10, "trampoline %d, nop10 optimized %d",
	      tramp, f->uprobe_opt_nop10);
	usdtkit_link_destroy(l);
	ring_buffer__free(rb);
	fx_stop(&a);
	progset_destroy(&ps);
}

/* ---- every location form, hand-written (x86-64) ---- */

struct forms_seen {
	int hits, bad;
	int nargs;
	/* the values of the round whose number is argument @key */
	void (*expect)(long r, int64_t *v);
	int key;
};

static int on_forms(void *ctx, void *data, size_t size)
{
	const struct usdtkit_trace_event *e = data;
	struct forms_seen *s = ctx;
	int64_t want[12];
	int i;

	if (size < sizeof(*e))
		return 0;
	s->hits++;
	s->expect(e->args[s->key], want);
	if (e->nargs != s->nargs || e->err) {
		fprintf(stderr, "  forms: nargs %d err %d mask %#x\n", e->nargs, e->err,
			e->err_mask);
		s->bad++;
		return 0;
	}
	for (i = 0; i < s->nargs; i++)
		if (e->args[i] != want[i]) {
			fprintf(stderr, "  forms: arg %d = %lld, want %lld\n", i,
				e->args[i], (long long)want[i]);
			s->bad++;
			return 0;
		}
	return 0;
}

static void run_forms_exe(enum usdtkit_mode mode, const char *name,
			  const char *provider, struct forms_seen s)
{
	USDTKIT_OPTS(usdtkit_attach_opts, o, .mode = mode, .print = print_msg);
	const char *exe = path_of(name);
	struct ring_buffer *rb = NULL;
	struct usdtkit_link *l;
	struct progset ps;
	struct fx_proc a;
	int err;

	printf("  %s / %s\n", name, usdtkit_mode_str(mode));
	err = fx_start(&a, exe, 0);
	if (err == -ENOEXEC) {
		printf("  SKIP %s: this kernel cannot run it (no IA-32 emulation)\n", name);
		return;
	}
	if (err) {
		CHECK(0, "start %s: %s", name, strerror(-err));
		return;
	}
	CHECK(!progset_load(&ps, false, mode), "load");
	l = usdtkit_attach(ps.prog, a.pid, exe, provider, "all", &o);
	CHECK(l, "attach: %s", last_msg);
	rb = ring_buffer__new(ps.events_fd, on_forms, &s, NULL);
	CHECK(!fx_fire(&a, 40), "fire");
	if (rb)
		ring_buffer__consume(rb);
	CHECK(s.hits == 40 && !s.bad, "%d hits, %d wrong", s.hits, s.bad);
	usdtkit_link_destroy(l);
	ring_buffer__free(rb);
	fx_stop(&a);
	progset_destroy(&ps);
}

static void run_forms(enum usdtkit_mode mode)
{
	struct forms_seen forms = { .nargs = FX_FORMS_NARGS, .key = 3,
				    .expect = fx_forms_expect };
	struct forms_seen pair = { .nargs = FX_PAIR_NARGS, .key = 0, .expect = fx_pair_expect };

	run_forms_exe(mode, "fx_forms", "fxforms", forms);
	if (!access(path_of("fx_pair_i386"), X_OK))
		run_forms_exe(mode, "fx_pair_i386", "fxpair", pair);
}

/* ---- skeletons: the libbpf program handler ---- */


static int on_auto(void *ctx, void *data, size_t size)
{
	const struct usdtkit_trace_event *e = data;
	struct seen *s = ctx;
	int64_t want[3];

	if (size < sizeof(*e))
		return 0;
	s->hits[P_THREE]++;
	fx_three((int)e->args[0], want);
	s->bad += e->cookie != 0 || expect_args(e, want, 3);
	return 0;
}

/*
 * open -> load -> attach -> destroy of a skeleton with no usdtkit call:
 * SEC("usdtkit") is prepared at open by the handler (uprobe_multi where
 * the kernel has it), SEC("usdtkit/PATH:fx:three") is attached by
 * __attach() and detached by __destroy().
 */
static void run_skeleton(void)
{
	struct seen s = { 0 };
	struct ring_buffer *rb;
	struct auto_bpf *skel;
	struct fx_proc a;
	int links = settled_links(-1);
	bool multi = usdtkit_features()->uprobe_multi;

	/* static link: pull the handler in (libusdtkit.so needs no call) */
	CHECK(!usdtkit_register_libbpf_handler(), "handler registered");
	skel = auto_bpf__open_and_load();
	CHECK(skel, "open and load: %s", strerror(errno));
	if (!skel)
		return;
	CHECK(bpf_program__expected_attach_type(skel->progs.usdtkit_trace) ==
	      (multi ? 48 : 0), "prepared for %s at open", multi ? "multi" : "perf");
	CHECK(!auto_bpf__attach(skel), "skeleton attach: %s", strerror(errno));
	CHECK(skel->links.auto_three, "auto-attached link");
	CHECK(!skel->links.usdtkit_trace, "plain SEC(\"usdtkit\") is not auto-attached");
	CHECK(!fx_start(&a, path_of("fx_nopie"), 0), "start");
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_auto, &s, NULL);
	CHECK(!fx_fire(&a, ROUNDS), "fire");
	if (rb)
		ring_buffer__consume(rb);
	CHECK(s.hits[P_THREE] == ROUNDS && !s.bad, "auto-attached hits %d, bad %d",
	      s.hits[P_THREE], s.bad);
	ring_buffer__free(rb);
	fx_stop(&a);
	auto_bpf__destroy(skel);
	CHECK(settled_links(links) == links, "links after destroy: %d, baseline %d",
	      count_links(), links);
}

/* ---- rollback ---- */

static unsigned long long hits(struct small *skel)
{
	return percpu_sum(bpf_map__fd(skel->maps.counters), 0);
}

static void rollback_mode(enum usdtkit_mode mode)
{
	const char *nopie = path_of("fx_nopie");
	struct usdtkit_link *l, *first, *again;
	struct fx_proc a;
	struct small *skel = small__open();
	int fds, links;

	printf("  rollback / %s\n", usdtkit_mode_str(mode));
	CHECK(skel && !usdtkit_prog_prepare(skel->progs.usdtkit_trace, mode) &&
	      !small__load(skel), "load small");
	if (!skel)
		return;
	CHECK(!fx_start(&a, nopie, 0), "start");
	fds = count_fds();
	links = settled_links(-1);
	{
		USDTKIT_OPTS(usdtkit_attach_opts, o, .mode = mode, .print = print_msg);

		/* 4 probes, 4 distinct specs, room for 2: nothing may stay */
		l = usdtkit_attach(skel->progs.usdtkit_trace, a.pid, nopie, "fx", "*", &o);
		CHECK(!l && errno == E2BIG, "E2BIG expected, got %p errno %d", (void *)l, errno);
		/* names the map, its capacity, the file and the probe */
		CHECK(strstr(last_msg, "map usdtkit_specs is full (2 specs)") &&
		      strstr(last_msg, nopie) && strstr(last_msg, ": fx:"),
		      "message: %s", last_msg);
		CHECK(count_fds() == fds, "fds %d, baseline %d", count_fds(), fds);
		CHECK(count_links() == links, "links %d, baseline %d", count_links(), links);
		CHECK(!fx_fire(&a, ROUNDS), "fire");
		CHECK(hits(skel) == 0, "hits after a failed attach: %llu", hits(skel));

		/* ids went back: two probes fit again, a third does not */
		first = usdtkit_attach(skel->progs.usdtkit_trace, a.pid, nopie, "fx", "zero", &o);
		again = usdtkit_attach(skel->progs.usdtkit_trace, a.pid, nopie, "fx", "three", &o);
		CHECK(first && again, "two specs fit: %s", last_msg);
		l = usdtkit_attach(skel->progs.usdtkit_trace, a.pid, nopie, "fx", "twelve", &o);
		CHECK(!l && errno == E2BIG, "third spec: E2BIG");
		CHECK(!fx_fire(&a, ROUNDS), "fire");
		CHECK(hits(skel) == 2 * ROUNDS, "hits %llu, want %d", hits(skel), 2 * ROUNDS);
		usdtkit_link_destroy(first);
		usdtkit_link_destroy(again);
		CHECK(count_fds() == fds, "fds after detach %d, baseline %d", count_fds(), fds);
		CHECK(settled_links(links) == links, "links after detach %d", count_links());
	}
	if (mode == USDTKIT_MODE_IPMAP) {
		USDTKIT_OPTS(usdtkit_attach_opts, o1, .mode = mode, .cookie = 1, .print = print_msg);
		USDTKIT_OPTS(usdtkit_attach_opts, o2, .mode = mode, .cookie = 2, .print = print_msg);

		/* same IP, different specs, no cookies: refused */
		first = usdtkit_attach(skel->progs.usdtkit_trace, a.pid, nopie, "fx", "three", &o1);
		l = usdtkit_attach(skel->progs.usdtkit_trace, a.pid, nopie, "fx", "three", &o2);
		CHECK(first && !l && errno == EEXIST, "collision: %p errno %d", (void *)l, errno);
		CHECK(strstr(last_msg, "already maps"), "collision message: %s", last_msg);
		usdtkit_link_destroy(first);
		CHECK(settled_links(links) == links, "links after collision %d", count_links());
	}
	fx_stop(&a);
	small__destroy(skel);
}

/*
 * Mode hwbp through the library: a perf-event program (prepared so, it
 * loads: its context loads pass the verifier), never AUTO's pick, no
 * attach without a process, no other mode's attach of it; then this
 * machine's answer: the hits, or one line and nothing left behind.
 */
static void hwbp_case(void)
{
	const char *nopie = path_of("fx_nopie");
	struct small *skel = small__open();
	struct usdtkit_link *l;
	struct fx_proc a;
	int fds;

	printf("  hwbp\n");
	CHECK(usdtkit_mode_parse("hwbp") == USDTKIT_MODE_HWBP &&
	      !strcmp(usdtkit_mode_str(USDTKIT_MODE_HWBP), "hwbp"), "mode name");
	CHECK(usdtkit_mode_resolve(USDTKIT_MODE_AUTO) != USDTKIT_MODE_HWBP,
	      "AUTO resolved to hwbp");
	CHECK(skel && !usdtkit_prog_prepare(skel->progs.usdtkit_trace, USDTKIT_MODE_HWBP) &&
	      bpf_program__type(skel->progs.usdtkit_trace) == BPF_PROG_TYPE_PERF_EVENT,
	      "prepared as a perf-event program");
	CHECK(skel && !small__load(skel), "load a perf-event program");
	if (!skel)
		return;
	CHECK(!fx_start(&a, nopie, 0), "start");
	fds = count_fds();
	{
		USDTKIT_OPTS(usdtkit_attach_opts, any, .mode = USDTKIT_MODE_HWBP,
			     .any_process = true, .print = print_msg);
		USDTKIT_OPTS(usdtkit_attach_opts, perf, .mode = USDTKIT_MODE_PERF,
			     .print = print_msg);
		USDTKIT_OPTS(usdtkit_attach_opts, o, .mode = USDTKIT_MODE_HWBP,
			     .print = print_msg);

		l = usdtkit_attach(skel->progs.usdtkit_trace, -1, nopie, "fx", "zero", &o);
		CHECK(!l && errno == EINVAL && strstr(last_msg, "it needs a process"),
		      "no process: errno %d: %s", errno, last_msg);
		l = usdtkit_attach(skel->progs.usdtkit_trace, a.pid, nopie, "fx", "zero", &perf);
		CHECK(!l && errno == EINVAL &&
		      strstr(last_msg, "was loaded for hardware breakpoint links"),
		      "mode perf of a hwbp program: errno %d: %s", errno, last_msg);
		l = usdtkit_attach(skel->progs.usdtkit_trace, a.pid, nopie, "fx", "zero", &any);
		if (l) {
			/* this machine's breakpoints fire: every hit counted */
			CHECK(!fx_fire(&a, ROUNDS), "fire");
			CHECK(hits(skel) == ROUNDS, "hits %llu, want %d", hits(skel), ROUNDS);
			usdtkit_link_destroy(l);
			printf("  hwbp: breakpoints fire here\n");
		} else {
			CHECK(errno == EOPNOTSUPP && strstr(last_msg, "mode hwbp: ") &&
			      strstr(last_msg, nopie), "refused: errno %d: %s", errno, last_msg);
			CHECK(!fx_fire(&a, ROUNDS), "fire after the refusal");
			CHECK(hits(skel) == 0, "hits after a refusal: %llu", hits(skel));
			printf("  hwbp: %s\n", last_msg);
		}
		CHECK(count_fds() == fds, "fds %d, baseline %d", count_fds(), fds);
	}
	fx_stop(&a);
	small__destroy(skel);
}

/* ---- what a traced process sees: its site bytes and semaphores ---- */

#define MAX_FX_SITES 16

/* The first byte of each site in process @pid: int3 (0xcc) while a
 * uprobe is installed there. Number of sites read. */
static int site_bytes(pid_t pid, const uint64_t *pc, int n, unsigned char *b)
{
	char path[64];
	int fd, i, ok = 0;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	for (i = 0; fd >= 0 && i < n; i++)
		ok += pread(fd, &b[i], 1, (off_t)pc[i]) == 1;
	if (fd >= 0)
		close(fd);
	return ok;
}

static int count_byte(const unsigned char *b, int n, unsigned char v)
{
	int i, k = 0;

	for (i = 0; i < n; i++)
		k += b[i] == v;
	return k;
}

/* The 2-byte semaphore at @addr in @pid, -1 if unreadable. */
static int sema_value(pid_t pid, uint64_t addr)
{
	char path[64];
	unsigned short v;
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = pread(fd, &v, sizeof(v), (off_t)addr);
	close(fd);
	return r == sizeof(v) ? v : -1;
}

/*
 * Seconds until no site of @pc traps and the semaphore at @sema is 0
 * again, polled every ms at most @polls times; -1 if that never happens.
 * The time is only printed: the verdict is whether it happens at all,
 * and the bound on polls is a watchdog for a release that never comes.
 */
static double until_restored(pid_t pid, const uint64_t *pc, int n, uint64_t sema,
			     int polls)
{
	unsigned char b[16];
	double t0 = mono_s();
	int i;

	if (n > 16)
		return -1;
	for (i = 0; i < polls; i++) {
		if (site_bytes(pid, pc, n, b) == n && !count_byte(b, n, 0xcc) &&
		    sema_value(pid, sema) == 0)
			return mono_s() - t0;
		usleep(1000);
	}
	return -1;
}

/*
 * A uprobe_multi link releases every site when its fd closes; perf-event
 * uprobes go one at a time, ~0.1 s each (docs/RELIABILITY.md). The
 * watchdog, in polls of at least 1 ms: 10 s, plus 2 s a perf-event site,
 * over 10x the normal time on any load.
 */
static int restore_polls(enum usdtkit_mode mode, int sites)
{
	return mode == USDTKIT_MODE_MULTI ? 10000 : 10000 + 2000 * sites;
}

/*
 * The kernel refuses a uprobe whose semaphore offset differs from that of
 * an existing uprobe at the same place. A blocker uprobe at fx:sema with
 * a wrong semaphore makes the kernel fail the last site of "fx:*": what
 * was attached for the sites before it must be undone.
 */
static void rollback_midway(enum usdtkit_mode mode)
{
	USDTKIT_OPTS(usdtkit_attach_opts, o, .mode = mode, .print = print_msg);
	const char *nopie = path_of("fx_nopie");
	struct usdtkit_file *f = usdtkit_file_open(nopie, NULL);
	const struct usdtkit_site *sema = f ? usdtkit_file_next_site(f, NULL, "fx", "sema") : NULL;
	struct progset ps, blk;
	struct bpf_link *blocker = NULL;
	struct usdtkit_link *l;
	struct seen s = { 0 };
	struct ring_buffer *rb = NULL;
	const struct usdtkit_site *site = NULL;
	uint64_t pc[MAX_FX_SITES];
	struct fx_proc a;
	int fds, links, n = 0;
	double back;

	printf("  rollback midway / %s\n", usdtkit_mode_str(mode));
	/* the sites the blocker does not hold */
	while (f && n < MAX_FX_SITES && (site = usdtkit_file_next_site(f, site, "fx", "*")))
		if (site != sema)
			pc[n++] = usdtkit_site_pc(site);
	CHECK(sema && usdtkit_site_semaphore_offset(sema), "fx:sema has a semaphore");
	CHECK(!progset_load(&ps, false, mode) && !progset_load(&blk, false, USDTKIT_MODE_PERF),
	      "load");
	CHECK(!fx_start(&a, nopie, 0), "start");
	if (sema) {
		/* fx_sema_semaphore[1] (tests/attach/fx_sema.c): a counter of
		 * its own, which the kernel can always decrement back */
		LIBBPF_OPTS(bpf_uprobe_opts, bo,
			    .ref_ctr_offset = usdtkit_site_semaphore_offset(sema) + 2);

		blocker = bpf_program__attach_uprobe_opts(blk.prog, -1, nopie,
							  usdtkit_site_pc_offset(sema), &bo);
		CHECK(!libbpf_get_error(blocker), "blocker uprobe");
	}
	fds = count_fds();
	links = settled_links(-1);
	l = usdtkit_attach(ps.prog, -1, nopie, "fx", "*", &o);
	CHECK(!l, "attach must fail at fx:sema");
	/* the kernel's refusal (EINVAL, the reason only in its log) names the
	 * file, the very site (multi: found by bisection) and the likely
	 * cause: the blocker's different semaphore offset */
	CHECK(strstr(last_msg, nopie) && strstr(last_msg, "uprobe") &&
	      strstr(last_msg, "fx:sema") && strstr(last_msg, "ref_ctr_offset") &&
	      strstr(last_msg, "different semaphore offset"),
	      "message: %s", last_msg);
	CHECK(count_fds() == fds, "fds %d, baseline %d", count_fds(), fds);
	CHECK(settled_links(links) == links, "links %d, baseline %d", count_links(), links);
	CHECK(map_entries(ps.ip_map_fd) == 0, "IP-map entries left: %d",
	      map_entries(ps.ip_map_fd));
	/* the sites attached before the refusal trap no more, soon */
	back = sema ? until_restored(a.pid, pc, n, usdtkit_site_semaphore(sema),
				     restore_polls(mode, n)) : -1;
	CHECK(back >= 0, "sites or semaphore not restored after the rollback");
	printf("    %d sites restored %.3f s after the failed attach returned\n", n, back);
	rb = ring_buffer__new(ps.events_fd, on_event, &s, NULL);
	CHECK(!fx_fire(&a, ROUNDS), "fire");
	if (rb)
		ring_buffer__consume(rb);
	CHECK(!s.hits[P_ZERO] && !s.hits[P_THREE] && !s.hits[P_TWELVE],
	      "no hit after the rollback: %d %d %d", s.hits[P_ZERO], s.hits[P_THREE],
	      s.hits[P_TWELVE]);
	ring_buffer__free(rb);
	bpf_link__destroy(libbpf_get_error(blocker) ? NULL : blocker);
	fx_stop(&a);
	progset_destroy(&ps);
	progset_destroy(&blk);
	usdtkit_file_close(f);
}

/*
 * bcc registers ref_ctr_offset 0x6 on probes without a semaphore: a probe
 * without one is then refused, and the message says why.
 */
static void bcc_blocker(enum usdtkit_mode mode)
{
	USDTKIT_OPTS(usdtkit_attach_opts, o, .mode = mode, .print = print_msg);
	LIBBPF_OPTS(bpf_uprobe_opts, bo, .ref_ctr_offset = 0x6);
	const char *nopie = path_of("fx_nopie");
	struct usdtkit_file *f = usdtkit_file_open(nopie, NULL);
	const struct usdtkit_site *site = f ? usdtkit_file_next_site(f, NULL, "fx", "three") : NULL;
	struct bpf_link *blocker = NULL;
	struct progset ps, blk;
	struct usdtkit_link *l;

	printf("  bcc-like blocker / %s\n", usdtkit_mode_str(mode));
	CHECK(site && !usdtkit_site_semaphore_offset(site), "fx:three has no semaphore");
	CHECK(!progset_load(&ps, false, mode) && !progset_load(&blk, false, USDTKIT_MODE_PERF),
	      "load");
	if (site) {
		blocker = bpf_program__attach_uprobe_opts(blk.prog, -1, nopie,
							  usdtkit_site_pc_offset(site), &bo);
		CHECK(!libbpf_get_error(blocker), "blocker uprobe");
	}
	last_msg[0] = 0;
	l = usdtkit_attach(ps.prog, -1, nopie, "fx", "three", &o);
	CHECK(!l && errno == EINVAL, "attach must fail: %p errno %d", (void *)l, errno);
	CHECK(strstr(last_msg, "fx:three") && strstr(last_msg, "no semaphore") &&
	      strstr(last_msg, "bcc"), "message: %s", last_msg);
	printf("    %s\n", last_msg);
	usdtkit_link_destroy(l);
	bpf_link__destroy(libbpf_get_error(blocker) ? NULL : blocker);
	progset_destroy(&ps);
	progset_destroy(&blk);
	usdtkit_file_close(f);
}

/* ---- detach: the program goes at once, breakpoints and semaphores soon ---- */

#define MAX_DSITES 8

static volatile sig_atomic_t sigchld_seen;

static void on_sigchld(int sig)
{
	(void)sig;
	sigchld_seen++;
}

/*
 * Every fx:* site of the running non-PIE fixture is int3 while attached,
 * and fx:sema's semaphore 1. After usdtkit_link_destroy() the program
 * must be gone at once (no event, fds and kernel links back at baseline);
 * the breakpoints and the semaphore go back within 1 s in multi mode and
 * with opts.detach_wait, else once the background reaper has had the
 * kernel release the perf events (~0.1 s each: docs/RELIABILITY.md).
 */
static void detach_case(enum usdtkit_mode mode, bool wait)
{
	USDTKIT_OPTS(usdtkit_attach_opts, o, .mode = mode, .print = print_msg,
		    .detach_wait = wait);
	const char *nopie = path_of("fx_nopie");
	struct usdtkit_file *f = usdtkit_file_open(nopie, NULL);
	const struct usdtkit_site *site = NULL;
	unsigned char before[MAX_DSITES], b[MAX_DSITES];
	uint64_t pc[MAX_DSITES], sema = 0;
	struct ring_buffer *rb = NULL;
	struct usdtkit_link *l;
	struct seen s = { 0 };
	struct progset ps;
	struct fx_proc a;
	int n = 0, fds, links, i, left;
	double t0, dt, back;

	printf("  detach / %s%s\n", usdtkit_mode_str(mode), wait ? " / detach_wait" : "");
	while (f && n < MAX_DSITES && (site = usdtkit_file_next_site(f, site, "fx", "*"))) {
		pc[n++] = usdtkit_site_pc(site);
		if (usdtkit_site_semaphore(site))
			sema = usdtkit_site_semaphore(site);
	}
	CHECK(n >= 3 && sema, "fx_nopie has %d fx sites, one with a semaphore", n);
	CHECK(!progset_load(&ps, false, mode), "load");
	CHECK(!fx_start(&a, nopie, 0), "start");
	/* an earlier test's reaper may still be releasing uprobes on this
	 * file (they apply to new processes too): wait for it */
	for (i = 0; i < 600 && site_bytes(a.pid, pc, n, before) == n &&
			   count_byte(before, n, 0xcc); i++)
		usleep(50 * 1000);
	CHECK(site_bytes(a.pid, pc, n, before) == n && !count_byte(before, n, 0xcc),
	      "sites readable and not int3 before the attach");
	fds = count_fds();
	links = settled_links(-1);
	/* the reaper's processes must never reach the application's SIGCHLD
	 * handler (or its wait()) */
	sigchld_seen = 0;
	signal(SIGCHLD, on_sigchld);
	l = usdtkit_attach(ps.prog, -1, nopie, "fx", "*", &o);
	CHECK(l && usdtkit_link_fd_count(l) == (mode == USDTKIT_MODE_MULTI ? 1 : (size_t)n),
	      "attach: %s", l ? "" : last_msg);
	CHECK(site_bytes(a.pid, pc, n, b) == n && count_byte(b, n, 0xcc) == n,
	      "every site int3 while attached (%d of %d)", count_byte(b, n, 0xcc), n);
	CHECK(sema_value(a.pid, sema) == 1, "semaphore %d while attached",
	      sema_value(a.pid, sema));

	t0 = mono_s();
	usdtkit_link_destroy(l);
	site_bytes(a.pid, pc, n, b);
	dt = mono_s() - t0;
	left = count_byte(b, n, 0xcc);
	if (wait || mode == USDTKIT_MODE_MULTI)
		CHECK(left == 0 && sema_value(a.pid, sema) == 0,
		      "%d sites still int3, semaphore %d after destroy", left,
		      sema_value(a.pid, sema));
	/* perf without detach_wait: how long destroy takes, and so how many
	 * sites the background release has done by then, depends on the
	 * machine's load; only printed (bench/restore_bench measures it) */
	printf("    destroy returned in %.3f s, %d of %d sites still int3\n", dt, left, n);
	CHECK(count_fds() == fds, "fds %d, baseline %d", count_fds(), fds);
	CHECK(settled_links(links) == links, "links %d, baseline %d", count_links(), links);
	rb = ring_buffer__new(ps.events_fd, on_event, &s, NULL);
	CHECK(!fx_fire(&a, ROUNDS), "fire");
	if (rb)
		ring_buffer__consume(rb);
	CHECK(!s.hits[P_ZERO] && !s.hits[P_THREE] && !s.hits[P_TWELVE],
	      "no hit after destroy: %d %d %d", s.hits[P_ZERO], s.hits[P_THREE],
	      s.hits[P_TWELVE]);
	/* nothing stays behind: every breakpoint and the semaphore go back,
	 * for perf-event uprobes in the background */
	back = until_restored(a.pid, pc, n, sema, restore_polls(wait ? USDTKIT_MODE_MULTI :
								mode, n));
	site_bytes(a.pid, pc, n, b);
	CHECK(back >= 0 && !memcmp(b, before, (size_t)n),
	      "%d sites still int3, semaphore %d, %.1f s after destroy",
	      count_byte(b, n, 0xcc), sema_value(a.pid, sema), mono_s() - t0);
	printf("    all %d uprobes gone and the semaphore 0 after %.3f s\n", n,
	       mono_s() - t0);
	CHECK(!sigchld_seen && waitpid(-1, NULL, WNOHANG) == 0,
	      "the application saw %d SIGCHLD or a child of usdtkit's", (int)sigchld_seen);
	signal(SIGCHLD, SIG_DFL);
	ring_buffer__free(rb);
	fx_stop(&a);
	progset_destroy(&ps);
	usdtkit_file_close(f);
}

/*
 * usdtkit_attach_pid() in multi mode: one uprobe_multi link per file with
 * the probe (the executable's fx:zero and its library's fxlib:zero). The
 * link holds both, and destroy closes both: nothing is left attached.
 */
static void detach_files(void)
{
	USDTKIT_OPTS(usdtkit_attach_opts, o, .mode = USDTKIT_MODE_MULTI,
		    .print = print_msg);
	struct usdtkit_link *l;
	struct progset ps;
	struct fx_proc a;
	int fds, links;

	printf("  detach / multi / two files by pid\n");
	CHECK(!progset_load(&ps, false, USDTKIT_MODE_MULTI), "load");
	CHECK(!fx_start(&a, path_of("fx_pie"), 1), "start");
	fds = count_fds();
	links = settled_links(-1);
	l = usdtkit_attach_pid(ps.prog, a.pid, "*", "zero", &o);
	CHECK(l && usdtkit_link_fd_count(l) == 2, "attach: %zu links for 2 files %s",
	      usdtkit_link_fd_count(l), l ? "" : last_msg);
	usdtkit_link_destroy(l);
	CHECK(count_fds() == fds, "fds %d, baseline %d", count_fds(), fds);
	CHECK(settled_links(links) == links, "links %d, baseline %d", count_links(),
	      links);
	fx_stop(&a);
	progset_destroy(&ps);
}

int main(int argc, char **argv)
{
	int mode;

	if (argc != 3) {
		fprintf(stderr, "usage: test_attach multi|perf|ipmap|rollback BUILD_DIR\n");
		return 2;
	}
	dir = argv[2];
	signal(SIGPIPE, SIG_IGN);
	if (geteuid() != 0) {
		printf("SKIP: needs root for BPF\n");
		return 77;
	}
	if (!strcmp(argv[1], "nop5")) {
#if defined(__x86_64__)
		nop5_case(false);
		nop5_case(true);
		return check_done();
#else
		printf("SKIP: nop5 sites exist on x86-64 only\n");
		return 77;
#endif
	}
	if (!strcmp(argv[1], "nop10")) {
#if defined(__x86_64__)
		const struct usdtkit_features *f = usdtkit_features();

		if (f->uprobe_multi)
			nop10_case(USDTKIT_MODE_MULTI);
		else
			printf("  multi: skipped, the kernel has no uprobe_multi\n");
		if (f->bpf_cookie && f->uprobe_pmu)
			nop10_case(USDTKIT_MODE_PERF);
		else
			printf("  perf: skipped, the kernel has no BPF cookies or uprobe PMU\n");
		if (f->uprobe_pmu)
			nop10_case(USDTKIT_MODE_IPMAP);
		else
			printf("  ipmap: skipped, the kernel has no uprobe PMU\n");
		return check_done();
#else
		printf("SKIP: nop10 sites exist on x86-64 only\n");
		return 77;
#endif
	}
	if (!strcmp(argv[1], "forms")) {
#if defined(__x86_64__)
		run_forms(usdtkit_mode_resolve(USDTKIT_MODE_AUTO));
		run_forms(USDTKIT_MODE_PERF);
		run_forms(USDTKIT_MODE_IPMAP);
		return check_done();
#else
		printf("SKIP: the hand-written forms fixture is x86-64 asm\n");
		return 77;
#endif
	}
	if (!strcmp(argv[1], "skeleton")) {
		run_skeleton();
		return check_done();
	}
	if (!strcmp(argv[1], "compat")) {
		run_compat(usdtkit_mode_resolve(USDTKIT_MODE_AUTO));
		run_compat(USDTKIT_MODE_PERF);
		return check_done();
	}
	if (!strcmp(argv[1], "detach")) {
		if (usdtkit_features()->uprobe_multi) {
			detach_case(USDTKIT_MODE_MULTI, false);
			detach_files();
		}
		detach_case(USDTKIT_MODE_PERF, false);
		detach_case(USDTKIT_MODE_PERF, true);
		detach_case(USDTKIT_MODE_IPMAP, false);
		return check_done();
	}
	if (!strcmp(argv[1], "deleted")) {
		run_deleted(usdtkit_mode_resolve(USDTKIT_MODE_AUTO));
		run_deleted(USDTKIT_MODE_PERF);
		run_deleted(USDTKIT_MODE_IPMAP);
		return check_done();
	}
	if (!strcmp(argv[1], "hwbp")) {
		hwbp_case();
		return check_done();
	}
	if (!strcmp(argv[1], "rollback")) {
		rollback_mode(USDTKIT_MODE_MULTI);
		rollback_mode(USDTKIT_MODE_PERF);
		rollback_mode(USDTKIT_MODE_IPMAP);
		rollback_midway(usdtkit_mode_resolve(USDTKIT_MODE_AUTO));
		rollback_midway(USDTKIT_MODE_PERF);
		rollback_midway(USDTKIT_MODE_IPMAP);
		bcc_blocker(usdtkit_mode_resolve(USDTKIT_MODE_AUTO));
		bcc_blocker(USDTKIT_MODE_PERF);
		return check_done();
	}
	mode = usdtkit_mode_parse(argv[1]);
	if (mode <= 0) {
		fprintf(stderr, "bad mode %s\n", argv[1]);
		return 2;
	}
	if (usdtkit_mode_resolve(mode) == USDTKIT_MODE_MULTI && !usdtkit_features()->uprobe_multi) {
		printf("SKIP: this kernel has no uprobe_multi with the PID filter fix\n");
		return 77;
	}
	run_mode((enum usdtkit_mode)mode);
	return check_done();
}
