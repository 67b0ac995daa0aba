// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The CFI reader (core/elf/cfi.c, cfi_insn.c).
 *
 *   test_cfi                        sections built in memory: the rules of
 *                                   each instruction, then hostile input
 *   test_cfi --oracle [?]FILE...    every row readelf --debug-dump=frames-interp
 *                                   prints, looked up in usdtkit's table
 *                                   ("?FILE": skipped when absent)
 *
 * readelf prints the rules before each advance of the location; at each
 * such LOC the row usdtkit__cfi_find() gives must say the same CFA, fp
 * and return address rule, or be a NONE row for a rule readelf shows as
 * one a row cannot hold (an expression, a register). readelf's "u" is
 * both "undefined" and "not yet set", so it matches SAME or UNDEF (and
 * for the return address, an END row).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "base/log.h"
#include "elf/cfi.h"

/* ------------------------------------------------------------------ */
/* ELF images of one CFI section, built in memory                     */
/* ------------------------------------------------------------------ */

struct img {
	uint8_t b[1 << 16];
	size_t len;
};

static void put(struct img *m, size_t at, uint64_t v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		m->b[at + i] = (uint8_t)(v >> (8 * i));
}

/* ELF64 LSB: NULL, .shstrtab and @sec (at address @addr) holding @data. */
static Elf *make_elf(struct img *m, uint16_t machine, const char *sec, uint64_t addr,
		     const uint8_t *data, size_t len)
{
	static const char names[] = "\0.shstrtab\0.eh_frame\0.debug_frame";
	size_t name = !strcmp(sec, ".eh_frame") ? 11 : 21;
	size_t str = 64, dat = 128, sh = (dat + len + 7) & ~(size_t)7;

	memset(m->b, 0, sizeof(m->b));
	memcpy(m->b, "\177ELF\2\1\1", 7);
	put(m, 16, 3, 2);		/* ET_DYN */
	put(m, 18, machine, 2);
	put(m, 20, 1, 4);
	put(m, 40, sh, 8);		/* e_shoff */
	put(m, 52, 64, 2);
	put(m, 58, 64, 2);		/* e_shentsize */
	put(m, 60, 3, 2);		/* e_shnum */
	put(m, 62, 1, 2);		/* e_shstrndx */
	memcpy(m->b + str, names, sizeof(names));
	memcpy(m->b + dat, data, len);
	put(m, sh + 64 + 0, 1, 4);	/* .shstrtab */
	put(m, sh + 64 + 4, SHT_STRTAB, 4);
	put(m, sh + 64 + 24, str, 8);
	put(m, sh + 64 + 32, sizeof(names), 8);
	put(m, sh + 128 + 0, name, 4);
	put(m, sh + 128 + 4, SHT_PROGBITS, 4);
	put(m, sh + 128 + 16, addr, 8);
	put(m, sh + 128 + 24, dat, 8);
	put(m, sh + 128 + 32, len, 8);
	m->len = sh + 3 * 64;
	return elf_memory((char *)m->b, m->len);
}

static void quiet(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	(void)level;
	(void)ctx;
	(void)msg;
}

static const struct usdtkit_log quiet_log = { quiet, NULL };

static int read_sec(uint16_t machine, const char *sec, const uint8_t *data, size_t len,
		    struct usdtkit__cfi *out)
{
	static struct img m;
	Elf *e = make_elf(&m, machine, sec, 0x1000, data, len);
	int err;

	if (!e)
		return -999;
	err = usdtkit__cfi_read(e, machine, out, &quiet_log);
	elf_end(e);
	return err;
}

/* ------------------------------------------------------------------ */
/* Sections: a CIE, then FDEs of given instructions                   */
/* ------------------------------------------------------------------ */

struct sec {
	uint8_t b[8192];
	size_t len;
	size_t cie;		/* offset of the CIE */
	size_t fde;		/* offset of the first FDE */
	bool eh;
};

static void add(struct sec *s, const void *p, size_t n)
{
	if (n)
		memcpy(s->b + s->len, p, n);
	s->len += n;
}

static void add_u(struct sec *s, uint64_t v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		s->b[s->len++] = (uint8_t)(v >> (8 * i));
}

static void pad(struct sec *s, size_t start)
{
	while ((s->len - start) % 8 != 4)
		s->b[s->len++] = 0;	/* DW_CFA_nop */
}

/* Close an entry begun at @start: its length field, then nops to 8 bytes. */
static void end_entry(struct sec *s, size_t start)
{
	uint32_t len;
	size_t i;

	pad(s, start);
	len = (uint32_t)(s->len - start - 4);
	for (i = 0; i < 4; i++)
		s->b[start + i] = (uint8_t)(len >> (8 * i));
}

