// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probe-site check, on the target itself (natively or under
 * qemu-user): read our own .note.stapsdt and .symtab, parse and resolve
 * every probe's args with usdtkit, replace each probe nop with a trap,
 * then run the probes. At each trap the registers go into the target's
 * uapi pt_regs, usdtkit_arg_eval() computes every argument (memory read
 * directly, through a pipe so a wrong address is an error, not a crash)
 * and the result must equal the value the program passed.
 *
 * Needs no libelf: the program reads its own ELF with <elf.h>/<link.h>,
 * so it runs on every target, riscv64 included.
 *
 * Prints per target: sites, arguments checked, mismatches, arguments
 * skipped by status; then "N passed, M failed". Exit 1 on any mismatch,
 * unreached site or nothing checked. -v prints every argument.
 */
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <usdtkit/usdtkit.h>

#include "sites.h"

#define MAX_SITES 128

struct site {
	uint64_t link_pc;
	uintptr_t pc;		/* runtime address of the nop */
	const char *name;
	const char *args;	/* spec string (points into the file image) */
	int nargs;
	int nop_len;
	unsigned int hits;
	struct usdtkit_arg arg[SITES_MAX_ARGS];
	/* the same arguments as the ELF core resolved them, if built */
	const struct usdtkit_arg *elf_arg[SITES_MAX_ARGS];
};

struct elfimg {
	const uint8_t *data;
	size_t size;
	const ElfW(Sym) *syms;
	size_t nsyms;
	const char *strtab;
	size_t strtab_size;
};

static struct site sites[MAX_SITES];
static int nsites;
static const struct usdtkit_arch *arch;
static bool verbose;
static int mem_pipe[2];

static unsigned long mismatches, skipped[USDTKIT_ARG_AMBIGUOUS + 1];
/* evaluations: NATIVE layout, COMPAT64 layout, ELF core's arguments */
static unsigned long checked, checked_compat, checked_elf;

static int load_file(const char *path, struct elfimg *img)
{
	FILE *f = fopen(path, "rb");
	long n;
	uint8_t *buf;

	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return -EIO;
	}
	buf = malloc(n ? n : 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	img->data = buf;
	img->size = n;
	return 0;
}

static const ElfW(Shdr) *section(const struct elfimg *img, const char *name)
{
	const ElfW(Ehdr) *eh = (const void *)img->data;
	const ElfW(Shdr) *sh = (const void *)(img->data + eh->e_shoff);
	const char *names = (const char *)img->data + sh[eh->e_shstrndx].sh_offset;
	int i;

	for (i = 0; i < eh->e_shnum; i++)
		if (!strcmp(names + sh[i].sh_name, name))
			return &sh[i];
	return NULL;
}

/* Link-time address of @name (@len bytes): 0, -ENOENT or -EEXIST when
 * two definitions disagree (the check then skips as ambiguous). */
static int sym_addr(const struct elfimg *img, const char *name, size_t len,
		    uint64_t *addr)
{
	bool found = false;
	size_t i;

	for (i = 0; i < img->nsyms; i++) {
		const ElfW(Sym) *s = &img->syms[i];
		const char *n = img->strtab + s->st_name;

		if (s->st_shndx == SHN_UNDEF || s->st_name >= img->strtab_size ||
		    strncmp(n, name, len) || n[len])
			continue;
		if (found && *addr != s->st_value)
			return -EEXIST;
		*addr = s->st_value;
		found = true;
	}
	return found ? 0 : -ENOENT;
}

static int resolve_args(const struct elfimg *img, struct site *s)
{
	uint64_t got = 0, addr = 0;
	int i, err;

	sym_addr(img, "_GLOBAL_OFFSET_TABLE_", 21, &got);
	for (i = 0; i < s->nargs && i < SITES_MAX_ARGS; i++) {
		struct usdtkit_arg *a = &s->arg[i];

		if (a->kind != USDTKIT_LOC_SYMBOL)
			continue;
		err = sym_addr(img, s->args + a->sym_off, a->sym_len, &addr);
		if (err == -EEXIST)
			a->status = USDTKIT_ARG_AMBIGUOUS;
		if (err)
			continue;
		err = usdtkit_arg_resolve(arch, a, s->link_pc, addr, got);
		if (err && err != -EOPNOTSUPP)
			return err;
	}
	return 0;
}

static int load_bias_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uintptr_t *)data = info->dlpi_addr;
	return 1;	/* the first object is the program */
}

