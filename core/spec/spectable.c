// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Spec dedup. A spec's key is a canonical byte string of what the BPF side
 * reads (kinds, sizes, register offsets, displacements, pc_rel, cookie):
 * never the args text, since "-4@x(%rip)" resolves to a different
 * displacement at every site, and "%eax" and "%rax" views differ only in
 * width, which the key includes. Ids are dense: freed ids go on a free
 * list and are handed out again before new ones.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <usdtkit/usdtkit.h>

#include "spec/spectable.h"

struct entry {
	uint8_t *key;		/* NULL: id free */
	size_t len;
	uint64_t hash;
	uint32_t refs;
};

struct usdtkit_spec_table {
	uint32_t cap;
	uint32_t used;
	uint32_t next_new;	/* ids below this were handed out before */
	struct entry *ids;
	uint32_t *free_ids;	/* stack of released ids */
	uint32_t nfree;
};

/* What BPF reads of one register reference. */
struct key_reg {
	int16_t offset;
	int16_t id;
	uint8_t width, shift;
};

struct key_arg {
	uint8_t kind, size, is_signed, pc_rel, scale, status, pad[2];
	int64_t value, disp;
	struct key_reg reg, reg_hi, base, index;
};

static void key_reg(struct key_reg *k, const struct usdtkit_reg *r)
{
	memset(k, 0, sizeof(*k));
	k->id = r->id;
	if (r->id < 0)
		return;
	k->offset = r->offset;
	k->width = r->width;
	k->shift = r->shift;
}

static size_t make_key(uint8_t *out, const struct usdtkit_arg *args, int n,
		       uint64_t cookie)
{
	size_t len = 0;
	int i;

	memcpy(out, &cookie, sizeof(cookie));
	len += sizeof(cookie);
	for (i = 0; i < n; i++) {
		const struct usdtkit_arg *a = &args[i];
		struct key_arg k;

		memset(&k, 0, sizeof(k));
		k.kind = a->kind;
		k.size = (uint8_t)a->size;
		k.is_signed = a->is_signed && !a->is_float;
		k.pc_rel = a->pc_rel;
		k.scale = a->scale;
		k.status = a->status;
		k.value = a->kind == USDTKIT_LOC_CONST ? a->value : 0;
		k.disp = a->kind == USDTKIT_LOC_MEM ? a->disp : 0;
		key_reg(&k.reg, &a->reg);
		key_reg(&k.reg_hi, &a->reg_hi);
		key_reg(&k.base, &a->base);
		key_reg(&k.index, &a->index);
		memcpy(out + len, &k, sizeof(k));
		len += sizeof(k);
	}
	return len;
}

/* FNV-style over 8-byte words: keys are a few hundred bytes, hashed once
 * per attached site */
static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull, w;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	for (; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

struct usdtkit_spec_table *usdtkit__spec_table_new(uint32_t capacity)
{
	struct usdtkit_spec_table *t;

	if (!capacity || capacity > (1u << 24)) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->cap = capacity;
	t->ids = calloc(capacity, sizeof(*t->ids));
	t->free_ids = calloc(capacity, sizeof(*t->free_ids));
	if (!t->ids || !t->free_ids) {
		usdtkit__spec_table_free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void usdtkit__spec_table_free(struct usdtkit_spec_table *t)
{
	uint32_t i;

	if (!t)
		return;
	for (i = 0; t->ids && i < t->next_new; i++)
		free(t->ids[i].key);
	free(t->ids);
	free(t->free_ids);
	free(t);
}

/* Linear scan of live ids: tables are small (BPF map sized), and attach
 * dedups once per site, so this stays off any hot path. */
static int find(const struct usdtkit_spec_table *t, const uint8_t *key,
		size_t len, uint64_t h)
{
	uint32_t i;

	for (i = 0; i < t->next_new; i++) {
		const struct entry *e = &t->ids[i];

		if (e->key && e->hash == h && e->len == len &&
		    !memcmp(e->key, key, len))
			return (int)i;
	}
	return -1;
}

static int alloc_id(struct usdtkit_spec_table *t)
{
	if (t->nfree)
		return (int)t->free_ids[--t->nfree];
	if (t->next_new < t->cap)
		return (int)t->next_new++;
	return -E2BIG;
}

/* Look @key up, or give it a new id with a copy of @key. */
static int get_key(struct usdtkit_spec_table *t, const uint8_t *key, size_t len,
		   bool *created)
{
	uint64_t h = hash_bytes(key, len);
	int id = find(t, key, len, h);
	uint8_t *copy;

	*created = false;
	if (id >= 0) {
		t->ids[id].refs++;
		return id;
	}
	copy = malloc(len);
	if (!copy)
		return -ENOMEM;
	id = alloc_id(t);
	if (id < 0) {
		free(copy);
		return id;
	}
	memcpy(copy, key, len);
	t->ids[id] = (struct entry){ .key = copy, .len = len, .hash = h, .refs = 1 };
	t->used++;
	*created = true;
	return id;
}

int usdtkit__spec_table_get(struct usdtkit_spec_table *t,
			   const struct usdtkit_arg *args, int nargs,
			   uint64_t cookie)
{
	size_t max = sizeof(uint64_t) + (size_t)nargs * sizeof(struct key_arg);
	bool created;
	uint8_t *key;
	int id;

	if (!t || nargs < 0 || (nargs && !args))
		return -EINVAL;
	key = malloc(max);
	if (!key)
		return -ENOMEM;
	id = get_key(t, key, make_key(key, args, nargs, cookie), &created);
	free(key);
	return id;
}

int usdtkit__spec_table_get_raw(struct usdtkit_spec_table *t, const void *bytes,
				size_t len, bool *created)
{
	if (!t || !bytes || !len || !created)
		return -EINVAL;
	return get_key(t, bytes, len, created);
}

int usdtkit__spec_table_put(struct usdtkit_spec_table *t, int id)
{
	struct entry *e;

	if (!t || id < 0 || (uint32_t)id >= t->next_new || !t->ids[id].key)
		return -EINVAL;
	e = &t->ids[id];
	if (--e->refs)
		return 0;
	free(e->key);
	e->key = NULL;
	t->free_ids[t->nfree++] = (uint32_t)id;
	t->used--;
	return 0;
}

uint32_t usdtkit__spec_table_used(const struct usdtkit_spec_table *t)
{
	return t ? t->used : 0;
}
