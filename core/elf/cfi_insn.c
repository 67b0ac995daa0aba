// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The CFA instruction interpreter of the CFI reader (cfi.h): a CIE's
 * initial instructions and an FDE's instructions -> the rules in force
 * at each location -> rows, appended to the table in pc order. Only the
 * CFA, the frame pointer and the return address column are tracked:
 * they are all a frame-pointer-less stack walk needs. Every operand is
 * read through the bounded cursor of cfi_int.h, and every location
 * only moves forward, so a hostile FDE ends within its own bytes.
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/cfi_int.h"

/* DW_CFA_remember_state nesting; gcc and clang never exceed 2 or 3 */
#define STATE_STACK 16

enum {
	CFA_ADVANCE_LOC = 0x40, CFA_OFFSET = 0x80, CFA_RESTORE = 0xc0,
	CFA_NOP = 0x00, CFA_SET_LOC = 0x01, CFA_ADVANCE_LOC1 = 0x02,
	CFA_ADVANCE_LOC2 = 0x03, CFA_ADVANCE_LOC4 = 0x04,
	CFA_OFFSET_EXTENDED = 0x05, CFA_RESTORE_EXTENDED = 0x06,
	CFA_UNDEFINED = 0x07, CFA_SAME_VALUE = 0x08, CFA_REGISTER = 0x09,
	CFA_REMEMBER_STATE = 0x0a, CFA_RESTORE_STATE = 0x0b,
	CFA_DEF_CFA = 0x0c, CFA_DEF_CFA_REGISTER = 0x0d,
	CFA_DEF_CFA_OFFSET = 0x0e, CFA_DEF_CFA_EXPRESSION = 0x0f,
	CFA_EXPRESSION = 0x10, CFA_OFFSET_EXTENDED_SF = 0x11,
	CFA_DEF_CFA_SF = 0x12, CFA_DEF_CFA_OFFSET_SF = 0x13,
	CFA_VAL_OFFSET = 0x14, CFA_VAL_OFFSET_SF = 0x15,
	CFA_VAL_EXPRESSION = 0x16,
	CFA_NEGATE_RA_STATE = 0x2d,	/* GNU_window_save outside aarch64 */
	CFA_GNU_ARGS_SIZE = 0x2e,
	CFA_GNU_NEGATIVE_OFFSET_EXTENDED = 0x2f,
};

/*
 * The CFA expression gcc and GNU ld give a lazy x86-64 .plt: rsp + 8,
 * plus 8 more from the 11th byte of a 16-byte entry on (after its
 * pushq). Only the threshold 11 is taken: USDTKIT__CFA_PLT fixes it, and
 * an entry of another layout (lit10, older MPX .plt.bnd) would be
 * walked wrong by one word.
 */
static const uint8_t plt_expr[] = {
	0x77, 0x08,	/* DW_OP_breg7 (rsp) 8 */
	0x80, 0x00,	/* DW_OP_breg16 (rip) 0 */
	0x3f,		/* DW_OP_lit15 */
	0x1a,		/* DW_OP_and */
	0x3b,		/* DW_OP_lit11 */
	0x2a,		/* DW_OP_ge */
	0x33,		/* DW_OP_lit3 */
	0x24,		/* DW_OP_shl */
	0x22,		/* DW_OP_plus */
};

static uint64_t read_format(struct usdtkit__cfi_cur *c, uint8_t fmt, uint8_t addr_size)
{
	switch (fmt) {
	case CFI_PE_ABSPTR:
		return usdtkit__cfi_uint(c, addr_size);
	case CFI_PE_ULEB128:
		return usdtkit__cfi_uleb(c);
	case CFI_PE_UDATA2:
		return usdtkit__cfi_uint(c, 2);
	case CFI_PE_UDATA4:
		return usdtkit__cfi_uint(c, 4);
	case CFI_PE_UDATA8:
	case CFI_PE_SDATA8:
		return usdtkit__cfi_uint(c, 8);
	case CFI_PE_SLEB128:
		return (uint64_t)usdtkit__cfi_sleb(c);
	case CFI_PE_SDATA2:
		return (uint64_t)(int64_t)(int16_t)usdtkit__cfi_uint(c, 2);
	case CFI_PE_SDATA4:
		return (uint64_t)(int64_t)(int32_t)usdtkit__cfi_uint(c, 4);
	}
	c->bad = true;
	return 0;
}

