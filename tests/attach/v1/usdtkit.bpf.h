/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A frozen copy of usdtkit.bpf.h as it was with spec version 1 (304-byte
 * specs, no groups), for the test of programs built against it
 * (tests/attach/spec_v1.bpf.c). Not to be updated.
 *
 * usdtkit for BPF programs: read the arguments of the USDT probe that
 * fired, from the spec the attach layer wrote for it.
 *
 *	#include "vmlinux.h"            (or <linux/ptrace.h> etc.)
 *	#include <bpf/bpf_helpers.h>
 *	#include <bpf/bpf_tracing.h>    (with -D__TARGET_ARCH_x86 etc.;
 *	                                 i386 kernels: also -D__i386__)
 *	#include <usdtkit/usdtkit.bpf.h>
 *
 *	SEC("usdtkit")
 *	int USDTKIT_PROBE(on_req, long id, int len)
 *	{ ... }
 *
 * SEC("usdtkit...") is known to libbpf only through the handler that
 * libusdtkit registers in the host program: libbpf's "missing BPF prog
 * type, check ELF section name 'usdtkit...'" means usdtkit is not linked
 * into it (link with `pkg-config --libs usdtkit` or usdtkit::usdtkit; see
 * usdtkit_register_libbpf_handler() in <usdtkit/attach.h>).
 *
 * or, by hand: usdtkit_arg_cnt(ctx), usdtkit_arg_size(ctx, n),
 * usdtkit_arg(ctx, n, &val), usdtkit_cookie(ctx). All return a negative
 * errno on failure (no spec for this IP, n out of range, a faulting read).
 *
 * Every argument is read with exactly its own size: a 1-byte argument at
 * the last byte of a page never touches the next page.
 */
#ifndef USDTKIT_USDTKIT_BPF_H
#define USDTKIT_USDTKIT_BPF_H

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* tests/attach/v1: this copy's own bpf_spec.h, not the installed one */
#include "bpf_spec.h"

/* Capacities: define before including to change them. The attach layer
 * reads them back from the maps, so the two sides cannot disagree. */
#ifndef USDTKIT_MAX_SPECS
#define USDTKIT_MAX_SPECS 256
#endif
#ifndef USDTKIT_MAX_IPS
#define USDTKIT_MAX_IPS (4 * USDTKIT_MAX_SPECS)
#endif

/* errno values, without pulling in a libc header */
#define USDTKIT__ENOENT	2
#define USDTKIT__EINVAL	22
#define USDTKIT__ERANGE	34
#define USDTKIT__ESRCH	3

/* spec id -> spec; written by the attach layer */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, USDTKIT_MAX_SPECS);
	__type(key, int);
	__type(value, struct usdtkit_bpf_spec);
} usdtkit_specs SEC(".maps") __weak;

/* absolute IP -> spec id, for links that carry no BPF cookie */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, USDTKIT_MAX_IPS);
	__type(key, long);
	__type(value, int);
} usdtkit_ip_map SEC(".maps") __weak;

/*
 * 32-bit kernels (arm, i386): bpf_tracing.h's PT_REGS_IP() is no use there.
 * It compiles the kernel's struct pt_regs with BPF's 8-byte long, so every
 * offset is doubled, and libbpf 1.1 names arm's uregs[12] (r12), not the
 * pc. The slots are 4 bytes: the pc is uregs[15] on arm; on i386 ip
 * follows bx cx dx si di bp ax ds es fs gs orig_ax. A 32-bit program
 * built this way assumes a 32-bit kernel; a 32-bit process on a 64-bit
 * kernel is traced by a 64-bit program (the attach layer then writes its
 * specs in the 64-bit layout).
 */
#if defined(USDTKIT_IP_OFF) && USDTKIT_IP_SIZE == 4
/* usdtkit's own build passes the manifest's ip_offset (cmake/Bpf.cmake) */
#define USDTKIT__IP32_OFF USDTKIT_IP_OFF
#elif defined(USDTKIT_IP_OFF)
#define USDTKIT__IP64_OFF USDTKIT_IP_OFF
#elif defined(__TARGET_ARCH_arm)
#define USDTKIT__IP32_OFF 60
#elif defined(__TARGET_ARCH_x86) && defined(__i386__)
#define USDTKIT__IP32_OFF 48
#endif

/*
 * mips64: the context is the kernel's struct pt_regs, whose cp0_epc
 * follows regs[32], cp0_status, hi, lo, cp0_badvaddr and cp0_cause (296).
 * PT_REGS_IP() reads cp0_epc of whatever struct pt_regs the program
 * included: the uapi <asm/ptrace.h> one orders lo, hi, cp0_epc, so it
 * would read the kernel's lo (272). A 32-bit mips kernel is not handled.
 */
