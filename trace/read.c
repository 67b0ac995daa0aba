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

/* ---- COUNT_BY ---- */

struct by_entry {
	uint64_t count;
	struct usdtkit_trace_key_buf *key;	/* whole, zeroed past the map's key */
	bool late;				/* a KEY_LATE key, read late */
};

/* by count, highest first; ties by key, so the order is reproducible */
static int by_cmp(const void *a, const void *b)
{
	const struct by_entry *x = a, *y = b;
	const struct usdtkit_trace_key_buf *kx = x->key, *ky = y->key;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (kx->val != ky->val)
		return kx->val < ky->val ? -1 : 1;
	if (kx->pad != ky->pad)		/* "ab" before "ab"... */
		return kx->pad < ky->pad ? -1 : 1;
	return memcmp(kx->str, ky->str, sizeof(kx->str));
}

static void by_free(struct by_entry *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].key);
	free(v);
}

/* every key of agg_by (deleted with @reset), its per-CPU counts summed */
static int by_collect(const struct usdtkit_trace *t, bool reset,
		      struct by_entry **out, size_t *n)
{
	struct bpf_map *m = t->skel->maps.agg_by;
	size_t ks = bpf_map__key_size(m), cap = 0, i;
	struct usdtkit_trace_key_buf *key, *prev = NULL, *orphan = NULL;
	struct by_entry *v = NULL;
	struct percpu pc = { 0 };
	int err, c;

	*n = 0;
	err = percpu_init(&pc, sizeof(uint64_t));
	while (!err) {
		key = calloc(1, sizeof(*key) > ks ? sizeof(*key) : ks);
		if (!key) {
			err = -ENOMEM;
			break;
		}
		if (bpf_map__get_next_key(m, prev, key, ks)) {
			free(key);
			break;
		}
		if (*n == cap) {
			struct by_entry *nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));

			if (!nv) {
				free(key);
				err = -ENOMEM;
				break;
			}
			v = nv;
		}
		free(orphan);
		orphan = NULL;
		v[*n] = (struct by_entry){ .key = key };
		if (!bpf_map__lookup_elem(m, key, ks, pc.buf, 8 * pc.ncpu, 0)) {
			for (c = 0; c < pc.ncpu; c++)
				v[*n].count += ((uint64_t *)pc.buf)[c];
			(*n)++;
		} else {
			orphan = key;	/* gone since it was listed: still
					 * where the walk goes on from */
		}
		prev = key;
	}
	free(orphan);
	if (reset)
		for (i = 0; i < *n; i++)
			bpf_map__delete_elem(m, v[i].key, ks, 0);
	free(pc.buf);
	*out = v;
	return err;
}

/*
 * str() keys longer than str_len. The map's key holds a byte more than
 * str_len (agg.c, usdtkit__key_str_bytes()), so such a string is seen:
 * it is cut at str_len, or before a UTF-8 character that the cut would
 * split, and marked (pad = 1). Keys that are the same once cut are then
 * one key, their counts summed: a cut string stands for all the strings
 * that begin with it, never for one of them.
 */
static bool key_cut(struct usdtkit_trace_key_buf *k, size_t room, size_t max)
{
	size_t len = strnlen(k->str, room), at, need;

	if (k->val || len <= max)
		return false;
	at = max;
	/* the last character's first byte, at most 3 bytes back */
	while (at > 0 && at + 3 > max && ((unsigned char)k->str[at - 1] & 0xc0) == 0x80)
		at--;
	if (at > 0) {
		unsigned char c = (unsigned char)k->str[at - 1];

		need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
		at = at - 1 + need <= max ? max : at - 1;
	}
	memset(k->str + at, 0, room - at);
	k->pad = 1;
	return true;
}

static int by_same(const void *a, const void *b)
{
	const struct usdtkit_trace_key_buf *kx = ((const struct by_entry *)a)->key,
					   *ky = ((const struct by_entry *)b)->key;

	if (kx->probe != ky->probe)
		return kx->probe < ky->probe ? -1 : 1;
	if (kx->val != ky->val || kx->pad != ky->pad)
		return kx->val != ky->val ? (kx->val < ky->val ? -1 : 1) :
		       (kx->pad < ky->pad ? -1 : 1);
	return memcmp(kx->str, ky->str, sizeof(kx->str));
}

