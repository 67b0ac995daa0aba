/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The ELF identities the ELF harnesses and the seed generator build
 * images for (tests/helpers/elfgen.h), one per manifest target, and symbols for
 * symbol-relative args.
 */
#ifndef USDTKIT_FUZZ_TARGETS_H
#define USDTKIT_FUZZ_TARGETS_H

#include "arch_table.h"
#include "elfgen.h"

/* Every target of the manifests, in registry order (gen/arch_table.h):
 * a harness's first input byte picks one, modulo the count. */
#define fz_targets usdtkit_arch_infos
#define FZ_NTARGETS USDTKIT_ARCH_INFO_COUNT

/*
 * The layout of an image of target @t with @flags: bit 0 an executable
 * (else a shared object), bit 1 a .stapsdt.base section, bit 3 no
 * program headers. Addresses are known before the notes are (elfgen).
 */
static inline void fz_layout(const struct usdtkit_arch_info *t, unsigned flags,
			     struct eg_elf *e)
{
	memset(e, 0, sizeof(*e));
	e->cls = t->elf_class;
	e->data = t->elf_data;
	e->machine = t->e_machine;
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
static inline void fz_build(const struct usdtkit_arch_info *t, unsigned flags,
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
