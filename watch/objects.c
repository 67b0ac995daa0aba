// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The objects a trace has attached, by inode: a uprobe belongs to an
 * inode, so an object is attached once however many processes map it,
 * under whatever path, and a library mapped again after a dlclose()
 * keeps its breakpoints. A process read again (its loader said its list
 * of objects changed) is compared against this set: what is not in it
 * is new. Also the loader of a process, where the watching uprobe goes.
 */
#define _FILE_OFFSET_BITS 64
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "elf/proc.h"
#include "watch/watch.h"

struct inode_id {
	uint64_t dev, ino;
	uint64_t addr;		/* by_address: where it is mapped, else 0 */
};

struct usdtkit__watch {
	struct usdtkit_log log;
	bool by_address;
	/* files whose code some process maps, looked at (maps' device and
	 * inode): read again only when a process maps another */
	struct inode_id *looked;
	size_t nlooked, lookcap;
	struct inode_id *seen;		/* objects attached */
	size_t nseen, cap;
	struct inode_id *loaders;	/* loaders watched */
	size_t nloaders, lcap;
};

int usdtkit__watch_new(struct usdtkit__watch **out, const struct usdtkit_log *log,
		       bool by_address)
{
	struct usdtkit__watch *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	w->by_address = by_address;
	if (log)
		w->log = *log;
	*out = w;
	return 0;
}

void usdtkit__watch_free(struct usdtkit__watch *w)
{
	if (!w)
		return;
	free(w->seen);
	free(w->looked);
	free(w->loaders);
	free(w);
}

/* @id in @v: the same inode, at the same address, or at any where @v's
 * has none (a file attached by its path, whose sites need no address) */
static bool in_set(const struct inode_id *v, size_t n, const struct inode_id *id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].dev == id->dev && v[i].ino == id->ino &&
		    (!v[i].addr || v[i].addr == id->addr))
			return true;
	return false;
}

static int set_add(struct inode_id **v, size_t *n, size_t *cap,
		   const struct inode_id *id)
{
	if (in_set(*v, *n, id))
		return 0;
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		void *nv = realloc(*v, c * sizeof(**v));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = *id;
	return 0;
}

static int path_id(const char *path, struct inode_id *id)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->addr = 0;
	return 0;
}

/* The inode object @i of @proc maps, through the path the kernel
 * resolves to it (elf/proc.h), and by address where that counts: the
 * address of its first site stands for where it is mapped. Not for an
 * ET_EXEC file, mapped at its link address always: attached by path
 * (-c in mode ipmap: usdtkit__watch_see_path, no address), it was taken
 * for a new object at the command's exec and attached twice, every hit
 * counted twice (the VM matrix's agg on 5.10). */
static int object_id(const struct usdtkit__watch *w, const struct usdtkit_proc *proc,
		     size_t i, struct inode_id *id)
{
	const struct usdtkit_file *f = usdtkit_proc_object(proc, i);
	char kpath[4352];
	int err = usdtkit__proc_object_kpath(proc, i, kpath, sizeof(kpath));

	if (!err)
		err = path_id(kpath, id);
	if (!err && w->by_address && f && usdtkit_file_type(f) == ET_DYN)
		usdtkit_proc_site_addr(proc, usdtkit_file_next_site(f, NULL, NULL, NULL),
				       &id->addr);
	return err;
}

static void set_drop(struct inode_id *v, size_t *n, uint64_t ino)
{
	size_t i = 0;

	while (i < *n)
		if (v[i].ino == ino)
			v[i] = v[--*n];
		else
			i++;
}

void usdtkit__watch_forget(struct usdtkit__watch *w, uint64_t ino)
{
	set_drop(w->seen, &w->nseen, ino);
	set_drop(w->looked, &w->nlooked, ino);
}

int usdtkit__watch_see_path(struct usdtkit__watch *w, const char *path)
{
	struct inode_id id;
	int err = path_id(path, &id);

	return err ? err : set_add(&w->seen, &w->nseen, &w->cap, &id);
}

int usdtkit__watch_see(struct usdtkit__watch *w, const struct usdtkit_proc *proc,
		       const bool *only)
{
	struct inode_id id;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < usdtkit_proc_object_count(proc); i++)
		if ((!only || only[i]) && !object_id(w, proc, i, &id))
			err = set_add(&w->seen, &w->nseen, &w->cap, &id);
	return err;
}

