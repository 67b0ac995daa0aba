// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Grouped memory arguments read on real hits (x86-64, root): probes of
 * this very program, written by hand, whose arguments lie in one page
 * followed by an unmapped page.
 *
 *   fxpage:end    two arguments in the page's last 12 bytes: the window
 *                 ends at the page's end and must not fault
 *   fxpage:cross  one argument at the page's end, one in the unmapped
 *                 page: the window read faults, the first argument must
 *                 still be read (alone), the second must fail
 *   fxpage:sizes  every size, signed and unsigned, at unaligned offsets
 *   fxpage:mixed  two groups of different bases that interleave
 *
 * usdtkit_spec_args() must give what usdtkit_spec_arg() gives, and what
 * the bytes say. A program built against spec version 1 (spec_v1.bpf.c)
 * must still read them, from 304-byte specs without groups.
 *
 *   test_coalesce MODE      (multi or perf)
 */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/sdt.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include <usdtkit/attach.h>

#include "check.h"

#if defined(__x86_64__)
#include "coalesce.skel.h"
#include "spec_v1.skel.h"

#define PAGE 4096
enum { P_END, P_CROSS, P_SIZES, P_MIXED, NPROBES };
static const char *const pname[NPROBES] = { "end", "cross", "sizes", "mixed" };

void fx_page_fire(unsigned char *page, long *buf);

/* %rdi = the mapped page (the next one is not), %rsi = a long[2] */
__asm__(".text\n"
	".globl fx_page_fire\n"
	".type fx_page_fire, @function\n"
	"fx_page_fire:\n"
	STAP_PROBE_ASM(fxpage, end, -4@4084(%rdi) 8@4088(%rdi))
	STAP_PROBE_ASM(fxpage, cross, -2@4094(%rdi) 8@4096(%rdi))
	STAP_PROBE_ASM(fxpage, sizes, -1@4033(%rdi) 1@4034(%rdi) -2@4035(%rdi)
		       2@4037(%rdi) -4@4039(%rdi) 4@4043(%rdi) -8@4047(%rdi)
		       8@4055(%rdi))
	STAP_PROBE_ASM(fxpage, mixed, -4@4084(%rdi) 8@8(%rsi) 8@4088(%rdi)
		       -4@(%rsi))
	"	ret\n"
	".size fx_page_fire, .-fx_page_fire\n");

/* one argument as the probe describes it: offset, size, signed */
struct farg {
	int base;	/* 0: the page, 1: buf */
	int off, size;
	bool sgn;
};

static const struct farg fargs[NPROBES][8] = {
	[P_END] = { { 0, 4084, 4, true }, { 0, 4088, 8, false } },
	[P_CROSS] = { { 0, 4094, 2, true }, { 0, 4096, 8, false } },
	[P_SIZES] = { { 0, 4033, 1, true }, { 0, 4034, 1, false }, { 0, 4035, 2, true },
		      { 0, 4037, 2, false }, { 0, 4039, 4, true }, { 0, 4043, 4, false },
		      { 0, 4047, 8, true }, { 0, 4055, 8, false } },
	[P_MIXED] = { { 0, 4084, 4, true }, { 1, 8, 8, false }, { 0, 4088, 8, false },
		      { 1, 0, 4, true } },
};
static const int nargs[NPROBES] = { 2, 2, 8, 4 };
/* the encoder must have grouped them so */
static const unsigned int want_groups[NPROBES] = { 1, 1, 1, 2 };

static unsigned char *page;
static long buf[2];

/* what argument @a of a hit holds: the bytes, little-endian, extended */
static long expect(const struct farg *a)
{
	const unsigned char *p = (a->base ? (unsigned char *)buf : page) + a->off;
	uint64_t v = 0;
	int i, bits = 64 - 8 * a->size;

	for (i = a->size - 1; i >= 0; i--)
		v = v << 8 | p[i];
	if (bits && a->sgn)
		return (long)((int64_t)(v << bits) >> bits);
	return (long)v;
}

/* bytes with the top bit set, so that a sign or a shift that is wrong shows */
static void fill(void)
{
	int i, k;

	for (i = 4000; i < PAGE; i++)
		page[i] = (unsigned char)(0x81 + 37 * i);
	/* every argument's most significant byte: sign-extended or not */
	for (k = 0; k < NPROBES; k++)
		for (i = 0; i < nargs[k]; i++)
			if (!fargs[k][i].base && fargs[k][i].off + fargs[k][i].size <= PAGE)
				page[fargs[k][i].off + fargs[k][i].size - 1] |= 0x80;
	buf[0] = (long)0x89abcdeffffffffeULL;
	buf[1] = 0x1122334455667788L;
}

static void check_one(const char *who, int k, int i, long got, int err, bool faults)
{
	const struct farg *a = &fargs[k][i];

	if (faults) {
		CHECK(err == -EFAULT && got == 0, "%s %s arg %d: err %d value %ld, "
		      "want -EFAULT 0", who, pname[k], i, err, got);
		return;
	}
	CHECK(!err && got == expect(a), "%s %s arg %d: err %d value %#lx, want %#lx",
	      who, pname[k], i, err, got, expect(a));
}

/*
 * Map the page and its successor, unmap the successor, fire each probe
 * twice. The page is mapped only now, after every allocation of the
 * attach: an mmap made after the munmap could take the hole.
 */
