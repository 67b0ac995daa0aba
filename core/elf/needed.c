// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The shared libraries the dynamic loader maps for an executable before
 * it runs, found as glibc's ld.so finds them (ld.so(8), "Rpath token
 * expansion" and the search order): for each DT_NEEDED name of an object,
 *
 *   a name with a '/'        as it is;
 *   DT_RPATH                 of that object, then of the objects that
 *                            loaded it up to the executable, unless the
 *                            object has a DT_RUNPATH;
 *   LD_LIBRARY_PATH          (the one CMD will run with);
 *   DT_RUNPATH               of that object only;
 *   /etc/ld.so.cache;
 *   the default directories  /lib/MULTIARCH, /usr/lib/MULTIARCH, /lib,
 *                            /usr/lib;
 *
 * with $ORIGIN (the object's directory), $LIB (lib/MULTIARCH, Debian's)
 * and $PLATFORM (the manifest's processor) expanded in the paths. A
 * candidate of another machine or ELF class is passed over, as ld.so
 * does. Breadth first, each library once, in the loader's order, so the
 * result is what `ldd` lists (tests/cli/cli_trace_needed.sh compares).
 *
 * `usdtkit trace -c CMD PROVIDER:NAME` looks for its probes in these too:
 * Ruby's are in libruby, libstdc++'s in libstdc++.so.6.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "spec/arch.h"
#include "base/log.h"
#include "base/opts.h"

/* what the search needs of one object */
struct dso {
	char *path;
	char **needed;
	size_t nneeded;
	char *rpath, *runpath;
	int parent;		/* index of the object that loaded it, -1 */
};

struct search {
	struct usdtkit_needed_opts o;
	struct usdtkit_log log;
	const struct usdtkit_arch *arch;	/* the executable's */
	struct dso *dsos;
	size_t n, cap;
	char *cache;		/* /etc/ld.so.cache, whole; NULL if none */
	size_t cache_len;
};

static void dso_free(struct dso *d)
{
	size_t i;

	for (i = 0; i < d->nneeded; i++)
		free(d->needed[i]);
	free(d->needed);
	free(d->path);
	free(d->rpath);
	free(d->runpath);
}

/* The ELF's identity, or NULL: not an ELF object (or unreadable). */
static const struct usdtkit_arch *elf_arch(Elf *e)
{
	GElf_Ehdr eh;

	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh))
		return NULL;
	return usdtkit_arch_by_elf(eh.e_machine, eh.e_ident[EI_CLASS],
				   eh.e_ident[EI_DATA]);
}

/* DT_NEEDED, DT_RPATH and DT_RUNPATH of @e into @d; 0 or -errno */
static int read_dynamic(Elf *e, struct dso *d)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Dyn dyn;
			const char *s;
			char **v;

			if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH &&
			    dyn.d_tag != DT_RUNPATH)
				continue;
			s = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
			if (!s)
				continue;
			if (dyn.d_tag == DT_RPATH && !d->rpath)
				d->rpath = strdup(s);
			else if (dyn.d_tag == DT_RUNPATH && !d->runpath)
				d->runpath = strdup(s);
			if (dyn.d_tag != DT_NEEDED)
				continue;
			v = realloc(d->needed, (d->nneeded + 1) * sizeof(*v));
			if (!v)
				return -ENOMEM;
			d->needed = v;
			if (!(v[d->nneeded] = strdup(s)))
				return -ENOMEM;
			d->nneeded++;
		}
		return 0;
	}
	return 0;	/* static: no dynamic section, nothing needed */
}

/*
 * Open @path as an object of the executable's machine: 1 and @d filled,
 * 0 when it is not one (missing, not ELF, another machine or class: the
 * loader passes over it), or -errno.
 */
static int open_dso(struct search *s, const char *path, struct dso *d)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
	Elf *e;

	if (fd < 0)
		return 0;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e && (!s->arch || elf_arch(e) == s->arch)) {
		if (!s->arch)
			s->arch = elf_arch(e);
		memset(d, 0, sizeof(*d));
		err = s->arch ? read_dynamic(e, d) : 0;
		if (!err && s->arch)
			err = (d->path = strdup(path)) ? 1 : -ENOMEM;
		if (err < 0)
			dso_free(d);
	}
	elf_end(e);
	close(fd);
	return err;
}

/* ---- /etc/ld.so.cache (glibc's "glibc-ld.so.cache1.1" format) ---- */

#define CACHE_MAGIC	"glibc-ld.so.cache1.1"
#define CACHE_OLD	"ld.so-1.7.0"

struct cache_entry {	/* file_entry_new of glibc's dl-cache.h */
	int32_t flags;
	uint32_t key, value;	/* offsets of NUL-terminated strings */
	uint32_t osversion;
	uint64_t hwcap;
};

static void cache_load(struct search *s)
{
	const char *path = "/etc/ld.so.cache";
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (!fstat(fd, &st) && st.st_size > 0 && st.st_size < (64 << 20)) {
		s->cache = malloc((size_t)st.st_size);
		if (s->cache && read(fd, s->cache, (size_t)st.st_size) == st.st_size)
			s->cache_len = (size_t)st.st_size;
	}
	close(fd);
}

