// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <inttypes.h>
#include <string.h>

#include "json.h"

void json_str(FILE *f, const char *s, size_t len)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
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
	fputs("{\"name\":", f);
	json_str(f, name, strlen(name));
	fprintf(f, ",\"offset\":%d,\"shift\":%u,\"width\":%u}", r->offset,
		r->shift, r->width);
}

static void json_addr(FILE *f, const struct usdtkit_arch *arch,
		      const struct usdtkit_arg *a)
{
	if (a->base.id >= 0)
		json_reg(f, arch, "base", &a->base);
	if (a->index.id >= 0) {
		json_reg(f, arch, "index_reg", &a->index);
		fprintf(f, ",\"scale\":%u", a->scale);
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
		fprintf(f, ",\"value\":%" PRId64, a->value);
		if (a->pc_rel)
			fprintf(f, ",\"pc_rel\":%" PRId64, a->value);
		json_resolved_sym(f, spec, a);
		break;
	case USDTKIT_LOC_REG:
		json_reg(f, arch, "reg", &a->reg);
		if (a->reg_hi.id >= 0)
			json_reg(f, arch, "reg_hi", &a->reg_hi);
		break;
	case USDTKIT_LOC_MEM:
		json_addr(f, arch, a);
		fprintf(f, ",\"disp\":%" PRId64, a->disp);
		if (a->pc_rel)
			fprintf(f, ",\"pc_rel\":%" PRId64, a->disp);
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
	fprintf(f, "{\"index\":%d,\"text\":", index);
	json_str(f, spec + a->text_off, a->text_len);
	fprintf(f, ",\"size\":%u,\"signed\":%s,\"float\":%s,\"kind\":\"%s\"",
		a->size, a->is_signed ? "true" : "false",
		a->is_float ? "true" : "false",
		usdtkit_loc_kind_str(a->kind));
	if (a->status != USDTKIT_ARG_INVALID)
		json_loc(f, arch, spec, a);
	fprintf(f, ",\"status\":\"%s\"", usdtkit_arg_status_str(a->status));
	if (a->status != USDTKIT_ARG_OK) {
		fputs(",\"error\":", f);
		json_str(f, a->error ? a->error : "", a->error ? strlen(a->error) : 0);
		fprintf(f, ",\"error_pos\":%u", a->error_pos);
	}
	fputc('}', f);
}
