// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit trace: the pieces every aggregation's report is printed with
 * (trace_agg_print.c's per-probe ones, trace_agg_keyed.c's tables):
 * a JSON object's head, numbers, bpftrace-style log2 histograms and
 * durations.
 */
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "trace.h"
#include "trace_agg.h"

#define AGG_SCHEMA "usdtkit-trace-agg/2.0"
#define HIST_BAR 52

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

/* {"schema":..., "agg":"NAME", [interval], "provider":..., "name":...[, "path"] */
void agg_json_head(struct report *r, const char *agg,
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

void agg_put_num(struct jw *w, unsigned long long v, bool is_signed)
{
	if (is_signed)
		json_num_i64(w, (long long)v);
	else
		json_num_u64(w, v);
}

void agg_hist_text(struct jw *w, const uint64_t *h)
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
void agg_hist_json(struct jw *w, const uint64_t *h)
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

void agg_line(struct jw *w, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	jw_put(w, buf, n < 0 ? 0 : (size_t)n >= sizeof(buf) ? sizeof(buf) - 1 : (size_t)n);
}

static const char *key_names[] = { "tid", "pid", "arg", "str" };

void agg_fmt_ns(char *buf, size_t n, double ns)
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
void agg_lat_key(struct jw *w, const struct trace_aggs *g, const char *pre)
{
	if (g->pair == USDTKIT_TRACE_PAIR_ARG || g->pair == USDTKIT_TRACE_PAIR_STR)
		agg_line(w, g->key.str ? "%sstr(arg%u)" : "%sarg%u", pre, g->key.arg);
	else
		agg_line(w, "%s%s", pre, key_names[g->pair & 3]);
}

/* ,"start":START,"end":END,"key":"KEY" of a latency's JSON object */
void agg_lat_json_pair(struct jw *w, const struct trace_aggs *g)
{
	JW_LIT(w, ",\"start\":");
	json_str(w, g->lat_start, strlen(g->lat_start));
	JW_LIT(w, ",\"end\":");
	json_str(w, g->lat_end, strlen(g->lat_end));
	JW_LIT(w, ",\"key\":\"");
	agg_lat_key(w, g, "");
	jw_putc(w, '"');
}
