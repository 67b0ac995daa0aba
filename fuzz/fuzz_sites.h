/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Checks on an opened ELF image, shared by the notes and the list
 * harnesses: every site is whole (strings terminated, arguments as the
 * spec harnesses check them), a placed site points into the file, counts
 * are bounded by the input, and the spec table gives one id per distinct
 * spec and takes every reference back.
 */
#ifndef USDTKIT_FUZZ_SITES_H
#define USDTKIT_FUZZ_SITES_H

#include "fuzz_check.h"
#include "spec/spectable.h"

/* Diagnostics: each is one line, never empty, never with a newline. */
static inline void fz_print(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	size_t n = strlen(msg);

	(void)ctx;
	FUZZ_ASSERT(level <= USDTKIT_LOG_DEBUG, "log level %d", level);
	FUZZ_ASSERT(n && !memchr(msg, '\n', n), "message \"%s\"", msg);
}

static inline void fz_check_site(const struct usdtkit_file *f,
			  const struct usdtkit_site *s, size_t image_size)
{
	const struct usdtkit_arch *arch = usdtkit_file_arch(f);
	const char *args = usdtkit_site_args_text(s);
	size_t len = strlen(args);
	int n = usdtkit_site_arg_count(s), i, st = usdtkit_site_status(s);
	uint64_t off;

	FUZZ_ASSERT(*usdtkit_site_provider(s) && *usdtkit_site_name(s),
		    "empty provider or name");
	FUZZ_ASSERT(len < image_size, "args text longer than the file");
	FUZZ_ASSERT(n >= 0 && (size_t)n <= len, "%d args in %zu bytes", n, len);
	FUZZ_ASSERT(st <= 0 && (st == 0) == (usdtkit_site_error(s) == NULL),
		    "status %d, error %s", st,
		    usdtkit_site_error(s) ? usdtkit_site_error(s) : "(none)");
	if (st == 0) {
		off = usdtkit_site_pc_offset(s);
		FUZZ_ASSERT(off < image_size, "pc at file offset %llu of %zu",
			    (unsigned long long)off, image_size);
	}
	off = usdtkit_site_nop5_offset(s);
	FUZZ_ASSERT(!off || (off < image_size && image_size - off >= 5),
		    "nop5 at file offset %llu of %zu", (unsigned long long)off,
		    image_size);
	for (i = 0; i < n; i++)
		FUZZ_ASSERT(usdtkit_site_arg(s, i), "arg %d of %d missing", i, n);
	if (n)
		fz_check_args(arch, args, len, usdtkit_site_arg(s, 0), n);
	for (i = 0; i < n; i++)
		fz_check_eval(arch, usdtkit_site_arg(s, i), (uint64_t)i);
}

/* Give every site's spec an id in a small table (ids run out: -E2BIG),
 * check equal specs share ids, then return every reference. */
static inline void fz_check_spec_table(const struct usdtkit_file *f)
{
	size_t nsites = usdtkit_file_site_count(f), i;
	struct usdtkit_spec_table *t = usdtkit__spec_table_new(8);
	int *ids = calloc(nsites ? nsites : 1, sizeof(*ids));

	FUZZ_ASSERT(t && ids, "out of memory");
	for (i = 0; i < nsites; i++) {
		const struct usdtkit_site *s = usdtkit_file_site(f, i);
		int n = usdtkit_site_arg_count(s);

		ids[i] = usdtkit__spec_table_get(t, n ? usdtkit_site_arg(s, 0) : NULL,
						n, 7);
		FUZZ_ASSERT(ids[i] == -E2BIG || (ids[i] >= 0 && ids[i] < 8),
			    "id %d", ids[i]);
		FUZZ_ASSERT(usdtkit__spec_table_used(t) <= 8, "%u ids in use",
			    usdtkit__spec_table_used(t));
	}
	/* a second reference to the same spec is the same id */
	for (i = 0; i < nsites && i < 64; i++) {
		const struct usdtkit_site *s = usdtkit_file_site(f, i);
		int n = usdtkit_site_arg_count(s), id;

		if (ids[i] < 0)
			continue;
		id = usdtkit__spec_table_get(t, n ? usdtkit_site_arg(s, 0) : NULL, n, 7);
		FUZZ_ASSERT(id == ids[i], "same spec, ids %d and %d", ids[i], id);
		FUZZ_ASSERT(!usdtkit__spec_table_put(t, id), "put");
	}
	for (i = 0; i < nsites; i++) {
		if (ids[i] < 0)
			continue;
		FUZZ_ASSERT(!usdtkit__spec_table_put(t, ids[i]), "put %d", ids[i]);
	}
	FUZZ_ASSERT(usdtkit__spec_table_used(t) == 0, "%u ids left in use",
		    usdtkit__spec_table_used(t));
	FUZZ_ASSERT(usdtkit__spec_table_put(t, 0) == -EINVAL, "put of a free id");
	usdtkit__spec_table_free(t);
	free(ids);
}

/* Open @size bytes of image and check everything the list pipeline
 * computes. Returns the number of sites (-1 when refused). */
static inline long fz_check_image(const uint8_t *img, size_t size)
{
	USDTKIT_OPTS(usdtkit_open_opts, o, .print = fz_print,
		     .name = "fuzz");
	const struct usdtkit_site *s = NULL;
	struct usdtkit_file *f;
	size_t n, i, seen = 0;

	errno = 0;
	f = usdtkit_file_open_mem(img, size, &o);
	if (!f) {
		FUZZ_ASSERT(errno > 0, "refused without errno");
		return -1;
	}
	n = usdtkit_file_site_count(f);
	/* a note is at least a 12-byte header and an 8-byte owner */
	FUZZ_ASSERT(n + usdtkit_file_bad_notes(f) <= size / 12 + 1,
		    "%zu sites and %zu bad notes in %zu bytes", n,
		    usdtkit_file_bad_notes(f), size);
	for (i = 0; i < n; i++)
		fz_check_site(f, usdtkit_file_site(f, i), size);
	while ((s = usdtkit_file_next_site(f, s, NULL, NULL)))
		seen++;
	FUZZ_ASSERT(seen == n, "iterated %zu of %zu sites", seen, n);
	FUZZ_ASSERT(!usdtkit_file_site(f, n), "site past the end");
	fz_check_spec_table(f);
	usdtkit_file_close(f);
	return (long)n;
}

#endif /* USDTKIT_FUZZ_SITES_H */
