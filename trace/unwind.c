// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tables the program unwinds ustack keys with (trace_unwind.h): each
 * object's call frame information compiled once into rows
 * (core/elf/cfi.c), and each process's code mappings in the trie, so
 * that the program finds a pc's rows and what to subtract from the pc.
 *
 * Why tables walked in the kernel, not the stack copied out and unwound
 * here (perf's --call-graph dwarf): a key is made in the kernel, so the
 * counts stay there (one map update a hit, whatever the rate) and the
 * stack costs its frames, not a copy of 8 to 64 KiB of stack a hit sent
 * through the ring. The price is memory held for each object's rows (16
 * bytes a row; 1.1 MiB for python3.11) and the time to compile them
 * once per object (bench/README.md, "Stacks").
 *
 * A process is read when its stacks may be needed: at the start (-p),
 * when its loader says its objects changed (the follow layer holds the
 * thread until then: a library loaded later has its rows before its code
 * runs), and at its first stack otherwise (--all, --children, a path
 * target: that first stack was walked by the frame pointer).
 */
#include <endian.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <gelf.h>
#include <libelf.h>

#include "base/clock.h"
#include "elf/cfi.h"
#include "elf/file.h"
#include "elf/proc.h"
#include "trace/internal.h"
#include "trace.skel.h"

/* an object read (rows or none), by the device and inode of its maps line */
struct unw_object {
	uint64_t dev, ino;
	int slot;			/* in unw_objs; -1: no rows */
	uint64_t base;			/* its first row's pc */
	struct usdtkit_segment *segs;	/* its PT_LOADs, for a mapping's bias */
	size_t nsegs;
};

/* a process read: the blocks of the trie it holds */
struct unw_pid {
	int pid;
	struct usdtkit_unw_key *keys;
	size_t n;
};

/* what the tables cost, said at the end with -v */
struct unwind_counts {
	size_t objects;		/* objects read (with rows or not) */
	size_t rows;		/* rows in the map */
	size_t pid_reads;	/* processes' maps read */
	uint64_t read_ns;	/* spent reading objects and compiling rows */
};

struct trace_unwind {
	struct usdtkit_unw_row *rows;	/* unw_rows, mmap()ed */
	size_t rows_cap, rows_used;
	struct unw_object *objs;
	size_t nobjs, slots;
	struct unw_pid *pids;
	size_t npids, sweep_at;
	int maps_fd, objs_fd;
	bool said_full, said_trie;
	struct unwind_counts counts;
};

/* The arches trace_unwind.h walks: the trace program's own */
static bool arch_unwinds(void)
{
#if defined(__x86_64__) || defined(__aarch64__)
	return true;
#else
	return false;
#endif
}

/*
 * Before the load: the maps sized and the program told to unwind, when
 * a ustack is keyed and this arch has the walker. 0 or -errno.
 */
int usdtkit__unwind_prepare(struct usdtkit_trace *t)
{
	struct trace *s = t->skel;
	int err;

	if (!usdtkit__stack_keyed(t) || t->no_unwind)
		return 0;
	if (!arch_unwinds()) {
		trace_err(t, "ustack: frames come from frame pointers only on this "
			  "architecture (the unwinder does x86-64 and arm64)");
		return 0;
	}
	t->unw = calloc(1, sizeof(*t->unw));
	if (!t->unw)
		return -ENOMEM;
	err = bpf_map__set_max_entries(s->maps.unw_rows, USDTKIT_UNW_ROWS);
	if (!err)
		err = bpf_map__set_max_entries(s->maps.unw_objs, USDTKIT_UNW_OBJS);
	if (!err)
		err = bpf_map__set_max_entries(s->maps.unw_maps, USDTKIT_UNW_MAPS);
	if (err)
		return err;
	s->rodata->unwind = 1;
	return 0;
}

/* After the load: the rows' map in our address space. 0 or -errno. */
int usdtkit__unwind_start(struct usdtkit_trace *t)
{
	struct trace_unwind *u = t->unw;
	size_t len = (size_t)USDTKIT_UNW_ROWS * sizeof(*u->rows), k;
	void *p;

	if (!u)
		return 0;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 bpf_map__fd(t->skel->maps.unw_rows), 0);
	if (p == MAP_FAILED)
		return -errno;
	u->rows = p;
	u->rows_cap = USDTKIT_UNW_ROWS;
	u->maps_fd = bpf_map__fd(t->skel->maps.unw_maps);
	u->objs_fd = bpf_map__fd(t->skel->maps.unw_objs);
	/* each traced pid's rows (several: every one of them) */
	for (k = 0; k < t->npids; k++)
		usdtkit__unwind_pid(t, t->pids[k]);
	if (!t->npids && t->pid > 0)
		usdtkit__unwind_pid(t, t->pid);
	return 0;
}

