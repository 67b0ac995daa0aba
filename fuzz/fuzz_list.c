// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The whole list pipeline on an in-memory ELF image, as `usdtkit list`
 * runs it: identity, segments, sections, notes, placement, symbol
 * resolution, argument parsing, then the spec table. The input is the
 * whole image (seeds: elfgen images of every identity, the test
 * fixtures), so headers, tables and symbols are all fuzzed.
 */
#include <stdint.h>

#include "fuzz_sites.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	fz_check_image(data, size);
	return 0;
}
