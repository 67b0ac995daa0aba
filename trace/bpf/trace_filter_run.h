/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The --filter interpreter (trace_filter.h says what it runs). Included by
 * the BPF trace program and by the host's unit test, so the code the test
 * checks is the code the kernel runs. The includer defines
 *   USDTKIT_FILTER_READ_STR(dst, size, ptr): bpf_probe_read_user_str()'s
 *   contract: the bytes copied with the NUL, or a negative errno;
 *   USDTKIT_FILTER_INLINE: how the functions are declared;
 *   and may define USDTKIT_FILTER_READ_STR_COLD(dst, size, ptr) and
 *   USDTKIT_FILTER_UNDECIDED(n, ptr): the read of usdtkit_filter_run_cold(),
 *   and whether a read that failed with @n at @ptr may succeed later (a page not in
 *   memory), so that the comparison is unknown: the hit is kept and
 *   marked (h->undecided); the read of usdtkit_filter_run() by default
 *   and never unknown;
 *   and may define USDTKIT_FILTER_STR_ON: 0 when no filter compares a
 *   string (the BPF program's load-time constant: no string code to
 *   verify); 1 by default; and USDTKIT_FILTER_RUN_MAX: the most
 *   instructions any filter has (the program's load-time constant: the
 *   verifier walks that many steps, not USDTKIT_FILTER_MAX_INSNS).
 * Loops have constant bounds: the verifier of a 6.1 kernel accepts them
 * without unrolling.
 */
#ifndef USDTKIT_TRACE_FILTER_RUN_H
#define USDTKIT_TRACE_FILTER_RUN_H

#include <usdtkit/bpf_spec.h>

#include "trace_filter.h"

#ifndef USDTKIT_FILTER_STR_ON
#define USDTKIT_FILTER_STR_ON 1
#endif
#ifndef USDTKIT_FILTER_RUN_MAX
#define USDTKIT_FILTER_RUN_MAX USDTKIT_FILTER_MAX_INSNS
#endif
#ifndef USDTKIT_FILTER_READ_STR_COLD
#define USDTKIT_FILTER_READ_STR_COLD USDTKIT_FILTER_READ_STR
#endif
#ifndef USDTKIT_FILTER_UNDECIDED
#define USDTKIT_FILTER_UNDECIDED(n, ptr) 0
#endif

/* What one hit offers to a filter; args[] has every argument it names. */
struct usdtkit_filter_hit {
	long long args[USDTKIT_BPF_MAX_ARGS];
	unsigned int pid, tid;
	/* a string argument, read: a pattern's bytes, its NUL, and one
	 * byte more, for `==` to see that the string goes on */
	char buf[USDTKIT_FILTER_STR_MAX + 1];
	/* usdtkit_filter_run_cold(): a string comparison was unknown and
	 * the hit kept for it. Last: the other offsets stay as they were */
	unsigned char undecided;
};

USDTKIT_FILTER_INLINE unsigned long long
usdtkit_filter_opnd(const struct usdtkit_filter_opnd *o,
		    const struct usdtkit_filter_hit *h)
{
	unsigned long long v;

	switch (o->kind) {
	case USDTKIT_FSRC_CONST:
		return o->val;
	case USDTKIT_FSRC_ARG:
		v = o->arg < USDTKIT_BPF_MAX_ARGS ? h->args[o->arg] : 0;
		break;
	case USDTKIT_FSRC_PID:
		v = h->pid;
		break;
	case USDTKIT_FSRC_TID:
		v = h->tid;
		break;
	default:
		v = 0;
	}
	return v & o->val;
}

/* str(argN) against pattern @p. One read, at most one byte past the
 * pattern, is all either comparison needs: bpf_probe_read_user_str()
 * counts the NUL it writes, so a prefix read of len + 1 bytes returns
 * len + 1 for any string of len bytes or more, and an `==` read of
 * len + 2 bytes returns len + 1 only for a string of exactly len bytes
 * (a longer one fills len + 1 bytes and the NUL). A faulting pointer
 * matches no pattern. */
