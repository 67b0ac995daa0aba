// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The sscanf() reference parser: see sscanf_baseline.h. Every family has
 * its patterns, tried in libbpf's order, and one register lookup. Offsets
 * are those of the kernel's user-visible register struct of each target
 * (x86 struct pt_regs, arm64 user_pt_regs, arm pt_regs uregs[], riscv
 * user_regs_struct, s390 user_pt_regs); they only matter
 * for the checksum and for cross-checking against usdtkit.
 */
#include "sscanf_baseline.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

struct sb_regname {
	const char *name;
	int16_t off;
};

/* what a pattern's conversions after the size are, in order */
enum sb_fields {
	SB_F_OFF_REG,	/* " %d @ %ld ( %15[...] ) %n": offset, register */
	SB_F_REG_OFF,	/* " %d @ [ %15[...] , %ld ] %n": register, offset */
	SB_F_REG,	/* register */
	SB_F_OFF,	/* offset (a constant) */
};

/* One pattern of a family, tried in libbpf's order: the first whose
 * conversions all match wins. */
struct sb_form {
	const char *fmt;
	enum sb_fields fields;
	enum sb_kind kind;
};

#define SB_MAX_FORMS 4

struct sb_parser {
	const char *name;
	struct sb_form forms[SB_MAX_FORMS];	/* up to the first NULL fmt */
	/* the register's offset, or -errno: a table looked up by strcmp in
	 * order (@regs), or a family's own reading of the name */
	int (*reg)(const struct sb_parser *p, const char *name);
	const struct sb_regname *regs;
	size_t nregs;
};

/* ---- register lookup: first match wins, like libbpf ---- */

static int lookup_reg(const struct sb_parser *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nregs; i++)
		if (strcmp(name, p->regs[i].name) == 0)
			return p->regs[i].off;
	return -ENOENT;
}

/*
 * x86-64 struct pt_regs: r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx
 * rsi rdi orig_rax rip cs eflags rsp ss, 8 bytes each. Every view of a
 * register maps to the same slot, in libbpf's order: the instruction
 * pointer first, then the legacy registers, then r8-r15.
 */
#define X64(a, b, c, d, off) \
	{ a, off }, { b, off }, { c, off }, { d, off }
static const struct sb_regname x86_64_regs[] = {
	{ "rip", 128 }, { "eip", 128 },
	X64("rax", "eax", "ax", "al", 80),
	X64("rbx", "ebx", "bx", "bl", 40),
	X64("rcx", "ecx", "cx", "cl", 88),
	X64("rdx", "edx", "dx", "dl", 96),
	X64("rsi", "esi", "si", "sil", 104),
	X64("rdi", "edi", "di", "dil", 112),
	X64("rbp", "ebp", "bp", "bpl", 32),
	X64("rsp", "esp", "sp", "spl", 152),
	X64("r8", "r8d", "r8w", "r8b", 72),
	X64("r9", "r9d", "r9w", "r9b", 64),
	X64("r10", "r10d", "r10w", "r10b", 56),
	X64("r11", "r11d", "r11w", "r11b", 48),
	X64("r12", "r12d", "r12w", "r12b", 24),
	X64("r13", "r13d", "r13w", "r13b", 16),
	X64("r14", "r14d", "r14w", "r14b", 8),
	X64("r15", "r15d", "r15w", "r15b", 0),
};

/*
 * i386 struct pt_regs: ebx ecx edx esi edi ebp eax ds es fs gs orig_eax eip
 * cs eflags esp ss, 4 bytes each. libbpf built for i386 keeps the 64-bit
 * names in the table too (they map to the 32-bit slots) and has no r8-r15.
 */
static const struct sb_regname i386_regs[] = {
	{ "rip", 48 }, { "eip", 48 },
	X64("rax", "eax", "ax", "al", 24),
	X64("rbx", "ebx", "bx", "bl", 0),
	X64("rcx", "ecx", "cx", "cl", 4),
	X64("rdx", "edx", "dx", "dl", 8),
	X64("rsi", "esi", "si", "sil", 12),
	X64("rdi", "edi", "di", "dil", 16),
	X64("rbp", "ebp", "bp", "bpl", 20),
	X64("rsp", "esp", "sp", "spl", 60),
};
#undef X64

/*
 * s390x user_pt_regs: args[1], psw (mask, addr), gprs[16]. Registers are
 * read as a number after "%r", no table.
 */
