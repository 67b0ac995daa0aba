// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An ELF object's functions by address: see funcs.h. The file is read as
 * every other ELF file of the library (core/elf/image.c: pread() into
 * memory the library owns, so a file truncated under us is an error,
 * never SIGBUS), its symbol tables through symbols.c's readers and its
 * segments through file.c's, then libelf and the image are let go.
 *
 * What names a frame is what bcc (so bpftrace's ustack) takes: the
 * FUNC and IFUNC symbols defined with a size, from .symtab when the
 * file has one, else from .dynsym; an address is named by the nearest
 * symbol starting at or before it, if it lies within that symbol's size.
 * Of several symbols at one address (aliases), a GLOBAL one wins over a
 * WEAK one over a LOCAL one, then the first in the table: bcc leaves
 * that order unspecified, usdtkit makes it stable.
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "elf/file.h"
#include "elf/funcs.h"
#include "elf/image.h"
#include "elf/symbols.h"

#define BUILD_ID_MAX 64

struct fn {
	uint64_t start, size;
	size_t name;		/* offset in names */
	uint64_t rank;		/* among aliases: binding, then table order */
};

struct usdtkit__funcs {
	struct usdtkit_segment *segs;
	size_t nsegs;
	struct fn *fns;
	size_t nfns;
	char *names;
	bool full;		/* names from a .symtab */
	struct usdtkit__funcs *dbg;	/* its separate debug file's, if any */
	size_t build_id_len;
	uint8_t build_id[BUILD_ID_MAX];
};

/* What a table is built in: room for every symbol the file holds. */
struct builder {
	struct usdtkit__funcs *f;
	size_t cap, names_len, names_cap;
	bool thumb;		/* arm: bit 0 of a function's value is the mode */
};

static int add_name(struct builder *b, const char *name, size_t *at)
{
	size_t len = strlen(name) + 1;

	if (b->names_cap - b->names_len < len) {
		size_t cap = b->names_cap ? b->names_cap : 4096;
		char *n;

		while (cap - b->names_len < len)
			cap *= 2;
		n = realloc(b->f->names, cap);
		if (!n)
			return -ENOMEM;
		b->f->names = n;
		b->names_cap = cap;
	}
	memcpy(b->f->names + b->names_len, name, len);
	*at = b->names_len;
	b->names_len += len;
	return 0;
}

static bool is_func(const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       s->st_shndx != SHN_UNDEF && s->st_size && s->st_name;
}

static uint64_t bind_rank(const GElf_Sym *s)
{
	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL: return 0;
	case STB_WEAK: return 1;
	default: return 2;
	}
}

static int load_scn(struct builder *b, Elf *elf, Elf_Scn *scn, size_t strndx)
{
	struct usdtkit__funcs *f = b->f;
	Elf_Data *data;
	size_t i, n = usdtkit__symscn_count(elf, scn, &data);
	GElf_Sym sym;
	int err;

	for (i = 0; i < n && f->nfns < b->cap; i++) {
		struct fn *fn = &f->fns[f->nfns];
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym) || !is_func(&sym))
			continue;
		/* bogus name indices make elf_strptr() return NULL */
		name = elf_strptr(elf, strndx, sym.st_name);
		if (!name || !*name)
			continue;
		err = add_name(b, name, &fn->name);
		if (err)
			return err;
		fn->start = b->thumb ? sym.st_value & ~1ull : sym.st_value;
		fn->size = sym.st_size;
		fn->rank = bind_rank(&sym) << 32 | (i & 0xffffffffu);
		f->nfns++;
	}
	return 0;
}

/* The functions of every section of @type (SHT_SYMTAB or SHT_DYNSYM). */
static int load_type(struct builder *b, Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type) {
			err = load_scn(b, elf, scn, sh.sh_link);
			if (err)
				return err;
		}
	return 0;
}