USDTKIT_FILTER_INLINE int usdtkit_filter_str(struct usdtkit_filter_hit *h,
					     const struct usdtkit_filter_str *p,
					     unsigned long long ptr, int prefix,
					     const int cold)
{
	unsigned int len = p->len, i;
	unsigned long size;	/* 64 bits: the register checked is the one passed */
	long n;

	if (len >= USDTKIT_FILTER_STR_MAX)
		return 0;
	size = prefix ? len + 1 : len + 2;
	/*
	 * size <= sizeof(h->buf), checked again right at the call: the
	 * compiler may spill size to the stack, and Linux 6.1's verifier
	 * forgets the bounds of a 32-bit value filled back from there
	 * ("R2 unbounded memory access"). The empty asm hides the earlier
	 * check from the compiler, so this one stays.
	 */
	__asm__ __volatile__("" : "+r"(size));
	if (size > sizeof(h->buf))
		return 0;
	if (cold) {
		n = USDTKIT_FILTER_READ_STR_COLD(h->buf, size, ptr);
		if (n < 0 && USDTKIT_FILTER_UNDECIDED(n, ptr)) {
			h->undecided = 1;
			return 0;
		}
	} else {
		n = USDTKIT_FILTER_READ_STR(h->buf, size, ptr);
	}
	if (n != (long)len + 1)
		return 0;
	for (i = 0; i < USDTKIT_FILTER_STR_MAX - 1; i++) {
		if (i >= len)
			break;
		if (h->buf[i] != p->s[i])
			return 0;
	}
	return 1;
}

USDTKIT_FILTER_INLINE int usdtkit_filter_insn(const struct usdtkit_filter *f,
					      const struct usdtkit_filter_insn *in,
					      struct usdtkit_filter_hit *h, const int cold)
{
	unsigned long long l, r;
	int s = in->flags & USDTKIT_FF_SIGNED;

	l = usdtkit_filter_opnd(&in->l, h);
	switch (in->op) {
	case USDTKIT_FOP_STR_EQ:
	case USDTKIT_FOP_STR_PREFIX:
		if (!USDTKIT_FILTER_STR_ON || in->str >= USDTKIT_FILTER_MAX_STRS)
			return 0;
		return usdtkit_filter_str(h, &f->strs[in->str], l,
					  in->op == USDTKIT_FOP_STR_PREFIX, cold);
	}
	r = usdtkit_filter_opnd(&in->r, h);
	switch (in->op) {
	case USDTKIT_FOP_EQ:
		return l == r;
	case USDTKIT_FOP_NE:
		return l != r;
	case USDTKIT_FOP_LT:
		return s ? (long long)l < (long long)r : l < r;
	case USDTKIT_FOP_LE:
		return s ? (long long)l <= (long long)r : l <= r;
	case USDTKIT_FOP_GT:
		return s ? (long long)l > (long long)r : l > r;
	case USDTKIT_FOP_GE:
		return s ? (long long)l >= (long long)r : l >= r;
	}
	return 0;
}

/* 1: keep the hit, 0: drop it. Jumps go forward only, so the program
 * ends within ninsns steps; a jump backwards (a bad program) rejects.
 * @cold (a constant where inlined): strings are read with the _COLD
 * read, and a comparison whose string may be read later keeps the hit,
 * whatever the rest of the filter says (h->undecided). */
USDTKIT_FILTER_INLINE int usdtkit_filter_run_in(const struct usdtkit_filter *f,
						struct usdtkit_filter_hit *h,
						const int cold)
{
	unsigned int pc = 0, i, next;

	if (cold)
		h->undecided = 0;
	if (!f->ninsns)
		return 1;
	for (i = 0; i < USDTKIT_FILTER_MAX_INSNS; i++) {
		const struct usdtkit_filter_insn *in;

		if (pc >= USDTKIT_FILTER_MAX_INSNS || pc >= f->ninsns ||
		    i >= USDTKIT_FILTER_RUN_MAX)
			break;
		in = &f->insns[pc];
		next = usdtkit_filter_insn(f, in, h, cold) ? in->jt : in->jf;
		if (cold && h->undecided)
			return 1;
		if (next <= pc)
			return 0;
		pc = next;
	}
	return pc == USDTKIT_FILTER_ACCEPT;
}

USDTKIT_FILTER_INLINE int usdtkit_filter_run(const struct usdtkit_filter *f,
					     struct usdtkit_filter_hit *h)
{
	return usdtkit_filter_run_in(f, h, 0);
}

USDTKIT_FILTER_INLINE int usdtkit_filter_run_cold(const struct usdtkit_filter *f,
						  struct usdtkit_filter_hit *h)
{
	return usdtkit_filter_run_in(f, h, 1);
}

#endif
