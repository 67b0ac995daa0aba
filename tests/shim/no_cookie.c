// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * LD_PRELOAD shim: a kernel from before Linux 5.15 (Debian 11's 5.10,
 * CIP's SLTS boards), as far as attaching goes. A program that calls
 * bpf_get_attach_cookie() fails to load, as "invalid func unknown#174"
 * does there; BPF_LINK_CREATE of a perf event (perf links, 5.15) or of
 * uprobe_multi (6.6) fails with EINVAL. So usdtkit sees no cookies and
 * no uprobe_multi, binds perf events with PERF_EVENT_IOC_SET_BPF, and
 * AUTO decides as on 5.10 (tests/cli_trace_inst.sh); the VMs prove the
 * same on the real kernels (tests/vm).
 */
#define _GNU_SOURCE
#include <stdint.h>

#include "shim_syscall.h"

#define UPROBE_MULTI 48	/* BPF_TRACE_UPROBE_MULTI; Debian 12's uapi lacks it */

static int calls_cookie(const union bpf_attr *attr)
{
	const struct bpf_insn *in = (const struct bpf_insn *)(uintptr_t)attr->insns;
	uint32_t i;

	for (i = 0; in && i < attr->insn_cnt; i++)
		if (in[i].code == (BPF_JMP | BPF_CALL) && !in[i].src_reg &&
		    in[i].imm == BPF_FUNC_get_attach_cookie)
			return 1;
	return 0;
}

static int refuse(long cmd, const union bpf_attr *attr)
{
	if (cmd == BPF_PROG_LOAD)
		return calls_cookie(attr);
	return cmd == BPF_LINK_CREATE &&
	       (attr->link_create.attach_type == BPF_PERF_EVENT ||
		attr->link_create.attach_type == UPROBE_MULTI);
}