/* One stapsdt note: pc, base, semaphore, then provider, name, args. */
static int add_site(const struct elfimg *img, const uint8_t *desc,
		    size_t descsz, uintptr_t bias)
{
	const size_t asz = sizeof(ElfW(Addr));
	const char *prov = (const char *)desc + 3 * asz, *end;
	ElfW(Addr) pc;
	struct site *s;

	if (descsz < 3 * asz + 3 || nsites == MAX_SITES)
		return -E2BIG;
	end = (const char *)desc + descsz;
	s = &sites[nsites++];
	memcpy(&pc, desc, sizeof(pc));	/* notes are in our own byte order */
	s->link_pc = pc;
	s->pc = (uintptr_t)s->link_pc + bias;
	s->name = prov + strnlen(prov, end - prov) + 1;
	s->args = s->name + strnlen(s->name, end - s->name) + 1;
	s->nargs = usdtkit_args_parse(arch, s->args, strlen(s->args), s->arg,
				      SITES_MAX_ARGS);
	if (s->nargs < 0 || s->nargs > SITES_MAX_ARGS)
		return -EINVAL;
	return resolve_args(img, s);
}

static int read_sites(struct elfimg *img)
{
	const ElfW(Shdr) *notes = section(img, ".note.stapsdt");
	const ElfW(Shdr) *symtab = section(img, ".symtab");
	const ElfW(Ehdr) *eh = (const void *)img->data;
	const uint8_t *p, *end;
	uintptr_t bias = 0;
	int err;

	arch = usdtkit_arch_by_elf(eh->e_machine, eh->e_ident[EI_CLASS],
				   eh->e_ident[EI_DATA]);
	if (!arch || strcmp(usdtkit_arch_name(arch), sites_arch_name)) {
		fprintf(stderr, "FAIL: ELF header gives arch %s, want %s\n",
			arch ? usdtkit_arch_name(arch) : "none", sites_arch_name);
		return -ENOEXEC;
	}
	if (!notes || !symtab) {
		fprintf(stderr, "FAIL: no .note.stapsdt or .symtab\n");
		return -ENOENT;
	}
	img->syms = (const void *)(img->data + symtab->sh_offset);
	img->nsyms = symtab->sh_size / sizeof(ElfW(Sym));
	img->strtab = (const char *)img->data +
		      ((const ElfW(Shdr) *)(img->data + eh->e_shoff))[symtab->sh_link].sh_offset;
	img->strtab_size = ((const ElfW(Shdr) *)(img->data + eh->e_shoff))[symtab->sh_link].sh_size;
	dl_iterate_phdr(load_bias_cb, &bias);

	p = img->data + notes->sh_offset;
	end = p + notes->sh_size;
	while (p + sizeof(ElfW(Nhdr)) <= end) {
		const ElfW(Nhdr) *nh = (const void *)p;
		const uint8_t *desc = p + sizeof(*nh) + ((nh->n_namesz + 3) & ~3u);

		if (nh->n_type == 3 && nh->n_namesz == 8 &&
		    !memcmp(p + sizeof(*nh), "stapsdt", 8)) {
			err = add_site(img, desc, nh->n_descsz, bias);
			if (err)
				return err;
		}
		p = desc + ((nh->n_descsz + 3) & ~3u);
	}
	return nsites ? 0 : -ENOENT;
}

static int read_mem(void *cookie, uint64_t addr, void *buf, size_t size)
{
	(void)cookie;
	/* write() fails with EFAULT on an unmapped address where a load
	 * would crash the check */
	if (addr > UINTPTR_MAX ||
	    write(mem_pipe[1], (const void *)(uintptr_t)addr, size) != (ssize_t)size)
		return -EFAULT;
	return read(mem_pipe[0], buf, size) == (ssize_t)size ? 0 : -EIO;
}

static void report(const struct site *s, const struct usdtkit_arg *a, int i,
		   const char *path, const char *what, uint64_t got, int err)
{
	char desc[160];

	usdtkit_arg_snprintf(desc, sizeof(desc), arch, s->args, a);
	fprintf(stderr, "%s %s arg %d [%.*s] %s (%s): got 0x%llx (err %d) want 0x%llx size %u: %s\n",
		sites_arch_name, s->name, i, (int)a->text_len,
		s->args + a->text_off, desc, path, (unsigned long long)got,
		err, (unsigned long long)sites_expect.value[i],
		sites_expect.size[i], what);
}

