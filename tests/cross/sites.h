/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The probe-site check (docs/ARCHES.md): a program that fires USDT probes
 * whose argument values it knows, traps at each probe, and compares what
 * usdtkit computes from the trapped registers with those values.
 *
 * sites_probes.c  the probes: records expected values, then fires;
 * sites_main.c    reads its own notes, patches traps, checks each hit;
 * sites_arch.c    per target (arch/<dir>/<dir>_sites.c, manifest key
 *                 "sites"): trap encodings, ucontext -> uapi pt_regs.
 */
#ifndef USDTKIT_TESTS_SITES_H
#define USDTKIT_TESTS_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <ucontext.h>

#define SITES_MAX_ARGS 12

/* What the program passed to the probe that fires next. */
struct sites_expect {
	int nargs;
	uint64_t value[SITES_MAX_ARGS];	/* C value, extended as sdt.h does */
	uint8_t size[SITES_MAX_ARGS];	/* sizeof the argument */
	bool is_float[SITES_MAX_ARGS];	/* value holds raw bits */
	bool is_signed[SITES_MAX_ARGS];	/* as sdt.h declares it */
};

extern struct sites_expect sites_expect;

/*
 * Built with -DSITES_HIT_HOOK (tests/vm), every probe calls this right
 * after it fired, with sites_expect still holding what it passed: the VM
 * workload writes it down for the host to compare with `usdtkit trace`.
 */
void sites_hit(const char *name);

/* Fire every probe of sites_probes.c at least once. */
void sites_run_probes(void);

/* The probe with floats in FP registers (sites_fp.c). */
void sites_fp_probes(float f, double d);

/* Name of the target as usdtkit spells it ("aarch64", "arm", ...). */
extern const char sites_arch_name[];

/*
 * Replace the probe nop at @site with a trap instruction (the text is
 * writable). Returns the length of the nop, which the handler skips, or
 * -ENOEXEC when @site does not hold a nop this target's sdt.h emits.
 */
int sites_arch_patch(uint8_t *site);

/* Address of the trap instruction that raised @si / @uc. */
uintptr_t sites_arch_trap_pc(const siginfo_t *si, const ucontext_t *uc);

/* Continue at @pc when the handler returns. */
void sites_arch_resume(ucontext_t *uc, uintptr_t pc);

/*
 * Write the trapped registers into @buf as the target's own uapi struct
 * (the one usdtkit's NATIVE layout describes), declared by the target's
 * <asm/ptrace.h>, and return its size (0 when @size is too small).
 */
size_t sites_arch_regs(const ucontext_t *uc, void *buf, size_t size);

/*
 * Same in the COMPAT64 layout: what a 64-bit kernel of the same family
 * hands BPF for this 32-bit task (i386 on x86-64, arm on arm64). Returns
 * 0 on targets without one.
 */
size_t sites_arch_regs_compat(const ucontext_t *uc, void *buf, size_t size);

#endif /* USDTKIT_TESTS_SITES_H */
