/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * usdtkit: USDT (SystemTap sys/sdt.h) probe argument specs for every
 * architecture in one build.
 *
 * Conventions, as in libbpf:
 * - functions return 0 or a positive count on success, a negative errno on
 *   failure; functions returning pointers return NULL and set errno;
 * - every exported symbol starts with "usdtkit_" (never "usdt_", which
 *   libbpf.a uses internally);
 * - option structs start with their own size (@sz) so they can grow without
 *   breaking the ABI: declare them with USDTKIT_OPTS(), which zeroes them,
 *   padding included, and sets sz. The library reads the fields up to its
 *   own last one and refuses (-EINVAL) non-zero bytes past it: a field it
 *   does not have.
 */
#ifndef USDTKIT_USDTKIT_H
#define USDTKIT_USDTKIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <usdtkit/config.h>
#include <usdtkit/opts.h>
#include <usdtkit/version.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef USDTKIT_API
#define USDTKIT_API __attribute__((visibility("default")))
#endif

/* "0.2.0": the version of the library running, not of these headers
 * (USDTKIT_VERSION, <usdtkit/version.h>). */
USDTKIT_API const char *usdtkit_version_string(void);

/* The BPF side reads at most this many arguments per probe (libbpf: 12). */
#define USDTKIT_BPF_MAX_ARGS 12

/*
 * A site of an opened file decodes at most this many arguments: an args
 * string can hold millions (each decoded one costs about 100 bytes), and
 * sys/sdt.h emits at most 12. The rest are counted, not decoded: see
 * usdtkit_site_arg_total().
 */
#define USDTKIT_SITE_MAX_ARGS 64

/* ------------------------------------------------------------------ */
/* Architectures                                                      */
/* ------------------------------------------------------------------ */

struct usdtkit_arch;

/*
 * Register file layouts. NATIVE is the struct BPF sees as its context on a
 * kernel of the target's own architecture. COMPAT64 is the layout of the
 * 64-bit kernel that runs 32-bit binaries of the same family (an i386
 * process traced on an x86-64 kernel is read through x86-64 pt_regs).
 */
enum usdtkit_layout_kind {
	USDTKIT_LAYOUT_NATIVE = 0,
	USDTKIT_LAYOUT_COMPAT64 = 1,
};

struct usdtkit_layout {
	const char *name;	/* e.g. "struct pt_regs (x86_64)" */
	uint16_t size;		/* sizeof the struct in bytes */
	uint8_t slot_size;	/* bytes per register slot */
	bool big_endian;	/* byte order of the slots */
	uint16_t nregs;		/* entries in offsets[] */
	const int16_t *offsets;	/* register id -> byte offset, -1 if absent */
};

struct usdtkit_regdef {
	const char *name;	/* as written in specs, without prefix: "eax" */
	int16_t id;		/* register id: index into layout offsets */
	uint8_t width;		/* bytes */
	uint8_t shift;		/* bit shift of the view (x86 %ah: 8) */
};

USDTKIT_API const struct usdtkit_arch *usdtkit_arch_by_name(const char *name);
/* @ei_class: ELFCLASS32 (1) or ELFCLASS64 (2); @ei_data: ELFDATA2LSB (1) or
 * ELFDATA2MSB (2). Returns NULL (errno = ENOENT) for unknown identities. */
USDTKIT_API const struct usdtkit_arch *
usdtkit_arch_by_elf(uint16_t e_machine, uint8_t ei_class, uint8_t ei_data);
/* Iterate the registry: returns NULL past the end. */
USDTKIT_API const struct usdtkit_arch *usdtkit_arch_at(size_t i);
USDTKIT_API const char *usdtkit_arch_name(const struct usdtkit_arch *arch);
USDTKIT_API uint16_t usdtkit_arch_e_machine(const struct usdtkit_arch *arch);
USDTKIT_API uint8_t usdtkit_arch_elf_class(const struct usdtkit_arch *arch);
USDTKIT_API uint8_t usdtkit_arch_elf_data(const struct usdtkit_arch *arch);
/* Bytes in a pointer of the target (4 or 8). */
USDTKIT_API uint8_t usdtkit_arch_ptr_size(const struct usdtkit_arch *arch);
/* Register table: names the spec lexer accepts, returns NULL past the end. */
USDTKIT_API const struct usdtkit_regdef *
usdtkit_arch_reg_at(const struct usdtkit_arch *arch, size_t i);
/* Canonical name of register @id (the widest view), or NULL. */
USDTKIT_API const char *usdtkit_arch_reg_name(const struct usdtkit_arch *arch,
					      int id);