#if defined(__TARGET_ARCH_mips) && !defined(USDTKIT__IP64_OFF)
#define USDTKIT__IP64_OFF 296
#endif

#if defined(__TARGET_ARCH_x86) && !defined(__i386__) && !defined(USDTKIT_NO_DIRECT_CTX)
/*
 * x86-64: read pt_regs slots straight from the context instead of through
 * bpf_probe_read_kernel(), a helper call per register. The verifier takes
 * context loads only at constant offsets, so every slot is its own case,
 * and each load is written in asm so that clang cannot fold the cases
 * back into one load at a computed offset (which the verifier refuses).
 */
#define USDTKIT__CTX_LD(o)						\
	case o:								\
		asm volatile("%0 = *(u64 *)(%1 + " #o ")"		\
			     : "=r"(*v) : "r"(ctx));			\
		return 0;

static __always_inline int usdtkit__slot(struct pt_regs *ctx, int slot_size,
					 short off, unsigned long long *v)
{
	(void)slot_size;
	switch (off) {
	USDTKIT__CTX_LD(0) USDTKIT__CTX_LD(8) USDTKIT__CTX_LD(16)
	USDTKIT__CTX_LD(24) USDTKIT__CTX_LD(32) USDTKIT__CTX_LD(40)
	USDTKIT__CTX_LD(48) USDTKIT__CTX_LD(56) USDTKIT__CTX_LD(64)
	USDTKIT__CTX_LD(72) USDTKIT__CTX_LD(80) USDTKIT__CTX_LD(88)
	USDTKIT__CTX_LD(96) USDTKIT__CTX_LD(104) USDTKIT__CTX_LD(112)
	USDTKIT__CTX_LD(120) USDTKIT__CTX_LD(128) USDTKIT__CTX_LD(136)
	USDTKIT__CTX_LD(144) USDTKIT__CTX_LD(152) USDTKIT__CTX_LD(160)
	}
	*v = 0;
	return -USDTKIT__EINVAL;
}

/* rip is slot 16 of x86-64 pt_regs */
static __always_inline unsigned long usdtkit__ip(struct pt_regs *ctx)
{
	unsigned long long ip;

	usdtkit__slot(ctx, 8, 128, &ip);
	return ip;
}
#else
/* One pt_regs slot. Typed reads keep the value right on both byte orders. */
static __always_inline int usdtkit__slot(struct pt_regs *ctx, int slot_size,
					 short off, unsigned long long *v)
{
	int err;

	*v = 0;
	if (off < 0)
		return -USDTKIT__EINVAL;
	if (slot_size == 4) {
		unsigned int x = 0;

		err = bpf_probe_read_kernel(&x, sizeof(x), (void *)ctx + off);
		*v = x;
		return err;
	}
	return bpf_probe_read_kernel(v, sizeof(*v), (void *)ctx + off);
}

/*
 * The probe's IP, through a helper: clang likes to compute &ctx->ip early
 * and load through it later, which the verifier refuses ("modified ctx").
 */
static __always_inline unsigned long usdtkit__ip(struct pt_regs *ctx)
{
#ifdef USDTKIT__IP32_OFF
	unsigned int ip = 0;

	bpf_probe_read_kernel(&ip, sizeof(ip), (void *)ctx + USDTKIT__IP32_OFF);
#elif defined(USDTKIT__IP64_OFF)
	unsigned long long ip = 0;

	bpf_probe_read_kernel(&ip, sizeof(ip), (void *)ctx + USDTKIT__IP64_OFF);
#else
	unsigned long ip = 0;

	bpf_probe_read_kernel(&ip, sizeof(ip), &PT_REGS_IP(ctx));
#endif
	return ip;
}
#endif

/*
 * Kernels without BPF cookies reject a program that calls
 * bpf_get_attach_cookie(): build with -DUSDTKIT_NO_COOKIE for them, and
 * attach with the IP-map backend.
 */
static __always_inline const struct usdtkit_bpf_spec *
usdtkit_spec(struct pt_regs *ctx)
{
	long ip;
	int *idp, id;

#ifndef USDTKIT_NO_COOKIE
	unsigned long long c = bpf_get_attach_cookie(ctx);

	if (c)
		return bpf_map_lookup_elem(&usdtkit_specs, &(int){ (int)(c - 1) });
#endif
	ip = (long)usdtkit__ip(ctx);
	idp = bpf_map_lookup_elem(&usdtkit_ip_map, &ip);
	if (!idp)
		return 0;
	id = *idp;
	return bpf_map_lookup_elem(&usdtkit_specs, &id);
}

