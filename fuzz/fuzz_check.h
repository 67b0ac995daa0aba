/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Invariants the harnesses assert on top of "no crash": a parse result
 * that is wrong but harmless (an error position past the input, arguments
 * that overlap or shift, a read outside what the memory reader allows)
 * aborts just like a sanitizer report, so libFuzzer keeps the input.
 * Header-only: each harness is one program.
 */
#ifndef USDTKIT_FUZZ_CHECK_H
#define USDTKIT_FUZZ_CHECK_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/arch.h"	/* register table and layouts, to check the IR */

/* The args string being checked, printed with a broken invariant. */
static const char *fz_ctx;
static size_t fz_ctx_len;

static inline void fz_print_ctx(void)
{
	size_t i;

	if (!fz_ctx)
		return;
	fputs("args string: \"", stderr);
	for (i = 0; i < fz_ctx_len; i++) {
		unsigned char c = (unsigned char)fz_ctx[i];

		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"')
			fputc(c, stderr);
		else
			fprintf(stderr, "\\x%02x", c);
	}
	fputs("\"\n", stderr);
}

#define FUZZ_ASSERT(cond, ...)                                               \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: invariant (%s) broken: ",    \
				__FILE__, __LINE__, #cond);                  \
			fprintf(stderr, __VA_ARGS__);                        \
			fputc('\n', stderr);                                 \
			fz_print_ctx();                                      \
			abort();                                             \
		}                                                            \
	} while (0)

