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

#include "spec/arch.h"
#include "attach/internal.h"

/*
 * The register file the running kernel hands a BPF program for @arch: the
 * compat64 layout when the manifest names this kernel's machine among the
 * 64-bit kernels that run the 32-bit target (an arm process on an arm64
 * kernel), else the native one.
 */
static enum usdtkit_layout_kind kernel_layout(const struct usdtkit_arch *arch)
{
	struct utsname u;

	if (!arch->compat64 || uname(&u) ||
	    !usdtkit__machine_in(arch->compat64_kernels, u.machine))
		return USDTKIT_LAYOUT_NATIVE;
	return USDTKIT_LAYOUT_COMPAT64;
}

struct enc {
	const struct usdtkit_log *lg;
	const char *where;	/* "FILE: PROVIDER:NAME" */
	const char *text;
	const struct usdtkit_layout *layout;
	int ip_off;		/* pt_regs offset of the IP, -1 if unknown */
	int64_t ip_delta;	/* attach IP - probe pc (nop5 sites) */
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
	/* pc-relative values are relative to the probe pc; the program
	 * sees the IP it was attached at */
	if (a->pc_rel)
		out->flags |= USDTKIT_BPF_F_PC_REL;
	if (ptr_size == 4)
		out->flags |= USDTKIT_BPF_F_ADDR32;
	switch (a->kind) {
	case USDTKIT_LOC_CONST:
		out->kind = USDTKIT_BPF_ARG_CONST;
		out->disp = a->pc_rel ? a->value - e->ip_delta : a->value;
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
		out->disp = a->pc_rel ? a->disp - e->ip_delta : a->disp;
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

/*
 * libbpf's <bpf/usdt.bpf.h> layouts, for programs built against it: v1
 * (libbpf up to 1.6, 16-byte args, 208-byte spec) and v2 (1.7, 24-byte
 * args with an index register, 304 bytes). The program reads the whole
 * 8-byte register slot and 8 bytes of memory, then shifts by
 * arg_bitshift; what that cannot express is refused.
 */
enum { LB_CONST = 0, LB_REG = 1, LB_REG_DEREF = 2, LB_SIB = 3 };

/* BPF aligns 64-bit fields to 8 bytes; i386 and arm EABI hosts would
 * align them to 4 and change the sizes below */
#define LB_ALIGNED __attribute__((aligned(8)))

struct lb_arg_v1 {
	uint64_t val_off LB_ALIGNED;
	uint32_t arg_type;
	int16_t reg_off;
	uint8_t arg_signed;
	int8_t arg_bitshift;
};

struct lb_arg_v2 {
	uint64_t val_off LB_ALIGNED;
	uint32_t arg_type;
	int16_t reg_off;
	int16_t idx_reg_off;
	int16_t scale;
	uint8_t arg_signed;
	int8_t arg_bitshift;
};

struct lb_spec_v1 {
	struct lb_arg_v1 args[12];
	uint64_t usdt_cookie LB_ALIGNED;
	int16_t arg_cnt;
};

struct lb_spec_v2 {
	struct lb_arg_v2 args[12];
	uint64_t usdt_cookie LB_ALIGNED;
	int16_t arg_cnt;
};

_Static_assert(sizeof(struct lb_spec_v1) == 208, "libbpf v1 usdt spec");
_Static_assert(sizeof(struct lb_spec_v2) == 304, "libbpf v2 usdt spec");

/* A register view libbpf reads as the whole slot: only a low view that
 * is as wide as the argument (or a full pointer of a 32-bit target). */
static bool lb_view_ok(const struct usdtkit_reg *r, unsigned int size,
		       uint8_t ptr_size)
{
	return r->shift == 0 && (r->width >= size || r->width >= 8 ||
				 r->width == ptr_size);
}

static int lb_encode_arg(const struct enc *e, int i, const struct usdtkit_arg *a,
			 uint8_t ptr_size, bool sib, struct lb_arg_v2 *o)
{
	const struct usdtkit_bpf_arg *b;
	struct usdtkit_bpf_arg tmp;
	int err = encode_arg(e, i, a, ptr_size, &tmp);

	if (err)
		return err;
	b = &tmp;
	memset(o, 0, sizeof(*o));
	o->arg_signed = !!(b->flags & USDTKIT_BPF_F_SIGNED);
	o->arg_bitshift = (int8_t)(64 - 8 * b->size);
	o->val_off = (uint64_t)b->disp;
	switch (b->kind) {
	case USDTKIT_BPF_ARG_CONST:
		if (b->flags & USDTKIT_BPF_F_PC_REL)
			return refuse(e, i, a, "libbpf's usdt.bpf.h cannot add the IP to a constant");
		o->arg_type = LB_CONST;
		return 0;
	case USDTKIT_BPF_ARG_REG:
		if ((b->flags & USDTKIT_BPF_F_HI) || !lb_view_ok(&a->reg, b->size, ptr_size))
			return refuse(e, i, a, "libbpf's usdt.bpf.h reads whole registers only");
		o->arg_type = LB_REG;
		o->reg_off = b->base_off;
		return 0;
	}
	/* memory: base (or the IP for pc-relative), optional index */
	o->arg_type = LB_REG_DEREF;
	if (b->flags & USDTKIT_BPF_F_PC_REL) {
		if (b->base_off != USDTKIT_BPF_NO_REG || e->ip_off < 0)
			return refuse(e, i, a, "libbpf's usdt.bpf.h cannot add the IP to a register");
		o->reg_off = e->ip_off;
	} else if (b->base_off == USDTKIT_BPF_NO_REG) {
		return refuse(e, i, a, "libbpf's usdt.bpf.h cannot read an absolute address");
	} else if (!lb_view_ok(&a->base, ptr_size, ptr_size)) {
		return refuse(e, i, a, "libbpf's usdt.bpf.h reads whole base registers only");
	} else {
		o->reg_off = b->base_off;
	}
	if (b->index_off != USDTKIT_BPF_NO_REG) {
		if (!sib)
			return refuse(e, i, a, "an index register needs libbpf 1.7's usdt.bpf.h (SIB)");
		if (!lb_view_ok(&a->index, ptr_size, ptr_size) || o->reg_off != b->base_off)
			return refuse(e, i, a, "libbpf's usdt.bpf.h reads whole index registers only");
		o->arg_type = LB_SIB;
		o->idx_reg_off = b->index_off;
		o->scale = (int16_t)(1 << b->scale_shift);
	}
	return 0;
}

static int lb_encode(const struct enc *e, const struct usdtkit_arch *arch,
		     const struct usdtkit_arg *args, int nargs, uint64_t cookie,
		     bool v2, void *out)
{
	struct lb_spec_v1 *s1 = out;
	struct lb_spec_v2 *s2 = out;
	int i, err;

	memset(out, 0, v2 ? sizeof(*s2) : sizeof(*s1));
	for (i = 0; i < nargs; i++) {
		struct lb_arg_v2 a;

		err = lb_encode_arg(e, i, &args[i], usdtkit_arch_ptr_size(arch), v2, &a);
		if (err)
			return err;
		if (v2) {
			s2->args[i] = a;
		} else {
			s1->args[i] = (struct lb_arg_v1){ a.val_off, a.arg_type, a.reg_off,
							  a.arg_signed, a.arg_bitshift };
		}
	}
	if (v2) {
		s2->usdt_cookie = cookie;
		s2->arg_cnt = (int16_t)nargs;
	} else {
		s1->usdt_cookie = cookie;
		s1->arg_cnt = (int16_t)nargs;
	}
	return 0;
}

/*
 * Groups (spec version 2). A memory argument may join a group when it has
 * no index register and reads from the same base as the group: the same
 * register view (or none) and the same PC_REL and ADDR32 flags, so both
 * addresses differ by their displacements alone. Its bytes must keep the
 * group's span within USDTKIT_BPF_WINDOW.
 *
 * ADDR32 arguments (a 32-bit target) wrap at 4 GiB one by one, a window
 * does not: a window across the wrap reaches above the 32-bit process's
 * address space, its read fails and the program falls back to the
 * arguments' own reads.
 */
static bool groupable(const struct usdtkit_bpf_arg *a)
{
	/* disp comes from the note: keep the spans below from overflowing */
	return a->kind == USDTKIT_BPF_ARG_MEM && a->index_off == USDTKIT_BPF_NO_REG &&
	       a->disp < (1LL << 62) && a->disp > -(1LL << 62);
}

#define GROUP_FLAGS (USDTKIT_BPF_F_PC_REL | USDTKIT_BPF_F_ADDR32)

static bool same_base(const struct usdtkit_bpf_arg *a, const struct usdtkit_bpf_arg *b)
{
	return a->base_off == b->base_off && a->base_width == b->base_width &&
	       a->base_shift == b->base_shift &&
	       (a->flags & GROUP_FLAGS) == (b->flags & GROUP_FLAGS);
}

/* The span [*lo, *hi) of the group's bytes once @a is in it. */
static bool fits(const struct usdtkit_bpf_arg *a, long long *lo, long long *hi)
{
	long long l = a->disp < *lo ? a->disp : *lo;
	long long h = a->disp + a->size > *hi ? a->disp + a->size : *hi;

	if (h - l > USDTKIT_BPF_WINDOW)
		return false;
	*lo = l;
	*hi = h;
	return true;
}

/*
 * First fit, in argument order: each groupable argument joins the first
 * earlier candidate with its base whose window still holds it. Candidates
 * of one argument stay unread as groups (its exact-size read is cheaper
 * than a window). Writes s->groups, s->group_cnt and each member's group
 * and win_off.
 */
int usdtkit__spec_group(struct usdtkit_bpf_spec *s)
{
	long long lo[USDTKIT_BPF_MAX_ARGS], hi[USDTKIT_BPF_MAX_ARGS];
	int cand[USDTKIT_BPF_MAX_ARGS], members[USDTKIT_BPF_MAX_ARGS];
	int lead[USDTKIT_BPF_MAX_ARGS], gid[USDTKIT_BPF_MAX_ARGS];
	int i, c, nc = 0, ng = 0, n = s->arg_cnt;

	if (n > USDTKIT_BPF_MAX_ARGS)
		return -E2BIG;
	for (i = 0; i < n; i++) {
		struct usdtkit_bpf_arg *a = &s->args[i];

		cand[i] = -1;
		a->group = a->win_off = 0;
		if (!groupable(a))
			continue;
		for (c = 0; c < nc; c++)
			if (same_base(&s->args[lead[c]], a) && fits(a, &lo[c], &hi[c]))
				break;
		if (c == nc) {
			lead[nc] = i;
			members[nc] = 0;
			lo[nc] = a->disp;
			hi[nc] = a->disp + a->size;
			nc++;
		}
		members[c]++;
		cand[i] = c;
	}
	for (c = 0; c < nc; c++) {
		struct usdtkit_bpf_group *g;
		const struct usdtkit_bpf_arg *l = &s->args[lead[c]];

		gid[c] = -1;
		if (members[c] < 2)
			continue;
		g = &s->groups[ng];
		memset(g, 0, sizeof(*g));
		g->disp = lo[c];
		g->base_off = l->base_off;
		g->base_width = l->base_width;
		g->base_shift = l->base_shift;
		g->len = (unsigned char)(hi[c] - lo[c]);
		g->flags = l->flags & GROUP_FLAGS;
		gid[c] = ng++;
	}
	for (i = 0; i < n; i++) {
		c = cand[i];
		if (c < 0 || gid[c] < 0)
			continue;
		s->args[i].group = (unsigned char)(gid[c] + 1);
		s->args[i].win_off = (unsigned char)(s->args[i].disp - lo[c]);
	}
	s->group_cnt = (unsigned char)ng;
	return 0;
}

/*
 * usdtkit's own layout. Version 1 programs get the 304 bytes they know,
 * with no groups: their map values end before the group table.
 */
static int own_encode(const struct enc *e, const struct usdtkit_arch *arch,
		      const struct usdtkit_arg *args, int nargs, uint64_t cookie,
		      int version, void *out)
{
	struct usdtkit_bpf_spec *s = out;
	int i, err;

	memset(s, 0, version == 1 ? USDTKIT_BPF_SPEC_V1_SIZE : sizeof(*s));
	s->version = (unsigned short)version;
	s->arg_cnt = (unsigned short)nargs;
	s->slot_size = e->layout->slot_size;
	s->cookie = (long long)cookie;
	for (i = 0; i < nargs; i++) {
		err = encode_arg(e, i, &args[i], usdtkit_arch_ptr_size(arch),
				 &s->args[i]);
		if (err)
			return err;
	}
	return version == 1 ? 0 : usdtkit__spec_group(s);
}

int usdtkit__spec_encode(const struct usdtkit_log *lg, const char *where,
			 const struct usdtkit_arch *arch, const char *spec_text,
			 const struct usdtkit_arg *args, int nargs,
			 uint64_t cookie, int64_t ip_delta,
			 enum usdtkit_spec_abi abi, void *out, size_t out_size)
{
	struct enc e = { .lg = lg, .where = where, .text = spec_text,
			 .ip_delta = ip_delta };
	enum usdtkit_layout_kind kind;

	kind = kernel_layout(arch);
	e.layout = usdtkit_arch_layout(arch, kind);
	if (!e.layout)
		return -ENOENT;
	/* only libbpf's layouts need the IP as a register */
	e.ip_off = usdtkit__abi_own(abi) ? -1 : arch->ip_offset[kind];
	if (nargs > USDTKIT_BPF_MAX_ARGS) {
		usdtkit__warn(lg, "%s: %d arguments, BPF specs hold %d", where,
			      nargs, USDTKIT_BPF_MAX_ARGS);
		return -E2BIG;
	}
	if (abi == USDTKIT_ABI_LIBBPF_V1 && out_size >= sizeof(struct lb_spec_v1))
		return lb_encode(&e, arch, args, nargs, cookie, false, out);
	if (abi == USDTKIT_ABI_LIBBPF_V2 && out_size >= sizeof(struct lb_spec_v2))
		return lb_encode(&e, arch, args, nargs, cookie, true, out);
	if (abi == USDTKIT_ABI_OWN_V1 && out_size >= USDTKIT_BPF_SPEC_V1_SIZE)
		return own_encode(&e, arch, args, nargs, cookie, 1, out);
	if (abi == USDTKIT_ABI_OWN && out_size >= sizeof(struct usdtkit_bpf_spec))
		return own_encode(&e, arch, args, nargs, cookie, 2, out);
	return -EOPNOTSUPP;
}