/*
 * A str() key the kernel could not read (a page not in memory, no
 * sleepable uprobes: USDTKIT_TRACE_KEY_LATE), read now from its process
 * (late.c): it becomes the key of its string, marked late. One that
 * cannot be read any more (the process exited) stays apart, unread.
 */
static bool key_late(struct by_entry *e, size_t room)
{
	struct usdtkit_trace_key_buf *k = e->key;
	uint64_t addr;
	int pid = (int)k->pad;
	long n;

	if (k->val != USDTKIT_TRACE_KEY_LATE)
		return false;
	memcpy(&addr, k->str, sizeof(addr));
	memset(k->str, 0, room);
	k->pad = 0;
	n = usdtkit__late_read(pid, addr, k->str, room);
	if (n < 0) {
		memset(k->str, 0, room);
		/* unmapped: a bad pointer, the "<fault>" key */
		if (n != -ESRCH)
			k->val = 1;
		return true;
	}
	k->val = 0;
	e->late = true;
	return true;
}

/* str() keys read late, those past str_len cut, and the keys that are
 * then equal merged */
static void by_cut(const struct usdtkit_trace *t, struct by_entry *v, size_t *n,
		   size_t room)
{
	size_t i, o;
	bool any = false;

	if (!t->agg.by.str || !*n)
		return;
	for (i = 0; i < *n; i++) {
		any |= key_late(&v[i], room);
		any |= key_cut(v[i].key, room, t->str_len);
	}
	if (!any)
		return;
	qsort(v, *n, sizeof(*v), by_same);
	for (i = 1, o = 0; i < *n; i++) {
		if (!by_same(&v[o], &v[i])) {
			v[o].count += v[i].count;
			v[o].late |= v[i].late;
			free(v[i].key);
		} else {
			v[++o] = v[i];
		}
	}
	*n = o + 1;
}

/* the rows the caller gets: one allocation, their strings after them */
static int by_export(const struct usdtkit_trace *t, const struct by_entry *v,
		     size_t n, size_t room, struct usdtkit_trace_key_count **rows)
{
	const struct agg_arg *a = &t->agg.by;
	size_t bytes = n * sizeof(**rows), i;
	char *s;

	for (i = 0; a->str && i < n; i++)
		bytes += strnlen(v[i].key->str, room) + 1;
	*rows = calloc(1, bytes ? bytes : 1);
	if (!*rows)
		return -ENOMEM;
	s = (char *)(*rows + n);
	for (i = 0; i < n; i++) {
		const struct usdtkit_trace_key_buf *k = v[i].key;
		struct usdtkit_trace_key_count *r = &(*rows)[i];
		const struct probe *p = k->probe < t->nprobes ? &t->probes[k->probe] : NULL;

		r->probe = k->probe;
		r->count = v[i].count;
		r->value = k->val;
		r->is_signed = !a->str && p && p->pub.args[a->arg].is_signed;
		r->cut = k->pad;
		r->late = v[i].late;
		r->unread = a->str && k->val == USDTKIT_TRACE_KEY_LATE;
		if (!a->str || k->val)
			continue;	/* a number, a bad pointer or unread: NULL */
		r->str_len = strnlen(k->str, room);
		memcpy(s, k->str, r->str_len);
		r->str = s;
		s += r->str_len + 1;
	}
	return 0;
}

int usdtkit_trace_read_keys(struct usdtkit_trace *t, unsigned int flags,
			    struct usdtkit_trace_key_count **rows, size_t *n)
{
	struct by_entry *v = NULL;
	size_t room, nv = 0;
	int err;

	*rows = NULL;
	*n = 0;
	if (!loaded(t))
		return -EINVAL;
	if (!usdtkit_trace_has_agg(t, USDTKIT_TRACE_AGG_COUNT_BY))
		return 0;
	room = bpf_map__key_size(t->skel->maps.agg_by) - 16;
	err = by_collect(t, flags & USDTKIT_TRACE_READ_RESET, &v, &nv);
	if (!err) {
		by_cut(t, v, &nv, room);
		if (nv)	/* qsort() of NULL is undefined, even of nothing */
			qsort(v, nv, sizeof(*v), by_cmp);
		err = by_export(t, v, nv, room, rows);
	}
	if (!err)
		*n = nv;
	by_free(v, nv);
	return err;
}

void usdtkit_trace_keys_free(struct usdtkit_trace_key_count *rows, size_t n)
{
	(void)n;
	free(rows);
}
