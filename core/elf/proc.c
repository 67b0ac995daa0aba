// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A process's USDT objects, from /proc/PID/maps. An object is a mapped
 * inode (maps' device and inode), whatever path names it: maps gives the
 * path as the reader would resolve it, which is not the process's own
 * view under a chroot, and may name another file by now (an upgrade) or
 * none (deleted, memfd). So each object is opened through
 * /proc/PID/map_files/<range>, which open() and the kernel's kern_path()
 * follow to the very inode mapped; /proc/PID/root/<path> is the fallback
 * where that link is refused (it needs CAP_SYS_ADMIN), and only when it
 * leads to the same inode. Absolute addresses come from the executable
 * mapping that covers the site's file offset, which holds for PIE,
 * shared libraries and ET_EXEC.
 */
/* pread() at an address above 2 GiB from a 32-bit build */
#define _FILE_OFFSET_BITS 64
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "elf/file.h"
#include "base/opts.h"
#include "elf/proc.h"

struct mapping {
	uint64_t start, end, offset;
	bool exec, writable;
};

/* What maps says identifies a file: its device and inode. */
struct file_id {
	uint32_t major, minor;
	uint64_t ino;
};

struct object {
	char *path;		/* as maps names it, for messages */
	char *kpath;		/* the verified handle: see open_object() */
	struct file_id id;
	struct usdtkit_file *file;
	struct mapping *maps;	/* every mapping of the file, in maps order */
	size_t nmaps;
	bool exec;		/* some mapping is executable: code, maybe probes */
};

struct usdtkit_proc {
	int pid;
	char comm[16];		/* /proc/PID/comm when opened ("" unread) */
	/* /proc/PID/mem, or -errno of its open(): see usdtkit_proc_open() */
	int mem_fd;
	struct usdtkit_log log;
	struct object *objs;
	size_t nobjs, cap;
};

static bool same_id(const struct file_id *a, const struct file_id *b)
{
	return a->major == b->major && a->minor == b->minor && a->ino == b->ino;
}

static struct object *find_object(struct usdtkit_proc *p, const struct file_id *id)
{
	size_t i;

	for (i = 0; i < p->nobjs; i++)
		if (same_id(&p->objs[i].id, id))
			return &p->objs[i];
	return NULL;
}

static struct object *add_object(struct usdtkit_proc *p, const char *path,
				 const struct file_id *id)
{
	struct object *o;

	if (p->nobjs == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		void *n = realloc(p->objs, cap * sizeof(*p->objs));

		if (!n)
			return NULL;
		p->objs = n;
		p->cap = cap;
	}
	o = &p->objs[p->nobjs];
	memset(o, 0, sizeof(*o));
	o->id = *id;
	o->path = strdup(path);
	if (!o->path)
		return NULL;
	p->nobjs++;
	return o;
}

static int add_mapping(struct object *o, const struct mapping *m)
{
	void *n = realloc(o->maps, (o->nmaps + 1) * sizeof(*o->maps));

	if (!n)
		return -ENOMEM;
	o->maps = n;
	o->maps[o->nmaps++] = *m;
	o->exec |= m->exec;
	return 0;
}

int usdtkit__maps_line_parse(char *line, struct usdtkit__maps_line *m)
{
	char perms[8];
	int n = 0;

	memset(m, 0, sizeof(*m));
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %" SCNx32 ":%"
		   SCNx32 " %" SCNu64 " %n", &m->start, &m->end, perms, &m->offset,
		   &m->dev_major, &m->dev_minor, &m->inode, &n) < 7 || !n ||
	    strlen(perms) < 3)
		return -EINVAL;
	m->path = line + n;
	m->path[strcspn(m->path, "\n")] = 0;
	m->writable = perms[1] == 'w';
	m->exec = perms[2] == 'x';
	return 0;
}

/*
 * One maps line: file-backed mappings matter, the executable ones for the
 * probes' addresses and the others too, for the semaphores in the data
 * segment (only objects with code are opened, see open_object()). They
 * are grouped by inode: two paths to one file (a bind mount, a hard link)
 * are one object, and one path to two files (an old and a new version,
 * both mapped) two.
 */
static int parse_line(struct usdtkit_proc *p, char *line)
{
	struct usdtkit__maps_line l;
	struct file_id id;
	struct mapping m;
	struct object *o;

	if (usdtkit__maps_line_parse(line, &l) || l.path[0] != '/' || !l.inode)
		return 0;
	m = (struct mapping){ .start = l.start, .end = l.end, .offset = l.offset,
			      .exec = l.exec, .writable = l.writable };
	id = (struct file_id){ .major = l.dev_major, .minor = l.dev_minor,
			       .ino = l.inode };
	o = find_object(p, &id);
	if (!o)
		o = add_object(p, l.path, &id);
	return o ? add_mapping(o, &m) : -ENOMEM;
}

