/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef USDTKIT_CORE_SPECTABLE_H
#define USDTKIT_CORE_SPECTABLE_H

#include <stdbool.h>
#include <stddef.h>

#include <usdtkit/usdtkit.h>

/*
 * For the attach layer: dedup on the encoded bytes the program reads
 * (after layout and IP adjustments), which is exactly what must be equal
 * for two sites to share a spec id. *@created says whether the id is new
 * (its spec must be written to the map) or shared.
 */
int usdtkit__spec_table_get_raw(struct usdtkit_spec_table *t, const void *bytes,
				size_t len, bool *created);

#endif
