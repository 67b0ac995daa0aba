/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The ELF identities the ELF harnesses and the seed generator build
 * images for (tests/elfgen.h), and symbols for symbol-relative args.
 */
#ifndef USDTKIT_FUZZ_TARGETS_H
#define USDTKIT_FUZZ_TARGETS_H

#include "elfgen.h"

struct fz_target {
	const char *arch;
	uint8_t cls, data;
	uint16_t machine;
};

static const struct fz_target fz_targets[] = {
	{ "x86_64", EG_ELFCLASS64, EG_LSB, EG_EM_X86_64 },
	{ "x32", EG_ELFCLASS32, EG_LSB, EG_EM_X86_64 },
	{ "i386", EG_ELFCLASS32, EG_LSB, EG_EM_386 },
	{ "aarch64", EG_ELFCLASS64, EG_LSB, EG_EM_AARCH64 },
	{ "arm", EG_ELFCLASS32, EG_LSB, EG_EM_ARM },
	{ "riscv64", EG_ELFCLASS64, EG_LSB, EG_EM_RISCV },
	{ "riscv32", EG_ELFCLASS32, EG_LSB, EG_EM_RISCV },
	{ "s390x", EG_ELFCLASS64, EG_MSB, EG_EM_S390 },
	{ "mips64el", EG_ELFCLASS64, EG_LSB, EG_EM_MIPS },
	{ "mips64", EG_ELFCLASS64, EG_MSB, EG_EM_MIPS },
	{ "ppc64le", EG_ELFCLASS64, EG_LSB, EG_EM_PPC64 },
	{ "ppc64", EG_ELFCLASS64, EG_MSB, EG_EM_PPC64 },
};

#define FZ_NTARGETS (sizeof(fz_targets) / sizeof(fz_targets[0]))

/*
 * The layout of an image of target @t with @flags: bit 0 an executable
 * (else a shared object), bit 1 a .stapsdt.base section, bit 3 no
 * program headers. Addresses are known before the notes are (elfgen).
 */
static inline void fz_layout(const struct fz_target *t, unsigned flags,
			     struct eg_elf *e)
{
	memset(e, 0, sizeof(*e));
	e->cls = t->cls;
	e->data = t->data;
	e->machine = t->machine;
	e->type = flags & 1 ? EG_ET_EXEC : EG_ET_DYN;
	e->vaddr = flags & 1 ? 0x400000 : 0;
	e->base_scn = flags & 2;
	e->no_phdrs = flags & 8;
	eg_layout(e);
}

/*
 * An image of target @t around raw .note.stapsdt bytes, laid out as
 * fz_layout() says; @flags bit 2 adds symbols ("counter", "x",
 * _GLOBAL_OFFSET_TABLE_), bit 4 a second "counter" (ambiguous).
 */
static inline void fz_build(const struct fz_target *t, unsigned flags,
			    const void *notes, size_t notes_size,
			    struct eg_buf *img)
{
	struct eg_elf e;
	struct eg_sym syms[4];

	memset(syms, 0, sizeof(syms));
	fz_layout(t, flags, &e);
	if (flags & 4) {
		syms[0] = (struct eg_sym){ .name = "counter", .value = e.data_addr + 8, .size = 4 };
		syms[1] = (struct eg_sym){ .name = "x", .value = e.data_addr + 16, .size = 8 };
		syms[2] = (struct eg_sym){ .name = "_GLOBAL_OFFSET_TABLE_", .value = e.data_addr, .size = 0 };
		syms[3] = (struct eg_sym){ .name = "counter", .value = e.data_addr + 24, .size = 4 };
		e.syms = syms;
		e.nsyms = flags & 16 ? 4 : 3;
	}
	e.notes = notes;
	e.notes_size = notes_size;
	eg_build(&e, img);
}

#endif /* USDTKIT_FUZZ_TARGETS_H */