/* The base an application (bits 4-6) adds, from the field's own address. */
static int apply_base(uint8_t app, uint64_t field, const struct usdtkit__cfi_bases *b,
		      uint64_t *base)
{
	switch (app) {
	case 0:
	case CFI_PE_ALIGNED:
		*base = 0;
		return 0;
	case CFI_PE_PCREL:
		*base = field;
		return 0;
	case CFI_PE_TEXTREL:
		*base = b->text;
		return b->have_text ? 0 : -EOPNOTSUPP;
	case CFI_PE_DATAREL:
		*base = b->data;
		return b->have_data ? 0 : -EOPNOTSUPP;
	case CFI_PE_FUNCREL:
		/* relative to a function start no FDE field needs */
		return -EOPNOTSUPP;
	}
	return -EINVAL;
}

/*
 * Without @b only the bytes are consumed (a personality routine's
 * pointer, an FDE's range), with it the value is the address, in the
 * section's sh_addr space. An indirect pointer is not followed: no
 * memory of the process is at hand.
 */
int usdtkit__cfi_pointer(struct usdtkit__cfi_cur *c, uint8_t enc, uint8_t addr_size,
			 const struct usdtkit__cfi_bases *b, uint64_t *val)
{
	uint8_t app = enc & 0x70, fmt = enc & 0x0f;
	uint64_t field = 0, base, v;
	int err;

	if (b)
		field = b->sec_addr + (uint64_t)(c->p - b->sec);
	if (app == CFI_PE_ALIGNED) {
		uint64_t pad = (addr_size - (field % addr_size)) % addr_size;

		usdtkit__cfi_skip(c, pad);
		field += pad;
		fmt = CFI_PE_ABSPTR;
	}
	v = read_format(c, fmt, addr_size);
	if (c->bad)
		return -EINVAL;
	*val = v;
	if (!b)
		return 0;
	if (enc & CFI_PE_INDIRECT)
		return -EOPNOTSUPP;
	err = apply_base(app, field, b, &base);
	if (err)
		return err;
	v += base;
	if (addr_size == 4)
		v &= 0xffffffffu;
	*val = v;
	return 0;
}

struct interp {
	const struct usdtkit__cfi_fde *fde;	/* NULL: a CIE's initial instructions */
	const struct usdtkit__cfi_cie *cie;
	const struct usdtkit__cfi_arch *arch;
	struct usdtkit__cfi_table *t;
	struct usdtkit__cfi_cur c;
	struct usdtkit__cfi_state st;
	struct usdtkit__cfi_state stack[STATE_STACK];
	unsigned int depth;
	uint64_t loc;
	bool done;		/* the location left the FDE's range */
};

static bool fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* A register rule as a row holds it; false when it cannot. */
static bool rule_out(const struct usdtkit__cfi_rule *r, uint8_t *how, int32_t *off)
{
	if (r->how == USDTKIT__CFI_HOW_OTHER ||
	    (r->how == USDTKIT__CFI_HOW_OFFSET && !fits32(r->off)))
		return false;
	*how = r->how;
	*off = r->how == USDTKIT__CFI_HOW_OFFSET ? (int32_t)r->off : 0;
	return true;
}

static bool cfa_out(const struct interp *in, struct usdtkit__cfi_row *row)
{
	const struct usdtkit__cfi_state *s = &in->st;

	if (s->cfa_how == USDTKIT__CFI_CFA_PLT) {
		row->cfa = USDTKIT__CFA_PLT;
		return true;
	}
	if (s->cfa_how != USDTKIT__CFI_CFA_REG || !fits32(s->cfa_off))
		return false;
	if (s->cfa_reg == in->arch->sp)
		row->cfa = USDTKIT__CFA_SP;
	else if (s->cfa_reg == in->arch->fp)
		row->cfa = USDTKIT__CFA_FP;
	else
		return false;
	row->cfa_off = (int32_t)s->cfa_off;
	return true;
}

