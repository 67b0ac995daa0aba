// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The keyed aggregations read back (agg_by: hits, sum, min, max per key;
 * agg_by_hist: hits per key and log2 slot), summed over the CPUs. A
 * str() part read late or cut at str_len is made canonical first, and
 * the keys then equal are merged; a ustack is named once per distinct
 * stack (stack.c). Rows come sorted for --top: the highest first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace/internal.h"
#include "trace.skel.h"

#define SLOTS USDTKIT_TRACE_HIST_SLOTS

struct by_read;

struct by_ent {
	const struct by_read *r;	/* for the comparisons of qsort() */
	unsigned char *key;		/* the map's key, slot zeroed */
	struct usdtkit_trace_stats st;
	uint64_t *hist;			/* SLOTS, for HIST and LATENCY */
	unsigned int late;		/* the str() parts read late: bit p */
};

struct by_read {
	struct usdtkit_trace *t;
	enum usdtkit_trace_agg_kind kind;
	size_t ks;			/* key bytes */
	/* a stack id's frames (struct usdtkit_trace_by_stack) */
	uint64_t stack[1 + USDTKIT_TRACE_STACK_MAX];
	struct by_ent *v;
	size_t n, cap;
};

static const struct usdtkit_trace_by_head *head(const unsigned char *k)
{
	return (const struct usdtkit_trace_by_head *)k;
}

/* is the stats argument of probe @probe signed? (LATENCY: ns, no) */
static bool stats_signed(const struct usdtkit_trace *t, size_t probe)
{
	return probe < t->nprobes && t->agg.stats.set &&
	       t->probes[probe].pub.args[t->agg.stats.arg].is_signed;
}

static void stats_merge(struct usdtkit_trace_stats *o, const struct usdtkit_trace_stats *s)
{
	bool sg = o->is_signed;

	if (!s->count)
		return;
	if (!o->count || (sg ? (int64_t)s->min < (int64_t)o->min : s->min < o->min))
		o->min = s->min;
	if (!o->count || (sg ? (int64_t)s->max > (int64_t)o->max : s->max > o->max))
		o->max = s->max;
	o->count += s->count;
	o->sum += s->sum;
}

static struct by_ent *ent_add(struct by_read *r, const unsigned char *key)
{
	struct by_ent *e;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct by_ent *nv = realloc(r->v, cap * sizeof(*nv));

		if (!nv)
			return NULL;
		r->v = nv;
		r->cap = cap;
	}
	e = &r->v[r->n];
	memset(e, 0, sizeof(*e));
	e->r = r;
	e->key = malloc(r->ks);
	if (!e->key)
		return NULL;
	memcpy(e->key, key, r->ks);
	((struct usdtkit_trace_by_head *)e->key)->slot = 0;
	e->st.is_signed = stats_signed(r->t, head(key)->probe);
	r->n++;
	return e;
}

/* per-CPU value @pc of map @hist (or agg_by) into a new entry of @key */
static int add_value(struct by_read *r, const unsigned char *key, bool hist,
		     const void *pc, int ncpu)
{
	struct by_ent *e = ent_add(r, key);
	int c;

	if (!e)
		return -ENOMEM;
	if (hist) {
		unsigned int slot = head(key)->slot;

		e->hist = calloc(SLOTS, sizeof(*e->hist));
		if (!e->hist)
			return -ENOMEM;
		for (c = 0; c < ncpu && slot < SLOTS; c++)
			e->hist[slot] += ((const uint64_t *)pc)[c];
		e->st.count = e->hist[slot < SLOTS ? slot : 0];
		return 0;
	}
	for (c = 0; c < ncpu; c++) {
		const struct usdtkit_trace_agg_stats *v =
			(const struct usdtkit_trace_agg_stats *)pc + c;
		struct usdtkit_trace_stats s = { .count = v->n, .sum = v->sum,
						 .min = v->min, .max = v->max };

		stats_merge(&e->st, &s);
	}
	return 0;
}

/* the probe of the rows of @kind: @probe's rows are wanted? */
static bool wanted(const struct by_read *r, unsigned int probe)
{
	return r->kind == USDTKIT_TRACE_AGG_LATENCY ? probe == r->t->nprobes :
		probe < r->t->nprobes;
}

