// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An open-addressing index of defined symbols by name. .symtab wins over
 * .dynsym (a stripped file keeps only the latter). A name defined more
 * than once at different addresses (static variables of the same name in
 * two translation units) is ambiguous: resolving it would be a guess.
 *
 * The names come from files other people control. With a fixed hash
 * (FNV-1a before), 200,000 names chosen to share a slot made every insert
 * walk all the others: 61 s for one listing. The hash is SipHash-1-3
 * under a key drawn from getrandom() for each table, so no file can know
 * which names collide; lookups stay O(1) whatever the names are.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "spec/arch.h"
#include "elf/image.h"
#include "elf/symbols.h"

struct sym {
	const char *name;	/* into libelf's string data; NULL: empty */
	uint32_t len;
	uint8_t ambiguous;
	uint8_t from_dynsym;
	uint64_t value;
};

struct usdtkit_symtab {
	size_t cap;		/* power of two */
	size_t count;
	struct sym *slots;
	uint64_t key[2];	/* SipHash key of this table */
	bool has_got;
	uint64_t got;
};

#define ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

static inline void sip_round(uint64_t v[4])
{
	v[0] += v[1]; v[1] = ROTL(v[1], 13); v[1] ^= v[0]; v[0] = ROTL(v[0], 32);
	v[2] += v[3]; v[3] = ROTL(v[3], 16); v[3] ^= v[2];
	v[0] += v[3]; v[3] = ROTL(v[3], 21); v[3] ^= v[0];
	v[2] += v[1]; v[1] = ROTL(v[1], 17); v[1] ^= v[2]; v[2] = ROTL(v[2], 32);
}

/* Little-endian 64-bit word at @p, whatever the host's byte order. */
static inline uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* SipHash-1-3 (one compression round, three finalization rounds). */
static uint64_t hash_name(const uint64_t key[2], const char *name, size_t len)
{
	const uint8_t *p = (const uint8_t *)name, *end = p + (len & ~(size_t)7);
	uint64_t v[4] = { key[0] ^ 0x736f6d6570736575ull, key[1] ^ 0x646f72616e646f6dull,
			  key[0] ^ 0x6c7967656e657261ull, key[1] ^ 0x7465646279746573ull };
	uint64_t m, last = (uint64_t)len << 56;
	size_t i;

	for (; p < end; p += 8) {
		m = le64(p);
		v[3] ^= m;
		sip_round(v);
		v[0] ^= m;
	}
	for (i = 0; i < (len & 7); i++)
		last |= (uint64_t)p[i] << (8 * i);
	v[3] ^= last;
	sip_round(v);
	v[0] ^= last;
	v[2] ^= 0xff;
	sip_round(v);
	sip_round(v);
	sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/*
 * A fresh key per table. getrandom() does not block once the kernel's
 * pool is ready (GRND_NONBLOCK only matters early at boot); should it
 * fail, the clock and the table's address still make a key a file
 * cannot predict from its own contents.
 */
static void new_key(struct usdtkit_symtab *t)
{
	struct timespec ts = { 0 };

	if (getrandom(t->key, sizeof(t->key), GRND_NONBLOCK) == sizeof(t->key))
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t->key[0] = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec;
	t->key[1] = (uint64_t)(uintptr_t)t ^ 0x9e3779b97f4a7c15ull;
}

/* The slot of @name, or the empty one where it would go; *@probes (when
 * not NULL) gets the number of slots looked at to get there. */
static struct sym *slot_for(const struct usdtkit_symtab *t, const char *name,
			    size_t len, size_t *probes)
{
	size_t i = hash_name(t->key, name, len) & (t->cap - 1), n = 1;

	for (;; i = (i + 1) & (t->cap - 1), n++) {
		struct sym *s = &t->slots[i];

		if (!s->name || (s->len == len && !memcmp(s->name, name, len))) {
			if (probes)
				*probes = n;
			return s;
		}
	}
}

static void add_sym(struct usdtkit_symtab *t, const char *name, uint64_t value,
		    bool dyn)
{
	size_t len = strlen(name);
	struct sym *s = slot_for(t, name, len, NULL);

	if (!s->name) {
		s->name = name;
		s->len = (uint32_t)len;
		s->value = value;
		s->from_dynsym = dyn;
		t->count++;
		return;
	}
	/* .dynsym only fills in what .symtab lacks */
	if (dyn && !s->from_dynsym)
		return;
	if (s->value != value)
		s->ambiguous = 1;
}

static bool wanted(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return sym->st_shndx != SHN_UNDEF && type != STT_SECTION &&
	       type != STT_FILE && sym->st_name != 0;
}

/*
 * Symbols in @scn as libelf reads them. sh_size and sh_entsize are only
 * what the file claims: a huge sh_size over a tiny sh_entsize would size
 * the hash table (its doubling wrapped to 0 and never ended) and the loop
 * below. The data libelf could read is bounded by the file, and
 * gelf_getsym() steps by the ELF symbol size whatever sh_entsize says.
 */
size_t usdtkit__symscn_count(Elf *elf, Elf_Scn *scn, Elf_Data **data)
{
	size_t ent = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);

	*data = elf_getdata(scn, NULL);
	return *data && ent ? (*data)->d_size / ent : 0;
}

