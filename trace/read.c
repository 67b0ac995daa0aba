// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The in-kernel aggregations read back into plain structs, summed over
 * the CPUs (every map the program counts in is per CPU). With
 * USDTKIT_TRACE_READ_RESET what was read is zeroed after, so the next
 * read shows its own interval; a hit landing between the read and the
 * zeroing is lost, as with bpftrace's print() then clear().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace/internal.h"
#include "trace.skel.h"

struct percpu {
	int ncpu;
	void *buf;		/* ncpu values, each rounded up to 8 bytes */
};

static int percpu_init(struct percpu *pc, size_t value_size)
{
	pc->ncpu = libbpf_num_possible_cpus();
	if (pc->ncpu < 0)
		return pc->ncpu;
	pc->buf = calloc(pc->ncpu, (value_size + 7) & ~7ul);
	return pc->buf ? 0 : -ENOMEM;
}

/* key @k of per-CPU map @m into pc->buf; with @reset, zeroed after */
static int percpu_read(struct bpf_map *m, struct percpu *pc, unsigned int k,
		       bool reset)
{
	size_t vs = (bpf_map__value_size(m) + 7) & ~7ul, n = vs * pc->ncpu;
	void *zero;
	int err;

	err = bpf_map__lookup_elem(m, &k, sizeof(k), pc->buf, n, 0);
	if (err || !reset)
		return err;
	zero = calloc(pc->ncpu, vs);
	if (!zero)
		return -ENOMEM;
	err = bpf_map__update_elem(m, &k, sizeof(k), zero, n, 0);
	free(zero);
	return err;
}

/* the u64 at key @k of @m, summed over the CPUs */
static int read_sum(struct bpf_map *m, unsigned int k, bool reset, uint64_t *sum)
{
	struct percpu pc = { 0 };
	int err, i;

	*sum = 0;
	err = percpu_init(&pc, sizeof(*sum));
	if (!err)
		err = percpu_read(m, &pc, k, reset);
	for (i = 0; !err && i < pc.ncpu; i++)
		*sum += ((uint64_t *)pc.buf)[i];
	free(pc.buf);
	return err;
}

static bool loaded(const struct usdtkit_trace *t)
{
	return t && t->loaded;
}

int usdtkit_trace_counter(const struct usdtkit_trace *t,
			  enum usdtkit_trace_counter which, uint64_t *value)
{
	static const unsigned int keys[] = {
		[USDTKIT_TRACE_KEPT] = USDTKIT_TRACE_C_KEPT,
		[USDTKIT_TRACE_LOST] = USDTKIT_TRACE_C_LOST,
		[USDTKIT_TRACE_DROPPED] = USDTKIT_TRACE_C_DROPPED,
		[USDTKIT_TRACE_BY_FULL] = USDTKIT_TRACE_C_BY_FULL,
		[USDTKIT_TRACE_UNMATCHED] = USDTKIT_TRACE_C_UNMATCHED,
		[USDTKIT_TRACE_FORKS] = USDTKIT_TRACE_C_NR,	/* not a counter */
		[USDTKIT_TRACE_UNDECIDED] = USDTKIT_TRACE_C_UNDECIDED,
		[USDTKIT_TRACE_STACK_FULL] = USDTKIT_TRACE_C_STACK_FULL,
		[USDTKIT_TRACE_STACK_FP] = USDTKIT_TRACE_C_STACK_FP,
	};
	int err;

	if (which == USDTKIT_TRACE_FORKS && loaded(t))
		return usdtkit__children_forks(t, value);
	if (!loaded(t) || (unsigned int)which >= sizeof(keys) / sizeof(keys[0]))
		return -EINVAL;
	err = read_sum(t->skel->maps.counters, keys[which], false, value);
	/* the kernel kept them, undecided; the engine dropped them once it
	 * read their strings (late.c) */
	if (!err && which == USDTKIT_TRACE_KEPT)
		*value -= *value >= t->late_dropped ? t->late_dropped : *value;
	if (!err && which == USDTKIT_TRACE_DROPPED)
		*value += t->late_dropped;
	return err;
}

