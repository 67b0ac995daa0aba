// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* usdtkit trace: one hit as JSON or text, typed by its probe's note. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "trace.h"

/* ---- output ---- */

static void put_float(struct jw *w, const struct arg_type *ty, long long raw)
{
	char buf[40];
	double d;

	if (ty->size == 4) {
		uint32_t u = (uint32_t)raw;
		float f;

		memcpy(&f, &u, sizeof(f));
		d = f;
	} else {
		memcpy(&d, &raw, sizeof(d));
	}
	/* JSON has no NaN or infinity */
	if (isfinite(d))
		snprintf(buf, sizeof(buf), "%.17g", d);
	else
		snprintf(buf, sizeof(buf), "%s", isnan(d) ? "\"nan\"" :
			 d > 0 ? "\"inf\"" : "\"-inf\"");
	json_raw(w, buf);
}

/* The value at the width and sign of its type (the program extended it
 * already; this keeps the two sides honest). */
static void put_value(struct jw *w, const struct arg_type *ty, long long raw)
{
	unsigned int bits = 64 - 8 * (ty->size & 15);
	uint64_t v = (uint64_t)raw;

	if (ty->is_float) {
		put_float(w, ty, raw);
		return;
	}
	if (bits && bits < 64) {
		if (ty->is_signed)
			v = (uint64_t)((int64_t)(v << bits) >> bits);
		else
			v &= ~0ull >> bits;
	}
	/* the JSON writers' --json-u64-strings applies to the values too;
	 * a text writer never has it (the option implies --json) */
	if (ty->is_signed)
		json_num_i64(w, (int64_t)v);
	else
		json_num_u64(w, v);
}

static void put_type(struct jw *w, const struct arg_type *ty)
{
	jw_putc(w, ty->is_float ? 'f' : ty->is_signed ? 's' : 'u');
	json_i64(w, ty->size * 8);
	jw_putc(w, ' ');
}

static const struct arg_type unknown_type = { .size = 8, .is_signed = true };

/*
 * Argument @i of hit @e: the width and sign of the site that fired, as
 * the program sends them (sites of one probe may differ: an int at one,
 * a long at another); whether it is a float, from the probe's note.
 */
static struct arg_type hit_type(const struct probe *p,
				 const struct usdtkit_trace_event *e, int i)
{
	struct arg_type ty = i < p->nargs ? p->args[i] : unknown_type;

	if (e->types[i] & 15) {
		ty.size = e->types[i] & 15;
		ty.is_signed = e->types[i] & USDTKIT_TRACE_SIGNED;
	}
	return ty;
}

void trace_event_json(struct jw *w, const struct probe *p,
		       const struct usdtkit_trace_event *e)
{
	int i;

	JW_OPEN(w, JSON_SCHEMA_TRACE);
	JW_LIT(w, ",\"ts_ns\":");
	json_num_u64(w, e->ts_ns);
	JW_LIT(w, ",\"pid\":");
	json_u64(w, e->pid);
	JW_LIT(w, ",\"tid\":");
	json_u64(w, e->tid);
	JW_LIT(w, ",\"provider\":");
	json_str(w, p->provider, strlen(p->provider));
	JW_LIT(w, ",\"name\":");
	json_str(w, p->name, strlen(p->name));
	JW_LIT(w, ",\"args\":[");
	for (i = 0; i < e->nargs && i < MAX_ARGS; i++) {
		if (i)
			jw_putc(w, ',');
		struct arg_type ty = hit_type(p, e, i);

		if (e->err_mask & (1u << i))
			JW_LIT(w, "null");
		else
			put_value(w, &ty, e->args[i]);
	}
	jw_putc(w, ']');
	if (e->err || e->nargs < 0) {
		/* unreadable arguments are null, and why is here */
		JW_LIT(w, ",\"err\":");
		json_i64(w, e->err ? e->err : e->nargs);
	}
	JW_LIT(w, "}\n");
}

void trace_event_text(struct jw *w, const struct tracer *t,
		       const struct probe *p, const struct usdtkit_trace_event *e)
{
	/* on_event() drops hits older than start_ns */
	uint64_t rel = e->ts_ns > t->start_ns ? e->ts_ns - t->start_ns : 0;
	char buf[64];
	int i;

	snprintf(buf, sizeof(buf), "%3" PRIu64 ".%06" PRIu64 " ",
		 rel / 1000000000, rel % 1000000000 / 1000);
	json_raw(w, buf);
	JW_LIT(w, "pid ");
	json_u64(w, e->pid);
	JW_LIT(w, " tid ");
	json_u64(w, e->tid);
	jw_putc(w, ' ');
	jw_text(w, p->provider, strlen(p->provider));
	jw_putc(w, ':');
	jw_text(w, p->name, strlen(p->name));
	jw_putc(w, '(');
	for (i = 0; i < e->nargs && i < MAX_ARGS; i++) {
		struct arg_type ty = hit_type(p, e, i);

		if (i)
			JW_LIT(w, ", ");
		put_type(w, &ty);
		if (e->err_mask & (1u << i)) {
			snprintf(buf, sizeof(buf), "?(error %d)", e->err);
			json_raw(w, buf);
		} else {
			put_value(w, &ty, e->args[i]);
		}
	}
	jw_putc(w, ')');
	if (e->nargs < 0) {
		snprintf(buf, sizeof(buf), " [no spec: error %d]", e->nargs);
		json_raw(w, buf);
	}
	jw_putc(w, '\n');
}