static int cmp_fn(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Sorted by address, one function per address (see the top comment). */
static void sort_fns(struct usdtkit__funcs *f)
{
	size_t i, k = 0;

	qsort(f->fns, f->nfns, sizeof(*f->fns), cmp_fn);
	for (i = 0; i < f->nfns; i++)
		if (!k || f->fns[k - 1].start != f->fns[i].start)
			f->fns[k++] = f->fns[i];
	f->nfns = k;
}

static int load_fns(struct usdtkit__funcs *f, Elf *elf, struct usdtkit_image *im,
		    int machine)
{
	struct builder b = { .f = f, .thumb = machine == EM_ARM };
	int err = usdtkit__symscn_need(elf, im);

	if (err)
		return err;
	b.cap = usdtkit__symscn_total(elf);
	if (!b.cap)
		return 0;
	f->fns = calloc(b.cap, sizeof(*f->fns));
	if (!f->fns)
		return -ENOMEM;
	err = load_type(&b, elf, SHT_SYMTAB);
	f->full = f->nfns > 0;
	if (!err && !f->nfns)
		err = load_type(&b, elf, SHT_DYNSYM);
	if (!err)
		sort_fns(f);
	return err;
}

/* NT_GNU_BUILD_ID of owner "GNU" in any SHT_NOTE section. */
static void load_build_id(struct usdtkit__funcs *f, Elf *elf,
			  struct usdtkit_image *im)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		size_t off = 0, name_off, desc_off;
		Elf_Data *data;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    usdtkit__image_need_scn(im, elf, elf_ndxscn(scn)))
			continue;
		data = elf_getdata(scn, NULL);
		while (data &&
		       (off = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)data->d_buf + name_off, "GNU", 4) ||
			    !nh.n_descsz || nh.n_descsz > BUILD_ID_MAX)
				continue;
			memcpy(f->build_id, (char *)data->d_buf + desc_off, nh.n_descsz);
			f->build_id_len = nh.n_descsz;
			return;
		}
	}
}

static int load(struct usdtkit__funcs *f, struct usdtkit_image *im)
{
	GElf_Ehdr eh;
	Elf *elf;
	int err;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)im->p, im->size);
	if (!elf)
		return -ENOEXEC;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		elf_end(elf);
		return -ENOEXEC;
	}
	err = usdtkit__segments_read(elf, im->size, &f->segs, &f->nsegs);
	if (!err)
		err = load_fns(f, elf, im, eh.e_machine);
	if (!err)
		load_build_id(f, elf, im);
	elf_end(elf);
	/* a short read left zeros where libelf looked: not the file */
	return err ? err : im->err;
}

struct usdtkit__funcs *usdtkit__funcs_open_fd(int fd)
{
	struct usdtkit__funcs *f;
	struct usdtkit_image im;
	struct stat st;
	int err;

	if (fstat(fd, &st))
		return NULL;
	if (!S_ISREG(st.st_mode) || !st.st_size || (uint64_t)st.st_size > SIZE_MAX) {
		errno = ENOEXEC;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	/* no log: a frame that cannot be named shows its address */
	err = usdtkit__image_init_fd(&im, fd, (size_t)st.st_size, NULL, "");
	if (!err)
		err = usdtkit__image_need_headers(&im);
	if (!err)
		err = load(f, &im);
	usdtkit__image_fini(&im);
	if (err) {
		usdtkit__funcs_free(f);
		errno = -err;
		return NULL;
	}
	return f;
}

void usdtkit__funcs_free(struct usdtkit__funcs *f)
{
	if (!f)
		return;
	free(f->segs);
	free(f->fns);
	free(f->names);
	usdtkit__funcs_free(f->dbg);
	free(f);
}

size_t usdtkit__funcs_build_id(const struct usdtkit__funcs *f, const uint8_t **id)
{
	*id = f->build_id;
	return f->build_id_len;
}

bool usdtkit__funcs_full(const struct usdtkit__funcs *f)
{
	return f->full;
}

int usdtkit__funcs_adopt(struct usdtkit__funcs *f, struct usdtkit__funcs *dbg)
{
	if (f->dbg || !dbg->full || dbg->build_id_len != f->build_id_len ||
	    memcmp(dbg->build_id, f->build_id, f->build_id_len))
		return -ENOENT;
	f->dbg = dbg;
	return 0;
}

int usdtkit__funcs_vaddr(const struct usdtkit__funcs *f, uint64_t off,
			 uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < f->nsegs; i++) {
		const struct usdtkit_segment *s = &f->segs[i];

		if (off >= s->offset && off - s->offset < s->filesz) {
			*vaddr = s->vaddr + (off - s->offset);
			return 0;
		}
	}
	return -ENOENT;
}

static int find_in(const struct usdtkit__funcs *f, uint64_t vaddr,
		   const char **name, uint64_t *off)
{
	size_t lo = 0, hi = f->nfns;
	const struct fn *fn;

	/* the first function starting after @vaddr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->fns[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	fn = &f->fns[lo - 1];
	if (vaddr - fn->start >= fn->size)
		return -ENOENT;
	*name = f->names + fn->name;
	*off = vaddr - fn->start;
	return 0;
}

/* the object's own table first (.symtab, else .dynsym: the names it
 * exports), then its debug file's .symtab for the rest (static
 * functions of a stripped object) */
int usdtkit__funcs_find(const struct usdtkit__funcs *f, uint64_t vaddr,
			const char **name, uint64_t *off)
{
	if (!find_in(f, vaddr, name, off))
		return 0;
	return f->dbg ? find_in(f->dbg, vaddr, name, off) : -ENOENT;
}
