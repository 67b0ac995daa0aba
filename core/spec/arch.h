/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal view of an architecture backend. One const struct per target in
 * arch/<a>/, its head (identity, IP, compat rule, lexer) generated from the
 * folder's manifest.ini into USDTKIT_MANIFEST_<target> (gen/arch_manifest.h).
 * Every backend is compiled on every host: nothing here depends on the
 * host's architecture.
 */
#ifndef USDTKIT_CORE_ARCH_H
#define USDTKIT_CORE_ARCH_H

#include <usdtkit/usdtkit.h>

#include "spec/lex.h"
#include "arch_manifest.h"

/* ELF constants, so the spec engine needs no <elf.h> on odd hosts. The
 * machines themselves come from the manifests; core/elf/place.c alone asks
 * for two of them (x86-64's nop5 sites, Arm's Thumb sites). */
#define USDTKIT_EM_X86_64	62
#define USDTKIT_EM_ARM		40
#define USDTKIT_ELFCLASS32	1
#define USDTKIT_ELFCLASS64	2
#define USDTKIT_ELFDATA2LSB	1
#define USDTKIT_ELFDATA2MSB	2

/*
 * Match a common operand at [op, end) whole, in one DFA pass, and fill the
 * location fields of @arg; returns where the operand ends (at a blank or
 * @end). NULL for any other shape and for anything invalid, with nothing
 * written: parse_operand then decides. See "whole-operand fast paths" in
 * lex.h.
 */
typedef const char *(*usdtkit_parse_fast_fn)(const struct usdtkit_arch *arch,
					     const char *op, const char *end,
					     struct usdtkit_arg *arg);

/* Parse one operand [lx->cur, lx->end) into @arg (location fields only)
 * with the token grammar. */
typedef void (*usdtkit_parse_operand_fn)(const struct usdtkit_arch *arch,
					 struct usdtkit_lexer *lx,
					 struct usdtkit_arg *arg);

struct usdtkit_arch {
	const char *name;
	uint16_t e_machine;
	uint8_t elf_class;
	uint8_t elf_data;
	uint8_t ptr_size;
	uint8_t flags;			/* USDTKIT_ARCH_* */
	/* pt_regs offset of the IP in each layout (enum usdtkit_layout_kind),
	 * -1 where the layout does not exist */
	int16_t ip_offset[2];
	/* uname machines of the 64-bit kernels that run this 32-bit target
	 * with the compat64 layout, blank-separated; NULL if none */
	const char *compat64_kernels;
	/* uname machines of the kernels that run this target's processes
	 * but never fire a uprobe in them (an arm64 kernel and AArch32
	 * code), blank-separated; NULL if none */
	const char *no_uprobe_kernels;
	/* Debian's multiarch directory name (x86_64-linux-gnu) and the
	 * loader's $PLATFORM (x86_64): where a DT_NEEDED is looked for */
	const char *multiarch, *platform;
	usdtkit_parse_fast_fn parse_fast;
	usdtkit_parse_operand_fn parse_operand;
	const struct usdtkit_regdef *regs;
	uint16_t nregs;
	/* register id -> id of the high half when a value spans a pair of
	 * registers (i386 DImode in %eax is %edx:%eax), -1 where no pair */
	const int8_t *pair_hi;
	const struct usdtkit_layout *native;
	const struct usdtkit_layout *compat64;	/* may be NULL */
};

/* x86 backends share one lexer; 64-bit register names are only legal
 * where the target has them (x86-64 and x32, not i386). */
#define USDTKIT_ARCH_X86_64_REGS	0x01

/* Fill a register token for register-table @entry; an entry the arch does
 * not have (%rax on i386) becomes an error token. */
static inline void usdtkit__tok_reg(struct usdtkit_lexer *lx,
				    struct usdtkit_token *t, const char *start,
				    int entry)
{
	if (entry >= lx->arch->nregs) {
		usdtkit__tok_err(lx, t, start,
				 "register does not exist on this architecture");
		return;
	}
	usdtkit__tok(lx, t, TOK_REG, start);
	t->entry = entry;
}

/* Fill @r from register-table entry @entry of @arch. */
static inline void usdtkit__reg_set(const struct usdtkit_arch *arch,
				    struct usdtkit_reg *r, int entry)
{
	const struct usdtkit_regdef *d = &arch->regs[entry];

	r->id = d->id;
	r->entry = (int16_t)entry;
	r->offset = arch->native->offsets[d->id];
	r->width = d->width;
	r->shift = d->shift;
}

/* Fill @r from the entry a fast-path name lookup returned: false for -1
 * (no such name) and for an entry @arch does not have (%rax on i386). */
static inline bool usdtkit__reg_fill(const struct usdtkit_arch *arch,
				     struct usdtkit_reg *r, int entry)
{
	if ((unsigned int)entry >= arch->nregs)
		return false;
	usdtkit__reg_set(arch, r, entry);
	return true;
}

/* Mark a register reference as "none". */
static inline void usdtkit__reg_clear(struct usdtkit_reg *r)
{
	r->id = -1;
	r->entry = -1;
	r->offset = -1;
	r->width = 0;
	r->shift = 0;
}

/* Set the register reference from the current TOK_REG token, consume it. */
static inline void usdtkit__take_reg(struct usdtkit_lexer *lx,
				     struct usdtkit_reg *r)
{
	usdtkit__reg_set(lx->arch, r, lx->tok.entry);
	usdtkit__advance(lx);
}

/* Whether @machine (a `uname -m`) is one of @list's, blank-separated
 * (NULL: none): the manifests' compat64_kernels, no_uprobe_kernels. */
bool usdtkit__machine_in(const char *list, const char *machine);

#endif /* USDTKIT_CORE_ARCH_H */
