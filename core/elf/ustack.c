// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * User stack addresses named, with a cache of per-pid maps and
 * per-object function tables: see ustack.h. A frame no symbol names
 * shows where it is instead: its object and the object's address (a
 * file that is not ELF, truncated or unreadable: the file offset), or
 * the name of a mapping without a file ([vdso], "[anon]" for JIT code)
 * and the offset into it; only an address in no mapping shows itself.
 * Only a pid whose maps cannot be read is an error (-ESRCH).
 */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/pid_index.h"
#include "base/u64_index.h"
#include "elf/demangle.h"
#include "elf/funcs.h"
#include "elf/proc.h"
#include "elf/ustack.h"

struct obj {
	uint64_t dev, ino;
	struct usdtkit__funcs *funcs;	/* NULL: unreadable, names nothing */
	uint64_t used;			/* tick of the last use */
	unsigned int pins;		/* mappings of kept pids: never evicted */
};

/* An executable mapping of a pid. */
struct xmap {
	uint64_t start, end, offset;
	uint64_t dev, ino;
	char *path;		/* NULL: not a file ([vdso], anonymous, JIT) */
	char *label;		/* not a file: its maps name ("[vdso]"), or NULL */
	bool pinned;		/* of a kept pid, and its object holds a pin */
};

struct pidmaps {
	int pid;		/* first: core/base/pid_index.h */
	uint64_t used;
	uint64_t start;		/* kept: the process's start time */
	struct xmap *maps;	/* in address order, as maps lists them */
	size_t n;
};

#define OBJS_CAP (USDTKIT__SYMS_MAX_OBJECTS + USDTKIT__SYMS_MAX_KEPT_OBJECTS)

struct usdtkit__syms {
	uint64_t tick;
	size_t nobjs, npinned;		/* npinned: objects with pins */
	size_t npids;
	struct obj objs[OBJS_CAP];
	struct pidmaps pids[USDTKIT__SYMS_MAX_PIDS];	/* the cache */
	struct pidmaps *kept;		/* kept pids, by pid */
	size_t nkept, kept_cap;
	struct usdtkit__syms_counts counts;
	struct usdtkit__demangler dm;	/* its text: the last frame's name */
};

int usdtkit__syms_new(struct usdtkit__syms **out)
{
	if (!out)
		return -EINVAL;
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static void maps_free(struct pidmaps *pm)
{
	size_t i;

	for (i = 0; i < pm->n; i++) {
		free(pm->maps[i].path);
		free(pm->maps[i].label);
	}
	free(pm->maps);
	pm->maps = NULL;
	pm->n = 0;
}

void usdtkit__syms_free(struct usdtkit__syms *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nobjs; i++)
		usdtkit__funcs_free(s->objs[i].funcs);
	for (i = 0; i < s->npids; i++)
		maps_free(&s->pids[i]);
	for (i = 0; i < s->nkept; i++)
		maps_free(&s->kept[i]);
	free(s->kept);
	usdtkit__demangler_fini(&s->dm);
	free(s);
}

void usdtkit__syms_counts(const struct usdtkit__syms *s,
			  struct usdtkit__syms_counts *c)
{
	*c = s->counts;
	c->objects = s->nobjs;
	c->pids = s->npids;
	c->kept = s->nkept;
	c->kept_objects = s->npinned;
}

/* ---- per-pid maps ---- */

static int add_xmap(struct pidmaps *pm, size_t *cap,
		    const struct usdtkit__maps_line *l)
{
	struct xmap *x;

	if (pm->n == *cap) {
		size_t n = *cap ? *cap * 2 : 32;
		void *p = realloc(pm->maps, n * sizeof(*pm->maps));

		if (!p)
			return -ENOMEM;
		pm->maps = p;
		*cap = n;
	}
	x = &pm->maps[pm->n];
	*x = (struct xmap){ .start = l->start, .end = l->end, .offset = l->offset,
			    .dev = (uint64_t)l->dev_major << 32 | l->dev_minor,
			    .ino = l->inode };
	if (l->path[0] == '/' && l->inode) {
		x->path = strdup(l->path);
		if (!x->path)
			return -ENOMEM;
	} else if (l->path[0] == '[') {
		x->label = strdup(l->path);
		if (!x->label)
			return -ENOMEM;
	}
	pm->n++;
	return 0;
}

/* no spare room: a pid kept for the stacks of many short processes
 * holds its few mappings for long (32 slots were 1.8 KB each) */
