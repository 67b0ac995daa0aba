// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The trace program with room for two specs: spec-id exhaustion tests. */
#define USDTKIT_MAX_SPECS 2
#include "../../trace/bpf/trace.bpf.c"