int usdtkit__watch_unseen(struct usdtkit__watch *w, const struct usdtkit_proc *proc,
			  bool **only, size_t *n)
{
	size_t i, count = usdtkit_proc_object_count(proc);
	struct inode_id id;

	*n = 0;
	*only = calloc(count ? count : 1, sizeof(**only));
	if (!*only)
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		if (object_id(w, proc, i, &id) || in_set(w->seen, w->nseen, &id))
			continue;
		(*only)[i] = true;
		(*n)++;
	}
	return 0;
}

struct usdtkit__watch_news {
	struct inode_id *v;
	size_t n, cap;
};

void usdtkit__watch_news_free(struct usdtkit__watch_news *news)
{
	if (news)
		free(news->v);
	free(news);
}

/* the maps line's file, if code not looked at yet, into @news */
static int news_line(struct usdtkit__watch *w, char *line,
		     struct usdtkit__watch_news *news)
{
	struct usdtkit__maps_line m;
	struct inode_id id;

	if (usdtkit__maps_line_parse(line, &m) || !m.exec || !m.inode)
		return 0;
	id.dev = (uint64_t)m.dev_major << 32 | m.dev_minor;
	id.ino = m.inode;
	id.addr = w->by_address ? m.start : 0;
	if (in_set(w->looked, w->nlooked, &id))
		return 0;
	return set_add(&news->v, &news->n, &news->cap, &id);
}

int usdtkit__watch_news(struct usdtkit__watch *w, int pid,
			struct usdtkit__watch_news **out)
{
	struct usdtkit__watch_news *news = calloc(1, sizeof(*news));
	char path[64], *line = NULL;
	size_t cap = 0;
	int err = 0;
	FILE *f;

	if (!news)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f) {
		free(news);
		return errno == ENOENT ? -ESRCH : -errno;
	}
	while (!err && getline(&line, &cap, f) > 0)
		err = news_line(w, line, news);
	free(line);
	fclose(f);
	if (err || !news->n) {
		usdtkit__watch_news_free(news);
		return err;
	}
	*out = news;
	return 1;
}

int usdtkit__watch_looked(struct usdtkit__watch *w, struct usdtkit__watch_news *news)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && news && i < news->n; i++)
		err = set_add(&w->looked, &w->nlooked, &w->lookcap, &news->v[i]);
	usdtkit__watch_news_free(news);
	return err;
}

/* AT_BASE of @pid: where the kernel put its loader; 0 when none. */
/* The start of the ELF header of @pid's program (0: ours): 0 or -errno */
static int exe_header(int pid, unsigned char *eh, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/exe");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, eh, size, 0);
	close(fd);
	return n == (ssize_t)size ? 0 : -EIO;
}

/* The word size of process @pid, from its program's ELF class: 4 or 8. */
static size_t word_size(int pid)
{
	unsigned char id[EI_NIDENT];

	if (exe_header(pid, id, sizeof(id)))
		id[EI_CLASS] = 0;
	return id[EI_CLASS] == ELFCLASS32 ? 4 : sizeof(unsigned long);
}

/* an auxv word of @ws bytes at @p, in the machine's byte order */
static uint64_t aux_word(const unsigned char *p, size_t ws)
{
	uint32_t w32;
	uint64_t w64;

	if (ws == 4) {
		memcpy(&w32, p, 4);
		return w32;
	}
	memcpy(&w64, p, 8);
	return w64;
}

/* AT_BASE of @pid, its loader's address: a 32-bit process under a 64-bit
 * tracer (AArch32 on arm64) has 4-byte auxv words */
static int loader_base(int pid, uint64_t *base)
{
	unsigned char v[16];
	size_t ws = word_size(pid);
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	*base = 0;
	while ((n = read(fd, v, 2 * ws)) == (ssize_t)(2 * ws) &&
	       aux_word(v, ws) != AT_NULL)
		if (aux_word(v, ws) == AT_BASE)
			*base = aux_word(v + ws, ws);
	close(fd);
	return n < 0 ? -errno : 0;
}

