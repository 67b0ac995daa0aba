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
 * names, in full (what bpftrace's ustack(perf) shows). C++ names are
 * demangled when libstdc++'s demangler is there (core/elf/demangle.c),
 * the mangled name kept beside. Nothing is escaped: the caller shows
 * the text through core/base/escape.h's rule.
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

/* usdtkit__syms_lookup()'s flags */
#define USDTKIT__SYMS_RETURN 1u	/* a return address (every frame but the
				 * first): looked up at @addr - 1, since a
				 * call that ends its function returns to
				 * the next one's first byte */

/* What names a frame. Pointers valid until the next call on the
 * symbolizer. */
struct usdtkit__sym {
	const char *name;	/* the symbol, demangled; NULL: none covers it */
	const char *mangled;	/* the table's name when demangled, else NULL */
	uint64_t offset;	/* @addr - the symbol's start (a return
				 * address: up to the symbol's size) */
	const char *object;	/* the maps' path of its file (a '/' first),
				 * or of a mapping without one: its maps
				 * name ("[vdso]") or "[anon]"; NULL: in no
				 * executable mapping */
	uint64_t address;	/* a file: the object's virtual address of
				 * @addr (its file offset when the file
				 * cannot be read); else the offset into
				 * the mapping */
};

/*
 * What names user address @addr of @pid. 0, or -ESRCH when the process
 * is gone (its maps unreadable): @out then names nothing, and the
 * caller marks the stack. Tables are read once per object and maps once
 * per pid (re-read once on a miss; not for an address below 64 KiB or
 * with the top bit set, which no mapping can hold). A pid whose maps
 * were read before its exit keeps naming the addresses they hold (a
 * reused pid is seen at its first miss). A kept pid's maps are read
 * again on a miss only while it is the process it was (its start time);
 * once it has exited an address they do not hold names nothing, and 0.
 * -EINVAL: no @s or no @out.
 */
int usdtkit__syms_lookup(struct usdtkit__syms *s, int pid, uint64_t addr,
			 unsigned int flags, struct usdtkit__sym *out);

/*
 * The text of @sym (of @addr) into @buf, cut as snprintf() cuts:
 * "symbol+0xoff (object)"; no symbol: "objbasename+0xaddress (object)";
 * a mapping without a file: "[vdso]+0xoff"; in no mapping: "0x<addr>".
 */
void usdtkit__sym_text(const struct usdtkit__sym *sym, uint64_t addr, char *buf,
		       size_t len);

/* usdtkit__syms_lookup() and usdtkit__sym_text() in one: @buf holds the
 * raw address on an error. -EINVAL: no @s, no @buf, or a @len of 0. */
int usdtkit__syms_name(struct usdtkit__syms *s, int pid, uint64_t addr,
		       unsigned int flags, char *buf, size_t len);

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
