// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The CFI reader (cfi.h): the entries of .eh_frame and .debug_frame,
 * their CIEs and FDEs, then the FDEs in pc order through the
 * interpreter of cfi_insn.c into one sorted table.
 *
 * The two sections differ in small ways: .eh_frame marks a CIE with id
 * 0 and points from an FDE back to its CIE relative to the pointer's
 * own place, encodes addresses as the CIE's 'R' augmentation says and
 * ends at a zero length; .debug_frame marks a CIE with all ones, points
 * from the section start and holds plain addresses. A malformed entry
 * header stops the read (nothing after it can be found); a bad CIE or
 * FDE only loses that FDE.
 */
#include <errno.h>
#include <gelf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/u64_index.h"
#include "elf/cfi_int.h"

/*
 * An FDE read, kept until all are sorted by pc: of FDEs that overlap
 * (.debug_frame copies of .eh_frame's, or a broken file) the first by
 * pc, then .eh_frame before .debug_frame, then section order, wins.
 */
struct fde_rec {
	struct usdtkit__cfi_fde fde;
	struct usdtkit__cfi_cie cie;
	size_t order;
	const char *sec;
	size_t off;
};

/* One CFI section, as the reader walks it. */
struct section {
	const char *name;
	const uint8_t *data;
	size_t size;
	bool eh;
	struct usdtkit__cfi_bases bases;
};

struct reader {
	const struct usdtkit_log *lg;
	struct usdtkit__cfi_arch arch;
	bool be;
	uint8_t addr_size;
	struct fde_rec *fdes;
	size_t nfdes, cap;
	size_t bad;			/* FDEs skipped as malformed */
	const struct section *sec;	/* being walked */
	struct usdtkit__cfi_cie cie;	/* the last CIE read, at cie_off */
	size_t cie_off;
	bool have_cie;
};

/* An entry: the CIE id / CIE pointer field and the bytes after it. */
struct entry {
	size_t off;		/* of its length field */
	const uint8_t *id_at, *body, *end;
	uint64_t id;
	bool dwarf64;
};

static void bad_fde(struct reader *r, const char *sec, size_t off, const char *why)
{
	/* the first says where; a hostile file would repeat it endlessly */
	if (!r->bad++)
		usdtkit__warn(r->lg, "%s at byte offset %zu: %s, FDE skipped",
			      sec, off, why);
}

/* The entry at @off: 0, 1 at the end (.eh_frame's zero terminator), -EINVAL. */
static int entry_at(const struct reader *r, const struct section *s, size_t off,
		    struct entry *e)
{
	struct usdtkit__cfi_cur c = { s->data + off, s->data + s->size, r->be, false };
	uint64_t len = usdtkit__cfi_uint(&c, 4);

	e->off = off;
	e->dwarf64 = len == 0xffffffffu;
	if (e->dwarf64)
		len = usdtkit__cfi_uint(&c, 8);
	if (c.bad)
		return -EINVAL;
	if (len == 0 && s->eh)
		return 1;
	if (len > usdtkit__cfi_left(&c) || len < (e->dwarf64 ? 8u : 4u))
		return -EINVAL;
	e->id_at = c.p;
	e->end = c.p + len;
	e->id = usdtkit__cfi_uint(&c, e->dwarf64 ? 8 : 4);
	e->body = c.p;
	return 0;
}

static bool is_cie(const struct section *s, const struct entry *e)
{
	if (s->eh)
		return e->id == 0;
	return e->id == (e->dwarf64 ? UINT64_MAX : 0xffffffffu);
}

/* The 'z' augmentation data: what it says of FDEs; NULL or the reason. */
static const char *cie_augmentation(struct usdtkit__cfi_cur *c, const char *aug,
				    struct usdtkit__cfi_cie *cie)
{
	uint64_t len = usdtkit__cfi_uleb(c), skipped;
	struct usdtkit__cfi_cur d = { c->p, c->p, c->be, false };

