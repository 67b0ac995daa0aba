// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit trace: the in-kernel aggregations read back and printed, as
 * tables and bpftrace-style log2 histograms, or one JSON object each
 * (schema usdtkit-trace-agg/1.0, docs/JSON.md). With --interval, each
 * report is followed by zeroing what it printed, so the next shows its
 * own interval; a hit landing between the read and the zeroing is lost,
 * as with bpftrace's print() then clear().
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace.h"
#include "trace.skel.h"

#define AGG_SCHEMA "usdtkit-trace-agg/1.0"
#define HIST_BAR 52

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
	int err;

	err = bpf_map__lookup_elem(m, &k, sizeof(k), pc->buf, n, 0);
	if (err || !reset)
		return err;
	{
		void *zero = calloc(pc->ncpu, vs);

		if (!zero)
			return -ENOMEM;
		err = bpf_map__update_elem(m, &k, sizeof(k), zero, n, 0);
		free(zero);
	}
	return err;
}

int trace_read_counter(struct tracer *t, int which, unsigned long long *sum)
{
	struct percpu pc = { 0 };
	int err, i;

	*sum = 0;
	err = percpu_init(&pc, sizeof(*sum));
	if (!err)
		err = percpu_read(t->skel->maps.counters, &pc, (unsigned int)which, false);
	for (i = 0; !err && i < pc.ncpu; i++)
		*sum += ((unsigned long long *)pc.buf)[i];
	free(pc.buf);
	return err;
}

/* ---- one report ---- */

struct report {
	struct tracer *t;
	struct jw *w;
	bool json, reset;
	double secs;		/* --interval: what this report covers */
	struct percpu pc;
};

/* {"schema":..., "agg":"NAME", [interval], "provider":..., "name":...[, "path"] */
static void json_head(struct report *r, const char *agg, const struct probe *p)
{
	struct jw *w = r->w;

	JW_LIT(w, "{\"schema\":\"" AGG_SCHEMA "\",\"agg\":\"");
	json_raw(w, agg);
	jw_putc(w, '"');
	if (r->t->agg.interval > 0) {
		char secs[32];

		JW_LIT(w, ",\"interval\":");
		json_u64(w, r->t->agg.printed + 1);
		snprintf(secs, sizeof(secs), ",\"seconds\":%.3f", r->secs);
		json_raw(w, secs);
	}
	if (!p)
		return;
	JW_LIT(w, ",\"provider\":");
	json_str(w, p->provider, strlen(p->provider));
	JW_LIT(w, ",\"name\":");
	json_str(w, p->name, strlen(p->name));
	if (p->path) {
		JW_LIT(w, ",\"path\":");
		json_str(w, p->path, strlen(p->path));
	}
}

static void put_num(struct jw *w, unsigned long long v, bool is_signed)
{
	if (is_signed)
		json_num_i64(w, (long long)v);
	else
		json_num_u64(w, v);
}

/* agg_stats[slot] summed over the CPUs */
static int read_stats(struct report *r, unsigned int slot, bool is_signed,
		      struct usdtkit_trace_stats *out)
{
	const struct usdtkit_trace_stats *v = r->pc.buf;
	int err, i;

	memset(out, 0, sizeof(*out));
	err = percpu_read(r->t->skel->maps.agg_stats, &r->pc, slot, r->reset);
	for (i = 0; !err && i < r->pc.ncpu; i++) {
		if (!v[i].n)
			continue;
		if (!out->n || (is_signed ? (long long)v[i].min < (long long)out->min :
				v[i].min < out->min))
			out->min = v[i].min;
		if (!out->n || (is_signed ? (long long)v[i].max > (long long)out->max :
				v[i].max > out->max))
			out->max = v[i].max;
		out->n += v[i].n;
		out->sum += v[i].sum;
	}
	return err;
}

/* ---- histograms ---- */

