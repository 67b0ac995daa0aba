/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the attach layer tells the layers above it about its modes,
 * beyond the public API (the trace engine includes this, not
 * backend.h, which is the backends' own). */
#ifndef USDTKIT_ATTACH_MODE_H
#define USDTKIT_ATTACH_MODE_H

#include <usdtkit/attach.h>

/* backend.c: why this kernel cannot attach in @mode, and what to use
 * instead: NULL when it can (the trace engine says it in its own words) */
const char *usdtkit__mode_refusal(enum usdtkit_mode mode, const char **instead);

#endif