/* The row of the current state; false when it had to become NONE. */
static bool state_row(const struct interp *in, struct usdtkit__cfi_row *row)
{
	memset(row, 0, sizeof(*row));
	row->pc = in->loc;
	/* an undefined return address ends the walk, whatever else holds */
	if (in->st.ra.how == USDTKIT__CFI_HOW_UNDEF) {
		row->cfa = USDTKIT__CFA_END;
		return true;
	}
	if (!cfa_out(in, row) || !rule_out(&in->st.fp, &row->fp, &row->fp_off) ||
	    !rule_out(&in->st.ra, &row->ra, &row->ra_off)) {
		memset(row, 0, sizeof(*row));
		row->pc = in->loc;
		return false;
	}
	row->flags = (in->cie->signal ? USDTKIT__CFI_SIGNAL : 0) |
		     (in->st.pac ? USDTKIT__CFI_PAC : 0);
	return true;
}

static int emit(struct interp *in)
{
	struct usdtkit__cfi_row row;
	size_t n = in->t->out->n;
	bool ok = state_row(in, &row);
	int err;

	err = usdtkit__cfi_append(in->t, &row);
	if (!err && !ok && in->t->out->n > n)
		in->t->out->unsupported++;
	return err;
}

/* Rows hold the state from one location to the next: emit, then move. */
static int advance_to(struct interp *in, uint64_t loc)
{
	int err;

	if (!in->fde || loc < in->loc)
		return -EINVAL;
	err = emit(in);
	if (err)
		return err;
	in->loc = loc;
	in->done = loc >= in->fde->end;
	return 0;
}

static int advance(struct interp *in, uint64_t delta)
{
	uint64_t step, loc;

	if (__builtin_mul_overflow(delta, in->cie->code_align, &step) ||
	    __builtin_add_overflow(in->loc, step, &loc))
		return -EINVAL;
	return advance_to(in, loc);
}

static int set_loc(struct interp *in)
{
	uint64_t loc;
	int err;

	if (!in->fde)
		return -EINVAL;
	err = usdtkit__cfi_pointer(&in->c, in->cie->fde_enc, in->cie->addr_size,
				   in->fde->bases, &loc);
	return err ? -EINVAL : advance_to(in, loc);
}

/* The tracked rule of DWARF register @reg, NULL for the others. */
static struct usdtkit__cfi_rule *rule_of(struct usdtkit__cfi_state *s,
					 const struct interp *in, uint64_t reg)
{
	if (reg == in->cie->ra_col)
		return &s->ra;
	if (reg == in->arch->fp)
		return &s->fp;
	return NULL;
}

static void set_rule(struct interp *in, uint64_t reg, uint8_t how, int64_t off)
{
	struct usdtkit__cfi_rule *r = rule_of(&in->st, in, reg);

	if (r) {
		r->how = how;
		r->off = how == USDTKIT__CFI_HOW_OFFSET ? off : 0;
	}
}

static void restore(struct interp *in, uint64_t reg)
{
	struct usdtkit__cfi_rule *r = rule_of(&in->st, in, reg);
	struct usdtkit__cfi_state init = in->cie->init;

	/* in the CIE itself there is nothing to go back to */
	if (r)
		*r = in->fde ? *rule_of(&init, in, reg) : (struct usdtkit__cfi_rule){ 0 };
}

/* A factored offset: @v times the data alignment factor, or -EINVAL. */
static int factored(const struct interp *in, int64_t v, int64_t *off)
{
	return __builtin_mul_overflow(v, in->cie->data_align, off) ? -EINVAL : 0;
}

static int reg_offset(struct interp *in, uint64_t reg, int64_t v, bool val)
{
	int64_t off;

	if (factored(in, v, &off))
		return -EINVAL;
	set_rule(in, reg, val ? USDTKIT__CFI_HOW_OTHER : USDTKIT__CFI_HOW_OFFSET, off);
	return 0;
}

static void def_cfa_expression(struct interp *in)
{
	uint64_t len = usdtkit__cfi_uleb(&in->c);
	const uint8_t *e = in->c.p;

	usdtkit__cfi_skip(&in->c, len);
	in->st.cfa_how = USDTKIT__CFI_CFA_OTHER;
	if (!in->c.bad && in->arch->machine == EM_X86_64 && len == sizeof(plt_expr) &&
	    !memcmp(e, plt_expr, sizeof(plt_expr)))
		in->st.cfa_how = USDTKIT__CFI_CFA_PLT;
}

