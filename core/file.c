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
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "file.h"
#include "symbols.h"

struct loader {
	struct usdtkit_file *f;
	Elf *elf;
	const uint8_t *image;	/* the whole file */
	size_t image_size;
	Elf_Scn *notes;
	/* good notes, collected before sites are built */
	struct usdtkit_raw_note *raw;
	size_t nraw, raw_cap;
	size_t str_bytes;
};

static int fail(struct usdtkit_file *f, int err, const char *why)
{
	usdtkit__warn(&f->log, "%s: %s", f->name, why);
	return -err;
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
	return 0;
}

static int load_segments(struct loader *ld)
{
	struct usdtkit_file *f = ld->f;
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(ld->elf, &n) || !n)
		return 0;	/* e.g. ET_REL: sites get a per-site error */
	f->segs = calloc(n, sizeof(*f->segs));
	if (!f->segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct usdtkit_segment *s;

		if (!gelf_getphdr(ld->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		s = &f->segs[f->nsegs++];
		s->vaddr = ph.p_vaddr;
		s->memsz = ph.p_memsz;
		s->offset = ph.p_offset;
		s->filesz = ph.p_filesz;
		s->flags = ph.p_flags;
	}
	return 0;
}

static int load_sections(struct loader *ld)
{
	struct usdtkit_file *f = ld->f;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(ld->elf, &shstrndx))
		return 0;	/* no sections: no notes */
	while ((scn = elf_nextscn(ld->elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(ld->elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
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

	if (ld->nraw == ld->raw_cap) {
		size_t cap = ld->raw_cap ? ld->raw_cap * 2 : 64;
		void *p = realloc(ld->raw, cap * sizeof(*ld->raw));

		if (!p)
			return -ENOMEM;
		ld->raw = p;
		ld->raw_cap = cap;
	}
	ld->raw[ld->nraw++] = *n;
	ld->str_bytes += n->provider_len + n->name_len + n->args_len + 3;
	return 0;
}

static int decode_notes(struct loader *ld)
{
	struct usdtkit_file *f = ld->f;
	Elf_Data *d;

	if (!ld->notes)
		return 0;
	d = elf_rawdata(ld->notes, NULL);
	if (!d || !d->d_buf)
		return d ? 0 : fail(f, EINVAL, "cannot read .note.stapsdt");
	f->bad_notes = usdtkit__notes_decode(&f->log, f->name, d->d_buf, d->d_size,
					     f->arch->elf_class == USDTKIT_ELFCLASS64,
					     f->arch->elf_data == USDTKIT_ELFDATA2MSB,
					     collect_note, ld);
	return 0;
}

static char *copy_str(char **dst, const char *s, size_t len)
{
	char *r = *dst;

	memcpy(r, s, len);
	r[len] = 0;
	*dst += len + 1;
	return r;
}

/* Parse the args of every site into one array owned by the file. */
static int parse_all(struct usdtkit_file *f)
{
	size_t i, total = 0, used = 0;
	int n;

	for (i = 0; i < f->nsites; i++) {
		const char *t = f->sites[i].args_text;

		n = usdtkit_args_parse(f->arch, t, strlen(t), NULL, 0);
		if (n < 0)
			return n;
		f->sites[i].nargs = n;
		total += (size_t)n;
	}
	f->args = calloc(total ? total : 1, sizeof(*f->args));
	if (!f->args)
		return -ENOMEM;
	for (i = 0; i < f->nsites; i++) {
		struct usdtkit_site *s = &f->sites[i];

		s->args = f->args + used;
		usdtkit_args_parse(f->arch, s->args_text, strlen(s->args_text),
				   s->args, (size_t)s->nargs);
		used += (size_t)s->nargs;
	}
	return 0;
}

static int build_sites(struct loader *ld)
{
	struct usdtkit_file *f = ld->f;
	char *str;
	size_t i;

	f->sites = calloc(ld->nraw ? ld->nraw : 1, sizeof(*f->sites));
	f->strings = malloc(ld->str_bytes ? ld->str_bytes : 1);
	if (!f->sites || !f->strings)
		return -ENOMEM;
	str = f->strings;
	for (i = 0; i < ld->nraw; i++) {
		const struct usdtkit_raw_note *r = &ld->raw[i];
		struct usdtkit_site *s = &f->sites[i];

		s->file = f;
		s->note_index = r->index;
		s->provider = copy_str(&str, r->provider, r->provider_len);
		s->name = copy_str(&str, r->name, r->name_len);
		s->args_text = copy_str(&str, r->args, r->args_len);
		s->pc = r->pc;
		s->base = r->base;
		s->sema = r->sema;
		usdtkit__site_place(f, s, ld->image, ld->image_size);
	}
	f->nsites = ld->nraw;
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

static void resolve_symbols(struct loader *ld)
{
	struct usdtkit_file *f = ld->f;
	struct usdtkit_symtab *t;
	size_t i;

	if (!needs_symbols(f))
		return;
	t = usdtkit__symtab_load(ld->elf);
	for (i = 0; i < f->nsites; i++)
		usdtkit__site_resolve(f, &f->sites[i], t);
	usdtkit__symtab_free(t);
}

static int load(struct usdtkit_file *f, Elf *elf)
{
	struct loader ld = { .f = f, .elf = elf };
	int err;

	ld.image = (const uint8_t *)elf_rawfile(elf, &ld.image_size);
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
		resolve_symbols(&ld);
	free(ld.raw);
	return err;
}

static struct usdtkit_file *file_new(const struct usdtkit_open_opts *opts,
				     const char *name)
{
	struct usdtkit_file *f;

	if (opts && opts->sz < sizeof(*opts)) {
		errno = EINVAL;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	if (opts) {
		f->log.print = opts->print;
		f->log.ctx = opts->print_ctx;
		if (opts->name)
			name = opts->name;
	}
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

static int check_fd(struct usdtkit_file *f, int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return fail(f, errno, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return fail(f, EISDIR, "is a directory");
	if (!S_ISREG(st.st_mode))
		return fail(f, EINVAL, "not a regular file");
	return 0;
}

struct usdtkit_file *usdtkit_file_open_fd(int fd, const struct usdtkit_open_opts *opts)
{
	struct usdtkit_file *f = file_new(opts, "<fd>");
	Elf *elf;
	int err;

	if (!f)
		return NULL;
	err = check_fd(f, fd);
	if (err)
		return finish(f, err);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return finish(f, fail(f, ENOEXEC, elf_errmsg(-1)));
	err = load(f, elf);
	elf_end(elf);
	return finish(f, err);
}

struct usdtkit_file *usdtkit_file_open(const char *path,
				       const struct usdtkit_open_opts *opts)
{
	struct usdtkit_file *f;
	struct usdtkit_open_opts o = { .sz = sizeof(o) };
	int fd, err;

	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	if (opts && opts->sz >= sizeof(o))
		o = *opts;
	if (!o.name)
		o.name = path;
	fd = open(path, O_RDONLY | O_CLOEXEC);
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
	char *copy;
	Elf *elf;
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
	elf_version(EV_CURRENT);
	elf = elf_memory(copy, size);
	if (!elf) {
		free(copy);
		return finish(f, fail(f, ENOEXEC, elf_errmsg(-1)));
	}
	err = load(f, elf);
	elf_end(elf);
	free(copy);
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
