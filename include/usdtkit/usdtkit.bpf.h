/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
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
 * usdtkit_arg(ctx, n, &val), usdtkit_cookie(ctx), and with the spec
 * looked up once: usdtkit_spec(ctx), then usdtkit_spec_arg(ctx, spec, n,
 * &val) for one argument or usdtkit_spec_args(ctx, spec, vals, mask) for
 * several (usdtkit_spec_args_errs() also gives each one's error). All return a negative errno on failure (no spec for this IP,
 * n out of range, a faulting read).
 *
 * usdtkit_spec_arg() reads each argument with exactly its own size: a
 * 1-byte argument at the last byte of a page never touches the next page.
 * usdtkit_spec_args() (and USDTKIT_PROBE) read the memory arguments that
 * the attach layer grouped (same base register, bytes within 64) with one
 * user-memory read per group, of exactly the bytes from the group's first
 * argument to its last; if that read faults, each argument is read alone.
 */
#ifndef USDTKIT_USDTKIT_BPF_H
#define USDTKIT_USDTKIT_BPF_H

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include <usdtkit/bpf_spec.h>

/* Capacities: define before including to change them. The attach layer
 * reads them back from the maps, so the two sides cannot disagree. */
#ifndef USDTKIT_MAX_SPECS
#define USDTKIT_MAX_SPECS 256
#endif
#ifndef USDTKIT_MAX_IPS
#define USDTKIT_MAX_IPS (4 * USDTKIT_MAX_SPECS)
#endif

/*
 * Form switches: define before including to leave out the code of
 * argument forms the program does not need. The verifier walks every
 * form the reader can take, for every argument, whether a probe uses it
 * or not; what is left out it never walks. A hit executes about as many
 * instructions as by default: from 1% fewer to 6% more (bench/README.md,
 * "Form switches, and what a hit executes").
 *
 *   USDTKIT_NO_INDEX        memory operands with an index register
 *                           ("(%rax,%rcx,4)", "[r1, r2]")
 *   USDTKIT_NO_HIGH_HALVES  a value in two registers (a 64-bit argument
 *                           of a 32-bit target, "-8@%eax" for %edx:%eax)
 *   USDTKIT_ARGS_SIMPLE     both, and symbol or PC-relative operands
 *                           ("-8@counter(%rip)"): what is left are the
 *                           forms libbpf's usdt.bpf.h reads, constants,
 *                           registers (with their %eax/%ah views) and
 *                           base register + displacement
 *
 * The attach layer cannot know what a program was built with, so an
 * argument that needs a form left out reads as 0 and its read returns
 * -EOPNOTSUPP (usdtkit_spec_args_errs() says which): never a wrong value.
 * PC-relative operands cost the verifier one context load at a constant
 * offset: leaving them out alone saved nothing, so they have no switch.
 *
 * USDTKIT_NO_COALESCE (not a form): every memory argument read alone,
 * without group windows (see usdtkit_spec_args_errs()).
 */
#if defined(USDTKIT_ARGS_SIMPLE) || defined(USDTKIT_NO_INDEX)
#define USDTKIT__NO_INDEX
#endif
#if defined(USDTKIT_ARGS_SIMPLE) || defined(USDTKIT_NO_HIGH_HALVES)
#define USDTKIT__NO_HI
#endif
#ifdef USDTKIT_ARGS_SIMPLE
#define USDTKIT__NO_PC_REL
#endif

/* the flags of an argument that needs a form left out */
#ifdef USDTKIT__NO_PC_REL
#define USDTKIT__NO_F_PC_REL	USDTKIT_BPF_F_PC_REL
#else
#define USDTKIT__NO_F_PC_REL	0
#endif
#ifdef USDTKIT__NO_HI
#define USDTKIT__NO_F_HI	USDTKIT_BPF_F_HI
#else
#define USDTKIT__NO_F_HI	0
#endif
#define USDTKIT__LEFT_OUT	(USDTKIT__NO_F_PC_REL | USDTKIT__NO_F_HI)