static void maps_fit(struct pidmaps *pm, size_t cap)
{
	void *p;

	if (!pm->maps || pm->n == cap)
		return;
	p = realloc(pm->maps, pm->n * sizeof(*pm->maps));
	if (p)
		pm->maps = p;
}

/*
 * The executable mappings of @pm->pid, at most USDTKIT__SYMS_MAX_MAPS.
 * -ESRCH when the maps cannot be read, or read empty (a process that
 * has exited but is not yet reaped has no mappings).
 */
static int read_maps(struct usdtkit__syms *s, struct pidmaps *pm)
{
	struct usdtkit__maps_line l;
	char fname[64], *line = NULL;
	size_t cap = 0, lcap = 0, lines = 0;
	int err = 0;
	FILE *f;

	s->counts.maps_reads++;
	snprintf(fname, sizeof(fname), "/proc/%d/maps", pm->pid);
	f = pm->pid > 0 ? fopen(fname, "re") : NULL;
	if (!f)
		return -ESRCH;
	while (!err && getline(&line, &lcap, f) > 0) {
		lines++;
		if (usdtkit__maps_line_parse(line, &l) || !l.exec ||
		    pm->n >= USDTKIT__SYMS_MAX_MAPS)
			continue;
		err = add_xmap(pm, &cap, &l);
	}
	if (!err && (ferror(f) || !lines))
		err = -ESRCH;
	free(line);
	fclose(f);
	if (err)
		maps_free(pm);
	else
		maps_fit(pm, cap);
	return err == -ENOMEM ? -ENOMEM : err ? -ESRCH : 0;
}

/* The index in s->kept where @pid is, or would go (pid first). */
static size_t kept_index(const struct usdtkit__syms *s, int pid)
{
	return usdtkit__pid_index(s->kept, s->nkept, sizeof(*s->kept), pid);
}

static struct pidmaps *find_kept(struct usdtkit__syms *s, int pid)
{
	size_t i = kept_index(s, pid);

	return i < s->nkept && s->kept[i].pid == pid ? &s->kept[i] : NULL;
}

static bool is_kept(const struct usdtkit__syms *s, const struct pidmaps *pm)
{
	return s->nkept && pm >= s->kept && pm < s->kept + s->nkept;
}

static struct pidmaps *find_cached(struct usdtkit__syms *s, int pid)
{
	size_t i;

	for (i = 0; i < s->npids; i++)
		if (s->pids[i].pid == pid)
			return &s->pids[i];
	return NULL;
}

static struct pidmaps *find_pid(struct usdtkit__syms *s, int pid)
{
	struct pidmaps *pm = find_kept(s, pid);

	return pm ? pm : find_cached(s, pid);
}

/* A free slot of s->pids: a new one, else the least recently used. */
static struct pidmaps *pid_slot(struct usdtkit__syms *s)
{
	struct pidmaps *pm = &s->pids[0];
	size_t i;

	if (s->npids < USDTKIT__SYMS_MAX_PIDS)
		return &s->pids[s->npids++];
	for (i = 1; i < s->npids; i++)
		if (s->pids[i].used < pm->used)
			pm = &s->pids[i];
	maps_free(pm);
	return pm;
}

static const struct xmap *find_map(const struct pidmaps *pm, uint64_t addr)
{
	/* the first mapping that ends past @addr: it holds it, or none does */
	size_t lo = usdtkit__u64_above(pm->maps, pm->n, sizeof(*pm->maps),
				       offsetof(struct xmap, end), addr);

	return lo < pm->n && pm->maps[lo].start <= addr ? &pm->maps[lo] : NULL;
}

/*
 * Could @addr ever be mapped? Not below the lowest address Linux maps by
 * default (vm.mmap_min_addr, 64 KiB), nor with the top bit set (kernel
 * space on every 64-bit arch): such a frame is garbage from code
 * without frame pointers, and reading the maps again cannot name it.
 */
static bool mappable(uint64_t addr)
{
	return addr >= 0x10000 && !(addr >> 63);
}

/*
 * The start time of process @pid (field 22 of /proc/PID/stat, after the
 * name, which may hold spaces and parentheses): what tells the process
 * kept from another that got its pid since. 0 or -ESRCH.
 */
