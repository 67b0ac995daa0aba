/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Process objects, as the library's other parts need them. */
#ifndef USDTKIT_CORE_PROC_H
#define USDTKIT_CORE_PROC_H

#include <stddef.h>

#include <usdtkit/usdtkit.h>

/*
 * A path to object @i of @p that the kernel resolves to the very inode the
 * process maps: /proc/PID/root/<path>, or for a file deleted or replaced
 * since it was mapped ("(deleted)" in maps), its /proc/PID/map_files link,
 * which kern_path() follows to that inode. 0, or -ENAMETOOLONG / -EINVAL.
 */
int usdtkit__proc_object_kpath(const struct usdtkit_proc *p, size_t i,
			       char *buf, size_t size);

#endif
