// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The trace program plus one auto-attached program: the skeleton's
 * __attach() goes through usdtkit's libbpf program handler and attaches
 * it to fx:three of the non-PIE fixture (FX_NOPIE, set by CMake).
 */
#include "../../trace/bpf/trace.bpf.c"

SEC("usdtkit/" FX_NOPIE ":fx:three")
int auto_three(struct pt_regs *ctx)
{
	return trace_hit(ctx);
}