static int proc_start(int pid, uint64_t *start)
{
	char fname[64], buf[1024], *p;
	unsigned long long st;
	size_t n;
	FILE *f;

	snprintf(fname, sizeof(fname), "/proc/%d/stat", pid);
	f = pid > 0 ? fopen(fname, "re") : NULL;
	if (!f)
		return -ESRCH;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u "
			 "%*d %*d %*d %*d %*d %*d %llu", &st) != 1)
		return -ESRCH;
	*start = st;
	return 0;
}

/*
 * A kept pid's miss: its maps read again while it is the process that
 * was kept (a library it loaded since); once it has exited, or its pid
 * is another process's, the maps kept are all there is to name with.
 */
static void kept_miss(struct usdtkit__syms *s, int pid, uint64_t start,
		      uint64_t addr, const struct xmap **out)
{
	struct pidmaps *pm;
	uint64_t now;

	*out = NULL;
	if (proc_start(pid, &now) || now != start || usdtkit__syms_keep(s, pid))
		return;
	pm = find_kept(s, pid);
	if (pm)
		*out = find_map(pm, addr);
}

/*
 * The mapping of @addr in @pid: the maps are read once, and read again
 * when the address is in none of them (a library dlopen()ed since).
 * -ESRCH: the maps could not be read when they had to be; those read
 * before stay, so the frames of a process that has exited since are
 * still named.
 */
static int lookup_map(struct usdtkit__syms *s, int pid, uint64_t addr,
		      const struct xmap **out)
{
	struct pidmaps *pm = find_pid(s, pid), next = { .pid = pid };
	int err;

	if (pm) {
		pm->used = s->tick;
		*out = find_map(pm, addr);
		if (*out || !mappable(addr))
			return 0;
		if (is_kept(s, pm)) {
			kept_miss(s, pid, pm->start, addr, out);
			return 0;
		}
	}
	err = read_maps(s, &next);
	if (err)
		return err;
	if (pm)
		maps_free(pm);
	else
		pm = pid_slot(s);
	*pm = next;
	pm->used = s->tick;
	*out = find_map(pm, addr);
	return 0;
}

/* ---- objects ---- */

/* The file @x maps, opened, if it is that inode still. */
static int open_checked(const char *path, const struct xmap *x)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_ino != x->ino) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Open the object of @x: through the process's root (a container's
 * filesystem) or, for a "(deleted)" file, its map_files link
 * (core/elf/proc.c's rule); when that path now names another inode (the
 * file was replaced), through the map_files link, which reaches the very
 * inode mapped. The maps line's device is not compared: overlayfs shows
 * another there than fstat() does.
 */
static int open_object(int pid, const struct xmap *x)
{
	char path[4200];
	int fd = -1;

	if (!usdtkit__maps_kpath(pid, x->path, x->start, x->end, path, sizeof(path)))
		fd = open_checked(path, x);
	if (fd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
			 pid, x->start, x->end);
		fd = open_checked(path, x);
	}
	return fd;
}

static struct usdtkit__funcs *open_path(const char *path)
{
	struct usdtkit__funcs *f;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return NULL;
	f = usdtkit__funcs_open_fd(fd);
	close(fd);
	return f;
}

/*
 * A stripped object (no .symtab: Debian's libc) names its static
 * functions only through its separate debug file, found by build id
 * where the process's root has it (libc6-dbg and the -dbgsym packages
 * put it there; bcc looks there too).
 */
static void adopt_debug(struct usdtkit__funcs *f, int pid)
{
	struct usdtkit__funcs *dbg;
	const uint8_t *id;
	size_t n = usdtkit__funcs_build_id(f, &id), i;
	char path[256];
	int k;

	if (usdtkit__funcs_full(f) || n < 2)
		return;
	k = snprintf(path, sizeof(path), "/proc/%d/root/usr/lib/debug/.build-id/%02x/",
		     pid, id[0]);
	for (i = 1; i < n; i++)
		k += snprintf(path + k, sizeof(path) - (size_t)k, "%02x", id[i]);
	snprintf(path + k, sizeof(path) - (size_t)k, ".debug");
	dbg = open_path(path);
	if (dbg && usdtkit__funcs_adopt(f, dbg))
		usdtkit__funcs_free(dbg);
}

static struct usdtkit__funcs *load_object(struct usdtkit__syms *s, int pid,
					  const struct xmap *x)
{
	struct usdtkit__funcs *f;
	int fd = open_object(pid, x);

	s->counts.object_reads++;
	if (fd < 0)
		return NULL;
	f = usdtkit__funcs_open_fd(fd);
	close(fd);
	if (f)
		adopt_debug(f, pid);
	return f;
}

