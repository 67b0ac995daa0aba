// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The user stack symbolizer (core/elf/ustack.c) on live processes of
 * tests/fixtures/fx_stack.c (a PIE with frame pointers), which says its own
 * return addresses and function starts with their offsets, so every
 * name is known: "fx_stack_b+0xc (/abs/path/fx_stack)". Also: an
 * anonymous executable mapping, a stack address and garbage (0x10, the
 * kernel half, which do not make the maps be read again) give the raw
 * address, a library dlopen()ed after the maps were read is found by
 * reading them again once, two processes of one binary share one table
 * (the cache's counters), an exited process gives -ESRCH and the raw
 * address, a deleted binary is still named, a truncated library and
 * every truncation of the fixture's file give raw addresses without a
 * crash, the pid cache stays within its bound over 300 processes, and a
 * kept pid's frames are named after its exit.
 * C++ (tests/fixtures/fx_cxx.cc, -O2): names demangled, the mangled
 * one kept; a noreturn call's return address named as its caller's, at
 * the caller's size; a copy without .symtab named object+address, then
 * through its debug file found by build id under a chroot (root only).
 * usage: test_ustack FX_STACK LIBFX_STACK_LIB [FX_CXX]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fx_proc.h"
#include "elf/funcs.h"
#include "elf/ustack.h"

#define MAX_LINES 16

struct fx {
	pid_t pid;
	FILE *in, *out;
	int nlines;
	struct { char name[32]; uint64_t addr, off; } line[MAX_LINES];
	uint64_t anon, stack;
};

/* Its lines up to "ready": "NAME ADDR OFF", "anon ADDR", "stack ADDR". */
static bool fx_read(struct fx *fx)
{
	char buf[256], name[32];
	uint64_t a, o;

	while (fgets(buf, sizeof(buf), fx->out)) {
		if (!strcmp(buf, "ready\n"))
			return true;
		if (sscanf(buf, "anon %" SCNx64, &a) == 1)
			fx->anon = a;
		else if (sscanf(buf, "stack %" SCNx64, &a) == 1)
			fx->stack = a;
		else if (sscanf(buf, "%31s %" SCNx64 " %" SCNx64, name, &a, &o) == 3 &&
			 fx->nlines < MAX_LINES) {
			strcpy(fx->line[fx->nlines].name, name);
			fx->line[fx->nlines].addr = a;
			fx->line[fx->nlines++].off = o;
		}
	}
	return false;
}

static int fx_start(struct fx *fx, const char *path)
{
	int err;

	memset(fx, 0, sizeof(*fx));
	err = fx_proc_start(path, &fx->pid, &fx->in, &fx->out);
	if (err)
		return err;
	return fx_read(fx) ? 0 : -EIO;
}

static void fx_stop(struct fx *fx)
{
	fx_proc_stop(&fx->pid, &fx->in, &fx->out);
	memset(fx, 0, sizeof(*fx));
}

/* "lib fx_stack_lib ADDR" after "dlopen LIB". */
static uint64_t fx_dlopen(struct fx *fx, const char *lib)
{
	char buf[256];
	uint64_t a = 0;

	fprintf(fx->in, "dlopen %s\n", lib);
	fflush(fx->in);
	if (!fgets(buf, sizeof(buf), fx->out) ||
	    sscanf(buf, "lib fx_stack_lib %" SCNx64, &a) != 1)
		return 0;
	return a;
}

static uint64_t fx_addr(const struct fx *fx, const char *name)
{
	int i;

	for (i = 0; i < fx->nlines; i++)
		if (!strcmp(fx->line[i].name, name))
			return fx->line[i].addr;
	return 0;
}

static struct usdtkit__syms_counts counts(const struct usdtkit__syms *s)
{
	struct usdtkit__syms_counts c;

	usdtkit__syms_counts(s, &c);
	return c;
}

/* Name @addr of @pid with @flags: whether it is @rc and @want. */
static bool named_as(struct usdtkit__syms *s, int pid, uint64_t addr,
		     unsigned int flags, int rc, const char *want)
{
	char buf[4200];
	int got = usdtkit__syms_name(s, pid, addr, flags, buf, sizeof(buf));

	if (got == rc && !strcmp(buf, want))
		return true;
	fprintf(stderr, "  %#" PRIx64 ": %d \"%s\", want %d \"%s\"\n", addr, got,
		buf, rc, want);
	return false;
}

/* a probe's own pc (frame 0) */
static bool named(struct usdtkit__syms *s, int pid, uint64_t addr, int rc,
		  const char *want)
{
	return named_as(s, pid, addr, 0, rc, want);
}

static void rawstr(char *buf, size_t len, uint64_t addr)
{
	snprintf(buf, len, "0x%" PRIx64, addr);
}

/* The real path of @p: what /proc/PID/maps shows. */
static void real(const char *p, char *out)
{
	if (!realpath(p, out))
		snprintf(out, PATH_MAX, "%s", p);
}

/* Every frame and start the fixture said, named from its ELF symbols. */
static void test_frames(struct usdtkit__syms *s, const struct fx *fx,
			const char *exe)
{
	char want[PATH_MAX + 64], frames[] = "fx_stack_b fx_stack_a main";
	int i;

	CHECK(fx->nlines == 6, "fixture lines: %d", fx->nlines);
	for (i = 0; i < fx->nlines; i++) {
		const char *n = fx->line[i].name;

		if (!strncmp(n, "start_", 6))
			snprintf(want, sizeof(want), "fx_stack_%s+0x0 (%s)", n + 6, exe);
		else
			snprintf(want, sizeof(want), "%s+%#" PRIx64 " (%s)", n,
				 fx->line[i].off, exe);
		CHECK(named(s, fx->pid, fx->line[i].addr, 0, want), "%s", n);
		/* a return address inside its caller: the same, as one */
		CHECK(!strncmp(n, "start_", 6) ||
		      named_as(s, fx->pid, fx->line[i].addr, USDTKIT__SYMS_RETURN, 0, want),
		      "%s as a return address", n);
		CHECK(strncmp(n, "start_", 6) || fx->line[i].off == 0, "%s", n);
		CHECK(!strncmp(n, "start_", 6) || strstr(frames, n), "%s", n);
	}
	/* the return addresses are inside their callers, past the start */
	CHECK(fx->line[0].off > 0 && fx->line[1].off > 0 && fx->line[2].off > 0,
	      "offsets %" PRIx64 " %" PRIx64 " %" PRIx64, fx->line[0].off,
	      fx->line[1].off, fx->line[2].off);
	CHECK(counts(s).object_reads == 1, "object reads %lu", counts(s).object_reads);
	CHECK(counts(s).maps_reads == 1, "maps reads %lu", counts(s).maps_reads);
}

/* Anonymous executable memory: in the maps, so no new read; the stack:
 * in no executable mapping, so the maps are read once more. */
static void test_unnamed(struct usdtkit__syms *s, const struct fx *fx)
{
	char want[64];

	/* the fixture's page is one page, its address 16 bytes in */
	CHECK(named(s, fx->pid, fx->anon, 0, "[anon]+0x10"), "anon");
	CHECK(counts(s).maps_reads == 1, "maps reads %lu", counts(s).maps_reads);
	/* garbage frames (code without frame pointers) no map can hold:
	 * no new read either */
	CHECK(named(s, fx->pid, 0x10, 0, "0x10"), "low");
	CHECK(named(s, fx->pid, 0xffffffff81000000ull, 0, "0xffffffff81000000"),
	      "kernel half");
	CHECK(counts(s).maps_reads == 1, "maps reads %lu", counts(s).maps_reads);
	rawstr(want, sizeof(want), fx->stack);
	CHECK(named(s, fx->pid, fx->stack, 0, want), "stack");
	CHECK(counts(s).maps_reads == 2, "maps reads %lu", counts(s).maps_reads);
	CHECK(counts(s).object_reads == 1, "object reads %lu", counts(s).object_reads);
}

static void test_dlopen(struct usdtkit__syms *s, struct fx *fx, const char *lib)
{
	char want[PATH_MAX + 64], rlib[PATH_MAX];
	uint64_t a = fx_dlopen(fx, lib);

	real(lib, rlib);
	CHECK(a != 0, "dlopen %s", lib);
	snprintf(want, sizeof(want), "fx_stack_lib+0x0 (%s)", rlib);
	CHECK(named(s, fx->pid, a, 0, want), "after dlopen");
	CHECK(counts(s).maps_reads == 3, "maps reads %lu", counts(s).maps_reads);
	CHECK(counts(s).object_reads == 2, "object reads %lu", counts(s).object_reads);
	snprintf(want, sizeof(want), "fx_stack_lib+0x3 (%s)", rlib);
	CHECK(named(s, fx->pid, a + 3, 0, want), "inside");
	CHECK(counts(s).maps_reads == 3, "maps reads %lu", counts(s).maps_reads);
}

/* A second process of the same binary: its maps, the same table. */
static void test_shared(struct usdtkit__syms *s, const char *path,
			const char *exe)
{
	char want[PATH_MAX + 64];
	struct usdtkit__syms_counts c0 = counts(s);
	struct fx fx2;

	CHECK(!fx_start(&fx2, path), "second fixture");
	snprintf(want, sizeof(want), "fx_stack_c+0x0 (%s)", exe);
	CHECK(named(s, fx2.pid, fx_addr(&fx2, "start_c"), 0, want), "second pid");
	CHECK(counts(s).object_reads == c0.object_reads, "object reads %lu, was %lu",
	      counts(s).object_reads, c0.object_reads);
	CHECK(counts(s).maps_reads == c0.maps_reads + 1, "maps reads %lu",
	      counts(s).maps_reads);
	CHECK(counts(s).pids == 2, "pids %zu", counts(s).pids);
	fx_stop(&fx2);
}

/* After the exit: known frames keep their names, a miss is -ESRCH with
 * the raw address, and so is everything for a cache that never saw it. */
static void test_exited(struct usdtkit__syms *s, struct fx *fx, const char *exe)
{
	uint64_t b = fx_addr(fx, "start_b"), st = fx->stack;
	struct usdtkit__syms *fresh = NULL;
	char want[PATH_MAX + 64];
	int pid = fx->pid;

	fx_stop(fx);
	snprintf(want, sizeof(want), "fx_stack_b+0x0 (%s)", exe);
	CHECK(named(s, pid, b, 0, want), "cached after exit");
	rawstr(want, sizeof(want), st);
	CHECK(named(s, pid, st, -ESRCH, want), "miss after exit");
	CHECK(!usdtkit__syms_new(&fresh), "new");
	rawstr(want, sizeof(want), b);
	CHECK(named(fresh, pid, b, -ESRCH, want), "fresh after exit");
	CHECK(counts(fresh).pids == 0 && counts(fresh).object_reads == 0,
	      "nothing kept: %zu pids", counts(fresh).pids);
	usdtkit__syms_free(fresh);
}

static int copy_file(const char *from, const char *to, off_t len)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n;
	off_t done = 0;

	if (in < 0 || out < 0)
		return -1;
	while (done < len && (n = read(in, buf, sizeof(buf))) > 0) {
		if (n > len - done)
			n = (ssize_t)(len - done);
		if (write(out, buf, (size_t)n) != n)
			break;
		done += n;
	}
	close(in);
	close(out);
	return 0;
}

