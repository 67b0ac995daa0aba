// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Bad input is answered, not crashed on: ELF images built in memory
 * (tests/helpers/elfgen.h) for every class, byte order and machine, then broken
 * one field at a time. Good notes must decode identically everywhere; a
 * bad note is reported (file name, index, byte offset), counted and
 * skipped; a bad file is refused with errno and a message naming it; a
 * bad site gets its own status; bad symbol tables leave symbol arguments
 * unresolved. Run under valgrind and ASan by tests/CMakeLists.txt.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/fsuid.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arch_table.h"
#include "check.h"
#include "elfgen.h"
#include "elf/file.h"	/* usdtkit__notes_decode(): ELF32 big endian */

/* ------------------------------------------------------------------ */
/* Harness                                                            */
/* ------------------------------------------------------------------ */

/* A hang is a failure too: every phase runs under an alarm. */
static const char *phase = "start";

static void on_alarm(int sig)
{
	static const char msg[] = "test_elf_malformed: TIMEOUT in phase ";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0 ||
	    write(2, phase, strlen(phase)) < 0 || write(2, "\n", 1) < 0)
		_exit(3);
	_exit(2);
}

static void begin(const char *name)
{
	phase = name;
	alarm(300);	/* generous: valgrind is ~50x slower */
}

/* Every message the library printed since the last reset. */
static struct logcap {
	char text[1 << 16];
	size_t len;
	size_t count;
	int bad_format;	/* empty, or with a trailing newline */
} lc;

static void cap_reset(void)
{
	lc.len = 0;
	lc.count = 0;
	lc.text[0] = 0;
}

static void cap_print(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	struct logcap *c = ctx;
	size_t n = strlen(msg);

	(void)level;
	c->count++;
	if (!n || msg[n - 1] == '\n')
		c->bad_format++;
	if (c->len + n + 2 > sizeof(c->text))
		return;
	memcpy(c->text + c->len, msg, n);
	c->len += n;
	c->text[c->len++] = '\n';
	c->text[c->len] = 0;
}

/* "@prefix@N" in @line with exactly the number @num (no longer number) */
static bool has_num(const char *line, const char *prefix, unsigned long long num)
{
	const char *p = line;

	while ((p = strstr(p, prefix))) {
		char *end;
		unsigned long long v;

		p += strlen(prefix);
		if (*p < '0' || *p > '9')
			continue;
		v = strtoull(p, &end, 10);
		if (v == num)
			return true;
		p = end;
	}
	return false;
}

/* Is there a message line that @match accepts? (Each line is handed to
 * it NUL-terminated, cut at 1023 bytes.) */
static bool cap_any_line(bool (*match)(const char *line, const void *ctx),
			 const void *ctx)
{
	const char *line = lc.text;

	while (*line) {
		const char *nl = strchr(line, '\n');
		char buf[1024];
		size_t n = (size_t)(nl - line);

		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		memcpy(buf, line, n);
		buf[n] = 0;
		if (match(buf, ctx))
			return true;
		line = nl + 1;
	}
	return false;
}

struct needles {
	const char *a, *b, *c;
};

static bool has_needles(const char *line, const void *ctx)
{
	const struct needles *w = ctx;

	return (!w->a || strstr(line, w->a)) && (!w->b || strstr(line, w->b)) &&
	       (!w->c || strstr(line, w->c));
}

/* A message line containing every non-NULL needle. */
static bool cap_has(const char *a, const char *b, const char *c)
{
	struct needles w = { a, b, c };

	return cap_any_line(has_needles, &w);
}

struct note_report {
	const char *fname, *why;
	unsigned index;
	unsigned long long off;
};

static bool is_note_report(const char *line, const void *ctx)
{
	const struct note_report *r = ctx;

	return strstr(line, r->fname) && has_num(line, "note ", r->index) &&
	       has_num(line, "offset ", r->off) && (!r->why || strstr(line, r->why));
}

/* The report of bad note @index at byte @off of @fname, saying @why. */
static bool cap_has_note(const char *fname, unsigned index,
			 unsigned long long off, const char *why)
{
	struct note_report r = { fname, why, index, off };

	return cap_any_line(is_note_report, &r);
}

/* open options whose messages cap_print() keeps, naming the image @n */
#define OPTS_NAMED(o, n)                                                       \
	USDTKIT_OPTS(usdtkit_open_opts, o, .print = cap_print,                 \
		     .print_ctx = &lc, .name = (n))
		     
		     static struct usdtkit_file *open_mem(const struct eg_buf *img, const char *name)
		     {
		     OPTS_NAMED(o, name);

	cap_reset();
	errno = 0;
	return usdtkit_file_open_mem(img->p, img->len, &o);
}

/* Whole-file refusal: NULL, @err, and a message naming @name. */
static void expect_refused(const char *name, const void *buf, size_t size,
			   int err, const char *needle)
{
	OPTS_NAMED(o, name);
	struct usdtkit_file *f;

	cap_reset();
	errno = 0;
	f = usdtkit_file_open_mem(buf, size, &o);
	CHECK(!f, "%s: opened with %zu sites", name, usdtkit_file_site_count(f));
	CHECK(errno == err, "%s: errno %d (%s), want %d (%s)", name, errno,
	      strerror(errno), err, strerror(err));
	CHECK(cap_has(name, needle, NULL), "%s: no message naming it with \"%s\":\n%s",
	      name, needle ? needle : "", lc.text);
	CHECK(!lc.bad_format, "%s: malformed message", name);
	usdtkit_file_close(f);
}

/* ------------------------------------------------------------------ */
/* Targets                                                            */
/* ------------------------------------------------------------------ */

struct target {
	const char *arch;
	uint8_t cls, data;
	uint16_t machine;
	/* three arguments in the target's syntax: a register, memory, and
	 * a symbol-relative one (against "counter" in .probes) */
	const char *args;
	const char *sym_arg;	/* one symbol-relative argument */
};

/* Every target of the manifests (gen/arch_table.h): identity and the
 * manifest's test_args, whose last argument is the symbol-relative one. */
static struct target targets[USDTKIT_ARCH_INFO_COUNT];

static void init_targets(void)
{
	size_t i;

	for (i = 0; i < USDTKIT_ARCH_INFO_COUNT; i++) {
		const struct usdtkit_arch_info *m = &usdtkit_arch_infos[i];
		const char *last = m->test_args ? strrchr(m->test_args, ' ') : NULL;

		CHECK(last != NULL, "%s: manifest test_args has no three arguments",
		      m->name);
		targets[i] = (struct target){ m->name, m->elf_class, m->elf_data,
					      m->e_machine,
					      m->test_args ? m->test_args : "",
					      last ? last + 1 : "" };
	}
}

/* The target named @arch; a test that needs a particular one fails
 * (and runs on the first) when the manifests lack it. */
static const struct target *target_named(const char *arch)
{
	size_t i;

	for (i = 0; i < USDTKIT_ARCH_INFO_COUNT; i++)
		if (!strcmp(targets[i].arch, arch))
			return &targets[i];
	CHECK(0, "no target %s in the manifests", arch);
	return &targets[0];
}

/* A machine no manifest target has: "as ppc64" before ppc had a backend. */
static uint16_t unsupported_machine(const char **name)
{
	static const struct {
		uint16_t machine;
		const char *name;
	} cand[] = { { EG_EM_PPC64, "ppc64" }, { 2, "sparc" }, { 75, "vax" },
		     { 0x9026, "alpha" } };
	size_t i, k;

	for (k = 0; k < sizeof(cand) / sizeof(cand[0]); k++) {
		for (i = 0; i < USDTKIT_ARCH_INFO_COUNT; i++)
			if (usdtkit_arch_infos[i].e_machine == cand[k].machine)
				break;
		if (i == USDTKIT_ARCH_INFO_COUNT) {
			*name = cand[k].name;
			return cand[k].machine;
		}
	}
	CHECK(0, "every candidate machine has a backend");
	*name = "none";
	return 0;
}

#define NTARGETS USDTKIT_ARCH_INFO_COUNT

static bool t_is64(const struct target *t)
{
	return t->cls == EG_ELFCLASS64;
}

static bool t_be(const struct target *t)
{
	return t->data == EG_MSB;
}

static void init_elf(struct eg_elf *e, const struct target *t)
{
	memset(e, 0, sizeof(*e));
	e->cls = t->cls;
	e->data = t->data;
	e->machine = t->machine;
	e->type = EG_ET_EXEC;
	e->vaddr = 0x400000;
	e->base_scn = true;
	eg_layout(e);
}

/* A good note at text + @k*16, as the usual first notes of an image. */
static void good_note(struct eg_buf *b, const struct target *t,
		      const struct eg_elf *e, unsigned k, const char *name,
		      const char *args)
{
	eg_stapsdt(b, t_is64(t), t_be(t), e->text_addr + 16 * k, e->base_addr,
		   0, "prov", name, args);
}

/* Build @e with @notes as its .note.stapsdt into @img. */
static void build_with(struct eg_elf *e, const struct eg_buf *notes,
		       struct eg_buf *img)
{
	e->notes = notes->p;
	e->notes_size = notes->len;
	eg_build(e, img);
}

/* ------------------------------------------------------------------ */
/* Good notes decode identically everywhere                           */
/* ------------------------------------------------------------------ */

struct expect_site {
	const char *provider, *name;
	bool has_args;
	uint64_t pc, base, sema, pc_offset, sema_offset;
};

/*
 * Three notes: with args and a semaphore, without either, and another
 * provider. @shift is how far prelink moved the file since the notes were
 * written (they hold addresses @shift lower; .stapsdt.base is current).
 */
static void build_good(const struct target *t, struct eg_elf *e,
		       struct eg_buf *img, uint16_t type, uint64_t vaddr,
		       uint64_t shift, bool base_scn, struct expect_site *x)
{
	struct eg_buf notes = { 0 };
	struct eg_sym sym = { 0 };
	bool is64 = t_is64(t), be = t_be(t);
	unsigned k;

	init_elf(e, t);
	e->type = type;
	e->vaddr = vaddr;
	e->base_scn = base_scn;
	eg_layout(e);
	for (k = 0; k < 3; k++) {
		x[k].provider = k == 2 ? "other_provider" : "prov";
		x[k].name = k == 0 ? "p0" : k == 1 ? "p1" : "p2";
		x[k].has_args = k != 1;
		x[k].pc = e->text_addr + 16 * k;
		x[k].base = e->base_addr - shift;
		x[k].sema = k == 1 ? 0 : e->data_addr + 2 * k;
		x[k].pc_offset = e->text_off + 16 * k;
		x[k].sema_offset = k == 1 ? 0 : e->data_off + 2 * k;
		eg_stapsdt(&notes, is64, be, x[k].pc - shift, x[k].base,
			   x[k].sema ? x[k].sema - shift : 0, x[k].provider,
			   x[k].name, x[k].has_args ? t->args : "");
	}
	sym.name = "counter";
	sym.value = e->data_addr + 8;
	sym.size = 4;
	e->syms = &sym;
	e->nsyms = 1;
	build_with(e, &notes, img);
	e->syms = NULL;
	eg_free(&notes);
}

