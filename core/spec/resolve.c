// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Symbol-relative operands -> locations BPF can compute. Absolute
 * addresses become "probe IP + displacement" so the resolved spec is the
 * same in every process that maps the file, whatever the load bias.
 */
#include <errno.h>

#include "spec/arch.h"

/*
 * mips %got_ofst(): the base register holds a GOT page entry, which ld
 * makes (S + 0x8000) & ~0xffff for a symbol that binds locally, so the
 * offset is the low 16 bits, sign-extended. GCC uses %got_page/%got_ofst
 * only for such symbols (a preemptible one goes through %got_disp), and
 * the dynamic loader adds the load bias to every local GOT entry.
 */
static int64_t mips_got_ofst(uint64_t v)
{
	return (int64_t)(int16_t)(uint16_t)(v & 0xffff);
}

/* riscv %lo(): the low 12 bits, sign-extended (%hi() rounds to match) */
static int64_t riscv_lo12(uint64_t v)
{
	int64_t lo = (int64_t)(v & 0xfff);

	return lo >= 0x800 ? lo - 0x1000 : lo;
}

int usdtkit_arg_resolve(const struct usdtkit_arch *arch,
			struct usdtkit_arg *arg, uint64_t pc, uint64_t sym_addr,
			uint64_t got_addr)
{
	uint64_t s;
	int64_t off;

	if (!arch || !arg || arg->kind != USDTKIT_LOC_SYMBOL)
		return -EINVAL;
	s = sym_addr + (uint64_t)arg->disp;
	switch (arg->reloc) {
	case USDTKIT_RELOC_NONE:
	case USDTKIT_RELOC_PCREL:
		off = (int64_t)(s - pc);
		arg->pc_rel = true;
		break;
	case USDTKIT_RELOC_LO12:
		off = (int64_t)(s & 0xfff);
		break;
	case USDTKIT_RELOC_RISCV_LO:
		off = riscv_lo12(s);
		break;
	case USDTKIT_RELOC_GOT_OFST:
		/* only an address together with its base register */
		if (!arg->deref || arg->base.id < 0)
			return -EOPNOTSUPP;
		off = mips_got_ofst(s);
		break;
	case USDTKIT_RELOC_GOTOFF:
		off = (int64_t)(s - got_addr);
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (arg->deref) {
		arg->kind = USDTKIT_LOC_MEM;
		arg->disp = off;
	} else {
		if (arg->base.id >= 0 || arg->index.id >= 0)
			return -EINVAL;
		arg->kind = USDTKIT_LOC_CONST;
		arg->value = off;
		arg->disp = 0;
	}
	if (arg->status == USDTKIT_ARG_UNRESOLVED ||
	    arg->status == USDTKIT_ARG_AMBIGUOUS) {
		arg->status = USDTKIT_ARG_OK;
		arg->error = NULL;
		arg->error_pos = 0;
	}
	return 0;
}
