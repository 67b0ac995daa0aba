// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * s390x register table and the register file BPF sees: user_pt_regs of
 * arch/s390/include/uapi/asm/ptrace.h,
 *
 *   typedef struct {
 *           unsigned long args[1];
 *           psw_t psw;                  // { unsigned long mask, addr; }
 *           unsigned long gprs[NUM_GPRS];
 *   } user_pt_regs;
 *
 * so gprs[n] is at 24 + 8 * n, big-endian. Floating-point, vector and
 * access registers are not in it.
 */
#include "spec/backends.h"
#include "s390x/s390x_regs.h"

#define S390X_GPRS_OFF 24	/* offsetof(user_pt_regs, gprs) */

#define S390X_ROW(n) [S390XE_R##n] = { "r" #n, n, 8, 0 },
static const struct usdtkit_regdef s390x_regs[S390XE_NR] = {
	S390X_GPR_LIST(S390X_ROW)
};

#define S390X_OFFSET(n) [n] = S390X_GPRS_OFF + 8 * n,
static const int16_t s390x_offsets[S390X_NR_IDS] = {
	S390X_GPR_LIST(S390X_OFFSET)
};

static const struct usdtkit_layout s390x_user_pt_regs = {
	.name = "user_pt_regs (s390x)",
	.size = S390X_GPRS_OFF + 8 * S390X_NR_IDS,
	.slot_size = 8,
	.big_endian = true,
	.nregs = S390X_NR_IDS,
	.offsets = s390x_offsets,
};

const struct usdtkit_arch usdtkit__arch_s390x = {
	USDTKIT_MANIFEST_s390x,
	.regs = s390x_regs,
	.nregs = S390XE_NR,
	.native = &s390x_user_pt_regs,
};