/* x86-64 .eh_frame CIE "zR", pcrel sdata4: CFA rsp+8, ra at c-8. */
static void eh_cie(struct sec *s, const char *aug, const uint8_t *init, size_t n)
{
	static const uint8_t x86_init[] = { 0x0c, 7, 8, 0x90, 1 };
	size_t start = s->len;

	s->eh = true;
	s->cie = start;
	add_u(s, 0, 4);
	add_u(s, 0, 4);				/* CIE id */
	add_u(s, 1, 1);				/* version */
	add(s, aug, strlen(aug) + 1);
	add_u(s, 1, 1);				/* code align */
	add_u(s, 0x78, 1);			/* data align -8 */
	add_u(s, 16, 1);			/* ra column */
	if (strchr(aug, 'R')) {
		add_u(s, 1, 1);
		add_u(s, 0x1b, 1);		/* pcrel sdata4 */
	}
	if (!init) {
		init = x86_init;
		n = sizeof(x86_init);
	}
	add(s, init, n);
	end_entry(s, start);
}

/* An FDE of [@pc, +@range); the section is at 0x1000. */
static void eh_fde(struct sec *s, uint32_t pc, uint32_t range, const uint8_t *ins, size_t n)
{
	size_t start = s->len;

	if (!s->fde)
		s->fde = start;
	add_u(s, 0, 4);
	add_u(s, s->len - s->cie, 4);		/* CIE pointer */
	add_u(s, (uint32_t)(pc - (0x1000 + s->len)), 4);
	add_u(s, range, 4);
	add_u(s, 0, 1);				/* augmentation data length */
	add(s, ins, n);
	end_entry(s, start);
}

static int read_eh(const struct sec *s, struct usdtkit__cfi *out)
{
	return read_sec(EM_X86_64, ".eh_frame", s->b, s->len, out);
}

static const struct usdtkit__cfi_row *at(const struct usdtkit__cfi *c, uint64_t pc)
{
	static const struct usdtkit__cfi_row none = { 0 };
	const struct usdtkit__cfi_row *r = usdtkit__cfi_find(c, pc);

	return r ? r : &none;
}

static bool sorted(const struct usdtkit__cfi *c)
{
	size_t i;

	for (i = 1; i < c->n; i++)
		if (c->rows[i - 1].pc >= c->rows[i].pc)
			return false;
	return true;
}

#define ROW(r, k, co, f, fo, a, ao)                                            \
	CHECK((r)->cfa == (k) && (r)->cfa_off == (co) && (r)->fp == (f) &&      \
	      (r)->fp_off == (fo) && (r)->ra == (a) && (r)->ra_off == (ao),     \
	      "pc 0x%" PRIx64 ": cfa %u%+d fp %u%+d ra %u%+d", (r)->pc,        \
	      (r)->cfa, (r)->cfa_off, (r)->fp, (r)->fp_off, (r)->ra, (r)->ra_off)

enum { SP = USDTKIT__CFA_SP, FP = USDTKIT__CFA_FP, NONE = USDTKIT__CFA_NONE,
       SAME = USDTKIT__REG_SAME, OFF = USDTKIT__REG_OFFSET };

static const uint8_t plt_expr[] = { 0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b,
				    0x2a, 0x33, 0x24, 0x22 };

