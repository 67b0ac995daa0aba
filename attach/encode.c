// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The IR of one site -> struct usdtkit_bpf_spec, the bytes the program
 * reads. Register offsets are taken from the layout of the kernel that
 * runs the target: a 32-bit binary on a 64-bit kernel of the same family
 * is read through the 64-bit pt_regs (COMPAT64).
 */
#include <errno.h>
#include <string.h>
#include <sys/utsname.h>

#include "internal.h"

static bool kernel_is_64bit(void)
{
	struct utsname u;

	if (uname(&u))
		return sizeof(long) == 8;
	return strstr(u.machine, "64") || !strcmp(u.machine, "s390x");
}

enum usdtkit_layout_kind usdtkit__kernel_layout(const struct usdtkit_arch *arch)
{
	if (usdtkit_arch_ptr_size(arch) == 4 && kernel_is_64bit() &&
	    usdtkit_arch_layout(arch, USDTKIT_LAYOUT_COMPAT64))
		return USDTKIT_LAYOUT_COMPAT64;
	return USDTKIT_LAYOUT_NATIVE;
}

struct enc {
	const struct usdtkit_log *lg;
	const char *where;	/* "FILE: PROVIDER:NAME" */
	const char *text;
	const struct usdtkit_layout *layout;
};

static int refuse(const struct enc *e, int i, const struct usdtkit_arg *a,
		  const char *why)
{
	usdtkit__warn(e->lg, "%s: argument %d '%.*s' (byte %u of '%s'): %s",
		      e->where, i, (int)a->text_len, e->text + a->text_off,
		      a->text_off, e->text, why);
	return -EOPNOTSUPP;
}

/* A register view in the kernel's layout; -1 when it has no slot. */
static int reg_off(const struct enc *e, const struct usdtkit_reg *r, short *off)
{
	if (r->id < 0) {
		*off = USDTKIT_BPF_NO_REG;
		return 0;
	}
	if (r->id >= e->layout->nregs || e->layout->offsets[r->id] < 0)
		return -ENOENT;
	*off = e->layout->offsets[r->id];
	return 0;
}

static int scale_shift(unsigned int scale)
{
	switch (scale) {
	case 0:
	case 1:
		return 0;
	case 2:
		return 1;
	case 4:
		return 2;
	case 8:
		return 3;
	}
	return -1;
}

static int encode_arg(const struct enc *e, int i, const struct usdtkit_arg *a,
		      uint8_t ptr_size, struct usdtkit_bpf_arg *out)
{
	int sh;

	if (a->status != USDTKIT_ARG_OK)
		return refuse(e, i, a, a->error ? a->error :
			      usdtkit_arg_status_str(a->status));
	if (a->size != 1 && a->size != 2 && a->size != 4 && a->size != 8)
		return refuse(e, i, a, "size is not 1, 2, 4 or 8 bytes");
	memset(out, 0, sizeof(*out));
	out->size = (unsigned char)a->size;
	out->flags = a->is_signed && !a->is_float ? USDTKIT_BPF_F_SIGNED : 0;
	if (a->pc_rel)
		out->flags |= USDTKIT_BPF_F_PC_REL;
	if (ptr_size == 4)
		out->flags |= USDTKIT_BPF_F_ADDR32;
	switch (a->kind) {
	case USDTKIT_LOC_CONST:
		out->kind = USDTKIT_BPF_ARG_CONST;
		out->disp = a->value;
		out->base_off = out->index_off = USDTKIT_BPF_NO_REG;
		return 0;
	case USDTKIT_LOC_REG:
		out->kind = USDTKIT_BPF_ARG_REG;
		if (reg_off(e, &a->reg, &out->base_off) ||
		    reg_off(e, &a->reg_hi, &out->index_off))
			return refuse(e, i, a, "register not in the kernel's pt_regs");
		out->base_width = a->reg.width;
		out->base_shift = a->reg.shift;
		if (a->reg_hi.id >= 0) {
			out->flags |= USDTKIT_BPF_F_HI;
			out->index_width = a->reg_hi.width;
			out->index_shift = a->reg_hi.shift;
		}
		return 0;
	case USDTKIT_LOC_MEM:
		out->kind = USDTKIT_BPF_ARG_MEM;
		out->disp = a->disp;
		if (reg_off(e, &a->base, &out->base_off) ||
		    reg_off(e, &a->index, &out->index_off))
			return refuse(e, i, a, "register not in the kernel's pt_regs");
		out->base_width = a->base.width;
		out->base_shift = a->base.shift;
		out->index_width = a->index.width;
		out->index_shift = a->index.shift;
		sh = scale_shift(a->scale);
		if (sh < 0)
			return refuse(e, i, a, "index scale is not 1, 2, 4 or 8");
		out->scale_shift = (unsigned char)sh;
		return 0;
	case USDTKIT_LOC_SYMBOL:
		return refuse(e, i, a, "symbol not resolved");
	}
	return refuse(e, i, a, "not readable from BPF");
}

int usdtkit__spec_encode(const struct usdtkit_log *lg, const char *where,
			 const struct usdtkit_arch *arch, const char *spec_text,
			 const struct usdtkit_arg *args, int nargs,
			 uint64_t cookie, enum usdtkit_spec_abi abi,
			 void *out, size_t out_size)
{
	struct usdtkit_bpf_spec *s = out;
	struct enc e = { .lg = lg, .where = where, .text = spec_text };
	int i, err;

	if (abi != USDTKIT_ABI_OWN || out_size < sizeof(*s))
		return -EOPNOTSUPP;
	e.layout = usdtkit_arch_layout(arch, usdtkit__kernel_layout(arch));
	if (!e.layout)
		return -ENOENT;
	if (nargs > USDTKIT_BPF_MAX_ARGS) {
		usdtkit__warn(lg, "%s: %d arguments, BPF specs hold %d", where,
			      nargs, USDTKIT_BPF_MAX_ARGS);
		return -E2BIG;
	}
	memset(s, 0, sizeof(*s));
	s->version = USDTKIT_BPF_SPEC_VERSION;
	s->arg_cnt = (unsigned short)nargs;
	s->slot_size = e.layout->slot_size;
	s->cookie = (long long)cookie;
	for (i = 0; i < nargs; i++) {
		err = encode_arg(&e, i, &args[i], usdtkit_arch_ptr_size(arch),
				 &s->args[i]);
		if (err)
			return err;
	}
	return 0;
}
