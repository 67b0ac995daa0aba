/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Attaching at a process read once, for the rooms above (process
 * watching attaches the objects a process maps later, one read of its
 * maps for every probe). */
#ifndef USDTKIT_ATTACH_PROC_H
#define USDTKIT_ATTACH_PROC_H

#include <stdbool.h>

#include <usdtkit/attach.h>

/*
 * usdtkit_attach_pid() at @proc as it was read, at its objects i with
 * @only[i] (every object when @only is NULL; @only has one entry per
 * object). The pid filter is @proc's pid (none with opts->any_process).
 * NULL with errno; ENOENT when none of them has the probe.
 */
struct usdtkit_link *usdtkit__attach_proc(struct bpf_program *prog,
					  const struct usdtkit_proc *proc,
					  const bool *only, const char *provider,
					  const char *name,
					  const struct usdtkit_attach_opts *opts);

#endif