static int fire_page(void)
{
	unsigned char vec;
	int err = 0;

	page = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (page == MAP_FAILED)
		return -errno;
	if (munmap(page + PAGE, PAGE)) {
		err = -errno;
		munmap(page, 2 * PAGE);
		return err;
	}
	fill();
	fx_page_fire(page, buf);
	fx_page_fire(page, buf);
	CHECK(mincore(page + PAGE, PAGE, &vec) == -1 && errno == ENOMEM,
	      "the page after stayed unmapped");
	/* expect() reads the page afterwards: it stays until the next fire */
	return 0;
}

/* attach @progs (up to 2) to every fxpage probe, cookie = its number; fire */
static int fire(struct bpf_program *const *progs, int nprogs, enum usdtkit_mode mode)
{
	struct usdtkit_link *l[2][NPROBES] = { { 0 } };
	int k, p, err = 0;

	for (p = 0; p < nprogs && !err; p++)
		for (k = 0; k < NPROBES && !err; k++) {
			USDTKIT_OPTS(usdtkit_attach_opts, o, .cookie = (uint64_t)k, .mode = mode);

			l[p][k] = usdtkit_attach(progs[p], 0, "/proc/self/exe", "fxpage",
						 pname[k], &o);
			if (!l[p][k]) {
				err = -errno;
				fprintf(stderr, "attach fxpage:%s: %s\n", pname[k],
					strerror(errno));
			}
		}
	if (!err)
		err = fire_page();
	for (p = 0; p < nprogs; p++)
		for (k = 0; k < NPROBES; k++)
			usdtkit_link_destroy(l[p][k]);
	return err;
}

static void run_coalesce(enum usdtkit_mode mode)
{
	struct coalesce *s = coalesce__open();
	struct bpf_program *progs[2];
	int k, i;

	CHECK(s && !usdtkit_prog_prepare(s->progs.read_bulk, mode) &&
	      !usdtkit_prog_prepare(s->progs.read_one, mode) && !coalesce__load(s),
	      "load coalesce.bpf.c for %s", usdtkit_mode_str(mode));
	if (s) {
		progs[0] = s->progs.read_bulk;
		progs[1] = s->progs.read_one;
	}
	if (!s || !s->bss || fire(progs, 2, mode)) {
		CHECK(0, "fire %s", usdtkit_mode_str(mode));
		coalesce__destroy(s);
		return;
	}
	for (k = 0; k < NPROBES; k++) {
		bool cross = k == P_CROSS;

		CHECK(s->bss->hits[k] == 2, "%s: %lu hits", pname[k], s->bss->hits[k]);
		CHECK(s->bss->groups[k] == want_groups[k], "%s: %u groups, want %u",
		      pname[k], s->bss->groups[k], want_groups[k]);
		CHECK(s->bss->bulk_err[k] == (cross ? -EFAULT : 0), "%s: bulk err %d",
		      pname[k], s->bss->bulk_err[k]);
		for (i = 0; i < nargs[k]; i++) {
			bool faults = cross && i == 1;

			check_one("usdtkit_spec_args", k, i, s->bss->bulk[k][i],
				  s->bss->bulk_errs[k][i], faults);
			check_one("usdtkit_spec_arg", k, i, s->bss->one[k][i],
				  s->bss->one_err[k][i], faults);
		}
	}
	coalesce__destroy(s);
}

static void run_v1(enum usdtkit_mode mode)
{
	struct spec_v1 *s = spec_v1__open();
	int k, i;

	CHECK(s && !usdtkit_prog_prepare(s->progs.read_v1, mode) && !spec_v1__load(s),
	      "load spec_v1.bpf.c for %s", usdtkit_mode_str(mode));
	CHECK(s && bpf_map__value_size(s->maps.usdtkit_specs) == 304, "v1 value size");
	if (!s || !s->bss || fire(&s->progs.read_v1, 1, mode)) {
		CHECK(0, "v1: fire %s", usdtkit_mode_str(mode));
		spec_v1__destroy(s);
		return;
	}
	for (k = 0; k < NPROBES; k++) {
		CHECK(s->bss->hits[k] == 2 && s->bss->version[k] == 1, "v1 %s: %lu hits, "
		      "spec version %u", pname[k], s->bss->hits[k], s->bss->version[k]);
		for (i = 0; i < nargs[k]; i++)
			check_one("v1 usdtkit_spec_arg", k, i, s->bss->one[k][i],
				  s->bss->one_err[k][i], k == P_CROSS && i == 1);
	}
	spec_v1__destroy(s);
}

int main(int argc, char **argv)
{
	enum usdtkit_mode mode;

	if (argc != 2 || (strcmp(argv[1], "multi") && strcmp(argv[1], "perf"))) {
		fprintf(stderr, "usage: test_coalesce multi|perf\n");
		return 2;
	}
	mode = !strcmp(argv[1], "multi") ? USDTKIT_MODE_MULTI : USDTKIT_MODE_PERF;
	if (geteuid() || sysconf(_SC_PAGESIZE) != PAGE) {
		printf("SKIP: needs root and 4 KiB pages\n");
		return 0;
	}
	if (mode == USDTKIT_MODE_MULTI && !usdtkit_features()->uprobe_multi) {
		printf("SKIP: no uprobe_multi on this kernel\n");
		return 0;
	}
	run_coalesce(mode);
	if (page && page != MAP_FAILED)
		munmap(page, PAGE);
	page = NULL;
	run_v1(mode);
	if (page && page != MAP_FAILED)
		munmap(page, PAGE);
	return check_done();
}
#else
int main(void)
{
	printf("SKIP: the fxpage probes are x86-64 asm\n");
	return 0;
}
#endif
