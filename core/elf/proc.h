/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Process objects, as the library's other parts need them. */
#ifndef USDTKIT_CORE_PROC_H
#define USDTKIT_CORE_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <usdtkit/usdtkit.h>

/* One line of /proc/PID/maps. */
struct usdtkit__maps_line {
	uint64_t start, end, offset;
	uint64_t inode;		/* 0: not a file */
	uint32_t dev_major, dev_minor;
	bool writable, exec;
	char *path;		/* into the line, NUL-terminated: "" (anonymous),
				 * "[vdso]", or a path, " (deleted)" and all */
};

/* Parse @line in place (its newline cut): 0, or -EINVAL when it is not
 * a maps line. */
int usdtkit__maps_line_parse(char *line, struct usdtkit__maps_line *m);

/*
 * A path that reaches the inode the mapping [@start, @end) of @path in
 * process @pid maps: /proc/PID/root/<path>, or for a file deleted or
 * replaced since it was mapped (" (deleted)"), /proc/PID/map_files/
 * <start>-<end>, which open() and kern_path() follow to that inode.
 * 0, or -ENAMETOOLONG / -EINVAL.
 */
int usdtkit__maps_kpath(int pid, const char *path, uint64_t start,
			uint64_t end, char *buf, size_t size);

/*
 * A path to object @i of @p that the kernel resolves to the very inode the
 * process maps: /proc/PID/root/<path>, or for a file deleted or replaced
 * since it was mapped ("(deleted)" in maps), its /proc/PID/map_files link,
 * which kern_path() follows to that inode. 0, or -ENAMETOOLONG / -EINVAL.
 */
int usdtkit__proc_object_kpath(const struct usdtkit_proc *p, size_t i,
			       char *buf, size_t size);

#endif