/* ---- an object's rows ---- */

static unsigned char pack_kind(const struct usdtkit__cfi_row *r)
{
	static const unsigned char cfa[] = {
		[USDTKIT__CFA_NONE] = USDTKIT_UNW_CFA_NONE,
		[USDTKIT__CFA_SP] = USDTKIT_UNW_CFA_SP,
		[USDTKIT__CFA_FP] = USDTKIT_UNW_CFA_FP,
		[USDTKIT__CFA_PLT] = USDTKIT_UNW_CFA_PLT,
		[USDTKIT__CFA_END] = USDTKIT_UNW_CFA_END,
	};
	static const unsigned char rule[] = {
		[USDTKIT__REG_SAME] = USDTKIT_UNW_SAME,
		[USDTKIT__REG_OFFSET] = USDTKIT_UNW_OFFSET,
		[USDTKIT__REG_UNDEF] = USDTKIT_UNW_UNDEF,
	};

	if (r->cfa >= sizeof(cfa) || r->fp >= sizeof(rule) || r->ra >= sizeof(rule))
		return USDTKIT_UNW_CFA_NONE;
	return cfa[r->cfa] | rule[r->fp] << 3 | rule[r->ra] << 5;
}

/* a saved register's offset in 8-byte units, or false */
static bool off8(uint8_t rule, int32_t off, signed char *out)
{
	*out = 0;
	if (rule != USDTKIT__REG_OFFSET)
		return true;
	if (off % 8 || off / 8 < -128 || off / 8 > 127)
		return false;
	*out = (signed char)(off / 8);
	return true;
}

/* row @r as the program reads it; a rule it cannot hold, a NONE row */
static void pack_row(const struct usdtkit__cfi_row *r, uint64_t base,
		     struct usdtkit_unw_row *out)
{
	memset(out, 0, sizeof(*out));
	out->pc = (uint32_t)(r->pc - base);
	if (!off8(r->fp, r->fp_off, &out->fp_off8) ||
	    !off8(r->ra, r->ra_off, &out->ra_off8))
		return;
	out->cfa_off = r->cfa_off;
	out->kind = pack_kind(r);
	out->flags = r->flags & USDTKIT__CFI_PAC ? USDTKIT_UNW_F_PAC : 0;
}

/* @c's rows into the map, from @o->slot: 0, or -ENOSPC (no room) */
static int put_rows(struct trace_unwind *u, struct unw_object *o,
		    const struct usdtkit__cfi *c)
{
	struct usdtkit_unw_obj v;
	size_t i, n = 0;

	while (n < c->n && c->rows[n].pc - c->rows[0].pc <= UINT32_MAX)
		n++;
	if (!n || u->slots >= USDTKIT_UNW_OBJS || n > u->rows_cap - u->rows_used)
		return -ENOSPC;
	o->base = c->rows[0].pc;
	for (i = 0; i < n; i++)
		pack_row(&c->rows[i], o->base, &u->rows[u->rows_used + i]);
	v.first = (uint32_t)u->rows_used;
	v.n = (uint32_t)n;
	o->slot = (int)u->slots;
	if (bpf_map_update_elem(u->objs_fd, &o->slot, &v, BPF_ANY))
		return -errno;
	u->slots++;
	u->rows_used += n;
	u->counts.rows += n;
	return 0;
}

/* the file of maps line @l, opened through process @pid: its fd or -errno */
static int open_object(int pid, const struct usdtkit__maps_line *l)
{
	char path[4200];
	int err = usdtkit__maps_kpath(pid, l->path, l->start, l->end, path, sizeof(path));

	if (err)
		return err;
	err = open(path, O_RDONLY | O_CLOEXEC);
	return err < 0 ? -errno : err;
}

/* the CFI reader's lines about one object, each naming it */
struct object_log {
	const struct usdtkit_log *to;
	const char *path;
};

static void object_print(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	const struct object_log *ol = ctx;

	usdtkit__log(ol->to, level, "ustack: %s: %s (its frames come from frame "
		     "pointers where its rows are missing)", ol->path, msg);
}