/* The rules of each instruction, on a section of several FDEs. */
static void test_rules(void)
{
	/* push rbp; mov rbp,rsp; ...; leave-ish */
	static const uint8_t f1[] = { 0x41, 0x0e, 16, 0x86, 2, 0x43, 0x0d, 6, 0x50,
				      0x0c, 7, 8 };
	static const uint8_t f3[] = { 0x46, 0x0e, 16, 0x4a, 0x0f, 11, 0x77, 8, 0x80, 0,
				      0x3f, 0x1a, 0x3a, 0x2a, 0x33, 0x24, 0x22 };
	static const uint8_t f4[] = { 0x07, 16 };
	static const uint8_t f5[] = { 0x41, 0x14, 6, 2, 0x41, 0x08, 6 };
	static const uint8_t f6[] = { 0x41, 0x0e, 16, 0x0a, 0x41, 0x0e, 32, 0x86, 4,
				      0x41, 0x0b, 0x41, 0xc6, 0x02, 2, 0x03, 0, 1, 0x04,
				      0, 0, 1, 0, 0x0e, 24 };
	static const uint8_t f7[] = { 0x41, 0x0e, 8, 0x41, 0x2e, 8, 0x2f, 6, 2 };
	struct sec s = { .len = 0 };
	struct usdtkit__cfi c;
	int err;

	eh_cie(&s, "zR", NULL, 0);
	eh_fde(&s, 0x2000, 0x20, f1, sizeof(f1));
	eh_fde(&s, 0x2020, 0x10, NULL, 0);
	eh_fde(&s, 0x2010, 0x08, f1, sizeof(f1));	/* overlaps: dropped */
	eh_fde(&s, 0x3000, 0x40, plt_expr, sizeof(plt_expr));
	eh_fde(&s, 0x3100, 0x40, f3, sizeof(f3));
	eh_fde(&s, 0x4000, 0x10, f4, sizeof(f4));
	eh_fde(&s, 0x5000, 0x10, f5, sizeof(f5));
	eh_fde(&s, 0x6000, 0x20000, f6, sizeof(f6));
	eh_fde(&s, 0x0, 0x10, f4, sizeof(f4));		/* discarded: pc 0 */
	eh_fde(&s, 0x7000, 0x0, f4, sizeof(f4));	/* empty */
	eh_fde(&s, 0x30000, 0x10, f7, sizeof(f7));
	err = read_eh(&s, &c);
	CHECK(err == 0, "rules: %d", err);
	CHECK(sorted(&c), "rules: rows not sorted");
	CHECK(c.fdes == 8, "rules: %zu FDEs", c.fdes);
	CHECK(usdtkit__cfi_find(&c, 0x1fff) == NULL, "a row before the first FDE");
	ROW(at(&c, 0x2000), SP, 8, SAME, 0, OFF, -8);
	ROW(at(&c, 0x2001), SP, 16, OFF, -16, OFF, -8);
	ROW(at(&c, 0x2003), SP, 16, OFF, -16, OFF, -8);
	ROW(at(&c, 0x2004), FP, 16, OFF, -16, OFF, -8);
	ROW(at(&c, 0x2013), FP, 16, OFF, -16, OFF, -8);
	ROW(at(&c, 0x2014), SP, 8, OFF, -16, OFF, -8);
	ROW(at(&c, 0x2020), SP, 8, SAME, 0, OFF, -8);	/* the next FDE, no gap */
	CHECK(at(&c, 0x2020)->pc == 0x2020, "next FDE's row at 0x%" PRIx64,
	      at(&c, 0x2020)->pc);
	ROW(at(&c, 0x2030), NONE, 0, SAME, 0, SAME, 0);	/* past its end */
	ROW(at(&c, 0x3000), USDTKIT__CFA_PLT, 0, SAME, 0, OFF, -8);
	/* lit10 instead of lit11: another PLT layout, not taken */
	ROW(at(&c, 0x3106), SP, 16, SAME, 0, OFF, -8);
	ROW(at(&c, 0x3110), NONE, 0, SAME, 0, SAME, 0);
	CHECK(at(&c, 0x4000)->cfa == USDTKIT__CFA_END, "undefined ra: %u",
	      at(&c, 0x4000)->cfa);
	ROW(at(&c, 0x5000), SP, 8, SAME, 0, OFF, -8);
	ROW(at(&c, 0x5001), NONE, 0, SAME, 0, SAME, 0);	/* val_offset */
	ROW(at(&c, 0x5002), SP, 8, SAME, 0, OFF, -8);	/* same_value */
	CHECK(c.unsupported >= 2, "unsupported %zu", c.unsupported);
	ROW(at(&c, 0x6001), SP, 16, SAME, 0, OFF, -8);
	ROW(at(&c, 0x6002), SP, 32, OFF, -32, OFF, -8);
	ROW(at(&c, 0x6003), SP, 16, SAME, 0, OFF, -8);	/* restore_state */
	ROW(at(&c, 0x6004), SP, 16, SAME, 0, OFF, -8);	/* restore rbp */
	ROW(at(&c, 0x6005), SP, 16, SAME, 0, OFF, -8);
	ROW(at(&c, 0x6105), SP, 16, SAME, 0, OFF, -8);	/* loc1 2, loc2 256 */
	ROW(at(&c, 0x16105), SP, 16, SAME, 0, OFF, -8);
	ROW(at(&c, 0x16106), SP, 24, SAME, 0, OFF, -8);	/* loc4 65536 */
	/* def_cfa_offset 8 again: no new row; GNU_negative_offset_extended */
	CHECK(at(&c, 0x30001)->pc == 0x30000, "merged row at 0x%" PRIx64, at(&c, 0x30001)->pc);
	ROW(at(&c, 0x30002), SP, 8, OFF, 16, OFF, -8);
	usdtkit__cfi_free(&c);
}