/* NULL (errno = ENOENT) when the arch has no layout of that kind. */
USDTKIT_API const struct usdtkit_layout *
usdtkit_arch_layout(const struct usdtkit_arch *arch,
		    enum usdtkit_layout_kind kind);

/* ------------------------------------------------------------------ */
/* The IR: one parsed argument                                        */
/* ------------------------------------------------------------------ */

enum usdtkit_loc_kind {
	USDTKIT_LOC_INVALID = 0,	/* did not parse */
	USDTKIT_LOC_CONST,		/* value (+ probe IP when pc_rel) */
	USDTKIT_LOC_REG,		/* register view, or a register pair */
	USDTKIT_LOC_MEM,		/* read size bytes at disp+base+index*scale */
	USDTKIT_LOC_SYMBOL,		/* relative to a symbol: needs the ELF */
	USDTKIT_LOC_UNREADABLE,		/* FP/vector register: not in pt_regs */
};

/* Relocation operator applied to a symbol-relative operand. */
enum usdtkit_reloc {
	USDTKIT_RELOC_NONE = 0,	/* sym+addend is the address (or the value) */
	USDTKIT_RELOC_PCREL,	/* x86-64 sym(%rip): same address as NONE */
	USDTKIT_RELOC_LO12,	/* aarch64 :lo12: low 12 bits, added to base */
	USDTKIT_RELOC_RISCV_LO,	/* riscv %lo(): sign-extended low 12 bits */
	USDTKIT_RELOC_GOTOFF,	/* i386 sym@GOTOFF(%reg): sym - GOT + reg */
	USDTKIT_RELOC_GOT,	/* GOT slot of sym (@GOT, @GOTPCREL) */
	USDTKIT_RELOC_TLS,	/* thread-local (@tpoff, @ntpoff, %tprel_lo) */
	USDTKIT_RELOC_GOT_OFST,	/* mips %got_ofst(): sign-extended low 16 bits,
				 * added to the GOT page entry in the base */
};

/* Worst status wins when several apply; the order below is not a rank. */
enum usdtkit_arg_status {
	USDTKIT_ARG_OK = 0,
	USDTKIT_ARG_INVALID,	/* parse error at error_pos */
	USDTKIT_ARG_UNREADABLE,	/* FP/vector register, BPF cannot read it */
	USDTKIT_ARG_BAD_SIZE,	/* size outside 1/2/4/8: not readable by BPF */
	USDTKIT_ARG_UNRESOLVED,	/* symbol-relative, symbol not resolved yet */
	USDTKIT_ARG_UNSUPPORTED,/* decoded, but no exact way to read it */
	USDTKIT_ARG_AMBIGUOUS,	/* symbol name matches several symbols */
};

/* A register reference. id < 0 means "no register". */
struct usdtkit_reg {
	int16_t id;		/* register id (index into layout offsets) */
	int16_t entry;		/* index into the arch's register table */
	int16_t offset;		/* byte offset in the NATIVE layout */
	uint8_t width;		/* bytes of the view */
	uint8_t shift;		/* bit shift of the view */
};

struct usdtkit_arg {
	/* where the argument is in the spec string (byte offsets) */
	uint32_t text_off;
	uint32_t text_len;
	uint32_t op_off;	/* start of the operand, after "SIZE@" */

	uint16_t size;		/* bytes; from the register when size-less */
	bool is_signed;
	bool is_float;		/* "Nf@" */
	bool size_given;	/* false for size-less asm operands */

	uint8_t kind;		/* enum usdtkit_loc_kind */
	uint8_t status;		/* enum usdtkit_arg_status */
	uint8_t reloc;		/* enum usdtkit_reloc, SYMBOL only */
	bool pc_rel;		/* CONST/MEM: add the probe's runtime IP */
	bool deref;		/* SYMBOL: read memory (false: value is addr) */
	uint8_t scale;		/* MEM/SYMBOL with an index: 1, 2, 4 or 8 */

	int64_t value;		/* CONST: the value */
	int64_t disp;		/* MEM: displacement; SYMBOL: addend */