/*
 * Key @cur's value into @pc, and with @reset the key deleted in the same
 * step: atomically where the kernel can (lookup-and-delete of a hash,
 * Linux 5.14), else deleted right after its lookup. A hit that lands
 * between the two is lost, as with bpftrace's print() then clear(); the
 * atomic form leaves only a hit whose program found the entry before
 * the delete and adds to it after (nanoseconds), where deleting after
 * the whole walk lost any hit of the walk's length (milliseconds on a
 * loaded machine).
 */
static int take_value(struct bpf_map *m, const void *cur, size_t ks, void *pc, size_t n,
		      bool reset)
{
	int fd = bpf_map__fd(m);

	if (!reset)
		return bpf_map__lookup_elem(m, cur, ks, pc, n, 0);
	if (!bpf_map_lookup_and_delete_elem(fd, cur, pc))
		return 0;
	/* (before 5.14 a hash says ENOTSUPP, the kernel's 524) */
	if (errno == ENOENT)
		return -ENOENT;
	if (bpf_map__lookup_elem(m, cur, ks, pc, n, 0))
		return -errno;
	bpf_map__delete_elem(m, cur, ks, 0);
	return 0;
}

/* every wanted key of @m (deleted with @reset) */
static int collect(struct by_read *r, struct bpf_map *m, bool hist, bool reset)
{
	size_t vs = hist ? 8 : sizeof(struct usdtkit_trace_agg_stats);
	int ncpu = libbpf_num_possible_cpus(), err = 0;
	unsigned char *key, *cur, *next;
	bool more;
	void *pc;

	if (ncpu < 0)
		return ncpu;
	pc = calloc(ncpu, vs);
	key = calloc(2, r->ks);
	if (!pc || !key) {
		free(pc);
		free(key);
		return -ENOMEM;
	}
	cur = key;
	next = key + r->ks;
	/* the next key is found before the current one is deleted: a
	 * deleted key leads the walk back to the first */
	more = !bpf_map__get_next_key(m, NULL, cur, r->ks);
	while (!err && more) {
		unsigned char *tmp;

		more = !bpf_map__get_next_key(m, cur, next, r->ks);
		if (wanted(r, head(cur)->probe) &&
		    !take_value(m, cur, r->ks, pc, vs * ncpu, reset))
			err = add_value(r, cur, hist, pc, ncpu);
		tmp = cur;
		cur = next;
		next = tmp;
	}
	free(pc);
	free(key);
	return err;
}

/*
 * A str() part longer than str_len (the key holds a byte more: agg.c):
 * cut at str_len, or before a UTF-8 character the cut would split, and
 * marked; the keys equal once cut are then merged, so a cut string
 * stands for all those that begin with it.
 */
static void str_cut(struct usdtkit_trace_by_str *s, size_t room, size_t max)
{
	size_t len = strnlen(s->str, room), at = max, need;

	if (s->val || len <= max)
		return;
	while (at > 0 && at + 3 > max && ((unsigned char)s->str[at - 1] & 0xc0) == 0x80)
		at--;
	if (at > 0) {
		unsigned char c = (unsigned char)s->str[at - 1];

		need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
		at = at - 1 + need <= max ? max : at - 1;
	}
	memset(s->str + at, 0, room - at);
	s->pad |= 1;
}

/* a str() part the kernel left to read late (KEY_LATE): read now from
 * its process (late.c); one gone stays unread, apart */
static void str_late(struct usdtkit_trace_by_str *s, size_t room)
{
	uint64_t addr;
	long n;

	if (s->val != USDTKIT_TRACE_KEY_LATE)
		return;
	memcpy(&addr, s->str, sizeof(addr));
	memset(s->str, 0, room);
	n = usdtkit__late_read((int)s->pid, addr, s->str, room);
	s->pid = 0;
	if (n < 0) {
		memset(s->str, 0, room);
		if (n != -ESRCH)
			s->val = 1;
		return;
	}
	s->val = 0;
	s->pad |= 2;
}

static int key_cmp(const struct by_read *r, const struct by_ent *a, const struct by_ent *b)
{
	return memcmp(a->key, b->key, r->ks);
}

static int by_key_cmp(const void *a, const void *b)
{
	return key_cmp(((const struct by_ent *)a)->r, a, b);
}

