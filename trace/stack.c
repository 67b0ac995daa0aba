// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The user stacks of ustack keys, named: each distinct stack (its pid
 * and addresses) once, then kept while a read of the keys still sees it
 * (a sweep after each read drops the others), so a stack is named once
 * however many hits, probes or reads share it.
 *
 * A stack is named at the report, when a short process may be gone with
 * its maps: so each process is kept (its mappings read, its objects
 * opened, by the symbolizer) from its first stack, which the program
 * tells in an event, until a read of the maps finds no key of it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/pid_index.h"
#include "elf/ustack.h"
#include "trace/internal.h"
#include "trace.skel.h"

/* a pid kept for its stacks */
struct stack_pid {
	int pid;			/* first: core/base/pid_index.h */
	unsigned char absent;		/* bit r: the last read of kind r
					 * found no key of it */
	bool seen;			/* by the read under way */
};

struct stack_ent {
	unsigned char *key;		/* pid, n, ips: the key part's bytes */
	size_t klen;
	uint64_t hash;
	char **names;			/* each its text, then the strings
					 * its parts point to */
	struct usdtkit_trace_frame *parts;
	size_t n;
	bool gone;
	unsigned int gen;		/* the last read that saw it */
};

/*
 * Frame @i of a stack named by the symbolizer into @sym: -ESRCH when the
 * process is gone (its maps unreadable), @sym then naming nothing. Every
 * frame past the first is a return address, looked up as one. The
 * symbolizer's tables are made at the first stack and kept for the
 * trace: each object's symbols are read once.
 */
static int frame_sym(struct trace_stacks *c, int pid, uint64_t addr, size_t i,
		     struct usdtkit__sym *sym)
{
	char maps[40];

	if (!c->syms && usdtkit__syms_new(&c->syms))
		c->syms = NULL;
	if (c->syms)
		return usdtkit__syms_lookup(c->syms, pid, addr,
					    i ? USDTKIT__SYMS_RETURN : 0, sym);
	/* no memory for the tables: the address, and gone as the API says */
	memset(sym, 0, sizeof(*sym));
	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	return access(maps, R_OK) ? -ESRCH : 0;
}

/* a copy of @str at *@at, NULL for NULL */
static const char *put_str(char **at, const char *str)
{
	char *p = *at;

	if (!str)
		return NULL;
	strcpy(p, str);
	*at += strlen(str) + 1;
	return p;
}

/*
 * Frame @sym of @addr as its text and parts: one allocation, the text
 * first (e->names[i], what is freed), then the strings of @part.
 */
static int frame_keep(const struct usdtkit__sym *sym, uint64_t addr, char **text,
		      struct usdtkit_trace_frame *part)
{
	char buf[512], *at;
	size_t len;

	usdtkit__sym_text(sym, addr, buf, sizeof(buf));
	len = strlen(buf) + 1;
	len += sym->name ? strlen(sym->name) + 1 : 0;
	len += sym->mangled ? strlen(sym->mangled) + 1 : 0;
	len += sym->object ? strlen(sym->object) + 1 : 0;
	*text = malloc(len);
	if (!*text)
		return -ENOMEM;
	at = *text;
	put_str(&at, buf);
	memset(part, 0, sizeof(*part));
	part->sz = sizeof(*part);
	part->offset = sym->offset;
	part->address = sym->address;
	part->name = put_str(&at, sym->name);
	part->mangled = put_str(&at, sym->mangled);
	part->object = put_str(&at, sym->object);
	return 0;
}

static uint64_t fnv(const unsigned char *b, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

static void ent_free(struct stack_ent *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		free(e->names[i]);
	free(e->names);
	free(e->parts);
	free(e->key);
}

/* the slot of @key in @v (cap a power of 2): its entry or an empty one */
static struct stack_ent *slot(struct stack_ent *v, size_t cap, const unsigned char *key,
			      size_t klen, uint64_t h)
{
	size_t i = h & (cap - 1);

	while (v[i].key && (v[i].hash != h || v[i].klen != klen ||
			    memcmp(v[i].key, key, klen)))
		i = (i + 1) & (cap - 1);
	return &v[i];
}

static int grow(struct trace_stacks *c)
{
	size_t cap = c->cap ? c->cap * 2 : 64, i;
	struct stack_ent *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; i < c->cap; i++)
		if (c->v[i].key)
			*slot(v, cap, c->v[i].key, c->v[i].klen, c->v[i].hash) = c->v[i];
	free(c->v);
	c->v = v;
	c->cap = cap;
	return 0;
}

/* stack @st's frames named, into @e */
static int name_stack(struct usdtkit_trace *t, const struct usdtkit_trace_by_stack *st,
		      size_t n, struct stack_ent *e)
{
	struct usdtkit__sym sym;
	size_t i;

	e->names = calloc(n ? n : 1, sizeof(*e->names));
	e->parts = calloc(n ? n : 1, sizeof(*e->parts));
	if (!e->names || !e->parts)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (frame_sym(&t->stacks, (int)st->pid, st->ip[i], i, &sym) == -ESRCH)
			e->gone = true;
		if (frame_keep(&sym, st->ip[i], &e->names[i], &e->parts[i]))
			return -ENOMEM;
		e->n = i + 1;
	}
	return 0;
}

