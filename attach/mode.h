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

/* backend.c: does @mode find specs by absolute address (ipmap, hwbp)? */
bool usdtkit__mode_by_address(enum usdtkit_mode mode);

struct usdtkit_file;

/*
 * attach.c: can no uprobe trace PROVIDER:NAME of @f (NULL: any) on this
 * kernel, where a hardware breakpoint can (mode hwbp)? A 32-bit arm
 * object on an arm64 kernel, or a site in Thumb code.
 */
bool usdtkit__needs_breakpoints(const struct usdtkit_file *f, const char *provider,
				const char *name);

#endif