static bool same_value(const struct usdtkit_arg *a, int i, uint64_t got)
{
	uint64_t mask = a->size >= 8 ? ~0ull : (1ull << (a->size * 8)) - 1;

	/* floats: sdt.h marks them "f", so their raw bits come back
	 * zero-extended; compare the bits only */
	if (sites_expect.is_float[i])
		return (got & mask) == (sites_expect.value[i] & mask);
	return got == sites_expect.value[i];
}

static void eval_one(const struct site *s, const struct usdtkit_arg *a, int i,
		     const struct usdtkit_eval_opts *opts, const char *path,
		     unsigned long *count)
{
	uint64_t got = 0;
	int err;

	(*count)++;
	err = usdtkit_arg_eval(arch, a, opts, &got);
	if (err || a->size != sites_expect.size[i] || !same_value(a, i, got)) {
		mismatches++;
		report(s, a, i, path, "MISMATCH", got, err);
	} else if (verbose) {
		report(s, a, i, path, "ok", got, 0);
	}
}

static void check_arg(const struct site *s, int i,
		      const struct usdtkit_eval_opts *native,
		      const struct usdtkit_eval_opts *compat)
{
	const struct usdtkit_arg *a = &s->arg[i], *e = s->elf_arg[i];

	if (a->status != USDTKIT_ARG_OK) {
		skipped[a->status]++;
		if (verbose || s->hits == 1)
			fprintf(stderr, "%s %s arg %d [%.*s]: skipped, %s: %s\n",
				sites_arch_name, s->name, i, (int)a->text_len,
				s->args + a->text_off,
				usdtkit_arg_status_str(a->status), a->error);
		/* the ELF core must see the same */
		if (e && e->status != a->status) {
			mismatches++;
			report(s, e, i, "elf core", "MISMATCH: other status", 0, 0);
		}
		return;
	}
	eval_one(s, a, i, native, "native", &checked);
	if (compat->regs_size)
		eval_one(s, a, i, compat, "compat64", &checked_compat);
	if (!e)
		return;
	if (e->status != USDTKIT_ARG_OK) {
		mismatches++;
		report(s, e, i, "elf core", "MISMATCH: left unusable", 0, 0);
		return;
	}
	eval_one(s, e, i, native, "elf core", &checked_elf);
}

static void check_site(struct site *s, const ucontext_t *uc)
{
	uint8_t regs[512], cregs[512];
	USDTKIT_OPTS(usdtkit_eval_opts, native, .regs = regs,
		     .layout = USDTKIT_LAYOUT_NATIVE, .ip = s->pc,
		     .read_mem = read_mem);
	USDTKIT_OPTS(usdtkit_eval_opts, compat, .regs = cregs,
		     .layout = USDTKIT_LAYOUT_COMPAT64, .ip = s->pc,
		     .read_mem = read_mem);
	int i;

	s->hits++;
	native.regs_size = sites_arch_regs(uc, regs, sizeof(regs));
	compat.regs_size = sites_arch_regs_compat(uc, cregs, sizeof(cregs));
	if (s->nargs != sites_expect.nargs) {
		mismatches++;
		fprintf(stderr, "%s %s: %d args in [%s], %d passed\n",
			sites_arch_name, s->name, s->nargs, s->args,
			sites_expect.nargs);
		return;
	}
	for (i = 0; i < s->nargs; i++)
		check_arg(s, i, &native, &compat);
}

/*
 * The trap handler. It interrupts our own probe sites only, never libc
 * in the middle of a call, so stdio here is safe in practice.
 */
static void on_trap(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	uintptr_t pc = sites_arch_trap_pc(si, uc);
	int i;

	for (i = 0; i < nsites; i++) {
		if (sites[i].pc == pc) {
			check_site(&sites[i], uc);
			sites_arch_resume(uc, pc + sites[i].nop_len);
			return;
		}
	}
	fprintf(stderr, "FAIL: signal %d at %#lx, not a probe site\n", sig,
		(unsigned long)pc);
	signal(sig, SIG_DFL);	/* return and die at the faulting insn */
}

#ifdef SITES_WITH_ELF
static struct usdtkit_file *elf_file;

/*
 * The library's own path, where the ELF core is built: open our file,
 * match its sites to ours by link-time pc and keep its (parsed and
 * resolved) arguments, so each is evaluated too. The file stays open
 * until the end (elf_file).
 */