	struct usdtkit_reg reg;		/* REG: the register (low half) */
	struct usdtkit_reg reg_hi;	/* REG: high half of a register pair */
	struct usdtkit_reg base;	/* MEM/SYMBOL: optional base */
	struct usdtkit_reg index;	/* MEM/SYMBOL: optional index */

	uint32_t sym_off;	/* SYMBOL/UNREADABLE: name span in the spec */
	uint32_t sym_len;

	uint32_t error_pos;	/* byte offset in the spec string */
	const char *error;	/* static message, NULL when status is OK */
};

/*
 * Parse the args string of one probe (@len bytes at @text, no NUL needed;
 * the parser never reads past text + len).
 *
 * Fills at most @max_args entries of @args and returns how many arguments
 * the string holds (more than @max_args means: call again with a bigger
 * array), or a negative errno (-EINVAL for NULL arch or text). A bad
 * argument gets status USDTKIT_ARG_INVALID with error and error_pos; the
 * others still parse and keep their indices. "" and ":" hold no arguments.
 */
USDTKIT_API int usdtkit_args_parse(const struct usdtkit_arch *arch,
				   const char *text, size_t len,
				   struct usdtkit_arg *args, size_t max_args);

/* Textual names, for printing and JSON. Never NULL. */
USDTKIT_API const char *usdtkit_loc_kind_str(enum usdtkit_loc_kind kind);
USDTKIT_API const char *usdtkit_arg_status_str(enum usdtkit_arg_status st);
USDTKIT_API const char *usdtkit_reloc_str(enum usdtkit_reloc reloc);

/*
 * One-line human description of @arg, parsed from @spec, e.g.
 * "s32 mem [rbp + rax*8 - 1204]" or "u64 reg edx:eax" or
 * "s32 symbol [counter.0+4] (unresolved: ...)". Returns the length it
 * needed, like snprintf.
 */
USDTKIT_API int usdtkit_arg_snprintf(char *buf, size_t size,
				     const struct usdtkit_arch *arch,
				     const char *spec,
				     const struct usdtkit_arg *arg);

/*
 * Turn a SYMBOL argument into an address the BPF side can compute at every
 * site, given the link-time address of the symbol (@sym_addr), the link-time
 * pc of the probe (@pc) and, for GOTOFF, the link-time address of the GOT
 * (@got_addr). Afterwards kind is MEM (or CONST when !deref), with pc_rel
 * set for absolute addresses so that one resolved spec works wherever the
 * file is mapped. Returns -EINVAL for non-SYMBOL args and -EOPNOTSUPP for
 * relocations that need more than a symbol address (GOT slots, TLS).
 */
USDTKIT_API int usdtkit_arg_resolve(const struct usdtkit_arch *arch,
				    struct usdtkit_arg *arg, uint64_t pc,
				    uint64_t sym_addr, uint64_t got_addr);

/* ------------------------------------------------------------------ */
/* Evaluator                                                          */
/* ------------------------------------------------------------------ */

/* Read @size bytes of target memory at @addr into @buf: 0 or -errno. */
typedef int (*usdtkit_read_mem_fn)(void *cookie, uint64_t addr, void *buf,
				   size_t size);

struct usdtkit_eval_opts {
	size_t sz;			/* sizeof(struct usdtkit_eval_opts) */
	const void *regs;		/* register snapshot in @layout */
	size_t regs_size;		/* bytes at @regs */
	enum usdtkit_layout_kind layout;/* which layout @regs is in */
	uint64_t ip;			/* runtime address of the probe */
	usdtkit_read_mem_fn read_mem;	/* may be NULL if no MEM args */
	void *cookie;			/* passed to read_mem */
	size_t :0;			/* new fields go above */
};
/* the last field: the library's view of the struct ends there */
#define usdtkit_eval_opts__last_field cookie

/*
 * Compute the value of @arg at a probe hit: an exact-size read, then sign
 * or zero extension to 64 bits (floats: the raw bits, zero-extended).
 * Returns 0, -EINVAL (bad options or invalid arg), -ENOENT (unresolved
 * symbol), -EOPNOTSUPP (unreadable or unsupported arg, size not in
 * 1/2/4/8), -ERANGE (register outside the snapshot), or what read_mem
 * returned.
 */