/* The splitter's blanks (core/spec/spec.c). */
static inline int fz_blank(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static inline void fz_check_reg(const struct usdtkit_arch *arch,
			 const struct usdtkit_reg *r, const char *what, int i)
{
	if (r->id < 0) {
		FUZZ_ASSERT(r->id == -1 && r->entry == -1,
			    "arg %d %s: half-cleared register", i, what);
		return;
	}
	FUZZ_ASSERT(r->id < arch->native->nregs, "arg %d %s: id %d", i, what,
		    r->id);
	FUZZ_ASSERT(r->offset == arch->native->offsets[r->id],
		    "arg %d %s: offset %d, layout says %d", i, what, r->offset,
		    arch->native->offsets[r->id]);
	FUZZ_ASSERT(r->entry >= -1 && r->entry < arch->nregs,
		    "arg %d %s: entry %d", i, what, r->entry);
	if (r->entry >= 0)
		FUZZ_ASSERT(arch->regs[r->entry].id == r->id,
			    "arg %d %s: entry and id disagree", i, what);
	FUZZ_ASSERT(r->width >= 1 && r->width <= 8 && r->shift < 64,
		    "arg %d %s: width %u shift %u", i, what, r->width, r->shift);
}

/* The per-argument invariants: spans inside its own text, sane enums,
 * a message exactly when the status is not ok. */
static inline void fz_check_arg(const struct usdtkit_arch *arch,
			 const struct usdtkit_arg *a, size_t len, int i)
{
	uint64_t end = (uint64_t)a->text_off + a->text_len;

	FUZZ_ASSERT(a->text_len > 0 && end <= len,
		    "arg %d: text [%u, +%u) outside the %zu-byte input", i,
		    a->text_off, a->text_len, len);
	FUZZ_ASSERT(a->op_off >= a->text_off && a->op_off <= end,
		    "arg %d: operand at %u outside its text [%u, %llu)", i,
		    a->op_off, a->text_off, (unsigned long long)end);
	FUZZ_ASSERT(a->kind <= USDTKIT_LOC_UNREADABLE, "arg %d: kind %u", i,
		    a->kind);
	FUZZ_ASSERT(a->status <= USDTKIT_ARG_AMBIGUOUS, "arg %d: status %u", i,
		    a->status);
	FUZZ_ASSERT(a->reloc <= USDTKIT_RELOC_GOT_OFST, "arg %d: reloc %u", i,
		    a->reloc);
	FUZZ_ASSERT((a->status == USDTKIT_ARG_OK) == (a->error == NULL),
		    "arg %d: status %s with message %s", i,
		    usdtkit_arg_status_str(a->status),
		    a->error ? a->error : "(none)");
	if (a->status != USDTKIT_ARG_OK)
		FUZZ_ASSERT(a->error_pos >= a->text_off && a->error_pos <= end,
			    "arg %d: error at %u outside its text [%u, %llu)",
			    i, a->error_pos, a->text_off,
			    (unsigned long long)end);
	FUZZ_ASSERT((a->status == USDTKIT_ARG_INVALID) ==
			    (a->kind == USDTKIT_LOC_INVALID),
		    "arg %d: status %s but kind %s", i,
		    usdtkit_arg_status_str(a->status),
		    usdtkit_loc_kind_str(a->kind));
	if (a->kind == USDTKIT_LOC_SYMBOL || a->kind == USDTKIT_LOC_UNREADABLE)
		FUZZ_ASSERT(a->sym_off >= a->op_off &&
				    (uint64_t)a->sym_off + a->sym_len <= end,
			    "arg %d: name [%u, +%u) outside its operand", i,
			    a->sym_off, a->sym_len);
	/* the first problem found sets the status: a size BPF cannot read
	 * may hide behind another one, never behind ok */
	if (a->status == USDTKIT_ARG_OK || a->status == USDTKIT_ARG_UNRESOLVED ||
	    a->status == USDTKIT_ARG_AMBIGUOUS)
		FUZZ_ASSERT(a->size == 1 || a->size == 2 || a->size == 4 ||
				    a->size == 8,
			    "arg %d: size %u with status %s", i, a->size,
			    usdtkit_arg_status_str(a->status));
	/* an invalid argument's location fields are not part of the IR:
	 * the parse stopped where it failed, so they may be half set */
	if (a->status == USDTKIT_ARG_INVALID)
		return;
	if (a->index.id >= 0)
		FUZZ_ASSERT(a->scale == 1 || a->scale == 2 || a->scale == 4 ||
				    a->scale == 8,
			    "arg %d: scale %u", i, a->scale);
	fz_check_reg(arch, &a->reg, "reg", i);
	fz_check_reg(arch, &a->reg_hi, "reg_hi", i);
	fz_check_reg(arch, &a->base, "base", i);
	fz_check_reg(arch, &a->index, "index", i);
}

/*
 * The list invariants: arguments in order, never overlapping, and only
 * blanks between them (no byte of the input is lost or counted twice, so
 * one bad argument cannot shift the indices of the next).
 */
static inline void fz_check_args(const struct usdtkit_arch *arch, const char *text,
			  size_t len, const struct usdtkit_arg *args, int n)
{
	size_t pos = 0;
	int i;

	fz_ctx = text;
	fz_ctx_len = len;
	for (i = 0; i < n; i++) {
		const struct usdtkit_arg *a = &args[i];

		fz_check_arg(arch, a, len, i);
		FUZZ_ASSERT(a->text_off >= pos && (i == 0 || a->text_off > pos),
			    "arg %d at %u overlaps or touches the previous, which ends at %zu",
			    i, a->text_off, pos);
		for (; pos < a->text_off; pos++)
			FUZZ_ASSERT(fz_blank(text[pos]),
				    "byte %zu before arg %d is 0x%02x, not a blank",
				    pos, i, (unsigned char)text[pos]);
		pos = (size_t)a->text_off + a->text_len;
	}
	/* the text belongs to the caller: never print it after this */
	fz_ctx = NULL;
	fz_ctx_len = 0;
}

static inline int fz_reg_eq(const struct usdtkit_reg *a, const struct usdtkit_reg *b)
{
	return a->id == b->id && a->entry == b->entry && a->offset == b->offset &&
	       a->width == b->width && a->shift == b->shift;
}

/*
 * Field by field (struct padding is not part of the IR). With @pos, also
 * the positions in the text; @shift is subtracted from @a's positions
 * first (an argument parsed again from a substring).
 */
static inline int fz_arg_eq(const struct usdtkit_arg *a, const struct usdtkit_arg *b,
		     bool pos, uint32_t shift)
{
	bool named = a->kind == USDTKIT_LOC_SYMBOL ||
		     a->kind == USDTKIT_LOC_UNREADABLE;

	if (pos && (a->text_off - shift != b->text_off ||
		    a->text_len != b->text_len || a->op_off - shift != b->op_off ||
		    (named && a->sym_off - shift != b->sym_off) ||
		    (a->status != USDTKIT_ARG_OK &&
		     a->error_pos - shift != b->error_pos)))
		return 0;
	return a->size == b->size && a->is_signed == b->is_signed &&
	       a->is_float == b->is_float && a->size_given == b->size_given &&
	       a->kind == b->kind && a->status == b->status &&
	       a->reloc == b->reloc && a->pc_rel == b->pc_rel &&
	       a->deref == b->deref && a->scale == b->scale &&
	       a->value == b->value && a->disp == b->disp &&
	       fz_reg_eq(&a->reg, &b->reg) && fz_reg_eq(&a->reg_hi, &b->reg_hi) &&
	       fz_reg_eq(&a->base, &b->base) && fz_reg_eq(&a->index, &b->index) &&
	       a->sym_len == b->sym_len && a->error == b->error;
}

/* Parse @text with @max slots (heap, exact size, so ASan sees overruns). */
static inline int fz_parse(const struct usdtkit_arch *arch, const char *text,
		    size_t len, struct usdtkit_arg **out, size_t max)
{
	struct usdtkit_arg *args = calloc(max ? max : 1, sizeof(*args));
	int n;

	FUZZ_ASSERT(args, "out of memory");
	n = usdtkit_args_parse(arch, text, len, args, max);
	*out = args;
	return n;
}

/* ------------------------------------------------------------------ */
/* The evaluator against a bounded memory                             */
/* ------------------------------------------------------------------ */

#define FZ_MEM_SIZE 256

struct fz_mem {
	uint64_t base;		/* the only readable bytes: [base, base+256) */
	uint8_t bytes[FZ_MEM_SIZE];
	unsigned int want;	/* the size the argument asks for */
	uint64_t addr_max;	/* 32-bit targets: addresses wrap */
	unsigned int calls, refused;
	uint64_t addr;		/* of the last read */
};

static inline int fz_read_mem(void *cookie, uint64_t addr, void *buf, size_t size)
{
	struct fz_mem *m = cookie;

	m->calls++;
	m->addr = addr;
	FUZZ_ASSERT(buf && size == m->want,
		    "read of %zu bytes for a %u-byte argument", size, m->want);
	FUZZ_ASSERT(addr <= m->addr_max, "address 0x%llx past the target's space",
		    (unsigned long long)addr);
	if (addr < m->base || addr - m->base > FZ_MEM_SIZE ||
	    size > FZ_MEM_SIZE - (addr - m->base)) {
		m->refused++;
		return -EFAULT;
	}
	memcpy(buf, m->bytes + (addr - m->base), size);
	return 0;
}

/* The value of a memory read is the bytes read, in the target's byte
 * order, sign- or zero-extended. */
static inline void fz_check_loaded(const struct usdtkit_arch *arch,
				   const struct usdtkit_arg *a, const uint8_t *p,
				   uint64_t v)
{
	bool be = usdtkit_arch_elf_data(arch) == 2;
	uint64_t want = 0;
	unsigned int i, n = a->size;

	for (i = 0; i < n; i++)
		want = want << 8 | p[be ? i : n - 1 - i];
	if (a->is_signed && !a->is_float && n < 8 && (want >> (n * 8 - 1)) & 1)
		want |= ~UINT64_C(0) << (n * 8);
	FUZZ_ASSERT(v == want, "read 0x%llx, evaluated to 0x%llx",
		    (unsigned long long)want, (unsigned long long)v);
}

/*
 * A register snapshot for layout @l: with an odd @seed, every slot holds
 * 0x1000 plus a small offset, in the layout's byte order, so base + disp
 * often lands in the readable memory; else bytes of @seed (reads are
 * mostly refused).
 */
static inline void fz_fill_regs(uint8_t *regs, size_t size,
				const struct usdtkit_layout *l, uint64_t seed)
{
	size_t i, b;

	for (i = 0; i < size; i++)
		regs[i] = (uint8_t)((seed >> (8 * (i % 8))) + i / 8);
	if (!(seed & 1))
		return;
	for (i = 0; i + l->slot_size <= size; i += l->slot_size) {
		uint64_t v = 0x1000 + (i * 8 + seed) % 200;

		for (b = 0; b < l->slot_size; b++)
			regs[i + (l->big_endian ? l->slot_size - 1 - b : b)] =
				(uint8_t)(b < 8 ? v >> (8 * b) : 0);
	}
}

/*
 * Evaluate @a with a register snapshot made of @seed bytes (every layout
 * the arch has) and the bounded memory: only MEM arguments may call the
 * reader, once, for exactly their size; a refused read is an error, never
 * a value. Registers are set so that base + disp often lands inside.
 */
static inline void fz_check_eval(const struct usdtkit_arch *arch,
			  const struct usdtkit_arg *a, uint64_t seed)
{
	static const enum usdtkit_layout_kind kinds[] = { USDTKIT_LAYOUT_NATIVE,
							   USDTKIT_LAYOUT_COMPAT64 };
	uint8_t regs[1024];
	size_t k, i;

	for (k = 0; k < 2; k++) {
		const struct usdtkit_layout *l = usdtkit_arch_layout(arch, kinds[k]);
		struct fz_mem m = { .base = 0x1000, .want = a->size };
		USDTKIT_OPTS(usdtkit_eval_opts, o, .regs = regs, .layout = kinds[k],
			     .ip = 0x1000 + (seed & 0xff), .read_mem = fz_read_mem,
			     .cookie = &m);
		uint64_t v = 0;
		int err;

		if (!l)
			continue;
		FUZZ_ASSERT(l->size <= sizeof(regs), "layout of %u bytes", l->size);
		fz_fill_regs(regs, sizeof(regs), l, seed);
		m.addr_max = arch->ptr_size == 4 ? UINT32_MAX : UINT64_MAX;
		for (i = 0; i < FZ_MEM_SIZE; i++)
			m.bytes[i] = (uint8_t)(i * 7 + seed);
		o.regs_size = l->size;
		err = usdtkit_arg_eval(arch, a, &o, &v);
		FUZZ_ASSERT(m.calls <= 1, "%u reads for one argument", m.calls);
		FUZZ_ASSERT(!m.calls || a->kind == USDTKIT_LOC_MEM,
			    "a %s argument read memory", usdtkit_loc_kind_str(a->kind));
		if (m.refused)
			FUZZ_ASSERT(err == -EFAULT, "refused read gave %d", err);
		if (!err && a->kind == USDTKIT_LOC_MEM) {
			FUZZ_ASSERT(m.calls == 1 && !m.refused, "value without a read");
			fz_check_loaded(arch, a, m.bytes + (m.addr - m.base), v);
		}
		if (a->status != USDTKIT_ARG_OK)
			FUZZ_ASSERT(err < 0, "status %s evaluated to a value",
				    usdtkit_arg_status_str(a->status));
		if (!err && a->size < 8 && !a->is_signed)
			FUZZ_ASSERT(v >> (a->size * 8) == 0,
				    "u%u value 0x%llx not zero-extended", a->size * 8,
				    (unsigned long long)v);
		/* a snapshot one byte short of a register must be refused */
		o.regs_size = 0;
		m.calls = m.refused = 0;
		err = usdtkit_arg_eval(arch, a, &o, &v);
		if (a->kind == USDTKIT_LOC_REG && a->status == USDTKIT_ARG_OK)
			FUZZ_ASSERT(err == -ERANGE, "empty snapshot gave %d", err);
	}
}

/* The text form must say the same thing whatever the buffer size. */
static inline void fz_check_snprintf(const struct usdtkit_arch *arch,
			      const char *spec, const struct usdtkit_arg *a)
{
	char full[4096], part[17];
	int n = usdtkit_arg_snprintf(full, sizeof(full), arch, spec, a);
	int m = usdtkit_arg_snprintf(part, sizeof(part), arch, spec, a);

	FUZZ_ASSERT(n >= 0 && n == m, "lengths %d and %d", n, m);
	if ((size_t)n < sizeof(full))
		FUZZ_ASSERT(strlen(full) == (size_t)n, "length %d, wrote %zu", n,
			    strlen(full));
	FUZZ_ASSERT(strlen(part) == ((size_t)n < sizeof(part) ? (size_t)n : sizeof(part) - 1) &&
			    !strncmp(full, part, strlen(part)),
		    "truncated form is not a prefix: \"%s\" vs \"%s\"", part, full);
}

#endif /* USDTKIT_FUZZ_CHECK_H */
