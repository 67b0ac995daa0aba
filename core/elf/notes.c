// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * .note.stapsdt decoding from the raw section bytes, in the file's own
 * byte order and class, on any host. Every size is checked against the
 * section before it is used: a bad note is reported with its index and
 * byte offset and skipped; when its sizes cannot be trusted to find the
 * next note, decoding stops there and the good notes so far stand.
 */
#include <string.h>

#include "base/bytes.h"
#include "elf/file.h"

#define NT_STAPSDT 3
#define NOTE_ALIGN 4

static uint64_t align_up(uint64_t v)
{
	return (v + NOTE_ALIGN - 1) & ~(uint64_t)(NOTE_ALIGN - 1);
}

/* The string at [*p, end): its length, advancing *p past the NUL. */
static int take_str(const uint8_t **p, const uint8_t *end, const char **s,
		    size_t *len)
{
	const uint8_t *nul = memchr(*p, 0, (size_t)(end - *p));

	if (!nul)
		return -1;
	*s = (const char *)*p;
	*len = (size_t)(nul - *p);
	*p = nul + 1;
	return 0;
}

struct note_ctx {
	const struct usdtkit_log *lg;
	const char *fname;
	size_t bad;
};

static void bad_note(struct note_ctx *c, uint32_t index, uint64_t off,
		     const char *why)
{
	c->bad++;
	usdtkit__warn(c->lg, "%s: .note.stapsdt note %u at byte offset %llu: %s",
		      c->fname, index, (unsigned long long)off, why);
}

/* Decode the descriptor of a stapsdt note into @n; NULL or the reason. */
static const char *decode_desc(const uint8_t *d, size_t size, bool is64,
			       bool be, struct usdtkit_raw_note *n)
{
	size_t asz = is64 ? 8 : 4;
	const uint8_t *p = d + 3 * asz, *end = d + size;

	if (size < 3 * asz + 3)
		return "descriptor too short for pc, base, semaphore and strings";
	n->pc = usdtkit__get_uint(d, asz, be);
	n->base = usdtkit__get_uint(d + asz, asz, be);
	n->sema = usdtkit__get_uint(d + 2 * asz, asz, be);
	if (take_str(&p, end, &n->provider, &n->provider_len))
		return "provider string is not terminated";
	if (take_str(&p, end, &n->name, &n->name_len))
		return "name string is not terminated";
	if (take_str(&p, end, &n->args, &n->args_len))
		return "arguments string is not terminated";
	if (!n->provider_len)
		return "empty provider";
	if (!n->name_len)
		return "empty probe name";
	return NULL;
}

size_t usdtkit__notes_decode(const struct usdtkit_log *lg, const char *fname,
			     const uint8_t *data, size_t size, bool is64,
			     bool be, usdtkit_note_fn fn, void *ctx)
{
	struct note_ctx c = { .lg = lg, .fname = fname };
	uint64_t off = 0;
	uint32_t index = 0;

	for (; off < size; index++) {
		struct usdtkit_raw_note n = { .index = index, .offset = off };
		uint64_t namesz, descsz, type, desc_off, next;
		const char *why;

		if (size - off < 12) {
			bad_note(&c, index, off, "truncated note header");
			break;
		}
		namesz = usdtkit__get_uint(data + off, 4, be);
		descsz = usdtkit__get_uint(data + off + 4, 4, be);
		type = usdtkit__get_uint(data + off + 8, 4, be);
		/* 64-bit arithmetic: 32-bit sizes cannot overflow it */
		desc_off = align_up(off + 12 + namesz);
		next = align_up(desc_off + descsz);
		if (desc_off + descsz > size) {
			bad_note(&c, index, off, "note sizes run past the section");
			break;
		}
		if (namesz != 8 || memcmp(data + off + 12, "stapsdt", 8) != 0) {
			bad_note(&c, index, off, "owner is not \"stapsdt\"");
		} else if (type != NT_STAPSDT) {
			bad_note(&c, index, off, "note type is not 3 (NT_STAPSDT)");
		} else if ((why = decode_desc(data + desc_off, descsz, is64, be, &n))) {
			bad_note(&c, index, off, why);
		} else if (fn(ctx, &n) < 0) {
			break;
		}
		off = next;
	}
	return c.bad;
}