/* "[4, 8)", "[1K, 2K)": bpftrace's labels */
static void slot_label(int slot, char *buf, size_t n)
{
	static const char sfx[] = " KMGTPE";
	unsigned long long lo, hi;
	char a[24], b[24];
	int ia, ib;

	if (slot == 0) {
		snprintf(buf, n, "(..., 0)");
		return;
	}
	if (slot == 1) {
		snprintf(buf, n, "[0]");
		return;
	}
	ia = (slot - 2) / 10;
	lo = 1ull << ((slot - 2) % 10);
	ib = (slot - 1) / 10;
	hi = 1ull << ((slot - 1) % 10);
	snprintf(a, sizeof(a), "%llu%.*s", lo, ia ? 1 : 0, &sfx[ia]);
	snprintf(b, sizeof(b), "%llu%.*s", hi, ib ? 1 : 0, &sfx[ib]);
	if (slot == 2)
		snprintf(buf, n, "[1]");
	else
		snprintf(buf, n, "[%s, %s)", a, b);
}

static int read_hist(struct report *r, unsigned int slot,
		     unsigned long long *h)
{
	unsigned int i;
	int err = 0, c;

	for (i = 0; i < USDTKIT_TRACE_HIST_SLOTS && !err; i++) {
		h[i] = 0;
		err = percpu_read(r->t->skel->maps.agg_hist, &r->pc,
				  slot * USDTKIT_TRACE_HIST_SLOTS + i, r->reset);
		for (c = 0; !err && c < r->pc.ncpu; c++)
			h[i] += ((unsigned long long *)r->pc.buf)[c];
	}
	return err;
}

static void hist_text(struct jw *w, const unsigned long long *h)
{
	unsigned long long max = 0;
	char line[160], label[64], bar[HIST_BAR + 1];
	int i, lo = -1, hi = -1, n;

	for (i = 0; i < USDTKIT_TRACE_HIST_SLOTS; i++) {
		if (!h[i])
			continue;
		if (lo < 0)
			lo = i;
		hi = i;
		if (h[i] > max)
			max = h[i];
	}
	for (i = lo; lo >= 0 && i <= hi; i++) {
		slot_label(i, label, sizeof(label));
		n = (int)(h[i] * HIST_BAR / max);
		memset(bar, '@', n);
		memset(bar + n, ' ', HIST_BAR - n);
		bar[HIST_BAR] = 0;
		n = snprintf(line, sizeof(line), "%-20s %8llu |%s|\n", label, h[i], bar);
		jw_put(w, line, (size_t)n);
	}
}

/* "buckets":[{"min":lo,"max":hi,"count":n}...], bounds inclusive */
static void hist_json(struct jw *w, const unsigned long long *h)
{
	bool first = true;
	int i;

	JW_LIT(w, ",\"buckets\":[");
	for (i = 0; i < USDTKIT_TRACE_HIST_SLOTS; i++) {
		if (!h[i])
			continue;
		if (!first)
			jw_putc(w, ',');
		first = false;
		JW_LIT(w, "{\"min\":");
		if (i == 0)
			json_num_i64(w, INT64_MIN);
		else
			json_num_u64(w, i == 1 ? 0 : 1ull << (i - 2));
		JW_LIT(w, ",\"max\":");
		if (i == 0)
			json_num_i64(w, -1);
		else
			json_num_u64(w, i == 1 ? 0 : i == 65 ? UINT64_MAX :
				     (1ull << (i - 1)) - 1);
		JW_LIT(w, ",\"count\":");
		json_num_u64(w, h[i]);
		jw_putc(w, '}');
	}
	jw_putc(w, ']');
}

/* ---- per probe ---- */

