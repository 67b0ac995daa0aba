/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * User stack addresses -> "symbol+0xoff (object)", for the trace
 * engine's ustack key. Internal to the library (not exported).
 *
 * An address goes: the pid's /proc/PID/maps -> the executable mapping
 * that holds it and its file offset -> the object's own virtual address
 * through its PT_LOAD segments (so PIE, shared and prelinked objects
 * need no load bias) -> the nearest FUNC symbol at or before it within
 * its size, from .symtab, else from the .symtab of its separate debug
 * file (/usr/lib/debug/.build-id/, as the process's root sees it), else
 * from .dynsym (core/elf/funcs.c). The object is the path its maps line
 * names, in full (what bpftrace's ustack(perf) shows). Names are shown
 * as the symbol table has them: C++ names stay mangled (bpftrace
 * demangles unless BPFTRACE_NO_CPP_DEMANGLE=1). Nothing is escaped:
 * the caller shows the text through core/base/escape.h's rule.
 *
 * Objects are keyed by the device and inode of their maps line, so two
 * processes of one binary share one table, and a file replaced under
 * the same path is another object. Memory is bounded: at most
 * USDTKIT__SYMS_MAX_OBJECTS objects and USDTKIT__SYMS_MAX_PIDS pids are
 * cached, the least recently used going first, and at most
 * USDTKIT__SYMS_MAX_MAPS executable mappings per pid (the rest are
 * named by their address). An object's table is the size of its
 * symbol tables.
 *
 * A pid can also be kept (usdtkit__syms_keep()): its maps read and its
 * objects opened at once, through the process (its root, its map_files
 * links: a chroot's or a deleted file), and held until released, never
 * evicted, so that its frames are named after it exits. At most
 * USDTKIT__SYMS_MAX_KEPT pids are kept, and at most
 * USDTKIT__SYMS_MAX_KEPT_OBJECTS objects beyond the cache's for them
 * (objects are shared: every process of one binary holds one table).
 */
#ifndef USDTKIT_CORE_USTACK_H
#define USDTKIT_CORE_USTACK_H

#include <stddef.h>
#include <stdint.h>

#define USDTKIT__SYMS_MAX_OBJECTS 64
#define USDTKIT__SYMS_MAX_PIDS 256
#define USDTKIT__SYMS_MAX_MAPS 4096
#define USDTKIT__SYMS_MAX_KEPT 4096
#define USDTKIT__SYMS_MAX_KEPT_OBJECTS 256

struct usdtkit__syms;		/* per-object symbol tables and per-pid maps, cached */

int usdtkit__syms_new(struct usdtkit__syms **out);	/* 0 or -ENOMEM */
void usdtkit__syms_free(struct usdtkit__syms *s);

/*
 * Name user address @addr of @pid into @buf: "symbol+0xoff (object)",
 * else "0x..." (object unknown or no symbol). 0, or -ESRCH when the
 * process is gone (its maps unreadable): @buf then holds the raw
 * address, and the caller marks the stack. Tables are read once per
 * object and maps once per pid (re-read once on a miss; not for an
 * address below 64 KiB or with the top bit set, which no mapping can
 * hold). A pid whose maps were read before its exit keeps naming the
 * addresses they hold (a reused pid is seen at its first miss). A kept
 * pid's maps are read again on a miss only while it is the process it
 * was (its start time); once it has exited an address they do not hold
 * is its raw address, and 0. A @buf too
 * small gets the text cut, as snprintf() cuts it. -EINVAL: no @s, no
 * @buf, or a @len of 0.
 */
int usdtkit__syms_name(struct usdtkit__syms *s, int pid, uint64_t addr,
		       char *buf, size_t len);

/*
 * Keep @pid: its executable mappings read now, and the object of each
 * opened (loaded at once), both held until usdtkit__syms_release(). A
 * pid kept already is read again (a library loaded since; a reused pid,
 * another process now). 0; -ESRCH: its maps cannot be read (gone), and
 * what was kept of it stays; -ENOSPC: USDTKIT__SYMS_MAX_KEPT pids are
 * kept already; -ENOMEM. An object past USDTKIT__SYMS_MAX_KEPT_OBJECTS
 * is not opened now, but when a frame needs it, if it still can be.
 * -EINVAL: no @s.
 */
int usdtkit__syms_keep(struct usdtkit__syms *s, int pid);

/* @pid no longer kept: its maps and objects back in the cache, as if
 * just used (evicted in their turn). Nothing for a pid not kept. */
void usdtkit__syms_release(struct usdtkit__syms *s, int pid);

/* What the cache did, for tests: reads of objects (a debug file counts
 * with its object) and of maps files, and what it holds now. */
struct usdtkit__syms_counts {
	unsigned long object_reads;
	unsigned long maps_reads;
	size_t objects;
	size_t pids;		/* in the cache, kept ones apart */
	size_t kept, kept_objects; /* pids kept; objects they hold */
};

void usdtkit__syms_counts(const struct usdtkit__syms *s,
			  struct usdtkit__syms_counts *c);

#endif