static void dbg_cie(struct sec *s)
{
	/* v4, no augmentation, 8-byte addresses, code 4 data -8 ra x30; CFA sp */
	static const uint8_t cie[] = { 0xff, 0xff, 0xff, 0xff, 4, 0, 8, 0, 4, 0x78, 30,
				       0x0c, 31, 0 };
	size_t start = s->len;

	s->cie = start;
	add_u(s, 0, 4);
	add(s, cie, sizeof(cie));
	end_entry(s, start);
}

static void dbg_fde(struct sec *s, uint64_t pc, uint64_t range, const uint8_t *ins, size_t n)
{
	size_t start = s->len;

	add_u(s, 0, 4);
	add_u(s, s->cie, 4);
	add_u(s, pc, 8);
	add_u(s, range, 8);
	add(s, ins, n);
	end_entry(s, start);
}

/* aarch64 .debug_frame v4: leaf functions keep lr, PAC toggles. */
static void test_aarch64(void)
{
	static const uint8_t f1[] = { 0x2d, 0x41, 0x0e, 16, 0x9d, 2, 0x9e, 1, 0x41,
				      0x0c, 29, 16, 0x41, 0x2d, 0x0e, 0 };
	struct sec s = { .len = 0 };
	struct usdtkit__cfi c;
	int err;

	dbg_cie(&s);
	dbg_fde(&s, 0x10000, 0x40, f1, sizeof(f1));
	dbg_fde(&s, 0, 0x40, f1, sizeof(f1));
	dbg_fde(&s, 0x10040, 0x10, NULL, 0);
	err = read_sec(EM_AARCH64, ".debug_frame", s.b, s.len, &c);
	CHECK(err == 0 && c.fdes == 2, "aarch64: %d, %zu FDEs", err, c.fdes);
	ROW(at(&c, 0x10000), SP, 0, SAME, 0, SAME, 0);
	CHECK(at(&c, 0x10000)->flags == USDTKIT__CFI_PAC, "PAC: %u", at(&c, 0x10000)->flags);
	ROW(at(&c, 0x10004), SP, 16, OFF, -16, OFF, -8);
	ROW(at(&c, 0x10008), FP, 16, OFF, -16, OFF, -8);
	ROW(at(&c, 0x1000c), FP, 0, OFF, -16, OFF, -8);	/* def_cfa_offset on FP */
	CHECK(at(&c, 0x1000c)->cfa == USDTKIT__CFA_FP && at(&c, 0x1000c)->flags == 0,
	      "PAC off, FP+0: %u %u", at(&c, 0x1000c)->cfa, at(&c, 0x1000c)->flags);
	ROW(at(&c, 0x10040), SP, 0, SAME, 0, SAME, 0);
	CHECK(at(&c, 0x10040)->flags == 0, "second FDE: no PAC");
	usdtkit__cfi_free(&c);
	err = read_sec(EM_AARCH64 + 1, ".debug_frame", s.b, s.len, &c);
	CHECK(err == -EOPNOTSUPP, "other machine: %d", err);
}

/* ------------------------------------------------------------------ */
/* Hostile sections: an error or a skipped FDE, never a crash or hang */
/* ------------------------------------------------------------------ */

static void good_section(struct sec *s)
{
	static const uint8_t f1[] = { 0x41, 0x0e, 16, 0x86, 2, 0x43, 0x0d, 6 };

	memset(s, 0, sizeof(*s));
	eh_cie(s, "zR", NULL, 0);
	eh_fde(s, 0x2000, 0x20, f1, sizeof(f1));
	eh_fde(s, 0x2100, 0x20, f1, sizeof(f1));
}

static void test_truncated(void)
{
	struct sec s;
	struct usdtkit__cfi c;
	size_t cut, bad = 0;
	int err;

	good_section(&s);
	for (cut = 1; cut < s.len; cut++) {
		err = read_sec(EM_X86_64, ".eh_frame", s.b, cut, &c);
		CHECK(err == 0 || err == -EINVAL, "cut at %zu: %d", cut, err);
		CHECK(err || (c.fdes <= 2 && sorted(&c)), "cut at %zu: %zu FDEs", cut, c.fdes);
		bad += err == -EINVAL;
		usdtkit__cfi_free(&c);
	}
	CHECK(bad > 0, "no cut was refused");
}

