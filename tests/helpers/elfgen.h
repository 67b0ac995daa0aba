/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * elfgen: build small ELF images in memory, so tests of the ELF core need
 * no committed binaries and no cross toolchain. Any class (ELF32/ELF64),
 * byte order and e_machine; the layout is fixed and simple:
 *
 *   0x000  ELF header, then two program headers
 *   0x100  .text (R+X PT_LOAD from offset 0), then .stapsdt.base (1 byte)
 *   ...    .probes (R+W PT_LOAD, mapped 64 KiB above its file offset)
 *   ...    .note.stapsdt, .symtab, .strtab, .shstrtab, section headers
 *
 * Addresses only depend on the identity and text/data sizes, so notes that
 * point into the image can be built (eg_layout()) before the image itself.
 * Headers are written field by field in the target byte order, never via
 * host structs; eg_patch*() corrupt one field of a built image afterwards.
 * Header-only, for one test program per file.
 */
#ifndef USDTKIT_TESTS_ELFGEN_H
#define USDTKIT_TESTS_ELFGEN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EG_ELFCLASS32	1
#define EG_ELFCLASS64	2
#define EG_LSB		1
#define EG_MSB		2

#define EG_ET_REL	1
#define EG_ET_EXEC	2
#define EG_ET_DYN	3

#define EG_EM_386	3
#define EG_EM_MIPS	8
#define EG_EM_VAX	75	/* a machine with no backend */
#define EG_EM_PPC64	21
#define EG_EM_S390	22
#define EG_EM_ARM	40
#define EG_EM_X86_64	62
#define EG_EM_AARCH64	183
#define EG_EM_RISCV	243

#define EG_SHT_PROGBITS	1
#define EG_SHT_SYMTAB	2
#define EG_SHT_STRTAB	3
#define EG_SHT_NOTE	7

#define EG_TEXT_OFF	0x100	/* file offset of .text in every image */
#define EG_DATA_SHIFT	0x10000	/* R+W segment: vaddr - offset - vaddr0 */

/* ------------------------------------------------------------------ */
/* Byte buffers                                                       */
/* ------------------------------------------------------------------ */

struct eg_buf {
	uint8_t *p;
	size_t len, cap;
};

static inline void eg_reserve(struct eg_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;

	if (b->len + n <= b->cap)
		return;
	while (cap < b->len + n)
		cap *= 2;
	b->p = realloc(b->p, cap);
	if (!b->p) {
		fprintf(stderr, "elfgen: out of memory\n");
		abort();
	}
	b->cap = cap;
}

static inline void eg_put(struct eg_buf *b, const void *d, size_t n)
{
	eg_reserve(b, n);
	if (n)
		memcpy(b->p + b->len, d, n);
	b->len += n;
}

static inline void eg_zero(struct eg_buf *b, size_t n)
{
	eg_reserve(b, n);
	memset(b->p + b->len, 0, n);
	b->len += n;
}

static inline void eg_str(struct eg_buf *b, const char *s)
{
	eg_put(b, s, strlen(s) + 1);
}

static inline void eg_align(struct eg_buf *b, size_t a)
{
	eg_zero(b, (a - b->len % a) % a);
}

static inline void eg_set_uint(uint8_t *p, uint64_t v, size_t n, bool be)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[be ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t eg_get_uint(const uint8_t *p, size_t n, bool be)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v = (v << 8) | p[be ? i : n - 1 - i];
	return v;
}

static inline void eg_uint(struct eg_buf *b, uint64_t v, size_t n, bool be)
{
	eg_reserve(b, n);
	eg_set_uint(b->p + b->len, v, n, be);
	b->len += n;
}