static int read_maps(struct usdtkit_proc *p)
{
	char fname[64], *line = NULL;
	size_t cap = 0;
	int err = 0;
	FILE *f;

	snprintf(fname, sizeof(fname), "/proc/%d/maps", p->pid);
	f = fopen(fname, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (!err && getline(&line, &cap, f) > 0)
		err = parse_line(p, line);
	/* a process that exits while we read leaves an empty file */
	if (!err && ferror(f))
		err = -ESRCH;
	free(line);
	fclose(f);
	return err;
}

static const char deleted_tag[] = " (deleted)";

static bool is_deleted(const char *path)
{
	size_t len = strlen(path), tag = sizeof(deleted_tag) - 1;

	return len > tag && !strcmp(path + len - tag, deleted_tag);
}

int usdtkit__maps_kpath(int pid, const char *path, uint64_t start,
			uint64_t end, char *buf, size_t size)
{
	int n;

	if (!size)
		return -EINVAL;
	if (is_deleted(path))
		n = snprintf(buf, size, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
			     pid, start, end);
	else
		n = snprintf(buf, size, "/proc/%d/root%s", pid, path);
	return n < 0 ? -EINVAL : (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int usdtkit__proc_object_kpath(const struct usdtkit_proc *p, size_t i,
			       char *buf, size_t size)
{
	const char *kpath;

	if (!p || i >= p->nobjs || !size)
		return -EINVAL;
	kpath = p->objs[i].kpath;
	if (!kpath)
		return -ENOENT;
	if (strlen(kpath) >= size)
		return -ENAMETOOLONG;
	strcpy(buf, kpath);
	return 0;
}

/*
 * The mapping whose map_files link opens @o: an executable one, as the
 * loader neither splits nor moves the text once the object is loaded
 * (it does mprotect() the data segment's RELRO part, which splits it).
 */
static const struct mapping *link_mapping(const struct object *o)
{
	size_t k;

	for (k = 0; k < o->nmaps; k++)
		if (o->maps[k].exec)
			return &o->maps[k];
	return &o->maps[0];
}

/* "inode 12, maps says 34": what tells @got from @want, for a message */
static void id_diff(char *buf, size_t size, const struct file_id *got,
		    const struct file_id *want)
{
	if (got->ino != want->ino)
		snprintf(buf, size, "inode %" PRIu64 ", maps says %" PRIu64,
			 got->ino, want->ino);
	else	/* as maps writes a device: hex */
		snprintf(buf, size, "device %02x:%02x, maps says %02x:%02x",
			 got->major, got->minor, want->major, want->minor);
}

/* The device of mount @mnt_id in @fname (a mountinfo), or -ENOENT. */
static int mountinfo_dev(const char *fname, uint64_t mnt_id, struct file_id *id)
{
	char *line = NULL;
	size_t cap = 0;
	uint64_t mid;
	uint32_t maj, min;
	int err = -ENOENT;
	FILE *f = fopen(fname, "re");

	if (!f)
		return -errno;
	while (err && getline(&line, &cap, f) > 0)
		if (sscanf(line, "%" SCNu64 " %*u %" SCNu32 ":%" SCNu32, &mid, &maj,
			   &min) == 3 && mid == mnt_id) {
			id->major = maj;
			id->minor = min;
			err = 0;
		}
	free(line);
	fclose(f);
	return err;
}

/*
 * The device of @fd's superblock, which maps shows: stat() gives another
 * where the filesystem has one per subvolume (btrfs). mountinfo has the
 * superblock's, on the line of the fd's mount: the process's own (a
 * container's mount namespace), or ours, as a mount outside a chroot
 * is not listed in the chrooted process's mountinfo. 0, or -errno.
 */
static int superblock_dev(int pid, int fd, struct file_id *id)
{
	struct statx stx;
	char fname[64];

	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx))
		return -errno;
	if (!(stx.stx_mask & STATX_MNT_ID))
		return -EOPNOTSUPP;
	snprintf(fname, sizeof(fname), "/proc/%d/mountinfo", pid);
	if (!mountinfo_dev(fname, stx.stx_mnt_id, id))
		return 0;
	return mountinfo_dev("/proc/self/mountinfo", stx.stx_mnt_id, id);
}

/* Is @fd (@st) the file @want names? A device that differs only as
 * stat() reports it (superblock_dev()) is still the same. */
static bool is_file(int pid, int fd, const struct stat *st,
		    const struct file_id *want, struct file_id *got)
{
	struct file_id sb = { .ino = st->st_ino };

	*got = (struct file_id){ .major = major(st->st_dev),
				 .minor = minor(st->st_dev), .ino = st->st_ino };
	if (!S_ISREG(st->st_mode) || got->ino != want->ino)
		return false;
	return same_id(got, want) ||
	       (!superblock_dev(pid, fd, &sb) && same_id(&sb, want));
}

/*
 * Open @path and check that it is the file @o maps: its fd, -ESTALE
 * when it is another one (said: refused on the map_files link, which
 * can only be the mapping replaced since maps was read; skipped on the
 * fallback, the path now naming another file), or -errno.
 */
static int open_checked(struct usdtkit_proc *p, const struct object *o,
			const char *path, bool fallback)
{
	struct file_id got;
	struct stat st;
	char diff[96];
	int fd, err;

	/* O_NONBLOCK: a FIFO put at the path must not block the open */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (is_file(p->pid, fd, &st, &o->id, &got))
		return fd;
	close(fd);
	if (!S_ISREG(st.st_mode))
		snprintf(diff, sizeof(diff), "not a regular file");
	else
		id_diff(diff, sizeof(diff), &got, &o->id);
	if (fallback)
		usdtkit__info(&p->log, "pid %d: %s: skipped: its map_files link is "
			      "refused, and %s is another file (%s)", p->pid, o->path,
			      path, diff);
	else
		usdtkit__warn(&p->log, "pid %d: %s: refused: %s is another file (%s)",
			      p->pid, o->path, path, diff);
	return -ESTALE;
}

/*
 * Unprivileged, map_files is refused: the path as the process sees it,
 * /proc/PID/root/<path>, if it still leads to the inode mapped. A file
 * deleted (or a memfd) has no other way to it.
 */
static int open_fallback(struct usdtkit_proc *p, const struct object *o,
			 char *kpath, size_t size, int why)
{
	int n, fd;

	if (is_deleted(o->path)) {
		usdtkit__info(&p->log, "pid %d: %s: skipped: %s: %s, and a deleted "
			      "file has no other path", p->pid, o->path, kpath,
			      strerror(-why));
		return why;
	}
	n = snprintf(kpath, size, "/proc/%d/root%s", p->pid, o->path);
	if (n < 0 || (size_t)n >= size)
		fd = -ENAMETOOLONG;
	else
		fd = open_checked(p, o, kpath, true);
	if (fd < 0 && fd != -ESTALE)
		usdtkit__info(&p->log, "pid %d: %s: skipped: its map_files link is "
			      "refused, and %s: %s", p->pid, o->path, kpath,
			      strerror(-fd));
	return fd;
}

/*
 * Open @o through /proc/PID/map_files/<range>, the very inode mapped,
 * whatever the process's root or the path's fate since; that link needs
 * CAP_SYS_ADMIN (CAP_CHECKPOINT_RESTORE), else open_fallback(). The fd,
 * with in @kpath the path that opened it, which the kernel resolves to
 * the same inode when it attaches; or -errno, said.
 */
static int open_handle(struct usdtkit_proc *p, const struct object *o,
		       char *kpath, size_t size)
{
	const struct mapping *m = link_mapping(o);
	int fd;

	snprintf(kpath, size, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, p->pid,
		 m->start, m->end);
	fd = open_checked(p, o, kpath, false);
	if (fd == -EPERM || fd == -EACCES)
		return open_fallback(p, o, kpath, size, fd);
	/* unmapped (or the process gone) since maps was read */
	if (fd == -ENOENT)
		usdtkit__info(&p->log, "pid %d: %s: skipped: no longer mapped",
			      p->pid, o->path);
	else if (fd < 0 && fd != -ESTALE)
		usdtkit__info(&p->log, "pid %d: %s: skipped: %s: %s", p->pid, o->path,
			      kpath, strerror(-fd));
	return fd;
}

static void open_object(struct usdtkit_proc *p, struct object *o)
{
	USDTKIT_OPTS(usdtkit_open_opts, opts, .print = p->log.print,
		     .print_ctx = p->log.ctx, .name = o->path);
	char kpath[4200];
	int fd, err;

	/* a data file (locale archive, font, cache): no code, no probes */
	if (!o->exec)
		return;
	fd = open_handle(p, o, kpath, sizeof(kpath));
	if (fd < 0)
		return;
	o->kpath = strdup(kpath);
	errno = ENOMEM;
	o->file = o->kpath ? usdtkit_file_open_fd(fd, &opts) : NULL;
	err = errno;
	close(fd);
	if (!o->file && err != ENOEXEC && err != EPROTONOSUPPORT)
		usdtkit__info(&p->log, "pid %d: %s: skipped: %s", p->pid, o->path,
			      strerror(err));
}

/* Keep only objects with probes, in maps order. */
static void prune(struct usdtkit_proc *p)
{
	size_t i, k = 0;

	for (i = 0; i < p->nobjs; i++) {
		struct object *o = &p->objs[i];

		if (o->file && usdtkit_file_site_count(o->file)) {
			p->objs[k++] = *o;
			continue;
		}
		usdtkit_file_close(o->file);
		free(o->maps);
		free(o->kpath);
		free(o->path);
	}
	p->nobjs = k;
}

/*
 * /proc/PID/mem, opened before the maps are read and kept: the open binds
 * the fd to the address space of that moment, so a semaphore is never
 * read from another program at the addresses of this one's maps (the pid
 * reused by a new process, or an execve() since: both read as -ESRCH).
 * pread() on it needs no lock, so the handle stays const and can be
 * shared by threads. Opening takes ptrace rights (PTRACE_MODE_ATTACH); a
 * process the caller may not trace still opens, with its semaphores
 * unreadable: the error is kept for usdtkit_proc_semaphore().
 */
static int open_mem(int pid)
{
	char fname[64];
	int fd;

	snprintf(fname, sizeof(fname), "/proc/%d/mem", pid);
	fd = open(fname, O_RDONLY | O_CLOEXEC);
	return fd >= 0 ? fd : errno == ENOENT ? -ESRCH : -errno;
}

/* the process's name (what ps shows), its newline cut; "" when unread */
static void read_comm(int pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, size - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = 0;
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = 0;
}

/* ---- files known to have no probes, across the processes of a scan ---- */

struct usdtkit__probe_cache {
	struct file_id *none;		/* looked at: no probes */
	size_t n, cap;
	size_t opened;			/* files opened to know */
};

struct usdtkit__probe_cache *usdtkit__probe_cache_new(void)
{
	return calloc(1, sizeof(struct usdtkit__probe_cache));
}

void usdtkit__probe_cache_free(struct usdtkit__probe_cache *c)
{
	if (c)
		free(c->none);
	free(c);
}

size_t usdtkit__probe_cache_opened(const struct usdtkit__probe_cache *c)
{
	return c ? c->opened : 0;
}

static bool cache_none(const struct usdtkit__probe_cache *c, const struct file_id *id)
{
	size_t i;

	for (i = 0; c && i < c->n; i++)
		if (same_id(&c->none[i], id))
			return true;
	return false;
}

/* @o was opened: remember it when it has no probes (best effort: a
 * cache without room opens the file again next time) */
static void cache_note(struct usdtkit__probe_cache *c, const struct object *o)
{
	if (!c)
		return;
	c->opened++;
	if (o->file && usdtkit_file_site_count(o->file))
		return;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct file_id *v = realloc(c->none, cap * sizeof(*v));

		if (!v)
			return;
		c->none = v;
		c->cap = cap;
	}
	c->none[c->n++] = o->id;
}