USDTKIT_API int usdtkit_arg_eval(const struct usdtkit_arch *arch,
				 const struct usdtkit_arg *arg,
				 const struct usdtkit_eval_opts *opts,
				 uint64_t *value);


/* ------------------------------------------------------------------ */
/* Diagnostics                                                        */
/* ------------------------------------------------------------------ */

enum usdtkit_log_level {
	USDTKIT_LOG_WARN = 0,
	USDTKIT_LOG_INFO = 1,
	USDTKIT_LOG_DEBUG = 2,
};

/* Receives one formatted message (no trailing newline). The library never
 * writes to stderr by itself: without a callback, messages are dropped. */
typedef void (*usdtkit_print_fn)(void *ctx, enum usdtkit_log_level level,
				 const char *msg);

/* ------------------------------------------------------------------ */
/* ELF files and their probe sites                                    */
/* ------------------------------------------------------------------ */

struct usdtkit_file;
struct usdtkit_site;

struct usdtkit_open_opts {
	size_t sz;			/* sizeof(struct usdtkit_open_opts) */
	usdtkit_print_fn print;		/* diagnostics, may be NULL */
	void *print_ctx;
	const char *name;		/* name used in messages (fd, buffer) */
	size_t :0;			/* new fields go above */
};
#define usdtkit_open_opts__last_field name

/*
 * Open an ELF file of any class, byte order and supported machine and read
 * its USDT notes. Bad notes are reported through the print callback with
 * their index and byte offset and skipped; problems with the whole file
 * return NULL with errno set (ENOENT, EACCES, EISDIR, ENOEXEC for "not an
 * ELF file", EPROTONOSUPPORT for an unsupported machine, ...), after a
 * message naming the file. A file without probes opens fine with 0 sites.
 */
USDTKIT_API struct usdtkit_file *
usdtkit_file_open(const char *path, const struct usdtkit_open_opts *opts);
/* Same, from an open fd (not closed, not needed after the call). */
USDTKIT_API struct usdtkit_file *
usdtkit_file_open_fd(int fd, const struct usdtkit_open_opts *opts);
/* Same, from an ELF image in memory (copied; the caller keeps @buf). */
USDTKIT_API struct usdtkit_file *
usdtkit_file_open_mem(const void *buf, size_t size,
		      const struct usdtkit_open_opts *opts);
USDTKIT_API void usdtkit_file_close(struct usdtkit_file *file);

USDTKIT_API const char *usdtkit_file_name(const struct usdtkit_file *file);
USDTKIT_API const struct usdtkit_arch *
usdtkit_file_arch(const struct usdtkit_file *file);
/* ET_EXEC (2) or ET_DYN (3) */
USDTKIT_API int usdtkit_file_type(const struct usdtkit_file *file);
USDTKIT_API size_t usdtkit_file_site_count(const struct usdtkit_file *file);
/* Notes that were malformed and skipped. */
USDTKIT_API size_t usdtkit_file_bad_notes(const struct usdtkit_file *file);
USDTKIT_API const struct usdtkit_site *
usdtkit_file_site(const struct usdtkit_file *file, size_t i);

/*
 * The next site after @prev (NULL: the first) whose provider and name
 * match shell globs @provider and @name (NULL or "" matches anything).
 * Returns NULL at the end.
 */
USDTKIT_API const struct usdtkit_site *
usdtkit_file_next_site(const struct usdtkit_file *file,
		       const struct usdtkit_site *prev, const char *provider,
		       const char *name);

/* Whether @s matches shell globs @provider and @name (NULL or "" matches
 * anything): the test of usdtkit_file_next_site(), for a caller with
 * several filters. */
USDTKIT_API bool usdtkit_site_match(const struct usdtkit_site *s,
				   const char *provider, const char *name);

/*
 * The probe of @file nearest to @provider:@name (no globs), as
 * "PROVIDER:NAME" into @buf of @len bytes, when it is within a typo's
 * distance (edits over PROVIDER:NAME: a quarter of its length, at least
 * 2) and nearer than *@best, which it lowers (set it to SIZE_MAX, then
 * pass it over several files for the nearest of them all). True when
 * @buf was set: "no probe ruby:method_entry (did you mean
 * ruby:method__entry?)".
 */
USDTKIT_API bool usdtkit_file_nearest_probe(const struct usdtkit_file *file,
					    const char *provider, const char *name,
					    char *buf, size_t len, size_t *best);

