// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Seed corpora, generated at build time (nothing binary is committed):
 *   gen_seeds SPECS_TSV OUT_DIR
 * writes OUT_DIR/<harness>/ for every harness: the real args strings of
 * tests/corpus/specs.tsv by Debian arch (the manifests' debian key)
 * for the spec and round-trip
 * harnesses, and tests/helpers/elfgen.h images carrying those strings (good ones,
 * then broken one field at a time) for the notes and list harnesses.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_targets.h"

#define MAX_SPECS 4096

/* Whether blank-separated @list (NULL: empty) holds @word. */
static bool has_word(const char *list, const char *word)
{
	size_t len = strlen(word);

	while (list && *list) {
		size_t n = strcspn(list, " ");

		if (n == len && !strncmp(list, word, n))
			return true;
		list += n;
		list += strspn(list, " ");
	}
	return false;
}

static struct spec {
	int target;
	char *text;
} specs[MAX_SPECS];
static size_t nspecs;
static const char *out;
static unsigned long written;

static void die(const char *what)
{
	fprintf(stderr, "gen_seeds: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void mkdirs(const char *sub)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/%s", out, sub);
	if (mkdir(out, 0755) && errno != EEXIST)
		die(out);
	if (mkdir(p, 0755) && errno != EEXIST)
		die(p);
}

static void put(const char *harness, const char *tag, size_t k,
		const void *a, size_t alen, const void *b, size_t blen)
{
	char p[4096];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s/%s-%04zu", out, harness, tag, k);
	fp = fopen(p, "wb");
	if (!fp || fwrite(a, 1, alen, fp) != alen ||
	    (blen && fwrite(b, 1, blen, fp) != blen) || fclose(fp))
		die(p);
	written++;
}

/* specs.tsv: arch, e_machine, elf_class, count, args */
static void read_specs(const char *path)
{
	FILE *fp = fopen(path, "r");
	char line[65536];

	if (!fp)
		die(path);
	while (fgets(line, sizeof(line), fp) && nspecs < MAX_SPECS) {
		char *args = line;
		size_t i;
		int f;

		/* the fifth field, to the end of the line */
		for (f = 0; f < 4 && args; f++) {
			args = strchr(args, '\t');
			if (args)
				*args++ = 0;
		}
		if (!args)
			continue;
		args[strcspn(args, "\n")] = 0;
		for (i = 0; i < FZ_NTARGETS; i++) {
			if (!has_word(fz_targets[i].debian, line))
				continue;
			specs[nspecs].target = (int)i;
			specs[nspecs].text = strdup(args);
			if (!specs[nspecs++].text)
				die("strdup");
		}
	}
	fclose(fp);
}

/* The spec harness of target @t: one per architecture folder. */
static const char *harness_of(size_t t)
{
	static char h[FZ_NTARGETS][64];

	snprintf(h[t], sizeof(h[t]), "fuzz_%s", fz_targets[t].dir);
	return h[t];
}

/* The target whose corpus strings seed target @t: itself when the
 * manifest gives it Debian names, else the first target of its folder
 * that has some (riscv64's strings for riscv32); -1 if none. */
static int seed_source(size_t t)
{
	size_t i;

	if (fz_targets[t].debian)
		return (int)t;
	for (i = 0; i < FZ_NTARGETS; i++)
		if (fz_targets[i].debian && !strcmp(fz_targets[i].dir, fz_targets[t].dir))
			return (int)i;
	return -1;
}

static void spec_seeds(void)
{
	size_t i;

	for (i = 0; i < nspecs; i++) {
		uint8_t t = (uint8_t)specs[i].target;
		size_t len = strlen(specs[i].text), u;

		put(harness_of(t), "corpus", i, specs[i].text, len, NULL, 0);
		put("fuzz_roundtrip", "corpus", i, &t, 1, specs[i].text, len);
		/* the same strings for the targets they seed (riscv32) */
		for (u = 0; u < FZ_NTARGETS; u++) {
			uint8_t b = (uint8_t)u;

			if (u != t && seed_source(u) == t)
				put("fuzz_roundtrip", fz_targets[u].name, i, &b, 1,
				    specs[i].text, len);
		}
	}
}

/* Notes of target @t: up to @max corpus args strings, pcs inside .text,
 * one semaphore. Returns the section bytes in @notes. */
static void corpus_notes(const struct usdtkit_arch_info *t, int ti, unsigned flags,
			 size_t first, size_t max, struct eg_buf *notes)
{
	struct eg_elf e;
	bool is64 = t->elf_class == EG_ELFCLASS64, be = t->elf_data == EG_MSB;
	size_t i, n = 0;

	/* the addresses fz_build() will use */
	fz_layout(t, flags, &e);
	for (i = first; i < nspecs && n < max; i++) {
		if (specs[i].target != seed_source((size_t)ti))
			continue;
		eg_stapsdt(notes, is64, be, e.text_addr + 4 * n, e.base_addr,
			   n % 3 ? 0 : e.data_addr + 2, "prov", n % 2 ? "p1" : "p0",
			   specs[i].text);
		n++;
	}
	if (!n)
		eg_stapsdt(notes, is64, be, e.text_addr, e.base_addr, 0, "prov",
			   "p0", "");
}

static void elf_seeds(void)
{
	size_t ti, k;

	for (ti = 0; ti < FZ_NTARGETS; ti++) {
		const struct usdtkit_arch_info *t = &fz_targets[ti];

		for (k = 0; k < 8; k++) {
			/* flags: exec/dyn, base section, symbols, ambiguous */
			unsigned flags = (unsigned)(k & 3) | 4 | (k & 4 ? 16 : 0);
			struct eg_buf notes = { 0 }, img = { 0 };
			uint8_t hdr[2] = { (uint8_t)ti, (uint8_t)flags };
			size_t idx = ti * 8 + k;

			corpus_notes(t, (int)ti, flags, k * 6, 6, &notes);
			put("fuzz_notes", "corpus", idx, hdr, 2, notes.p, notes.len);
			fz_build(t, flags, notes.p, notes.len, &img);
			put("fuzz_list", "corpus", idx, img.p, img.len, NULL, 0);
			/* truncated at a few points: headers, tables, notes */
			if (k == 0) {
				put("fuzz_list", "trunc52", idx, img.p, 52, NULL, 0);
				put("fuzz_list", "trunchalf", idx, img.p, img.len / 2,
				    NULL, 0);
				put("fuzz_list", "truncm1", idx, img.p, img.len - 1,
				    NULL, 0);
			}
			eg_free(&notes);
			eg_free(&img);
		}
	}
}

int main(int argc, char **argv)
{
	static const char *const dirs[] = { "fuzz_notes", "fuzz_list",
					    "fuzz_roundtrip" };
	size_t i;

	if (argc != 3) {
		fprintf(stderr, "usage: gen_seeds SPECS_TSV OUT_DIR\n");
		return 2;
	}
	out = argv[2];
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		mkdirs(dirs[i]);
	for (i = 0; i < FZ_NTARGETS; i++)	/* each folder's spec harness */
		mkdirs(harness_of(i));
	read_specs(argv[1]);
	if (!nspecs) {
		fprintf(stderr, "gen_seeds: no specs in %s\n", argv[1]);
		return 1;
	}
	spec_seeds();
	elf_seeds();
	printf("gen_seeds: %lu seeds from %zu specs\n", written, nspecs);
	return 0;
}
