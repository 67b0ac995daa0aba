/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Symbol lookup for symbol-relative arguments: .symtab, then .dynsym. */
#ifndef USDTKIT_CORE_SYMBOLS_H
#define USDTKIT_CORE_SYMBOLS_H

#include <gelf.h>

#include "elf/file.h"

struct usdtkit_symtab;

struct usdtkit_image;

/* Make the bytes of every symbol table of @elf and of its string table
 * present in @im before libelf reads them: 0 or im->err. */
int usdtkit__symscn_need(Elf *elf, struct usdtkit_image *im);

/* How many symbols section @scn holds as libelf reads it (*@data): its
 * data bounds the count whatever sh_size and sh_entsize claim. */
size_t usdtkit__symscn_count(Elf *elf, Elf_Scn *scn, Elf_Data **data);

/* The symbols of every SHT_SYMTAB and SHT_DYNSYM section of @elf, each
 * counted as usdtkit__symscn_count() does: an upper bound for a table. */
size_t usdtkit__symscn_total(Elf *elf);

/* Index the defined symbols of @elf, whose symbol and string tables are
 * read into @im first; NULL with errno on failure (a read error stays in
 * im->err). */
struct usdtkit_symtab *usdtkit__symtab_load(Elf *elf, struct usdtkit_image *im);
void usdtkit__symtab_free(struct usdtkit_symtab *t);

/* 0 and *addr; -ENOENT when no symbol has that name; -EEXIST when several
 * symbols with different addresses do (GCC statics named alike). */
int usdtkit__symtab_find(const struct usdtkit_symtab *t, const char *name,
			 size_t len, uint64_t *addr);

/* How many slots a lookup of @name looks at: the work of finding it,
 * and of having inserted it. For tests (test_elf_hard), which prove with
 * it that no set of names makes the index quadratic; not exported. */
size_t usdtkit__symtab_probes(const struct usdtkit_symtab *t, const char *name,
			      size_t len);

/* Resolve every symbol-relative argument of @s in place. */
void usdtkit__site_resolve(const struct usdtkit_file *f, struct usdtkit_site *s,
			   const struct usdtkit_symtab *t);

#endif
