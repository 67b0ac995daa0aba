// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The user-space evaluator: what a BPF program would read at a probe hit,
 * computed from a register snapshot and a memory reader. Byte order and
 * slot size come from the layout and the arch, never from the host, so an
 * s390x snapshot evaluates the same on an x86-64 host.
 */
#include <errno.h>

#include "spec/arch.h"
#include "base/opts.h"

static uint64_t load_bytes(const uint8_t *p, size_t n, bool big_endian)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		size_t k = big_endian ? i : n - 1 - i;

		v = (v << 8) | p[k];
	}
	return v;
}

static uint64_t low_bits(uint64_t v, unsigned int bytes)
{
	return bytes >= 8 ? v : v & ((UINT64_C(1) << (bytes * 8)) - 1);
}

static int read_reg(const struct usdtkit_layout *l,
		    const struct usdtkit_eval_opts *o, int id, uint64_t *out)
{
	int off;

	if (id < 0 || id >= l->nregs || l->offsets[id] < 0)
		return -ERANGE;
	off = l->offsets[id];
	if ((size_t)off + l->slot_size > o->regs_size)
		return -ERANGE;
	*out = load_bytes((const uint8_t *)o->regs + off, l->slot_size,
			  l->big_endian);
	return 0;
}

static int reg_view(const struct usdtkit_layout *l,
		    const struct usdtkit_eval_opts *o,
		    const struct usdtkit_reg *r, uint64_t *out)
{
	int err = read_reg(l, o, r->id, out);

	if (!err)
		*out = low_bits(*out >> r->shift, r->width);
	return err;
}

static int eval_reg(const struct usdtkit_layout *l,
		    const struct usdtkit_eval_opts *o,
		    const struct usdtkit_arg *arg, uint64_t *v)
{
	uint64_t hi;
	int err = reg_view(l, o, &arg->reg, v);

	if (err || arg->reg_hi.id < 0)
		return err;
	err = reg_view(l, o, &arg->reg_hi, &hi);
	*v |= hi << (arg->reg.width * 8);
	return err;
}

static int eval_mem(const struct usdtkit_arch *arch,
		    const struct usdtkit_layout *l,
		    const struct usdtkit_eval_opts *o,
		    const struct usdtkit_arg *arg, uint64_t *v)
{
	uint64_t addr = (uint64_t)arg->disp, r;
	uint8_t buf[8] = { 0 };
	int err;

	if (arg->pc_rel)
		addr += o->ip;
	if (arg->base.id >= 0) {
		err = reg_view(l, o, &arg->base, &r);
		if (err)
			return err;
		addr += r;
	}
	if (arg->index.id >= 0) {
		err = reg_view(l, o, &arg->index, &r);
		if (err)
			return err;
		addr += r * (arg->scale ? arg->scale : 1);
	}
	/* 32-bit targets wrap their address arithmetic at 4 GiB */
	addr = low_bits(addr, arch->ptr_size);
	if (!o->read_mem)
		return -EINVAL;
	err = o->read_mem(o->cookie, addr, buf, arg->size);
	if (err)
		return err < 0 ? err : -EIO;
	*v = load_bytes(buf, arg->size, arch->elf_data == USDTKIT_ELFDATA2MSB);
	return 0;
}

static int status_errno(const struct usdtkit_arg *arg)
{
	switch (arg->status) {
	case USDTKIT_ARG_OK:
		return 0;
	case USDTKIT_ARG_UNRESOLVED:
	case USDTKIT_ARG_AMBIGUOUS:
		return -ENOENT;
	case USDTKIT_ARG_INVALID:
		return -EINVAL;
	default:
		return -EOPNOTSUPP;
	}
}

static uint64_t extend(uint64_t v, unsigned int size, bool is_signed)
{
	v = low_bits(v, size);
	if (is_signed && size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~UINT64_C(0) << (size * 8);
	return v;
}

int usdtkit_arg_eval(const struct usdtkit_arch *arch,
		     const struct usdtkit_arg *arg,
		     const struct usdtkit_eval_opts *user, uint64_t *value)
{
	struct usdtkit_eval_opts o, *opts = &o;
	const struct usdtkit_layout *l;
	uint64_t v = 0;
	int err;

	if (!arch || !arg || !user || !value ||
	    usdtkit__opts_copy(&o, usdtkit_eval_opts, user) || !opts->regs)
		return -EINVAL;
	err = status_errno(arg);
	if (err)
		return err;
	l = usdtkit_arch_layout(arch, opts->layout);
	if (!l)
		return -EINVAL;
	switch (arg->kind) {
	case USDTKIT_LOC_CONST:
		v = (uint64_t)arg->value + (arg->pc_rel ? opts->ip : 0);
		break;
	case USDTKIT_LOC_REG:
		err = eval_reg(l, opts, arg, &v);
		break;
	case USDTKIT_LOC_MEM:
		err = eval_mem(arch, l, opts, arg, &v);
		break;
	case USDTKIT_LOC_SYMBOL:
		return -ENOENT;
	case USDTKIT_LOC_UNREADABLE:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
	if (err)
		return err;
	*value = extend(v, arg->size, arg->is_signed && !arg->is_float);
	return 0;
}