/* A new CFA offset keeps the register; it means nothing after an expression. */
static void def_cfa_offset(struct interp *in, int64_t off)
{
	in->st.cfa_off = off;
}

static void def_cfa_register(struct interp *in, uint64_t reg)
{
	if (in->st.cfa_how == USDTKIT__CFI_CFA_PLT)
		in->st.cfa_how = USDTKIT__CFI_CFA_OTHER;
	in->st.cfa_reg = reg;
}

static void def_cfa(struct interp *in, uint64_t reg, int64_t off)
{
	in->st.cfa_how = USDTKIT__CFI_CFA_REG;
	in->st.cfa_reg = reg;
	in->st.cfa_off = off;
}

static int remember(struct interp *in)
{
	if (in->depth == STATE_STACK)
		return -EINVAL;
	in->stack[in->depth++] = in->st;
	return 0;
}

static int restore_state(struct interp *in)
{
	if (!in->depth)
		return -EINVAL;
	in->st = in->stack[--in->depth];
	return 0;
}

static void negate_ra_state(struct interp *in)
{
	if (in->arch->machine == EM_AARCH64)
		in->st.pac = !in->st.pac;
	else	/* SPARC's window save: no rule a walker here could follow */
		in->st.cfa_how = USDTKIT__CFI_CFA_OTHER;
}

/* The instructions whose operands are one register and an offset or a block. */
static int reg_insn(struct interp *in, uint8_t op)
{
	struct usdtkit__cfi_cur *c = &in->c;
	uint64_t reg = usdtkit__cfi_uleb(c);

	switch (op) {
	case CFA_OFFSET_EXTENDED:
		return reg_offset(in, reg, (int64_t)usdtkit__cfi_uleb(c), false);
	case CFA_OFFSET_EXTENDED_SF:
		return reg_offset(in, reg, usdtkit__cfi_sleb(c), false);
	case CFA_GNU_NEGATIVE_OFFSET_EXTENDED:
		return reg_offset(in, reg, -(int64_t)usdtkit__cfi_uleb(c), false);
	case CFA_VAL_OFFSET:
		return reg_offset(in, reg, (int64_t)usdtkit__cfi_uleb(c), true);
	case CFA_VAL_OFFSET_SF:
		return reg_offset(in, reg, usdtkit__cfi_sleb(c), true);
	case CFA_RESTORE_EXTENDED:
		restore(in, reg);
		return 0;
	case CFA_UNDEFINED:
		set_rule(in, reg, USDTKIT__CFI_HOW_UNDEF, 0);
		return 0;
	case CFA_SAME_VALUE:
		set_rule(in, reg, USDTKIT__CFI_HOW_SAME, 0);
		return 0;
	case CFA_REGISTER:
		usdtkit__cfi_uleb(c);
		set_rule(in, reg, USDTKIT__CFI_HOW_OTHER, 0);
		return 0;
	case CFA_EXPRESSION:
	case CFA_VAL_EXPRESSION:
		usdtkit__cfi_skip(c, usdtkit__cfi_uleb(c));
		set_rule(in, reg, USDTKIT__CFI_HOW_OTHER, 0);
		return 0;
	}
	return -EINVAL;
}

static int cfa_insn(struct interp *in, uint8_t op)
{
	struct usdtkit__cfi_cur *c = &in->c;
	uint64_t reg;
	int64_t off;

	switch (op) {
	case CFA_DEF_CFA:
		reg = usdtkit__cfi_uleb(c);
		def_cfa(in, reg, (int64_t)usdtkit__cfi_uleb(c));
		return 0;
	case CFA_DEF_CFA_SF:
		reg = usdtkit__cfi_uleb(c);
		if (factored(in, usdtkit__cfi_sleb(c), &off))
			return -EINVAL;
		def_cfa(in, reg, off);
		return 0;
	case CFA_DEF_CFA_REGISTER:
		def_cfa_register(in, usdtkit__cfi_uleb(c));
		return 0;
	case CFA_DEF_CFA_OFFSET:
		def_cfa_offset(in, (int64_t)usdtkit__cfi_uleb(c));
		return 0;
	case CFA_DEF_CFA_OFFSET_SF:
		if (factored(in, usdtkit__cfi_sleb(c), &off))
			return -EINVAL;
		def_cfa_offset(in, off);
		return 0;
	case CFA_DEF_CFA_EXPRESSION:
		def_cfa_expression(in);
		return 0;
	}
	return reg_insn(in, op);
}