/* the value @kind sorts by: larger first */
static int value_cmp(const struct by_read *r, const struct by_ent *a, const struct by_ent *b)
{
	const struct usdtkit_trace_stats *x = &a->st, *y = &b->st;
	bool sg = x->is_signed;
	long double vx, vy;

	switch (r->kind) {
	case USDTKIT_TRACE_AGG_SUM:
		vx = sg ? (long double)(int64_t)x->sum : x->sum;
		vy = sg ? (long double)(int64_t)y->sum : y->sum;
		break;
	case USDTKIT_TRACE_AGG_AVG:
		vx = x->count ? (sg ? (long double)(int64_t)x->sum : x->sum) / x->count : 0;
		vy = y->count ? (sg ? (long double)(int64_t)y->sum : y->sum) / y->count : 0;
		break;
	case USDTKIT_TRACE_AGG_MIN:
		vx = sg ? (long double)(int64_t)x->min : x->min;
		vy = sg ? (long double)(int64_t)y->min : y->min;
		break;
	case USDTKIT_TRACE_AGG_MAX:
		vx = sg ? (long double)(int64_t)x->max : x->max;
		vy = sg ? (long double)(int64_t)y->max : y->max;
		break;
	default:
		vx = x->count;
		vy = y->count;
	}
	return vx == vy ? 0 : vx > vy ? -1 : 1;
}

static int by_order_cmp(const void *a, const void *b)
{
	const struct by_read *r = ((const struct by_ent *)a)->r;
	int c = value_cmp(r, a, b);

	return c ? c : key_cmp(r, a, b);
}

/*
 * Each str() part's "read late" mark out of the key (@out) or back into
 * it: a string read at one hit and read late at another is one key, one
 * row (its mark then says that some of its hits were read late), not two
 * rows that print alike.
 */
static void late_marks(const struct by_read *r, struct by_ent *e, bool out)
{
	const struct trace_key *k = &r->t->agg.by_key;
	unsigned int p;

	for (p = 0; p < k->nparts; p++) {
		struct usdtkit_trace_by_str *bs;

		if (k->parts[p].kind != USDTKIT_TRACE_BY_STR)
			continue;
		bs = (void *)(e->key + k->parts[p].off);
		if (out) {
			e->late |= (bs->pad & 2) ? 1u << p : 0;
			bs->pad &= ~2u;
		} else if (e->late & (1u << p)) {
			bs->pad |= 2;
		}
	}
}

/* str() parts canonical, then equal keys merged (hist slots into one) */
static int canon_merge(struct by_read *r)
{
	const struct trace_key *k = &r->t->agg.by_key;
	size_t room = usdtkit__key_str_bytes(r->t), i, o;
	unsigned int p, s;

	for (i = 0; k->str && i < r->n; i++) {
		for (p = 0; p < k->nparts; p++) {
			struct usdtkit_trace_by_str *bs;

			if (k->parts[p].kind != USDTKIT_TRACE_BY_STR)
				continue;
			bs = (void *)(r->v[i].key + k->parts[p].off);
			str_late(bs, room);
			str_cut(bs, room, r->t->str_len);
		}
		late_marks(r, &r->v[i], true);
	}
	if (r->n < 2)
		goto marks;
	qsort(r->v, r->n, sizeof(*r->v), by_key_cmp);
	for (i = 1, o = 0; i < r->n; i++) {
		struct by_ent *d = &r->v[o], *e = &r->v[i];

		if (key_cmp(r, d, e)) {
			r->v[++o] = *e;
			continue;
		}
		if (d->hist && e->hist) {
			for (s = 0; s < SLOTS; s++)
				d->hist[s] += e->hist[s];
			d->st.count += e->st.count;
		} else {
			stats_merge(&d->st, &e->st);
		}
		d->late |= e->late;
		free(e->hist);
		free(e->key);
	}
	r->n = o + 1;
marks:
	for (i = 0; k->str && i < r->n; i++)
		late_marks(r, &r->v[i], false);
	return 0;
}

/* LATENCY (and HIST of the stats' argument): the stats of agg_by into
 * the histograms' rows, same keys; a HIST row keeps its own count */
