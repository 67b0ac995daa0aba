// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Opening an ELF file: identity -> arch backend, PT_LOAD segments, the
 * .note.stapsdt and .stapsdt.base sections, then every site is decoded,
 * placed, parsed and resolved. libelf is only used here and in symbols.c;
 * it is released before returning, so an open file is plain memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec/arch.h"
#include "elf/file.h"
#include "elf/image.h"
#include "base/opts.h"
#include "elf/symbols.h"

struct loader {
	struct usdtkit_file *f;
	Elf *elf;
	struct usdtkit_image *im;	/* the file's bytes, read on demand */
	Elf_Scn *notes;
	/* good notes go straight into f->sites, their strings pointing
	 * into the note section's bytes, which f->strings keeps */
	size_t sites_cap;
};

static int fail(struct usdtkit_file *f, int err, const char *why)
{
	usdtkit__warn(&f->log, "%s: %s", f->name, why);
	return -err;
}

/* Do @num entries of @entsize bytes at @off fit in @size bytes? */
static bool table_fits(uint64_t off, uint64_t num, size_t entsize, size_t size)
{
	return off <= size && num <= (size - off) / entsize;
}

/*
 * libelf quietly reads no sections (or fewer segments, some of them made
 * of whatever follows the table) when a header table does not fit in the
 * file: a corrupt file would read as one without probes. Refuse it.
 */
static int check_tables(struct loader *ld, const GElf_Ehdr *eh)
{
	struct usdtkit_file *f = ld->f;
	bool is64 = eh->e_ident[EI_CLASS] == ELFCLASS64;
	uint64_t num;
	GElf_Shdr sh0;
	size_t n;

	if (eh->e_shoff) {
		/* e_shnum 0: the count is in section 0; libelf reads none at
		 * all when that count does not fit in the file */
		num = eh->e_shnum;
		if (!num && !elf_getshdrnum(ld->elf, &n))
			num = n;
		if (!num ||
		    !table_fits(eh->e_shoff, num,
				is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr),
				ld->im->size))
			return fail(f, ENOEXEC,
				    "section header table runs past the end of the file");
	}
	if (eh->e_phoff && eh->e_phnum) {
		/* PN_XNUM: the real count is sh_info of section 0 */
		num = eh->e_phnum;
		if (num == PN_XNUM && gelf_getshdr(elf_getscn(ld->elf, 0), &sh0))
			num = sh0.sh_info;
		if (!table_fits(eh->e_phoff, num,
				is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr),
				ld->im->size))
			return fail(f, ENOEXEC,
				    "program header table runs past the end of the file");
	}
	return 0;
}

static int load_ident(struct loader *ld)
{
	struct usdtkit_file *f = ld->f;
	GElf_Ehdr eh;

	if (elf_kind(ld->elf) != ELF_K_ELF || !gelf_getehdr(ld->elf, &eh))
		return fail(f, ENOEXEC, "not an ELF file");
	f->arch = usdtkit_arch_by_elf(eh.e_machine, eh.e_ident[EI_CLASS],
				      eh.e_ident[EI_DATA]);
	if (!f->arch) {
		usdtkit__warn(&f->log, "%s: unsupported machine %u (class %u, data %u)",
			      f->name, eh.e_machine, eh.e_ident[EI_CLASS],
			      eh.e_ident[EI_DATA]);
		return -EPROTONOSUPPORT;
	}
	f->e_type = eh.e_type;
	return check_tables(ld, &eh);
}

int usdtkit__segments_read(Elf *elf, size_t file_size,
			   struct usdtkit_segment **segs, size_t *nsegs)
{
	size_t n, i;
	GElf_Phdr ph;

	*segs = NULL;
	*nsegs = 0;
	if (elf_getphdrnum(elf, &n) || !n)
		return 0;	/* e.g. ET_REL: sites get a per-site error */
	*segs = calloc(n, sizeof(**segs));
	if (!*segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct usdtkit_segment *s;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		s = &(*segs)[(*nsegs)++];
		s->vaddr = ph.p_vaddr;
		s->memsz = ph.p_memsz;
		s->offset = ph.p_offset;
		s->filesz = ph.p_filesz;
		s->flags = ph.p_flags;
		/* only bytes the file holds can be attached to: a segment
		 * running past the end would give offsets outside the file */
		if (s->offset > file_size)
			s->filesz = 0;
		else if (s->filesz > file_size - s->offset)
			s->filesz = file_size - s->offset;
	}
	return 0;
}

