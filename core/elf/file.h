/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal state of an opened ELF file: everything is read at open time
 * (notes, segments, symbols when an argument needs them), then libelf is
 * done with, so a struct usdtkit_file is plain memory.
 */
#ifndef USDTKIT_CORE_FILE_H
#define USDTKIT_CORE_FILE_H

#include <gelf.h>

#include <usdtkit/usdtkit.h>

#include "base/log.h"

struct usdtkit_segment {
	uint64_t vaddr;
	uint64_t memsz;
	uint64_t offset;
	uint64_t filesz;
	uint32_t flags;		/* PF_X, PF_W, PF_R */
};

struct usdtkit_site {
	const struct usdtkit_file *file;
	uint32_t note_index;
	const char *provider;	/* into file->strings */
	const char *name;
	const char *args_text;
	uint64_t pc;		/* prelink-adjusted */
	uint64_t base;		/* as in the note */
	uint64_t sema;		/* prelink-adjusted, 0 if none */
	uint64_t pc_offset;
	uint64_t sema_offset;
	uint64_t nop5_offset;
	uint64_t nop10_offset;
	int status;		/* 0 or -errno */
	const char *error;
	bool thumb;		/* arm: in Thumb code (status says uprobes
				 * cannot; a hardware breakpoint can) */
	int nargs;		/* decoded: at most USDTKIT_SITE_MAX_ARGS */
	int nargs_total;	/* in the args string */
	struct usdtkit_arg *args;	/* into file->args */
};

/* site.c: is @s in 32-bit arm Thumb code? */
bool usdtkit__site_thumb(const struct usdtkit_site *s);

/* core/elf/file.c: the PT_LOAD segments of @elf, a file of @file_size
 * bytes, into *@segs (malloc'd; NULL when there are none). 0 or -ENOMEM. */
int usdtkit__segments_read(Elf *elf, size_t file_size,
			   struct usdtkit_segment **segs, size_t *nsegs);

/* A note as decoded, before placement. */
struct usdtkit_raw_note {
	uint32_t index;
	uint64_t offset;	/* byte offset in the note section */
	uint64_t pc, base, sema;
	const char *provider, *name, *args;	/* NUL-terminated in the image */
	size_t provider_len, name_len, args_len;
};

struct usdtkit_file {
	char *name;
	const struct usdtkit_arch *arch;
	int e_type;
	struct usdtkit_log log;
	size_t nsites;
	struct usdtkit_site *sites;
	size_t bad_notes;
	char *strings;		/* the note section: sites point into it */
	struct usdtkit_arg *args;
	size_t nsegs;
	struct usdtkit_segment *segs;
	/* prelink: address of .stapsdt.base in this file, if present */
	bool has_base_scn;
	uint64_t base_scn_addr;
};

/* core/elf/notes.c: decode a .note.stapsdt section image. Calls @fn for each
 * good note; reports bad ones; returns the number of bad notes. */
typedef int (*usdtkit_note_fn)(void *ctx, const struct usdtkit_raw_note *n);
size_t usdtkit__notes_decode(const struct usdtkit_log *lg, const char *fname,
			     const uint8_t *data, size_t size, bool is64,
			     bool big_endian, usdtkit_note_fn fn, void *ctx);

struct usdtkit_image;

/* core/elf/place.c: prelink delta, file offsets, semaphore, nop5. The code
 * bytes at the site come from @im (core/elf/image.h). */
void usdtkit__site_place(struct usdtkit_file *f, struct usdtkit_site *s,
			 struct usdtkit_image *im);

#endif