/* Object @o (of @pid's line @l) read: its segments and its rows, if any */
static void read_object(struct usdtkit_trace *t, int pid,
			const struct usdtkit__maps_line *l, struct unw_object *o)
{
	struct trace_unwind *u = t->unw;
	struct object_log ol = { .to = &t->log, .path = l->path };
	struct usdtkit_log lg = { .print = object_print, .ctx = &ol };
	struct usdtkit__cfi c = { 0 };
	uint64_t t0 = clock_mono_ns();
	struct stat st;
	GElf_Ehdr eh;
	Elf *elf = NULL;
	int fd, err;

	o->slot = -1;
	fd = open_object(pid, l);
	if (fd >= 0)
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || fstat(fd, &st) || !gelf_getehdr(elf, &eh) ||
	    gelf_getclass(elf) != ELFCLASS64 ||
	    usdtkit__segments_read(elf, (size_t)st.st_size, &o->segs, &o->nsegs))
		goto out;
	err = usdtkit__cfi_read(elf, eh.e_machine, &c, &lg);
	if (!err && c.n)
		err = put_rows(u, o, &c);
	if (err == -ENOSPC && !u->said_full) {
		trace_err(t, "ustack: no room for the unwind rows of %s (%zu rows, "
			  "%d objects held): its frames come from frame pointers",
			  l->path, u->rows_used, (int)u->slots);
		u->said_full = true;
	}
	u->counts.objects++;
out:
	usdtkit__cfi_free(&c);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	u->counts.read_ns += clock_mono_ns() - t0;
}

static struct unw_object *find_object(struct usdtkit_trace *t, int pid,
				      const struct usdtkit__maps_line *l)
{
	struct trace_unwind *u = t->unw;
	uint64_t dev = (uint64_t)l->dev_major << 32 | l->dev_minor;
	struct unw_object *o;
	size_t i;

	for (i = 0; i < u->nobjs; i++)
		if (u->objs[i].ino == l->inode && u->objs[i].dev == dev)
			return &u->objs[i];
	o = realloc(u->objs, (u->nobjs + 1) * sizeof(*o));
	if (!o)
		return NULL;
	u->objs = o;
	o = &u->objs[u->nobjs++];
	*o = (struct unw_object){ .dev = dev, .ino = l->inode, .slot = -1 };
	read_object(t, pid, l, o);
	return o;
}

/* ---- a process's mappings ---- */

/* what a pc of line @l minus is in @o's rows, or false (no segment) */
static bool mapping_bias(const struct unw_object *o, const struct usdtkit__maps_line *l,
			 unsigned long long *bias)
{
	size_t i;

	for (i = 0; i < o->nsegs; i++) {
		const struct usdtkit_segment *g = &o->segs[i];
		uint64_t lo = g->offset & ~0xfffull;

		if (!(g->flags & PF_X) || l->offset < lo || l->offset >= g->offset + g->filesz)
			continue;
		/* the load bias: where the line's first byte is, minus the
		 * vaddr the file gives that byte */
		*bias = l->start - (l->offset + g->vaddr - g->offset) + o->base;
		return true;
	}
	return false;
}

static int add_key(struct unw_pid *p, const struct usdtkit_unw_key *k)
{
	void *n = realloc(p->keys, (p->n + 1) * sizeof(*p->keys));

	if (!n)
		return -ENOMEM;
	p->keys = n;
	p->keys[p->n++] = *k;
	return 0;
}

/* [start, end) as aligned blocks in the trie, each with @v */
static int put_range(struct trace_unwind *u, struct unw_pid *p, uint64_t start,
		     uint64_t end, const struct usdtkit_unw_map *v)
{
	struct usdtkit_unw_key k = { .pid = (uint32_t)p->pid };
	int err = 0;

	while (!err && start < end) {
		unsigned int bits = start ? (unsigned int)__builtin_ctzll(start) : 64;

		while (bits && (bits >= 64 || start + (1ull << bits) > end ||
				start + (1ull << bits) < start))
			bits--;
		k.prefixlen = 32 + 64 - bits;
		k.addr_be = htobe64(start);
		if (bpf_map_update_elem(u->maps_fd, &k, v, BPF_ANY))
			err = -errno;
		else
			err = add_key(p, &k);
		start += 1ull << bits;
	}
	return err;
}

/* the blocks @p held, out of the trie (before it is read again) */
static void drop_keys(struct trace_unwind *u, struct unw_pid *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		bpf_map_delete_elem(u->maps_fd, &p->keys[i]);
	free(p->keys);
	p->keys = NULL;
	p->n = 0;
}

/*
 * The processes that have exited, out of the trie: under --all, pids
 * come and go. Swept when the list doubles, so each pid is looked at a
 * bounded number of times; a pid reused since is read again at its
 * first stack.
 */
