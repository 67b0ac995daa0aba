// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Every note in tests/corpus/notes.tsv (real Debian binaries and
 * synthetic cross builds) must parse: the right argument count, no
 * invalid argument, and only the intended explicit statuses (unreadable
 * FP registers, unresolved symbols, thread-local or GOT operands). The
 * ELF identity of each row must pick the same backend as its arch name.
 * ppc, mips and sparc rows belong to a later backend and are counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch_table.h"
#include "check.h"

#define MAX_COLS 16

struct stats {
	long rows, args, ok, unreadable, unresolved, unsupported, skipped;
};

/* The target whose manifest "debian" key lists @debian, or NULL. */
static const char *map_arch(const char *debian)
{
	size_t i, len = strlen(debian);

	for (i = 0; i < USDTKIT_ARCH_INFO_COUNT; i++) {
		const char *w = usdtkit_arch_infos[i].debian;

		while (w && *w) {
			size_t n = strcspn(w, " ");

			if (n == len && !strncmp(w, debian, n))
				return usdtkit_arch_infos[i].name;
			w += n;
			w += strspn(w, " ");
		}
	}
	return NULL;
}

static int split(char *line, char **cols)
{
	int n = 0;

	cols[n++] = line;
	for (; *line && n < MAX_COLS; line++)
		if (*line == '\t') {
			*line = 0;
			cols[n++] = line + 1;
		}
	return n;
}

/* "EM_X86_64(62)" -> 62 */
static unsigned int machine_num(const char *s)
{
	const char *p = strchr(s, '(');

	return p ? (unsigned int)strtoul(p + 1, NULL, 10) : 0;
}

static void check_arg(const char *where, const char *spec,
		      const struct usdtkit_arg *a, struct stats *st)
{
	st->args++;
	switch (a->status) {
	case USDTKIT_ARG_OK:
		st->ok++;
		break;
	case USDTKIT_ARG_UNREADABLE:
		st->unreadable++;
		break;
	case USDTKIT_ARG_UNRESOLVED:
		CHECK(a->kind == USDTKIT_LOC_SYMBOL, "%s", where);
		st->unresolved++;
		break;
	case USDTKIT_ARG_UNSUPPORTED:
		/* only thread-local and GOT-indirect operands are expected */
		CHECK(a->kind == USDTKIT_LOC_SYMBOL &&
			      (a->reloc == USDTKIT_RELOC_TLS ||
			       a->reloc == USDTKIT_RELOC_GOT),
		      "%s: unexpected unsupported arg '%.*s': %s", where,
		      (int)a->text_len, spec + a->text_off, a->error);
		st->unsupported++;
		break;
	default:
		CHECK(0, "%s: arg '%.*s' %s at %u: %s", where, (int)a->text_len,
		      spec + a->text_off, usdtkit_arg_status_str(a->status),
		      a->error_pos, a->error);
	}
}

/*
 * The corpus's nargs column splits on blanks, which counts "[sp, 8]" as
 * two. Count independently: a blank-separated word that starts a new
 * argument begins with "SIZE@" ("-4@", "8f@"); size-less operands (asm
 * probes) have no such prefix, and then every word is one argument.
 */
static int count_args(const char *spec)
{
	int words = 0, sized = 0;
	const char *p = spec;

	while (*p) {
		const char *w;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		w = p;
		words++;
		if (*w == '-')
			w++;
		if (*w >= '0' && *w <= '9') {
			while (*w >= '0' && *w <= '9')
				w++;
			if (*w == 'f')
				w++;
			sized += *w == '@';
		}
		while (*p && *p != ' ')
			p++;
	}
	return sized ? sized : words;
}

static void check_row(char **c, struct stats *st)
{
	const char *name = map_arch(c[0]);
	const struct usdtkit_arch *arch, *by_elf;
	struct usdtkit_arg args[64];
	const char *spec = c[14];
	char where[256];
	int n, i, want = count_args(c[14]);

	if (!name) {
		st->skipped++;
		return;
	}
	st->rows++;
	snprintf(where, sizeof(where), "%s %s %s:%s", c[0], c[7], c[8], c[9]);
	arch = usdtkit_arch_by_name(name);
	by_elf = usdtkit_arch_by_elf((uint16_t)machine_num(c[1]),
				     !strcmp(c[2], "64") ? 2 : 1,
				     !strcmp(c[3], "BE") ? 2 : 1);
	CHECK(arch && arch == by_elf, "%s: ELF identity picks %s", where,
	      by_elf ? usdtkit_arch_name(by_elf) : "nothing");
	if (!arch)
		return;
	n = usdtkit_args_parse(arch, spec, strlen(spec), args, 64);
	CHECK(n == want, "%s: %d args, want %d: %s", where, n, want, spec);
	/* counting alone (no array) splits exactly as parsing does */
	CHECK(usdtkit_args_parse(arch, spec, strlen(spec), NULL, 0) == n,
	      "%s: count-only differs: %s", where, spec);
	/* where no operand has blanks inside, readelf's count must agree */
	if (!strpbrk(spec, "[("))
		CHECK(n == atoi(c[13]), "%s: %d args, corpus says %s", where, n, c[13]);
	for (i = 0; i < n && i < 64; i++)
		check_arg(where, spec, &args[i], st);
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "tests/corpus/notes.tsv";
	struct stats st = { 0 };
	char *line = NULL, *cols[MAX_COLS];
	size_t cap = 0;
	FILE *f = fopen(path, "r");

	CHECK(f != NULL, "cannot open corpus %s", path);
	if (!f)
		return check_done();
	if (getline(&line, &cap, f) < 0) /* header */
		CHECK(0, "empty corpus %s", path);
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = 0;
		if (split(line, cols) == 15)
			check_row(cols, &st);
		else
			CHECK(0, "malformed corpus row: %s", line);
	}
	free(line);
	fclose(f);
	printf("corpus: %ld notes, %ld args: %ld ok, %ld unreadable, "
	       "%ld unresolved symbol, %ld unsupported (TLS/GOT); "
	       "%ld notes without a backend (32-bit powerpc and mips, sparc) not checked\n",
	       st.rows, st.args, st.ok, st.unreadable, st.unresolved,
	       st.unsupported, st.skipped);
	CHECK(st.rows > 5000, "expected the whole corpus, got %ld rows", st.rows);
	return check_done();
}