/* The new-format table of the cache: its entries and count, or NULL. An
 * old-format table before it (glibc before 2.32 wrote both) is skipped:
 * its 11-byte magic, its count at 12 (aligned), 12-byte entries from 16,
 * then the new table at the next multiple of 8. */
static const struct cache_entry *cache_table(const struct search *s, uint32_t *n,
					     size_t *base)
{
	size_t off = 0, magic = strlen(CACHE_MAGIC);
	uint32_t nold;

	if (s->cache_len >= 16 && !memcmp(s->cache, CACHE_OLD, strlen(CACHE_OLD))) {
		memcpy(&nold, s->cache + 12, 4);
		if (nold > (s->cache_len - 16) / 12)
			return NULL;
		off = (16 + (size_t)nold * 12 + 7) & ~(size_t)7;
	}
	/* magic, nlibs, len_strings, flags + pad, extension, 3 unused */
	if (off + 48 > s->cache_len || memcmp(s->cache + off, CACHE_MAGIC, magic))
		return NULL;
	memcpy(n, s->cache + off + 20, 4);
	if (*n > (s->cache_len - off - 48) / sizeof(struct cache_entry))
		return NULL;
	*base = off;
	return (const struct cache_entry *)(s->cache + off + 48);
}

/* The cache's string at @at from the table's header at @base, or NULL
 * when it is outside the file. */
static const char *cache_str(const struct search *s, size_t base, uint32_t at)
{
	size_t o = base + at;

	if (o >= s->cache_len || !memchr(s->cache + o, 0, s->cache_len - o))
		return NULL;
	return s->cache + o;
}

/* @name through the cache: 1 with @d, 0, or -errno. Entries of every
 * architecture share the cache: the first of ours is the one. */
static int from_cache(struct search *s, const char *name, struct dso *d)
{
	const struct cache_entry *t;
	uint32_t i, n;
	size_t base;
	int r;

	if (!s->cache || !(t = cache_table(s, &n, &base)))
		return 0;
	for (i = 0; i < n; i++) {
		struct cache_entry ce;
		const char *k, *v;

		memcpy(&ce, &t[i], sizeof(ce));
		k = cache_str(s, base, ce.key);
		v = cache_str(s, base, ce.value);
		if (!k || !v || strcmp(k, name))
			continue;
		r = open_dso(s, v, d);
		if (r)
			return r;
	}
	return 0;
}

/* ---- search paths ---- */

/* @dir with $ORIGIN, $LIB and $PLATFORM (or ${...}) expanded, joined to
 * @name, into @buf; false when it does not fit or names an unknown token */
static bool expand(const struct search *s, const struct dso *loader,
		   const char *dir, size_t dlen, const char *name, char *buf,
		   size_t len)
{
	size_t o = 0, i = 0;

	while (i < dlen) {
		const char *val = NULL;
		char tok[16];
		size_t tl = 0, skip = 0;

		if (dir[i] == '$') {
			bool br = i + 1 < dlen && dir[i + 1] == '{';
			size_t j = i + 1 + br;

			while (j < dlen && tl + 1 < sizeof(tok) &&
			       ((dir[j] >= 'A' && dir[j] <= 'Z') || dir[j] == '_'))
				tok[tl++] = dir[j++];
			tok[tl] = 0;
			if (br && (j >= dlen || dir[j] != '}'))
				return false;
			skip = j + br - i;
			if (!strcmp(tok, "ORIGIN")) {
				const char *sl = strrchr(loader->path, '/');

				if (!sl)
					val = ".";
				else if (sl == loader->path)
					val = "/";
				else {
					int n = snprintf(buf + o, len - o, "%.*s",
							 (int)(sl - loader->path),
							 loader->path);

					if (n < 0 || (size_t)n >= len - o)
						return false;
					o += (size_t)n;
					i += skip;
					continue;
				}
			} else if (!strcmp(tok, "LIB")) {
				/* Debian's: lib/MULTIARCH */
				int n = snprintf(buf + o, len - o, "lib%s%s",
						 s->arch->multiarch ? "/" : "",
						 s->arch->multiarch ? s->arch->multiarch : "");

				if (n < 0 || (size_t)n >= len - o)
					return false;
				o += (size_t)n;
				i += skip;
				continue;
			} else if (!strcmp(tok, "PLATFORM") && s->arch->platform) {
				val = s->arch->platform;
			} else {
				return false;
			}
		}
		if (val) {
			size_t vl = strlen(val);

			if (o + vl + 1 > len)
				return false;
			memcpy(buf + o, val, vl);
			o += vl;
			i += skip;
			continue;
		}
		if (o + 2 > len)
			return false;
		buf[o++] = dir[i++];
	}
	return snprintf(buf + o, len - o, "%s%s", o ? "/" : "", name) <
	       (int)(len - o);
}

