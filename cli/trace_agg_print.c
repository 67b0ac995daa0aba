// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit trace: the in-kernel aggregations, as the library reads them
 * back, printed as tables and bpftrace-style log2 histograms, or one JSON
 * object each (schema usdtkit-trace-agg/2.0, docs/JSON.md). With
 * --interval, each report zeroes what it read, so the next shows its own
 * interval. Each kind is one entry of agg_printers[], in the order the
 * report prints them.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace.h"

#define AGG_SCHEMA "usdtkit-trace-agg/2.0"
#define HIST_BAR 52

/* ---- one report ---- */

struct report {
	struct tracer *t;
	struct jw *w;
	bool json;
	unsigned int flags;	/* USDTKIT_TRACE_READ_RESET: --interval */
	double secs;		/* --interval: what this report covers */
	/* COUNT_BY and SUM..MAX by key are one table: read once per report
	 * (with RESET when it resets), then again from that read */
	bool by_table_read;
};

/* {"schema":..., "agg":"NAME", [interval], "provider":..., "name":...[, "path"] */
static void json_head(struct report *r, const char *agg,
		      const struct usdtkit_trace_probe *p)
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

static void hist_text(struct jw *w, const uint64_t *h)
{
	uint64_t max = 0;
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
		n = snprintf(line, sizeof(line), "%-20s %8" PRIu64 " |%s|\n", label, h[i], bar);
		jw_put(w, line, (size_t)n);
	}
}

/* "buckets":[{"min":lo,"max":hi,"count":n}...], bounds inclusive */
static void hist_json(struct jw *w, const uint64_t *h)
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

/* sum, avg, min, max: the order of their kinds and AGG_STAT() bits */
static void stats_one(struct report *r, const struct usdtkit_trace_probe *p,
		      unsigned int which, const struct usdtkit_trace_stats *s)
{
	struct jw *w = r->w;
	bool sg = s->is_signed;
	char buf[48];

	json_head(r, usdtkit_trace_agg_name(USDTKIT_TRACE_AGG_SUM + which), p);
	JW_LIT(w, ",\"arg\":");
	json_u64(w, r->t->agg.stats.arg);
	JW_LIT(w, ",\"count\":");
	json_num_u64(w, s->count);
	JW_LIT(w, ",\"value\":");
	if (!s->count && which) {
		JW_LIT(w, "null");
	} else if (which == 1) {
		snprintf(buf, sizeof(buf), "%.17g", sg ? (double)(int64_t)s->sum / s->count :
			 (double)s->sum / s->count);
		json_raw(w, buf);
	} else {
		put_num(w, which == 0 ? s->sum : which == 2 ? s->min : s->max, sg);
	}
	JW_LIT(w, "}\n");
}

static void stats_text(struct report *r, const struct usdtkit_trace_probe *p,
		       const struct usdtkit_trace_stats *s)
{
	unsigned int m = r->t->agg.stat_mask;
	unsigned long long sum = s->sum, mn = s->min, mx = s->max;
	struct jw *w = r->w;
	bool sg = s->is_signed;

	trace_put_probe(w, p);
	line(w, ": arg%u: count %llu", r->t->agg.stats.arg,
	     (unsigned long long)s->count);
	if (m & AGG_STAT(USDTKIT_TRACE_AGG_SUM))
		line(w, sg ? ", sum %lld" : ", sum %llu", sum);
	if ((m & AGG_STAT(USDTKIT_TRACE_AGG_AVG)) && s->count)
		line(w, ", avg %.2f", sg ? (double)(int64_t)s->sum / s->count :
		     (double)s->sum / s->count);
	if ((m & AGG_STAT(USDTKIT_TRACE_AGG_MIN)) && s->count)
		line(w, sg ? ", min %lld" : ", min %llu", mn);
	if ((m & AGG_STAT(USDTKIT_TRACE_AGG_MAX)) && s->count)
		line(w, sg ? ", max %lld" : ", max %llu", mx);
	jw_putc(w, '\n');
}

/* --counts and --sum/--avg/--min/--max of probe @i: one read */
static int report_stats(struct report *r, unsigned int i)
{
	const struct usdtkit_trace_probe *p = usdtkit_trace_probe(r->t->tr, i);
	const struct trace_aggs *g = &r->t->agg;
	struct usdtkit_trace_stats s;
	unsigned int k;
	int err;

	err = usdtkit_trace_read_stats(r->t->tr, i, r->flags, &s);
	if (err)
		return err;
	if (g->kinds & (1u << USDTKIT_TRACE_AGG_COUNTS)) {
		if (r->json) {
			json_head(r, "counts", p);
			JW_LIT(r->w, ",\"count\":");
			json_num_u64(r->w, s.count);
			JW_LIT(r->w, "}\n");
		} else {
			line(r->w, "%12llu  ", (unsigned long long)s.count);
			trace_put_probe(r->w, p);
			jw_putc(r->w, '\n');
		}
	}
	if (!g->stat_mask || (g->by_kinds & (0xfu << USDTKIT_TRACE_AGG_SUM)))
		return 0;
	if (!r->json) {
		stats_text(r, p, &s);
		return 0;
	}
	for (k = 0; k < 4; k++)
		if (g->stat_mask & (1u << k))
			stats_one(r, p, k, &s);
	return 0;
}

