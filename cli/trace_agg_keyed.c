// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit trace: the keyed aggregations (--count-by KEY, and --hist,
 * --latency, --sum..--max with --by KEY), as the library reads them
 * back: a table of rows, each key's parts (a stack a frame a line), or
 * one JSON object per probe whose "key" is the row's text.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "trace_agg.h"

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
			agg_line(w, "<cgroup id %llu, removed>", (unsigned long long)v->value);
		return;
	case USDTKIT_TRACE_PART_USTACK:
		/* bpftrace's: one frame a line, indented */
		if (v->stack_err)
			agg_line(w, "%s<no stack: error %d>", oneline ? "" : sep, v->stack_err);
		for (i = 0; i < v->nframes; i++) {
			/* one line: "; " between the frames only */
			if (!oneline || i)
				jw_put(w, sep, strlen(sep));
			jw_text(w, v->frames[i], strlen(v->frames[i]));
		}
		agg_line(w, "%s(pid %llu%s)", oneline ? " " : sep, (unsigned long long)v->value,
			 v->stack_gone ? ", gone before its stack was named: addresses" : "");
		return;
	default:
		agg_put_num(w, v->value, v->is_signed);
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
		agg_put_num(w, v->value, v->is_signed);
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
		agg_put_num(w, which == 0 ? s->sum : which == 2 ? s->min : s->max, s->is_signed);
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

	agg_line(r->w, "count %llu", (unsigned long long)s->count);
	if (m & AGG_STAT(USDTKIT_TRACE_AGG_SUM))
		agg_line(r->w, sg ? ", sum %lld" : ", sum %llu", (unsigned long long)s->sum);
	if ((m & AGG_STAT(USDTKIT_TRACE_AGG_AVG)) && s->count)
		agg_line(r->w, ", avg %.2f", sg ? (double)(int64_t)s->sum / s->count :
			 (double)s->sum / s->count);
	if ((m & AGG_STAT(USDTKIT_TRACE_AGG_MIN)) && s->count)
		agg_line(r->w, sg ? ", min %lld" : ", min %llu", (unsigned long long)s->min);
	if ((m & AGG_STAT(USDTKIT_TRACE_AGG_MAX)) && s->count)
		agg_line(r->w, sg ? ", max %lld" : ", max %llu", (unsigned long long)s->max);
}

static void lat_stats_text(struct jw *w, const struct usdtkit_trace_stats *s)
{
	char mn[32], av[32], mx[32];

	agg_fmt_ns(mn, sizeof(mn), (double)s->min);
	agg_fmt_ns(av, sizeof(av), s->count ? (double)s->sum / s->count : 0);
	agg_fmt_ns(mx, sizeof(mx), (double)s->max);
	agg_line(w, "count %llu, min %s, avg %s, max %s", (unsigned long long)s->count,
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
			agg_line(w, ",\"avg_ns\":%.17g", (double)row->stats.sum / row->stats.count);
			JW_LIT(w, ",\"max_ns\":");
			json_num_u64(w, row->stats.max);
		}
		if (row->hist)
			agg_hist_json(w, row->hist);
		jw_putc(w, '}');
		return;
	}
	switch (k->kind) {
	case USDTKIT_TRACE_AGG_COUNT_BY:
		agg_line(w, "%12llu  ", (unsigned long long)row->stats.count);
		row_key(r, row);
		jw_putc(w, '\n');
		return;
	case USDTKIT_TRACE_AGG_HIST:
		/* bpftrace's @[KEY]: then the histogram */
		JW_LIT(w, "@[");
		row_key(r, row);
		agg_line(w, "]: %llu value%s\n", (unsigned long long)hn, hn == 1 ? "" : "s");
		agg_hist_text(w, row->hist);
		return;
	case USDTKIT_TRACE_AGG_LATENCY:
		JW_LIT(w, "@[");
		row_key(r, row);
		JW_LIT(w, "]: ");
		lat_stats_text(w, &row->stats);
		JW_LIT(w, "\nnanoseconds:\n");
		agg_hist_text(w, row->hist);
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

		agg_lat_json_pair(w, g);
		JW_LIT(w, ",\"unmatched\":");
		json_num_u64(w, t->unmatched);
		if (t->st.count) {
			JW_LIT(w, ",\"min_ns\":");
			json_num_u64(w, t->st.min);
			agg_line(w, ",\"avg_ns\":%.17g", (double)t->st.sum / t->st.count);
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
		agg_hist_json(w, t->hist);
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
		agg_json_head(r, k->kind >= USDTKIT_TRACE_AGG_SUM && k->kind <= USDTKIT_TRACE_AGG_MAX ?
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
		agg_lat_key(w, g, " paired by ");
	}
	if (k->kind == USDTKIT_TRACE_AGG_COUNT_BY)
		JW_LIT(w, ": count");
	else if (k->kind == USDTKIT_TRACE_AGG_HIST)
		agg_line(w, ": hist of arg%u", g->hist.arg);
	else if (k->kind != USDTKIT_TRACE_AGG_LATENCY)
		agg_line(w, ": arg%u", g->stats.arg);
	JW_LIT(w, " by ");
	jw_text(w, key_name(r->t), strlen(key_name(r->t)));
	if (keys > g->top)
		agg_line(w, ", top %u of %zu keys", g->top, keys);
	else
		agg_line(w, ", %zu key%s", keys, keys == 1 ? "" : "s");
	if (cut)
		agg_line(w, " (%zu cut at --strlen %u)", cut, r->t->str_len);
	if (k->kind == USDTKIT_TRACE_AGG_LATENCY)
		agg_line(w, ", %llu unmatched", (unsigned long long)tot->unmatched);
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

int agg_report_by(struct report *r, unsigned int i)
{
	(void)i;
	return report_keyed(r, USDTKIT_TRACE_AGG_COUNT_BY, 0);
}

int agg_report_by_hist(struct report *r, unsigned int i)
{
	(void)i;
	return report_keyed(r, USDTKIT_TRACE_AGG_HIST, 0);
}

int agg_report_by_latency(struct report *r, unsigned int i)
{
	(void)i;
	return report_keyed(r, USDTKIT_TRACE_AGG_LATENCY, 0);
}

/* SUM..MAX by key: the table COUNT_BY's is (text: one table of them
 * all, in the order of the first asked for; JSON: an object each) */
int agg_report_by_stats(struct report *r, unsigned int i)
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