static int load_segments(struct loader *ld)
{
	return usdtkit__segments_read(ld->elf, ld->im->size, &ld->f->segs,
				      &ld->f->nsegs);
}

static int load_sections(struct loader *ld)
{
	struct usdtkit_file *f = ld->f;
	Elf_Scn *scn = NULL;
	size_t shstrndx, shnum;
	GElf_Shdr sh;

	if (elf_getshdrnum(ld->elf, &shnum) || shnum <= 1)
		return 0;	/* no sections: no notes */
	/* notes are found by section name: a file whose names cannot be
	 * read must not pass for one without probes */
	if (elf_getshdrstrndx(ld->elf, &shstrndx))
		return fail(f, ENOEXEC, "section names (e_shstrndx) are unreadable");
	if (usdtkit__image_need_scn(ld->im, ld->elf, shstrndx))
		return ld->im->err;
	if (!elf_strptr(ld->elf, shstrndx, 0))
		return fail(f, ENOEXEC, "section names (e_shstrndx) are unreadable");
	while ((scn = elf_nextscn(ld->elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(ld->elf, shstrndx, sh.sh_name);
		if (!name) {
			usdtkit__warn(&f->log, "%s: section %zu has an unreadable name, ignored",
				      f->name, elf_ndxscn(scn));
			continue;
		}
		if (!strcmp(name, ".stapsdt.base")) {
			f->has_base_scn = true;
			f->base_scn_addr = sh.sh_addr;
		} else if (!strcmp(name, ".note.stapsdt")) {
			if (sh.sh_type != SHT_NOTE)
				usdtkit__warn(&f->log, "%s: .note.stapsdt is not SHT_NOTE, ignored",
					      f->name);
			else if (!ld->notes)
				ld->notes = scn;
		}
	}
	return 0;
}

static int collect_note(void *ctx, const struct usdtkit_raw_note *n)
{
	struct loader *ld = ctx;
	struct usdtkit_file *f = ld->f;
	struct usdtkit_site *s;

	if (f->nsites == ld->sites_cap) {
		size_t cap = ld->sites_cap ? ld->sites_cap * 2 : 64;
		void *p = realloc(f->sites, cap * sizeof(*f->sites));

		if (!p)
			return -ENOMEM;
		f->sites = p;
		ld->sites_cap = cap;
	}
	s = &f->sites[f->nsites++];
	memset(s, 0, sizeof(*s));
	s->note_index = n->index;
	s->provider = n->provider;
	s->name = n->name;
	s->args_text = n->args;
	s->pc = n->pc;
	s->base = n->base;
	s->sema = n->sema;
	return 0;
}

/*
 * The note section is read into a buffer of its own, which becomes
 * f->strings: the provider, name and args strings of every site point
 * into it, NUL-terminated as the notes hold them, and are never copied.
 */
static int decode_notes(struct loader *ld)
{
	struct usdtkit_file *f = ld->f;
	GElf_Shdr sh;
	int err;

	if (!ld->notes)
		return 0;
	if (!gelf_getshdr(ld->notes, &sh) || sh.sh_offset > ld->im->size ||
	    sh.sh_size > ld->im->size - sh.sh_offset)
		return fail(f, EINVAL, "cannot read .note.stapsdt");
	if (!sh.sh_size)
		return 0;
	f->strings = malloc(sh.sh_size);
	if (!f->strings)
		return -ENOMEM;
	err = usdtkit__image_copy(ld->im, sh.sh_offset, sh.sh_size, f->strings);
	if (err)
		return err;
	f->bad_notes = usdtkit__notes_decode(&f->log, f->name,
					     (const uint8_t *)f->strings, sh.sh_size,
					     f->arch->elf_class == USDTKIT_ELFCLASS64,
					     f->arch->elf_data == USDTKIT_ELFDATA2MSB,
					     collect_note, ld);
	return 0;
}

/*
 * Arguments are separated by blanks and an operand has at least one
 * non-blank byte, so the words of an args string bound its arg count.
 */
static size_t count_words(const char *s)
{
	size_t n = 0;
	bool in = false;

	for (; *s; s++) {
		/* the spec splitter's blanks */
		bool blank = *s == ' ' || (*s >= '\t' && *s <= '\r');

		n += !blank && !in;
		in = !blank;
	}
	return n;
}

/*
 * A big args array (a 10,000-site file has 5.8 MB of arguments) is
 * aligned for transparent huge pages and asks for them: page by page,
 * first-touch faults cost more than the parsing that fills the pages.
 * MADV_HUGEPAGE is only a hint; without THP the array works the same.
 */
#define HUGE_SZ (2u << 20)

static struct usdtkit_arg *args_alloc(size_t n)
{
	size_t bytes = (n ? n : 1) * sizeof(struct usdtkit_arg);
	void *p;

	if (bytes < HUGE_SZ)
		return malloc(bytes);
	bytes = (bytes + HUGE_SZ - 1) & ~(size_t)(HUGE_SZ - 1);
	p = aligned_alloc(HUGE_SZ, bytes);
	if (p)
		madvise(p, bytes, MADV_HUGEPAGE);
	return p;
}

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/*
 * Parse the args of every site into one array owned by the file. The
 * array is sized from a word count, an upper bound, so it does not move:
 * no realloc copying megabytes on big files, and the bytes past the end
 * of what is used are never touched, so they cost no page faults. Should
 * the bound ever be short, the array grows; sites get their pointers at
 * the end, when it no longer moves.
 *
 * A site decodes at most USDTKIT_SITE_MAX_ARGS arguments and counts the
 * rest (usdtkit_args_parse() only counts past its @max_args): a note of
 * 16 million "1 " took 785 MB before, now its 32 MB string and 64 args.
 */
static int parse_all(struct usdtkit_file *f)
{
	size_t i, used = 0, cap = 0, room;
	struct usdtkit_arg *args;
	int n;

	for (i = 0; i < f->nsites; i++)
		cap += min_size(count_words(f->sites[i].args_text),
				USDTKIT_SITE_MAX_ARGS);
	args = args_alloc(cap);
	if (!args)
		return -ENOMEM;
	f->args = args;
	for (i = 0; i < f->nsites; i++) {
		struct usdtkit_site *s = &f->sites[i];
		size_t len = strlen(s->args_text);

		room = min_size(cap - used, USDTKIT_SITE_MAX_ARGS);
		n = usdtkit_args_parse(f->arch, s->args_text, len, args + used, room);
		if (n < 0)
			return n;
		s->nargs_total = n;
		s->nargs = (int)min_size((size_t)n, USDTKIT_SITE_MAX_ARGS);
		if ((size_t)s->nargs > room) {
			cap = used + (size_t)s->nargs;
			args = realloc(args, cap * sizeof(*args));
			if (!args)
				return -ENOMEM;
			f->args = args;
			usdtkit_args_parse(f->arch, s->args_text, len, args + used,
					   (size_t)s->nargs);
		}
		used += (size_t)s->nargs;
	}
	for (i = 0, used = 0; i < f->nsites; i++) {
		f->sites[i].args = args + used;
		used += (size_t)f->sites[i].nargs;
	}
	return 0;
}

static int build_sites(struct loader *ld)
{
	struct usdtkit_file *f = ld->f;
	size_t i;

	if (!f->sites) {
		f->sites = calloc(1, sizeof(*f->sites));
		if (!f->sites)
			return -ENOMEM;
	}
	for (i = 0; i < f->nsites; i++) {
		f->sites[i].file = f;
		usdtkit__site_place(f, &f->sites[i], ld->im);
	}
	return parse_all(f);
}

static bool needs_symbols(const struct usdtkit_file *f)
{
	size_t i;
	int k;

	for (i = 0; i < f->nsites; i++)
		for (k = 0; k < f->sites[i].nargs; k++)
			if (f->sites[i].args[k].kind == USDTKIT_LOC_SYMBOL)
				return true;
	return false;
}

static int resolve_symbols(struct loader *ld)
{
	struct usdtkit_file *f = ld->f;
	struct usdtkit_symtab *t;
	size_t i;

	if (!needs_symbols(f))
		return 0;
	t = usdtkit__symtab_load(ld->elf, ld->im);
	if (ld->im->err)
		return ld->im->err;
	for (i = 0; i < f->nsites; i++)
		usdtkit__site_resolve(f, &f->sites[i], t);
	usdtkit__symtab_free(t);
	return 0;
}

/*
 * A read that came up short (the file shrank under us) may have left
 * zeros where libelf or a site looked: whatever was built from them is
 * not the file, so the open fails with the image's error.
 */
static int load(struct usdtkit_file *f, Elf *elf, struct usdtkit_image *im)
{
	struct loader ld = { .f = f, .elf = elf, .im = im };
	int err;

	err = load_ident(&ld);
	if (!err)
		err = load_segments(&ld);
	if (!err)
		err = load_sections(&ld);
	if (!err)
		err = decode_notes(&ld);
	if (!err)
		err = build_sites(&ld);
	if (!err)
		err = resolve_symbols(&ld);
	return err ? err : im->err;
}

static struct usdtkit_file *file_new(const struct usdtkit_open_opts *user,
				     const char *name)
{
	struct usdtkit_open_opts o;
	struct usdtkit_file *f;
	int err = usdtkit__opts_copy(&o, usdtkit_open_opts, user);

	if (err) {
		errno = -err;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->log.print = o.print;
	f->log.ctx = o.print_ctx;
	if (o.name)
		name = o.name;
	f->name = strdup(name);
	if (!f->name) {
		free(f);
		return NULL;
	}
	return f;
}

/* Finish an open: on error free @f and set errno. */
static struct usdtkit_file *finish(struct usdtkit_file *f, int err)
{
	if (!err)
		return f;
	usdtkit_file_close(f);
	errno = -err;
	return NULL;
}

static int check_fd(struct usdtkit_file *f, int fd, off_t *size)
{
	struct stat st;

	if (fstat(fd, &st))
		return fail(f, errno, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return fail(f, EISDIR, "is a directory");
	if (!S_ISREG(st.st_mode))
		return fail(f, EINVAL, "not a regular file");
	*size = st.st_size;
	return 0;
}

/* libelf over @im, which holds the headers already. */
static int load_image(struct usdtkit_file *f, struct usdtkit_image *im)
{
	Elf *elf;
	int err;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)im->p, im->size);
	if (!elf)
		return fail(f, ENOEXEC, elf_errmsg(-1));
	err = load(f, elf, im);
	elf_end(elf);
	return err;
}

struct usdtkit_file *usdtkit_file_open_fd(int fd, const struct usdtkit_open_opts *opts)
{
	struct usdtkit_file *f = file_new(opts, "<fd>");
	struct usdtkit_image im;
	off_t size = 0;
	int err;

	if (!f)
		return NULL;
	err = check_fd(f, fd, &size);
	if (err)
		return finish(f, err);
	if (!size)
		return finish(f, fail(f, ENOEXEC, "not an ELF file (empty)"));
	if ((uint64_t)size > SIZE_MAX)
		return finish(f, fail(f, EFBIG, "file too large to read"));
	/* not a mapping of the file: see core/elf/image.h */
	err = usdtkit__image_init_fd(&im, fd, (size_t)size, &f->log, f->name);
	if (!err)
		err = usdtkit__image_need_headers(&im);
	if (!err)
		err = load_image(f, &im);
	usdtkit__image_fini(&im);
	return finish(f, err);
}

struct usdtkit_file *usdtkit_file_open(const char *path,
				       const struct usdtkit_open_opts *opts)
{
	struct usdtkit_file *f;
	USDTKIT_OPTS(usdtkit_open_opts, o);
	int fd, err;

	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	err = usdtkit__opts_copy(&o, usdtkit_open_opts, opts);
	if (err) {
		errno = -err;
		return NULL;
	}
	if (!o.name)
		o.name = path;
	/* O_NONBLOCK: a FIFO without a writer must be refused by check_fd(),
	 * not waited on forever; it changes nothing for regular files */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		err = errno;
		f = file_new(&o, path);
		if (f)
			fail(f, err, strerror(err));
		usdtkit_file_close(f);
		errno = err;
		return NULL;
	}
	f = usdtkit_file_open_fd(fd, &o);
	err = errno;
	close(fd);
	errno = err;
	return f;
}

struct usdtkit_file *usdtkit_file_open_mem(const void *buf, size_t size,
					   const struct usdtkit_open_opts *opts)
{
	struct usdtkit_file *f = file_new(opts, "<memory>");
	struct usdtkit_image im;
	uint8_t *copy;
	int err;

	if (!f)
		return NULL;
	if (!buf || !size)
		return finish(f, fail(f, ENOEXEC, "not an ELF file (empty)"));
	/* libelf may convert in place: give it our own copy */
	copy = malloc(size);
	if (!copy)
		return finish(f, -ENOMEM);
	memcpy(copy, buf, size);
	usdtkit__image_init_mem(&im, copy, size);
	err = load_image(f, &im);
	usdtkit__image_fini(&im);
	return finish(f, err);
}

void usdtkit_file_close(struct usdtkit_file *f)
{
	if (!f)
		return;
	free(f->sites);
	free(f->strings);
	free(f->args);
	free(f->segs);
	free(f->name);
	free(f);
}
