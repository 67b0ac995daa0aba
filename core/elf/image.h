/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The bytes of a file being opened, in memory the library owns.
 *
 * A mapping of the file itself dies by SIGBUS when another process
 * truncates the file under it (a container owner can do that to
 * `list -p`). Instead the image is an anonymous mapping of the file's
 * size into which only the ranges the loader needs are read with
 * pread(): headers, section names, notes, symbol tables, the code bytes
 * of each site. Untouched pages cost nothing. libelf gets the image
 * through elf_memory(), with the same bounds checks as a mapped file.
 * A short read (the file shrank) is an error naming the file.
 */
#ifndef USDTKIT_CORE_IMAGE_H
#define USDTKIT_CORE_IMAGE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/log.h"

struct usdtkit_image {
	uint8_t *p;		/* size bytes (at least one page mapped) */
	size_t size;		/* file size at open */
	size_t mapped;		/* length of our mapping; 0: p is a heap copy */
	int fd;			/* -1: every byte of p is present */
	uint8_t *have;		/* one bit per page read from fd */
	int err;		/* first read error: 0 or -errno */
	const struct usdtkit_log *lg;
	const char *name;
};

/* An image of the regular file @fd, @size bytes; nothing read yet. */
int usdtkit__image_init_fd(struct usdtkit_image *im, int fd, size_t size,
			   const struct usdtkit_log *lg, const char *name);
/* An image whose bytes are all in @p (owned: freed by image_fini). */
void usdtkit__image_init_mem(struct usdtkit_image *im, uint8_t *p, size_t size);
void usdtkit__image_fini(struct usdtkit_image *im);

/*
 * Make [off, off + len) present (the part inside the file). 0, or the
 * image's first error (-EIO when the file shrank), which stays set.
 */
int usdtkit__image_need(struct usdtkit_image *im, uint64_t off, uint64_t len);

/* @len bytes at @off, read if needed; NULL when outside the file or on a
 * read error (im->err says which). */
const uint8_t *usdtkit__image_bytes(struct usdtkit_image *im, uint64_t off,
				    size_t len);

/* Copy [off, off + len) to @dst straight from the file (not through the
 * image's pages): 0, -ERANGE when it is not inside the file, or the read
 * error. */
int usdtkit__image_copy(struct usdtkit_image *im, uint64_t off, size_t len,
			void *dst);

/* Make the bytes of section @ndx present before libelf reads them. */
int usdtkit__image_need_scn(struct usdtkit_image *im, Elf *elf, size_t ndx);

/* The ELF header and both header tables: what elf_memory() reads. */
int usdtkit__image_need_headers(struct usdtkit_image *im);

#endif