static inline void eg_free(struct eg_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* ------------------------------------------------------------------ */
/* Notes                                                              */
/* ------------------------------------------------------------------ */

/*
 * Append one note whose header says @namesz, @descsz and @type, followed
 * by @name_bytes bytes of @name and @desc_bytes bytes of @desc, each padded
 * to 4. The header may lie about the sizes: that is the point.
 */
static inline void eg_note_raw(struct eg_buf *b, bool be, uint32_t namesz,
			       uint32_t descsz, uint32_t type,
			       const void *name, size_t name_bytes,
			       const void *desc, size_t desc_bytes)
{
	eg_uint(b, namesz, 4, be);
	eg_uint(b, descsz, 4, be);
	eg_uint(b, type, 4, be);
	eg_put(b, name, name_bytes);
	eg_align(b, 4);
	eg_put(b, desc, desc_bytes);
	eg_align(b, 4);
}

/* The descriptor of a stapsdt note: pc, base, semaphore, three strings. */
static inline void eg_stapsdt_desc(struct eg_buf *d, bool is64, bool be,
				   uint64_t pc, uint64_t base, uint64_t sema,
				   const char *provider, const char *name,
				   const char *args)
{
	size_t asz = is64 ? 8 : 4;

	eg_uint(d, pc, asz, be);
	eg_uint(d, base, asz, be);
	eg_uint(d, sema, asz, be);
	eg_str(d, provider);
	eg_str(d, name);
	eg_str(d, args);
}

/* A well-formed stapsdt note, as GCC and sys/sdt.h emit it. */
static inline void eg_stapsdt(struct eg_buf *b, bool is64, bool be,
			      uint64_t pc, uint64_t base, uint64_t sema,
			      const char *provider, const char *name,
			      const char *args)
{
	struct eg_buf d = { 0 };

	eg_stapsdt_desc(&d, is64, be, pc, base, sema, provider, name, args);
	eg_note_raw(b, be, 8, (uint32_t)d.len, 3, "stapsdt", 8, d.p, d.len);
	eg_free(&d);
}

/* ------------------------------------------------------------------ */
/* Images                                                             */
/* ------------------------------------------------------------------ */

struct eg_sym {
	const char *name;
	uint64_t value;
	uint64_t size;
	uint8_t info;		/* 0: STB_GLOBAL, STT_OBJECT */
	uint16_t shndx;		/* 0: the section holding @value */
	uint32_t st_name;	/* 0: index of @name; else written as is */
};

#define EG_MAX_SECTIONS 10

struct eg_elf {
	/* inputs: identity */
	uint8_t cls;		/* EG_ELFCLASS32 / EG_ELFCLASS64 */
	uint8_t data;		/* EG_LSB / EG_MSB */
	uint16_t machine;
	uint16_t type;		/* 0: ET_DYN */
	uint64_t vaddr;		/* address of file offset 0 */
	/* inputs: contents */
	const void *text;	/* NULL: zeros */
	size_t text_size;	/* 0: 64 */
	size_t data_size;	/* .probes, zeros; 0: 64 */
	bool base_scn;		/* emit .stapsdt.base */
	bool no_phdrs;		/* like ET_REL: no program headers */
	bool no_notes;		/* no .note.stapsdt at all */
	const void *notes;	/* raw .note.stapsdt contents */
	size_t notes_size;
	uint32_t notes_type;	/* 0: SHT_NOTE */
	const struct eg_sym *syms;	/* NULL: no .symtab/.strtab */
	size_t nsyms;

	/* outputs of eg_layout() */
	size_t ehsize, phentsize, shentsize, symentsize, asz;
	uint64_t text_off, text_addr;
	uint64_t base_off, base_addr;	/* .stapsdt.base */
	uint64_t text_end;		/* end of the R+X segment */
	uint64_t data_off, data_addr;
	/* outputs of eg_build() */
	uint64_t notes_off, shoff;
	int nsec;
	int sec_text, sec_base, sec_data, sec_notes, sec_symtab, sec_strtab,
	    sec_shstrtab;		/* -1 when absent */
	uint64_t shdr_off[EG_MAX_SECTIONS];
};

static inline bool eg_be(const struct eg_elf *e)
{
	return e->data == EG_MSB;
}

static inline bool eg_is64(const struct eg_elf *e)
{
	return e->cls == EG_ELFCLASS64;
}

static inline uint64_t eg_round(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* Fill in defaults and the addresses; idempotent. */
static inline void eg_layout(struct eg_elf *e)
{
	bool is64 = eg_is64(e);

	if (!e->type)
		e->type = EG_ET_DYN;
	if (!e->text_size)
		e->text_size = 64;
	if (!e->data_size)
		e->data_size = 64;
	e->ehsize = is64 ? 64 : 52;
	e->phentsize = is64 ? 56 : 32;
	e->shentsize = is64 ? 64 : 40;
	e->symentsize = is64 ? 24 : 16;
	e->asz = is64 ? 8 : 4;
	e->text_off = EG_TEXT_OFF;
	e->text_addr = e->vaddr + e->text_off;
	e->base_off = e->text_off + e->text_size;
	e->base_addr = e->vaddr + e->base_off;
	e->text_end = e->base_off + (e->base_scn ? 1 : 0);
	e->data_off = eg_round(e->text_end, 0x100);
	e->data_addr = e->vaddr + EG_DATA_SHIFT + e->data_off;
}

struct eg_shdr {
	const char *name;
	uint32_t type, link, info;
	uint64_t flags, addr, off, size, align, entsize;
};

static inline void eg_write_shdr(const struct eg_elf *e, uint8_t *p,
				 uint32_t name, const struct eg_shdr *s)
{
	bool be = eg_be(e);
	size_t a = e->asz;

	eg_set_uint(p, name, 4, be);
	eg_set_uint(p + 4, s->type, 4, be);
	eg_set_uint(p + 8, s->flags, a, be);
	eg_set_uint(p + 8 + a, s->addr, a, be);
	eg_set_uint(p + 8 + 2 * a, s->off, a, be);
	eg_set_uint(p + 8 + 3 * a, s->size, a, be);
	eg_set_uint(p + 8 + 4 * a, s->link, 4, be);
	eg_set_uint(p + 12 + 4 * a, s->info, 4, be);
	eg_set_uint(p + 16 + 4 * a, s->align, a, be);
	eg_set_uint(p + 16 + 5 * a, s->entsize, a, be);
}

static inline void eg_write_phdr(const struct eg_elf *e, uint8_t *p,
				 uint64_t off, uint64_t vaddr, uint64_t filesz,
				 uint64_t memsz, uint32_t flags)
{
	bool be = eg_be(e);

	eg_set_uint(p, 1 /* PT_LOAD */, 4, be);
	if (eg_is64(e)) {
		eg_set_uint(p + 4, flags, 4, be);
		eg_set_uint(p + 8, off, 8, be);
		eg_set_uint(p + 16, vaddr, 8, be);
		eg_set_uint(p + 24, vaddr, 8, be);
		eg_set_uint(p + 32, filesz, 8, be);
		eg_set_uint(p + 40, memsz, 8, be);
		eg_set_uint(p + 48, 0x1000, 8, be);
	} else {
		eg_set_uint(p + 4, off, 4, be);
		eg_set_uint(p + 8, vaddr, 4, be);
		eg_set_uint(p + 12, vaddr, 4, be);
		eg_set_uint(p + 16, filesz, 4, be);
		eg_set_uint(p + 20, memsz, 4, be);
		eg_set_uint(p + 24, flags, 4, be);
		eg_set_uint(p + 28, 0x1000, 4, be);
	}
}

/* Index of the section that holds @addr, for symbols. */
static inline uint16_t eg_shndx_of(const struct eg_elf *e, uint64_t addr)
{
	if (addr >= e->data_addr && addr < e->data_addr + e->data_size)
		return (uint16_t)e->sec_data;
	return (uint16_t)e->sec_text;
}

/* Build the image into @out (reset first). */
static inline void eg_build(struct eg_elf *e, struct eg_buf *out)
{
	struct eg_shdr sh[EG_MAX_SECTIONS];
	struct eg_buf shstr = { 0 }, str = { 0 }, sym = { 0 };
	uint32_t shname[EG_MAX_SECTIONS];
	bool be = eg_be(e), is64 = eg_is64(e);
	uint64_t off, phnum = e->no_phdrs ? 0 : 2;
	size_t i;
	int n = 1;

	eg_layout(e);
	memset(sh, 0, sizeof(sh));
	e->sec_base = e->sec_notes = e->sec_symtab = e->sec_strtab = -1;

	e->sec_text = n;
	sh[n++] = (struct eg_shdr){ ".text", EG_SHT_PROGBITS, 0, 0, 0x6 /* AX */,
				    e->text_addr, e->text_off, e->text_size, 16, 0 };
	if (e->base_scn) {
		e->sec_base = n;
		sh[n++] = (struct eg_shdr){ ".stapsdt.base", EG_SHT_PROGBITS, 0, 0,
					    0x2 /* A */, e->base_addr, e->base_off,
					    1, 1, 0 };
	}
	e->sec_data = n;
	sh[n++] = (struct eg_shdr){ ".probes", EG_SHT_PROGBITS, 0, 0, 0x3 /* WA */,
				    e->data_addr, e->data_off, e->data_size, 8, 0 };
	off = e->data_off + e->data_size;
	if (!e->no_notes) {
		off = eg_round(off, 8);
		e->notes_off = off;
		e->sec_notes = n;
		sh[n++] = (struct eg_shdr){ ".note.stapsdt",
					    e->notes_type ? e->notes_type : EG_SHT_NOTE,
					    0, 0, 0, 0, off, e->notes_size, 4, 0 };
		off += e->notes_size;
	}
	if (e->syms) {
		eg_zero(&str, 1);
		eg_zero(&sym, e->symentsize);	/* STN_UNDEF */
		for (i = 0; i < e->nsyms; i++) {
			const struct eg_sym *s = &e->syms[i];
			uint32_t name = s->st_name ? s->st_name : (uint32_t)str.len;
			uint16_t shndx = s->shndx ? s->shndx : eg_shndx_of(e, s->value);
			uint8_t info = s->info ? s->info : 0x11;	/* GLOBAL OBJECT */

			if (!s->st_name)
				eg_str(&str, s->name);
			eg_uint(&sym, name, 4, be);
			if (is64) {
				eg_put(&sym, &info, 1);
				eg_zero(&sym, 1);
				eg_uint(&sym, shndx, 2, be);
				eg_uint(&sym, s->value, 8, be);
				eg_uint(&sym, s->size, 8, be);
			} else {
				eg_uint(&sym, s->value, 4, be);
				eg_uint(&sym, s->size, 4, be);
				eg_put(&sym, &info, 1);
				eg_zero(&sym, 1);
				eg_uint(&sym, shndx, 2, be);
			}
		}
		off = eg_round(off, 8);
		e->sec_symtab = n;
		e->sec_strtab = n + 1;
		sh[n++] = (struct eg_shdr){ ".symtab", EG_SHT_SYMTAB,
					    (uint32_t)e->sec_strtab, 1, 0, 0, off,
					    sym.len, 8, e->symentsize };
		off += sym.len;
		sh[n++] = (struct eg_shdr){ ".strtab", EG_SHT_STRTAB, 0, 0, 0, 0,
					    off, str.len, 1, 0 };
		off += str.len;
	}
	e->sec_shstrtab = n;
	sh[n++] = (struct eg_shdr){ ".shstrtab", EG_SHT_STRTAB, 0, 0, 0, 0, off,
				    0, 1, 0 };
	eg_zero(&shstr, 1);
	shname[0] = 0;
	for (i = 1; i < (size_t)n; i++) {
		shname[i] = (uint32_t)shstr.len;
		eg_str(&shstr, sh[i].name);
	}
	sh[e->sec_shstrtab].size = shstr.len;
	off += shstr.len;
	e->shoff = eg_round(off, 8);
	e->nsec = n;

	/* the image: zeros, then every piece at its offset */
	out->len = 0;
	eg_zero(out, e->shoff + (size_t)n * e->shentsize);
	memcpy(out->p, "\x7f" "ELF", 4);
	out->p[4] = e->cls;
	out->p[5] = e->data;
	out->p[6] = 1;	/* EV_CURRENT */
	{
		uint8_t *p = out->p + 16;
		size_t a = e->asz;

		eg_set_uint(p, e->type, 2, be);
		eg_set_uint(p + 2, e->machine, 2, be);
		eg_set_uint(p + 4, 1, 4, be);
		eg_set_uint(p + 8, e->text_addr, a, be);		/* e_entry */
		eg_set_uint(p + 8 + a, phnum ? e->ehsize : 0, a, be);	/* e_phoff */
		eg_set_uint(p + 8 + 2 * a, e->shoff, a, be);		/* e_shoff */
		p += 8 + 3 * a;
		eg_set_uint(p + 4, e->ehsize, 2, be);
		eg_set_uint(p + 6, e->phentsize, 2, be);
		eg_set_uint(p + 8, phnum, 2, be);
		eg_set_uint(p + 10, e->shentsize, 2, be);
		eg_set_uint(p + 12, (uint64_t)n, 2, be);
		eg_set_uint(p + 14, (uint64_t)e->sec_shstrtab, 2, be);
	}
	if (phnum) {
		eg_write_phdr(e, out->p + e->ehsize, 0, e->vaddr, e->text_end,
			      e->text_end, 0x5 /* R+X */);
		eg_write_phdr(e, out->p + e->ehsize + e->phentsize, e->data_off,
			      e->data_addr, e->data_size, e->data_size + 64,
			      0x6 /* R+W */);
	}
	if (e->text)
		memcpy(out->p + e->text_off, e->text, e->text_size);
	if (e->sec_notes > 0 && e->notes_size)
		memcpy(out->p + e->notes_off, e->notes, e->notes_size);
	if (e->syms) {
		memcpy(out->p + sh[e->sec_symtab].off, sym.p, sym.len);
		memcpy(out->p + sh[e->sec_strtab].off, str.p, str.len);
	}
	memcpy(out->p + sh[e->sec_shstrtab].off, shstr.p, shstr.len);
	for (i = 0; i < (size_t)n; i++) {
		e->shdr_off[i] = e->shoff + i * e->shentsize;
		if (i)
			eg_write_shdr(e, out->p + e->shdr_off[i], shname[i], &sh[i]);
	}
	eg_free(&shstr);
	eg_free(&str);
	eg_free(&sym);
}

/* ------------------------------------------------------------------ */
/* Corrupting a built image                                           */
/* ------------------------------------------------------------------ */

enum eg_ehdr_field { EG_E_MACHINE, EG_E_PHOFF, EG_E_SHOFF, EG_E_PHNUM,
		     EG_E_SHNUM, EG_E_SHSTRNDX, EG_E_PHENTSIZE, EG_E_SHENTSIZE };

static inline void eg_patch_ehdr(const struct eg_elf *e, struct eg_buf *img,
				 enum eg_ehdr_field f, uint64_t v)
{
	size_t a = e->asz, at = 0, n = 2;

	switch (f) {
	case EG_E_MACHINE:	at = 18; break;
	case EG_E_PHOFF:	at = 24 + a; n = a; break;
	case EG_E_SHOFF:	at = 24 + 2 * a; n = a; break;
	case EG_E_PHENTSIZE:	at = 24 + 3 * a + 6; break;
	case EG_E_PHNUM:	at = 24 + 3 * a + 8; break;
	case EG_E_SHENTSIZE:	at = 24 + 3 * a + 10; break;
	case EG_E_SHNUM:	at = 24 + 3 * a + 12; break;
	case EG_E_SHSTRNDX:	at = 24 + 3 * a + 14; break;
	}
	eg_set_uint(img->p + at, v, n, eg_be(e));
}

enum eg_shdr_field { EG_SH_NAME, EG_SH_TYPE, EG_SH_OFFSET, EG_SH_SIZE,
		     EG_SH_LINK, EG_SH_INFO, EG_SH_ENTSIZE };

static inline void eg_patch_shdr(const struct eg_elf *e, struct eg_buf *img,
				 int sec, enum eg_shdr_field f, uint64_t v)
{
	size_t a = e->asz, at = 0, n = a;

	switch (f) {
	case EG_SH_NAME:	at = 0; n = 4; break;
	case EG_SH_TYPE:	at = 4; n = 4; break;
	case EG_SH_OFFSET:	at = 8 + 2 * a; break;
	case EG_SH_SIZE:	at = 8 + 3 * a; break;
	case EG_SH_LINK:	at = 8 + 4 * a; n = 4; break;
	case EG_SH_INFO:	at = 12 + 4 * a; n = 4; break;
	case EG_SH_ENTSIZE:	at = 16 + 5 * a; break;
	}
	eg_set_uint(img->p + e->shdr_off[sec] + at, v, n, eg_be(e));
}

#endif /* USDTKIT_TESTS_ELFGEN_H */