static int attach_elf_core(void)
{
	struct usdtkit_file *f = usdtkit_file_open("/proc/self/exe", NULL);
	size_t k;
	int i, j;

	if (!f)
		return -errno;
	elf_file = f;
	if (usdtkit_file_site_count(f) != (size_t)nsites) {
		fprintf(stderr, "FAIL: ELF core has %zu sites, notes %d\n",
			usdtkit_file_site_count(f), nsites);
		return -EPROTO;
	}
	for (k = 0; k < usdtkit_file_site_count(f); k++) {
		const struct usdtkit_site *es = usdtkit_file_site(f, k);

		for (i = 0; i < nsites; i++)
			if (sites[i].link_pc == usdtkit_site_pc(es))
				break;
		if (i == nsites || strcmp(sites[i].args, usdtkit_site_args_text(es)) ||
		    usdtkit_site_arg_count(es) != sites[i].nargs) {
			fprintf(stderr, "FAIL: ELF core site %s at %#llx differs\n",
				usdtkit_site_name(es),
				(unsigned long long)usdtkit_site_pc(es));
			return -EPROTO;
		}
		for (j = 0; j < sites[i].nargs; j++)
			sites[i].elf_arg[j] = usdtkit_site_arg(es, j);
	}
	return 0;
}

static void close_elf_core(void)
{
	usdtkit_file_close(elf_file);
}
#else
static int attach_elf_core(void)
{
	return 0;	/* parse layer only (riscv64): our own reader alone */
}

static void close_elf_core(void)
{
}
#endif

static int patch_sites(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	int i, err = 0;

	for (i = 0; i < nsites && !err; i++) {
		uintptr_t page = sites[i].pc & ~(uintptr_t)(pg - 1);

		/* the nop may straddle two pages */
		if (mprotect((void *)page, 2 * pg, PROT_READ | PROT_WRITE | PROT_EXEC))
			return -errno;
		sites[i].nop_len = sites_arch_patch((uint8_t *)sites[i].pc);
		if (sites[i].nop_len < 0) {
			fprintf(stderr, "FAIL: %s at %#lx holds no known nop\n",
				sites[i].name, (unsigned long)sites[i].pc);
			err = sites[i].nop_len;
		}
		__builtin___clear_cache((char *)sites[i].pc,
					(char *)sites[i].pc + 4);
		if (mprotect((void *)page, 2 * pg, PROT_READ | PROT_EXEC))
			return -errno;
	}
	return err;
}

static int print_summary(const char *label)
{
	unsigned long unreached = 0, nskipped = 0, hits = 0, nargs = 0;
	int i;

	for (i = 0; i < nsites; i++) {
		hits += sites[i].hits;
		nargs += sites[i].nargs;
		if (!sites[i].hits) {
			unreached++;
			fprintf(stderr, "FAIL: site %s [%s] never reached\n",
				sites[i].name, sites[i].args);
		}
	}
	for (i = 0; i <= USDTKIT_ARG_AMBIGUOUS; i++)
		nskipped += skipped[i];
	printf("%s %s: %d sites, %lu args (%lu hits: %lu args checked, +%lu compat64, +%lu elf core), %lu mismatches, %lu skipped",
	       sites_arch_name, label, nsites, nargs, hits, checked,
	       checked_compat, checked_elf, mismatches, nskipped);
	for (i = 0; i <= USDTKIT_ARG_AMBIGUOUS; i++)
		if (skipped[i])
			printf(" [%s %lu]", usdtkit_arg_status_str(i), skipped[i]);
	printf("\n%lu passed, %lu failed\n",
	       checked + checked_compat + checked_elf - mismatches,
	       mismatches + unreached);
	return mismatches || unreached || !checked ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_sigaction = on_trap, .sa_flags = SA_SIGINFO };
	struct elfimg img = { 0 };
	const char *label = "";
	int err, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = true;
		else
			label = argv[i];
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	err = load_file("/proc/self/exe", &img);
	if (!err)
		err = read_sites(&img);
	if (!err)
		err = attach_elf_core();
	if (!err && pipe(mem_pipe))
		err = -errno;
	if (!err)
		err = patch_sites();
	if (err) {
		fprintf(stderr, "FAIL: setup: %s\n", strerror(-err));
		printf("0 passed, 1 failed\n");
		close_elf_core();
		free((void *)img.data);
		return 1;
	}
	sigaction(SIGTRAP, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	sites_run_probes();
	err = print_summary(label);
	close_elf_core();
	free((void *)img.data);
	return err;
}