int usdtkit__stack_names(struct usdtkit_trace *t, const struct usdtkit_trace_by_stack *st,
			 const char *const **names,
			 const struct usdtkit_trace_frame **parts, bool *gone)
{
	struct trace_stacks *c = &t->stacks;
	size_t n = st->n > 0 ? USDTKIT_TRACE_STACK_N((size_t)st->n) : 0, klen;
	struct stack_ent *e, ne = { 0 };
	uint64_t h;
	int err;

	if (n > t->agg.by_key.stack_depth)
		n = t->agg.by_key.stack_depth;
	klen = sizeof(*st) + 8 * n;
	h = fnv((const unsigned char *)st, klen);
	if ((c->n + 1) * 2 > c->cap && (err = grow(c)))
		return err;
	e = slot(c->v, c->cap, (const unsigned char *)st, klen, h);
	if (!e->key) {
		ne.key = malloc(klen);
		err = ne.key ? name_stack(t, st, n, &ne) : -ENOMEM;
		if (err) {
			ent_free(&ne);
			return err;
		}
		memcpy(ne.key, st, klen);
		ne.klen = klen;
		ne.hash = h;
		*e = ne;
		c->n++;
	}
	e->gen = c->gen;
	*names = (const char *const *)e->names;
	*parts = e->parts;
	*gone = e->gone;
	return 0;
}

/*
 * The frames of the stack-id part @part into @st (room for stack_depth
 * frames): looked up in its stack map, whose value is the frames and
 * zeros past the last. An id never changes stack while the trace runs
 * (trace_event.h), so the frames are the ones the hits had.
 */
void usdtkit__stack_get(struct usdtkit_trace *t, const unsigned char *part,
			struct usdtkit_trace_by_stack *st)
{
	const struct usdtkit_trace_by_stack_id *si = (const void *)part;
	unsigned int depth = t->agg.by_key.stack_depth, n = 0;
	struct bpf_map *m = si->id & USDTKIT_TRACE_STACK_ID2 ? t->skel->maps.stacks2 :
		t->skel->maps.stacks;
	uint32_t id = (uint32_t)si->id & ~(uint32_t)USDTKIT_TRACE_STACK_ID2;

	st->pid = si->pid;
	memset(st->ip, 0, 8 * (size_t)depth);
	if (si->id < 0) {
		st->n = si->id;
		return;
	}
	if (bpf_map_lookup_elem(bpf_map__fd(m), &id, st->ip)) {
		st->n = -errno;
		return;
	}
	while (n < depth && st->ip[n])
		n++;
	st->n = (int)n;
}

/* after a read: the stacks it did not see are gone from the maps */
void usdtkit__stack_sweep(struct usdtkit_trace *t)
{
	struct trace_stacks *c = &t->stacks;
	struct stack_ent *old = c->v;
	size_t cap = c->cap, i;

	c->v = NULL;
	c->cap = c->n = 0;
	for (i = 0; i < cap; i++) {
		if (!old[i].key)
			continue;
		if (old[i].gen != c->gen || ((c->n + 1) * 2 > c->cap && grow(c))) {
			ent_free(&old[i]);
			continue;
		}
		*slot(c->v, c->cap, old[i].key, old[i].klen, old[i].hash) = old[i];
		c->n++;
	}
	free(old);
	c->gen++;
}

void usdtkit__stack_free(struct usdtkit_trace *t)
{
	size_t i;

	for (i = 0; i < t->stacks.cap; i++)
		if (t->stacks.v[i].key)
			ent_free(&t->stacks.v[i]);
	free(t->stacks.v);
	free(t->stacks.pids);
	usdtkit__syms_free(t->stacks.syms);
	memset(&t->stacks, 0, sizeof(t->stacks));
}

/* ---- pids kept for their stacks ---- */

bool usdtkit__stack_keyed(const struct usdtkit_trace *t)
{
	const struct trace_key *k = &t->agg.by_key;
	unsigned int i;

	for (i = 0; i < k->nparts; i++)
		if (k->parts[i].kind == USDTKIT_TRACE_BY_USTACK)
			return true;
	return false;
}

/* the index in c->pids where @pid is, or would go (pid first) */
static size_t pid_index(const struct trace_stacks *c, int pid)
{
	return usdtkit__pid_index(c->pids, c->npids, sizeof(*c->pids), pid);
}

static struct stack_pid *find_kept(struct trace_stacks *c, int pid)
{
	size_t i = pid_index(c, pid);

	return i < c->npids && c->pids[i].pid == pid ? &c->pids[i] : NULL;
}

/* @pid in c->pids, no read having missed it yet: 1 new, 0 known, or
 * -ENOMEM */