/*
 * A free slot of s->objs: a new one while fewer than
 * USDTKIT__SYMS_MAX_OBJECTS are unpinned, else the least recently used
 * unpinned one; a new one past those only for kept pids (all pinned),
 * up to OBJS_CAP. NULL: every slot is pinned.
 */
static struct obj *obj_slot(struct usdtkit__syms *s)
{
	struct obj *o = NULL;
	size_t i;

	if (s->nobjs < OBJS_CAP && s->nobjs - s->npinned < USDTKIT__SYMS_MAX_OBJECTS)
		return &s->objs[s->nobjs++];
	for (i = 0; i < s->nobjs; i++)
		if (!s->objs[i].pins && (!o || s->objs[i].used < o->used))
			o = &s->objs[i];
	if (!o)
		return s->nobjs < OBJS_CAP ? &s->objs[s->nobjs++] : NULL;
	usdtkit__funcs_free(o->funcs);
	return o;
}

static struct obj *find_obj(struct usdtkit__syms *s, const struct xmap *x)
{
	size_t i;

	for (i = 0; i < s->nobjs; i++)
		if (s->objs[i].dev == x->dev && s->objs[i].ino == x->ino)
			return &s->objs[i];
	return NULL;
}

/* The object @x maps, read once per (device, inode), through @pid;
 * NULL only when no slot is free (every one pinned). */
static struct obj *get_obj(struct usdtkit__syms *s, int pid, const struct xmap *x)
{
	struct obj *o = find_obj(s, x);

	if (o) {
		o->used = s->tick;
		return o;
	}
	o = obj_slot(s);
	if (!o)
		return NULL;
	*o = (struct obj){ .dev = x->dev, .ino = x->ino, .used = s->tick };
	o->funcs = load_object(s, pid, x);
	return o;
}

/* The functions of the object @x maps; NULL when it cannot be read
 * (and that is kept too). */
static const struct usdtkit__funcs *object(struct usdtkit__syms *s, int pid,
					   const struct xmap *x)
{
	struct obj *o = get_obj(s, pid, x);

	return o ? o->funcs : NULL;
}

/* ---- kept pids ---- */

/* The objects of @pm's mappings opened now, while the process is there
 * to open them through, and pinned. */
static void pin_objects(struct usdtkit__syms *s, struct pidmaps *pm)
{
	struct obj *o;
	size_t i;

	for (i = 0; i < pm->n; i++) {
		struct xmap *x = &pm->maps[i];

		if (!x->path)
			continue;
		o = get_obj(s, pm->pid, x);
		if (!o)
			continue;	/* past the bound: opened when named */
		if (!o->pins++)
			s->npinned++;
		x->pinned = true;
	}
}

static void unpin_objects(struct usdtkit__syms *s, struct pidmaps *pm)
{
	struct obj *o;
	size_t i;

	for (i = 0; i < pm->n; i++) {
		struct xmap *x = &pm->maps[i];

		o = x->pinned ? find_obj(s, x) : NULL;
		x->pinned = false;
		if (!o || !o->pins)
			continue;
		o->used = s->tick;
		if (!--o->pins)
			s->npinned--;
	}
}

/* @pm (owned) into s->kept, in pid order */
static int kept_insert(struct usdtkit__syms *s, const struct pidmaps *pm)
{
	size_t i = kept_index(s, pm->pid);

	if (s->nkept == s->kept_cap) {
		size_t n = s->kept_cap ? s->kept_cap * 2 : 16;
		void *p = realloc(s->kept, n * sizeof(*s->kept));

		if (!p)
			return -ENOMEM;
		s->kept = p;
		s->kept_cap = n;
	}
	memmove(&s->kept[i + 1], &s->kept[i], (s->nkept - i) * sizeof(*s->kept));
	s->kept[i] = *pm;
	s->nkept++;
	return 0;
}