static int s390x_reg(const struct sb_parser *p, const char *name)
{
	unsigned int reg;

	(void)p;
	if (sscanf(name, "%u", &reg) != 1 || reg > 15)
		return -EINVAL;
	return 24 + 8 * (int)reg;
}

/*
 * arm64 user_pt_regs: regs[31], sp, pc, pstate. libbpf reads "x<N>" with
 * sscanf and compares "sp" with strcmp; w registers are not known.
 */
static int arm64_reg(const struct sb_parser *p, const char *name)
{
	int num;

	(void)p;

	if (sscanf(name, "x%d", &num) == 1) {
		if (num >= 0 && num < 31)
			return 8 * num;
	} else if (strcmp(name, "sp") == 0) {
		return 248;
	}
	return -ENOENT;
}

/* riscv user_regs_struct: pc ra sp gp tp t0-t2 s0 s1 a0-a7 s2-s11 t3-t6 */
static const struct sb_regname riscv_regs[] = {
	{ "ra", 8 },	{ "sp", 16 },	{ "gp", 24 },	{ "tp", 32 },
	{ "a0", 80 },	{ "a1", 88 },	{ "a2", 96 },	{ "a3", 104 },
	{ "a4", 112 },	{ "a5", 120 },	{ "a6", 128 },	{ "a7", 136 },
	{ "s0", 64 },	{ "s1", 72 },	{ "s2", 144 },	{ "s3", 152 },
	{ "s4", 160 },	{ "s5", 168 },	{ "s6", 176 },	{ "s7", 184 },
	{ "s8", 192 },	{ "s9", 200 },	{ "s10", 208 },	{ "s11", 216 },
	{ "t0", 40 },	{ "t1", 48 },	{ "t2", 56 },	{ "t3", 224 },
	{ "t4", 232 },	{ "t5", 240 },	{ "t6", 248 },
};

/* arm struct pt_regs: uregs[18]; r11-r15 go by their ABI names */
static const struct sb_regname arm_regs[] = {
	{ "r0", 0 },	{ "r1", 4 },	{ "r2", 8 },	{ "r3", 12 },
	{ "r4", 16 },	{ "r5", 20 },	{ "r6", 24 },	{ "r7", 28 },
	{ "r8", 32 },	{ "r9", 36 },	{ "r10", 40 },	{ "fp", 44 },
	{ "ip", 48 },	{ "sp", 52 },	{ "lr", 56 },	{ "pc", 60 },
};

/* the patterns of each family, in libbpf's order, with an example */
#define X86_FORMS {							\
	{ " %d @ %ld ( %%%15[^)] ) %n", SB_F_OFF_REG, SB_REG_DEREF },	/* -4@-20(%rbp) */ \
	{ " %d @ ( %%%15[^)] ) %n", SB_F_REG, SB_REG_DEREF },		/* 8@(%rsp) */ \
	{ " %d @ %%%15s %n", SB_F_REG, SB_REG },			/* -4@%eax */ \
	{ " %d @ $%ld %n", SB_F_OFF, SB_CONST },			/* 4@$71 */ \
}

static const struct sb_parser parsers[] = {
	{ "x86_64", X86_FORMS, lookup_reg, x86_64_regs, N_ELEMS(x86_64_regs) },
	{ "x32", X86_FORMS, lookup_reg, x86_64_regs, N_ELEMS(x86_64_regs) },
	{ "i386", X86_FORMS, lookup_reg, i386_regs, N_ELEMS(i386_regs) },
	{ "aarch64", {
		{ " %d @ [ %15[a-z0-9] , %ld ] %n", SB_F_REG_OFF, SB_REG_DEREF }, /* -4@[sp, 96] */
		{ " %d @ [ %15[a-z0-9] ] %n", SB_F_REG, SB_REG_DEREF },	/* -4@[sp] */
		{ " %d @ %ld %n", SB_F_OFF, SB_CONST },			/* 4@5 */
		{ " %d @ %15[a-z0-9] %n", SB_F_REG, SB_REG },		/* -8@x4 */
	}, arm64_reg, NULL, 0 },
	{ "arm", {
		{ " %d @ [ %15[a-z0-9] , #%ld ] %n", SB_F_REG_OFF, SB_REG_DEREF }, /* -4@[fp, #96] */
		{ " %d @ [ %15[a-z0-9] ] %n", SB_F_REG, SB_REG_DEREF },	/* -4@[sp] */
		{ " %d @ #%ld %n", SB_F_OFF, SB_CONST },			/* 4@#5 */
		{ " %d @ %15[a-z0-9] %n", SB_F_REG, SB_REG },		/* -8@r4 */
	}, lookup_reg, arm_regs, N_ELEMS(arm_regs) },
	{ "riscv64", {
		{ " %d @ %ld ( %15[a-z0-9] ) %n", SB_F_OFF_REG, SB_REG_DEREF }, /* -8@-88(s0) */
		{ " %d @ %ld %n", SB_F_OFF, SB_CONST },			/* 4@5 */
		{ " %d @ %15[a-z0-9] %n", SB_F_REG, SB_REG },		/* -8@a1 */
	}, lookup_reg, riscv_regs, N_ELEMS(riscv_regs) },
	{ "s390x", {
		{ " %d @ %ld ( %%r%15[0-9] ) %n", SB_F_OFF_REG, SB_REG_DEREF }, /* -2@-28(%r15) */
		{ " %d @ %%r%15[0-9] %n", SB_F_REG, SB_REG },		/* -8@%r0 */
		{ " %d @ %ld %n", SB_F_OFF, SB_CONST },			/* 4@71 */
	}, s390x_reg, NULL, 0 },
};
#undef X86_FORMS