/* errno values, without pulling in a libc header */
#define USDTKIT__ENOENT	2
#define USDTKIT__EINVAL	22
#define USDTKIT__ERANGE	34
#define USDTKIT__ESRCH	3
#define USDTKIT__EOPNOTSUPP	95

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
 * Spec id + 1 of the hit being run, per CPU, for mode inst (kernels
 * without BPF cookies, sites without a fixed address): the attach layer
 * loads a 24-instruction program per distinct spec that writes its id
 * here and tail-calls this program, which takes it and writes 0 back.
 * 0 otherwise. Before Linux 5.15, where AUTO takes mode inst, uprobe
 * programs run with preemption off, so nothing runs on the CPU between
 * the write and the read; a kernel that preempts them (Debian's 7.3) can
 * run another thread's hit in between: forced --mode inst there is not
 * safe (docs/ATTACH.md).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, int);
} usdtkit_inst SEC(".maps") __weak;

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

/*
 * Direct context loads, where the context's register block is known
 * slot by slot: x86-64 (struct pt_regs, 21 slots), arm64 (struct
 * user_pt_regs, 34) and 32-bit arm (uregs[18], 4 bytes each). A helper
 * call per register costs more, and it reads the context as memory,
 * which is wrong in a perf-event program (mode hwbp): its context is
 * the kernel's own struct, and only loads from it are rewritten to
 * reach the registers. The verifier takes context loads only at
 * constant offsets, so every slot is its own case, each written in asm
 * so that clang cannot fold the cases back into one load at a computed
 * offset (which the verifier refuses). Each case must lie inside the
 * perf-event context's registers too: a case past them fails the load.
 */
#if !defined(USDTKIT_NO_DIRECT_CTX) && defined(__TARGET_ARCH_x86) && !defined(__i386__)
#define USDTKIT__CTX_SLOT 8
#define USDTKIT__CTX_IP 128
#elif !defined(USDTKIT_NO_DIRECT_CTX) && defined(__TARGET_ARCH_arm64)
#define USDTKIT__CTX_SLOT 8
#define USDTKIT__CTX_IP 256
#elif !defined(USDTKIT_NO_DIRECT_CTX) && defined(__TARGET_ARCH_arm)
#define USDTKIT__CTX_SLOT 4
#define USDTKIT__CTX_IP 60
#endif

#ifdef USDTKIT__CTX_SLOT
#if USDTKIT__CTX_SLOT == 8
#define USDTKIT__CTX_T "u64"
#else
#define USDTKIT__CTX_T "u32"
#endif
#define USDTKIT__CTX_LD(o)						\
	case (o) / USDTKIT__CTX_SLOT:					\
		asm volatile("%0 = *(" USDTKIT__CTX_T " *)(%1 + " #o ")"	\
			     : "=r"(*v) : "r"(ctx));			\
		return 0;