int usdtkit__syms_keep(struct usdtkit__syms *s, int pid)
{
	struct pidmaps next = { .pid = pid }, *pm;
	int err;

	if (!s)
		return -EINVAL;
	if (!find_kept(s, pid) && s->nkept >= USDTKIT__SYMS_MAX_KEPT)
		return -ENOSPC;
	if (proc_start(pid, &next.start))
		return -ESRCH;
	err = read_maps(s, &next);
	if (err)
		return err;
	next.used = ++s->tick;
	/* the new pins first: an object both maps hold stays loaded */
	pin_objects(s, &next);
	pm = find_kept(s, pid);
	if (pm) {
		unpin_objects(s, pm);
		maps_free(pm);
		*pm = next;
		return 0;
	}
	err = kept_insert(s, &next);
	if (err) {
		unpin_objects(s, &next);
		maps_free(&next);
		return err;
	}
	/* the cache's copy, if any, is older */
	pm = find_cached(s, pid);
	if (pm) {
		maps_free(pm);
		*pm = s->pids[--s->npids];
	}
	return 0;
}

void usdtkit__syms_release(struct usdtkit__syms *s, int pid)
{
	struct pidmaps *pm = s ? find_kept(s, pid) : NULL, *slot;
	size_t i;

	if (!pm)
		return;
	s->tick++;
	unpin_objects(s, pm);
	pm->used = s->tick;
	slot = pid_slot(s);
	*slot = *pm;
	i = (size_t)(pm - s->kept);
	memmove(&s->kept[i], &s->kept[i + 1], (s->nkept - i - 1) * sizeof(*s->kept));
	s->nkept--;
}

/* ---- naming ---- */

/* the name a mapping without a file shows: its maps name ("[vdso]",
 * "[uprobes]"), or "[anon]" for anonymous code (a JIT's) */
static const char *pseudo_name(const struct xmap *x)
{
	return x->label ? x->label : "[anon]";
}

/*
 * The symbol of object address @vaddr, demangled. A return address
 * (@ret) is looked up one byte before it: a call that ends its function
 * (to a noreturn function) returns to the first byte of the next one,
 * which is not where the caller is. The offset is still from @vaddr, so
 * it may equal the symbol's size.
 */
static void name_symbol(struct usdtkit__syms *s, const struct usdtkit__funcs *f,
			uint64_t vaddr, bool ret, struct usdtkit__sym *out)
{
	const char *name, *dm;
	uint64_t off;

	if (vaddr < ret || usdtkit__funcs_find(f, vaddr - ret, &name, &off))
		return;
	dm = usdtkit__demangle(&s->dm, name);
	out->name = dm ? dm : name;
	out->mangled = dm ? name : NULL;
	out->offset = off + ret;
}

int usdtkit__syms_lookup(struct usdtkit__syms *s, int pid, uint64_t addr,
			 unsigned int flags, struct usdtkit__sym *out)
{
	const struct usdtkit__funcs *f;
	const struct xmap *x = NULL;
	uint64_t foff;
	int err;

	if (!s || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	s->tick++;
	err = lookup_map(s, pid, addr, &x);
	if (err)
		return err == -ENOMEM ? 0 : err;
	if (!x)
		return 0;
	foff = addr - x->start + x->offset;
	if (!x->path) {
		out->object = pseudo_name(x);
		out->address = addr - x->start;
		return 0;
	}
	out->object = x->path;
	/* an object that cannot be read: its file offset is all there is */
	out->address = foff;
	f = object(s, pid, x);
	if (!f || usdtkit__funcs_vaddr(f, foff, &out->address))
		return 0;
	name_symbol(s, f, out->address, flags & USDTKIT__SYMS_RETURN, out);
	return 0;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

void usdtkit__sym_text(const struct usdtkit__sym *sym, uint64_t addr, char *buf,
		       size_t len)
{
	if (sym->name)
		snprintf(buf, len, "%s+0x%" PRIx64 " (%s)", sym->name, sym->offset,
			 sym->object);
	else if (sym->object && sym->object[0] == '/')
		snprintf(buf, len, "%s+0x%" PRIx64 " (%s)", base_name(sym->object),
			 sym->address, sym->object);
	else if (sym->object)
		snprintf(buf, len, "%s+0x%" PRIx64, sym->object, sym->address);
	else
		snprintf(buf, len, "0x%" PRIx64, addr);
}

int usdtkit__syms_name(struct usdtkit__syms *s, int pid, uint64_t addr,
		       unsigned int flags, char *buf, size_t len)
{
	struct usdtkit__sym sym;
	int err;

	if (!s || !buf || !len)
		return -EINVAL;
	err = usdtkit__syms_lookup(s, pid, addr, flags, &sym);
	usdtkit__sym_text(&sym, addr, buf, len);
	return err;
}