/* The value and size of symbol @name in the .symtab of @path, read
 * with libelf: what the symbolizer must agree with. 0 or -1. */
static int elf_sym(const char *path, const char *name, uint64_t *value,
		   uint64_t *size)
{
	int fd = open(path, O_RDONLY), rc = -1;
	Elf_Scn *scn = NULL;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	while (elf && rc && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d = elf_getdata(scn, NULL);
		GElf_Shdr sh;
		GElf_Sym sym;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !d)
			continue;
		for (i = 0; rc && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			n = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name)) {
				*value = sym.st_value;
				*size = sym.st_size;
				rc = 0;
			}
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* A binary deleted while it runs: named through /proc/PID/map_files. A
 * library truncated while mapped: raw addresses, no crash. */
static void test_hostile_files(const char *path, const char *lib, const char *dir)
{
	char copy[PATH_MAX], lcopy[PATH_MAX], want[PATH_MAX + 64];
	struct usdtkit__syms *s = NULL;
	uint64_t a, lib_off = 0, size = 0;
	struct fx fx;

	CHECK(!elf_sym(lib, "fx_stack_lib", &lib_off, &size), "fx_stack_lib in %s", lib);
	snprintf(copy, sizeof(copy), "%s/fx_copy", dir);
	snprintf(lcopy, sizeof(lcopy), "%s/lib_copy.so", dir);
	CHECK(!copy_file(path, copy, 1 << 30) && !copy_file(lib, lcopy, 1 << 30), "copies");
	CHECK(!fx_start(&fx, copy), "copy started");
	CHECK(!unlink(copy), "unlink");
	a = fx_dlopen(&fx, lcopy);
	CHECK(a != 0, "dlopen copy");
	CHECK(!truncate(lcopy, 200), "truncate");
	CHECK(!usdtkit__syms_new(&s), "new");
	snprintf(want, sizeof(want), "fx_stack_b+0x0 (%s (deleted))", copy);
	CHECK(named(s, fx.pid, fx_addr(&fx, "start_b"), 0, want), "deleted");
	/* no table: the object and its file offset (here its address too) */
	snprintf(want, sizeof(want), "lib_copy.so+%#" PRIx64 " (%s)", lib_off, lcopy);
	CHECK(named(s, fx.pid, a, 0, want), "truncated library");
	CHECK(!truncate(lcopy, 0), "truncate to 0");
	usdtkit__syms_free(s);
	CHECK(!usdtkit__syms_new(&s), "new");
	CHECK(named(s, fx.pid, a, 0, want), "empty library");
	usdtkit__syms_free(s);
	fx_stop(&fx);
	unlink(lcopy);
}