USDTKIT_API const char *usdtkit_site_provider(const struct usdtkit_site *s);
USDTKIT_API const char *usdtkit_site_name(const struct usdtkit_site *s);
USDTKIT_API const char *usdtkit_site_args_text(const struct usdtkit_site *s);
/* Index of the note in .note.stapsdt. */
USDTKIT_API size_t usdtkit_site_note_index(const struct usdtkit_site *s);
/* Address of the probe, after the prelink (.stapsdt.base) adjustment. */
USDTKIT_API uint64_t usdtkit_site_pc(const struct usdtkit_site *s);
/* The base recorded in the note (link-time .stapsdt.base address). */
USDTKIT_API uint64_t usdtkit_site_base(const struct usdtkit_site *s);
/* Semaphore address (0: none) and its file offset (for ref_ctr_offset). */
USDTKIT_API uint64_t usdtkit_site_semaphore(const struct usdtkit_site *s);
USDTKIT_API uint64_t usdtkit_site_semaphore_offset(const struct usdtkit_site *s);
/* File offset of the probe instruction (what uprobes attach at). */
USDTKIT_API uint64_t usdtkit_site_pc_offset(const struct usdtkit_site *s);
/* x86-64 "nop; nop5" site: file offset of the nop5, or 0. */
USDTKIT_API uint64_t usdtkit_site_nop5_offset(const struct usdtkit_site *s);
/* x86-64 "nop; nop10" site (libbpf's usdt.h): file offset of the nop10,
 * or 0. The attach layer uses it only where the kernel optimizes it. */
USDTKIT_API uint64_t usdtkit_site_nop10_offset(const struct usdtkit_site *s);
/*
 * 0 when the site can be attached; else a negative errno (-ENOEXEC: pc not
 * in an executable segment, -EINVAL: semaphore not in a data segment) and
 * usdtkit_site_error() says why.
 */
USDTKIT_API int usdtkit_site_status(const struct usdtkit_site *s);
USDTKIT_API const char *usdtkit_site_error(const struct usdtkit_site *s);
/* Arguments: parsed, and symbol-relative ones resolved against the ELF
 * symbols (status ok, unresolved or ambiguous). */
USDTKIT_API int usdtkit_site_arg_count(const struct usdtkit_site *s);
USDTKIT_API const struct usdtkit_arg *
usdtkit_site_arg(const struct usdtkit_site *s, int i);
/* How many arguments the args string holds. Above
 * usdtkit_site_arg_count() when it holds more than USDTKIT_SITE_MAX_ARGS:
 * those past the bound were counted, not decoded. */
USDTKIT_API int usdtkit_site_arg_total(const struct usdtkit_site *s);


/* ------------------------------------------------------------------ */
/* Processes                                                          */
/* ------------------------------------------------------------------ */

struct usdtkit_proc;

/*
 * Read /proc/PID/maps and open every mapped ELF object that has USDT
 * notes (one per mapped file: device and inode), through its
 * /proc/PID/map_files link, the very file mapped whatever the process's
 * root (a chroot, a container) or the path's fate (deleted, replaced).
 * Without CAP_SYS_ADMIN, through /proc/PID/root/<path> when that is the
 * same inode. Objects that cannot be opened are reported and skipped;
 * usdtkit_proc_object_path() is the path maps gives. NULL with errno (ESRCH: no such process, or it
 * exited while being read). The handle also holds /proc/PID/mem, opened
 * first, for usdtkit_proc_semaphore(); failing to open it (no ptrace
 * rights) is that function's error, not this one's.
 */
USDTKIT_API struct usdtkit_proc *
usdtkit_proc_open(int pid, const struct usdtkit_open_opts *opts);
USDTKIT_API void usdtkit_proc_close(struct usdtkit_proc *proc);
USDTKIT_API int usdtkit_proc_pid(const struct usdtkit_proc *proc);
/* Its name when opened (/proc/PID/comm, at most 15 bytes, as the
 * process set it: any bytes; "" when it could not be read). */
USDTKIT_API const char *usdtkit_proc_comm(const struct usdtkit_proc *proc);
/* Mapped objects with at least one probe. */
USDTKIT_API size_t usdtkit_proc_object_count(const struct usdtkit_proc *proc);
USDTKIT_API const struct usdtkit_file *
usdtkit_proc_object(const struct usdtkit_proc *proc, size_t i);
/* Path of object @i as the process sees it (maps column 6). */
USDTKIT_API const char *usdtkit_proc_object_path(const struct usdtkit_proc *proc,
						 size_t i);
