// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The bytes of a file being opened, read on demand: see image.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/bytes.h"
#include "elf/image.h"

#define PAGE_SHIFT 12
#define PAGE_SZ ((uint64_t)1 << PAGE_SHIFT)

int usdtkit__image_init_fd(struct usdtkit_image *im, int fd, size_t size,
			   const struct usdtkit_log *lg, const char *name)
{
	size_t pages = (size + PAGE_SZ - 1) >> PAGE_SHIFT;
	void *p;

	memset(im, 0, sizeof(*im));
	im->fd = fd;
	im->size = size;
	im->lg = lg;
	im->name = name;
	/* address space only: pages are allocated when a read fills them */
	im->mapped = pages ? pages << PAGE_SHIFT : PAGE_SZ;
	p = mmap(NULL, im->mapped, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		im->mapped = 0;
		return -ENOMEM;
	}
	im->p = p;
	im->have = calloc(pages / 8 + 1, 1);
	return im->have ? 0 : -ENOMEM;
}

void usdtkit__image_init_mem(struct usdtkit_image *im, uint8_t *p, size_t size)
{
	memset(im, 0, sizeof(*im));
	im->fd = -1;
	im->p = p;
	im->size = size;
}

void usdtkit__image_fini(struct usdtkit_image *im)
{
	if (im->mapped)
		munmap(im->p, im->mapped);
	else
		free(im->p);
	free(im->have);
	memset(im, 0, sizeof(*im));
	im->fd = -1;
}

static bool have(const struct usdtkit_image *im, uint64_t pg)
{
	return im->have[pg >> 3] & (1u << (pg & 7));
}

/* pread() all of [off, off + len) into @dst, or fail naming the file. */
static int read_full(struct usdtkit_image *im, uint8_t *dst, uint64_t off,
		     uint64_t len)
{
	while (len) {
		ssize_t n = pread(im->fd, dst, (size_t)len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* n == 0: the end of the file came before the size
			 * fstat() gave: someone truncated it */
			im->err = n < 0 ? -errno : -EIO;
			usdtkit__warn(im->lg, "%s: %s at byte offset %llu (%llu bytes "
				      "at open: the file changed while it was read)",
				      im->name, n < 0 ? strerror(errno) :
				      "short read, the file shrank",
				      (unsigned long long)off,
				      (unsigned long long)im->size);
			return im->err;
		}
		dst += n;
		off += (uint64_t)n;
		len -= (uint64_t)n;
	}
	return 0;
}

/* pread() pages [first, last) in one go; the file's end may cut the last. */
static int read_pages(struct usdtkit_image *im, uint64_t first, uint64_t last)
{
	uint64_t off = first << PAGE_SHIFT, end = last << PAGE_SHIFT, pg;

	if (end > im->size)
		end = im->size;
	if (read_full(im, im->p + off, off, end - off))
		return im->err;
	for (pg = first; pg < last; pg++)
		im->have[pg >> 3] |= (uint8_t)(1u << (pg & 7));
	return 0;
}

int usdtkit__image_need(struct usdtkit_image *im, uint64_t off, uint64_t len)
{
	uint64_t pg, last, run;

	if (im->err || im->fd < 0)
		return im->err;
	if (off >= im->size || !len)
		return 0;
	if (len > im->size - off)
		len = im->size - off;
	pg = off >> PAGE_SHIFT;
	last = (off + len + PAGE_SZ - 1) >> PAGE_SHIFT;
	/* one pread per run of pages not read yet */
	while (pg < last) {
		if (have(im, pg)) {
			pg++;
			continue;
		}
		for (run = pg; run < last && !have(im, run); run++)
			;
		if (read_pages(im, pg, run))
			return im->err;
		pg = run;
	}
	return 0;
}

const uint8_t *usdtkit__image_bytes(struct usdtkit_image *im, uint64_t off,
				    size_t len)
{
	if (off > im->size || im->size - off < len)
		return NULL;
	return usdtkit__image_need(im, off, len) ? NULL : im->p + off;
}

int usdtkit__image_copy(struct usdtkit_image *im, uint64_t off, size_t len,
			void *dst)
{
	if (im->err)
		return im->err;
	if (off > im->size || im->size - off < len)
		return -ERANGE;
	if (im->fd < 0) {
		memcpy(dst, im->p + off, len);
		return 0;
	}
	return read_full(im, dst, off, len);
}

int usdtkit__image_need_scn(struct usdtkit_image *im, Elf *elf, size_t ndx)
{
	GElf_Shdr sh;

	if (!gelf_getshdr(elf_getscn(elf, ndx), &sh) || sh.sh_type == SHT_NOBITS)
		return im->err;
	return usdtkit__image_need(im, sh.sh_offset, sh.sh_size);
}

/*
 * elf_memory() reads the ELF header and section headers at once and the
 * program headers on first use, so they must be present before. Counts
 * of 0 (sections) and PN_XNUM (segments) live in section 0. Anything
 * that does not fit is clamped to the file: libelf then refuses it.
 */
int usdtkit__image_need_headers(struct usdtkit_image *im)
{
	const uint8_t *e;
	uint64_t phoff, shoff, phnum, shnum;
	size_t a, phent, shent;
	bool be;

	if (usdtkit__image_need(im, 0, 64))
		return im->err;
	e = im->p;
	if (im->size < 52 || memcmp(e, "\177ELF", 4) ||
	    (e[EI_CLASS] != ELFCLASS32 && e[EI_CLASS] != ELFCLASS64))
		return 0;	/* not ELF: libelf says so */
	be = e[EI_DATA] == ELFDATA2MSB;
	a = e[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	phent = a == 8 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	shent = a == 8 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	phoff = usdtkit__get_uint(e + 24 + a, a, be);
	shoff = usdtkit__get_uint(e + 24 + 2 * a, a, be);
	phnum = usdtkit__get_uint(e + 24 + 3 * a + 8, 2, be);
	shnum = usdtkit__get_uint(e + 24 + 3 * a + 12, 2, be);
	if (shoff && usdtkit__image_need(im, shoff, shent))
		return im->err;
	if (shoff && shoff <= im->size && im->size - shoff >= shent) {
		const uint8_t *s0 = im->p + shoff;

		if (!shnum)	/* sh_size of section 0 */
			shnum = usdtkit__get_uint(s0 + 8 + 3 * a, a, be);
		if (phnum == PN_XNUM)	/* sh_info of section 0 */
			phnum = usdtkit__get_uint(s0 + 12 + 4 * a, 4, be);
	}
	if (shoff && shnum <= im->size / shent &&
	    usdtkit__image_need(im, shoff, shnum * shent))
		return im->err;
	if (phoff && phnum <= im->size / phent &&
	    usdtkit__image_need(im, phoff, phnum * phent))
		return im->err;
	return 0;
}