/*
 * Why a process's maps were refused, where a bare "Permission denied"
 * tells a newcomer nothing: another user's process is read with root or
 * CAP_SYS_PTRACE (ptrace access mode, proc(5)).
 */
static const char *denied_hint(int err)
{
	if (err != -EACCES && err != -EPERM)
		return "";
	return " (another user's process is read as root or with CAP_SYS_PTRACE)";
}

static struct usdtkit_proc *proc_open(int pid, const struct usdtkit_open_opts *user,
				      struct usdtkit__probe_cache *cache)
{
	struct usdtkit_open_opts o, *opts = &o;
	struct usdtkit_proc *p;
	size_t i;
	int err = usdtkit__opts_copy(&o, usdtkit_open_opts, user);

	if (pid <= 0 || err) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	read_comm(pid, p->comm, sizeof(p->comm));
	p->mem_fd = open_mem(pid);
	if (opts) {
		p->log.print = opts->print;
		p->log.ctx = opts->print_ctx;
	}
	err = read_maps(p);
	if (err) {
		/* a scan passes over what it cannot read, quietly */
		if (!cache)
			usdtkit__warn(&p->log, "pid %d: cannot read /proc/%d/maps: %s%s",
				      pid, pid, strerror(-err), denied_hint(err));
		usdtkit_proc_close(p);
		errno = -err;
		return NULL;
	}
	for (i = 0; i < p->nobjs; i++) {
		if (!p->objs[i].exec || cache_none(cache, &p->objs[i].id))
			continue;
		open_object(p, &p->objs[i]);
		cache_note(cache, &p->objs[i]);
	}
	prune(p);
	return p;
}