static void test_lengths(void)
{
	static const uint8_t huge[] = { 0xf0, 0xff, 0xff, 0xff, 0, 0, 0, 0 };
	static const uint8_t huge64[] = { 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0,
					  0, 0, 0, 0x80, 0, 0, 0, 0 };
	static const uint8_t tiny[] = { 2, 0, 0, 0, 0, 0 };
	struct usdtkit__cfi c;
	struct sec s;
	int err;

	err = read_sec(EM_X86_64, ".eh_frame", huge, sizeof(huge), &c);
	CHECK(err == -EINVAL, "huge length: %d", err);
	err = read_sec(EM_X86_64, ".eh_frame", huge64, sizeof(huge64), &c);
	CHECK(err == -EINVAL, "huge 64-bit length: %d", err);
	err = read_sec(EM_X86_64, ".debug_frame", tiny, sizeof(tiny), &c);
	CHECK(err == -EINVAL, "length shorter than the id: %d", err);
	/* an FDE whose CIE pointer leads out of the section, then a good one */
	good_section(&s);
	s.b[s.fde + 4] = 0xff;
	s.b[s.fde + 7] = 0x7f;
	err = read_eh(&s, &c);
	CHECK(err == 0 && c.fdes == 1, "CIE pointer out: %d, %zu FDEs", err, c.fdes);
	usdtkit__cfi_free(&c);
}

/* An FDE of @n bytes of @unit repeated, in a section with a good FDE. */
static int read_repeated(const uint8_t *unit, size_t len, size_t n, struct usdtkit__cfi *c)
{
	static uint8_t ins[4000];
	static const uint8_t ok[] = { 0x41, 0x0e, 16 };
	struct sec s = { .len = 0 };
	size_t i;

	for (i = 0; i + len <= n && i + len <= sizeof(ins); i += len)
		memcpy(ins + i, unit, len);
	eh_cie(&s, "zR", NULL, 0);
	eh_fde(&s, 0x2000, 0x100, ins, i);
	eh_fde(&s, 0x3000, 0x100, ok, sizeof(ok));
	return read_eh(&s, c);
}

static void test_instructions(void)
{
	static const uint8_t adv0[] = { 0x40, 0x0e, 16, 0x40, 0x0e, 24 };
	static const uint8_t adv1[] = { 0x41, 0x0e, 16, 0x41, 0x0e, 24 };
	static const uint8_t remember[] = { 0x0a };
	static const uint8_t restore[] = { 0x0b };
	static const uint8_t back[] = { 0x41, 0x01, 0xf0, 0xff, 0xff, 0xff };
	static const uint8_t unknown[] = { 0x3f };
	static const uint8_t trunc_expr[] = { 0x0f, 0x7f };
	static const uint8_t leb[] = { 0x0e, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 };
	struct usdtkit__cfi c;
	int err;

	/* advance by 0, 4000 bytes of it: one row at the start */
	err = read_repeated(adv0, sizeof(adv0), 4000, &c);
	CHECK(err == 0 && c.fdes == 2 && c.n <= 5, "advance_loc 0 loop: %d %zu rows", err, c.n);
	usdtkit__cfi_free(&c);
	/* advancing past the FDE's end stops it */
	err = read_repeated(adv1, sizeof(adv1), 4000, &c);
	CHECK(err == 0 && c.fdes == 2 && c.n <= 0x100 + 4 && sorted(&c),
	      "advance_loc past the end: %d %zu rows", err, c.n);
	usdtkit__cfi_free(&c);
	err = read_repeated(remember, 1, 17, &c);
	CHECK(err == 0 && c.fdes == 1, "remember_state overflow: %d %zu", err, c.fdes);
	usdtkit__cfi_free(&c);
	err = read_repeated(remember, 1, 16, &c);
	CHECK(err == 0 && c.fdes == 2, "16 remember_state: %d %zu", err, c.fdes);
	usdtkit__cfi_free(&c);
	err = read_repeated(restore, 1, 1, &c);
	CHECK(err == 0 && c.fdes == 1, "restore_state underflow: %d %zu", err, c.fdes);
	usdtkit__cfi_free(&c);
	err = read_repeated(back, sizeof(back), sizeof(back), &c);
	CHECK(err == 0 && c.fdes == 1, "set_loc backwards: %d %zu", err, c.fdes);
	usdtkit__cfi_free(&c);
	err = read_repeated(unknown, 1, 1, &c);
	CHECK(err == 0 && c.fdes == 1, "unknown opcode: %d %zu", err, c.fdes);
	usdtkit__cfi_free(&c);
	err = read_repeated(trunc_expr, 2, 2, &c);
	CHECK(err == 0 && c.fdes == 1, "truncated expression: %d %zu", err, c.fdes);
	usdtkit__cfi_free(&c);
	err = read_repeated(leb, sizeof(leb), sizeof(leb), &c);
	CHECK(err == 0 && c.fdes == 2 && c.unsupported == 1, "CFA offset 2^42: %d %zu",
	      err, c.fdes);
	CHECK(at(&c, 0x2000)->cfa == NONE && at(&c, 0x3001)->cfa_off == 16,
	      "a CFA offset past 32 bits is NONE");
	usdtkit__cfi_free(&c);
}

