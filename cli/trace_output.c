// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* usdtkit trace: one hit as JSON or text, as the library decoded it. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "trace.h"

/* ---- output ---- */

/* PROVIDER:NAME as text, control characters escaped */
void trace_put_probe(struct jw *w, const struct usdtkit_trace_probe *p)
{
	jw_text(w, p->provider, strlen(p->provider));
	jw_putc(w, ':');
	jw_text(w, p->name, strlen(p->name));
}

static void put_float(struct jw *w, double d)
{
	char buf[40];

	/* JSON has no NaN or infinity */
	if (isfinite(d))
		snprintf(buf, sizeof(buf), "%.17g", d);
	else
		snprintf(buf, sizeof(buf), "%s", isnan(d) ? "\"nan\"" :
			 d > 0 ? "\"inf\"" : "\"-inf\"");
	json_raw(w, buf);
}

/* the value, decoded by the library at its type's width and sign */
static void put_value(struct jw *w, const struct usdtkit_trace_value *v)
{
	if (v->type.is_float)
		put_float(w, v->f);
	/* the JSON writers' --json-u64-strings applies to the values too;
	 * a text writer never has it (the option implies --json) */
	else if (v->type.is_signed)
		json_num_i64(w, v->i);
	else
		json_num_u64(w, v->u);
}

static void put_type(struct jw *w, const struct usdtkit_trace_type *ty)
{
	jw_putc(w, ty->is_float ? 'f' : ty->is_signed ? 's' : 'u');
	json_i64(w, ty->size * 8);
	jw_putc(w, ' ');
}

/* @key then the argument numbers of @mask, if any */
static void put_arg_list(struct jw *w, const char *key, unsigned int mask)
{
	size_t n = 0;
	int i;

	if (!mask)
		return;
	json_raw(w, key);
	for (i = 0; i < MAX_ARGS; i++) {
		if (!(mask & (1u << i)))
			continue;
		if (n++)
			jw_putc(w, ',');
		json_i64(w, i);
	}
	jw_putc(w, ']');
}

void trace_event_json(struct jw *w, const struct usdtkit_trace_probe *p,
		      const struct usdtkit_trace_hit *h)
{
	unsigned int cut_mask = 0, late_mask = 0;
	int i, err = h->err;

	JW_OPEN(w, JSON_SCHEMA_TRACE);
	JW_LIT(w, ",\"ts_ns\":");
	json_num_u64(w, h->ts_ns);
	JW_LIT(w, ",\"pid\":");
	json_u64(w, h->pid);
	JW_LIT(w, ",\"tid\":");
	json_u64(w, h->tid);
	JW_LIT(w, ",\"provider\":");
	json_str(w, p->provider, strlen(p->provider));
	JW_LIT(w, ",\"name\":");
	json_str(w, p->name, strlen(p->name));
	JW_LIT(w, ",\"args\":[");
	for (i = 0; i < h->nargs; i++) {
		const struct usdtkit_trace_value *v = &h->args[i];

		if (i)
			jw_putc(w, ',');
		if (v->str_err) {
			/* a faulting pointer: null, like an unreadable argument */
			JW_LIT(w, "null");
			if (!err)
				err = v->str_err;
		} else if (v->str) {
			json_str_bytes(w, v->str, v->str_len);
			if (v->str_cut)
				cut_mask |= 1u << i;
			if (v->str_late)
				late_mask |= 1u << i;
		} else if (!v->ok) {
			JW_LIT(w, "null");
		} else {
			put_value(w, v);
		}
	}
	jw_putc(w, ']');
	/* the strings that were longer than --strlen; those read after
	 * the hit */
	put_arg_list(w, ",\"truncated\":[", cut_mask);
	put_arg_list(w, ",\"late\":[", late_mask);
	if (h->filter_undecided)
		JW_LIT(w, ",\"filter_undecided\":true");
	if (err || h->nargs < 0) {
		/* unreadable arguments are null, and why is here */
		JW_LIT(w, ",\"err\":");
		json_i64(w, err ? err : h->nargs);
	}
	JW_LIT(w, "}\n");
}

void trace_event_text(struct jw *w, uint64_t start_ns,
		      const struct usdtkit_trace_probe *p,
		      const struct usdtkit_trace_hit *h)
{
	/* the library drops hits older than the start */
	uint64_t rel = h->ts_ns > start_ns ? h->ts_ns - start_ns : 0;
	char buf[64];
	int i;

	snprintf(buf, sizeof(buf), "%3" PRIu64 ".%06" PRIu64 " ",
		 rel / 1000000000, rel % 1000000000 / 1000);
	json_raw(w, buf);
	JW_LIT(w, "pid ");
	json_u64(w, h->pid);
	JW_LIT(w, " tid ");
	json_u64(w, h->tid);
	jw_putc(w, ' ');
	trace_put_probe(w, p);
	jw_putc(w, '(');
	for (i = 0; i < h->nargs; i++) {
		const struct usdtkit_trace_value *v = &h->args[i];

		if (i)
			JW_LIT(w, ", ");
		if (v->str_err) {
			snprintf(buf, sizeof(buf), v->str_err == -ESRCH ?
				 "str <not read 0x%llx>" : "str <fault 0x%llx>",
				 (unsigned long long)v->raw);
			json_raw(w, buf);
			continue;
		}
		if (v->str) {
			JW_LIT(w, "str ");
			jw_text_quoted(w, v->str, v->str_len);
			if (v->str_cut)
				JW_LIT(w, "...");
			if (v->str_late)
				JW_LIT(w, " (read late)");
			continue;
		}
		put_type(w, &v->type);
		if (!v->ok) {
			snprintf(buf, sizeof(buf), "?(error %d)", h->err);
			json_raw(w, buf);
		} else {
			put_value(w, v);
		}
	}
	jw_putc(w, ')');
	if (h->nargs < 0) {
		snprintf(buf, sizeof(buf), " [no spec: error %d]", h->nargs);
		json_raw(w, buf);
	}
	if (h->filter_undecided)
		JW_LIT(w, " [filter undecided: a string could not be read]");
	jw_putc(w, '\n');
}