static void check_site(const char *what, const struct target *t,
		       const struct usdtkit_site *s, unsigned k,
		       const struct expect_site *x)
{
	int i, n;

	CHECK(s != NULL, "%s: site %u missing", what, k);
	if (!s)
		return;
	CHECK(usdtkit_site_note_index(s) == k, "%s: note index %zu", what,
	      usdtkit_site_note_index(s));
	CHECK(!strcmp(usdtkit_site_provider(s), x->provider), "%s: provider %s",
	      what, usdtkit_site_provider(s));
	CHECK(!strcmp(usdtkit_site_name(s), x->name), "%s: name %s", what,
	      usdtkit_site_name(s));
	CHECK(!strcmp(usdtkit_site_args_text(s), x->has_args ? t->args : ""),
	      "%s: args %s", what, usdtkit_site_args_text(s));
	CHECK(usdtkit_site_pc(s) == x->pc, "%s: pc %#llx want %#llx", what,
	      (unsigned long long)usdtkit_site_pc(s), (unsigned long long)x->pc);
	CHECK(usdtkit_site_base(s) == x->base, "%s: base %#llx want %#llx", what,
	      (unsigned long long)usdtkit_site_base(s), (unsigned long long)x->base);
	CHECK(usdtkit_site_semaphore(s) == x->sema, "%s: sema %#llx want %#llx",
	      what, (unsigned long long)usdtkit_site_semaphore(s),
	      (unsigned long long)x->sema);
	CHECK(usdtkit_site_pc_offset(s) == x->pc_offset, "%s: pc offset %#llx want %#llx",
	      what, (unsigned long long)usdtkit_site_pc_offset(s),
	      (unsigned long long)x->pc_offset);
	CHECK(usdtkit_site_semaphore_offset(s) == x->sema_offset,
	      "%s: sema offset %#llx want %#llx", what,
	      (unsigned long long)usdtkit_site_semaphore_offset(s),
	      (unsigned long long)x->sema_offset);
	CHECK(usdtkit_site_nop5_offset(s) == 0, "%s: nop5 in a zero text", what);
	CHECK(usdtkit_site_status(s) == 0 && !usdtkit_site_error(s),
	      "%s: status %d (%s)", what, usdtkit_site_status(s),
	      usdtkit_site_error(s));
	n = usdtkit_site_arg_count(s);
	CHECK(n == (x->has_args ? 3 : 0), "%s: %d args", what, n);
	for (i = 0; i < n; i++) {
		const struct usdtkit_arg *a = usdtkit_site_arg(s, i);

		CHECK(a && a->status == USDTKIT_ARG_OK, "%s: arg %d status %s (%s)",
		      what, i, a ? usdtkit_arg_status_str(a->status) : "-",
		      a && a->error ? a->error : "");
		CHECK(a && a->kind != USDTKIT_LOC_SYMBOL && a->kind != USDTKIT_LOC_INVALID,
		      "%s: arg %d kind %s", what, i,
		      a ? usdtkit_loc_kind_str(a->kind) : "-");
	}
	if (n == 3) {
		CHECK(usdtkit_site_arg(s, 0)->kind == USDTKIT_LOC_REG &&
			      usdtkit_site_arg(s, 0)->size == 4 &&
			      usdtkit_site_arg(s, 0)->is_signed,
		      "%s: arg 0 is s32 reg", what);
		CHECK(usdtkit_site_arg(s, 1)->kind == USDTKIT_LOC_MEM,
		      "%s: arg 1 is mem", what);
	}
	CHECK(!usdtkit_site_arg(s, n) && !usdtkit_site_arg(s, -1),
	      "%s: arg out of range", what);
}

static void test_good_notes(void)
{
	static const struct {
		const char *what;
		uint16_t type;
		uint64_t vaddr, shift;
		bool base_scn;
	} variants[] = {
		{ "exec", EG_ET_EXEC, 0x400000, 0, true },
		{ "dyn", EG_ET_DYN, 0, 0, true },
		{ "exec, no .stapsdt.base", EG_ET_EXEC, 0x400000, 0, false },
		{ "prelinked", EG_ET_EXEC, 0x400000, 0x3000, true },
		{ "prelinked upwards", EG_ET_DYN, 0x10000, (uint64_t)-0x5000, true },
	};
	const struct usdtkit_file *first = NULL;
	struct usdtkit_file *files[NTARGETS] = { 0 };
	size_t ti, vi;

	begin("good notes");
	for (vi = 0; vi < sizeof(variants) / sizeof(variants[0]); vi++) {
		for (ti = 0; ti < NTARGETS; ti++) {
			const struct target *t = &targets[ti];
			struct expect_site x[3];
			struct eg_buf img = { 0 };
			struct usdtkit_file *f;
			struct eg_elf e;
			char what[128];
			unsigned k;

			snprintf(what, sizeof(what), "%s %s", t->arch, variants[vi].what);
			build_good(t, &e, &img, variants[vi].type, variants[vi].vaddr,
				   variants[vi].shift, variants[vi].base_scn, x);
			f = open_mem(&img, what);
			CHECK(f != NULL, "%s: open: %s\n%s", what, strerror(errno), lc.text);
			if (!f) {
				eg_free(&img);
				continue;
			}
			CHECK(!strcmp(usdtkit_arch_name(usdtkit_file_arch(f)), t->arch),
			      "%s: arch %s", what, usdtkit_arch_name(usdtkit_file_arch(f)));
			CHECK(usdtkit_file_type(f) == variants[vi].type, "%s: type %d",
			      what, usdtkit_file_type(f));
			CHECK(!strcmp(usdtkit_file_name(f), what), "%s: name", what);
			CHECK(usdtkit_file_site_count(f) == 3 && usdtkit_file_bad_notes(f) == 0,
			      "%s: %zu sites, %zu bad", what, usdtkit_file_site_count(f),
			      usdtkit_file_bad_notes(f));
			CHECK(lc.count == 0, "%s: unexpected messages:\n%s", what, lc.text);
			for (k = 0; k < 3; k++)
				check_site(what, t, usdtkit_file_site(f, k), k, &x[k]);
			CHECK(!usdtkit_file_site(f, 3), "%s: site past the end", what);
			CHECK(usdtkit_file_next_site(f, NULL, "other_*", NULL) ==
				      usdtkit_file_site(f, 2),
			      "%s: glob", what);
			/* same numbers on every class, byte order and machine */
			if (vi == 0 && ti == 0)
				first = f;
			if (vi == 0 && first && f != first) {
				for (k = 0; k < 3; k++) {
					const struct usdtkit_site *a = usdtkit_file_site(first, k);
					const struct usdtkit_site *b = usdtkit_file_site(f, k);

					CHECK(usdtkit_site_pc(a) == usdtkit_site_pc(b) &&
						      usdtkit_site_base(a) == usdtkit_site_base(b) &&
						      usdtkit_site_semaphore(a) == usdtkit_site_semaphore(b) &&
						      usdtkit_site_pc_offset(a) == usdtkit_site_pc_offset(b) &&
						      usdtkit_site_semaphore_offset(a) ==
							      usdtkit_site_semaphore_offset(b) &&
						      !strcmp(usdtkit_site_provider(a), usdtkit_site_provider(b)) &&
						      !strcmp(usdtkit_site_name(a), usdtkit_site_name(b)) &&
						      usdtkit_site_arg_count(a) == usdtkit_site_arg_count(b),
					      "%s: site %u differs from %s", what, k,
					      usdtkit_file_name(first));
				}
			}
			if (vi == 0)
				files[ti] = f;
			else
				usdtkit_file_close(f);
			eg_free(&img);
		}
	}
	for (ti = 0; ti < NTARGETS; ti++)
		usdtkit_file_close(files[ti]);
}

/* Addresses above 4 GiB survive in ELF64, on both byte orders. */
static void test_high_addresses(void)
{
	size_t ti;

	begin("high addresses");
	for (ti = 0; ti < NTARGETS; ti++) {
		const struct target *t = &targets[ti];
		struct expect_site x[3];
		struct eg_buf img = { 0 };
		struct usdtkit_file *f;
		struct eg_elf e;
		char what[64];

		if (!t_is64(t))
			continue;
		snprintf(what, sizeof(what), "%s high", t->arch);
		build_good(t, &e, &img, EG_ET_DYN, 0x7f1234560000ull, 0, true, x);
		f = open_mem(&img, what);
		CHECK(f && usdtkit_file_site_count(f) == 3, "%s: open", what);
		if (f)
			check_site(what, t, usdtkit_file_site(f, 0), 0, &x[0]);
		usdtkit_file_close(f);
		eg_free(&img);
	}
}

/* Without .stapsdt.base the note addresses are taken as they are. */
static void test_no_base_no_adjust(void)
{
	const struct target *t = &targets[0];
	struct expect_site x[3];
	struct eg_buf img = { 0 };
	struct usdtkit_file *f;
	struct eg_elf e;

	begin("no base section");
	build_good(t, &e, &img, EG_ET_EXEC, 0x400000, 0x3000, false, x);
	f = open_mem(&img, "nobase");
	CHECK(f && usdtkit_file_site_count(f) == 3, "open");
	if (f) {
		const struct usdtkit_site *s = usdtkit_file_site(f, 0);

		CHECK(usdtkit_site_pc(s) == x[0].pc - 0x3000, "pc not adjusted");
		CHECK(usdtkit_site_status(s) == -ENOEXEC && usdtkit_site_error(s),
		      "stale pc is outside the text: %d", usdtkit_site_status(s));
	}
	usdtkit_file_close(f);
	eg_free(&img);
}

/*
 * x86-64 "nop; nop5" and "nop; nop10" sites report their long nop, and
 * only one that is all there: a nop10 cut short by the end of the
 * executable segment is none (the bytes after it are not code).
 */