struct usdtkit_proc *usdtkit_proc_open(int pid, const struct usdtkit_open_opts *opts)
{
	return proc_open(pid, opts, NULL);
}

struct usdtkit_proc *usdtkit__proc_open_cached(int pid, const struct usdtkit_open_opts *opts,
					       struct usdtkit__probe_cache *cache)
{
	return proc_open(pid, opts, cache);
}

const char *usdtkit_proc_comm(const struct usdtkit_proc *p)
{
	return p->comm;
}

void usdtkit_proc_close(struct usdtkit_proc *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nobjs; i++) {
		usdtkit_file_close(p->objs[i].file);
		free(p->objs[i].maps);
		free(p->objs[i].kpath);
		free(p->objs[i].path);
	}
	free(p->objs);
	if (p->mem_fd >= 0)
		close(p->mem_fd);
	free(p);
}

int usdtkit_proc_pid(const struct usdtkit_proc *p)
{
	return p ? p->pid : -1;
}

size_t usdtkit_proc_object_count(const struct usdtkit_proc *p)
{
	return p ? p->nobjs : 0;
}

const struct usdtkit_file *usdtkit_proc_object(const struct usdtkit_proc *p, size_t i)
{
	return p && i < p->nobjs ? p->objs[i].file : NULL;
}