/* Random bytes flipped in a good section: answered every time. */
static void test_mutations(void)
{
	struct sec good, s;
	struct usdtkit__cfi c;
	unsigned int seed = 1, i, j;
	size_t ok = 0;
	int err;

	good_section(&good);
	for (i = 0; i < 20000; i++) {
		s = good;
		for (j = 0; j < 1 + i % 4; j++)
			s.b[rand_r(&seed) % s.len] = (uint8_t)rand_r(&seed);
		err = read_eh(&s, &c);
		CHECK(err == 0 || err == -EINVAL, "mutation %u: %d", i, err);
		if (!err) {
			ok++;
			if (!sorted(&c) || c.n > 4 * s.len + 16)
				CHECK(0, "mutation %u: %zu rows, sorted %d", i, c.n, sorted(&c));
		}
		usdtkit__cfi_free(&c);
	}
	printf("mutations: 20000 read, %zu without error\n", ok);
}

static void test_absent(void)
{
	static const uint8_t nothing[] = { 0 };
	struct usdtkit__cfi c;
	int err = read_sec(EM_X86_64, ".eh_frame", nothing, 0, &c);

	CHECK(err == -ENOENT, "no CFI: %d", err);
	err = read_sec(EM_X86_64, ".eh_frame", nothing, 1, &c);
	CHECK(err == -EINVAL, "1 byte: %d", err);
	err = read_sec(EM_X86_64, ".eh_frame", (const uint8_t *)"\0\0\0\0", 4, &c);
	CHECK(err == 0 && c.n == 0, "only a terminator: %d", err);
	usdtkit__cfi_free(&c);
}

/* ------------------------------------------------------------------ */
/* The oracle: readelf --debug-dump=frames-interp                     */
/* ------------------------------------------------------------------ */

#define COLS 64

struct ofde {
	uint64_t begin, end;
	int sec;		/* 0 .eh_frame, 1 .debug_frame */
	size_t order;
	bool signal;		/* its CIE has 'S' */
	long first, nrows;	/* its rows in the row array */
};

struct orow {
	uint64_t loc;
	char cfa[32], fp[32], ra[32];
};

struct oracle {
	struct ofde *fdes;
	size_t nfdes, cap_f;
	struct orow *rows;
	size_t nrows, cap_r;
	int fp_col, ra_col;	/* columns of the table being read, -1: none */
	uint64_t signal_cies[64];
	size_t nsignal;
	const char *fp_name;
};

static void *grow_array(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 1024;
	p = realloc(p, *cap * size);
	if (!p)
		abort();
	return p;
}

static void fde_line(struct oracle *o, const char *line, int sec)
{
	unsigned long long b, e, cie;
	const char *pc = strstr(line, "pc="), *ci = strstr(line, "cie=");
	struct ofde *f;
	size_t i;

	if (!pc || !ci || sscanf(pc, "pc=%llx..%llx", &b, &e) != 2 ||
	    sscanf(ci, "cie=%llx", &cie) != 1)
		return;
	o->fdes = grow_array(o->fdes, &o->cap_f, o->nfdes, sizeof(*o->fdes));
	f = &o->fdes[o->nfdes];
	*f = (struct ofde){ b, e, sec, o->nfdes, false, (long)o->nrows, 0 };
	for (i = 0; i < o->nsignal; i++)
		f->signal |= o->signal_cies[i] == cie;
	o->nfdes++;
	o->fp_col = o->ra_col = -1;
}

/* "   LOC           CFA      rbx   rbp   ra" */
static void header_line(struct oracle *o, char *line)
{
	char *tok, *save;
	int col = 0;

	o->fp_col = o->ra_col = -1;
	for (tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save), col++) {
		if (!strcmp(tok, o->fp_name))
			o->fp_col = col;
		else if (!strcmp(tok, "ra"))
			o->ra_col = col;
	}
}

static void row_line(struct oracle *o, char *line)
{
	struct ofde *f = o->nfdes ? &o->fdes[o->nfdes - 1] : NULL;
	char *tok, *save, *cols[COLS];
	struct orow *r;
	int n = 0;

	if (!f)
		return;
	/* a register rule is "r10 (r10)": one column of two words */
	for (tok = strtok_r(line, " \t\n", &save); tok && n < COLS; tok = strtok_r(NULL, " \t\n", &save))
		if (tok[0] != '(')
			cols[n++] = tok;
	if (n < 2)
		return;
	o->rows = grow_array(o->rows, &o->cap_r, o->nrows, sizeof(*o->rows));
	r = &o->rows[o->nrows++];
	f->nrows++;
	r->loc = strtoull(cols[0], NULL, 16);
	snprintf(r->cfa, sizeof(r->cfa), "%s", cols[1]);
	snprintf(r->fp, sizeof(r->fp), "%s", o->fp_col > 0 && o->fp_col < n ? cols[o->fp_col] : "");
	snprintf(r->ra, sizeof(r->ra), "%s", o->ra_col > 0 && o->ra_col < n ? cols[o->ra_col] : "");
}