static void test_long_nops(void)
{
	static const struct {
		const char *what;
		uint8_t code[16];
		size_t len;		/* of the text */
		bool nop5, nop10;
	} cases[] = {
		{ "nop; nop5", { 0x90, 0x0f, 0x1f, 0x44, 0x00, 0x00 }, 16, true, false },
		{ "nop; nop10", { 0x90, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00,
				  0x00, 0x00, 0x00 }, 16, false, true },
		/* 9 bytes of text and .stapsdt.base's 0 end the executable
		 * segment one byte short; the file's next byte is a 0 too */
		{ "nop10 cut by the segment's end", { 0x90, 0x66, 0x2e, 0x0f, 0x1f,
						      0x84, 0x00, 0x00, 0x00 },
		  9, false, false },
		{ "plain nop", { 0x90, 0xc3 }, 16, false, false },
	};
	const struct target *t = target_named("x86_64");
	size_t i;

	begin("long nops");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct eg_buf notes = { 0 }, img = { 0 };
		const struct usdtkit_site *s;
		struct usdtkit_file *f;
		struct eg_elf e;

		init_elf(&e, t);
		e.text = cases[i].code;
		e.text_size = cases[i].len;
		eg_layout(&e);	/* .stapsdt.base moved */
		good_note(&notes, t, &e, 0, "p0", "");
		build_with(&e, &notes, &img);
		f = open_mem(&img, cases[i].what);
		s = f && usdtkit_file_site_count(f) == 1 ? usdtkit_file_site(f, 0) : NULL;
		CHECK(s, "%s: one site", cases[i].what);
		if (s) {
			CHECK(usdtkit_site_nop5_offset(s) ==
				      (cases[i].nop5 ? EG_TEXT_OFF + 1 : 0),
			      "%s: nop5 offset %llu", cases[i].what,
			      (unsigned long long)usdtkit_site_nop5_offset(s));
			CHECK(usdtkit_site_nop10_offset(s) ==
				      (cases[i].nop10 ? EG_TEXT_OFF + 1 : 0),
			      "%s: nop10 offset %llu", cases[i].what,
			      (unsigned long long)usdtkit_site_nop10_offset(s));
		}
		usdtkit_file_close(f);
		eg_free(&notes);
		eg_free(&img);
	}
}

/* ------------------------------------------------------------------ */
/* The decoder alone: ELF32 big endian has no backend to open it with */
/* ------------------------------------------------------------------ */

struct collected {
	struct usdtkit_raw_note n[8];
	size_t count;
};

static int collect(void *ctx, const struct usdtkit_raw_note *n)
{
	struct collected *c = ctx;

	if (c->count < 8)
		c->n[c->count] = *n;
	c->count++;
	return 0;
}