static int lat_join(struct by_read *r, struct by_read *st)
{
	size_t i, j = 0;

	for (i = 0; i < r->n; i++) {
		uint64_t count = r->v[i].st.count;

		while (j < st->n && key_cmp(r, &st->v[j], &r->v[i]) < 0)
			j++;
		if (j < st->n && !key_cmp(r, &st->v[j], &r->v[i]))
			r->v[i].st = st->v[j].st;
		if (r->kind == USDTKIT_TRACE_AGG_HIST)
			r->v[i].st.count = count;
	}
	return 0;
}

static void ents_free(struct by_read *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->v[i].key);
		free(r->v[i].hist);
	}
	free(r->v);
	r->v = NULL;
	r->n = r->cap = 0;
}

/* the signedness of ARG parts: the probe's argument (LATENCY: the first
 * START probe's) */
static bool part_signed(const struct usdtkit_trace *t, size_t probe, unsigned int arg)
{
	size_t i;

	if (probe >= t->nprobes)
		for (i = 0, probe = 0; i < t->nprobes; i++)
			if (t->probes[i].pub.role & USDTKIT_TRACE_ROLE_START) {
				probe = i;
				break;
			}
	return probe < t->nprobes && arg < MAX_ARGS && t->probes[probe].pub.args[arg].is_signed;
}

/* rows: one allocation, then what their pointers point to */
struct arena {
	char *at, *end;
	size_t need;
};

static void *take(struct arena *a, size_t n, size_t align)
{
	size_t pad = a->at ? (size_t)(-(uintptr_t)a->at & (align - 1)) : align - 1;
	void *p = a->at ? a->at + pad : NULL;

	a->need += n + pad;
	if (a->at)
		a->at += pad + n;
	return p;
}

/* a copy of @str in @a, NULL for NULL */
static const char *take_str(struct arena *a, const char *str)
{
	char *s;

	if (!str)
		return NULL;
	s = take(a, strlen(str) + 1, 1);
	if (s)
		strcpy(s, str);
	return s;
}

/*
 * The frames of USTACK part @v (its ips and nframes set) into @a: their
 * texts @names and their parts @parts, behind a struct trace_frames
 * that usdtkit_trace_frame() finds them through.
 */
static void export_frames(struct usdtkit_trace_key_value *v, const char *const *names,
			  const struct usdtkit_trace_frame *parts, struct arena *a)
{
	struct usdtkit_trace_frame *pa;
	struct trace_frames *tf;
	uint64_t *ips;
	size_t i;

	ips = take(a, v->nframes * 8, 8);
	if (ips)
		memcpy(ips, v->ips, v->nframes * 8);
	v->ips = ips;
	pa = take(a, v->nframes * sizeof(*pa), _Alignof(struct usdtkit_trace_frame));
	tf = take(a, sizeof(*tf) + v->nframes * sizeof(*tf->frames),
		  _Alignof(struct trace_frames));
	for (i = 0; i < v->nframes; i++) {
		const char *s = take_str(a, names[i]);
		const char *name = take_str(a, parts[i].name);
		const char *mangled = take_str(a, parts[i].mangled);
		const char *object = take_str(a, parts[i].object);

		if (pa) {
			memcpy(&pa[i], &parts[i], sizeof(*pa));
			pa[i].name = name;
			pa[i].mangled = mangled;
			pa[i].object = object;
		}
		if (tf)
			tf->frames[i] = s;
	}
	if (tf) {
		tf->magic = TRACE_FRAMES_MAGIC;
		tf->parts = pa;
	}
	v->frames = tf ? tf->frames : NULL;
}

/* row @o of entry @e; with a NULL arena pointer, only what it needs */
static int export_row(struct by_read *r, const struct by_ent *e,
		      struct usdtkit_trace_by_row *o, struct arena *a)
{
	const struct trace_key *k = &r->t->agg.by_key;
	struct usdtkit_trace_by_stack *sbuf = (void *)r->stack;
	const struct usdtkit_trace_by_stack *st;
	unsigned int p;
	int err;

