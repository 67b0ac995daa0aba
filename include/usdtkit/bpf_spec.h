/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The spec layout shared by the attach layer (host) and usdtkit.bpf.h
 * (BPF target). It is included by both sides, so it uses only types whose
 * width is the same for the BPF target and for every host usdtkit builds
 * on (char 1, short 2, int 4, long long 8) and spells out every padding
 * byte: the host writes these bytes into a BPF array map and the program
 * reads them back field by field, on little- and big-endian machines.
 *
 * Bump USDTKIT_BPF_SPEC_VERSION on any change. The attach layer tells the
 * layouts apart by the value size of the program's spec map: 400 bytes is
 * this version, 304 the version 1 layout (no group table) that programs
 * built against an older header still hold; any other size is refused.
 */
#ifndef USDTKIT_BPF_SPEC_H
#define USDTKIT_BPF_SPEC_H

#define USDTKIT_BPF_SPEC_VERSION	2
#define USDTKIT_BPF_MAX_ARGS		12
/* A group has two arguments or more: at most MAX_ARGS / 2 of them. */
#define USDTKIT_BPF_MAX_GROUPS		(USDTKIT_BPF_MAX_ARGS / 2)
/* Bytes one group read covers at most, from its first byte to its last. */
#define USDTKIT_BPF_WINDOW		64
/* sizeof(struct usdtkit_bpf_spec) of version 1, which had no groups */
#define USDTKIT_BPF_SPEC_V1_SIZE	304

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
	/*
	 * MEM, version 2: 1 + the index of the group whose window holds
	 * this argument, 0 if it is read alone; win_off is its first byte
	 * in that window. Version 1 leaves both 0.
	 */
	unsigned char group;
	unsigned char win_off;
	unsigned char pad[2];
};

/*
 * Version 2: memory arguments that share a base (same register view,
 * same PC_REL and ADDR32 flags, no index) and whose bytes all fit in
 * USDTKIT_BPF_WINDOW bytes form a group, read with one user-memory read
 * of @len bytes from base + @disp. The window is exactly the span of its
 * arguments' bytes, so it reaches no page they do not touch themselves.
 */
struct usdtkit_bpf_group {
	long long disp __attribute__((aligned(8)));	/* window start - base */
	short base_off;		/* the base register, or NO_REG */
	unsigned char base_width, base_shift;
	unsigned char len;	/* bytes read: 2..USDTKIT_BPF_WINDOW */
	unsigned char flags;	/* USDTKIT_BPF_F_PC_REL, USDTKIT_BPF_F_ADDR32 */
	unsigned char pad[2];
};

struct usdtkit_bpf_spec {
	unsigned short version;	/* USDTKIT_BPF_SPEC_VERSION */
	unsigned short arg_cnt;
	unsigned char slot_size;	/* bytes per pt_regs slot: 4 or 8 */
	unsigned char group_cnt;	/* version 2; 0 in version 1 */
	unsigned char pad[2];
	long long cookie __attribute__((aligned(8)));	/* the user's cookie */
	struct usdtkit_bpf_arg args[USDTKIT_BPF_MAX_ARGS];
	/* version 2 only: a version 1 spec ends before it */
	struct usdtkit_bpf_group groups[USDTKIT_BPF_MAX_GROUPS];
};

/* The layout is part of the ABI between the two sides: both check it. */
_Static_assert(sizeof(struct usdtkit_bpf_arg) == 24, "usdtkit_bpf_arg layout");
_Static_assert(sizeof(struct usdtkit_bpf_group) == 16, "usdtkit_bpf_group layout");
_Static_assert(sizeof(struct usdtkit_bpf_spec) ==
	       16 + 24 * USDTKIT_BPF_MAX_ARGS + 16 * USDTKIT_BPF_MAX_GROUPS,
	       "usdtkit_bpf_spec layout");
_Static_assert(__builtin_offsetof(struct usdtkit_bpf_spec, args) == 16,
	       "usdtkit_bpf_spec args offset");
_Static_assert(__builtin_offsetof(struct usdtkit_bpf_spec, groups) ==
	       USDTKIT_BPF_SPEC_V1_SIZE, "version 1 is a prefix of version 2");

/*
 * BPF cookie (perf and uprobe_multi links) = spec id + 1. A cookie of 0
 * means the link carries none: the program then looks the IP up in the
 * IP map.
 */
#define USDTKIT_BPF_COOKIE(spec_id)	((unsigned long long)(spec_id) + 1)

#endif /* USDTKIT_BPF_SPEC_H */