static void test_decoder_all_orders(void)
{
	struct usdtkit_log lg = { .print = cap_print, .ctx = &lc };
	int cls, be;

	begin("decoder");
	for (cls = 0; cls < 2; cls++) {
		for (be = 0; be < 2; be++) {
			struct eg_buf b = { 0 };
			struct collected c = { 0 };
			size_t bad, first_len;

			eg_stapsdt(&b, cls, be, 0x401000, 0x402000, 0x601000, "prov",
				   "name", "-4@r1");
			first_len = b.len;
			eg_note_raw(&b, be, 8, 0, 4, "stapsdt", 8, NULL, 0);
			eg_stapsdt(&b, cls, be, 0xfffff000u, 0, 0, "p", "n", "");
			cap_reset();
			bad = usdtkit__notes_decode(&lg, "raw", b.p, b.len, cls, be,
						    collect, &c);
			CHECK(bad == 1 && c.count == 2, "%d/%d: %zu bad, %zu good", cls,
			      be, bad, c.count);
			CHECK(c.n[0].index == 0 && c.n[0].pc == 0x401000 &&
				      c.n[0].base == 0x402000 && c.n[0].sema == 0x601000 &&
				      !strcmp(c.n[0].provider, "prov") &&
				      c.n[0].provider_len == 4 &&
				      !strcmp(c.n[0].name, "name") &&
				      !strcmp(c.n[0].args, "-4@r1") && c.n[0].args_len == 5,
			      "%d/%d: note 0", cls, be);
			CHECK(c.n[1].index == 2 && c.n[1].pc == 0xfffff000u &&
				      c.n[1].offset == first_len + 12 + 8,
			      "%d/%d: note 2", cls, be);
			CHECK(cap_has_note("raw", 1, first_len, "type"), "%d/%d: report:\n%s",
			      cls, be, lc.text);
			/* nothing at all, and a NULL logger */
			CHECK(usdtkit__notes_decode(NULL, "raw", b.p, 0, cls, be, collect,
						    &c) == 0,
			      "empty section");
			CHECK(usdtkit__notes_decode(NULL, "raw", b.p, 5, cls, be, collect,
						    &c) == 1,
			      "5 bytes: one truncated header");
			eg_free(&b);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Malformed notes                                                    */
/* ------------------------------------------------------------------ */

typedef void (*make_fn)(struct eg_buf *b, bool is64, bool be);

static void desc_addrs(struct eg_buf *d, bool is64, bool be)
{
	size_t a = is64 ? 8 : 4;

	eg_uint(d, 0x400100, a, be);
	eg_uint(d, 0, a, be);
	eg_uint(d, 0, a, be);
}

/* a stapsdt note whose descriptor is the addresses then @tail */
static void note_tail(struct eg_buf *b, bool is64, bool be, const void *tail,
		      size_t tail_len)
{
	struct eg_buf d = { 0 };

	desc_addrs(&d, is64, be);
	eg_put(&d, tail, tail_len);
	eg_note_raw(b, be, 8, (uint32_t)d.len, 3, "stapsdt", 8, d.p, d.len);
	eg_free(&d);
}

static void mk_desc_empty(struct eg_buf *b, bool is64, bool be)
{
	(void)is64;
	eg_note_raw(b, be, 8, 0, 3, "stapsdt", 8, NULL, 0);
}

static void mk_desc_pc_only(struct eg_buf *b, bool is64, bool be)
{
	uint8_t pc[8];

	eg_set_uint(pc, 0x400100, is64 ? 8 : 4, be);
	eg_note_raw(b, be, 8, is64 ? 8 : 4, 3, "stapsdt", 8, pc, is64 ? 8 : 4);
}

/*
 * A bad note: built by @make, or from the fields after it: a descriptor
 * of the addresses then @tail (@tail_len bytes), or else a real stapsdt
 * body under a header of @owner (@owner_len bytes), @namesz, @type and
 * @descsz (0: the body's own size).
 */
static const struct bad_case {
	const char *what;
	make_fn make;
	bool stops;		/* sizes do not allow finding the next note */
	const char *why;	/* in the report */
	const char *tail;
	size_t tail_len;
	const char *owner;
	uint32_t owner_len, namesz, type, descsz;
} bad_cases[] = {
#define TAIL_CASE(what, lit, why) \
	{ what, NULL, false, why, lit, sizeof(lit) - 1, NULL, 0, 0, 0, 0 }
#define HEAD_CASE(what, stops, why, owner, owner_len, namesz, type, descsz) \
	{ what, NULL, stops, why, NULL, 0, owner, owner_len, namesz, type, descsz }
	{ .what = "empty descriptor", .make = mk_desc_empty, .why = "short" },
	{ .what = "descriptor with a pc only", .make = mk_desc_pc_only, .why = "short" },
	TAIL_CASE("descriptor with addresses only", "", "short"),
	/* cut after provider and name: room for 3 NULs but no args */
	TAIL_CASE("descriptor cut before args", "p\0n\0", "not terminated"),
	TAIL_CASE("unterminated provider", "provider", "provider"),
	TAIL_CASE("unterminated name", "prov\0name", "name"),
	TAIL_CASE("unterminated args", "prov\0name\0-4@%edi", "argument"),
	TAIL_CASE("empty provider", "\0name\0\0", "empty provider"),
	TAIL_CASE("empty name", "prov\0\0-4@%edi\0", "empty probe name"),
	HEAD_CASE("owner stapsdX", false, "owner", "stapsdX", 8, 8, 3, 0),
	HEAD_CASE("owner without NUL", false, "owner", "stapsdt", 7, 7, 3, 0),
	HEAD_CASE("owner namesz 9", false, "owner", "stapsdt\0", 9, 9, 3, 0),
	HEAD_CASE("owner empty", false, "owner", NULL, 0, 0, 3, 0),
	HEAD_CASE("type 4", false, "type", "stapsdt", 8, 8, 4, 0),
	HEAD_CASE("type 0", false, "type", "stapsdt", 8, 8, 0, 0),
	HEAD_CASE("type 0x80000003", false, "type", "stapsdt", 8, 8, 0x80000003u, 0),
	HEAD_CASE("namesz past the section", true, "past", "stapsdt", 8, 0x1000, 3, 0),
	HEAD_CASE("descsz past the section", true, "past", "stapsdt", 8, 8, 3, 0x1000),
	HEAD_CASE("namesz 0xffffffff", true, "past", "stapsdt", 8, 0xffffffffu, 3, 0),
	HEAD_CASE("descsz 0xffffffff", true, "past", "stapsdt", 8, 8, 3, 0xffffffffu),
	/* 12 + namesz wraps to 0 in 32 bits: the same note again, forever */
	HEAD_CASE("namesz 0xfffffff4", true, "past", "stapsdt", 8, 0xfffffff4u, 3, 0),
	/* aligned desc end wraps to the note's own start in 32 bits */
	HEAD_CASE("descsz 0xffffffec", true, "past", "stapsdt", 8, 8, 3, 0xffffffecu),
	HEAD_CASE("both 0xffffffff", true, "past", "stapsdt", 8, 0xffffffffu, 3, 0xffffffffu),
	HEAD_CASE("both 0xfffffffc", true, "past", "stapsdt", 8, 0xfffffffcu, 3, 0xfffffffcu),
#undef TAIL_CASE
#undef HEAD_CASE
};

static void make_bad(const struct bad_case *bc, struct eg_buf *b, bool is64, bool be)
{
	struct eg_buf d = { 0 };

	if (bc->make) {
		bc->make(b, is64, be);
		return;
	}
	if (bc->tail) {
		note_tail(b, is64, be, bc->tail, bc->tail_len);
		return;
	}
	eg_stapsdt_desc(&d, is64, be, 0x400100, 0, 0, "prov", "name", "");
	eg_note_raw(b, be, bc->namesz, bc->descsz ? bc->descsz : (uint32_t)d.len,
		    bc->type, bc->owner, bc->owner_len, d.p, d.len);
	eg_free(&d);
}

/* the case named @what (the other tests mix a few into good notes) */
static const struct bad_case *bad(const char *what)
{
	size_t i;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
		if (!strcmp(bad_cases[i].what, what))
			return &bad_cases[i];
	fprintf(stderr, "no bad case '%s'\n", what);
	abort();
}

/* [good 0][bad 1][good 2][good 3] on every target */
static void test_bad_notes(void)
{
	size_t ci, ti;

	begin("bad notes");
	for (ci = 0; ci < sizeof(bad_cases) / sizeof(bad_cases[0]); ci++) {
		const struct bad_case *bc = &bad_cases[ci];

		for (ti = 0; ti < NTARGETS; ti++) {
			const struct target *t = &targets[ti];
			struct eg_buf notes = { 0 }, img = { 0 };
			struct usdtkit_file *f;
			size_t want = bc->stops ? 1 : 3, off1, i;
			struct eg_elf e;
			char what[160];

			snprintf(what, sizeof(what), "%s/%s.elf", t->arch, bc->what);
			init_elf(&e, t);
			good_note(&notes, t, &e, 0, "p0", t->args);
			off1 = notes.len;
			make_bad(bc, &notes, t_is64(t), t_be(t));
			good_note(&notes, t, &e, 2, "p2", "");
			good_note(&notes, t, &e, 3, "p3", t->args);
			build_with(&e, &notes, &img);
			f = open_mem(&img, what);
			CHECK(f != NULL, "%s: open: %s\n%s", what, strerror(errno), lc.text);
			if (f) {
				CHECK(usdtkit_file_site_count(f) == want,
				      "%s: %zu sites, want %zu", what,
				      usdtkit_file_site_count(f), want);
				CHECK(usdtkit_file_bad_notes(f) == 1, "%s: %zu bad notes",
				      what, usdtkit_file_bad_notes(f));
				for (i = 0; i < usdtkit_file_site_count(f); i++) {
					const struct usdtkit_site *s = usdtkit_file_site(f, i);

					CHECK(usdtkit_site_note_index(s) == (i ? i + 1 : 0) &&
						      usdtkit_site_status(s) == 0 &&
						      usdtkit_site_pc(s) ==
							      e.text_addr + 16 * (i ? i + 1 : 0),
					      "%s: site %zu: index %zu status %d", what, i,
					      usdtkit_site_note_index(s), usdtkit_site_status(s));
				}
			}
			CHECK(cap_has_note(what, 1, off1, bc->why),
			      "%s: no report of note 1 at offset %zu (\"%s\"):\n%s", what,
			      off1, bc->why, lc.text);
			CHECK(lc.count == 1 && !lc.bad_format, "%s: %zu messages:\n%s",
			      what, lc.count, lc.text);
			usdtkit_file_close(f);
			eg_free(&notes);
			eg_free(&img);
		}
	}
}

/* Several bad notes, and garbage after the last good one. */
static void test_bad_mix(void)
{
	size_t ti, k;

	begin("bad mix");
	for (ti = 0; ti < NTARGETS; ti++) {
		const struct target *t = &targets[ti];
		bool is64 = t_is64(t), be = t_be(t);
		struct eg_buf notes = { 0 }, img = { 0 };
		struct usdtkit_file *f;
		size_t off[5];
		struct eg_elf e;
		char what[64];

		snprintf(what, sizeof(what), "%s mix", t->arch);
		init_elf(&e, t);
		off[0] = notes.len;
		make_bad(bad("type 4"), &notes, is64, be);
		off[1] = notes.len;
		good_note(&notes, t, &e, 1, "p1", t->args);
		off[2] = notes.len;
		make_bad(bad("owner stapsdX"), &notes, is64, be);
		off[3] = notes.len;
		make_bad(bad("empty name"), &notes, is64, be);
		off[4] = notes.len;
		good_note(&notes, t, &e, 4, "p4", "");
		build_with(&e, &notes, &img);
		f = open_mem(&img, what);
		CHECK(f && usdtkit_file_site_count(f) == 2 &&
			      usdtkit_file_bad_notes(f) == 3,
		      "%s: %zu sites, %zu bad", what, usdtkit_file_site_count(f),
		      usdtkit_file_bad_notes(f));
		if (f && usdtkit_file_site_count(f) == 2) {
			CHECK(usdtkit_site_note_index(usdtkit_file_site(f, 0)) == 1 &&
				      usdtkit_site_note_index(usdtkit_file_site(f, 1)) == 4,
			      "%s: indices", what);
			CHECK(!strcmp(usdtkit_site_name(usdtkit_file_site(f, 1)), "p4"),
			      "%s: p4", what);
		}
		CHECK(cap_has_note(what, 0, off[0], "type") &&
			      cap_has_note(what, 2, off[2], "owner") &&
			      cap_has_note(what, 3, off[3], "name") && lc.count == 3,
		      "%s: reports:\n%s", what, lc.text);
		usdtkit_file_close(f);
		eg_free(&img);

		/* trailing garbage shorter than a note header */
		for (k = 1; k < 12; k++) {
			struct eg_buf n2 = { 0 };
			size_t end;

			eg_put(&n2, notes.p + off[1], off[2] - off[1]);
			end = n2.len;
			eg_reserve(&n2, k);
			memset(n2.p + n2.len, 0xab, k);
			n2.len += k;
			snprintf(what, sizeof(what), "%s garbage %zu", t->arch, k);
			build_with(&e, &n2, &img);
			f = open_mem(&img, what);
			CHECK(f && usdtkit_file_site_count(f) == 1 &&
				      usdtkit_file_bad_notes(f) == 1,
			      "%s: %zu sites %zu bad", what, usdtkit_file_site_count(f),
			      usdtkit_file_bad_notes(f));
			CHECK(cap_has_note(what, 1, end, "truncated"), "%s: report:\n%s",
			      what, lc.text);
			usdtkit_file_close(f);
			eg_free(&img);
			eg_free(&n2);
		}

		/* the section ends inside a note (past its padding): nothing */
		{
			struct eg_buf n2 = { 0 };

			eg_put(&n2, notes.p + off[1], off[2] - off[1] - 8);
			snprintf(what, sizeof(what), "%s cut", t->arch);
			build_with(&e, &n2, &img);
			f = open_mem(&img, what);
			CHECK(f && usdtkit_file_site_count(f) == 0 &&
				      usdtkit_file_bad_notes(f) == 1 &&
				      cap_has_note(what, 0, 0, "past"),
			      "%s: cut note:\n%s", what, lc.text);
			usdtkit_file_close(f);
			eg_free(&img);
			eg_free(&n2);
		}
		eg_free(&notes);
	}
}

/* No print callback, and no options at all: still counted, no crash. */
static void test_bad_notes_silent(void)
{
	const struct target *t = &targets[0];
	USDTKIT_OPTS(usdtkit_open_opts, o);
	struct eg_buf notes = { 0 }, img = { 0 };
	struct usdtkit_file *f;
	struct eg_elf e;

	begin("silent");
	init_elf(&e, t);
	make_bad(bad("unterminated args"), &notes, true, false);
	good_note(&notes, t, &e, 1, "p1", "");
	make_bad(bad("both 0xffffffff"), &notes, true, false);
	build_with(&e, &notes, &img);
	f = usdtkit_file_open_mem(img.p, img.len, NULL);
	CHECK(f && usdtkit_file_site_count(f) == 1 && usdtkit_file_bad_notes(f) == 2,
	      "NULL opts");
	CHECK(f && !strcmp(usdtkit_file_name(f), "<memory>"), "default name");
	usdtkit_file_close(f);
	f = usdtkit_file_open_mem(img.p, img.len, &o);
	CHECK(f && usdtkit_file_site_count(f) == 1 && usdtkit_file_bad_notes(f) == 2,
	      "NULL print");
	usdtkit_file_close(f);
	o.sz = 1;	/* not a size this library knows */
	errno = 0;
	f = usdtkit_file_open_mem(img.p, img.len, &o);
	CHECK(!f && errno == EINVAL, "bad opts size");
	usdtkit_file_close(f);
	eg_free(&notes);
	eg_free(&img);
}

/* .note.stapsdt must be SHT_NOTE; absent is fine. */
static void test_note_section_type(void)
{
	size_t ti;

	begin("section type");
	for (ti = 0; ti < NTARGETS; ti++) {
		const struct target *t = &targets[ti];
		struct eg_buf notes = { 0 }, img = { 0 };
		struct usdtkit_file *f;
		struct eg_elf e;
		char what[64];
		int k;

		snprintf(what, sizeof(what), "%s progbits", t->arch);
		init_elf(&e, t);
		good_note(&notes, t, &e, 0, "p0", t->args);
		e.notes_type = EG_SHT_PROGBITS;
		build_with(&e, &notes, &img);
		f = open_mem(&img, what);
		CHECK(f && usdtkit_file_site_count(f) == 0 &&
			      usdtkit_file_bad_notes(f) == 0,
		      "%s: opened with no sites", what);
		CHECK(cap_has(what, ".note.stapsdt", "SHT_NOTE"), "%s: message:\n%s",
		      what, lc.text);
		usdtkit_file_close(f);
		eg_free(&img);

		snprintf(what, sizeof(what), "%s no notes", t->arch);
		init_elf(&e, t);
		e.no_notes = true;
		eg_build(&e, &img);
		f = open_mem(&img, what);
		CHECK(f && usdtkit_file_site_count(f) == 0 && lc.count == 0,
		      "%s: opens quietly with 0 sites:\n%s", what, lc.text);
		usdtkit_file_close(f);
		eg_free(&img);

		snprintf(what, sizeof(what), "%s empty notes", t->arch);
		init_elf(&e, t);
		e.notes_size = 0;
		eg_build(&e, &img);
		f = open_mem(&img, what);
		CHECK(f && usdtkit_file_site_count(f) == 0 && lc.count == 0,
		      "%s: empty section:\n%s", what, lc.text);
		usdtkit_file_close(f);
		eg_free(&img);

		/* the section itself runs past the end of the file, or
		 * starts past it */
		init_elf(&e, t);
		for (k = 0; k < 2; k++) {
			snprintf(what, sizeof(what), "%s notes %s past eof", t->arch,
				 k ? "offset" : "size");
			build_with(&e, &notes, &img);
			eg_patch_shdr(&e, &img, e.sec_notes, k ? EG_SH_OFFSET : EG_SH_SIZE,
				      k ? img.len + 0x1000 : 0x100000);
			f = open_mem(&img, what);
			CHECK(!f && errno && cap_has(what, ".note.stapsdt", NULL),
			      "%s: refused with a message: %s\n%s", what,
			      strerror(errno), lc.text);
			usdtkit_file_close(f);
			eg_free(&img);
		}
		eg_free(&notes);
	}
}

/* ------------------------------------------------------------------ */
/* Whole-file problems                                                */
/* ------------------------------------------------------------------ */

static void test_refused_mem(void)
{
	static const char text[] = "#!/bin/sh\necho not an ELF file\n";
	const struct target *t;
	uint8_t rnd[4096];
	uint32_t x = 2463534242u;
	OPTS_NAMED(o, "null.elf");
	struct usdtkit_file *f;
	struct eg_buf img = { 0 };
	struct eg_elf e;
	size_t i, ti;
	char what[96];
	const char *mname;
	uint16_t machine;

	begin("refused (memory)");
	expect_refused("empty.elf", "", 0, ENOEXEC, NULL);
	cap_reset();
	errno = 0;
	f = usdtkit_file_open_mem(NULL, 100, &o);
	CHECK(!f && errno == ENOEXEC && cap_has("null.elf", NULL, NULL),
	      "NULL buffer: %s", strerror(errno));
	for (i = 0; i < sizeof(rnd); i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		rnd[i] = (uint8_t)x;
	}
	rnd[0] = 0x7f;	/* almost: "\x7fELF" needs all four */
	expect_refused("random.bin", rnd, sizeof(rnd), ENOEXEC, NULL);
	expect_refused("script.sh", text, sizeof(text) - 1, ENOEXEC, NULL);
	expect_refused("magic-only", "\x7f" "ELF", 4, ENOEXEC, NULL);

	for (ti = 0; ti < NTARGETS; ti++) {
		struct eg_buf notes = { 0 };
		struct eg_buf bad = { 0 };
		size_t cut;

		t = &targets[ti];
		init_elf(&e, t);
		good_note(&notes, t, &e, 0, "p0", t->args);
		build_with(&e, &notes, &img);
		eg_free(&notes);

		/* truncated ELF header */
		for (cut = 5; cut < e.ehsize; cut += 9) {
			snprintf(what, sizeof(what), "%s header cut at %zu", t->arch, cut);
			expect_refused(what, img.p, cut, ENOEXEC, NULL);
		}
		/* an invalid class or byte order is no ELF file we know */
		eg_put(&bad, img.p, img.len);
		bad.p[4] = 3;
		snprintf(what, sizeof(what), "%s class 3", t->arch);
		expect_refused(what, bad.p, bad.len, ENOEXEC, NULL);
		bad.p[4] = img.p[4];
		bad.p[5] = 0;
		snprintf(what, sizeof(what), "%s data 0", t->arch);
		expect_refused(what, bad.p, bad.len, ENOEXEC, NULL);
		eg_free(&bad);

		/* header tables past, across or wrapping the end of the file */
		{
			const bool w = t_is64(t);
			const struct {
				const char *what;
				int field;
				uint64_t value;
			} hdr[] = {
				{ "shoff past eof", EG_E_SHOFF, img.len + 0x1000 },
				{ "shoff across eof", EG_E_SHOFF, img.len - 8 },
				{ "shoff wraps", EG_E_SHOFF, w ? ~0ull - 63 : 0xffffffc0u },
				{ "shnum past eof", EG_E_SHNUM, 0xff00 },
				{ "phoff past eof", EG_E_PHOFF, img.len + 0x100 },
				{ "phoff across eof", EG_E_PHOFF, img.len - 16 },
				{ "phoff wraps", EG_E_PHOFF, w ? ~0ull - 31 : 0xffffffe0u },
				{ "phnum past eof", EG_E_PHNUM, 0xfff0 },
			};
			size_t h;

			for (h = 0; h < sizeof(hdr) / sizeof(hdr[0]); h++) {
				/* one bad field in an otherwise good image */
				eg_put(&bad, img.p, img.len);
				eg_patch_ehdr(&e, &bad, hdr[h].field, hdr[h].value);
				snprintf(what, sizeof(what), "%s %s", t->arch, hdr[h].what);
				expect_refused(what, bad.p, bad.len, ENOEXEC, NULL);
				eg_free(&bad);
			}
		}

		/* section names that cannot be read: the notes cannot be found */
		{
			static const struct {
				const char *what;
				uint64_t shstrndx;	/* ~0: .text */
			} names[] = {
				{ "e_shstrndx 99", 99 },
				{ "e_shstrndx 0", 0 },
				{ "e_shstrndx .text", ~0ull },
				{ "e_shstrndx SHN_XINDEX", 0xffff },
			};

			for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
				eg_put(&bad, img.p, img.len);
				eg_patch_ehdr(&e, &bad, EG_E_SHSTRNDX,
					      names[i].shstrndx == ~0ull ?
						      (uint64_t)e.sec_text : names[i].shstrndx);
				snprintf(what, sizeof(what), "%s %s", t->arch, names[i].what);
				expect_refused(what, bad.p, bad.len, ENOEXEC, "section names");
				eg_free(&bad);
			}
		}

		/* extended numbering: counts in section 0, checked the same way */
		eg_put(&bad, img.p, img.len);
		eg_patch_ehdr(&e, &bad, EG_E_SHNUM, 0);
		eg_patch_shdr(&e, &bad, 0, EG_SH_SIZE, (uint64_t)e.nsec);
		eg_patch_ehdr(&e, &bad, EG_E_PHNUM, 0xffff /* PN_XNUM */);
		eg_patch_shdr(&e, &bad, 0, EG_SH_INFO, 2);
		snprintf(what, sizeof(what), "%s extended numbering", t->arch);
		f = open_mem(&bad, what);
		CHECK(f && usdtkit_file_site_count(f) == 1 && lc.count == 0 &&
			      usdtkit_site_status(usdtkit_file_site(f, 0)) == 0,
		      "%s: opens: %s\n%s", what, strerror(errno), lc.text);
		usdtkit_file_close(f);
		eg_patch_shdr(&e, &bad, 0, EG_SH_SIZE, 0x7fffffff);
		snprintf(what, sizeof(what), "%s extended shnum past eof", t->arch);
		expect_refused(what, bad.p, bad.len, ENOEXEC, "section header table");
		eg_patch_shdr(&e, &bad, 0, EG_SH_SIZE, (uint64_t)e.nsec);
		eg_patch_shdr(&e, &bad, 0, EG_SH_INFO, 0x7fffffff);
		snprintf(what, sizeof(what), "%s extended phnum past eof", t->arch);
		expect_refused(what, bad.p, bad.len, ENOEXEC, "program header table");
		eg_free(&bad);

		/* no section headers at all (sstripped): no notes, no complaint */
		eg_put(&bad, img.p, img.len);
		eg_patch_ehdr(&e, &bad, EG_E_SHOFF, 0);
		eg_patch_ehdr(&e, &bad, EG_E_SHNUM, 0);
		eg_patch_ehdr(&e, &bad, EG_E_SHSTRNDX, 0);
		snprintf(what, sizeof(what), "%s sstripped", t->arch);
		f = open_mem(&bad, what);
		CHECK(f && usdtkit_file_site_count(f) == 0 && lc.count == 0,
		      "%s: opens quietly: %s\n%s", what, strerror(errno), lc.text);
		usdtkit_file_close(f);
		eg_free(&bad);

		/* one section name unreadable: that section is skipped, said */
		eg_put(&bad, img.p, img.len);
		eg_patch_shdr(&e, &bad, e.sec_notes, EG_SH_NAME, 0x7fffff);
		snprintf(what, sizeof(what), "%s notes name unreadable", t->arch);
		f = open_mem(&bad, what);
		CHECK(f && usdtkit_file_site_count(f) == 0 &&
			      cap_has(what, "unreadable name", NULL),
		      "%s: opens, says so: %s\n%s", what, strerror(errno), lc.text);
		usdtkit_file_close(f);
		eg_free(&bad);

		/* unsupported machines and identities */
		eg_put(&bad, img.p, img.len);
		machine = unsupported_machine(&mname);
		eg_patch_ehdr(&e, &bad, EG_E_MACHINE, machine);
		snprintf(what, sizeof(what), "%s as %s", t->arch, mname);
		expect_refused(what, bad.p, bad.len, EPROTONOSUPPORT, "machine");
		eg_free(&bad);
		eg_free(&img);
	}

	/* known machines in an identity without a backend */
	{
		static const struct target odd[] = {
			{ "aarch64_be", EG_ELFCLASS64, EG_MSB, EG_EM_AARCH64, "", "" },
			{ "armeb", EG_ELFCLASS32, EG_MSB, EG_EM_ARM, "", "" },
			{ "s390 (31-bit)", EG_ELFCLASS32, EG_MSB, EG_EM_S390, "", "" },
			{ "ppc64", EG_ELFCLASS64, EG_MSB, EG_EM_PPC64, "", "" },
			{ "ppc64le", EG_ELFCLASS64, EG_LSB, EG_EM_PPC64, "", "" },
			{ "i386 as ELF64", EG_ELFCLASS64, EG_LSB, EG_EM_386, "", "" },
		};

		for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
			/* an identity the manifests gained is no longer odd */
			if (usdtkit_arch_by_elf(odd[i].machine, odd[i].cls, odd[i].data))
				continue;
			init_elf(&e, &odd[i]);
			e.no_notes = true;
			eg_build(&e, &img);
			expect_refused(odd[i].arch, img.p, img.len, EPROTONOSUPPORT,
				       "unsupported machine");
			eg_free(&img);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Placement errors are per site                                      */
/* ------------------------------------------------------------------ */

/*
 * A program header whose bytes run past the end of the file (found by
 * fuzz_list): a pc inside the segment but past the file has no file
 * offset to attach at, so its site is refused, never given an offset
 * outside the file; a pc whose bytes are in the file still places.
 */
static void segment_past_eof(const struct target *t)
{
	uint64_t big = (uint64_t)1 << 30;
	struct eg_buf notes = { 0 }, img = { 0 };
	struct usdtkit_file *f;
	struct eg_elf e;
	char what[64];
	int k;

	init_elf(&e, t);
	eg_stapsdt(&notes, t_is64(t), t_be(t), e.text_addr, e.base_addr, 0, "p", "in", "");
	eg_stapsdt(&notes, t_is64(t), t_be(t), e.vaddr + big - 16, e.base_addr, 0, "p",
		   "past", "");
	build_with(&e, &notes, &img);
	for (k = 0; k < 2; k++) {
		/* the R+X segment: 1 GiB of file bytes from offset 0,
		 * or its usual bytes from an offset past the end */
		snprintf(what, sizeof(what), "%s %s", t->arch,
			 k ? "segment offset past eof" : "segment size past eof");
		eg_write_phdr(&e, img.p + e.ehsize, k ? img.len + 0x1000 : 0,
			      e.vaddr, big, big, 5);
		f = open_mem(&img, what);
		CHECK(f && usdtkit_file_site_count(f) == 2, "%s: open: %s\n%s",
		      what, strerror(errno), lc.text);
		if (f) {
			const struct usdtkit_site *in = usdtkit_file_site(f, 0);
			const struct usdtkit_site *past = usdtkit_file_site(f, 1);

			CHECK(k ? usdtkit_site_status(in) == -ENOEXEC
				: usdtkit_site_status(in) == 0 &&
					  usdtkit_site_pc_offset(in) == e.text_off,
			      "%s: site in the file: status %d offset %llu", what,
			      usdtkit_site_status(in),
			      (unsigned long long)usdtkit_site_pc_offset(in));
			CHECK(usdtkit_site_status(past) == -ENOEXEC &&
				      usdtkit_site_error(past),
			      "%s: site past the file: status %d offset %llu", what,
			      usdtkit_site_status(past),
			      (unsigned long long)usdtkit_site_pc_offset(past));
		}
		usdtkit_file_close(f);
	}
	eg_free(&img);
	eg_free(&notes);
}

static void test_placement(void)
{
	size_t ti;

	begin("placement");
	for (ti = 0; ti < NTARGETS; ti++) {
		const struct target *t = &targets[ti];
		bool is64 = t_is64(t), be = t_be(t);
		struct eg_buf notes = { 0 }, img = { 0 };
		struct usdtkit_file *f;
		struct eg_elf e;
		char what[64];
		static const struct {
			const char *name;
			int status;
		} want[] = {
			{ "ok", 0 },
			{ "pc_in_data", -ENOEXEC },
			{ "pc_nowhere", -ENOEXEC },
			{ "pc_past_text", -ENOEXEC },
			{ "sema_in_text", -EINVAL },
			{ "sema_nowhere", -EINVAL },
			{ "ok_sema", 0 },
			{ "pc_and_sema_bad", -ENOEXEC },
			{ "sema_in_bss", 0 },
		};
		size_t k;

		snprintf(what, sizeof(what), "%s placement", t->arch);
		init_elf(&e, t);
		eg_stapsdt(&notes, is64, be, e.text_addr, e.base_addr, 0, "p", want[0].name, t->args);
		eg_stapsdt(&notes, is64, be, e.data_addr + 4, e.base_addr, 0, "p", want[1].name, "");
		eg_stapsdt(&notes, is64, be, 0x10, e.base_addr, 0, "p", want[2].name, "");
		eg_stapsdt(&notes, is64, be, e.vaddr + e.text_end, e.base_addr, 0, "p", want[3].name, "");
		eg_stapsdt(&notes, is64, be, e.text_addr + 4, e.base_addr, e.text_addr + 8, "p",
			   want[4].name, "");
		eg_stapsdt(&notes, is64, be, e.text_addr + 4, e.base_addr, 0x20, "p", want[5].name, "");
		eg_stapsdt(&notes, is64, be, e.text_addr + 8, e.base_addr, e.data_addr + 6, "p",
			   want[6].name, t->args);
		eg_stapsdt(&notes, is64, be, e.data_addr, e.base_addr, e.text_addr, "p",
			   want[7].name, t->args);
		/* past the data segment's file bytes, in its zero-filled tail */
		eg_stapsdt(&notes, is64, be, e.text_addr + 8, e.base_addr,
			   e.data_addr + e.data_size + 8, "p", want[8].name, "");
		build_with(&e, &notes, &img);
		f = open_mem(&img, what);
		CHECK(f && usdtkit_file_site_count(f) == 9 && usdtkit_file_bad_notes(f) == 0,
		      "%s: open: %s\n%s", what, strerror(errno), lc.text);
		/* placed, with a warning naming the probe */
		CHECK(cap_has("p:sema_in_bss", "zero-filled part", NULL),
		      "%s: .bss semaphore warning\n%s", what, lc.text);
		for (k = 0; f && k < 9; k++) {
			const struct usdtkit_site *s = usdtkit_file_site(f, k);

			CHECK(s && usdtkit_site_status(s) == want[k].status,
			      "%s: %s: status %d want %d", what, want[k].name,
			      s ? usdtkit_site_status(s) : 1, want[k].status);
			CHECK(s && (want[k].status ? usdtkit_site_error(s) != NULL &&
							     *usdtkit_site_error(s)
						   : !usdtkit_site_error(s)),
			      "%s: %s: error string", what, want[k].name);
			/* arguments are parsed whatever the placement */
			if (s && strlen(usdtkit_site_args_text(s)))
				CHECK(usdtkit_site_arg_count(s) == 3, "%s: %s: args", what,
				      want[k].name);
		}
		if (f) {
			CHECK(usdtkit_site_semaphore_offset(usdtkit_file_site(f, 6)) ==
				      e.data_off + 6,
			      "%s: semaphore offset", what);
			CHECK(usdtkit_site_pc_offset(usdtkit_file_site(f, 6)) ==
				      e.text_off + 8,
			      "%s: pc offset", what);
		}
		usdtkit_file_close(f);
		eg_free(&img);

		/* no program headers at all (like ET_REL) */
		snprintf(what, sizeof(what), "%s no phdrs", t->arch);
		e.no_phdrs = true;
		e.type = EG_ET_REL;
		build_with(&e, &notes, &img);
		f = open_mem(&img, what);
		CHECK(f && usdtkit_file_site_count(f) == 9, "%s: open", what);
		for (k = 0; f && k < 9; k++) {
			const struct usdtkit_site *s = usdtkit_file_site(f, k);

			CHECK(usdtkit_site_status(s) == -ENOEXEC && usdtkit_site_error(s),
			      "%s: site %zu status %d", what, k, usdtkit_site_status(s));
		}
		usdtkit_file_close(f);
		eg_free(&img);
		eg_free(&notes);
		segment_past_eof(t);
	}
}


/* ------------------------------------------------------------------ */
/* Scale                                                              */
/* ------------------------------------------------------------------ */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Memory stays bounded: the peak resident size after the scale tests
 * (100k notes, 1 MB args strings and symbol names) is far below 1 GiB
 * (about 60 MB plain; ASan and valgrind add their own, hence the room).
 */
static void check_peak_rss(void)
{
	struct rusage ru;

	CHECK(!getrusage(RUSAGE_SELF, &ru) && ru.ru_maxrss < 1024L * 1024,
	      "peak RSS %ld KiB", ru.ru_maxrss);
}

static void test_scale(void)
{
	const struct target *t = &targets[0];
	struct eg_buf notes = { 0 }, img = { 0 }, args = { 0 };
	struct usdtkit_file *f;
	struct eg_elf e;
	const unsigned N = 100000;
	unsigned k;
	double t0;

	begin("100k notes");
	init_elf(&e, t);
	for (k = 0; k < N; k++) {
		char name[32];

		snprintf(name, sizeof(name), "p%u", k);
		eg_stapsdt(&notes, true, false, e.text_addr + k % 64, e.base_addr,
			   k % 2 ? e.data_addr + k % 64 : 0, "prov", name, "-4@%edi 8@%rsi");
	}
	build_with(&e, &notes, &img);
	t0 = now();
	f = open_mem(&img, "100k.elf");
	CHECK(f && usdtkit_file_site_count(f) == N && usdtkit_file_bad_notes(f) == 0,
	      "100k notes: %zu sites", usdtkit_file_site_count(f));
	if (f) {
		const struct usdtkit_site *s = usdtkit_file_site(f, N - 1);

		CHECK(usdtkit_site_note_index(s) == N - 1 &&
			      !strcmp(usdtkit_site_name(s), "p99999") &&
			      usdtkit_site_arg_count(s) == 2 && usdtkit_site_status(s) == 0,
		      "last site");
		CHECK(usdtkit_file_next_site(f, NULL, "prov", "p77777") ==
			      usdtkit_file_site(f, 77777),
		      "glob lookup");
	}
	printf("100k notes: %.3f s\n", now() - t0);
	usdtkit_file_close(f);
	eg_free(&img);
	eg_free(&notes);

	/* every other note bad: each is reported, none stops the rest */
	begin("100k notes, half bad");
	for (k = 0; k < N; k++) {
		if (k % 2)
			make_bad(bad("type 4"), &notes, true, false);
		else
			good_note(&notes, t, &e, 0, "p", "");
	}
	build_with(&e, &notes, &img);
	t0 = now();
	f = open_mem(&img, "half.elf");
	CHECK(f && usdtkit_file_site_count(f) == N / 2 &&
		      usdtkit_file_bad_notes(f) == N / 2 && lc.count == N / 2,
	      "half bad: %zu sites, %zu bad, %zu messages",
	      usdtkit_file_site_count(f), usdtkit_file_bad_notes(f), lc.count);
	printf("100k notes, half bad: %.3f s\n", now() - t0);
	usdtkit_file_close(f);
	eg_free(&img);
	eg_free(&notes);

	/* a 1 MB args string of real arguments */
	begin("1 MB args");
	while (args.len < (1u << 20))
		eg_put(&args, "8@%rax ", 7);
	args.p[args.len - 1] = 0;
	good_note(&notes, t, &e, 0, "big", (const char *)args.p);
	build_with(&e, &notes, &img);
	f = open_mem(&img, "1mb.elf");
	CHECK(f && usdtkit_file_site_count(f) == 1, "1 MB args: open");
	if (f) {
		const struct usdtkit_site *s = usdtkit_file_site(f, 0);
		int n = usdtkit_site_arg_count(s);

		CHECK(strlen(usdtkit_site_args_text(s)) == args.len - 1, "1 MB text kept");
		/* counted in full, decoded up to the bound */
		CHECK(usdtkit_site_arg_total(s) == (int)(args.len / 7), "1 MB: %d args",
		      usdtkit_site_arg_total(s));
		CHECK(n == USDTKIT_SITE_MAX_ARGS, "1 MB: %d decoded", n);
		CHECK(n > 0 && usdtkit_site_arg(s, n - 1)->status == USDTKIT_ARG_OK &&
			      usdtkit_site_arg(s, n - 1)->text_off == (uint32_t)(n - 1) * 7,
		      "1 MB: last decoded arg");
	}
	usdtkit_file_close(f);
	eg_free(&img);
	eg_free(&notes);

	/* one 1 MB symbol name, and 1 MB of garbage */
	args.len = 0;
	eg_put(&args, "4@", 2);
	while (args.len < (1u << 20))
		eg_put(&args, "counter_", 8);
	eg_zero(&args, 1);
	good_note(&notes, t, &e, 0, "sym", (const char *)args.p);
	memset(args.p, '@', args.len - 1);
	good_note(&notes, t, &e, 1, "garbage", (const char *)args.p);
	build_with(&e, &notes, &img);
	f = open_mem(&img, "1mb-sym.elf");
	CHECK(f && usdtkit_file_site_count(f) == 2, "1 MB symbol: open");
	if (f) {
		const struct usdtkit_site *s = usdtkit_file_site(f, 0);

		CHECK(usdtkit_site_arg_count(s) == 1 &&
			      usdtkit_site_arg(s, 0)->status == USDTKIT_ARG_UNRESOLVED &&
			      usdtkit_site_arg(s, 0)->sym_len == args.len - 3,
		      "1 MB symbol: unresolved, full length");
		s = usdtkit_file_site(f, 1);
		CHECK(usdtkit_site_arg_count(s) >= 1 &&
			      usdtkit_site_arg(s, 0)->status == USDTKIT_ARG_INVALID,
		      "1 MB garbage: invalid");
	}
	usdtkit_file_close(f);
	eg_free(&img);
	eg_free(&notes);

	/* a probe with 1000 arguments */
	begin("1000 args");
	args.len = 0;
	for (k = 0; k < 1000; k++) {
		char a[32];

		snprintf(a, sizeof(a), "%s-%u@%u(%%rbp)", k ? " " : "", 1u << (k % 4),
			 k * 8);
		eg_put(&args, a, strlen(a));
	}
	eg_zero(&args, 1);
	good_note(&notes, t, &e, 0, "many", (const char *)args.p);
	build_with(&e, &notes, &img);
	f = open_mem(&img, "1000.elf");
	CHECK(f && usdtkit_file_site_count(f) == 1, "1000 args: open");
	if (f) {
		const struct usdtkit_site *s = usdtkit_file_site(f, 0);
		int i, ok = 0;

		CHECK(usdtkit_site_arg_total(s) == 1000, "1000 args: %d",
		      usdtkit_site_arg_total(s));
		CHECK(usdtkit_site_arg_count(s) == USDTKIT_SITE_MAX_ARGS,
		      "1000 args: %d decoded", usdtkit_site_arg_count(s));
		for (i = 0; i < usdtkit_site_arg_count(s); i++) {
			const struct usdtkit_arg *a = usdtkit_site_arg(s, i);

			ok += a->status == USDTKIT_ARG_OK && a->kind == USDTKIT_LOC_MEM &&
			      a->disp == 8 * i && a->size == 1u << (i % 4) && a->is_signed;
		}
		CHECK(ok == USDTKIT_SITE_MAX_ARGS, "1000 args: %d decoded right", ok);
		CHECK(!usdtkit_site_arg(s, USDTKIT_SITE_MAX_ARGS),
		      "arg %d is past the decoded ones", USDTKIT_SITE_MAX_ARGS);
	}
	usdtkit_file_close(f);
	eg_free(&img);
	eg_free(&notes);
	eg_free(&args);
	check_peak_rss();
}

/* ------------------------------------------------------------------ */
/* Bogus symbol tables                                                */
/* ------------------------------------------------------------------ */

enum sym_variant {
	SV_GOOD,
	SV_BAD_ST_NAME,
	SV_ST_NAME_PAST,
	SV_LINK_NOWHERE,
	SV_LINK_ZERO,
	SV_LINK_SELF,
	SV_LINK_PROGBITS,
	SV_ENTSIZE_ZERO,
	SV_ENTSIZE_ONE,
	SV_ENTSIZE_HUGE,
	SV_SIZE_HUGE,
	SV_SIZE_HUGE_ENT1,
	SV_OFFSET_PAST,
	SV_STRTAB_EMPTY,
	SV_STRTAB_UNTERMINATED,
	SV_STRTAB_PAST,
	SV_UNDEF,
	SV_SHNDX_NOWHERE,
	SV_SHNDX_RESERVED,
	SV_DUPLICATE,
	SV_NONE,
	SV_COUNT
};

static const struct {
	const char *what;
	int status;	/* -1: OK or UNRESOLVED, as long as nothing breaks */
} sym_variants[SV_COUNT] = {
	[SV_GOOD] = { "good", USDTKIT_ARG_OK },
	[SV_BAD_ST_NAME] = { "st_name 0x7fffffff", USDTKIT_ARG_UNRESOLVED },
	[SV_ST_NAME_PAST] = { "st_name = strtab size", USDTKIT_ARG_UNRESOLVED },
	[SV_LINK_NOWHERE] = { "sh_link 99", USDTKIT_ARG_UNRESOLVED },
	[SV_LINK_ZERO] = { "sh_link 0", USDTKIT_ARG_UNRESOLVED },
	[SV_LINK_SELF] = { "sh_link self", USDTKIT_ARG_UNRESOLVED },
	[SV_LINK_PROGBITS] = { "sh_link .text", USDTKIT_ARG_UNRESOLVED },
	[SV_ENTSIZE_ZERO] = { "sh_entsize 0", -1 },
	[SV_ENTSIZE_ONE] = { "sh_entsize 1", -1 },
	[SV_ENTSIZE_HUGE] = { "sh_entsize huge", -1 },
	[SV_SIZE_HUGE] = { "sh_size huge", USDTKIT_ARG_UNRESOLVED },
	[SV_SIZE_HUGE_ENT1] = { "sh_size huge, sh_entsize 1", USDTKIT_ARG_UNRESOLVED },
	[SV_OFFSET_PAST] = { "sh_offset past eof", USDTKIT_ARG_UNRESOLVED },
	[SV_STRTAB_EMPTY] = { "strtab size 0", USDTKIT_ARG_UNRESOLVED },
	[SV_STRTAB_UNTERMINATED] = { "strtab unterminated", USDTKIT_ARG_UNRESOLVED },
	[SV_STRTAB_PAST] = { "strtab past eof", USDTKIT_ARG_UNRESOLVED },
	[SV_UNDEF] = { "symbol undefined", USDTKIT_ARG_UNRESOLVED },
	[SV_SHNDX_NOWHERE] = { "st_shndx 99", -1 },
	[SV_SHNDX_RESERVED] = { "st_shndx 0xff7f", -1 },
	[SV_DUPLICATE] = { "two different 'counter'", USDTKIT_ARG_AMBIGUOUS },
	[SV_NONE] = { "no symtab", USDTKIT_ARG_UNRESOLVED },
};

static void test_symbols(void)
{
	size_t ti;
	int v;

	begin("symbols");
	for (ti = 0; ti < NTARGETS; ti++) {
		const struct target *t = &targets[ti];
		bool is64 = t_is64(t);

		for (v = 0; v < SV_COUNT; v++) {
			struct eg_buf notes = { 0 }, img = { 0 };
			struct eg_sym syms[3] = { 0 };
			struct usdtkit_file *f;
			uint64_t huge = is64 ? 0x4000000000000000ull : 0xfffffff0u;
			struct eg_elf e;
			char what[96];

			snprintf(what, sizeof(what), "%s %s", t->arch, sym_variants[v].what);
			init_elf(&e, t);
			syms[0] = (struct eg_sym){ "other", e.data_addr, 4, 0, 0, 0 };
			syms[1] = (struct eg_sym){ "counter", e.data_addr + 8, 4, 0, 0, 0 };
			syms[2] = (struct eg_sym){ "counter", e.data_addr + 16, 4, 0, 0, 0 };
			e.syms = v == SV_NONE ? NULL : syms;
			e.nsyms = v == SV_DUPLICATE ? 3 : 2;
			if (v == SV_BAD_ST_NAME)
				syms[1].st_name = 0x7fffffff;
			if (v == SV_ST_NAME_PAST)
				syms[1].st_name = 1 + 6 + 8;	/* "\0other\0counter\0" */
			if (v == SV_UNDEF)
				syms[1].shndx = 0xffff;	/* patched below */
			good_note(&notes, t, &e, 0, "p0", t->sym_arg);
			build_with(&e, &notes, &img);
			switch (v) {
			case SV_LINK_NOWHERE:
				eg_patch_shdr(&e, &img, e.sec_symtab, EG_SH_LINK, 99);
				break;
			case SV_LINK_ZERO:
				eg_patch_shdr(&e, &img, e.sec_symtab, EG_SH_LINK, 0);
				break;
			case SV_LINK_SELF:
				eg_patch_shdr(&e, &img, e.sec_symtab, EG_SH_LINK,
					      (uint64_t)e.sec_symtab);
				break;
			case SV_LINK_PROGBITS:
				eg_patch_shdr(&e, &img, e.sec_symtab, EG_SH_LINK,
					      (uint64_t)e.sec_text);
				break;
			case SV_ENTSIZE_ZERO:
				eg_patch_shdr(&e, &img, e.sec_symtab, EG_SH_ENTSIZE, 0);
				break;
			case SV_ENTSIZE_ONE:
				eg_patch_shdr(&e, &img, e.sec_symtab, EG_SH_ENTSIZE, 1);
				break;
			case SV_ENTSIZE_HUGE:
				eg_patch_shdr(&e, &img, e.sec_symtab, EG_SH_ENTSIZE, huge);
				break;
			case SV_SIZE_HUGE:
				eg_patch_shdr(&e, &img, e.sec_symtab, EG_SH_SIZE, huge);
				break;
			case SV_SIZE_HUGE_ENT1:
				eg_patch_shdr(&e, &img, e.sec_symtab, EG_SH_SIZE, huge);
				eg_patch_shdr(&e, &img, e.sec_symtab, EG_SH_ENTSIZE, 1);
				break;
			case SV_OFFSET_PAST:
				eg_patch_shdr(&e, &img, e.sec_symtab, EG_SH_OFFSET,
					      img.len + 0x1000);
				break;
			case SV_STRTAB_EMPTY:
				eg_patch_shdr(&e, &img, e.sec_strtab, EG_SH_SIZE, 0);
				break;
			case SV_STRTAB_UNTERMINATED:
				/* "\0other\0counter\0" without its last NUL */
				eg_patch_shdr(&e, &img, e.sec_strtab, EG_SH_SIZE, 14);
				break;
			case SV_STRTAB_PAST:
				eg_patch_shdr(&e, &img, e.sec_strtab, EG_SH_OFFSET,
					      img.len - 4);
				break;
			case SV_UNDEF:
			case SV_SHNDX_NOWHERE:
			case SV_SHNDX_RESERVED: {
				/* st_shndx of symbol 2 (index 1 is "other"): 0
				 * (undefined), a section that does not exist, or
				 * one in the reserved range */
				uint64_t shndx = v == SV_UNDEF ? 0 : v == SV_SHNDX_NOWHERE ? 99 : 0xff7f;
				size_t at = e.shdr_off[e.sec_symtab];
				uint64_t symoff = eg_get_uint(img.p + at + 8 + 2 * e.asz,
							      e.asz, eg_be(&e));

				eg_set_uint(img.p + symoff + 2 * e.symentsize +
						    (is64 ? 6 : 14),
					    shndx, 2, eg_be(&e));
				break;
			}
			default:
				break;
			}
			f = open_mem(&img, what);
			CHECK(f && usdtkit_file_site_count(f) == 1,
			      "%s: open: %s\n%s", what, strerror(errno), lc.text);
			if (f) {
				const struct usdtkit_site *s = usdtkit_file_site(f, 0);
				const struct usdtkit_arg *a = usdtkit_site_arg(s, 0);
				int want = sym_variants[v].status;

				CHECK(usdtkit_site_arg_count(s) == 1 && a, "%s: one arg", what);
				if (a && want >= 0)
					CHECK(a->status == want, "%s: status %s want %s (%s)",
					      what, usdtkit_arg_status_str(a->status),
					      usdtkit_arg_status_str(want),
					      a->error ? a->error : "");
				if (a && want < 0)
					CHECK(a->status == USDTKIT_ARG_OK ||
						      a->status == USDTKIT_ARG_UNRESOLVED,
					      "%s: status %s", what,
					      usdtkit_arg_status_str(a->status));
				if (a && a->status != USDTKIT_ARG_OK)
					CHECK(a->error && a->kind == USDTKIT_LOC_SYMBOL,
					      "%s: unresolved keeps its symbol and says why",
					      what);
				CHECK(usdtkit_site_status(s) == 0, "%s: site status %d",
				      what, usdtkit_site_status(s));
			}
			usdtkit_file_close(f);
			eg_free(&img);
			eg_free(&notes);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Files on disk                                                      */
/* ------------------------------------------------------------------ */

static char tmpdir[64];
static bool have_tmpdir;

static void tmp_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

static int write_file(const char *path, const void *p, size_t n, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	ssize_t w;

	if (fd < 0)
		return -1;
	w = write(fd, p, n);
	close(fd);
	return w == (ssize_t)n ? 0 : -1;
}

static void expect_path_refused(const char *path, int err, const char *needle)
{
	OPTS_NAMED(o, NULL);
	struct usdtkit_file *f;

	cap_reset();
	errno = 0;
	f = usdtkit_file_open(path, &o);
	CHECK(!f && errno == err, "%s: errno %d (%s), want %s", path, errno,
	      strerror(errno), strerror(err));
	CHECK(cap_has(path, needle, NULL), "%s: no message naming it:\n%s", path,
	      lc.text);
	usdtkit_file_close(f);
}

/* An unreadable file. root reads anything, so as root the check drops
 * CAP_DAC_OVERRIDE the only way that needs no fork: a non-zero fsuid. */
static void test_unreadable(const char *path)
{
	bool root = geteuid() == 0;
	int fd;

	if (root) {
		setfsuid(65534);
		if (setfsuid((uid_t)-1) != 65534) {
			printf("skip: unreadable file: cannot set fsuid 65534 as root\n");
			return;
		}
	}
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		close(fd);
		printf("skip: unreadable file: mode 000 file is readable here\n");
	} else {
		if (root)
			printf("unreadable file: checked as root with fsuid 65534\n");
		expect_path_refused(path, EACCES, NULL);
	}
	if (root)
		setfsuid(0);
}

/* The first big-endian target of the manifests (s390x today). */
static const struct target *big_endian_target(void)
{
	size_t i;

	for (i = 0; i < NTARGETS; i++)
		if (t_be(&targets[i]))
			return &targets[i];
	CHECK(0, "no big-endian target in the manifests");
	return &targets[0];
}

static void test_files(void)
{
	const struct target *t = big_endian_target();	/* big endian on disk */
	OPTS_NAMED(o, NULL);
	struct eg_buf notes = { 0 }, img = { 0 };
	struct usdtkit_file *fm, *fp, *ff;
	char path[128], p2[160];
	struct eg_elf e;
	size_t k, off1;
	int fd;

	begin("files");
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/usdtkit-elf-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	have_tmpdir = true;
	init_elf(&e, t);
	good_note(&notes, t, &e, 0, "p0", t->args);
	off1 = notes.len;
	make_bad(bad("empty provider"), &notes, true, true);
	good_note(&notes, t, &e, 2, "p2", "");
	build_with(&e, &notes, &img);

	tmp_path(path, sizeof(path), "good.elf");
	CHECK(write_file(path, img.p, img.len, 0644) == 0, "write %s", path);
	fm = open_mem(&img, "mem");
	cap_reset();
	fp = usdtkit_file_open(path, &o);
	CHECK(fp && !strcmp(usdtkit_file_name(fp), path), "open by path: %s",
	      strerror(errno));
	CHECK(cap_has_note(path, 1, off1, "empty provider"),
	      "bad note reported with the path:\n%s", lc.text);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	cap_reset();
	ff = usdtkit_file_open_fd(fd, NULL);
	CHECK(ff && !strcmp(usdtkit_file_name(ff), "<fd>"), "open by fd");
	close(fd);
	for (k = 0; fm && fp && ff && k < 3; k++) {
		const struct usdtkit_site *a = usdtkit_file_site(fm, k);
		const struct usdtkit_site *b = usdtkit_file_site(fp, k);
		const struct usdtkit_site *c = usdtkit_file_site(ff, k);

		if (k == 2) {
			CHECK(!a && !b && !c, "two sites each");
			break;
		}
		CHECK(a && b && c && usdtkit_site_pc(a) == usdtkit_site_pc(b) &&
			      usdtkit_site_pc(a) == usdtkit_site_pc(c) &&
			      usdtkit_site_pc_offset(a) == usdtkit_site_pc_offset(b) &&
			      usdtkit_site_semaphore_offset(a) ==
				      usdtkit_site_semaphore_offset(c) &&
			      usdtkit_site_note_index(b) == usdtkit_site_note_index(c) &&
			      !strcmp(usdtkit_site_args_text(a), usdtkit_site_args_text(c)),
		      "site %zu: memory, path and fd agree", k);
	}
	CHECK(fm && fp && ff && usdtkit_file_bad_notes(fm) == 1 &&
		      usdtkit_file_bad_notes(fp) == 1 && usdtkit_file_bad_notes(ff) == 1,
	      "bad notes counted the same");
	usdtkit_file_close(fm);
	usdtkit_file_close(fp);
	usdtkit_file_close(ff);

	/* a named fd: the name is in the report */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	o.name = "named-fd";
	cap_reset();
	ff = usdtkit_file_open_fd(fd, &o);
	o.name = NULL;
	CHECK(ff && cap_has_note("named-fd", 1, off1, NULL), "named fd:\n%s", lc.text);
	usdtkit_file_close(ff);
	close(fd);

	/* whole-file problems on disk */
	expect_path_refused(tmpdir, EISDIR, NULL);
	tmp_path(p2, sizeof(p2), "missing.elf");
	expect_path_refused(p2, ENOENT, NULL);
	tmp_path(p2, sizeof(p2), "empty.elf");
	CHECK(write_file(p2, "", 0, 0644) == 0, "write empty");
	expect_path_refused(p2, ENOEXEC, NULL);
	tmp_path(p2, sizeof(p2), "text.txt");
	CHECK(write_file(p2, "hello\n", 6, 0644) == 0, "write text");
	expect_path_refused(p2, ENOEXEC, NULL);
	tmp_path(p2, sizeof(p2), "half.elf");
	CHECK(write_file(p2, img.p, img.len / 2, 0644) == 0, "write half");
	expect_path_refused(p2, ENOEXEC, NULL);
	tmp_path(p2, sizeof(p2), "header.elf");
	CHECK(write_file(p2, img.p, 30, 0644) == 0, "write header");
	expect_path_refused(p2, ENOEXEC, NULL);
	tmp_path(p2, sizeof(p2), "mode000.elf");
	CHECK(write_file(p2, img.p, img.len, 0) == 0 && chmod(p2, 0) == 0,
	      "write mode 000");
	test_unreadable(p2);

	/* a FIFO with no writer must be refused, not waited on */
	begin("fifo");
	tmp_path(p2, sizeof(p2), "fifo");
	CHECK(mkfifo(p2, 0600) == 0, "mkfifo: %s", strerror(errno));
	expect_path_refused(p2, EINVAL, "regular");
	expect_path_refused("/dev/null", EINVAL, "regular");
	/* size 0 to stat, unreadable at offset 0: not an ELF file */
	cap_reset();
	errno = 0;
	fp = usdtkit_file_open("/proc/self/mem", &o);
	CHECK(!fp && errno && cap_has("/proc/self/mem", NULL, NULL),
	      "/proc/self/mem: %s\n%s", strerror(errno), lc.text);
	usdtkit_file_close(fp);

	/* bad arguments */
	errno = 0;
	CHECK(!usdtkit_file_open(NULL, &o) && errno == EINVAL, "NULL path");
	errno = 0;
	cap_reset();
	CHECK(!usdtkit_file_open_fd(-1, &o) && errno == EBADF &&
		      cap_has("<fd>", NULL, NULL),
	      "fd -1: %s", strerror(errno));
	fd = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	errno = 0;
	CHECK(!usdtkit_file_open_fd(fd, &o) && errno == EISDIR, "directory fd");
	close(fd);

	eg_free(&notes);
	eg_free(&img);
}

static void cleanup_tmp(void)
{
	static const char *const names[] = { "good.elf", "empty.elf", "text.txt",
					     "half.elf", "header.elf", "mode000.elf",
					     "fifo" };
	char p[160];
	size_t i;

	if (!have_tmpdir)
		return;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		tmp_path(p, sizeof(p), names[i]);
		unlink(p);
	}
	rmdir(tmpdir);
}

int main(void)
{
	signal(SIGALRM, on_alarm);
	init_targets();
	test_good_notes();
	test_high_addresses();
	test_no_base_no_adjust();
	test_long_nops();
	test_decoder_all_orders();
	test_bad_notes();
	test_bad_mix();
	test_bad_notes_silent();
	test_note_section_type();
	test_refused_mem();
	test_placement();
	test_symbols();
	test_files();
	test_scale();
	alarm(0);
	cleanup_tmp();
	return check_done();
}