/*
 * The maps line of @pid that holds @addr: a path to its file into @buf,
 * its map_files link, the very inode mapped. Not /proc/PID/root/<path>
 * first (usdtkit__maps_kpath): maps gives the path from the reader's
 * root, so for a process chrooted below it (/box/lib/ld.so) that names
 * nothing, or another loader: the process's was never watched and a
 * PROVIDER:NAME in a library it loads later waited forever. Where
 * map_files is refused (unprivileged), the path under its root.
 */
static int mapping_at(int pid, uint64_t addr, char *buf, size_t size)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	int err = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (err == -ENOENT && getline(&line, &cap, f) > 0) {
		struct usdtkit__maps_line m;

		if (usdtkit__maps_line_parse(line, &m) || addr < m.start ||
		    addr >= m.end || m.path[0] != '/')
			continue;
		snprintf(buf, size, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
			 pid, m.start, m.end);
		err = access(buf, R_OK) ? usdtkit__maps_kpath(pid, m.path, m.start,
							      m.end, buf, size) : 0;
	}
	free(line);
	fclose(f);
	return err;
}

int usdtkit__watch_loader(struct usdtkit__watch *w, int pid, char *buf, size_t size)
{
	uint64_t base = 0;
	int err = loader_base(pid, &base);

	if (!err && !base)
		err = -ENOENT;
	if (!err)
		err = mapping_at(pid, base, buf, size);
	return err ? err : usdtkit__watch_loader_path(w, buf);
}

int usdtkit__watch_loader_path(struct usdtkit__watch *w, const char *path)
{
	struct inode_id id;
	int err = path_id(path, &id);

	if (err)
		return err;
	if (in_set(w->loaders, w->nloaders, &id))
		return -EALREADY;
	return set_add(&w->loaders, &w->nloaders, &w->lcap, &id);
}

/* The interpreter a #! line at the start of @path names, into @buf
 * (size PATH_MAX): 0, or -ENOEXEC (no such line) or -errno. */
static int shebang(const char *path, char *buf)
{
	char line[PATH_MAX + 3], *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t len;

	if (fd < 0)
		return -errno;
	n = pread(fd, line, sizeof(line) - 1, 0);
	close(fd);
	if (n < 2 || line[0] != '#' || line[1] != '!')
		return -ENOEXEC;
	line[n] = 0;
	/* "#! /bin/sh -e": the first word, as the kernel takes it */
	p = line + 2 + strspn(line + 2, " \t");
	len = strcspn(p, " \t\n");
	if (!len || len >= PATH_MAX)
		return -ENOEXEC;
	memcpy(buf, p, len);
	buf[len] = 0;
	return 0;
}

int usdtkit__watch_run_interp(const char *path, char *buf, size_t size)
{
	char next[2][PATH_MAX];
	const char *file = path;
	int depth, err;

	/* as the kernel follows #! lines: a few deep (it allows 4) */
	for (depth = 0; depth < 4; depth++) {
		err = usdtkit__watch_interp(file, buf, size);
		if (err != -ENOENT || shebang(file, next[depth % 2]))
			return err;
		file = next[depth % 2];
	}
	return -ELOOP;
}

const struct usdtkit_arch *usdtkit__watch_self_arch(void)
{
	unsigned char eh[EI_NIDENT + 4];
	uint16_t machine;

	if (exe_header(0, eh, sizeof(eh)))
		return NULL;
	/* our own header, in our own byte order */
	memcpy(&machine, eh + EI_NIDENT + 2, sizeof(machine));
	return usdtkit_arch_by_elf(machine, eh[EI_CLASS], eh[EI_DATA]);
}

bool usdtkit__watch_native(const struct usdtkit_file *f, const struct usdtkit_arch *self)
{
	return f && self && usdtkit_file_arch(f) == self;
}

int usdtkit__watch_interp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = -ENOENT;
	size_t i, n = 0;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getphdrnum(elf, &n))
		n = 0;
	for (i = 0; i < n && err == -ENOENT; i++) {
		GElf_Phdr ph;
		ssize_t got;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_INTERP)
			continue;
		if (!ph.p_filesz || ph.p_filesz > size) {
			err = -ENAMETOOLONG;
			break;
		}
		got = pread(fd, buf, ph.p_filesz, (off_t)ph.p_offset);
		err = got == (ssize_t)ph.p_filesz && !buf[ph.p_filesz - 1] ? 0 : -ENOEXEC;
	}
	elf_end(elf);
	close(fd);
	return err;
}