static void cie_line(struct oracle *o, const char *line)
{
	const char *q = strchr(line, '"');
	const char *q2 = q ? strchr(q + 1, '"') : NULL;

	/* a CIE's own table is not compared */
	if (q2 && memchr(q, 'S', (size_t)(q2 - q)) && o->nsignal < 64)
		o->signal_cies[o->nsignal++] = strtoull(line, NULL, 16);
}

static int run_readelf(struct oracle *o, const char *path)
{
	char cmd[4200], line[4096];
	int sec = -1;
	bool in_fde = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -W --debug-dump=frames-interp '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return -errno;
	while (fgets(line, sizeof(line), p)) {
		if (strstr(line, "Contents of the .eh_frame section"))
			sec = 0, o->nsignal = 0;
		else if (strstr(line, "Contents of the .debug_frame section"))
			sec = 1, o->nsignal = 0;
		else if (strstr(line, " FDE cie=") && sec >= 0)
			fde_line(o, line, sec), in_fde = true;
		else if (strstr(line, " CIE") || strstr(line, "ZERO terminator"))
			cie_line(o, line), in_fde = false;
		else if (in_fde && strstr(line, "LOC") && strstr(line, "CFA"))
			header_line(o, line);
		else if (in_fde && line[0] && strchr("0123456789abcdef", line[0]))
			row_line(o, line);
	}
	/* readelf exits 1 on warnings of its own (libc's): its rows still count */
	return WIFEXITED(pclose(p)) ? 0 : -EIO;
}

static int by_begin(const void *a, const void *b)
{
	const struct ofde *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->sec != y->sec)
		return x->sec - y->sec;
	return x->order < y->order ? -1 : x->order > y->order;
}

struct tally {
	size_t rows, same, unsupported, mismatch;
};

/* "rsp+8" -> register name and offset */
static bool reg_plus(const char *s, char *reg, size_t len, long *off)
{
	const char *sign = strpbrk(s, "+-");

	if (!sign || (size_t)(sign - s) >= len)
		return false;
	memcpy(reg, s, (size_t)(sign - s));
	reg[sign - s] = 0;
	*off = strtol(sign, NULL, 10);
	return true;
}

/* readelf's rule of a register against a row's: 1 same, 0 differs, -1 not representable */
static int rule_cmp(const char *want, uint8_t rule, int32_t off, bool ra, uint8_t cfa)
{
	if (!*want || !strcmp(want, "s"))
		return rule == USDTKIT__REG_SAME;
	if (!strcmp(want, "u"))
		return rule == USDTKIT__REG_SAME || rule == USDTKIT__REG_UNDEF ||
		       (ra && cfa == USDTKIT__CFA_END);
	if (want[0] == 'c' && (want[1] == '+' || want[1] == '-'))
		return rule == USDTKIT__REG_OFFSET && off == strtol(want + 1, NULL, 10);
	return -1;
}

static int cfa_cmp(const char *want, const struct usdtkit__cfi_row *r, const char *sp,
		   const char *fp)
{
	char reg[16];
	long off;

	if (!strcmp(want, "exp"))
		return r->cfa == USDTKIT__CFA_PLT ? 1 : -1;
	if (!reg_plus(want, reg, sizeof(reg), &off))
		return -1;
	if (!strcmp(reg, sp))
		return r->cfa == USDTKIT__CFA_SP && r->cfa_off == off;
	if (!strcmp(reg, fp))
		return r->cfa == USDTKIT__CFA_FP && r->cfa_off == off;
	return -1;
}

