// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* usdtkit trace: one hit as JSON or text, typed by its probe's note. */
#include <inttypes.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "trace.h"

/* ---- output ---- */

/* PROVIDER:NAME as text, control characters escaped */
void trace_put_probe(struct jw *w, const struct probe *p)
{
	jw_text(w, p->provider, strlen(p->provider));
	jw_putc(w, ':');
	jw_text(w, p->name, strlen(p->name));
}

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

/* A slot: sizeof(struct usdtkit_trace_str), then --strlen + 2 bytes
 * (the NUL, and one to see a longer string), 8-aligned. */
static size_t slot_size(const struct tracer *t)
{
	return sizeof(struct usdtkit_trace_str) + ((t->str_len + 2 + 7) & ~7u);
}

size_t trace_str_layout(struct tracer *t)
{
	size_t off = sizeof(struct usdtkit_trace_event);
	int i;

	for (i = 0; i < MAX_ARGS; i++) {
		t->str_off[i] = 0;
		if (!(t->str_mask & (1u << i)))
			continue;
		/* at most 144 + 12 * 4112 bytes: fits the u16 offsets */
		t->str_off[i] = (unsigned short)off;
		off += slot_size(t);
	}
	return off;
}

/*
 * Argument @i of @e as a string, if --str named it and its pointer was
 * read: its slot, else NULL. *@n: the bytes to print, *@cut: the string
 * was longer than --strlen.
 */
static const struct usdtkit_trace_str *
hit_str(const struct tracer *t, const struct usdtkit_trace_event *e, size_t size,
	int i, size_t *n, bool *cut)
{
	const struct usdtkit_trace_str *s;

	if (!t->str_off[i] || (e->err_mask & (1u << i)) ||
	    t->str_off[i] + slot_size(t) > size)
		return NULL;
	s = (const void *)((const char *)e + t->str_off[i]);
	*cut = false;
	*n = 0;
	if (s->len > 0) {
		/* len counts the NUL; the slot holds one more byte than shown */
		*n = (size_t)s->len - 1;
		if (*n > t->str_len) {
			*n = t->str_len;
			*cut = true;
		}
		*n = strnlen(s->data, *n);
	}
	return s;
}

void trace_event_json(struct jw *w, const struct tracer *t, const struct probe *p,
		       const struct usdtkit_trace_event *e, size_t size)
{
	const struct usdtkit_trace_str *s;
	unsigned int cut_mask = 0;
	int i, err = e->err;
	bool cut;
	size_t n;

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

		s = hit_str(t, e, size, i, &n, &cut);
		if (s && s->len < 0) {
			/* a faulting pointer: null, like an unreadable argument */
			JW_LIT(w, "null");
			if (!err)
				err = s->len;
		} else if (s) {
			json_str_bytes(w, s->data, n);
			if (cut)
				cut_mask |= 1u << i;
		} else if (e->err_mask & (1u << i)) {
			JW_LIT(w, "null");
		} else {
			put_value(w, &ty, e->args[i]);
		}
	}
	jw_putc(w, ']');
	if (cut_mask) {
		/* the strings that were longer than --strlen */
		JW_LIT(w, ",\"truncated\":[");
		for (i = 0, n = 0; i < MAX_ARGS; i++) {
			if (!(cut_mask & (1u << i)))
				continue;
			if (n++)
				jw_putc(w, ',');
			json_i64(w, i);
		}
		jw_putc(w, ']');
	}
	if (err || e->nargs < 0) {
		/* unreadable arguments are null, and why is here */
		JW_LIT(w, ",\"err\":");
		json_i64(w, err ? err : e->nargs);
	}
	JW_LIT(w, "}\n");
}

void trace_event_text(struct jw *w, const struct tracer *t,
		       const struct probe *p, const struct usdtkit_trace_event *e,
		       size_t size)
{
	const struct usdtkit_trace_str *s;
	bool cut;
	size_t n;
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
	trace_put_probe(w, p);
	jw_putc(w, '(');
	for (i = 0; i < e->nargs && i < MAX_ARGS; i++) {
		struct arg_type ty = hit_type(p, e, i);

		if (i)
			JW_LIT(w, ", ");
		s = hit_str(t, e, size, i, &n, &cut);
		if (s && s->len < 0) {
			snprintf(buf, sizeof(buf), "str <fault 0x%llx>",
				 (unsigned long long)e->args[i]);
			json_raw(w, buf);
			continue;
		}
		if (s) {
			JW_LIT(w, "str ");
			jw_text_quoted(w, s->data, n);
			if (cut)
				JW_LIT(w, "...");
			continue;
		}
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