/* agg_stats[slot] summed over the CPUs */
static int read_stats(const struct usdtkit_trace *t, unsigned int slot, bool is_signed,
		      bool reset, struct usdtkit_trace_stats *out)
{
	const struct usdtkit_trace_agg_stats *v;
	struct percpu pc = { 0 };
	int err, i;

	memset(out, 0, sizeof(*out));
	out->is_signed = is_signed;
	err = percpu_init(&pc, sizeof(struct usdtkit_trace_agg_stats));
	if (!err)
		err = percpu_read(t->skel->maps.agg_stats, &pc, slot, reset);
	v = pc.buf;
	for (i = 0; !err && i < pc.ncpu; i++) {
		if (!v[i].n)
			continue;
		if (!out->count || (is_signed ? (long long)v[i].min < (long long)out->min :
				    v[i].min < out->min))
			out->min = v[i].min;
		if (!out->count || (is_signed ? (long long)v[i].max > (long long)out->max :
				    v[i].max > out->max))
			out->max = v[i].max;
		out->count += v[i].n;
		out->sum += v[i].sum;
	}
	free(pc.buf);
	return err;
}

int usdtkit_trace_read_stats(struct usdtkit_trace *t, size_t probe, unsigned int flags,
			     struct usdtkit_trace_stats *out)
{
	const struct probe *p;
	bool sg;

	if (!loaded(t) || probe >= t->nprobes)
		return -EINVAL;
	p = &t->probes[probe];
	sg = t->agg.stats.set && p->pub.args[t->agg.stats.arg].is_signed;
	return read_stats(t, (unsigned int)probe, sg, flags & USDTKIT_TRACE_READ_RESET, out);
}

static int read_hist(const struct usdtkit_trace *t, unsigned int slot, bool reset,
		     uint64_t *h)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < USDTKIT_TRACE_HIST_SLOTS && !err; i++)
		err = read_sum(t->skel->maps.agg_hist,
			       slot * USDTKIT_TRACE_HIST_SLOTS + i, reset, &h[i]);
	return err;
}

int usdtkit_trace_read_hist(struct usdtkit_trace *t, size_t probe, unsigned int flags,
			    uint64_t buckets[USDTKIT_TRACE_HIST_SLOTS])
{
	if (!loaded(t) || probe >= t->nprobes)
		return -EINVAL;
	return read_hist(t, (unsigned int)probe, flags & USDTKIT_TRACE_READ_RESET, buckets);
}

int usdtkit_trace_read_latency(struct usdtkit_trace *t, unsigned int flags,
			       struct usdtkit_trace_stats *stats,
			       uint64_t buckets[USDTKIT_TRACE_HIST_SLOTS],
			       uint64_t *unmatched)
{
	unsigned int slot = (unsigned int)t->nprobes;
	bool reset = flags & USDTKIT_TRACE_READ_RESET;
	int err;

	if (!loaded(t))
		return -EINVAL;
	err = read_stats(t, slot, false, reset, stats);
	if (!err)
		err = read_hist(t, slot, reset, buckets);
	if (!err)
		err = read_sum(t->skel->maps.counters, USDTKIT_TRACE_C_UNMATCHED, reset,
			       unmatched);
	return err;
}

/* ---- COUNT_BY, as it was before keys (by.c has every part) ---- */

int usdtkit_trace_read_keys(struct usdtkit_trace *t, unsigned int flags,
			    struct usdtkit_trace_key_count **rows, size_t *n)
{
	struct usdtkit_trace_by_row *v = NULL;
	size_t nv = 0, bytes, i;
	char *s;
	int err;

	*rows = NULL;
	*n = 0;
	if (!loaded(t))
		return -EINVAL;
	err = usdtkit_trace_read_by(t, USDTKIT_TRACE_AGG_COUNT_BY, flags, &v, &nv);
	if (err)
		return err;
	bytes = nv * sizeof(**rows);
	for (i = 0; i < nv; i++)
		bytes += v[i].parts[0].str ? v[i].parts[0].str_len + 1 : 0;
	*rows = calloc(1, bytes ? bytes : 1);
	if (!*rows) {
		usdtkit_trace_by_free(v, nv);
		return -ENOMEM;
	}
	s = (char *)(*rows + nv);
	for (i = 0; i < nv; i++) {
		const struct usdtkit_trace_key_value *k = &v[i].parts[0];
		struct usdtkit_trace_key_count *r = &(*rows)[i];

		r->probe = v[i].probe;
		r->count = v[i].stats.count;
		r->value = k->value;
		r->is_signed = k->is_signed;
		r->cut = k->cut;
		r->late = k->late;
		r->unread = k->unread;
		if (!k->str)
			continue;
		r->str_len = k->str_len;
		memcpy(s, k->str, k->str_len);
		r->str = s;
		s += k->str_len + 1;
	}
	*n = nv;
	usdtkit_trace_by_free(v, nv);
	return 0;
}

void usdtkit_trace_keys_free(struct usdtkit_trace_key_count *rows, size_t n)
{
	(void)n;
	free(rows);
}