static struct usdtkit__funcs *open_funcs(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct usdtkit__funcs *t = fd >= 0 ? usdtkit__funcs_open_fd(fd) : NULL;

	if (fd >= 0)
		close(fd);
	return t;
}

/* How @t names each 4th byte of the first 16 KiB against @full: each
 * the same or nothing (-1 if one differs), and how many it names. */
static int names_vs(const struct usdtkit__funcs *t, const struct usdtkit__funcs *full)
{
	uint64_t v, off, off0;
	int n = 0;

	for (v = 0; v < 0x4000; v += 4) {
		const char *name, *name0;
		int rc = usdtkit__funcs_find(t, v, &name, &off);
		int rc0 = usdtkit__funcs_find(full, v, &name0, &off0);

		if (rc)
			continue;
		if (rc0 || strcmp(name, name0) || off != off0)
			return -1;
		n++;
	}
	return n;
}

/*
 * Every 1/64th truncation of the fixture's file: refused, or a table
 * that names each address as the whole file does or not at all, never
 * a crash (ASan, valgrind). Its section headers are at its end: cut
 * anywhere, it names nothing.
 */
static void test_truncations(const char *path, const char *dir)
{
	struct usdtkit__funcs *full = open_funcs(path);
	char copy[PATH_MAX];
	int bad = 0, naming = 0, n = 0;
	off_t size, len;
	FILE *f = fopen(path, "rb");

	snprintf(copy, sizeof(copy), "%s/fx_trunc", dir);
	CHECK(f && !fseeko(f, 0, SEEK_END), "size");
	size = f ? ftello(f) : 0;
	if (f)
		fclose(f);
	CHECK(full && names_vs(full, full) > 100, "the whole file names: %d",
	      full ? names_vs(full, full) : -2);
	for (len = 0; full && len < size; len += size / 64 ? size / 64 : 1) {
		struct usdtkit__funcs *t;
		int k;

		copy_file(path, copy, len);
		t = open_funcs(copy);
		k = t ? names_vs(t, full) : 0;
		bad += k < 0;
		naming += k > 0;
		usdtkit__funcs_free(t);
		n++;
	}
	CHECK(n >= 64 && !bad && !naming, "of %d truncations, %d name wrongly, %d name",
	      n, bad, naming);
	usdtkit__funcs_free(full);
	unlink(copy);
}

