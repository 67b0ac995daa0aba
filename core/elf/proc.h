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
 * A path to the file the mapping [@start, @end) of @path in process @pid
 * maps, the process's root first: /proc/PID/root/<path>, or for a file
 * deleted or replaced since it was mapped (" (deleted)"), /proc/PID/
 * map_files/<start>-<end>. The caller checks the inode it opens (the
 * path may name another file by now). 0, or -ENAMETOOLONG / -EINVAL.
 */
int usdtkit__maps_kpath(int pid, const char *path, uint64_t start,
			uint64_t end, char *buf, size_t size);

/*
 * The path object @i of @p was opened through, checked to be the inode
 * the process maps: its /proc/PID/map_files link, or where that is
 * refused (unprivileged), /proc/PID/root/<path>. kern_path() resolves it
 * to that same inode, so it is the path to attach uprobes to; a
 * map_files link lasts as long as the mapping. 0, -ENAMETOOLONG,
 * -ENOENT (an object not opened), or -EINVAL.
 */
int usdtkit__proc_object_kpath(const struct usdtkit_proc *p, size_t i,
			       char *buf, size_t size);

/*
 * What a scan of many processes knows of their files, by maps' device
 * and inode: those without probes, opened once (core/elf/host.c).
 */
struct usdtkit__probe_cache;
struct usdtkit__probe_cache *usdtkit__probe_cache_new(void);
void usdtkit__probe_cache_free(struct usdtkit__probe_cache *c);
/* files opened to know whether they have probes */
size_t usdtkit__probe_cache_opened(const struct usdtkit__probe_cache *c);
/* usdtkit_proc_open() that opens no file @cache knows has no probes,
 * and tells it of those it opens; a process it cannot read is not said */
struct usdtkit_proc *usdtkit__proc_open_cached(int pid, const struct usdtkit_open_opts *opts,
					       struct usdtkit__probe_cache *cache);

#endif
