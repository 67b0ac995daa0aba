// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The trace program with every CPU read as CPU 0: hits on two CPUs
 * contend for one slot all the time, as a preempted or sleeping hit makes
 * them contend on one CPU, and the losers take spares
 * (test_trace_slots.c).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define bpf_get_smp_processor_id() 0
#include "../../trace/bpf/trace.bpf.c"