/*
 * A kept pid: its maps read and its objects opened at once, through the
 * process (a binary deleted since), and read again on a miss while it
 * runs (a library dlopen()ed since); after its exit every frame is still
 * named, a miss is its raw address and no error, and keeping it again
 * fails with what was kept left in place. Released, it is in the cache.
 */
static void test_kept(const char *path, const char *lib, const char *dir)
{
	char copy[PATH_MAX], want[PATH_MAX + 64], rlib[PATH_MAX];
	struct usdtkit__syms *s = NULL;
	uint64_t b, a;
	struct fx fx;
	int pid;

	snprintf(copy, sizeof(copy), "%s/fx_kept", dir);
	real(lib, rlib);
	CHECK(!copy_file(path, copy, 1 << 30), "copy");
	CHECK(!fx_start(&fx, copy), "copy started");
	CHECK(!unlink(copy), "unlink");
	CHECK(!usdtkit__syms_new(&s), "new");
	CHECK(usdtkit__syms_keep(NULL, fx.pid) == -EINVAL, "keep(NULL)");
	CHECK(usdtkit__syms_keep(s, -1) == -ESRCH, "keep(-1)");
	CHECK(!usdtkit__syms_keep(s, fx.pid), "keep");
	/* the binary, libc and the loader, at least */
	CHECK(counts(s).kept == 1 && counts(s).pids == 0 && counts(s).kept_objects >= 3 &&
	      counts(s).object_reads == counts(s).kept_objects,
	      "kept %zu pids %zu, %zu objects, %lu reads", counts(s).kept, counts(s).pids,
	      counts(s).kept_objects, counts(s).object_reads);
	a = fx_dlopen(&fx, lib);
	snprintf(want, sizeof(want), "fx_stack_lib+0x0 (%s)", rlib);
	CHECK(a && named(s, fx.pid, a, 0, want), "dlopen after keep");
	CHECK(counts(s).maps_reads == 2, "maps reads %lu", counts(s).maps_reads);
	pid = fx.pid;
	b = fx_addr(&fx, "start_b");
	fx_stop(&fx);
	snprintf(want, sizeof(want), "fx_stack_b+0x0 (%s (deleted))", copy);
	CHECK(named(s, pid, b, 0, want), "deleted, after exit");
	snprintf(want, sizeof(want), "fx_stack_lib+0x0 (%s)", rlib);
	CHECK(named(s, pid, a, 0, want), "library, after exit");
	rawstr(want, sizeof(want), 0x10000);
	CHECK(named(s, pid, 0x10000, 0, want), "miss after exit");
	CHECK(usdtkit__syms_keep(s, pid) == -ESRCH && counts(s).kept == 1, "keep after exit");
	usdtkit__syms_release(s, pid);
	CHECK(counts(s).kept == 0 && counts(s).kept_objects == 0 && counts(s).pids == 1,
	      "released: kept %zu, %zu objects, pids %zu", counts(s).kept,
	      counts(s).kept_objects, counts(s).pids);
	snprintf(want, sizeof(want), "fx_stack_b+0x0 (%s (deleted))", copy);
	CHECK(named(s, pid, b, 0, want), "released, cached");
	usdtkit__syms_release(s, pid);
	usdtkit__syms_free(s);
}