static __always_inline int usdtkit__slot(struct pt_regs *ctx, int slot_size,
					 short off, unsigned long long *v)
{
	unsigned int k = (unsigned short)off;

	/* on the slot's index: on the byte offset, clang derives the index
	 * with a rotate, 10 instructions per register view and hit */
	(void)slot_size;
	if (k & (USDTKIT__CTX_SLOT - 1)) {
		*v = 0;
		return -USDTKIT__EINVAL;
	}
	switch (k / USDTKIT__CTX_SLOT) {
#if defined(__TARGET_ARCH_arm)
	USDTKIT__CTX_LD(0) USDTKIT__CTX_LD(4) USDTKIT__CTX_LD(8)
	USDTKIT__CTX_LD(12) USDTKIT__CTX_LD(16) USDTKIT__CTX_LD(20)
	USDTKIT__CTX_LD(24) USDTKIT__CTX_LD(28) USDTKIT__CTX_LD(32)
	USDTKIT__CTX_LD(36) USDTKIT__CTX_LD(40) USDTKIT__CTX_LD(44)
	USDTKIT__CTX_LD(48) USDTKIT__CTX_LD(52) USDTKIT__CTX_LD(56)
	USDTKIT__CTX_LD(60) USDTKIT__CTX_LD(64) USDTKIT__CTX_LD(68)
#else
	USDTKIT__CTX_LD(0) USDTKIT__CTX_LD(8) USDTKIT__CTX_LD(16)
	USDTKIT__CTX_LD(24) USDTKIT__CTX_LD(32) USDTKIT__CTX_LD(40)
	USDTKIT__CTX_LD(48) USDTKIT__CTX_LD(56) USDTKIT__CTX_LD(64)
	USDTKIT__CTX_LD(72) USDTKIT__CTX_LD(80) USDTKIT__CTX_LD(88)
	USDTKIT__CTX_LD(96) USDTKIT__CTX_LD(104) USDTKIT__CTX_LD(112)
	USDTKIT__CTX_LD(120) USDTKIT__CTX_LD(128) USDTKIT__CTX_LD(136)
	USDTKIT__CTX_LD(144) USDTKIT__CTX_LD(152) USDTKIT__CTX_LD(160)
#if defined(__TARGET_ARCH_arm64)
	USDTKIT__CTX_LD(168) USDTKIT__CTX_LD(176) USDTKIT__CTX_LD(184)
	USDTKIT__CTX_LD(192) USDTKIT__CTX_LD(200) USDTKIT__CTX_LD(208)
	USDTKIT__CTX_LD(216) USDTKIT__CTX_LD(224) USDTKIT__CTX_LD(232)
	USDTKIT__CTX_LD(240) USDTKIT__CTX_LD(248) USDTKIT__CTX_LD(256)
	USDTKIT__CTX_LD(264)
#endif
#endif
	}
	*v = 0;
	return -USDTKIT__EINVAL;
}