size_t usdtkit__symscn_total(Elf *elf)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr sh;
	size_t n = 0;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM))
			n += usdtkit__symscn_count(elf, scn, &data);
	return n;
}

static void load_table(struct usdtkit_symtab *t, Elf *elf, Elf_Scn *scn,
		       const GElf_Shdr *sh, bool dyn)
{
	Elf_Data *data;
	size_t i, n = usdtkit__symscn_count(elf, scn, &data);
	GElf_Sym sym;

	for (i = 0; i < n && t->count < t->cap / 2; i++) {
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym) || !wanted(&sym))
			continue;
		/* bogus name indices make elf_strptr return NULL */
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		add_sym(t, name, sym.st_value, dyn);
		if (!strcmp(name, "_GLOBAL_OFFSET_TABLE_")) {
			t->has_got = true;
			t->got = sym.st_value;
		}
	}
}

static void load_pass(struct usdtkit_symtab *t, Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			load_table(t, elf, scn, &sh, type == SHT_DYNSYM);
}

/* i386 GOTOFF is relative to the GOT base, _GLOBAL_OFFSET_TABLE_, which
 * is the start of .got.plt when the symbol itself was stripped */
static void find_got_section(struct usdtkit_symtab *t, Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (t->has_got || elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, ".got.plt")) {
			t->has_got = true;
			t->got = sh.sh_addr;
		}
	}
}

int usdtkit__symscn_need(Elf *elf, struct usdtkit_image *im)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) &&
		    (usdtkit__image_need_scn(im, elf, elf_ndxscn(scn)) ||
		     usdtkit__image_need_scn(im, elf, sh.sh_link)))
			return im->err;
	return 0;
}

struct usdtkit_symtab *usdtkit__symtab_load(Elf *elf, struct usdtkit_image *im)
{
	struct usdtkit_symtab *t;
	size_t n;
	int err = usdtkit__symscn_need(elf, im);

	if (err) {
		errno = -err;
		return NULL;
	}
	n = usdtkit__symscn_total(elf);
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	new_key(t);
	t->cap = 16;
	while (t->cap < 2 * n + 2)
		t->cap <<= 1;
	t->slots = calloc(t->cap, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	load_pass(t, elf, SHT_SYMTAB);
	load_pass(t, elf, SHT_DYNSYM);
	find_got_section(t, elf);
	return t;
}

void usdtkit__symtab_free(struct usdtkit_symtab *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t);
}

int usdtkit__symtab_find(const struct usdtkit_symtab *t, const char *name,
			 size_t len, uint64_t *addr)
{
	const struct sym *s = slot_for(t, name, len, NULL);

	if (!s->name)
		return -ENOENT;
	if (s->ambiguous)
		return -EEXIST;
	*addr = s->value;
	return 0;
}

/*
 * Nothing is ever removed from the table, so the slots a lookup of a name
 * visits are the very slots its insert visited: summed over every name,
 * this is the whole work of building the index.
 */
size_t usdtkit__symtab_probes(const struct usdtkit_symtab *t, const char *name,
			      size_t len)
{
	size_t n = 0;

	slot_for(t, name, len, &n);
	return n;
}

static void mark(struct usdtkit_arg *a, enum usdtkit_arg_status st,
		 const char *msg)
{
	a->status = st;
	a->error = msg;
	a->error_pos = a->sym_off;
}

static void resolve_arg(const struct usdtkit_file *f, const struct usdtkit_site *s,
			struct usdtkit_arg *a, const struct usdtkit_symtab *t)
{
	uint64_t addr = 0;
	int err;

	if (a->kind != USDTKIT_LOC_SYMBOL || a->status != USDTKIT_ARG_UNRESOLVED)
		return;
	if (a->reloc == USDTKIT_RELOC_GOT) {
		mark(a, USDTKIT_ARG_UNSUPPORTED,
		     "GOT-indirect operand: the GOT slot is not resolved");
		return;
	}
	if (!t) {
		mark(a, USDTKIT_ARG_UNRESOLVED, "file has no symbol table");
		return;
	}
	err = usdtkit__symtab_find(t, s->args_text + a->sym_off, a->sym_len, &addr);
	if (err == -EEXIST) {
		mark(a, USDTKIT_ARG_AMBIGUOUS,
		     "several symbols of this name at different addresses");
		return;
	}
	if (err) {
		mark(a, USDTKIT_ARG_UNRESOLVED,
		     "symbol not found in .symtab or .dynsym");
		return;
	}
	if (a->reloc == USDTKIT_RELOC_GOTOFF && !t->has_got) {
		mark(a, USDTKIT_ARG_UNRESOLVED, "no GOT for a @GOTOFF operand");
		return;
	}
	if (usdtkit_arg_resolve(f->arch, a, s->pc, addr, t->got))
		mark(a, USDTKIT_ARG_UNSUPPORTED, "cannot resolve this operand");
}

void usdtkit__site_resolve(const struct usdtkit_file *f, struct usdtkit_site *s,
			   const struct usdtkit_symtab *t)
{
	int i;

	for (i = 0; i < s->nargs; i++)
		resolve_arg(f, s, &s->args[i], t);
}