/* ---- C++ (tests/fixtures/fx_cxx.cc) ---- */

#define ENDS "_ZN5fxcxx4endsERNS_6WidgetEi"
#define ENDS_DM "fxcxx::ends(fxcxx::Widget&, int)"

struct cxx {
	pid_t pid;
	FILE *in, *out;
	uint64_t ends, ret;	/* ends()'s start, die()'s return address */
};

static int cxx_start(struct cxx *c, const char *path)
{
	char buf[256];
	int err;

	memset(c, 0, sizeof(*c));
	err = fx_proc_start(path, &c->pid, &c->in, &c->out);
	while (!err && fgets(buf, sizeof(buf), c->out) && strcmp(buf, "ready\n")) {
		sscanf(buf, "ends %" SCNx64, &c->ends);
		sscanf(buf, "ret %" SCNx64, &c->ret);
	}
	return err ? err : c->ends && c->ret ? 0 : -EIO;
}

static void cxx_stop(struct cxx *c)
{
	fx_proc_stop(&c->pid, &c->in, &c->out);
}

/* @sym names @name (mangled @mangled) at @off of @obj */
static bool sym_is(const struct usdtkit__sym *sym, const char *name,
		   const char *mangled, uint64_t off, const char *obj)
{
	if (sym->name && !strcmp(sym->name, name) &&
	    (mangled ? sym->mangled && !strcmp(sym->mangled, mangled) : !sym->mangled) &&
	    sym->offset == off && sym->object && !strcmp(sym->object, obj))
		return true;
	fprintf(stderr, "  got %s [%s] +%#" PRIx64 " (%s), want %s [%s] +%#" PRIx64 "\n",
		sym->name ? sym->name : "-", sym->mangled ? sym->mangled : "-",
		sym->offset, sym->object ? sym->object : "-", name,
		mangled ? mangled : "-", off);
	return false;
}