/* the pc's slot */
static __always_inline unsigned long usdtkit__ip(struct pt_regs *ctx)
{
	unsigned long long ip;

	usdtkit__slot(ctx, USDTKIT__CTX_SLOT, USDTKIT__CTX_IP, &ip);
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
 * Kernels without BPF cookies (before 5.15) reject a program that calls
 * bpf_get_attach_cookie(). libusdtkit's libbpf handler turns the call into
 * "r0 = 0" there, just before the load, so the instance's constant
 * (mode inst) or the IP map (mode ipmap) answers; -DUSDTKIT_NO_COOKIE
 * leaves it out of the program altogether.
 */
static __always_inline const struct usdtkit_bpf_spec *
usdtkit_spec(struct pt_regs *ctx)
{
	unsigned long long c = 0;
	int *idp, id;
	long ip;

#ifndef USDTKIT_NO_COOKIE
	c = bpf_get_attach_cookie(ctx);
#endif
	/* each source sets id alone, and one lookup follows: the verifier
	 * then walks the rest once, not once per source */
	if (c) {
		id = (int)(c - 1);
	} else {
		idp = bpf_map_lookup_elem(&usdtkit_inst, &(int){ 0 });
		if (idp && *idp) {
			id = *idp - 1;
			*idp = 0;	/* an IP-map hit on this CPU must not see it */
		} else {
			ip = (long)usdtkit__ip(ctx);
			idp = bpf_map_lookup_elem(&usdtkit_ip_map, &ip);
			if (!idp)
				return 0;
			id = *idp;
		}
	}
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

/*
 * The window of the group last read by usdtkit_spec_args(). One word more
 * than the window: an argument is taken as the two aligned words around
 * it (the verifier refuses unaligned stack loads), and the second of them
 * may lie past the window's last byte.
 */
struct usdtkit__win {
	unsigned long long w[USDTKIT_BPF_WINDOW / 8 + 1];
	unsigned int group;	/* 1 + the group in w, 0 if none */
	int err;		/* that group's read */
};

/* @size bytes at byte @off of the window, as a value of that width. */
static __always_inline unsigned long long
usdtkit__win_get(const struct usdtkit__win *win, unsigned int off, unsigned int size)
{
	unsigned int i = (off & (USDTKIT_BPF_WINDOW - 1)) / 8, sh = (off & 7) * 8;
	unsigned long long lo = win->w[i], hi = win->w[i + 1];

	/* (x << 1) << (63 - sh): x << (64 - sh), and 0 when sh is 0 */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return ((lo << sh) | ((hi >> 1) >> (63 - sh))) >> (64 - (size & 15) * 8);
#else
	return usdtkit__low((lo >> sh) | ((hi << 1) << (63 - sh)), size);
#endif
}

/*
 * Argument @a, at user address @addr, from its group's window: the
 * window starts win_off bytes before it, so no register is decoded twice.
 * The window is read when the group differs from the one in @win. -errno
 * if the argument has no group or its window faulted.
 */
static __always_inline int usdtkit__from_win(const struct usdtkit_bpf_spec *spec,
					     const struct usdtkit_bpf_arg *a,
					     unsigned long long addr,
					     struct usdtkit__win *win,
					     unsigned long long *v)
{
	unsigned int g = a->group, len;
	unsigned long long gi;

	if (!g || g > spec->group_cnt)
		return -USDTKIT__ENOENT;
	if (win->group != g) {
		win->group = g;
		/* Linux 6.1's verifier does not learn g >= 1 from g != 0, so
		 * g - 1 gets its own bound, which clang must not fold away */
		gi = g - 1;
		asm volatile("" : "+r"(gi));
		if (gi >= USDTKIT_BPF_MAX_GROUPS)
			return win->err = -USDTKIT__EINVAL;
		len = spec->groups[gi].len;
		if (!len || len > USDTKIT_BPF_WINDOW)
			return win->err = -USDTKIT__EINVAL;
		/* the verifier reads a variable-offset stack slot only if it
		 * was written: the read may stop short of the last word */
		__builtin_memset(win->w, 0, sizeof(win->w));
		win->err = bpf_probe_read_user(win->w, len,
					       (const void *)(unsigned long)(addr - a->win_off));
	}
	if (win->err)
		return win->err;
	*v = usdtkit__win_get(win, a->win_off, a->size);
	return 0;
}

/* A memory argument: exactly its own bytes, or its group's window. */
static __always_inline int usdtkit__mem(struct pt_regs *ctx,
					const struct usdtkit_bpf_spec *spec,
					const struct usdtkit_bpf_arg *a,
					struct usdtkit__win *win,
					unsigned long long *v)
{
	unsigned long long addr = (unsigned long long)a->disp, r = 0;
	int slot_size = spec->slot_size, err;

#ifndef USDTKIT__NO_PC_REL
	if (a->flags & USDTKIT_BPF_F_PC_REL)
		addr += usdtkit__ip(ctx);
#endif
	if (a->base_off != USDTKIT_BPF_NO_REG) {
		err = usdtkit__view(ctx, slot_size, a->base_off, a->base_shift,
				    a->base_width, &r);
		if (err)
			return err;
		addr += r;
	}
	if (a->index_off != USDTKIT_BPF_NO_REG) {
#ifdef USDTKIT__NO_INDEX
		return -USDTKIT__EOPNOTSUPP;
#else
		err = usdtkit__view(ctx, slot_size, a->index_off, a->index_shift,
				    a->index_width, &r);
		if (err)
			return err;
		addr += r << (a->scale_shift & 3);
#endif
	}
	if (a->flags & USDTKIT_BPF_F_ADDR32)
		addr &= 0xffffffffULL;
	/* alone, or its window faulted: its own exact-size read */
	if (win && !usdtkit__from_win(spec, a, addr, win, v))
		return 0;
	return usdtkit__read_user(addr, a->size, v);
}

static __always_inline int usdtkit__reg(struct pt_regs *ctx, int slot_size,
					const struct usdtkit_bpf_arg *a,
					unsigned long long *v)
{
	int err = usdtkit__view(ctx, slot_size, a->base_off, a->base_shift,
				a->base_width, v);
#ifndef USDTKIT__NO_HI
	unsigned long long hi = 0;

	if (err || !(a->flags & USDTKIT_BPF_F_HI))
		return err;
	err = usdtkit__view(ctx, slot_size, a->index_off, a->index_shift,
			    a->index_width, &hi);
	*v |= hi << ((a->base_width & 7) * 8);
#endif
	return err;
}

/* The low a->size bytes of @v, sign- or zero-extended as @a says. */
static __always_inline long usdtkit__extend(const struct usdtkit_bpf_arg *a,
					    unsigned long long v)
{
	unsigned int bits = 64 - (a->size & 15) * 8;

	if (bits && bits < 64) {
		if (a->flags & USDTKIT_BPF_F_SIGNED)
			v = (unsigned long long)((long long)(v << bits) >> bits);
		else
			v &= ~0ULL >> bits;
	}
	return (long)v;
}

/* Argument @n, through the group windows when @win is not NULL. */
static __always_inline int usdtkit__spec_arg(struct pt_regs *ctx,
					     const struct usdtkit_bpf_spec *spec,
					     unsigned int n, struct usdtkit__win *win,
					     long *value)
{
	const struct usdtkit_bpf_arg *a;
	unsigned long long v = 0;
	int err;

	*value = 0;
	if (!spec)
		return -USDTKIT__ESRCH;
	if (n >= USDTKIT_BPF_MAX_ARGS || n >= spec->arg_cnt)
		return -USDTKIT__ENOENT;
	a = &spec->args[n];
#if USDTKIT__LEFT_OUT
	if (a->flags & USDTKIT__LEFT_OUT)
		return -USDTKIT__EOPNOTSUPP;
#endif
	switch (a->kind) {
	case USDTKIT_BPF_ARG_CONST:
		v = (unsigned long long)a->disp;
#ifndef USDTKIT__NO_PC_REL
		if (a->flags & USDTKIT_BPF_F_PC_REL)
			v += usdtkit__ip(ctx);
#endif
		err = 0;
		break;
	case USDTKIT_BPF_ARG_REG:
		err = usdtkit__reg(ctx, spec->slot_size, a, &v);
		break;
	case USDTKIT_BPF_ARG_MEM:
		err = usdtkit__mem(ctx, spec, a, win, &v);
		break;
	default:
		return -USDTKIT__EINVAL;
	}
	if (err)
		return err;
	*value = usdtkit__extend(a, v);
	return 0;
}

/*
 * Argument @n of the probe whose spec is @spec, sign- or zero-extended,
 * read with exactly its own size.
 */
static __always_inline int usdtkit_spec_arg(struct pt_regs *ctx,
					    const struct usdtkit_bpf_spec *spec,
					    unsigned int n, long *value)
{
	return usdtkit__spec_arg(ctx, spec, n, 0, value);
}

#ifndef USDTKIT_PRIV_STACK
/*
 * Linux 6.13+ runs a kprobe-type program (uprobes are) whose frame is 64
 * bytes or more on a per-CPU private stack instead of the kernel stack.
 * A bpf_probe_read_user() into that stack measured ~17 ns more per read
 * than into the kernel stack (bench/README.md, "Reading cost"), and the
 * window below makes the frame of usdtkit_spec_args() larger than that.
 * The verifier keeps the kernel stack for a program that contains a tail
 * call, so usdtkit_spec_args() has one that is never taken (the version
 * is never 0xffff). -DUSDTKIT_PRIV_STACK: leave the kernel's choice.
 * libusdtkit's libbpf handler takes the call and its map out again before
 * the load where there is no private stack to keep off (before 6.13, or
 * a JIT other than x86-64's and arm64's): there it only cost, and in a
 * program with BPF-to-BPF calls most kernels refuse it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, int);
} usdtkit_no_priv_stack SEC(".maps") __weak;

static __always_inline void usdtkit__no_priv_stack(struct pt_regs *ctx,
						   const struct usdtkit_bpf_spec *spec)
{
	if (spec && spec->version == 0xffff)
		bpf_tail_call(ctx, &usdtkit_no_priv_stack, 0);
}
#else
static __always_inline void usdtkit__no_priv_stack(struct pt_regs *ctx,
						   const struct usdtkit_bpf_spec *spec)
{
	(void)ctx;
	(void)spec;
}
#endif

/* usdtkit_spec_args_errs(), with the groups used or not (@coalesce) */
static __always_inline int usdtkit__spec_args(struct pt_regs *ctx,
					      const struct usdtkit_bpf_spec *spec,
					      long *values, int *errs,
					      unsigned int mask, int coalesce)
{
	struct usdtkit__win win;
	int i, err, ret = 0;

	/* the window itself is cleared when a group is read: a probe
	 * without groups leaves it alone */
	win.group = 0;
	win.err = 0;
	usdtkit__no_priv_stack(ctx, spec);
#pragma unroll
	for (i = 0; i < USDTKIT_BPF_MAX_ARGS; i++) {
		if (!(mask & (1U << i)))
			continue;
		err = usdtkit__spec_arg(ctx, spec, i, coalesce ? &win : 0, &values[i]);
		if (errs)
			errs[i] = err;
		if (err && !ret)
			ret = err;
	}
	return ret;
}

/*
 * The arguments whose bit is set in @mask (bit n: argument n) into
 * @values[n], each sign- or zero-extended as by usdtkit_spec_arg(), and
 * what usdtkit_spec_arg() would return for it into @errs[n]; the other
 * entries are left alone. The arguments of a group (spec version 2)
 * come from one read of its window, made when its first wanted argument
 * comes; groups that interleave are read again. An argument whose window
 * faulted is read alone, so every value is what usdtkit_spec_arg() gives.
 * Returns 0, or the first error (that value is 0, the others still read).
 * -DUSDTKIT_NO_COALESCE: every argument read alone.
 */
static __always_inline int usdtkit_spec_args_errs(struct pt_regs *ctx,
						  const struct usdtkit_bpf_spec *spec,
						  long *values, int *errs,
						  unsigned int mask)
{
#ifdef USDTKIT_NO_COALESCE
	return usdtkit__spec_args(ctx, spec, values, errs, mask, 0);
#else
	return usdtkit__spec_args(ctx, spec, values, errs, mask, 1);
#endif
}

/* usdtkit_spec_args_errs() without the errors of each argument */
static __always_inline int usdtkit_spec_args(struct pt_regs *ctx,
					     const struct usdtkit_bpf_spec *spec,
					     long *values, unsigned int mask)
{
	return usdtkit_spec_args_errs(ctx, spec, values, 0, mask);
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
 * hit, not once per argument, and the arguments are read together by
 * usdtkit_spec_args(). Up to 12 arguments.
 */
#define ___usdtkit_a(i) ((void *)___vals[i])
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
	long ___vals[USDTKIT_BPF_MAX_ARGS];				\
	usdtkit_spec_args(ctx, ___spec, ___vals,			\
			  (1U << ___bpf_narg(args)) - 1);		\
	_Pragma("GCC diagnostic push")					\
	_Pragma("GCC diagnostic ignored \"-Wint-conversion\"")		\
	return ____##name(___usdtkit_args(args));			\
	_Pragma("GCC diagnostic pop")					\
}									\
static __always_inline typeof(name(0))					\
____##name(struct pt_regs *ctx, ##args)

#endif /* USDTKIT_USDTKIT_BPF_H */
