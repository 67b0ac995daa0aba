// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Accessors for opened files and their sites, and the glob filter. */
#include <fnmatch.h>
#include <stddef.h>

#include "elf/file.h"

const char *usdtkit_file_name(const struct usdtkit_file *f)
{
	return f ? f->name : NULL;
}

const struct usdtkit_arch *usdtkit_file_arch(const struct usdtkit_file *f)
{
	return f ? f->arch : NULL;
}

int usdtkit_file_type(const struct usdtkit_file *f)
{
	return f ? f->e_type : 0;
}

size_t usdtkit_file_site_count(const struct usdtkit_file *f)
{
	return f ? f->nsites : 0;
}

size_t usdtkit_file_bad_notes(const struct usdtkit_file *f)
{
	return f ? f->bad_notes : 0;
}

const struct usdtkit_site *usdtkit_file_site(const struct usdtkit_file *f,
					     size_t i)
{
	return f && i < f->nsites ? &f->sites[i] : NULL;
}

static bool match(const char *glob, const char *s)
{
	return !glob || !*glob || fnmatch(glob, s, 0) == 0;
}

bool usdtkit_site_match(const struct usdtkit_site *s, const char *provider,
			const char *name)
{
	return match(provider, s->provider) && match(name, s->name);
}

const struct usdtkit_site *usdtkit_file_next_site(const struct usdtkit_file *f,
						  const struct usdtkit_site *prev,
						  const char *provider,
						  const char *name)
{
	size_t i;

	if (!f)
		return NULL;
	i = prev ? (size_t)(prev - f->sites) + 1 : 0;
	for (; i < f->nsites; i++)
		if (usdtkit_site_match(&f->sites[i], provider, name))
			return &f->sites[i];
	return NULL;
}

const char *usdtkit_site_provider(const struct usdtkit_site *s)
{
	return s->provider;
}

const char *usdtkit_site_name(const struct usdtkit_site *s)
{
	return s->name;
}

const char *usdtkit_site_args_text(const struct usdtkit_site *s)
{
	return s->args_text;
}

size_t usdtkit_site_note_index(const struct usdtkit_site *s)
{
	return s->note_index;
}

uint64_t usdtkit_site_pc(const struct usdtkit_site *s)
{
	return s->pc;
}

uint64_t usdtkit_site_base(const struct usdtkit_site *s)
{
	return s->base;
}

uint64_t usdtkit_site_semaphore(const struct usdtkit_site *s)
{
	return s->sema;
}

uint64_t usdtkit_site_semaphore_offset(const struct usdtkit_site *s)
{
	return s->sema_offset;
}

uint64_t usdtkit_site_pc_offset(const struct usdtkit_site *s)
{
	return s->pc_offset;
}

uint64_t usdtkit_site_nop5_offset(const struct usdtkit_site *s)
{
	return s->nop5_offset;
}

uint64_t usdtkit_site_nop10_offset(const struct usdtkit_site *s)
{
	return s->nop10_offset;
}

bool usdtkit__site_thumb(const struct usdtkit_site *s)
{
	return s->thumb;
}

int usdtkit_site_status(const struct usdtkit_site *s)
{
	return s->status;
}

const char *usdtkit_site_error(const struct usdtkit_site *s)
{
	return s->error;
}

int usdtkit_site_arg_count(const struct usdtkit_site *s)
{
	return s->nargs;
}

const struct usdtkit_arg *usdtkit_site_arg(const struct usdtkit_site *s, int i)
{
	return i >= 0 && i < s->nargs ? &s->args[i] : NULL;
}

int usdtkit_site_arg_total(const struct usdtkit_site *s)
{
	return s->nargs_total;
}