/*
 * Demangled names, the mangled one beside; a noreturn call's return
 * address (the first byte of the next function) named as the caller's,
 * at an offset of its size, when looked up as a return address, and as
 * the next function at offset 0 when looked up as a probe's own pc.
 */
static void test_cxx_names(const char *path)
{
	struct usdtkit__syms *s = NULL;
	char exe[PATH_MAX], want[PATH_MAX + 128];
	struct usdtkit__sym sym;
	uint64_t value = 0, size = 0, nvalue = 0, nsize = 0;
	struct cxx c;

	real(path, exe);
	CHECK(!elf_sym(path, ENDS, &value, &size), ENDS);
	CHECK(!elf_sym(path, "_ZN5fxcxx5afterEi", &nvalue, &nsize), "after");
	/* the fixture's layout the test stands on: after() follows ends() */
	CHECK(nvalue == value + size, "after() at %#" PRIx64 ", ends() %#" PRIx64
	      " + %#" PRIx64, nvalue, value, size);
	CHECK(!cxx_start(&c, path), "fx_cxx started");
	CHECK(c.ret - c.ends == size, "die() returns at ends() + %#" PRIx64 ", size %#"
	      PRIx64, c.ret - c.ends, size);
	CHECK(!usdtkit__syms_new(&s), "new");
	CHECK(!usdtkit__syms_lookup(s, c.pid, c.ends, 0, &sym) &&
	      sym_is(&sym, ENDS_DM, ENDS, 0, exe), "ends() demangled");
	CHECK(sym.address == value, "address %#" PRIx64 ", want %#" PRIx64, sym.address,
	      value);
	snprintf(want, sizeof(want), ENDS_DM "+0x0 (%s)", exe);
	CHECK(named(s, c.pid, c.ends, 0, want), "text");
	CHECK(!usdtkit__syms_lookup(s, c.pid, c.ret, USDTKIT__SYMS_RETURN, &sym) &&
	      sym_is(&sym, ENDS_DM, ENDS, size, exe), "return address past ends()");
	snprintf(want, sizeof(want), ENDS_DM "+%#" PRIx64 " (%s)", size, exe);
	CHECK(named_as(s, c.pid, c.ret, USDTKIT__SYMS_RETURN, 0, want), "text");
	CHECK(!usdtkit__syms_lookup(s, c.pid, c.ret, 0, &sym) &&
	      sym_is(&sym, "fxcxx::after(int)", "_ZN5fxcxx5afterEi", 0, exe),
	      "the same address as a pc");
	/* a C name is no C++ name: not demangled, no mangled part */
	CHECK(!usdtkit__syms_lookup(s, getpid(), (uint64_t)(uintptr_t)cxx_stop, 0, &sym) &&
	      sym.name && !strcmp(sym.name, "cxx_stop") && !sym.mangled, "C name");
	cxx_stop(&c);
	usdtkit__syms_free(s);
}

