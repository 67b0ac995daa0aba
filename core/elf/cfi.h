/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An ELF object's call frame information (.eh_frame, .debug_frame)
 * compiled into rows a BPF stack walker can follow without a DWARF
 * interpreter: for each address range, how to find the canonical frame
 * address (CFA), the caller's frame pointer and the return address.
 * Only what such a walker can compute is kept; everything else becomes
 * a NONE row, where the walker falls back to frame pointers.
 */
#ifndef USDTKIT_CORE_CFI_H
#define USDTKIT_CORE_CFI_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct usdtkit_log;

enum usdtkit__cfa_kind {
	USDTKIT__CFA_NONE = 0,	/* no usable rule at this pc: caller falls back to frame pointers */
	USDTKIT__CFA_SP,	/* CFA = sp + cfa_off */
	USDTKIT__CFA_FP,	/* CFA = fp (rbp / x29) + cfa_off */
	USDTKIT__CFA_PLT,	/* x86-64 lazy PLT: CFA = rsp + 8 + ((rip & 15) >= 11 ? 8 : 0) (the gcc/ld DW_CFA_def_cfa_expression of .plt) */
	USDTKIT__CFA_END,	/* the return address is undefined here: outermost frame (_start, clone, thread start) */
};

enum usdtkit__reg_rule {
	USDTKIT__REG_SAME = 0,	/* unchanged from the callee (also "not mentioned") */
	USDTKIT__REG_OFFSET,	/* saved at CFA + off */
	USDTKIT__REG_UNDEF,	/* undefined */
};

#define USDTKIT__CFI_SIGNAL	0x1	/* FDE of a signal frame ('S' augmentation) */
#define USDTKIT__CFI_PAC	0x2	/* aarch64: the return address is signed */

struct usdtkit__cfi_row {
	uint64_t pc;		/* object virtual address (as in the ELF: p_vaddr space) where the row starts */
	int32_t cfa_off;
	int32_t fp_off;		/* fp rule's offset (USDTKIT__REG_OFFSET) */
	int32_t ra_off;		/* return address rule's offset */
	uint8_t cfa;		/* enum usdtkit__cfa_kind */
	uint8_t fp;		/* enum usdtkit__reg_rule: rbp (DWARF 6) on x86-64, x29 on aarch64 */
	uint8_t ra;		/* enum usdtkit__reg_rule: the CIE's return-address column (16 on x86-64 = rip; 30 on aarch64 = x30/lr) */
	uint8_t flags;		/* bit 0 USDTKIT__CFI_SIGNAL: FDE of a signal frame ('S' augmentation); bit 1 USDTKIT__CFI_PAC: aarch64 RA signed (DW_CFA_AARCH64_negate_ra_state toggled on) */
};

struct usdtkit__cfi {
	struct usdtkit__cfi_row *rows;	/* sorted by pc, strictly increasing, malloc'ed */
	size_t n;
	size_t fdes;			/* FDEs read */
	size_t unsupported;		/* rows made NONE because a rule was not representable */
};

/*
 * Read the CFI of @elf (machine @e_machine: EM_X86_64 or EM_AARCH64;
 * other machines -> -EOPNOTSUPP). .eh_frame first; .debug_frame where
 * present too (covers FDEs .eh_frame lacks: a pc range already covered
 * by .eh_frame keeps .eh_frame's rows). 0, -ENOENT (no CFI section at
 * all), -EINVAL (malformed: the section and byte offset go to @log if
 * non-NULL), -ENOMEM. A bad FDE alone is skipped (and logged), not the
 * whole file.
 */
int usdtkit__cfi_read(Elf *elf, unsigned int e_machine, struct usdtkit__cfi *out,
		      const struct usdtkit_log *log);
void usdtkit__cfi_free(struct usdtkit__cfi *c);

/* The row that covers @pc (greatest row->pc <= pc), or NULL. */
const struct usdtkit__cfi_row *usdtkit__cfi_find(const struct usdtkit__cfi *c, uint64_t pc);

#endif