static int track(struct trace_stacks *c, int pid)
{
	struct stack_pid *p = find_kept(c, pid);
	size_t i;

	if (p) {
		p->absent = 0;
		return 0;
	}
	if (c->npids == c->pids_cap) {
		size_t n = c->pids_cap ? c->pids_cap * 2 : 16;
		void *v = realloc(c->pids, n * sizeof(*c->pids));

		if (!v)
			return -ENOMEM;
		c->pids = v;
		c->pids_cap = n;
	}
	i = pid_index(c, pid);
	memmove(&c->pids[i + 1], &c->pids[i], (c->npids - i) * sizeof(*c->pids));
	c->pids[i] = (struct stack_pid){ .pid = pid };
	c->npids++;
	return 1;
}

/*
 * Has @pid a stack in the keys? The program notes each process in
 * stack_pids before it tells of it, so a process seen exiting is kept
 * only if it has: a tree of many processes without stacks fills nothing.
 */
static bool has_stacks(const struct usdtkit_trace *t, int pid)
{
	unsigned int k = (unsigned int)pid, v;

	return t->skel && !bpf_map__lookup_elem(t->skel->maps.stack_pids, &k, sizeof(k),
						 &v, sizeof(v), 0);
}

int usdtkit__stack_keep(struct usdtkit_trace *t, int pid)
{
	struct trace_stacks *c = &t->stacks;
	int err;

	if (!usdtkit__stack_keyed(t) || pid <= 0 || (!find_kept(c, pid) && !has_stacks(t, pid)))
		return 0;
	if (!c->syms && (err = usdtkit__syms_new(&c->syms)))
		return err;
	err = usdtkit__syms_keep(c->syms, pid);
	if (err == -ENOSPC && !c->full_said) {
		c->full_said = true;
		usdtkit__warn(&t->log, "ustack: more than %d processes with stacks "
			      "in the maps: the others' stacks are named when "
			      "reported, as addresses if they have exited by then",
			      USDTKIT__SYMS_MAX_KEPT);
	}
	if (err == -ESRCH && !find_kept(c, pid))
		usdtkit__debug(&t->log, "ustack: pid %d exited before its mappings "
			       "could be kept", pid);
	if (err)
		return err;
	err = track(c, pid);
	if (err < 0) {
		usdtkit__syms_release(c->syms, pid);
		return err;
	}
	if (err)
		usdtkit__info(&t->log, "ustack: kept the mappings of pid %d, to name "
			      "its stacks after it exits", pid);
	return 0;
}

void usdtkit__stack_seen(struct usdtkit_trace *t, int pid)
{
	struct stack_pid *p = find_kept(&t->stacks, pid);

	if (p)
		p->seen = true;
}

/* the reads the trace's keyed kinds make (bit r: enum stack_read r) */
static unsigned int reads_used(const struct usdtkit_trace *t)
{
	unsigned int k = t->agg.by_key.kinds, m = 0;
	unsigned int by = (1u << USDTKIT_TRACE_AGG_COUNT_BY) | (1u << USDTKIT_TRACE_AGG_SUM) |
			  (1u << USDTKIT_TRACE_AGG_AVG) | (1u << USDTKIT_TRACE_AGG_MIN) |
			  (1u << USDTKIT_TRACE_AGG_MAX);

	if (k & by)
		m |= 1u << STACK_READ_BY;
	if (k & (1u << USDTKIT_TRACE_AGG_HIST))
		m |= 1u << STACK_READ_HIST;
	if (k & (1u << USDTKIT_TRACE_AGG_LATENCY))
		m |= 1u << STACK_READ_LAT;
	return m;
}

/*
 * Pid @i let go: its mappings back in the symbolizer's cache (evicted
 * in their turn), and out of the program's stack_pids, so that a new
 * key of it is told again.
 */
static void let_go(struct usdtkit_trace *t, size_t i)
{
	struct trace_stacks *c = &t->stacks;
	unsigned int pid = (unsigned int)c->pids[i].pid;

	usdtkit__syms_release(c->syms, c->pids[i].pid);
	if (t->skel)
		bpf_map__delete_elem(t->skel->maps.stack_pids, &pid, sizeof(pid), 0);
	memmove(&c->pids[i], &c->pids[i + 1], (c->npids - i - 1) * sizeof(*c->pids));
	c->npids--;
}

/*
 * After a read of kind @r: a kept pid it did not see is marked absent
 * from it, and let go once absent from the last read of every kind the
 * trace makes (a kind it never read keeps it, as does a new key: the
 * program tells it again once its entry is gone).
 */
void usdtkit__stack_read_done(struct usdtkit_trace *t, enum stack_read r)
{
	struct trace_stacks *c = &t->stacks;
	unsigned int used = reads_used(t);
	size_t i = 0;

	while (i < c->npids) {
		struct stack_pid *p = &c->pids[i];

		if (p->seen)
			p->absent &= (unsigned char)~(1u << r);
		else
			p->absent |= (unsigned char)(1u << r);
		p->seen = false;
		if (used && (p->absent & used) == used)
			let_go(t, i);
		else
			i++;
	}
}