/* every directory of @path made, up to its last '/' */
static void mkdirs(const char *path)
{
	char p[PATH_MAX];
	char *slash;

	snprintf(p, sizeof(p), "%s", path);
	for (slash = strchr(p + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = 0;
		mkdir(p, 0755);
		*slash = '/';
	}
}

/* where the build id of @path puts its debug file under @root, its
 * directories made */
static int debug_path(const char *path, const char *root, char *out, size_t len)
{
	int fd = open(path, O_RDONLY);
	struct usdtkit__funcs *f = fd >= 0 ? usdtkit__funcs_open_fd(fd) : NULL;
	const uint8_t *id;
	size_t n = f ? usdtkit__funcs_build_id(f, &id) : 0, i;
	int k;

	if (fd >= 0)
		close(fd);
	if (n >= 2) {
		k = snprintf(out, len, "%s/usr/lib/debug/.build-id/%02x/", root, id[0]);
		for (i = 1; i < n; i++)
			k += snprintf(out + k, len - (size_t)k, "%02x", id[i]);
		snprintf(out + k, len - (size_t)k, ".debug");
		mkdirs(out);
	}
	usdtkit__funcs_free(f);
	return n >= 2 ? 0 : -1;
}

/*
 * No symbol: a copy without .symtab (fx_cxx_stripped) names ends() as
 * its object and the object's address. Then its debug file, put where
 * its build id says under a root the process chroot()s into (root
 * only): ends() named from the debug file's .symtab, demangled.
 */
static void test_cxx_stripped(const char *path, const char *dir)
{
	char sp[PATH_MAX], exe[PATH_MAX], dbg[PATH_MAX], dst[PATH_MAX], root[PATH_MAX];
	char want[PATH_MAX + 128], buf[64];
	struct usdtkit__syms *s = NULL;
	uint64_t value = 0, size = 0;
	struct usdtkit__sym sym;
	struct cxx c;

	snprintf(sp, sizeof(sp), "%s_stripped", path);
	snprintf(dbg, sizeof(dbg), "%s.debug", path);
	snprintf(root, sizeof(root), "%s/root", dir);
	real(sp, exe);
	CHECK(!elf_sym(path, ENDS, &value, &size), ENDS);
	CHECK(elf_sym(sp, ENDS, &value, &size) == -1, "stripped has no .symtab entry");
	CHECK(!cxx_start(&c, sp), "fx_cxx_stripped started");
	CHECK(!usdtkit__syms_new(&s), "new");
	CHECK(!usdtkit__syms_lookup(s, c.pid, c.ends, 0, &sym) && !sym.name &&
	      !sym.mangled && sym.object && !strcmp(sym.object, exe) &&
	      sym.address == value, "no symbol: %s +%#" PRIx64, sym.object, sym.address);
	snprintf(want, sizeof(want), "fx_cxx_stripped+%#" PRIx64 " (%s)", value, exe);
	CHECK(named(s, c.pid, c.ends, 0, want), "object+address");
	usdtkit__syms_free(s);

	CHECK(!debug_path(sp, root, dst, sizeof(dst)), "build id");
	CHECK(!copy_file(dbg, dst, 1 << 30), "debug file at %s", dst);
	fprintf(c.in, "chroot %s\n", root);
	fflush(c.in);
	if (!fgets(buf, sizeof(buf), c.out) || strcmp(buf, "ok\n")) {
		printf("# skip: the debug file by build id (no chroot here: %s)\n", buf);
	} else {
		CHECK(!usdtkit__syms_new(&s), "new");
		CHECK(!usdtkit__syms_lookup(s, c.pid, c.ends, 0, &sym) &&
		      sym_is(&sym, ENDS_DM, ENDS, 0, exe), "from the debug file");
		snprintf(want, sizeof(want), ENDS_DM "+%#" PRIx64 " (%s)", size, exe);
		CHECK(named_as(s, c.pid, c.ret, USDTKIT__SYMS_RETURN, 0, want), "text");
		CHECK(counts(s).object_reads == 1, "object reads %lu", counts(s).object_reads);
		usdtkit__syms_free(s);
	}
	cxx_stop(&c);
	unlink(dst);
}

static void marker(void)
{
	__asm__ __volatile__("");
}

/* 300 processes (forks of this one, waiting): at most the bound kept,
 * one table for all, every one named. */
static void test_bounds(const char *self)
{
	enum { N = 300 };
	static pid_t kids[N];
	struct usdtkit__syms *s = NULL;
	char want[PATH_MAX + 64];
	int i, ok = 0;

	CHECK(!usdtkit__syms_new(&s), "new");
	snprintf(want, sizeof(want), "marker+0x0 (%s)", self);
	fflush(NULL);
	for (i = 0; i < N; i++) {
		kids[i] = fork();
		if (!kids[i]) {
			pause();
			_exit(0);
		}
	}
	for (i = 0; i < N; i++)
		ok += kids[i] > 0 &&
		      named(s, kids[i], (uint64_t)(uintptr_t)marker, 0, want);
	CHECK(ok == N, "%d of %d named", ok, N);
	CHECK(counts(s).pids == USDTKIT__SYMS_MAX_PIDS, "pids %zu", counts(s).pids);
	CHECK(counts(s).object_reads == 1, "object reads %lu", counts(s).object_reads);
	/* the first ones went: read again, named again */
	CHECK(named(s, kids[0], (uint64_t)(uintptr_t)marker, 0, want), "evicted");
	CHECK(counts(s).maps_reads == N + 1, "maps reads %lu", counts(s).maps_reads);
	for (i = 0; i < N; i++)
		if (kids[i] > 0) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
		}
	usdtkit__syms_free(s);
}