static int ext_insn(struct interp *in, uint8_t op)
{
	struct usdtkit__cfi_cur *c = &in->c;

	switch (op) {
	case CFA_NOP:
		return 0;
	case CFA_SET_LOC:
		return set_loc(in);
	case CFA_ADVANCE_LOC1:
		return advance(in, usdtkit__cfi_uint(c, 1));
	case CFA_ADVANCE_LOC2:
		return advance(in, usdtkit__cfi_uint(c, 2));
	case CFA_ADVANCE_LOC4:
		return advance(in, usdtkit__cfi_uint(c, 4));
	case CFA_REMEMBER_STATE:
		return remember(in);
	case CFA_RESTORE_STATE:
		return restore_state(in);
	case CFA_NEGATE_RA_STATE:
		negate_ra_state(in);
		return 0;
	case CFA_GNU_ARGS_SIZE:
		usdtkit__cfi_uleb(c);
		return 0;
	}
	return cfa_insn(in, op);
}

static int step(struct interp *in)
{
	uint8_t op = (uint8_t)usdtkit__cfi_uint(&in->c, 1);
	uint8_t arg = op & 0x3f;

	switch (op & 0xc0) {
	case CFA_ADVANCE_LOC:
		return advance(in, arg);
	case CFA_OFFSET:
		return reg_offset(in, arg, (int64_t)usdtkit__cfi_uleb(&in->c), false);
	case CFA_RESTORE:
		restore(in, arg);
		return 0;
	}
	return ext_insn(in, op);
}

static int exec(struct interp *in)
{
	int err;

	while (!in->done && in->c.p < in->c.end) {
		err = step(in);
		if (err)
			return err;
		if (in->c.bad)
			return -EINVAL;
	}
	return 0;
}

int usdtkit__cfi_cie_init(struct usdtkit__cfi_cie *cie, const struct usdtkit__cfi_arch *arch,
			  bool be)
{
	struct interp in = {
		.cie = cie,
		.arch = arch,
		.c = { cie->insns, cie->insns_end, be, false },
		/* no CFA rule until the CIE gives one: an FDE that gives none is NONE */
		.st.cfa_how = USDTKIT__CFI_CFA_OTHER,
	};
	int err = exec(&in);

	cie->init = in.st;
	return err;
}

int usdtkit__cfi_run(const struct usdtkit__cfi_fde *fde, struct usdtkit__cfi_table *t)
{
	struct interp in = {
		.fde = fde,
		.cie = fde->cie,
		.arch = fde->arch,
		.t = t,
		.c = { fde->insns, fde->insns_end, fde->be, false },
		.st = fde->cie->init,
		.loc = fde->begin,
	};
	int err = exec(&in);

	if (!err && !in.done)
		err = emit(&in);
	return err;
}

static bool same_rules(const struct usdtkit__cfi_row *a, const struct usdtkit__cfi_row *b)
{
	return a->cfa == b->cfa && a->cfa_off == b->cfa_off && a->fp == b->fp &&
	       a->fp_off == b->fp_off && a->ra == b->ra && a->ra_off == b->ra_off &&
	       a->flags == b->flags;
}

static int grow(struct usdtkit__cfi_table *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024;
	struct usdtkit__cfi_row *rows;

	if (cap > t->max)
		cap = t->max;
	if (t->out->n >= cap)
		return -E2BIG;
	rows = realloc(t->out->rows, cap * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	t->out->rows = rows;
	t->cap = cap;
	return 0;
}

int usdtkit__cfi_append(struct usdtkit__cfi_table *t, const struct usdtkit__cfi_row *row)
{
	struct usdtkit__cfi *o = t->out;
	int err;

	/* a later rule at the same pc wins (advance by 0, an FDE after another) */
	if (o->n && o->rows[o->n - 1].pc == row->pc)
		o->n--;
	if (o->n && o->rows[o->n - 1].pc > row->pc)
		return -EINVAL;
	if (o->n && same_rules(&o->rows[o->n - 1], row))
		return 0;
	if (o->n == t->cap) {
		err = grow(t);
		if (err)
			return err;
	}
	o->rows[o->n++] = *row;
	return 0;
}
