// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The labels of a keyed row (--count-by KEY, --by KEY): one per part of
 * the key, named after it (docs/METRICS.md): pid, tid, comm, argN,
 * str_argN, ustack. A key of one argN or str(argN) part keeps the
 * label it had before keys had parts, key. Values are rendered as the
 * text output renders them (prom.c escapes them); a ustack is its pid
 * then its frames, innermost first, joined by ';'.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/metrics.h"

#define OTHER_KEY "__other__"

/* is the key one argN or str(argN), labelled key as before parts? */
static bool one_key_label(const struct usdtkit_trace_key *k)
{
	return k->nparts == 1 && (k->parts[0].kind == USDTKIT_TRACE_PART_ARG ||
				  k->parts[0].kind == USDTKIT_TRACE_PART_STR);
}

int usdtkit__by_labels_init(struct metrics *m, struct by_labels *bl)
{
	struct usdtkit_trace_key k;
	unsigned int i;

	memset(bl, 0, sizeof(*bl));
	usdtkit_trace_by_key(m->t, &k);
	bl->nparts = k.nparts;
	for (i = 0; i < k.nparts; i++) {
		if (one_key_label(&k))
			snprintf(bl->name[i], sizeof(bl->name[i]), "key");
		else if (k.parts[i].kind == USDTKIT_TRACE_PART_ARG)
			snprintf(bl->name[i], sizeof(bl->name[i]), "arg%u", k.parts[i].arg);
		else if (k.parts[i].kind == USDTKIT_TRACE_PART_STR)
			snprintf(bl->name[i], sizeof(bl->name[i]), "str_arg%u", k.parts[i].arg);
		else
			snprintf(bl->name[i], sizeof(bl->name[i]), "%s",
				 usdtkit_trace_part_name(k.parts[i].kind));
		bl->cap[i] = USDTKIT_TRACE_STRLEN_MAX + 8;
		bl->buf[i] = malloc(bl->cap[i]);
		if (!bl->buf[i])
			return -ENOMEM;
	}
	return 0;
}

void usdtkit__by_labels_free(struct by_labels *bl)
{
	unsigned int i;

	for (i = 0; i < USDTKIT_TRACE_KEY_PARTS; i++)
		free(bl->buf[i]);
}

/* room for @need bytes in label @i's buffer: 0 or -ENOMEM */
static int room(struct by_labels *bl, unsigned int i, size_t need)
{
	char *nb;

	if (need <= bl->cap[i])
		return 0;
	nb = realloc(bl->buf[i], need);
	if (!nb)
		return -ENOMEM;
	bl->buf[i] = nb;
	bl->cap[i] = need;
	return 0;
}

/* a ustack: "PID;frame;frame..." */
static int stack_value(struct by_labels *bl, unsigned int i,
		       const struct usdtkit_trace_key_value *v)
{
	size_t need = 24, at, f;

	for (f = 0; f < v->nframes; f++)
		need += strlen(v->frames[f]) + 1;
	if (room(bl, i, need))
		return -ENOMEM;
	at = (size_t)snprintf(bl->buf[i], bl->cap[i], "%llu", (unsigned long long)v->value);
	for (f = 0; f < v->nframes; f++)
		at += (size_t)snprintf(bl->buf[i] + at, bl->cap[i] - at, ";%s", v->frames[f]);
	bl->len[i] = at;
	return 0;
}

/* a cgroup: its path, however long (one removed before the scrape: its
 * id) */
static int cgroup_value(struct by_labels *bl, unsigned int i,
			const struct usdtkit_trace_key_value *v)
{
	if (!v->str) {
		bl->len[i] = (size_t)snprintf(bl->buf[i], bl->cap[i], "%llu",
					      (unsigned long long)v->value);
		return 0;
	}
	if (room(bl, i, v->str_len + 1))
		return -ENOMEM;
	memcpy(bl->buf[i], v->str, v->str_len);
	bl->len[i] = v->str_len;
	return 0;
}

/*
 * Part @i of row @r into its label: 1, or 0 when the key is folded
 * into __other__ (a str() that could not be read, or is "__other__"
 * itself), or a negative errno.
 */
static int part_value(struct by_labels *bl, unsigned int i,
		      const struct usdtkit_trace_key_value *v)
{
	char *b = bl->buf[i];

	switch (v->kind) {
	case USDTKIT_TRACE_PART_CGROUP: {
		int err = cgroup_value(bl, i, v);

		return err ? err : 1;
	}
	case USDTKIT_TRACE_PART_STR:
	case USDTKIT_TRACE_PART_COMM:
		if (!v->str || v->str_len + 4 > bl->cap[i] ||
		    (v->str_len == strlen(OTHER_KEY) && !memcmp(v->str, OTHER_KEY, v->str_len)))
			return 0;
		memcpy(b, v->str, v->str_len);
		bl->len[i] = v->str_len;
		/* cut at --strlen: stands for every string that begins so */
		if (v->cut) {
			memcpy(b + v->str_len, "...", 3);
			bl->len[i] += 3;
		}
		return 1;
	case USDTKIT_TRACE_PART_USTACK: {
		int err = stack_value(bl, i, v);

		return err ? err : 1;
	}
	default:
		bl->len[i] = (size_t)(v->is_signed ?
			snprintf(b, bl->cap[i], "%lld", (long long)v->value) :
			snprintf(b, bl->cap[i], "%llu", (unsigned long long)v->value));
		return 1;
	}
}

int usdtkit__by_labels(struct by_labels *bl, const struct usdtkit_trace_by_row *r,
		       struct prom_label *l)
{
	unsigned int i;
	int ok;

	for (i = 0; i < bl->nparts; i++) {
		ok = r ? part_value(bl, i, &r->parts[i]) : 0;
		if (ok < 0)
			return ok;
		if (!ok) {
			/* folded: every part is __other__ */
			for (i = 0; i < bl->nparts; i++)
				l[i] = PROM_LABEL(bl->name[i], OTHER_KEY);
			return 0;
		}
		l[i] = PROM_LABEL_N(bl->name[i], bl->buf[i], bl->len[i]);
	}
	return 1;
}