static void sweep_exited(struct trace_unwind *u)
{
	size_t i, n = 0;

	for (i = 0; i < u->npids; i++) {
		if (kill(u->pids[i].pid, 0) && errno == ESRCH) {
			drop_keys(u, &u->pids[i]);
			continue;
		}
		u->pids[n++] = u->pids[i];
	}
	u->npids = n;
	u->sweep_at = n * 2 > 64 ? n * 2 : 64;
}

static struct unw_pid *pid_entry(struct trace_unwind *u, int pid)
{
	struct unw_pid *p;
	size_t i;

	for (i = 0; i < u->npids; i++)
		if (u->pids[i].pid == pid)
			return &u->pids[i];
	if (u->npids >= u->sweep_at)
		sweep_exited(u);
	p = realloc(u->pids, (u->npids + 1) * sizeof(*p));
	if (!p)
		return NULL;
	u->pids = p;
	p = &u->pids[u->npids++];
	*p = (struct unw_pid){ .pid = pid };
	return p;
}

/* line @l of @pid: its object's rows (read once) and its blocks */
static int map_line(struct usdtkit_trace *t, struct unw_pid *p,
		    const struct usdtkit__maps_line *l)
{
	struct unw_object *o = find_object(t, p->pid, l);
	struct usdtkit_unw_map v = { .start = l->start, .end = l->end };

	if (!o)
		return -ENOMEM;
	if (o->slot < 0 || !mapping_bias(o, l, &v.bias))
		return 0;
	v.obj = (unsigned int)o->slot;
	return put_range(t->unw, p, l->start, l->end, &v);
}

/*
 * Process @pid read: the rows of each object whose code it maps (each
 * object once for the trace), and its mappings in the trie, replacing
 * what it had there (a library unloaded, another at its place). A
 * process gone is nothing to do.
 */
void usdtkit__unwind_pid(struct usdtkit_trace *t, int pid)
{
	struct trace_unwind *u = t->unw;
	struct usdtkit__maps_line l;
	char fname[40], *line = NULL;
	size_t lcap = 0;
	struct unw_pid *p;
	int err = 0;
	FILE *f;

	if (!u || !u->rows || pid <= 0)
		return;
	snprintf(fname, sizeof(fname), "/proc/%d/maps", pid);
	f = fopen(fname, "re");
	p = f ? pid_entry(u, pid) : NULL;
	if (!p) {
		if (f)
			fclose(f);
		return;
	}
	u->counts.pid_reads++;
	drop_keys(u, p);
	while (!err && getline(&line, &lcap, f) > 0)
		if (!usdtkit__maps_line_parse(line, &l) && l.exec && l.inode &&
		    l.path[0] == '/')
			err = map_line(t, p, &l);
	/* the trie full (E2BIG, ENOSPC: pids of --all that have not exited) */
	if (err && err != -ENOMEM && !u->said_trie) {
		trace_err(t, "ustack: pid %d: no room for its mappings in the unwinder's "
			  "trie (%d entries): its frames come from frame pointers: %s",
			  pid, USDTKIT_UNW_MAPS, strerror(-err));
		u->said_trie = true;
	}
	free(line);
	fclose(f);
}

/* @pid read already (its first stack needs nothing more) */
bool usdtkit__unwind_known(const struct usdtkit_trace *t, int pid)
{
	size_t i;

	for (i = 0; t->unw && i < t->unw->npids; i++)
		if (t->unw->pids[i].pid == pid)
			return true;
	return false;
}

void usdtkit__unwind_free(struct usdtkit_trace *t)
{
	struct trace_unwind *u = t->unw;
	size_t i;

	if (!u)
		return;
	usdtkit__info(&t->log, "ustack: unwinder: %zu objects read, %zu rows (%zu KiB "
		      "of %zu), %zu process reads, %.1f ms", u->counts.objects,
		      u->counts.rows, u->counts.rows * sizeof(*u->rows) / 1024,
		      u->rows_cap * sizeof(*u->rows) / 1024, u->counts.pid_reads,
		      u->counts.read_ns / 1e6);
	if (u->rows)
		munmap(u->rows, u->rows_cap * sizeof(*u->rows));
	for (i = 0; i < u->nobjs; i++)
		free(u->objs[i].segs);
	for (i = 0; i < u->npids; i++)
		free(u->pids[i].keys);
	free(u->objs);
	free(u->pids);
	free(u);
	t->unw = NULL;
}
