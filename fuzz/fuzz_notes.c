// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The .note.stapsdt decoder, fed in-memory ELF images: the first input
 * byte picks the identity (class, byte order, machine), the second the
 * image's shape, the rest is the raw note section, which tests/helpers/elfgen.h
 * wraps into a well-formed image so every execution reaches the decoder.
 *
 * Checks: the decoder directly (both classes and byte orders on the same
 * bytes) hands out notes in order, inside the section, with terminated
 * non-empty strings; then the whole open agrees with it and every site
 * passes the list pipeline's checks.
 */
#include <stdint.h>

#include "elf/file.h"
#include "fuzz_sites.h"
#include "fuzz_targets.h"

struct decoded {
	const uint8_t *data;
	size_t size;
	uint64_t next;		/* notes come in order, never overlapping */
	size_t good;
};

static int on_note(void *ctx, const struct usdtkit_raw_note *n)
{
	struct decoded *d = ctx;
	const char *lo = (const char *)d->data, *hi = lo + d->size;

	FUZZ_ASSERT(n->offset >= d->next && n->offset % 4 == 0 &&
			    n->offset + 12 <= d->size,
		    "note %u at %llu (previous ended at %llu)", n->index,
		    (unsigned long long)n->offset, (unsigned long long)d->next);
	FUZZ_ASSERT(n->provider_len && n->name_len, "empty provider or name");
	FUZZ_ASSERT(n->provider >= lo && n->provider + n->provider_len < hi &&
			    !n->provider[n->provider_len] &&
			    strlen(n->provider) == n->provider_len,
		    "provider outside the section or not terminated");
	FUZZ_ASSERT(n->name > n->provider + n->provider_len &&
			    n->name + n->name_len < hi && !n->name[n->name_len] &&
			    strlen(n->name) == n->name_len,
		    "name outside the section or not terminated");
	FUZZ_ASSERT(n->args > n->name + n->name_len && n->args + n->args_len < hi &&
			    !n->args[n->args_len] && strlen(n->args) == n->args_len,
		    "args outside the section or not terminated");
	d->next = (uint64_t)(n->args + n->args_len + 1 - lo);
	d->good++;
	return 0;
}

static size_t decode(const uint8_t *p, size_t size, bool is64, bool be,
		     size_t *bad)
{
	struct usdtkit_log lg = { .print = fz_print };
	struct decoded d = { .data = p, .size = size };

	*bad = usdtkit__notes_decode(&lg, "fuzz", p, size, is64, be, on_note, &d);
	/* every 12 bytes of section make at most one note, good or bad */
	FUZZ_ASSERT(d.good + *bad <= size / 12 + 1, "%zu good, %zu bad in %zu bytes",
		    d.good, *bad, size);
	return d.good;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct usdtkit_arch_info *t;
	struct eg_buf img = { 0 };
	size_t good[4], bad[4], notes_size;
	const uint8_t *notes;
	uint8_t *copy;
	long sites;
	int k;

	if (size < 2 || size > 65536)
		return 0;
	t = &fz_targets[data[0] % FZ_NTARGETS];
	notes = data + 2;
	notes_size = size - 2;
	/* an exact-size copy: the decoder must not read past the section */
	copy = malloc(notes_size ? notes_size : 1);
	FUZZ_ASSERT(copy, "out of memory");
	memcpy(copy, notes, notes_size);
	for (k = 0; k < 4; k++)
		good[k] = decode(copy, notes_size, k & 1, k & 2, &bad[k]);
	free(copy);

	fz_build(t, data[1], notes, notes_size, &img);
	sites = fz_check_image(img.p, img.len);
	k = (t->elf_class == EG_ELFCLASS64) | (t->elf_data == EG_MSB) << 1;
	/* the open decodes the same section: same good notes (unless there
	 * are no program headers, or libelf refused what elfgen built) */
	if (sites >= 0)
		FUZZ_ASSERT((size_t)sites == good[k], "open found %ld sites, decoder %zu",
			    sites, good[k]);
	eg_free(&img);
	return 0;
}
