// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The form switches of usdtkit.bpf.h (x86-64, root): switches.bpf.c is
 * built by default and with each switch; for each build:
 *
 * - what the verifier processed for bench/hit_uk.bpf.c's readers stays
 *   under a ceiling, and a build that leaves forms out processes fewer
 *   instructions than the default build (counts, never times);
 * - on real hits of fx_forms (every x86-64 location form) and
 *   fx_pair_i386 (a register pair), every argument reads right, or, if
 *   it needs a form the build left out, reads 0 with -EOPNOTSUPP, in
 *   usdtkit_spec_args_errs() and in usdtkit_spec_arg() alike.
 *
 *   test_switches DIR      (DIR holds the fixtures)
 */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <usdtkit/attach.h>

#include "check.h"
#include "fx_forms.h"
#include "fx_pair.h"
#include "fx_run.h"
#include "switches.h"
#include "switches_def.skel.h"
#include "switches_noindex.skel.h"
#include "switches_nohi.skel.h"
#include "switches_simple.skel.h"

/* the forms an argument needs */
#define F_INDEX		0x1
#define F_HI		0x2
#define F_PC_REL	0x4

/* the counted readers, in the order of struct variant.ceil */
static const char *const counted[] = { "uk_read3", "uk_read3_nc", "uk_read6", "uk_read6_nc" };
#define NCOUNTED (sizeof(counted) / sizeof(counted[0]))

/*
 * Ceilings: the counts of these objects on Linux 6.18 with clang 14
 * plus about 15%, so that a change that walks more shows, and another
 * kernel's or compiler's drift does not. (bench/README.md, "Form
 * switches, and what a hit executes", has hit_bench's own objects: the
 * same readers, laid out differently next to other programs, differ by
 * up to 17%.)
 */
static const struct variant {
	const char *name;
	const void *(*elf)(size_t *sz);
	unsigned int left_out;		/* F_*: the forms the build lacks */
	unsigned int ceil[NCOUNTED];
} variants[] = {
	{ "default", switches_def__elf_bytes, 0, { 4700, 2850, 8200, 5450 } },
	{ "USDTKIT_NO_INDEX", switches_noindex__elf_bytes, F_INDEX,
	  { 3650, 2400, 6950, 4600 } },
	{ "USDTKIT_NO_HIGH_HALVES", switches_nohi__elf_bytes, F_HI,
	  { 3950, 2100, 7200, 4550 } },
	{ "USDTKIT_ARGS_SIMPLE", switches_simple__elf_bytes, F_INDEX | F_HI | F_PC_REL,
	  { 2900, 1650, 5300, 3350 } },
};
#define NVARIANTS (sizeof(variants) / sizeof(variants[0]))

/* a fixture, the forms of its arguments and what round r passes */
struct fixture {
	const char *exe, *provider;
	int nargs;
	unsigned int needs[SW_NARGS];
	void (*expect)(long r, int64_t *v);
};

static const struct fixture fixtures[] = {
	/* -1@%ah 1@%al -2@%ax -8@%rdi -4@(%rcx,%rsi,4) -2@fx_arr16(,%rsi,2)
	 * -8@fx_val(%rip) -8@fx_val -4@$-5 8@8(%rcx); symbols are encoded
	 * relative to the probe's pc */
	{ "fx_forms", "fxforms", FX_FORMS_NARGS,
	  { 0, 0, 0, 0, F_INDEX, F_INDEX | F_PC_REL, F_PC_REL, F_PC_REL, 0, 0 },
	  fx_forms_expect },
	/* -4@4(%esp) -8@%eax (%edx:%eax) 1@%dl -4@%edx */
	{ "fx_pair_i386", "fxpair", FX_PAIR_NARGS, { 0, F_HI, 0, 0 }, fx_pair_expect },
};

#define ROUNDS 3

static const char *dir;
static unsigned int def_count[NCOUNTED];

static unsigned int verified_insns(const struct bpf_program *p)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
		return 0;
	return info.verified_insns;
}

static void check_counts(const struct variant *v, struct bpf_object *obj)
{
	size_t i;

	for (i = 0; i < NCOUNTED; i++) {
		const struct bpf_program *p = bpf_object__find_program_by_name(obj, counted[i]);
		unsigned int n = p ? verified_insns(p) : 0;

		if (!n) {
			printf("  %s: no verified_insns from this kernel (Linux 5.16+), "
			       "not counted\n", counted[i]);
			continue;
		}
		printf("  %s %s: %u processed (ceiling %u)\n", v->name, counted[i], n,
		       v->ceil[i]);
		CHECK(n <= v->ceil[i], "%s %s: %u processed, ceiling %u", v->name,
		      counted[i], n, v->ceil[i]);
		if (!v->left_out)
			def_count[i] = n;
		else if (def_count[i])
			CHECK(n < def_count[i], "%s %s: %u processed, not below the "
			      "default build's %u", v->name, counted[i], n, def_count[i]);
	}
}

