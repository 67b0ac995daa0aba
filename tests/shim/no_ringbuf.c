// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * LD_PRELOAD shim: a kernel from before Linux 5.8, as far as the ring
 * buffer goes. Every bpf(BPF_MAP_CREATE) of a BPF_MAP_TYPE_RINGBUF fails
 * with EINVAL, which is what such a kernel answers for a map type it does
 * not know, so usdtkit sees no ring buffer anywhere, feature probe and
 * trace alike (tests/cli_trace_missing.sh).
 */
#define _GNU_SOURCE
#include "shim_syscall.h"

static int refuse(long cmd, const union bpf_attr *attr)
{
	return cmd == BPF_MAP_CREATE && attr->map_type == BPF_MAP_TYPE_RINGBUF;
}
