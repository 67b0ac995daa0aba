/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the CFI reader (cfi.c: sections, CIEs, FDEs) hands the CFA
 * instruction interpreter (cfi_insn.c: instructions -> rows): a bounded
 * cursor over section bytes, a parsed CIE, the register state of one
 * location, and the table the rows are appended to.
 */
#ifndef USDTKIT_CORE_CFI_INT_H
#define USDTKIT_CORE_CFI_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/bytes.h"
#include "elf/cfi.h"

/*
 * Reads past the end set @bad and yield 0, so that a parser can read a
 * whole record and check once; nothing is ever read outside [p, end).
 */
struct usdtkit__cfi_cur {
	const uint8_t *p, *end;
	bool be, bad;
};

static inline size_t usdtkit__cfi_left(const struct usdtkit__cfi_cur *c)
{
	return (size_t)(c->end - c->p);
}

static inline uint64_t usdtkit__cfi_uint(struct usdtkit__cfi_cur *c, size_t n)
{
	uint64_t v;

	if (c->bad || usdtkit__cfi_left(c) < n) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	v = usdtkit__get_uint(c->p, n, c->be);
	c->p += n;
	return v;
}

static inline void usdtkit__cfi_skip(struct usdtkit__cfi_cur *c, uint64_t n)
{
	if (c->bad || usdtkit__cfi_left(c) < n) {
		c->bad = true;
		c->p = c->end;
		return;
	}
	c->p += n;
}

/* LEB128: bits past 64 are dropped, an unterminated number is bad. */
static inline uint64_t usdtkit__cfi_leb(struct usdtkit__cfi_cur *c, bool sign)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	uint8_t b;

	do {
		if (c->bad || c->p == c->end) {
			c->bad = true;
			return 0;
		}
		b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (sign && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return v;
}

#define usdtkit__cfi_uleb(c) usdtkit__cfi_leb(c, false)
#define usdtkit__cfi_sleb(c) ((int64_t)usdtkit__cfi_leb(c, true))

/* Pointer encodings (DW_EH_PE_*): a format in the low nibble, how it
 * applies in bits 4-6, and bit 7 for "the address of the pointer". */
enum {
	CFI_PE_ABSPTR = 0x00, CFI_PE_ULEB128 = 0x01, CFI_PE_UDATA2 = 0x02,
	CFI_PE_UDATA4 = 0x03, CFI_PE_UDATA8 = 0x04, CFI_PE_SLEB128 = 0x09,
	CFI_PE_SDATA2 = 0x0a, CFI_PE_SDATA4 = 0x0b, CFI_PE_SDATA8 = 0x0c,
	CFI_PE_PCREL = 0x10, CFI_PE_TEXTREL = 0x20, CFI_PE_DATAREL = 0x30,
	CFI_PE_FUNCREL = 0x40, CFI_PE_ALIGNED = 0x50,
	CFI_PE_INDIRECT = 0x80, CFI_PE_OMIT = 0xff,
};

/* How one register is recovered, as the interpreter tracks it. */
enum usdtkit__cfi_how {
	USDTKIT__CFI_HOW_SAME = USDTKIT__REG_SAME,
	USDTKIT__CFI_HOW_OFFSET = USDTKIT__REG_OFFSET,
	USDTKIT__CFI_HOW_UNDEF = USDTKIT__REG_UNDEF,
	USDTKIT__CFI_HOW_OTHER,	/* register, expression, val_*: not representable */
};

struct usdtkit__cfi_rule {
	uint8_t how;		/* enum usdtkit__cfi_how */
	int64_t off;
};

enum usdtkit__cfi_cfa_how {
	USDTKIT__CFI_CFA_REG = 0,	/* cfa_reg + cfa_off */
	USDTKIT__CFI_CFA_PLT,		/* the x86-64 .plt expression */
	USDTKIT__CFI_CFA_OTHER,		/* any other expression, or a rule made invalid */
};

/* The rules in force at one location: the CFA, fp and the RA column. */
struct usdtkit__cfi_state {
	uint64_t cfa_reg;
	int64_t cfa_off;
	uint8_t cfa_how;	/* enum usdtkit__cfi_cfa_how */
	bool pac;
	struct usdtkit__cfi_rule fp, ra;
};

struct usdtkit__cfi_cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_col;
	const uint8_t *insns, *insns_end;
	uint8_t fde_enc;	/* DW_EH_PE_* of addresses in FDEs and DW_CFA_set_loc */
	uint8_t addr_size;
	bool aug_z, signal;
	struct usdtkit__cfi_state init;	/* after the CIE's initial instructions */
};

/* The machine's registers, in DWARF numbers. */
struct usdtkit__cfi_arch {
	unsigned int machine;
	uint64_t sp, fp;
};

/* Where an encoded address is read from, for DW_EH_PE_pcrel and friends. */
struct usdtkit__cfi_bases {
	const uint8_t *sec;	/* section bytes, at address sec_addr */
	uint64_t sec_addr, text, data;
	bool have_text, have_data;
};

/* The rows of an object under construction. */
struct usdtkit__cfi_table {
	struct usdtkit__cfi *out;
	size_t cap, max;	/* allocated, and the most ever allowed */
};

/* One FDE to run: its CIE, the range and the instructions. */
struct usdtkit__cfi_fde {
	const struct usdtkit__cfi_cie *cie;
	const struct usdtkit__cfi_arch *arch;
	const struct usdtkit__cfi_bases *bases;
	uint64_t begin, end;
	const uint8_t *insns, *insns_end;
	bool be;
};

/* Decode the pointer at @c in encoding @enc: 0, -EINVAL, -EOPNOTSUPP. */
int usdtkit__cfi_pointer(struct usdtkit__cfi_cur *c, uint8_t enc, uint8_t addr_size,
			 const struct usdtkit__cfi_bases *b, uint64_t *val);

/* Run a CIE's initial instructions into cie->init: 0 or -EINVAL. */
int usdtkit__cfi_cie_init(struct usdtkit__cfi_cie *cie, const struct usdtkit__cfi_arch *arch,
			  bool be);

/* Append the rows of @fde to @t: 0, -EINVAL (the FDE is bad), -ENOMEM, -E2BIG. */
int usdtkit__cfi_run(const struct usdtkit__cfi_fde *fde, struct usdtkit__cfi_table *t);

/* Append one row, replacing a row at the same pc, merging an equal one. */
int usdtkit__cfi_append(struct usdtkit__cfi_table *t, const struct usdtkit__cfi_row *row);

#endif
