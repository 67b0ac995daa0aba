// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit_trace_frame(): the parts of a USTACK part's frame, found
 * through its frames pointer (struct trace_frames, by.c), so that
 * struct usdtkit_trace_key_value, which applications index in arrays,
 * keeps its size.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "base/opts.h"
#include "trace/internal.h"

int usdtkit_trace_frame(const struct usdtkit_trace_key_value *v, size_t i,
			struct usdtkit_trace_frame *out)
{
	size_t known = usdtkit__opts_known(usdtkit_trace_frame), sz;
	const struct trace_frames *tf;

	if (!v || !out || v->kind != USDTKIT_TRACE_PART_USTACK || !v->frames ||
	    i >= v->nframes)
		return -EINVAL;
	memcpy(&sz, out, sizeof(sz));
	if (sz < sizeof(sz))
		return -EINVAL;
	tf = (const struct trace_frames *)((const char *)v->frames -
					   offsetof(struct trace_frames, frames));
	if (tf->magic != TRACE_FRAMES_MAGIC || !tf->parts)
		return -EINVAL;
	/* the caller's sz stays; what its struct does not reach, untouched */
	memcpy((char *)out + sizeof(sz), (const char *)&tf->parts[i] + sizeof(sz),
	       (sz < known ? sz : known) - sizeof(sz));
	return 0;
}