	o->probe = head(e->key)->probe;
	o->nparts = k->nparts;
	o->stats = e->st;
	if (e->hist) {
		uint64_t *h = take(a, SLOTS * sizeof(*h), 8);

		if (h)
			memcpy(h, e->hist, SLOTS * sizeof(*h));
		o->hist = h;
	}
	for (p = 0; p < k->nparts; p++) {
		struct usdtkit_trace_key_value *v = &o->parts[p];
		const struct usdtkit_trace_frame *parts;
		const char *const *names;
		char *s;
		bool gone;

		usdtkit__key_decode(r->t, e->key, p,
				    part_signed(r->t, o->probe, k->parts[p].arg), v);
		if (v->str) {
			s = take(a, v->str_len + 1, 1);
			if (s) {
				memcpy(s, v->str, v->str_len);
				s[v->str_len] = 0;
			}
			v->str = s;
		}
		if (v->kind != USDTKIT_TRACE_PART_USTACK)
			continue;
		st = (const void *)(e->key + k->parts[p].off);
		/* a stack id: its frames from the stack map, then as a
		 * key of frames */
		if (k->stack_ids) {
			usdtkit__stack_get(r->t, e->key + k->parts[p].off, sbuf);
			st = sbuf;
			v->stack_err = st->n < 0 ? st->n : 0;
			v->nframes = st->n > 0 ? (size_t)st->n : 0;
			v->ips = (const uint64_t *)st->ip;
		}
		err = usdtkit__stack_names(r->t, st, &names, &parts, &gone);
		if (err)
			return err;
		v->stack_gone = gone;
		export_frames(v, names, parts, a);
	}
	return 0;
}

static int export_rows(struct by_read *r, struct usdtkit_trace_by_row **rows)
{
	struct arena a = { 0 };
	struct usdtkit_trace_by_row tmp;
	size_t i, head_sz = r->n * sizeof(**rows);
	int err = 0;

	for (i = 0; !err && i < r->n; i++)
		err = export_row(r, &r->v[i], &tmp, &a);
	if (err)
		return err;
	*rows = calloc(1, head_sz + a.need + 16);
	if (!*rows)
		return -ENOMEM;
	a.at = (char *)*rows + head_sz;
	a.end = a.at + a.need + 16;
	for (i = 0; !err && i < r->n; i++)
		err = export_row(r, &r->v[i], &(*rows)[i], &a);
	return err;
}

/* HIST keyed, and SUM..MAX keyed of the same argument: the rows of
 * HIST carry their sum, min and max */
static bool hist_stats(const struct usdtkit_trace *t, enum usdtkit_trace_agg_kind kind)
{
	unsigned int stats = (1u << USDTKIT_TRACE_AGG_SUM) | (1u << USDTKIT_TRACE_AGG_AVG) |
			     (1u << USDTKIT_TRACE_AGG_MIN) | (1u << USDTKIT_TRACE_AGG_MAX);

	return kind == USDTKIT_TRACE_AGG_HIST && (t->agg.by_key.kinds & stats) &&
	       (t->agg.kinds & stats) && t->agg.stats.arg == t->agg.hist.arg;
}

/* asked for, with the key; SUM..MAX share one table: any of them asked
 * reads as each */
static bool kind_keyed(const struct usdtkit_trace *t, enum usdtkit_trace_agg_kind kind)
{
	unsigned int stats = (1u << USDTKIT_TRACE_AGG_SUM) | (1u << USDTKIT_TRACE_AGG_AVG) |
			     (1u << USDTKIT_TRACE_AGG_MIN) | (1u << USDTKIT_TRACE_AGG_MAX);
	unsigned int bit = 1u << kind;

	if ((unsigned int)kind >= USDTKIT_TRACE_AGG_NR || kind == USDTKIT_TRACE_AGG_COUNTS)
		return false;
	return (t->agg.by_key.kinds & bit) &&
	       (t->agg.kinds & (bit & stats ? stats : bit));
}

/*
 * The pids of @r's stacks, to the pids kept for them (stack.c): those no
 * key refers to any more are let go. A ustack part begins with its pid,
 * by id or by frames.
 */
static void stacks_seen(struct by_read *r)
{
	const struct trace_key *k = &r->t->agg.by_key;
	unsigned int p, pid;
	size_t i;

	if (!r->t->stacks.npids)
		return;
	for (p = 0; p < k->nparts; p++) {
		if (k->parts[p].kind != USDTKIT_TRACE_BY_USTACK)
			continue;
		for (i = 0; i < r->n; i++) {
			memcpy(&pid, r->v[i].key + k->parts[p].off, sizeof(pid));
			usdtkit__stack_seen(r->t, (int)pid);
		}
	}
	usdtkit__stack_read_done(r->t, r->kind == USDTKIT_TRACE_AGG_LATENCY ?
				 STACK_READ_LAT : r->kind == USDTKIT_TRACE_AGG_HIST ?
				 STACK_READ_HIST : STACK_READ_BY);
}