/* one argument of the last hit, as both readers gave it */
static void check_arg(const struct variant *v, const struct fixture *fx,
		      const struct sw_out *o, int i, int64_t want)
{
	bool refused = fx->needs[i] & v->left_out;
	int64_t w = refused ? 0 : want;
	int e = refused ? -EOPNOTSUPP : 0;

	CHECK(o->bulk[i] == w && o->bulk_err[i] == e, "%s %s arg %d, usdtkit_spec_args: "
	      "%lld err %d, want %lld err %d", v->name, fx->provider, i, o->bulk[i],
	      o->bulk_err[i], (long long)w, e);
	CHECK(o->one[i] == w && o->one_err[i] == e, "%s %s arg %d, usdtkit_spec_arg: "
	      "%lld err %d, want %lld err %d", v->name, fx->provider, i, o->one[i],
	      o->one_err[i], (long long)w, e);
}

static void check_fixture(const struct variant *v, const struct fixture *fx,
			  struct bpf_object *obj, int out_fd)
{
	static const char *const progs[] = { "read_bulk", "read_one" };
	USDTKIT_OPTS(usdtkit_attach_opts, opts);
	struct usdtkit_link *l[2] = { NULL, NULL };
	char exe[4096];
	int64_t want[SW_NARGS];
	struct sw_out out, *o = &out;
	struct fx_proc a;
	int i, err, any = 0, zero = 0;

	snprintf(exe, sizeof(exe), "%s/%s", dir, fx->exe);
	if (access(exe, X_OK)) {
		printf("  %s: no %s (it needs i686-linux-gnu-gcc), not fired\n", v->name,
		       fx->exe);
		return;
	}
	memset(o, 0, sizeof(*o));
	CHECK(!bpf_map_update_elem(out_fd, &zero, o, 0), "clear .data.sw");
	err = fx_start(&a, exe, 0);
	if (err == -ENOEXEC) {
		printf("  SKIP %s: %s: this kernel cannot run it (no IA-32 emulation)\n",
		       v->name, fx->exe);
		return;
	}
	if (err) {
		CHECK(0, "start %s: %s", exe, strerror(-err));
		return;
	}
	for (i = 0; i < 2; i++) {
		l[i] = usdtkit_attach(bpf_object__find_program_by_name(obj, progs[i]), a.pid,
				      exe, fx->provider, "all", &opts);
		CHECK(l[i], "%s: attach %s to %s:all: %s", v->name, progs[i], fx->provider,
		      strerror(errno));
	}
	CHECK(!fx_fire(&a, ROUNDS), "fire %s", fx->exe);
	usdtkit_link_destroy(l[0]);
	usdtkit_link_destroy(l[1]);
	fx_stop(&a);

	CHECK(!bpf_map_lookup_elem(out_fd, &zero, o), "read .data.sw");
	CHECK(o->hits == ROUNDS && o->nargs == fx->nargs, "%s %s: %llu hits of %d "
	      "arguments", v->name, fx->provider, o->hits, o->nargs);
	fx->expect(ROUNDS, want);
	for (i = 0; i < fx->nargs && i < SW_NARGS; i++) {
		check_arg(v, fx, o, i, want[i]);
		any |= !!(fx->needs[i] & v->left_out);
	}
	CHECK(o->ret == (any ? -EOPNOTSUPP : 0), "%s %s: usdtkit_spec_args_errs() "
	      "returned %d", v->name, fx->provider, o->ret);
}

static void run_variant(const struct variant *v)
{
	struct bpf_object *obj;
	struct bpf_program *p;
	struct bpf_map *m;
	size_t sz = 0, i;
	const void *elf = v->elf(&sz);
	int err = 0, out_fd = -1;

	printf("%s\n", v->name);
	obj = bpf_object__open_mem(elf, sz, NULL);
	CHECK(obj, "%s: open: %s", v->name, strerror(errno));
	if (!obj)
		return;
	bpf_object__for_each_program(p, obj)
		err = err ? err : usdtkit_prog_prepare(p, USDTKIT_MODE_AUTO);
	err = err ? err : bpf_object__load(obj);
	CHECK(!err, "%s: load: %s", v->name, strerror(-err));
	m = bpf_object__find_map_by_name(obj, ".data.sw");
	if (!err && m && bpf_map__value_size(m) == sizeof(struct sw_out))
		out_fd = bpf_map__fd(m);
	CHECK(out_fd >= 0, "%s: the .data.sw map", v->name);
	if (!err)
		check_counts(v, obj);
	for (i = 0; out_fd >= 0 && i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		check_fixture(v, &fixtures[i], obj, out_fd);
	bpf_object__close(obj);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: test_switches DIR\n");
		return 2;
	}
	dir = argv[1];
	if (geteuid()) {
		printf("SKIP: needs root to load and attach BPF programs\n");
		return 77;
	}
	for (i = 0; i < NVARIANTS; i++)
		run_variant(&variants[i]);
	return check_done();
}
