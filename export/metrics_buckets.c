// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the value families share, with a key or without (metrics_hist.c,
 * metrics_hist_by.c): the engine's log2 slots as Prometheus buckets, an
 * argument's width, a --latency target's label.
 */
#include <string.h>

#include "export/metrics.h"

/* the slots [first, last] of @h as buckets; the others go to +Inf */
void usdtkit__metrics_buckets(const uint64_t *h, unsigned int first, unsigned int last,
		       bool ns, struct buckets *b)
{
	unsigned int s;

	memset(b, 0, sizeof(*b));
	for (s = 0; s < SLOTS; s++) {
		uint64_t le = s < 2 ? 0 : (s - 2 == 63 ? UINT64_MAX : (2ull << (s - 2)) - 1);

		if (s < first || s > last) {
			b->over += h[s];
			continue;
		}
		b->le[b->n] = s == 0 ? PROM_I64(-1) : ns ? PROM_NS(le) : PROM_U64(le);
		b->count[b->n++] = h[s];
	}
}

/* the width of argument @arg of probe @p, in bits (a probe whose sites
 * disagree: 64) */
unsigned int usdtkit__metrics_arg_bits(const struct probe *p, unsigned int arg)
{
	return p->pub.mixed || !p->pub.args[arg].size ? 64 : p->pub.args[arg].size * 8u;
}

/* PROVIDER:NAME of a --latency target, as the probe label has it (its
 * PATH left out; a glob stays a glob) */
const char *usdtkit__metrics_provider_name(const char *target)
{
	const char *last = strrchr(target, ':'), *p;

	for (p = last; p && p > target; p--)
		if (p[-1] == ':')
			return p;
	return target;
}
