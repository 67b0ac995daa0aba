// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The architecture registry, generated from the manifests (arch/arches,
 * arch/<dir>/manifest.ini): a new folder needs nothing here. Lookups go
 * by name or by ELF identity, never by the host's own architecture.
 */
#include <errno.h>
#include <string.h>

#include "spec/arch.h"
#include "spec/backends.h"

#define USDTKIT_REF_TARGET(t) &usdtkit__arch_##t,
static const struct usdtkit_arch *const registry[] = {
	USDTKIT_ARCH_TARGETS(USDTKIT_REF_TARGET)
};
#undef USDTKIT_REF_TARGET

#define REGISTRY_LEN (sizeof(registry) / sizeof(registry[0]))

/* Other spellings users reach for (Debian and kernel names): the
 * manifests' "aliases" keys. */
static const struct {
	const char *alias;
	const char *name;
} aliases[] = { USDTKIT_ARCH_ALIASES };

bool usdtkit__machine_in(const char *list, const char *machine)
{
	size_t n = strlen(machine);

	while (list && *list) {
		size_t w = strcspn(list, " ");

		if (w == n && !strncmp(list, machine, n))
			return true;
		list += w + (list[w] == ' ');
	}
	return false;
}

const struct usdtkit_arch *usdtkit_arch_at(size_t i)
{
	return i < REGISTRY_LEN ? registry[i] : NULL;
}

const struct usdtkit_arch *usdtkit_arch_by_name(const char *name)
{
	size_t i;

	if (!name) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(name, aliases[i].alias) == 0)
			name = aliases[i].name;
	for (i = 0; i < REGISTRY_LEN; i++)
		if (strcmp(name, registry[i]->name) == 0)
			return registry[i];
	errno = ENOENT;
	return NULL;
}

const struct usdtkit_arch *usdtkit_arch_by_elf(uint16_t e_machine,
					       uint8_t ei_class, uint8_t ei_data)
{
	size_t i;

	for (i = 0; i < REGISTRY_LEN; i++) {
		const struct usdtkit_arch *a = registry[i];

		if (a->e_machine == e_machine && a->elf_class == ei_class &&
		    a->elf_data == ei_data)
			return a;
	}
	errno = ENOENT;
	return NULL;
}

const char *usdtkit_arch_name(const struct usdtkit_arch *arch)
{
	return arch ? arch->name : NULL;
}

uint16_t usdtkit_arch_e_machine(const struct usdtkit_arch *arch)
{
	return arch ? arch->e_machine : 0;
}

uint8_t usdtkit_arch_elf_class(const struct usdtkit_arch *arch)
{
	return arch ? arch->elf_class : 0;
}

uint8_t usdtkit_arch_elf_data(const struct usdtkit_arch *arch)
{
	return arch ? arch->elf_data : 0;
}

uint8_t usdtkit_arch_ptr_size(const struct usdtkit_arch *arch)
{
	return arch ? arch->ptr_size : 0;
}

const struct usdtkit_regdef *usdtkit_arch_reg_at(const struct usdtkit_arch *arch,
						 size_t i)
{
	if (!arch || i >= arch->nregs)
		return NULL;
	return &arch->regs[i];
}

const char *usdtkit_arch_reg_name(const struct usdtkit_arch *arch, int id)
{
	const char *best = NULL;
	int width = 0;
	size_t i;

	if (!arch)
		return NULL;
	for (i = 0; i < arch->nregs; i++) {
		const struct usdtkit_regdef *r = &arch->regs[i];

		if (r->id == id && r->width > width) {
			best = r->name;
			width = r->width;
		}
	}
	return best;
}

const struct usdtkit_layout *usdtkit_arch_layout(const struct usdtkit_arch *arch,
						 enum usdtkit_layout_kind kind)
{
	const struct usdtkit_layout *l = NULL;

	if (!arch) {
		errno = EINVAL;
		return NULL;
	}
	if (kind == USDTKIT_LAYOUT_NATIVE)
		l = arch->native;
	else if (kind == USDTKIT_LAYOUT_COMPAT64)
		l = arch->compat64;
	if (!l)
		errno = ENOENT;
	return l;
}