static __always_inline unsigned long long usdtkit__low(unsigned long long v,
						       unsigned int bytes)
{
	return bytes >= 8 ? v : v & ((1ULL << (bytes * 8)) - 1);
}

/* A register view: slot >> shift, @width bytes kept. */
static __always_inline int usdtkit__view(struct pt_regs *ctx, int slot_size,
					 short off, unsigned char shift,
					 unsigned char width,
					 unsigned long long *v)
{
	int err = usdtkit__slot(ctx, slot_size, off, v);

	*v = usdtkit__low(*v >> (shift & 63), width);
	return err;
}

/* Exactly @size bytes from user memory, as a value of that width. */
static __always_inline int usdtkit__read_user(unsigned long long addr,
					      unsigned int size,
					      unsigned long long *v)
{
	const void *p = (const void *)(unsigned long)addr;
	int err;

	switch (size) {
	case 1: {
		unsigned char x = 0;

		err = bpf_probe_read_user(&x, 1, p);
		*v = x;
		return err;
	}
	case 2: {
		unsigned short x = 0;

		err = bpf_probe_read_user(&x, 2, p);
		*v = x;
		return err;
	}
	case 4: {
		unsigned int x = 0;

		err = bpf_probe_read_user(&x, 4, p);
		*v = x;
		return err;
	}
	case 8:
		return bpf_probe_read_user(v, 8, p);
	}
	return -USDTKIT__EINVAL;
}

static __always_inline int usdtkit__mem(struct pt_regs *ctx, int slot_size,
					const struct usdtkit_bpf_arg *a,
					unsigned long long *v)
{
	unsigned long long addr = (unsigned long long)a->disp, r = 0;
	int err;

	if (a->flags & USDTKIT_BPF_F_PC_REL)
		addr += usdtkit__ip(ctx);
	if (a->base_off != USDTKIT_BPF_NO_REG) {
		err = usdtkit__view(ctx, slot_size, a->base_off, a->base_shift,
				    a->base_width, &r);
		if (err)
			return err;
		addr += r;
	}
	if (a->index_off != USDTKIT_BPF_NO_REG) {
		err = usdtkit__view(ctx, slot_size, a->index_off, a->index_shift,
				    a->index_width, &r);
		if (err)
			return err;
		addr += r << (a->scale_shift & 3);
	}
	if (a->flags & USDTKIT_BPF_F_ADDR32)
		addr &= 0xffffffffULL;
	return usdtkit__read_user(addr, a->size, v);
}

static __always_inline int usdtkit__reg(struct pt_regs *ctx, int slot_size,
					const struct usdtkit_bpf_arg *a,
					unsigned long long *v)
{
	unsigned long long hi = 0;
	int err = usdtkit__view(ctx, slot_size, a->base_off, a->base_shift,
				a->base_width, v);

	if (err || !(a->flags & USDTKIT_BPF_F_HI))
		return err;
	err = usdtkit__view(ctx, slot_size, a->index_off, a->index_shift,
			    a->index_width, &hi);
	*v |= hi << ((a->base_width & 7) * 8);
	return err;
}

/* Argument @n of the probe whose spec is @spec, sign- or zero-extended. */
static __always_inline int usdtkit_spec_arg(struct pt_regs *ctx,
					    const struct usdtkit_bpf_spec *spec,
					    unsigned int n, long *value)
{
	const struct usdtkit_bpf_arg *a;
	unsigned long long v = 0;
	unsigned int bits;
	int err;

	*value = 0;
	if (!spec)
		return -USDTKIT__ESRCH;
	if (n >= USDTKIT_BPF_MAX_ARGS || n >= spec->arg_cnt)
		return -USDTKIT__ENOENT;
	a = &spec->args[n];
	switch (a->kind) {
	case USDTKIT_BPF_ARG_CONST:
		v = (unsigned long long)a->disp;
		if (a->flags & USDTKIT_BPF_F_PC_REL)
			v += usdtkit__ip(ctx);
		err = 0;
		break;
	case USDTKIT_BPF_ARG_REG:
		err = usdtkit__reg(ctx, spec->slot_size, a, &v);
		break;
	case USDTKIT_BPF_ARG_MEM:
		err = usdtkit__mem(ctx, spec->slot_size, a, &v);
		break;
	default:
		return -USDTKIT__EINVAL;
	}
	if (err)
		return err;
	bits = 64 - (a->size & 15) * 8;
	if (bits && bits < 64) {
		if (a->flags & USDTKIT_BPF_F_SIGNED)
			v = (unsigned long long)((long long)(v << bits) >> bits);
		else
			v &= ~0ULL >> bits;
	}
	*value = (long)v;
	return 0;
}