/* @f against @s: its conversions into @size, @off and @reg, and the
 * characters it ate into @n; matched or not */
static bool form_matches(const struct sb_form *f, const char *s, int *size,
			 long *off, char reg[16], int *n)
{
	*off = 0;
	switch (f->fields) {
	case SB_F_OFF_REG:
		return sscanf(s, f->fmt, size, off, reg, n) == 3;
	case SB_F_REG_OFF:
		return sscanf(s, f->fmt, size, reg, off, n) == 3;
	case SB_F_REG:
		return sscanf(s, f->fmt, size, reg, n) == 2;
	case SB_F_OFF:
		return sscanf(s, f->fmt, size, off, n) == 2;
	}
	return false;
}

/* one argument at @s: the characters eaten, or -errno */
static int parse_arg(const struct sb_parser *p, const char *s,
		     struct sb_arg *arg, int *size)
{
	const struct sb_form *f;
	char reg[16];
	long off;
	int n = 0, r;

	for (f = p->forms; f < p->forms + SB_MAX_FORMS && f->fmt; f++) {
		if (!form_matches(f, s, size, &off, reg, &n))
			continue;
		arg->kind = f->kind;
		arg->val_off = off;
		if (f->kind == SB_CONST) {
			arg->reg_off = -1;
			return n;
		}
		r = p->reg(p, reg);
		if (r < 0)
			return r;
		arg->reg_off = (int16_t)r;
		return n;
	}
	return -EINVAL;
}

const struct sb_parser *sb_parser_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < N_ELEMS(parsers); i++)
		if (strcmp(parsers[i].name, name) == 0)
			return &parsers[i];
	return NULL;
}

const char *sb_parser_name(const struct sb_parser *p)
{
	return p->name;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

/*
 * Length of the argument at @s when it failed: up to the next blank that
 * is not inside () or []. (libbpf needs no such thing: it stops at the
 * first failure.)
 */
static int skip_arg(const char *s)
{
	const char *q = s;
	int depth = 0;

	while (is_blank(*q))
		q++;
	for (; *q; q++) {
		if (*q == '(' || *q == '[')
			depth++;
		else if ((*q == ')' || *q == ']') && depth > 0)
			depth--;
		else if (is_blank(*q) && depth == 0)
			break;
	}
	while (is_blank(*q))
		q++;
	return (int)(q - s);
}

__attribute__((noinline)) int
sb_args_parse(const struct sb_parser *p, const char *s, struct sb_arg *out,
		  int max, int *nfailed)
{
	struct sb_arg scratch;
	int cnt = 0, failed = 0;

	/* libbpf: while (s[0]) { ... s += len; } */
	while (s[0]) {
		struct sb_arg *arg = cnt < max ? &out[cnt] : &scratch;
		int size = 0, len;

		arg->reg_off = -1;
		len = parse_arg(p, s, arg, &size);
		if (len > 0) {
			arg->is_signed = size < 0;
			if (size < 0)
				size = -size;
			if (size != 1 && size != 2 && size != 4 && size != 8)
				len = -EINVAL;
		}
		if (len <= 0) {
			arg->kind = SB_FAILED;
			arg->size = 0;
			arg->is_signed = 0;
			arg->reg_off = -1;
			arg->val_off = 0;
			failed++;
			len = skip_arg(s);
			if (len == 0)
				break;
		} else {
			arg->size = (uint8_t)size;
		}
		s += len;
		cnt++;
	}
	*nfailed = failed;
	return cnt;
}