/* @name in each directory of the ':'-separated @list: 1, 0 or -errno */
static int from_list(struct search *s, const struct dso *loader,
		     const char *list, const char *name, struct dso *d)
{
	const char *p = list, *end;
	char buf[PATH_MAX];
	int r;

	if (!list)
		return 0;
	for (;; p = end + 1) {
		end = strchrnul(p, ':');
		/* an empty element is the current directory, as for ld.so */
		if (expand(s, loader, end == p ? "." : p,
			   end == p ? 1 : (size_t)(end - p), name, buf, sizeof(buf))) {
			r = open_dso(s, buf, d);
			if (r)
				return r;
		}
		if (!*end)
			return 0;
	}
}

/* @name as ld.so looks for a DT_NEEDED of s->dsos[@from] */
static int find(struct search *s, int from, const char *name, struct dso *d)
{
	const struct dso *ld = &s->dsos[from];
	char dflt[4 * 64];
	int i, r = 0;

	if (strchr(name, '/'))
		return open_dso(s, name, d);
	for (i = from; !r && !ld->runpath && i >= 0; i = s->dsos[i].parent)
		r = from_list(s, &s->dsos[i], s->dsos[i].rpath, name, d);
	if (!r)
		r = from_list(s, ld, s->o.library_path, name, d);
	if (!r)
		r = from_list(s, ld, ld->runpath, name, d);
	if (!r)
		r = from_cache(s, name, d);
	if (!r) {
		if (s->arch->multiarch)
			snprintf(dflt, sizeof(dflt), "/lib/%s:/usr/lib/%s:/lib:/usr/lib",
				 s->arch->multiarch, s->arch->multiarch);
		else
			snprintf(dflt, sizeof(dflt), "/lib:/usr/lib");
		r = from_list(s, ld, dflt, name, d);
	}
	return r;
}

/* Already loaded: the same file (ld.so compares the inode) or the same
 * name as one loaded (its soname: the names of DT_NEEDED are sonames) */
static bool loaded(const struct search *s, const char *path)
{
	struct stat a, b;
	size_t i;

	if (stat(path, &a))
		return false;
	for (i = 0; i < s->n; i++)
		if (!stat(s->dsos[i].path, &b) && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino)
			return true;
	return false;
}

static bool named(const struct search *s, const char *name)
{
	size_t i;

	for (i = 1; i < s->n; i++) {
		const char *b = strrchr(s->dsos[i].path, '/');

		if (!strcmp(b ? b + 1 : s->dsos[i].path, name))
			return true;
	}
	return false;
}

static int push(struct search *s, struct dso *d, int parent)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct dso *v = realloc(s->dsos, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->dsos = v;
		s->cap = cap;
	}
	d->parent = parent;
	s->dsos[s->n++] = *d;
	return 0;
}

/* breadth first from the executable, s->dsos[0] */
static int closure(struct search *s)
{
	size_t at, k;
	int err = 0;

	for (at = 0; !err && at < s->n; at++) {
		for (k = 0; !err && k < s->dsos[at].nneeded; k++) {
			const char *name = s->dsos[at].needed[k];
			struct dso d;
			int r;

			if (named(s, name))
				continue;
			r = find(s, (int)at, name, &d);
			if (r < 0)
				return r;
			if (!r) {
				usdtkit__warn(&s->log, "%s: %s, which it needs, "
					      "is not found where the loader looks",
					      s->dsos[at].path, name);
				continue;
			}
			if (loaded(s, d.path)) {
				dso_free(&d);
				continue;
			}
			err = push(s, &d, (int)at);
			if (err)
				dso_free(&d);
		}
	}
	return err;
}

int usdtkit_needed(const char *exe, const struct usdtkit_needed_opts *opts,
		   char ***paths, size_t *n)
{
	struct search s = { 0 };
	struct dso d;
	size_t i;
	int err;

	if (!exe || !paths || !n)
		return -EINVAL;
	*paths = NULL;
	*n = 0;
	err = usdtkit__opts_copy(&s.o, usdtkit_needed_opts, opts);
	if (err)
		return err;
	s.log.print = s.o.print;
	s.log.ctx = s.o.print_ctx;
	elf_version(EV_CURRENT);
	err = open_dso(&s, exe, &d);
	if (err == 0) {
		err = access(exe, R_OK) ? -errno : -ENOEXEC;
		usdtkit__warn(&s.log, "%s: %s", exe, err == -ENOEXEC ?
			      "not an ELF object of a known machine" : strerror(-err));
		return err;
	}
	if (err > 0) {
		err = push(&s, &d, -1);
		if (err)
			dso_free(&d);
	}
	if (!err) {
		cache_load(&s);
		err = closure(&s);
	}
	if (!err && s.n > 1) {
		*paths = calloc(s.n - 1, sizeof(**paths));
		if (!*paths)
			err = -ENOMEM;
	}
	for (i = 0; i < s.n; i++) {
		if (!err && i) {
			(*paths)[i - 1] = s.dsos[i].path;
			s.dsos[i].path = NULL;
		}
		dso_free(&s.dsos[i]);
	}
	if (!err)
		*n = s.n ? s.n - 1 : 0;
	free(s.dsos);
	free(s.cache);
	return err;
}

void usdtkit_needed_free(char **paths, size_t n)
{
	size_t i;

	for (i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}