const char *usdtkit_proc_object_path(const struct usdtkit_proc *p, size_t i)
{
	return p && i < p->nobjs ? p->objs[i].path : NULL;
}

/* The object of the process that @s is a site of, or NULL. */
static const struct object *site_object(const struct usdtkit_proc *p,
					const struct usdtkit_site *s)
{
	size_t i;

	for (i = 0; i < p->nobjs; i++)
		if (p->objs[i].file == s->file)
			return &p->objs[i];
	return NULL;
}

static bool covers(const struct mapping *m, uint64_t off)
{
	return off >= m->offset && off - m->offset < m->end - m->start;
}

int usdtkit_proc_site_addr(const struct usdtkit_proc *p,
			   const struct usdtkit_site *s, uint64_t *addr)
{
	const struct object *o;
	size_t k;

	if (!p || !s || !addr)
		return -EINVAL;
	/* a site that cannot be placed has no file offset (pc_offset 0 would
	 * land on the start of a mapping of offset 0) */
	o = s->status ? NULL : site_object(p, s);
	if (!o)
		return -ENOENT;
	for (k = 0; k < o->nmaps; k++) {
		const struct mapping *m = &o->maps[k];

		if (m->exec && covers(m, s->pc_offset)) {
			*addr = m->start + (s->pc_offset - m->offset);
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * The mapping of @o that holds file offset @off, a writable one first:
 * the kernel raises a semaphore (ref_ctr_offset) only in a private
 * writable mapping of the file, and a read-only mapping that shares the
 * file page (the end of the text segment) still holds the file's 0.
 */
static const struct mapping *sema_mapping(const struct object *o, uint64_t off)
{
	const struct mapping *best = NULL;
	size_t k;

	for (k = 0; k < o->nmaps; k++) {
		const struct mapping *m = &o->maps[k];

		if (covers(m, off) && (!best || (m->writable && !best->writable)))
			best = m;
	}
	return best;
}

int usdtkit_proc_semaphore(const struct usdtkit_proc *p,
			   const struct usdtkit_site *s, uint16_t *value)
{
	const struct mapping *m;
	const struct object *o;
	unsigned char b[2];
	ssize_t n;

	if (!p || !s || !value)
		return -EINVAL;
	o = site_object(p, s);
	if (!o)
		return -EINVAL;
	/* no semaphore, or one outside the data segments (not placed) */
	if (!s->sema || !s->sema_offset)
		return -ENOENT;
	if (p->mem_fd < 0)
		return p->mem_fd;
	m = sema_mapping(o, s->sema_offset);
	if (!m)
		return -ENOENT;
	n = pread(p->mem_fd, b, sizeof(b),
		  (off_t)(m->start + (s->sema_offset - m->offset)));
	if (n < 0)
		return -errno;
	/* 0 bytes: the address space is gone (exit, or an execve()) */
	if (n == 0)
		return -ESRCH;
	if (n != (ssize_t)sizeof(b))
		return -EIO;
	if (usdtkit_arch_elf_data(s->file->arch) == ELFDATA2MSB)
		*value = (uint16_t)(b[0] << 8 | b[1]);
	else
		*value = (uint16_t)(b[1] << 8 | b[0]);
	return 0;
}