static int report_hist(struct report *r, unsigned int i)
{
	const struct usdtkit_trace_probe *p = usdtkit_trace_probe(r->t->tr, i);
	uint64_t h[USDTKIT_TRACE_HIST_SLOTS], n = 0;
	int err, k;

	err = usdtkit_trace_read_hist(r->t->tr, i, r->flags, h);
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
	line(r->w, ": hist of arg%u, %llu value%s\n", r->t->agg.hist.arg,
	     (unsigned long long)n, n == 1 ? "" : "s");
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

/* " by tid", " by str(arg1)"...: what pairs START with END */
static void lat_key(struct jw *w, const struct trace_aggs *g, const char *pre)
{
	if (g->pair == USDTKIT_TRACE_PAIR_ARG || g->pair == USDTKIT_TRACE_PAIR_STR)
		line(w, g->key.str ? "%sstr(arg%u)" : "%sarg%u", pre, g->key.arg);
	else
		line(w, "%s%s", pre, key_names[g->pair & 3]);
}

/* ,"start":START,"end":END,"key":"KEY" of a latency's JSON object */
static void lat_json_pair(struct jw *w, const struct trace_aggs *g)
{
	JW_LIT(w, ",\"start\":");
	json_str(w, g->lat_start, strlen(g->lat_start));
	JW_LIT(w, ",\"end\":");
	json_str(w, g->lat_end, strlen(g->lat_end));
	JW_LIT(w, ",\"key\":\"");
	lat_key(w, g, "");
	jw_putc(w, '"');
}

static void lat_json(struct report *r, const struct usdtkit_trace_stats *s,
		     const uint64_t *h, uint64_t unmatched)
{
	const struct trace_aggs *g = &r->t->agg;
	struct jw *w = r->w;
	char buf[48];

	json_head(r, "latency", NULL);
	lat_json_pair(w, g);
	JW_LIT(w, ",\"count\":");
	json_num_u64(w, s->count);
	JW_LIT(w, ",\"unmatched\":");
	json_num_u64(w, unmatched);
	JW_LIT(w, ",\"min_ns\":");
	if (s->count)
		json_num_u64(w, s->min);
	else
		JW_LIT(w, "null");
	JW_LIT(w, ",\"avg_ns\":");
	if (s->count) {
		snprintf(buf, sizeof(buf), "%.17g", (double)s->sum / s->count);
		json_raw(w, buf);
	} else {
		JW_LIT(w, "null");
	}
	JW_LIT(w, ",\"max_ns\":");
	if (s->count)
		json_num_u64(w, s->max);
	else
		JW_LIT(w, "null");
	hist_json(w, h);
	JW_LIT(w, "}\n");
}

static void lat_text(struct report *r, const struct usdtkit_trace_stats *s,
		     const uint64_t *h, uint64_t unmatched)
{
	const struct trace_aggs *g = &r->t->agg;
	char mn[32], av[32], mx[32];
	struct jw *w = r->w;

	JW_LIT(w, "latency ");
	jw_text(w, g->lat_start, strlen(g->lat_start));
	JW_LIT(w, " -> ");
	jw_text(w, g->lat_end, strlen(g->lat_end));
	lat_key(w, g, " by ");
	if (s->count) {
		fmt_ns(mn, sizeof(mn), (double)s->min);
		fmt_ns(av, sizeof(av), (double)s->sum / s->count);
		fmt_ns(mx, sizeof(mx), (double)s->max);
		line(w, ": count %llu, min %s, avg %s, max %s, %llu unmatched\n",
		     (unsigned long long)s->count, mn, av, mx,
		     (unsigned long long)unmatched);
	} else {
		line(w, ": count 0, %llu unmatched\n", (unsigned long long)unmatched);
	}
	if (s->count) {
		JW_LIT(w, "nanoseconds:\n");
		hist_text(w, h);
	}
}

static int report_latency(struct report *r, unsigned int i)
{
	uint64_t h[USDTKIT_TRACE_HIST_SLOTS], unmatched = 0;
	struct usdtkit_trace_stats s;
	int err;

	(void)i;
	err = usdtkit_trace_read_latency(r->t->tr, r->flags, &s, h, &unmatched);
	if (err)
		return err;
	if (r->json)
		lat_json(r, &s, h, unmatched);
	else
		lat_text(r, &s, h, unmatched);
	return 0;
}

/* ---- keyed: --count-by KEY, --by KEY ---- */

/* one part of a key: text or JSON, as its kind prints. A stack is a
 * frame a line, as bpftrace's; @oneline (a JSON "key"): "; " between */
static void part_text(struct jw *w, const struct usdtkit_trace_key_value *v, bool oneline)
{
	const char *sep = oneline ? "; " : "\n        ";
	size_t i;

	switch (v->kind) {
	case USDTKIT_TRACE_PART_STR:
		if (!v->str) {
			json_raw(w, v->unread ? "<not read: page not in memory>" : "<fault>");
			return;
		}
		jw_text_quoted(w, v->str, v->str_len);
		if (v->cut)
			JW_LIT(w, "...");
		if (v->late)
			JW_LIT(w, " (read late)");
		return;
	case USDTKIT_TRACE_PART_COMM:
		jw_text(w, v->str, v->str_len);
		return;
	case USDTKIT_TRACE_PART_CGROUP:
		/* its path; one removed before the report has only its id */
		if (v->str)
			jw_text(w, v->str, v->str_len);
		else
			line(w, "<cgroup id %llu, removed>", (unsigned long long)v->value);
		return;
	case USDTKIT_TRACE_PART_USTACK:
		/* bpftrace's: one frame a line, indented */
		if (v->stack_err)
			line(w, "%s<no stack: error %d>", oneline ? "" : sep, v->stack_err);
		for (i = 0; i < v->nframes; i++) {
			/* one line: "; " between the frames only */
			if (!oneline || i)
				jw_put(w, sep, strlen(sep));
			jw_text(w, v->frames[i], strlen(v->frames[i]));
		}
		line(w, "%s(pid %llu%s)", oneline ? " " : sep, (unsigned long long)v->value,
		     v->stack_gone ? ", gone before its stack was named: addresses" : "");
		return;
	default:
		put_num(w, v->value, v->is_signed);
	}
}

static void json_str_or_null(struct jw *w, const char *str)
{
	if (str)
		json_str_bytes(w, str, strlen(str));
	else
		JW_LIT(w, "null");
}

/* since 1.3: each frame's parts, parallel to "frames"; null where
 * nothing names the address (no mapping, or the process was gone) */
static void json_symbols(struct jw *w, const struct usdtkit_trace_key_value *v)
{
	USDTKIT_OPTS(usdtkit_trace_frame, f);
	size_t i;

	JW_LIT(w, ",\"symbols\":[");
	for (i = 0; i < v->nframes; i++) {
		if (i)
			jw_putc(w, ',');
		if (usdtkit_trace_frame(v, i, &f) || !f.object) {
			JW_LIT(w, "null");
			continue;
		}
		JW_LIT(w, "{\"name\":");
		json_str_or_null(w, f.name);
		JW_LIT(w, ",\"mangled\":");
		json_str_or_null(w, f.mangled);
		JW_LIT(w, ",\"offset\":");
		if (f.name)
			json_num_u64(w, f.offset);
		else
			JW_LIT(w, "null");
		JW_LIT(w, ",\"object\":");
		json_str_bytes(w, f.object, strlen(f.object));
		JW_LIT(w, ",\"address\":");
		json_num_u64(w, f.address);
		jw_putc(w, '}');
	}
	jw_putc(w, ']');
}

static void part_json(struct report *r, const struct usdtkit_trace_key_value *v)
{
	struct jw *w = r->w;
	size_t i;

	switch (v->kind) {
	case USDTKIT_TRACE_PART_STR:
	case USDTKIT_TRACE_PART_COMM:
		if (v->str)
			json_str_bytes(w, v->str, v->str_len);
		else
			JW_LIT(w, "null");
		return;
	case USDTKIT_TRACE_PART_CGROUP:
		/* its path, or (removed before the report) its id */
		if (v->str)
			json_str_bytes(w, v->str, v->str_len);
		else
			json_num_u64(w, v->value);
		return;
	case USDTKIT_TRACE_PART_USTACK:
		JW_LIT(w, "{\"pid\":");
		json_num_u64(w, v->value);
		JW_LIT(w, ",\"frames\":[");
		for (i = 0; i < v->nframes; i++) {
			if (i)
				jw_putc(w, ',');
			json_str_bytes(w, v->frames[i], strlen(v->frames[i]));
		}
		/* the addresses too: a frame no symbol names, and a test that
		 * compares with a debugger's */
		JW_LIT(w, "],\"ips\":[");
		for (i = 0; v->ips && i < v->nframes; i++) {
			if (i)
				jw_putc(w, ',');
			json_num_u64(w, v->ips[i]);
		}
		jw_putc(w, ']');
		json_symbols(w, v);
		if (v->stack_err) {
			JW_LIT(w, ",\"error\":");
			json_num_i64(w, v->stack_err);
		}
		if (v->stack_gone)
			JW_LIT(w, ",\"gone\":true");
		jw_putc(w, '}');
		return;
	default:
		put_num(w, v->value, v->is_signed);
	}
}

/* the parts joined by ", ", a stack's lines after those on the line
 * (@oneline: after ", ", its frames joined by "; ") */
static void row_text(struct jw *w, const struct usdtkit_trace_by_row *row, bool oneline)
{
	bool first = true;
	unsigned int i;

	for (i = 0; i < row->nparts; i++) {
		if (row->parts[i].kind == USDTKIT_TRACE_PART_USTACK)
			continue;
		if (!first)
			JW_LIT(w, ", ");
		first = false;
		part_text(w, &row->parts[i], oneline);
	}
	for (i = 0; i < row->nparts; i++) {
		if (row->parts[i].kind != USDTKIT_TRACE_PART_USTACK)
			continue;
		if (oneline && !first)
			JW_LIT(w, ", ");
		first = false;
		part_text(w, &row->parts[i], oneline);
	}
}

/*
 * A composite key's or a stack's JSON "key": the row as the text table
 * prints it, on one line, as a string. The text is what tells two rows
 * apart: escaped by the one rule (a byte that is not UTF-8 stays itself,
 * where JSON's U+FFFD would merge two), with a string's marks (cut, read
 * late, <fault>) and a stack's frames and pid. 0 or -ENOMEM.
 */
static int key_string(struct jw *w, const struct usdtkit_trace_by_row *row)
{
	struct jw *tmp = malloc(sizeof(*tmp));
	char *text = NULL;
	size_t len = 0;
	FILE *f = tmp ? open_memstream(&text, &len) : NULL;

	if (!f) {
		free(tmp);
		return -ENOMEM;
	}
	jw_init(tmp, f);
	row_text(tmp, row, true);
	jw_flush(tmp);
	fclose(f);
	free(tmp);
	json_str(w, text, len);
	free(text);
	return 0;
}

/* a key's string marks: of any str() part (2.0; 1.x: of the first part) */
static void str_marks(struct jw *w, const struct usdtkit_trace_by_row *row)
{
	bool unread = false, cut = false, late = false;
	unsigned int i;

	for (i = 0; i < row->nparts; i++) {
		const struct usdtkit_trace_key_value *v = &row->parts[i];

		if (v->kind != USDTKIT_TRACE_PART_STR)
			continue;
		unread |= !v->str && v->unread;
		cut |= v->cut;
		late |= v->late;
	}
	if (unread)
		JW_LIT(w, ",\"unread\":true");
	if (cut)
		JW_LIT(w, ",\"cut\":true");
	if (late)
		JW_LIT(w, ",\"late\":true");
}

/*
 * text: row_text(); JSON: "key", what tells the row from the others: a
 * key of one part (not a stack) is its value, with its marks, as in 1.x;
 * a composite key or a stack, the row's text (key_string()); then every
 * part's value in "parts"
 */
static void row_key(struct report *r, const struct usdtkit_trace_by_row *row)
{
	const struct usdtkit_trace_key_value *v0 = &row->parts[0];
	unsigned int i;

	if (!r->json) {
		row_text(r->w, row, false);
		return;
	}
	JW_LIT(r->w, "\"key\":");
	if (row->nparts > 1 || v0->kind == USDTKIT_TRACE_PART_USTACK) {
		if (key_string(r->w, row))
			JW_LIT(r->w, "null");
	} else {
		part_json(r, v0);
	}
	str_marks(r->w, row);
	JW_LIT(r->w, ",\"parts\":[");
	for (i = 0; i < row->nparts; i++) {
		if (i)
			jw_putc(r->w, ',');
		part_json(r, &row->parts[i]);
	}
	jw_putc(r->w, ']');
}

/* "pid,str(arg0)": the key as given */
static const char *key_name(const struct tracer *t)
{
	return t->agg.count_by ? t->agg.count_by : t->agg.by_text;
}

static void put_stats_value(struct jw *w, unsigned int which,
			    const struct usdtkit_trace_stats *s)
{
	char buf[48];

	if (!s->count && which) {
		JW_LIT(w, "null");
	} else if (which == 1) {
		snprintf(buf, sizeof(buf), "%.17g", s->is_signed ?
			 (double)(int64_t)s->sum / s->count : (double)s->sum / s->count);
		json_raw(w, buf);
	} else {
		put_num(w, which == 0 ? s->sum : which == 2 ? s->min : s->max, s->is_signed);
	}
}

/* the keys of probe @i (LATENCY: nprobes) of one read, for @kind */
struct keyed {
	enum usdtkit_trace_agg_kind kind;
	unsigned int which;		/* SUM..MAX: 0..3 */
	const struct usdtkit_trace_by_row *v;
	size_t n;
};

static void keyed_stats_text(struct report *r, const struct usdtkit_trace_stats *s)
{
	unsigned int m = r->t->agg.stat_mask;
	bool sg = s->is_signed;

	line(r->w, "count %llu", (unsigned long long)s->count);
	if (m & AGG_STAT(USDTKIT_TRACE_AGG_SUM))
		line(r->w, sg ? ", sum %lld" : ", sum %llu", (unsigned long long)s->sum);
	if ((m & AGG_STAT(USDTKIT_TRACE_AGG_AVG)) && s->count)
		line(r->w, ", avg %.2f", sg ? (double)(int64_t)s->sum / s->count :
		     (double)s->sum / s->count);
	if ((m & AGG_STAT(USDTKIT_TRACE_AGG_MIN)) && s->count)
		line(r->w, sg ? ", min %lld" : ", min %llu", (unsigned long long)s->min);
	if ((m & AGG_STAT(USDTKIT_TRACE_AGG_MAX)) && s->count)
		line(r->w, sg ? ", max %lld" : ", max %llu", (unsigned long long)s->max);
}

static void lat_stats_text(struct jw *w, const struct usdtkit_trace_stats *s)
{
	char mn[32], av[32], mx[32];

	fmt_ns(mn, sizeof(mn), (double)s->min);
	fmt_ns(av, sizeof(av), s->count ? (double)s->sum / s->count : 0);
	fmt_ns(mx, sizeof(mx), (double)s->max);
	line(w, "count %llu, min %s, avg %s, max %s", (unsigned long long)s->count,
	     mn, av, mx);
}

/* one key's entry of "top" (JSON) or its lines (text) */
static void keyed_row(struct report *r, const struct keyed *k,
		      const struct usdtkit_trace_by_row *row, size_t shown)
{
	struct jw *w = r->w;
	uint64_t hn = 0;
	int s;

	for (s = 0; row->hist && s < USDTKIT_TRACE_HIST_SLOTS; s++)
		hn += row->hist[s];
	if (r->json) {
		if (shown)
			jw_putc(w, ',');
		jw_putc(w, '{');
		row_key(r, row);
		JW_LIT(w, ",\"count\":");
		json_num_u64(w, k->kind == USDTKIT_TRACE_AGG_HIST ? hn : row->stats.count);
		if (k->kind >= USDTKIT_TRACE_AGG_SUM && k->kind <= USDTKIT_TRACE_AGG_MAX) {
			JW_LIT(w, ",\"value\":");
			put_stats_value(w, k->which, &row->stats);
		}
		if (k->kind == USDTKIT_TRACE_AGG_LATENCY && row->stats.count) {
			JW_LIT(w, ",\"min_ns\":");
			json_num_u64(w, row->stats.min);
			line(w, ",\"avg_ns\":%.17g", (double)row->stats.sum / row->stats.count);
			JW_LIT(w, ",\"max_ns\":");
			json_num_u64(w, row->stats.max);
		}
		if (row->hist)
			hist_json(w, row->hist);
		jw_putc(w, '}');
		return;
	}
	switch (k->kind) {
	case USDTKIT_TRACE_AGG_COUNT_BY:
		line(w, "%12llu  ", (unsigned long long)row->stats.count);
		row_key(r, row);
		jw_putc(w, '\n');
		return;
	case USDTKIT_TRACE_AGG_HIST:
		/* bpftrace's @[KEY]: then the histogram */
		JW_LIT(w, "@[");
		row_key(r, row);
		line(w, "]: %llu value%s\n", (unsigned long long)hn, hn == 1 ? "" : "s");
		hist_text(w, row->hist);
		return;
	case USDTKIT_TRACE_AGG_LATENCY:
		JW_LIT(w, "@[");
		row_key(r, row);
		JW_LIT(w, "]: ");
		lat_stats_text(w, &row->stats);
		JW_LIT(w, "\nnanoseconds:\n");
		hist_text(w, row->hist);
		return;
	default:
		JW_LIT(w, "  @[");
		row_key(r, row);
		JW_LIT(w, "]: ");
		keyed_stats_text(r, &row->stats);
		jw_putc(w, '\n');
	}
}

static bool has_ustack(const struct usdtkit_trace_by_row *row)
{
	unsigned int i;

	for (i = 0; i < row->nparts; i++)
		if (row->parts[i].kind == USDTKIT_TRACE_PART_USTACK)
			return true;
	return false;
}

/* the totals of a keyed table over every key, for the fields the object
 * has without a key */
struct keyed_total {
	struct usdtkit_trace_stats st;
	uint64_t hist[USDTKIT_TRACE_HIST_SLOTS];
	uint64_t unmatched;
};

static void total_add(struct keyed_total *t, const struct usdtkit_trace_by_row *row)
{
	const struct usdtkit_trace_stats *s = &row->stats;
	bool sg = s->is_signed;
	int i;

	for (i = 0; row->hist && i < USDTKIT_TRACE_HIST_SLOTS; i++)
		t->hist[i] += row->hist[i];
	t->st.is_signed = sg;
	if (!s->count)
		return;
	if (!t->st.count || (sg ? (int64_t)s->min < (int64_t)t->st.min : s->min < t->st.min))
		t->st.min = s->min;
	if (!t->st.count || (sg ? (int64_t)s->max > (int64_t)t->st.max : s->max > t->st.max))
		t->st.max = s->max;
	t->st.count += s->count;
	t->st.sum += s->sum;
}

/* the fields of the object without a key, from the totals */
static void keyed_totals_json(struct report *r, const struct keyed *k,
			      const struct keyed_total *t)
{
	struct jw *w = r->w;
	uint64_t hn = 0;
	int i;

	for (i = 0; i < USDTKIT_TRACE_HIST_SLOTS; i++)
		hn += t->hist[i];
	if (k->kind == USDTKIT_TRACE_AGG_LATENCY) {
		const struct trace_aggs *g = &r->t->agg;

		lat_json_pair(w, g);
		JW_LIT(w, ",\"unmatched\":");
		json_num_u64(w, t->unmatched);
		if (t->st.count) {
			JW_LIT(w, ",\"min_ns\":");
			json_num_u64(w, t->st.min);
			line(w, ",\"avg_ns\":%.17g", (double)t->st.sum / t->st.count);
			JW_LIT(w, ",\"max_ns\":");
			json_num_u64(w, t->st.max);
		} else {
			JW_LIT(w, ",\"min_ns\":null,\"avg_ns\":null,\"max_ns\":null");
		}
	}
	JW_LIT(w, ",\"count\":");
	json_num_u64(w, k->kind == USDTKIT_TRACE_AGG_HIST ? hn : t->st.count);
	if (k->kind >= USDTKIT_TRACE_AGG_SUM && k->kind <= USDTKIT_TRACE_AGG_MAX) {
		JW_LIT(w, ",\"value\":");
		put_stats_value(w, k->which, &t->st);
	}
	if (k->kind == USDTKIT_TRACE_AGG_HIST || k->kind == USDTKIT_TRACE_AGG_LATENCY)
		hist_json(w, t->hist);
}

/* the head of probe @p's keyed table (NULL: the latency) */
static void keyed_head(struct report *r, const struct keyed *k,
		       const struct usdtkit_trace_probe *p, size_t keys, size_t cut,
		       const struct keyed_total *tot)
{
	static const char *const what[] = { "sum", "avg", "min", "max" };
	const struct trace_aggs *g = &r->t->agg;
	struct jw *w = r->w;

	if (r->json) {
		json_head(r, k->kind >= USDTKIT_TRACE_AGG_SUM && k->kind <= USDTKIT_TRACE_AGG_MAX ?
			  what[k->which] : usdtkit_trace_agg_name(k->kind), p);
		if (k->kind == USDTKIT_TRACE_AGG_HIST) {
			JW_LIT(w, ",\"arg\":");
			json_u64(w, g->hist.arg);
		} else if (k->kind != USDTKIT_TRACE_AGG_COUNT_BY &&
			   k->kind != USDTKIT_TRACE_AGG_LATENCY) {
			JW_LIT(w, ",\"arg\":");
			json_u64(w, g->stats.arg);
		}
		if (k->kind != USDTKIT_TRACE_AGG_COUNT_BY)
			keyed_totals_json(r, k, tot);
		JW_LIT(w, ",\"by\":");
		json_str(w, key_name(r->t), strlen(key_name(r->t)));
		JW_LIT(w, ",\"keys\":");
		json_u64(w, keys);
		/* with a str() part, as before keys had parts */
		if (cut || strstr(key_name(r->t), "str(")) {
			JW_LIT(w, ",\"keys_cut\":");
			json_u64(w, cut);
		}
		return;
	}
	if (p)
		trace_put_probe(w, p);
	else {
		JW_LIT(w, "latency ");
		jw_text(w, g->lat_start, strlen(g->lat_start));
		JW_LIT(w, " -> ");
		jw_text(w, g->lat_end, strlen(g->lat_end));
		lat_key(w, g, " paired by ");
	}
	if (k->kind == USDTKIT_TRACE_AGG_COUNT_BY)
		JW_LIT(w, ": count");
	else if (k->kind == USDTKIT_TRACE_AGG_HIST)
		line(w, ": hist of arg%u", g->hist.arg);
	else if (k->kind != USDTKIT_TRACE_AGG_LATENCY)
		line(w, ": arg%u", g->stats.arg);
	JW_LIT(w, " by ");
	jw_text(w, key_name(r->t), strlen(key_name(r->t)));
	if (keys > g->top)
		line(w, ", top %u of %zu keys", g->top, keys);
	else
		line(w, ", %zu key%s", keys, keys == 1 ? "" : "s");
	if (cut)
		line(w, " (%zu cut at --strlen %u)", cut, r->t->str_len);
	if (k->kind == USDTKIT_TRACE_AGG_LATENCY)
		line(w, ", %llu unmatched", (unsigned long long)tot->unmatched);
	jw_putc(w, '\n');
}

/* the hint is true: some stack had a frame found by the frame pointer */
static bool fp_stacks(const struct report *r)
{
	uint64_t n = 0;

	return !usdtkit_trace_counter(r->t->tr, USDTKIT_TRACE_STACK_FP, &n) && n;
}

/* probe @i's keys (the latency's: @i = the probe count) */
static void keyed_probe(struct report *r, const struct keyed *k, size_t i,
			uint64_t unmatched)
{
	const struct usdtkit_trace_probe *p = usdtkit_trace_probe(r->t->tr, i);
	struct keyed_total tot = { .unmatched = unmatched };
	size_t keys = 0, cut = 0, shown = 0, j;
	bool stack = false;

	for (j = 0; j < k->n; j++) {
		if (k->v[j].probe != i)
			continue;
		keys++;
		cut += k->v[j].parts[0].cut;
		total_add(&tot, &k->v[j]);
		stack |= has_ustack(&k->v[j]);
	}
	keyed_head(r, k, p, keys, cut, &tot);
	if (r->json)
		JW_LIT(r->w, ",\"top\":[");
	for (j = 0; j < k->n && shown < r->t->agg.top; j++) {
		if (k->v[j].probe != i)
			continue;
		keyed_row(r, k, &k->v[j], shown);
		shown++;
	}
	if (r->json)
		JW_LIT(r->w, "]}\n");
	else if (stack && keys && fp_stacks(r))
		JW_LIT(r->w, "(ustack: some frames were found by frame pointers, "
		       "in code without call frame information or with "
		       "--stack-fp: code built without them gives short stacks; "
		       "-fno-omit-frame-pointer gives whole ones)\n");
}

/* one keyed kind: one read, every probe's table (LATENCY: one) */
static int report_keyed(struct report *r, enum usdtkit_trace_agg_kind kind,
			unsigned int which)
{
	struct usdtkit_trace_by_row *v = NULL;
	struct keyed k = { .kind = kind, .which = which };
	size_t n = 0, i, np = usdtkit_trace_probe_count(r->t->tr);
	uint64_t h[USDTKIT_TRACE_HIST_SLOTS], unmatched = 0;
	struct usdtkit_trace_stats st;
	unsigned int flags = r->flags;
	int err;

	if (kind == USDTKIT_TRACE_AGG_COUNT_BY ||
	    (kind >= USDTKIT_TRACE_AGG_SUM && kind <= USDTKIT_TRACE_AGG_MAX)) {
		if (r->by_table_read)
			flags = USDTKIT_TRACE_READ_AGAIN;
		r->by_table_read = true;
	}
	err = usdtkit_trace_read_by(r->t->tr, kind, flags, &v, &n);
	/* the ENDs with no START: the per-probe read's (and reset) */
	if (!err && kind == USDTKIT_TRACE_AGG_LATENCY)
		err = usdtkit_trace_read_latency(r->t->tr, r->flags, &st, h, &unmatched);
	k.v = v;
	k.n = n;
	if (!err && kind == USDTKIT_TRACE_AGG_LATENCY)
		keyed_probe(r, &k, np, unmatched);
	for (i = 0; !err && kind != USDTKIT_TRACE_AGG_LATENCY && i < np; i++)
		keyed_probe(r, &k, i, 0);
	usdtkit_trace_by_free(v, n);
	return err;
}

static int report_by(struct report *r, unsigned int i)
{
	(void)i;
	return report_keyed(r, USDTKIT_TRACE_AGG_COUNT_BY, 0);
}

static int report_by_hist(struct report *r, unsigned int i)
{
	(void)i;
	return report_keyed(r, USDTKIT_TRACE_AGG_HIST, 0);
}

static int report_by_latency(struct report *r, unsigned int i)
{
	(void)i;
	return report_keyed(r, USDTKIT_TRACE_AGG_LATENCY, 0);
}

/* SUM..MAX by key: the table COUNT_BY's is (text: one table of them
 * all, in the order of the first asked for; JSON: an object each) */
static int report_by_stats(struct report *r, unsigned int i)
{
	unsigned int m = r->t->agg.stat_mask, k, first = 0;
	int err = 0;

	(void)i;
	while (!(m & (1u << first)))
		first++;
	if (!r->json)
		return report_keyed(r, USDTKIT_TRACE_AGG_SUM + first, first);
	for (k = first; !err && k < 4; k++)
		if (m & (1u << k))
			err = report_keyed(r, USDTKIT_TRACE_AGG_SUM + k, k);
	return err;
}

/* ---- the report ---- */

/*
 * How each kind is printed, in the order of the report. per_probe: the
 * function runs once per probe (index i), else once (i = 0). SUM..MAX
 * print with COUNTS (one read of the same slot), so they have no entry.
 */
struct agg_printer {
	enum usdtkit_trace_agg_kind kind;
	bool per_probe;
	int (*report)(struct report *r, unsigned int i);
};

static const struct agg_printer agg_printers[] = {
	{ USDTKIT_TRACE_AGG_COUNTS, true, report_stats },
	{ USDTKIT_TRACE_AGG_HIST, true, report_hist },
	{ USDTKIT_TRACE_AGG_COUNT_BY, false, report_by },
	{ USDTKIT_TRACE_AGG_LATENCY, false, report_latency },
};

/* a kind asked for with a key prints so instead (COUNTS' entry stands
 * for SUM..MAX: theirs is report_by_stats) */
static int (*keyed_printer(const struct tracer *t, const struct agg_printer *pr))
	(struct report *, unsigned int)
{
	unsigned int b = t->agg.by_kinds;

	if (pr->kind == USDTKIT_TRACE_AGG_HIST && (b & (1u << USDTKIT_TRACE_AGG_HIST)))
		return report_by_hist;
	if (pr->kind == USDTKIT_TRACE_AGG_LATENCY && (b & (1u << USDTKIT_TRACE_AGG_LATENCY)))
		return report_by_latency;
	return NULL;
}

/* COUNTS' entry stands for SUM..MAX too */
static bool printer_wanted(const struct tracer *t, const struct agg_printer *pr)
{
	if (pr->kind == USDTKIT_TRACE_AGG_COUNTS)
		return t->agg.kinds & (1u << USDTKIT_TRACE_AGG_COUNTS) || t->agg.stat_mask;
	return t->agg.kinds & (1u << pr->kind);
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
	struct report r = { .t = t, .w = t->out, .json = t->json,
			    .flags = reset ? USDTKIT_TRACE_READ_RESET : 0 };
	struct trace_aggs *g = &t->agg;
	uint64_t since = g->since_ns ? g->since_ns : usdtkit_trace_start_ns(t->tr);
	size_t np = usdtkit_trace_probe_count(t->tr), k;
	unsigned int i;
	int err = 0;

	r.secs = now > since ? (now - since) / 1e9 : 0;
	g->since_ns = now;
	interval_label(&r);
	if ((g->kinds & (1u << USDTKIT_TRACE_AGG_COUNTS)) && !t->json)
		line(r.w, "%12s  %s\n", "HITS", "PROBE");
	for (k = 0; !err && k < sizeof(agg_printers) / sizeof(agg_printers[0]); k++) {
		const struct agg_printer *pr = &agg_printers[k];

		if (!printer_wanted(t, pr))
			continue;
		if (keyed_printer(t, pr)) {
			err = keyed_printer(t, pr)(&r, 0);
			continue;
		}
		for (i = 0; !err && i < (pr->per_probe ? np : 1); i++)
			err = pr->report(&r, i);
	}
	/* SUM..MAX by key: after the per-probe counts */
	if (!err && g->stat_mask && (g->by_kinds & (0xfu << USDTKIT_TRACE_AGG_SUM)))
		err = report_by_stats(&r, 0);
	t->agg.printed++;
	jw_flush(t->out);
	if (err)
		trace_err("reading the aggregations: %s", strerror(-err));
	return err;
}