/* Absolute address of a site of one of the process's objects in that
 * process: 0, or -ENOENT when the site's page is not mapped. */
USDTKIT_API int usdtkit_proc_site_addr(const struct usdtkit_proc *proc,
				       const struct usdtkit_site *site,
				       uint64_t *addr);
/*
 * The value of the semaphore of @site (a site of one of the process's
 * objects, usdtkit_proc_object()) in the process now: the count of
 * tracers that enabled the probe, read from the address the maps of
 * usdtkit_proc_open() give it, in the object's byte order. 0 and
 * *@value; -EINVAL when @site is not a site of @proc's objects, -ENOENT
 * when it has no semaphore or its page is not mapped, -ESRCH when the
 * process has exited or exec'd since usdtkit_proc_open(), -EPERM or
 * -EACCES without the right to trace the process (ptrace), or the
 * errno of the read. Thread-safe; no system call but one pread().
 */
USDTKIT_API int usdtkit_proc_semaphore(const struct usdtkit_proc *proc,
				       const struct usdtkit_site *site,
				       uint16_t *value);

/* ------------------------------------------------------------------ */
/* The host: every process with probes                                */
/* ------------------------------------------------------------------ */

struct usdtkit_host;

struct usdtkit_host_opts {
	size_t sz;			/* sizeof(struct usdtkit_host_opts) */
	usdtkit_print_fn print;		/* objects that cannot be read */
	void *print_ctx;
	size_t :0;			/* new fields go above */
};
#define usdtkit_host_opts__last_field print_ctx

/*
 * The processes of this host (this pid namespace's /proc) that map an
 * object with USDT probes, in pid order: usdtkit_host_next() gives each
 * one opened (usdtkit_proc_open(): objects read through the process,
 * whatever its root), to usdtkit_proc_close(). A process's maps are read
 * first, and an object is opened only when no process before mapped the
 * same file (device and inode): whether a file has probes is looked at
 * once per scan, so a host of a thousand processes sharing a libc opens
 * it once. NULL with errno.
 */
USDTKIT_API struct usdtkit_host *usdtkit_host_open(const struct usdtkit_host_opts *opts);
/* The next such process; NULL at the end (errno 0) or with errno. A
 * process that exits meanwhile, or that cannot be read, is passed over. */
USDTKIT_API struct usdtkit_proc *usdtkit_host_next(struct usdtkit_host *h);
/* Processes read and files opened so far (the scan's work). */
USDTKIT_API void usdtkit_host_stats(const struct usdtkit_host *h, size_t *procs,
				    size_t *files);
USDTKIT_API void usdtkit_host_close(struct usdtkit_host *h);

/* ------------------------------------------------------------------ */
/* Shared libraries an executable needs                               */
/* ------------------------------------------------------------------ */

struct usdtkit_needed_opts {
	size_t sz;			/* sizeof(struct usdtkit_needed_opts) */
	const char *library_path;	/* LD_LIBRARY_PATH as the program
					 * will run with it; NULL: none */
	usdtkit_print_fn print;		/* names not found, may be NULL */
	void *print_ctx;
	size_t :0;			/* new fields go above */
};
#define usdtkit_needed_opts__last_field print_ctx

/*
 * The shared libraries the dynamic loader maps for executable @exe
 * before it runs, as glibc's ld.so finds them: the DT_NEEDED closure,
 * breadth first, each once (what `ldd` lists), through DT_RPATH,
 * LD_LIBRARY_PATH, DT_RUNPATH (with $ORIGIN, $LIB, $PLATFORM),
 * /etc/ld.so.cache and the default directories, skipping files of
 * another machine. Reads the files, runs nothing. A name found nowhere
 * is said through opts->print and left out. On success *@paths is an
 * array of *@n paths (usdtkit_needed_free()); 0 or a negative errno.
 */
USDTKIT_API int usdtkit_needed(const char *exe,
			       const struct usdtkit_needed_opts *opts,
			       char ***paths, size_t *n);
USDTKIT_API void usdtkit_needed_free(char **paths, size_t n);


#ifdef __cplusplus
}
#endif

#endif /* USDTKIT_USDTKIT_H */