static void test_args(void)
{
	struct usdtkit__syms *s = NULL;
	char buf[8];

	CHECK(usdtkit__syms_new(NULL) == -EINVAL, "new(NULL)");
	CHECK(!usdtkit__syms_new(&s), "new");
	CHECK(usdtkit__syms_name(NULL, 1, 0, 0, buf, sizeof(buf)) == -EINVAL, "no s");
	CHECK(usdtkit__syms_name(s, 1, 0, 0, NULL, 8) == -EINVAL, "no buf");
	CHECK(usdtkit__syms_name(s, 1, 0, 0, buf, 0) == -EINVAL, "len 0");
	/* cut as snprintf() cuts */
	CHECK(usdtkit__syms_name(s, getpid(), (uint64_t)(uintptr_t)marker, 0, buf,
				 sizeof(buf)) == 0 && !strcmp(buf, "marker+"), "cut: %s", buf);
	CHECK(usdtkit__syms_name(s, -1, 0x1234, 0, buf, sizeof(buf)) == -ESRCH &&
	      !strcmp(buf, "0x1234"), "pid -1: %s", buf);
	usdtkit__syms_free(s);
	usdtkit__syms_free(NULL);
}

int main(int argc, char **argv)
{
	char exe[PATH_MAX], self[PATH_MAX], dir[] = "/tmp/test_ustack.XXXXXX";
	struct usdtkit__syms *s = NULL;
	struct fx fx;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: test_ustack FX_STACK LIBFX_STACK_LIB [FX_CXX]\n");
		return 2;
	}
	real(argv[1], exe);
	real("/proc/self/exe", self);
	if (!mkdtemp(dir))
		return 1;
	test_args();
	CHECK(!usdtkit__syms_new(&s), "new");
	CHECK(!fx_start(&fx, argv[1]), "fixture started");
	test_frames(s, &fx, exe);
	test_unnamed(s, &fx);
	test_dlopen(s, &fx, argv[2]);
	test_shared(s, argv[1], exe);
	test_exited(s, &fx, exe);
	usdtkit__syms_free(s);
	test_hostile_files(argv[1], argv[2], dir);
	test_truncations(argv[1], dir);
	test_kept(argv[1], argv[2], dir);
	test_bounds(self);
	if (argc == 4) {
		test_cxx_names(argv[3]);
		test_cxx_stripped(argv[3], dir);
	} else {
		printf("# skip: C++ frames (no g++ to build fx_cxx)\n");
	}
	rmdir(dir);
	return check_done();
}
