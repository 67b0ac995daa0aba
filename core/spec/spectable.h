/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef USDTKIT_ATTACH_SPECTABLE_H
#define USDTKIT_ATTACH_SPECTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <usdtkit/usdtkit.h>

/*
 * Spec ids for the attach layer: ids 0..capacity-1 index the BPF spec
 * map, and sites whose specs are equal share one, reference-counted.
 *
 * Not public API (it was, as usdtkit_spec_table_*): equality must be
 * decided on the bytes the BPF program reads, after the kernel's pt_regs
 * layout (an i386 target on an x86-64 kernel), the nop5 displacement and
 * the map's layout (usdtkit's or libbpf's v1/v2) have been applied. A
 * table keyed on the IR cannot know any of those, so its ids could never
 * be the ones attach writes to a map; no caller outside the library had a
 * map to use them with.
 */
struct usdtkit_spec_table;

struct usdtkit_spec_table *usdtkit__spec_table_new(uint32_t capacity);
void usdtkit__spec_table_free(struct usdtkit_spec_table *t);
/* Drop one reference; the id returns to the free list at zero. */
int usdtkit__spec_table_put(struct usdtkit_spec_table *t, int id);
uint32_t usdtkit__spec_table_used(const struct usdtkit_spec_table *t);
/*
 * Keyed on the IR (@args resolved as a site holds them, and @cookie): the
 * id/refcount/free-list logic on its own, for tests and the fuzzers; the
 * attach layer uses usdtkit__spec_table_get_raw().
 */
int usdtkit__spec_table_get(struct usdtkit_spec_table *t,
			    const struct usdtkit_arg *args, int nargs,
			    uint64_t cookie);

/*
 * For the attach layer: dedup on the encoded bytes the program reads
 * (after layout and IP adjustments), which is exactly what must be equal
 * for two sites to share a spec id. *@created says whether the id is new
 * (its spec must be written to the map) or shared.
 */
int usdtkit__spec_table_get_raw(struct usdtkit_spec_table *t, const void *bytes,
				size_t len, bool *created);

#endif