	usdtkit__cfi_skip(c, len);
	if (c->bad)
		return "augmentation data past the end of the CIE";
	d.end = c->p;
	for (aug++; *aug; aug++) {
		switch (*aug) {
		case 'R':
			cie->fde_enc = (uint8_t)usdtkit__cfi_uint(&d, 1);
			break;
		case 'P':
			/* the personality routine: only its bytes are passed over */
			if (usdtkit__cfi_pointer(&d, (uint8_t)usdtkit__cfi_uint(&d, 1),
						 cie->addr_size, NULL, &skipped))
				return "bad personality pointer";
			break;
		case 'L':
			usdtkit__cfi_uint(&d, 1);	/* the LSDA is in the FDE's own data */
			break;
		case 'S':
			cie->signal = true;
			break;
		case 'B':	/* aarch64 B key: nothing the walker authenticates */
			break;
		default:
			return "unknown augmentation";
		}
	}
	return d.bad ? "augmentation data too short" : NULL;
}

/* Version 4 (.debug_frame only) names the address size. */
static const char *cie_version(const struct reader *r, struct usdtkit__cfi_cur *c,
			       uint8_t version, struct usdtkit__cfi_cie *cie)
{
	if (version != 1 && version != 3 && (r->sec->eh || version != 4))
		return "unsupported CIE version";
	cie->addr_size = r->addr_size;
	if (version != 4)
		return NULL;
	cie->addr_size = (uint8_t)usdtkit__cfi_uint(c, 1);
	if (usdtkit__cfi_uint(c, 1) != 0)
		return "segmented addresses";
	if (cie->addr_size != 4 && cie->addr_size != 8)
		return "bad address size";
	return NULL;
}

static const char *cie_parse(const struct reader *r, const struct entry *e,
			     struct usdtkit__cfi_cie *cie)
{
	struct usdtkit__cfi_cur c = { e->body, e->end, r->be, false };
	uint8_t version = (uint8_t)usdtkit__cfi_uint(&c, 1);
	const uint8_t *nul = c.bad ? NULL : memchr(c.p, 0, usdtkit__cfi_left(&c));
	const char *aug = (const char *)c.p, *why;

	memset(cie, 0, sizeof(*cie));
	if (!nul)
		return "unterminated augmentation";
	/* "eh" (gcc 2) and vendor strings without 'z' cannot be skipped */
	if (*aug && *aug != 'z')
		return "unsupported augmentation";
	c.p = nul + 1;
	why = cie_version(r, &c, version, cie);
	if (why)
		return why;
	cie->code_align = usdtkit__cfi_uleb(&c);
	cie->data_align = usdtkit__cfi_sleb(&c);
	cie->ra_col = version == 1 ? usdtkit__cfi_uint(&c, 1) : usdtkit__cfi_uleb(&c);
	cie->aug_z = *aug == 'z';
	if (cie->aug_z) {
		why = cie_augmentation(&c, aug, cie);
		if (why)
			return why;
	}
	if (c.bad)
		return "CIE too short";
	cie->insns = c.p;
	cie->insns_end = e->end;
	switch (usdtkit__cfi_cie_init(cie, &r->arch, r->be)) {
	case 0:
		return NULL;
	case -ENOMEM:
		return "out of memory";
	}
	return "bad initial instructions";
}

/* The CIE an FDE points to, the last one read kept: they come in runs. */
static const char *fde_cie(struct reader *r, const struct entry *e)
{
	const struct section *s = r->sec;
	uint64_t off = e->id;
	struct entry ce;
	const char *why;

	if (s->eh) {
		size_t at = (size_t)(e->id_at - s->data);

		if (e->id > at)
			return "CIE pointer before the section";
		off = at - e->id;
	}
	if (r->have_cie && r->cie_off == off)
		return NULL;
	r->have_cie = false;
	if (off >= s->size || entry_at(r, s, (size_t)off, &ce) || !is_cie(s, &ce))
		return "CIE pointer to no CIE";
	why = cie_parse(r, &ce, &r->cie);
	if (why)
		return why;
	r->cie_off = (size_t)off;
	r->have_cie = true;
	return NULL;
}

