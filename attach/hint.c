// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What a refused uprobe registration probably means: the kernel answers
 * both perf-event uprobes (perf.c) and uprobe_multi links (multi.c) with
 * a bare errno.
 */
#include <errno.h>
#include <stdio.h>

#include "attach/internal.h"

/*
 * The kernel keeps one uprobe per file and offset, shared by every tracer,
 * and refuses a registration whose semaphore offset differs from the
 * existing one's with EINVAL, saying why only in its log ("ref_ctr_offset
 * mismatch"). bcc registers ref_ctr_offset 0x6 on probes that have no
 * semaphore, so this is what EINVAL on a site we parsed ourselves usually
 * means. Since 2025 ("perf: Require CAP_SYS_ADMIN for uprobes", also in
 * stable kernels) a perf-event uprobe needs CAP_SYS_ADMIN, where
 * uprobe_multi needs CAP_BPF and CAP_PERFMON.
 */
void usdtkit__uprobe_hint(char *buf, size_t size, int err,
			  const struct usdtkit_target *t, bool perf_event)
{
	buf[0] = 0;
	if (err == -EINVAL && t->ref_ctr)
		snprintf(buf, size, ": another uprobe at this site probably has a "
			 "different semaphore offset (ref_ctr_offset) than its "
			 "semaphore's 0x%llx, e.g. a bcc tracer (the kernel logs "
			 "\"ref_ctr_offset mismatch\")",
			 (unsigned long long)t->ref_ctr);
	else if (err == -EINVAL)
		snprintf(buf, size, ": another uprobe at this site probably has a "
			 "semaphore offset (ref_ctr_offset) where the probe has no "
			 "semaphore, e.g. a bcc tracer, which registers 0x6 (the "
			 "kernel logs \"ref_ctr_offset mismatch\")");
	else if (err == -EACCES && perf_event)
		snprintf(buf, size, ": perf-event uprobes need CAP_SYS_ADMIN on this "
			 "kernel; uprobe_multi links (mode multi) need only CAP_BPF "
			 "and CAP_PERFMON");
}