static void compare_row(const struct orow *w, const struct ofde *f, const struct usdtkit__cfi *c,
			bool x86, struct tally *t)
{
	const struct usdtkit__cfi_row *r = usdtkit__cfi_find(c, w->loc);
	const char *sp = x86 ? "rsp" : "sp", *fp = x86 ? "rbp" : "x29";
	int cfa, fpr, rar;

	t->rows++;
	if (!r) {
		t->mismatch++;
		fprintf(stderr, "  0x%" PRIx64 ": no row\n", w->loc);
		return;
	}
	cfa = r->cfa == USDTKIT__CFA_END ? 1 : cfa_cmp(w->cfa, r, sp, fp);
	fpr = r->cfa == USDTKIT__CFA_END ? 1 : rule_cmp(w->fp, r->fp, r->fp_off, false, r->cfa);
	rar = rule_cmp(w->ra, r->ra, r->ra_off, true, r->cfa);
	if (r->cfa == USDTKIT__CFA_END && strcmp(w->ra, "u"))
		rar = 0;
	if (r->cfa == USDTKIT__CFA_NONE && (cfa < 0 || fpr < 0 || rar < 0)) {
		t->unsupported++;
		return;
	}
	if (cfa == 1 && fpr == 1 && rar == 1 && r->cfa != USDTKIT__CFA_NONE &&
	    !!(r->flags & USDTKIT__CFI_SIGNAL) == f->signal) {
		t->same++;
		return;
	}
	if (t->mismatch++ < 20)
		fprintf(stderr, "  0x%" PRIx64 ": readelf %s %s=%s ra=%s, usdtkit cfa %u%+d fp %u%+d "
			"ra %u%+d flags %u (row at 0x%" PRIx64 ")\n", w->loc, w->cfa, fp, w->fp,
			w->ra, r->cfa, r->cfa_off, r->fp, r->fp_off, r->ra, r->ra_off, r->flags, r->pc);
}

/* The FDEs usdtkit keeps: by pc, .eh_frame first, none overlapping. */
static void compare_fdes(struct oracle *o, const struct usdtkit__cfi *c, bool x86,
			 struct tally *t)
{
	uint64_t covered = 0;
	size_t i;
	long j;

	qsort(o->fdes, o->nfdes, sizeof(*o->fdes), by_begin);
	for (i = 0; i < o->nfdes; i++) {
		const struct ofde *f = &o->fdes[i];

		if (!f->begin || f->end <= f->begin || f->begin < covered)
			continue;
		covered = f->end;
		for (j = f->first; j < f->first + f->nrows; j++) {
			const struct orow *w = &o->rows[j];

			/* a row moved past by an advance of 0, or out of range */
			if ((j + 1 < f->first + f->nrows && o->rows[j + 1].loc == w->loc) ||
			    w->loc >= f->end)
				continue;
			compare_row(w, f, c, x86, t);
		}
	}
}

static int read_file(const char *path, struct usdtkit__cfi *c, unsigned int *machine)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	GElf_Ehdr eh;
	Elf *e;

	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || !gelf_getehdr(e, &eh)) {
		err = -ENOEXEC;
	} else {
		*machine = eh.e_machine;
		err = usdtkit__cfi_read(e, eh.e_machine, c, NULL);
	}
	elf_end(e);
	close(fd);
	return err;
}

static void oracle(const char *path)
{
	bool optional = path[0] == '?';
	struct oracle o = { .fp_col = -1, .ra_col = -1 };
	struct usdtkit__cfi c;
	struct tally t = { 0 };
	unsigned int machine = 0;
	int err;

	path += optional;
	if (optional && access(path, R_OK)) {
		printf("oracle %s: absent, skipped\n", path);
		return;
	}
	err = read_file(path, &c, &machine);
	CHECK(err == 0, "oracle %s: usdtkit__cfi_read: %d", path, err);
	if (err)
		return;
	o.fp_name = machine == EM_X86_64 ? "rbp" : "x29";
	err = run_readelf(&o, path);
	CHECK(err == 0 && o.nrows > 0, "oracle %s: readelf: %d, %zu rows", path, err, o.nrows);
	compare_fdes(&o, &c, machine == EM_X86_64, &t);
	printf("oracle %s: %zu FDEs, %zu rows (%zu unsupported); readelf %zu FDEs: "
	       "%zu rows compared, %zu equal, %zu NONE for a rule a row cannot hold, "
	       "%zu mismatches\n", path, c.fdes, c.n, c.unsupported, o.nfdes, t.rows,
	       t.same, t.unsupported, t.mismatch);
	CHECK(t.mismatch == 0, "oracle %s: %zu mismatches", path, t.mismatch);
	CHECK(t.rows > 0, "oracle %s: nothing compared", path);
	free(o.fdes);
	free(o.rows);
	usdtkit__cfi_free(&c);
}

int main(int argc, char **argv)
{
	int i;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 1;
	if (argc > 1 && !strcmp(argv[1], "--oracle")) {
		for (i = 2; i < argc; i++)
			oracle(argv[i]);
		return check_done();
	}
	test_rules();
	test_aarch64();
	test_absent();
	test_lengths();
	test_truncated();
	test_instructions();
	test_mutations();
	return check_done();
}
