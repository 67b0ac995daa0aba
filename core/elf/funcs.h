/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An ELF object's functions by address, for naming user stack frames
 * (core/elf/ustack.c): its PT_LOAD segments, which turn a file offset
 * into the object's own virtual address (PIE, shared and prelinked
 * objects alike: the load bias never enters), and its FUNC symbols
 * sorted by address, names copied, so that nothing of the file or of
 * libelf is kept once it is read.
 */
#ifndef USDTKIT_CORE_FUNCS_H
#define USDTKIT_CORE_FUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct usdtkit__funcs;

/* The object in the regular file @fd: NULL with errno (ENOEXEC: not ELF
 * or unreadable headers; EIO: truncated while read; ENOMEM). */
struct usdtkit__funcs *usdtkit__funcs_open_fd(int fd);
void usdtkit__funcs_free(struct usdtkit__funcs *f);

/* Its GNU build id (NT_GNU_BUILD_ID): the length, 0 when it has none. */
size_t usdtkit__funcs_build_id(const struct usdtkit__funcs *f, const uint8_t **id);

/* Whether its names come from a .symtab (else .dynsym, or none). */
bool usdtkit__funcs_full(const struct usdtkit__funcs *f);

/*
 * Take @dbg, the separate debug file of @f (the same build id, e.g.
 * /usr/lib/debug/.build-id/xx/yyyy.debug), when it has a .symtab: its
 * addresses are @f's, and usdtkit__funcs_find() looks there for what
 * @f's own table does not name. 0: @dbg is @f's now (freed with it);
 * -ENOENT: not taken, still the caller's.
 */
int usdtkit__funcs_adopt(struct usdtkit__funcs *f, struct usdtkit__funcs *dbg);

/* The object's virtual address of file offset @off: 0, or -ENOENT when
 * no PT_LOAD segment holds that offset. */
int usdtkit__funcs_vaddr(const struct usdtkit__funcs *f, uint64_t off,
			 uint64_t *vaddr);

/* The function whose [value, value + size) holds @vaddr: the nearest
 * one starting at or before it, in @f's own table (.symtab, else
 * .dynsym), else in its debug file's. 0, *@name and *@off; -ENOENT. */
int usdtkit__funcs_find(const struct usdtkit__funcs *f, uint64_t vaddr,
			const char **name, uint64_t *off);

#endif
