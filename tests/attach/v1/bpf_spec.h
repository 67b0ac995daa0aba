/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A frozen copy of bpf_spec.h version 1, see v1/usdtkit.bpf.h.
 *
 * The spec layout shared by the attach layer (host) and usdtkit.bpf.h
 * (BPF target). It is included by both sides, so it uses only types whose
 * width is the same for the BPF target and for every host usdtkit builds
 * on (char 1, short 2, int 4, long long 8) and spells out every padding
 * byte: the host writes these bytes into a BPF array map and the program
 * reads them back field by field, on little- and big-endian machines.
 *
 * Bump USDTKIT_BPF_SPEC_VERSION on any change: the attach layer refuses a
 * spec map whose value size is not sizeof(struct usdtkit_bpf_spec).
 */
#ifndef USDTKIT_BPF_SPEC_H
#define USDTKIT_BPF_SPEC_H

#define USDTKIT_BPF_SPEC_VERSION	1
#define USDTKIT_BPF_MAX_ARGS		12

/* What the program computes for one argument. */
enum usdtkit_bpf_arg_kind {
	USDTKIT_BPF_ARG_CONST = 0,	/* value = disp (+ ip if PC_REL) */
	USDTKIT_BPF_ARG_REG = 1,	/* value = view of reg (| hi view) */
	USDTKIT_BPF_ARG_MEM = 2,	/* value = *(size)(addr) */
};

/* usdtkit_bpf_arg.flags */
#define USDTKIT_BPF_F_PC_REL	0x01	/* add the probe IP (symbol-relative) */
#define USDTKIT_BPF_F_ADDR32	0x02	/* wrap the address at 4 GiB */
#define USDTKIT_BPF_F_SIGNED	0x04	/* sign-extend from size bytes */
#define USDTKIT_BPF_F_HI	0x08	/* REG: index_* is the high half */

#define USDTKIT_BPF_NO_REG	(-1)

/*
 * A register view: read the slot at byte offset @off of the kernel's
 * pt_regs (slot_size bytes), shift right by @shift bits, keep @width
 * bytes (%ah is offset of rax, shift 8, width 1).
 */
struct usdtkit_bpf_arg {
	/* 8-byte aligned as on BPF, also on hosts that align long long to 4 */
	long long disp __attribute__((aligned(8)));	/* CONST: value; MEM: displacement */
	short base_off;		/* REG: the register; MEM: base, or NO_REG */
	short index_off;	/* MEM: index; REG with F_HI: high half */
	unsigned char kind;	/* enum usdtkit_bpf_arg_kind */
	unsigned char size;	/* bytes read and kept: 1, 2, 4 or 8 */
	unsigned char flags;	/* USDTKIT_BPF_F_* */
	unsigned char scale_shift;	/* MEM: index << scale_shift */
	unsigned char base_width, base_shift;
	unsigned char index_width, index_shift;
	unsigned char pad[4];
};

struct usdtkit_bpf_spec {
	unsigned short version;	/* USDTKIT_BPF_SPEC_VERSION */
	unsigned short arg_cnt;
	unsigned char slot_size;	/* bytes per pt_regs slot: 4 or 8 */
	unsigned char pad[3];
	long long cookie __attribute__((aligned(8)));	/* the user's cookie */
	struct usdtkit_bpf_arg args[USDTKIT_BPF_MAX_ARGS];
};

/* The layout is part of the ABI between the two sides: both check it. */
_Static_assert(sizeof(struct usdtkit_bpf_arg) == 24, "usdtkit_bpf_arg layout");
_Static_assert(sizeof(struct usdtkit_bpf_spec) == 16 + 24 * USDTKIT_BPF_MAX_ARGS,
	       "usdtkit_bpf_spec layout");
_Static_assert(__builtin_offsetof(struct usdtkit_bpf_spec, args) == 16,
	       "usdtkit_bpf_spec args offset");

/*
 * BPF cookie (perf and uprobe_multi links) = spec id + 1. A cookie of 0
 * means the link carries none: the program then looks the IP up in the
 * IP map.
 */
#define USDTKIT_BPF_COOKIE(spec_id)	((unsigned long long)(spec_id) + 1)

#endif /* USDTKIT_BPF_SPEC_H */