static void line(struct jw *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void line(struct jw *w, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	jw_put(w, buf, n < 0 ? 0 : (size_t)n >= sizeof(buf) ? sizeof(buf) - 1 : (size_t)n);
}

static const char *stat_names[] = { "sum", "avg", "min", "max" };

static void stats_one(struct report *r, const struct probe *p, unsigned int which,
		      const struct usdtkit_trace_stats *s, bool sg)
{
	struct jw *w = r->w;
	char buf[48];

	json_head(r, stat_names[which], p);
	JW_LIT(w, ",\"arg\":");
	json_u64(w, r->t->agg.stats.arg);
	JW_LIT(w, ",\"count\":");
	json_num_u64(w, s->n);
	JW_LIT(w, ",\"value\":");
	if (!s->n && which) {
		JW_LIT(w, "null");
	} else if (which == 1) {
		snprintf(buf, sizeof(buf), "%.17g", sg ? (double)(long long)s->sum / s->n :
			 (double)s->sum / s->n);
		json_raw(w, buf);
	} else {
		put_num(w, which == 0 ? s->sum : which == 2 ? s->min : s->max, sg);
	}
	JW_LIT(w, "}\n");
}

static void stats_text(struct report *r, const struct probe *p,
		       const struct usdtkit_trace_stats *s, bool sg)
{
	unsigned int m = r->t->agg.stat_mask;
	struct jw *w = r->w;

	trace_put_probe(w, p);
	line(w, ": arg%u: count %llu", r->t->agg.stats.arg, s->n);
	if (m & AGG_SUM)
		line(w, sg ? ", sum %lld" : ", sum %llu", s->sum);
	if ((m & AGG_AVG) && s->n)
		line(w, ", avg %.2f", sg ? (double)(long long)s->sum / s->n :
		     (double)s->sum / s->n);
	if ((m & AGG_MIN) && s->n)
		line(w, sg ? ", min %lld" : ", min %llu", s->min);
	if ((m & AGG_MAX) && s->n)
		line(w, sg ? ", max %lld" : ", max %llu", s->max);
	jw_putc(w, '\n');
}

static int report_stats(struct report *r, unsigned int i)
{
	const struct probe *p = &r->t->probes[i];
	const struct trace_aggs *g = &r->t->agg;
	struct usdtkit_trace_stats s;
	bool sg = g->stat_mask && p->args[g->stats.arg].is_signed;
	unsigned int k;
	int err;

	err = read_stats(r, i, sg, &s);
	if (err)
		return err;
	if (g->counts) {
		if (r->json) {
			json_head(r, "counts", p);
			JW_LIT(r->w, ",\"count\":");
			json_num_u64(r->w, s.n);
			JW_LIT(r->w, "}\n");
		} else {
			line(r->w, "%12llu  ", s.n);
			trace_put_probe(r->w, p);
			jw_putc(r->w, '\n');
		}
	}
	if (!g->stat_mask)
		return 0;
	if (!r->json) {
		stats_text(r, p, &s, sg);
		return 0;
	}
	for (k = 0; k < 4; k++)
		if (g->stat_mask & (1u << k))
			stats_one(r, p, k, &s, sg);
	return 0;
}

static int report_hist(struct report *r, unsigned int i)
{
	unsigned long long h[USDTKIT_TRACE_HIST_SLOTS], n = 0;
	const struct probe *p = &r->t->probes[i];
	int err, k;

	err = read_hist(r, i, h);
	if (err)
		return err;
	for (k = 0; k < USDTKIT_TRACE_HIST_SLOTS; k++)
		n += h[k];
	if (r->json) {
		json_head(r, "hist", p);
		JW_LIT(r->w, ",\"arg\":");
		json_u64(r->w, r->t->agg.hist.arg);
		JW_LIT(r->w, ",\"count\":");
		json_num_u64(r->w, n);
		hist_json(r->w, h);
		JW_LIT(r->w, "}\n");
		return 0;
	}
	trace_put_probe(r->w, p);
	line(r->w, ": hist of arg%u, %llu value%s\n", r->t->agg.hist.arg, n,
	     n == 1 ? "" : "s");
	hist_text(r->w, h);
	return 0;
}

/* ---- latency ---- */

static const char *key_names[] = { "tid", "pid", "arg", "str" };

static void fmt_ns(char *buf, size_t n, double ns)
{
	if (ns < 1e3)
		snprintf(buf, n, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, n, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, n, "%.1f ms", ns / 1e6);
	else
		snprintf(buf, n, "%.2f s", ns / 1e9);
}

static void lat_json(struct report *r, const struct usdtkit_trace_stats *s,
		     const unsigned long long *h, unsigned long long unmatched)
{
	const struct trace_aggs *g = &r->t->agg;
	struct jw *w = r->w;
	char buf[48];

	json_head(r, "latency", NULL);
	JW_LIT(w, ",\"start\":");
	json_str(w, g->lat_start, strlen(g->lat_start));
	JW_LIT(w, ",\"end\":");
	json_str(w, g->lat_end, strlen(g->lat_end));
	JW_LIT(w, ",\"key\":\"");
	if (g->key_kind == USDTKIT_TRACE_KEY_ARG || g->key_kind == USDTKIT_TRACE_KEY_STR)
		line(w, g->key.str ? "str(arg%u)" : "arg%u", g->key.arg);
	else
		json_raw(w, key_names[g->key_kind & 3]);
	JW_LIT(w, "\",\"count\":");
	json_num_u64(w, s->n);
	JW_LIT(w, ",\"unmatched\":");
	json_num_u64(w, unmatched);
	JW_LIT(w, ",\"min_ns\":");
	if (s->n)
		json_num_u64(w, s->min);
	else
		JW_LIT(w, "null");
	JW_LIT(w, ",\"avg_ns\":");
	if (s->n) {
		snprintf(buf, sizeof(buf), "%.17g", (double)s->sum / s->n);
		json_raw(w, buf);
	} else {
		JW_LIT(w, "null");
	}
	JW_LIT(w, ",\"max_ns\":");
	if (s->n)
		json_num_u64(w, s->max);
	else
		JW_LIT(w, "null");
	hist_json(w, h);
	JW_LIT(w, "}\n");
}

static void lat_text(struct report *r, const struct usdtkit_trace_stats *s,
		     const unsigned long long *h, unsigned long long unmatched)
{
	const struct trace_aggs *g = &r->t->agg;
	char mn[32], av[32], mx[32];
	struct jw *w = r->w;

	JW_LIT(w, "latency ");
	jw_text(w, g->lat_start, strlen(g->lat_start));
	JW_LIT(w, " -> ");
	jw_text(w, g->lat_end, strlen(g->lat_end));
	if (g->key_kind == USDTKIT_TRACE_KEY_ARG || g->key_kind == USDTKIT_TRACE_KEY_STR)
		line(w, g->key.str ? " by str(arg%u)" : " by arg%u", g->key.arg);
	else
		line(w, " by %s", key_names[g->key_kind & 3]);
	if (s->n) {
		fmt_ns(mn, sizeof(mn), (double)s->min);
		fmt_ns(av, sizeof(av), (double)s->sum / s->n);
		fmt_ns(mx, sizeof(mx), (double)s->max);
		line(w, ": count %llu, min %s, avg %s, max %s, %llu unmatched\n",
		     s->n, mn, av, mx, unmatched);
	} else {
		line(w, ": count 0, %llu unmatched\n", unmatched);
	}
	if (s->n) {
		JW_LIT(w, "nanoseconds:\n");
		hist_text(w, h);
	}
}

static int report_latency(struct report *r)
{
	unsigned long long h[USDTKIT_TRACE_HIST_SLOTS], unmatched = 0;
	unsigned int slot = (unsigned int)r->t->nprobes;
	struct usdtkit_trace_stats s;
	int err;

	err = read_stats(r, slot, false, &s);
	if (!err)
		err = read_hist(r, slot, h);
	if (!err)
		err = percpu_read(r->t->skel->maps.counters, &r->pc,
				  USDTKIT_TRACE_C_UNMATCHED, r->reset);
	for (int c = 0; !err && c < r->pc.ncpu; c++)
		unmatched += ((unsigned long long *)r->pc.buf)[c];
	if (err)
		return err;
	if (r->json)
		lat_json(r, &s, h, unmatched);
	else
		lat_text(r, &s, h, unmatched);
	return 0;
}

/* ---- --count-by ---- */

struct by_entry {
	unsigned long long count;
	void *key;		/* struct usdtkit_trace_key_buf, cut */
};

/* by count, highest first; ties by key, so a table is reproducible (a
 * key is held in a whole zeroed key_buf, whatever the map's key size) */
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

/* every key of agg_by (deleted with --interval); r->pc has room for
 * its per-CPU counts */
static int by_collect(struct report *r, struct by_entry **out, size_t *n)
{
	struct bpf_map *m = r->t->skel->maps.agg_by;
	size_t ks = bpf_map__key_size(m), cap = 0;
	struct by_entry *v = NULL;
	void *prev = NULL, *key;
	int err = 0;

	*n = 0;
	for (;;) {
		key = calloc(1, ks < sizeof(struct usdtkit_trace_key_buf) ?
			     sizeof(struct usdtkit_trace_key_buf) : ks);
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
		v[*n].key = key;
		v[*n].count = 0;
		/* per CPU (trace.bpf.c says why): summed here */
		if (!bpf_map__lookup_elem(m, key, ks, r->pc.buf, 8 * r->pc.ncpu, 0)) {
			for (int c = 0; c < r->pc.ncpu; c++)
				v[*n].count += ((unsigned long long *)r->pc.buf)[c];
			(*n)++;
		}
		prev = key;
	}
	if (r->reset)
		for (size_t i = 0; i < *n; i++)
			bpf_map__delete_elem(m, v[i].key, ks, 0);
	*out = v;
	return err;
}

/*
 * str() keys longer than --strlen. The map's key holds a byte more than
 * --strlen (trace_agg.c, key_str_bytes()), so such a string is seen: it
 * is cut at --strlen, or before a UTF-8 character that the cut would
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

/* cut the str() keys past --strlen and merge those that are then equal */
static void by_cut(struct report *r, struct by_entry *v, size_t *n)
{
	size_t room = bpf_map__key_size(r->t->skel->maps.agg_by) - 16, i, o;
	bool any = false;

	if (!r->t->agg.by.str)
		return;
	for (i = 0; i < *n; i++)
		any |= key_cut(v[i].key, room, r->t->str_len);
	if (!any)
		return;
	qsort(v, *n, sizeof(*v), by_same);
	for (i = 1, o = 0; i < *n; i++) {
		if (!by_same(&v[o], &v[i])) {
			v[o].count += v[i].count;
			free(v[i].key);
		} else {
			v[++o] = v[i];
		}
	}
	*n = o + 1;
}

static void by_key(struct report *r, const struct probe *p,
		   const struct usdtkit_trace_key_buf *k)
{
	const struct agg_arg *a = &r->t->agg.by;
	size_t room = bpf_map__key_size(r->t->skel->maps.agg_by) - 16, len;

	if (!a->str) {
		put_num(r->w, k->val, p->args[a->arg].is_signed);
		return;
	}
	if (k->val) {
		if (r->json)
			JW_LIT(r->w, "null");
		else
			JW_LIT(r->w, "<fault>");
		return;
	}
	len = strnlen(k->str, room);
	if (r->json) {
		json_str_bytes(r->w, k->str, len);
		if (k->pad)
			JW_LIT(r->w, ",\"cut\":true");
	} else {
		jw_text_quoted(r->w, k->str, len);
		if (k->pad)
			JW_LIT(r->w, "...");
	}
}

static void report_by_probe(struct report *r, unsigned int i,
			    const struct by_entry *v, size_t n)
{
	const struct probe *p = &r->t->probes[i];
	const struct agg_arg *a = &r->t->agg.by;
	size_t keys = 0, cut = 0, shown = 0, k;

	for (k = 0; k < n; k++) {
		const struct usdtkit_trace_key_buf *key = v[k].key;

		keys += key->probe == i;
		cut += key->probe == i && key->pad;
	}
	if (r->json) {
		json_head(r, "count_by", p);
		line(r->w, a->str ? ",\"by\":\"str(arg%u)\"" : ",\"by\":\"arg%u\"", a->arg);
		JW_LIT(r->w, ",\"keys\":");
		json_u64(r->w, keys);
		if (a->str) {
			JW_LIT(r->w, ",\"keys_cut\":");
			json_u64(r->w, cut);
		}
		JW_LIT(r->w, ",\"top\":[");
	} else {
		trace_put_probe(r->w, p);
		line(r->w, a->str ? ": count by str(arg%u)" : ": count by arg%u", a->arg);
		if (keys > r->t->agg.top)
			line(r->w, ", top %u of %zu keys", r->t->agg.top, keys);
		else
			line(r->w, ", %zu key%s", keys, keys == 1 ? "" : "s");
		if (cut)
			line(r->w, " (%zu cut at --strlen %u)", cut, r->t->str_len);
		jw_putc(r->w, '\n');
	}
	for (k = 0; k < n && shown < r->t->agg.top; k++) {
		const struct usdtkit_trace_key_buf *key = v[k].key;

		if (key->probe != i)
			continue;
		if (r->json) {
			if (shown)
				jw_putc(r->w, ',');
			JW_LIT(r->w, "{\"key\":");
			by_key(r, p, key);
			JW_LIT(r->w, ",\"count\":");
			json_num_u64(r->w, v[k].count);
			jw_putc(r->w, '}');
		} else {
			line(r->w, "%12llu  ", v[k].count);
			by_key(r, p, key);
			jw_putc(r->w, '\n');
		}
		shown++;
	}
	if (r->json)
		JW_LIT(r->w, "]}\n");
}

static int report_by(struct report *r)
{
	struct by_entry *v = NULL;
	size_t n = 0, k;
	unsigned int i;
	int err;

	err = by_collect(r, &v, &n);
	if (!err) {
		by_cut(r, v, &n);
		qsort(v, n, sizeof(*v), by_cmp);
		for (i = 0; i < r->t->nprobes; i++)
			report_by_probe(r, i, v, n);
	}
	for (k = 0; k < n; k++)
		free(v[k].key);
	free(v);
	return err;
}

/*
 * --interval's label: the report's number and, for one shorter than
 * the interval (the last, cut short by -d, --count, CMD's exit or
 * Ctrl-C), its real length; JSON has "seconds" in every object.
 */
static void interval_label(const struct report *r)
{
	const struct trace_aggs *g = &r->t->agg;

	if (g->interval <= 0 || r->json)
		return;
	if (r->secs < g->interval * 0.95)
		line(r->w, "-- interval %u (%.3f s, cut short) --\n",
		     g->printed + 1, r->secs);
	else
		line(r->w, "-- interval %u --\n", g->printed + 1);
}

/* Everything the options asked for, on stdout; 0 or a negative errno.
 * @now: CLOCK_MONOTONIC, the end of what this report covers. */
int trace_agg_report(struct tracer *t, bool reset, uint64_t now)
{
	struct report r = { .t = t, .w = t->out, .json = t->json, .reset = reset };
	struct trace_aggs *g = &t->agg;
	uint64_t since = g->since_ns ? g->since_ns : t->start_ns;
	unsigned int i;
	int err;

	err = percpu_init(&r.pc, sizeof(struct usdtkit_trace_stats));
	if (err)
		return err;
	r.secs = now > since ? (now - since) / 1e9 : 0;
	g->since_ns = now;
	interval_label(&r);
	if (g->counts && !t->json)
		line(r.w, "%12s  %s\n", "HITS", "PROBE");
	for (i = 0; !err && i < t->nprobes; i++)
		if (g->counts || g->stat_mask)
			err = report_stats(&r, i);
	for (i = 0; !err && g->hist.set && i < t->nprobes; i++)
		err = report_hist(&r, i);
	if (!err && g->by.set)
		err = report_by(&r);
	if (!err && g->lat_start)
		err = report_latency(&r);
	free(r.pc.buf);
	t->agg.printed++;
	jw_flush(t->out);
	if (err)
		trace_err("reading the aggregations: %s", strerror(-err));
	return err;
}
