// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <inttypes.h>
#include <string.h>

#include "json.h"

/*
 * The list of a big binary is megabytes of JSON: write through the
 * unlocked stdio calls and format integers by hand, no printf per field.
 */
static const unsigned char needs_esc[256] = {
	[0 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1, [0x7f] = 1,
};

void json_raw(FILE *f, const char *s)
{
	fwrite_unlocked(s, 1, strlen(s), f);
}

void json_u64(FILE *f, uint64_t v)
{
	char b[24], *p = b + sizeof(b);

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	fwrite_unlocked(p, 1, (size_t)(b + sizeof(b) - p), f);
}

void json_i64(FILE *f, int64_t v)
{
	if (v < 0) {
		putc_unlocked('-', f);
		json_u64(f, (uint64_t)0 - (uint64_t)v);
	} else {
		json_u64(f, (uint64_t)v);
	}
}

void json_str(FILE *f, const char *s, size_t len)
{
	size_t i = 0, run;

	putc_unlocked('"', f);
	while (i < len) {
		unsigned char c;

		/* copy runs that need no escaping in one call */
		for (run = i; run < len && !needs_esc[(unsigned char)s[run]]; run++)
			;
		fwrite_unlocked(s + i, 1, run - i, f);
		if (run == len)
			break;
		c = (unsigned char)s[run];
		if (c == '"' || c == '\\') {
			putc_unlocked('\\', f);
			putc_unlocked(c, f);
		} else if (c == '\n') {
			json_raw(f, "\\n");
		} else if (c == '\t') {
			json_raw(f, "\\t");
		} else {
			fprintf(f, "\\u%04x", c);
		}
		i = run + 1;
	}
	putc_unlocked('"', f);
}

/* ,"key":N */
static void json_key_i64(FILE *f, const char *key, int64_t v)
{
	putc_unlocked(',', f);
	json_str(f, key, strlen(key));
	putc_unlocked(':', f);
	json_i64(f, v);
}

static void json_reg(FILE *f, const struct usdtkit_arch *arch,
		     const char *key, const struct usdtkit_reg *r)
{
	const struct usdtkit_regdef *d = usdtkit_arch_reg_at(arch, r->entry);
	const char *name = d ? d->name : usdtkit_arch_reg_name(arch, r->id);

	fprintf(f, ",\"%s\":", key);
	if (r->id < 0) {
		fputs("null", f);
		return;
	}
	json_raw(f, "{\"name\":");
	json_str(f, name, strlen(name));
	json_key_i64(f, "offset", r->offset);
	json_key_i64(f, "shift", r->shift);
	json_key_i64(f, "width", r->width);
	putc_unlocked('}', f);
}

static void json_addr(FILE *f, const struct usdtkit_arch *arch,
		      const struct usdtkit_arg *a)
{
	if (a->base.id >= 0)
		json_reg(f, arch, "base", &a->base);
	if (a->index.id >= 0) {
		json_reg(f, arch, "index_reg", &a->index);
		json_key_i64(f, "scale", a->scale);
	}
}

/* a resolved symbol-relative arg still names its symbol */
static void json_resolved_sym(FILE *f, const char *spec,
			      const struct usdtkit_arg *a)
{
	if (!a->sym_len)
		return;
	fputs(",\"symbol\":", f);
	json_str(f, spec + a->sym_off, a->sym_len);
	fprintf(f, ",\"reloc\":\"%s\"", usdtkit_reloc_str(a->reloc));
}

static void json_loc(FILE *f, const struct usdtkit_arch *arch,
		     const char *spec, const struct usdtkit_arg *a)
{
	switch (a->kind) {
	case USDTKIT_LOC_CONST:
		json_key_i64(f, "value", a->value);
		if (a->pc_rel)
			json_key_i64(f, "pc_rel", a->value);
		json_resolved_sym(f, spec, a);
		break;
	case USDTKIT_LOC_REG:
		json_reg(f, arch, "reg", &a->reg);
		if (a->reg_hi.id >= 0)
			json_reg(f, arch, "reg_hi", &a->reg_hi);
		break;
	case USDTKIT_LOC_MEM:
		json_addr(f, arch, a);
		json_key_i64(f, "disp", a->disp);
		if (a->pc_rel)
			json_key_i64(f, "pc_rel", a->disp);
		json_resolved_sym(f, spec, a);
		break;
	case USDTKIT_LOC_SYMBOL:
		fputs(",\"symbol\":", f);
		json_str(f, spec + a->sym_off, a->sym_len);
		fprintf(f, ",\"addend\":%" PRId64 ",\"reloc\":\"%s\",\"deref\":%s",
			a->disp, usdtkit_reloc_str(a->reloc),
			a->deref ? "true" : "false");
		json_addr(f, arch, a);
		break;
	case USDTKIT_LOC_UNREADABLE:
		fputs(",\"reg\":{\"name\":", f);
		json_str(f, spec + a->sym_off, a->sym_len);
		fputs(",\"offset\":null,\"shift\":0}", f);
		break;
	default:
		break;
	}
}

void json_arg(FILE *f, const struct usdtkit_arch *arch, const char *spec,
	      const struct usdtkit_arg *a, int index)
{
	json_raw(f, "{\"index\":");
	json_i64(f, index);
	json_raw(f, ",\"text\":");
	json_str(f, spec + a->text_off, a->text_len);
	json_key_i64(f, "size", a->size);
	json_raw(f, a->is_signed ? ",\"signed\":true" : ",\"signed\":false");
	json_raw(f, a->is_float ? ",\"float\":true,\"kind\":\"" : ",\"float\":false,\"kind\":\"");
	json_raw(f, usdtkit_loc_kind_str(a->kind));
	putc_unlocked('"', f);
	if (a->status != USDTKIT_ARG_INVALID)
		json_loc(f, arch, spec, a);
	json_raw(f, ",\"status\":\"");
	json_raw(f, usdtkit_arg_status_str(a->status));
	putc_unlocked('"', f);
	if (a->status != USDTKIT_ARG_OK) {
		fputs(",\"error\":", f);
		json_str(f, a->error ? a->error : "", a->error ? strlen(a->error) : 0);
		json_key_i64(f, "error_pos", a->error_pos);
	}
	putc_unlocked('}', f);
}