/* the entries of the last read of agg_by (canonical, merged), owned */
struct usdtkit__by_snap {
	struct by_read r;
};

void usdtkit__by_snap_free(struct usdtkit_trace *t)
{
	if (!t->by_snap)
		return;
	ents_free(&t->by_snap->r);
	free(t->by_snap);
	t->by_snap = NULL;
}

/* @r's entries become the snapshot (the last one's are freed) */
static void snap_keep(struct usdtkit_trace *t, struct by_read *r)
{
	struct usdtkit__by_snap *s = t->by_snap ? t->by_snap : calloc(1, sizeof(*s));

	if (!s)
		return;	/* a later AGAIN reads the kernel instead */
	if (t->by_snap)
		ents_free(&s->r);
	s->r = *r;
	t->by_snap = s;
	r->v = NULL;
	r->n = r->cap = 0;
}

/* @r: the snapshot's entries, borrowed (their keys stay the snapshot's) */
static int snap_borrow(const struct usdtkit_trace *t, struct by_read *r)
{
	size_t i, n = t->by_snap->r.n;

	r->v = calloc(n ? n : 1, sizeof(*r->v));
	if (!r->v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		r->v[i] = t->by_snap->r.v[i];
		r->v[i].r = r;
	}
	r->n = r->cap = n;
	return 0;
}

int usdtkit_trace_read_by(struct usdtkit_trace *t, enum usdtkit_trace_agg_kind kind,
			  unsigned int flags, struct usdtkit_trace_by_row **rows,
			  size_t *n)
{
	struct by_read r = { .t = t, .kind = kind }, st = { .t = t, .kind = kind };
	bool reset = flags & USDTKIT_TRACE_READ_RESET;
	bool hist = kind == USDTKIT_TRACE_AGG_HIST || kind == USDTKIT_TRACE_AGG_LATENCY;
	bool borrowed;
	int err;

	if (!rows || !n)
		return -EINVAL;
	*rows = NULL;
	*n = 0;
	if (!t || !t->loaded)
		return -EINVAL;
	if (!kind_keyed(t, kind))
		return 0;
	r.ks = st.ks = t->agg.by_key.size;
	borrowed = !hist && (flags & USDTKIT_TRACE_READ_AGAIN) && t->by_snap;
	if (borrowed) {
		err = snap_borrow(t, &r);
	} else {
		err = collect(&r, hist ? t->skel->maps.agg_by_hist : t->skel->maps.agg_by,
			      hist, reset);
		if (!err)
			err = canon_merge(&r);
		if (!err)
			stacks_seen(&r);
	}
	/* a latency's count, sum, min and max: agg_by, same keys; a
	 * histogram's too when SUM..MAX are of its argument */
	if (!err && (kind == USDTKIT_TRACE_AGG_LATENCY || hist_stats(t, kind))) {
		err = collect(&st, t->skel->maps.agg_by, false,
			      reset && kind == USDTKIT_TRACE_AGG_LATENCY);
		if (!err)
			err = canon_merge(&st);
		if (!err)
			err = lat_join(&r, &st);
	}
	if (!err && r.n) {
		qsort(r.v, r.n, sizeof(*r.v), by_order_cmp);
		err = export_rows(&r, rows);
		/* the stacks named since the last sweep are kept: bounded
		 * by twice the table, each named once while in it */
		if (t->stacks.n > 2 * t->agg.by_key.entries)
			usdtkit__stack_sweep(t);
	}
	if (!err)
		*n = r.n;
	else {
		free(*rows);
		*rows = NULL;
	}
	if (borrowed) {
		free(r.v);
	} else {
		if (!err && !hist)
			snap_keep(t, &r);
		ents_free(&r);
	}
	ents_free(&st);
	return err;
}

void usdtkit_trace_by_free(struct usdtkit_trace_by_row *rows, size_t n)
{
	(void)n;
	free(rows);
}
