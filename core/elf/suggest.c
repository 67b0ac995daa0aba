// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * "no probe ruby:method_entry" names the nearest probe the file has
 * ("ruby:method__entry"), by edit distance over PROVIDER:NAME, when one
 * is close enough to be a typo rather than another probe: trace's
 * targets and list's -P filters both say it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usdtkit/usdtkit.h>

/* Levenshtein distance of @a and @b, at most @cap (a probe name is short:
 * one row of @b's length + 1, bounded) */
static size_t edit_distance(const char *a, const char *b, size_t cap)
{
	size_t lb = strlen(b), i, j, *row, d;

	if (lb > 512)
		return cap;
	row = malloc((lb + 1) * sizeof(*row));
	if (!row)
		return cap;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; a[i - 1]; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	d = row[lb];
	free(row);
	return d < cap ? d : cap;
}

/* a quarter of the name asked for, at least 2: a typo, not another probe */
bool usdtkit_file_nearest_probe(const struct usdtkit_file *f, const char *prov,
				const char *name, char *buf, size_t len, size_t *best)
{
	const struct usdtkit_site *s = NULL;
	char want[512], have[512];
	size_t cap, d;
	bool found = false;

	if (!f || !prov || !name || !buf || !len || !best)
		return false;
	snprintf(want, sizeof(want), "%s:%s", prov, name);
	cap = strlen(want) / 4 > 2 ? strlen(want) / 4 : 2;
	while ((s = usdtkit_file_next_site(f, s, NULL, NULL))) {
		snprintf(have, sizeof(have), "%s:%s", usdtkit_site_provider(s),
			 usdtkit_site_name(s));
		d = edit_distance(want, have, cap + 1);
		if (d <= cap && d < *best) {
			*best = d;
			snprintf(buf, len, "%s", have);
			found = true;
		}
	}
	return found;
}