/* Number of arguments of the probe that fired, or a negative errno. */
static __always_inline int usdtkit_arg_cnt(struct pt_regs *ctx)
{
	const struct usdtkit_bpf_spec *s = usdtkit_spec(ctx);

	return s ? s->arg_cnt : -USDTKIT__ESRCH;
}

/* Size in bytes of argument @n, negative if signed; or -errno (> -16
 * never collides: sizes are 1..8). */
static __always_inline int usdtkit_arg_size(struct pt_regs *ctx, unsigned int n)
{
	const struct usdtkit_bpf_spec *s = usdtkit_spec(ctx);
	const struct usdtkit_bpf_arg *a;

	if (!s)
		return -USDTKIT__ESRCH;
	if (n >= USDTKIT_BPF_MAX_ARGS || n >= s->arg_cnt)
		return -USDTKIT__ENOENT;
	a = &s->args[n];
	return a->flags & USDTKIT_BPF_F_SIGNED ? -(int)a->size : a->size;
}

static __always_inline int usdtkit_arg(struct pt_regs *ctx, unsigned int n,
				       long *value)
{
	return usdtkit_spec_arg(ctx, usdtkit_spec(ctx), n, value);
}

/* The cookie the caller gave usdtkit_attach(), 0 if none. */
static __always_inline long usdtkit_cookie(struct pt_regs *ctx)
{
	const struct usdtkit_bpf_spec *s = usdtkit_spec(ctx);

	return s ? s->cookie : 0;
}

/*
 * USDTKIT_PROBE(name, type1 a1, type2 a2, ...): a program whose C
 * arguments are the probe's arguments. The spec is looked up once per
 * hit, not once per argument. Up to 12 arguments.
 */
#define ___usdtkit_a(i) ({ long ___v = 0; usdtkit_spec_arg(ctx, ___spec, i, &___v); (void *)___v; })
#define ___usdtkit_args0()		ctx
#define ___usdtkit_args1(x)		___usdtkit_args0(), ___usdtkit_a(0)
#define ___usdtkit_args2(x, a...)	___usdtkit_args1(a), ___usdtkit_a(1)
#define ___usdtkit_args3(x, a...)	___usdtkit_args2(a), ___usdtkit_a(2)
#define ___usdtkit_args4(x, a...)	___usdtkit_args3(a), ___usdtkit_a(3)
#define ___usdtkit_args5(x, a...)	___usdtkit_args4(a), ___usdtkit_a(4)
#define ___usdtkit_args6(x, a...)	___usdtkit_args5(a), ___usdtkit_a(5)
#define ___usdtkit_args7(x, a...)	___usdtkit_args6(a), ___usdtkit_a(6)
#define ___usdtkit_args8(x, a...)	___usdtkit_args7(a), ___usdtkit_a(7)
#define ___usdtkit_args9(x, a...)	___usdtkit_args8(a), ___usdtkit_a(8)
#define ___usdtkit_args10(x, a...)	___usdtkit_args9(a), ___usdtkit_a(9)
#define ___usdtkit_args11(x, a...)	___usdtkit_args10(a), ___usdtkit_a(10)
#define ___usdtkit_args12(x, a...)	___usdtkit_args11(a), ___usdtkit_a(11)
#define ___usdtkit_args(args...) ___bpf_apply(___usdtkit_args, ___bpf_narg(args))(args)

#define USDTKIT_PROBE(name, args...)					\
name(struct pt_regs *ctx);						\
static __always_inline typeof(name(0))					\
____##name(struct pt_regs *ctx, ##args);				\
typeof(name(0)) name(struct pt_regs *ctx)				\
{									\
	const struct usdtkit_bpf_spec *___spec = usdtkit_spec(ctx);	\
	(void)___spec;							\
	_Pragma("GCC diagnostic push")					\
	_Pragma("GCC diagnostic ignored \"-Wint-conversion\"")		\
	return ____##name(___usdtkit_args(args));			\
	_Pragma("GCC diagnostic pop")					\
}									\
static __always_inline typeof(name(0))					\
____##name(struct pt_regs *ctx, ##args)

#endif /* USDTKIT_USDTKIT_BPF_H */