static int push_fde(struct reader *r, const struct fde_rec *f)
{
	if (r->nfdes == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;
		struct fde_rec *n = realloc(r->fdes, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->fdes = n;
		r->cap = cap;
	}
	r->fdes[r->nfdes++] = *f;
	return 0;
}

/* Range and instructions of an FDE; NULL, "" (nothing to keep), or the reason. */
static const char *fde_parse(struct reader *r, const struct entry *e, struct fde_rec *f)
{
	const struct usdtkit__cfi_cie *cie = &r->cie;
	struct usdtkit__cfi_cur c = { e->body, e->end, r->be, false };
	uint64_t begin, range;

	if (usdtkit__cfi_pointer(&c, cie->fde_enc, cie->addr_size, &r->sec->bases, &begin) ||
	    usdtkit__cfi_pointer(&c, cie->fde_enc & 0x0f, cie->addr_size, NULL, &range))
		return "unsupported or truncated pc range";
	if (cie->aug_z)
		usdtkit__cfi_skip(&c, usdtkit__cfi_uleb(&c));
	if (c.bad)
		return "FDE too short";
	/* address 0: a function the linker discarded (.debug_frame) */
	if (!begin || !range)
		return "";
	if (begin + range < begin)
		return "pc range wraps";
	f->cie = *cie;
	f->fde = (struct usdtkit__cfi_fde){
		.arch = &r->arch, .bases = &r->sec->bases,
		.begin = begin, .end = begin + range,
		.insns = c.p, .insns_end = e->end, .be = r->be,
	};
	f->sec = r->sec->name;
	f->off = e->off;
	f->order = r->nfdes;
	return NULL;
}

static int read_fde(struct reader *r, const struct entry *e)
{
	struct fde_rec f;
	const char *why = fde_cie(r, e);

	if (!why)
		why = fde_parse(r, e, &f);
	if (!why)
		return push_fde(r, &f);
	if (*why)
		bad_fde(r, r->sec->name, e->off, why);
	return 0;
}

static int read_section(struct reader *r, const struct section *s)
{
	size_t off = 0;
	struct entry e;
	int err;

	r->sec = s;
	r->have_cie = false;
	while (off < s->size) {
		err = entry_at(r, s, off, &e);
		if (err == 1)
			break;
		if (err) {
			usdtkit__warn(r->lg, "%s at byte offset %zu: entry header past "
				      "the end of the section (%zu bytes)", s->name, off, s->size);
			return -EINVAL;
		}
		if (!is_cie(s, &e)) {
			err = read_fde(r, &e);
			if (err)
				return err;
		}
		off = (size_t)(e.end - s->data);
	}
	return 0;
}

static int by_pc(const void *a, const void *b)
{
	const struct fde_rec *x = a, *y = b;

	if (x->fde.begin != y->fde.begin)
		return x->fde.begin < y->fde.begin ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* One FDE's rows, then a NONE row at its end that the next FDE may
 * replace: 0, 1 (the FDE was skipped), -ENOMEM, -E2BIG. */
static int compile_fde(struct reader *r, struct fde_rec *f, struct usdtkit__cfi_table *t)
{
	struct usdtkit__cfi *o = t->out;
	struct usdtkit__cfi_row last, end = { .pc = f->fde.end };
	size_t n = o->n;
	int err;

	if (n)
		last = o->rows[n - 1];
	f->fde.cie = &f->cie;
	err = usdtkit__cfi_run(&f->fde, t);
	if (!err)
		err = usdtkit__cfi_append(t, &end);
	if (err == -EINVAL) {
		/* only this FDE is lost: the table is as it was before it */
		o->n = n;
		if (n)
			o->rows[n - 1] = last;
		bad_fde(r, f->sec, f->off, "bad instructions");
		return 1;
	}
	if (!err)
		o->fdes++;
	return err;
}

static int compile(struct reader *r, struct usdtkit__cfi *out, size_t bytes)
{
	struct usdtkit__cfi_table t = { .out = out, .max = 4 * bytes + 16 };
	uint64_t covered = 0;
	size_t i;
	int err;

	if (r->nfdes)
		qsort(r->fdes, r->nfdes, sizeof(*r->fdes), by_pc);
	for (i = 0; i < r->nfdes; i++) {
		if (r->fdes[i].fde.begin < covered)
			continue;
		err = compile_fde(r, &r->fdes[i], &t);
		if (err == -E2BIG) {
			usdtkit__warn(r->lg, "%s at byte offset %zu: more rows than "
				      "%zu, the bound of the sections' size",
				      r->fdes[i].sec, r->fdes[i].off, t.max);
			return -EINVAL;
		}
		if (err < 0)
			return err;
		if (!err)
			covered = r->fdes[i].fde.end;
	}
	return 0;
}

static const struct usdtkit__cfi_arch *arch_of(unsigned int machine)
{
	static const struct usdtkit__cfi_arch x86_64 = { EM_X86_64, 7, 6 };
	static const struct usdtkit__cfi_arch aarch64 = { EM_AARCH64, 31, 29 };

	if (machine == EM_X86_64)
		return &x86_64;
	if (machine == EM_AARCH64)
		return &aarch64;
	return NULL;
}

/* The bytes of a section with contents in this file (not SHT_NOBITS). */
static int section_bytes(Elf_Scn *scn, const GElf_Shdr *sh, struct section *s)
{
	Elf_Data *d;

	/* a compressed .debug_frame (debug files) is not inflated here: absent */
	if (sh->sh_type == SHT_NOBITS || !sh->sh_size || (sh->sh_flags & SHF_COMPRESSED))
		return -ENOENT;
	d = elf_getdata(scn, NULL);
	if (!d || (d->d_size && !d->d_buf) || d->d_size != sh->sh_size)
		return -EINVAL;
	s->data = d->d_buf;
	s->size = d->d_size;
	s->bases.sec = s->data;
	s->bases.sec_addr = sh->sh_addr;
	return 0;
}

/* .eh_frame, .debug_frame, and the bases their pointers may be relative to. */
static int find_sections(Elf *elf, struct section sec[2], const struct usdtkit_log *lg)
{
	struct usdtkit__cfi_bases b = { 0 };
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t stridx;
	int i, err;

	if (elf_getshdrstrndx(elf, &stridx))
		return -EINVAL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name = gelf_getshdr(scn, &sh) ?
				   elf_strptr(elf, stridx, sh.sh_name) : NULL;

		if (!name)
			continue;
		if (!strcmp(name, ".text")) {
			b.text = sh.sh_addr;
			b.have_text = true;
		} else if (!strcmp(name, ".got")) {
			b.data = sh.sh_addr;
			b.have_data = true;
		}
		i = !strcmp(name, ".eh_frame") ? 0 : !strcmp(name, ".debug_frame") ? 1 : -1;
		if (i < 0 || sec[i].data)
			continue;
		err = section_bytes(scn, &sh, &sec[i]);
		if (err == -EINVAL) {
			usdtkit__warn(lg, "%s: unreadable section", name);
			return err;
		}
	}
	for (i = 0; i < 2; i++) {
		sec[i].bases.text = b.text;
		sec[i].bases.have_text = b.have_text;
		sec[i].bases.data = b.data;
		sec[i].bases.have_data = b.have_data;
	}
	return sec[0].data || sec[1].data ? 0 : -ENOENT;
}

static int read_all(struct reader *r, Elf *elf, struct usdtkit__cfi *out)
{
	struct section sec[2] = {
		{ .name = ".eh_frame", .eh = true },
		{ .name = ".debug_frame" },
	};
	size_t bytes = 0;
	int i, err;

	err = find_sections(elf, sec, r->lg);
	for (i = 0; !err && i < 2; i++) {
		if (sec[i].data)
			err = read_section(r, &sec[i]);
		bytes += sec[i].size;
	}
	if (!err)
		err = compile(r, out, bytes);
	if (!err && r->bad)
		usdtkit__warn(r->lg, "%zu FDEs skipped as malformed", r->bad);
	return err;
}

int usdtkit__cfi_read(Elf *elf, unsigned int e_machine, struct usdtkit__cfi *out,
		      const struct usdtkit_log *log)
{
	const struct usdtkit__cfi_arch *arch = arch_of(e_machine);
	struct reader r = { .lg = log };
	GElf_Ehdr eh;
	int err;

	memset(out, 0, sizeof(*out));
	if (!arch)
		return -EOPNOTSUPP;
	if (!gelf_getehdr(elf, &eh))
		return -EINVAL;
	r.arch = *arch;
	r.be = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	r.addr_size = eh.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	err = read_all(&r, elf, out);
	free(r.fdes);
	if (err)
		usdtkit__cfi_free(out);
	return err;
}

void usdtkit__cfi_free(struct usdtkit__cfi *c)
{
	free(c->rows);
	memset(c, 0, sizeof(*c));
}

const struct usdtkit__cfi_row *usdtkit__cfi_find(const struct usdtkit__cfi *c, uint64_t pc)
{
	/* the first row past @pc, then the one before it */
	size_t i = usdtkit__u64_above(c->rows, c->n, sizeof(*c->rows),
				      offsetof(struct usdtkit__cfi_row, pc), pc);

	return i ? &c->rows[i - 1] : NULL;
}
