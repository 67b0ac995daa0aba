// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One event of the ring buffer -> a struct usdtkit_trace_hit, typed by
 * the site that fired and its probe's note. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/internal.h"

/* A string slot: sizeof(struct usdtkit_trace_str), then str_len + 2
 * bytes (the NUL, and one to see a longer string), 8-aligned. */
static size_t slot_size(const struct usdtkit_trace *t)
{
	return sizeof(struct usdtkit_trace_str) + ((t->str_len + 2 + 7) & ~7u);
}

/* the string arguments' slots in the event, and the event's size */
size_t usdtkit__str_layout(struct usdtkit_trace *t)
{
	size_t off = sizeof(struct usdtkit_trace_event);
	int i;

	for (i = 0; i < MAX_ARGS; i++) {
		t->str_off[i] = 0;
		if (!(t->str_mask & (1u << i)))
			continue;
		/* at most 144 + 12 * 4112 bytes: fits the u16 offsets */
		t->str_off[i] = (unsigned short)off;
		off += slot_size(t);
	}
	return off;
}

static const struct usdtkit_trace_type unknown_type = { .size = 8, .is_signed = true };

/*
 * Argument @i of @e: the width and sign of the site that fired, as the
 * program sends them (sites of one probe may differ: an int at one, a
 * long at another); whether it is a float, from the probe's note.
 */
static struct usdtkit_trace_type hit_type(const struct probe *p,
					  const struct usdtkit_trace_event *e, int i)
{
	struct usdtkit_trace_type ty = i < p->pub.nargs ? p->pub.args[i] : unknown_type;

	if (e->types[i] & 15) {
		ty.size = e->types[i] & 15;
		ty.is_signed = e->types[i] & USDTKIT_TRACE_SIGNED;
	}
	return ty;
}

/* The value at the width and sign of its type (the program extended it
 * already; this keeps the two sides honest). */
static void set_value(struct usdtkit_trace_value *v, long long raw)
{
	unsigned int bits = 64 - 8 * (v->type.size & 15);
	uint64_t u = (uint64_t)raw;

	v->raw = u;
	if (v->type.is_float) {
		if (v->type.size == 4) {
			uint32_t w = (uint32_t)u;
			float f;

			memcpy(&f, &w, sizeof(f));
			v->f = f;
		} else {
			memcpy(&v->f, &u, sizeof(v->f));
		}
		return;
	}
	if (bits && bits < 64) {
		if (v->type.is_signed)
			u = (uint64_t)((int64_t)(u << bits) >> bits);
		else
			u &= ~0ull >> bits;
	}
	v->u = u;
}

/*
 * A string the program could not read, read now from the process
 * (late.c), into the argument's buffer: where the program was not loaded
 * to fault pages in, and on a pointer past the first page. Its length as
 * the program would have said it, or the program's error.
 */
static long late_str(struct usdtkit_trace *t, const struct usdtkit_trace_event *e,
		     int i, long err, const char **data)
{
	size_t size = t->str_len + 2;
	long n;

	if (t->cold_read || (uint64_t)e->args[i] < 4096)
		return err;
	if (!t->late_buf[i])
		t->late_buf[i] = malloc(size);
	if (!t->late_buf[i])
		return err;
	n = usdtkit__late_read((int)e->pid, (uint64_t)e->args[i], t->late_buf[i], size);
	/* -ESRCH: not a bad pointer, but gone before it could be read */
	if (n < 0)
		return n == -ESRCH ? n : err;
	*data = t->late_buf[i];
	return n;
}

/* argument @i as a string, if it is one and its pointer was read */
static void set_str(struct usdtkit_trace *t, const struct usdtkit_trace_event *e,
		    size_t size, int i, struct usdtkit_trace_value *v)
{
	const struct usdtkit_trace_str *s;
	const char *data;
	size_t n = 0;
	long len;

	if (!t->str_off[i] || (e->err_mask & (1u << i)) ||
	    t->str_off[i] + slot_size(t) > size)
		return;
	s = (const void *)((const char *)e + t->str_off[i]);
	data = s->data;
	len = s->len;
	if (len < 0) {
		len = late_str(t, e, i, len, &data);
		v->str_late = len >= 0;
	}
	if (len < 0) {
		v->str_err = (int)len;
		return;
	}
	if (len > 0) {
		/* len counts the NUL; the slot holds one more byte than kept */
		n = (size_t)len - 1;
		if (n > t->str_len) {
			n = t->str_len;
			v->str_cut = true;
		}
		n = strnlen(data, n);
	}
	v->str = data;
	v->str_len = n;
}

static void decode(struct usdtkit_trace *t, const struct probe *p,
		   const struct usdtkit_trace_event *e, size_t size,
		   struct usdtkit_trace_hit *h)
{
	int i;

	memset(h, 0, sizeof(*h));
	h->probe = (size_t)(e->cookie - 1);
	h->pid = e->pid;
	h->tid = e->tid;
	h->ts_ns = e->ts_ns;
	h->nargs = e->nargs < MAX_ARGS ? e->nargs : MAX_ARGS;
	h->err = e->err;
	for (i = 0; i < e->nargs && i < MAX_ARGS; i++) {
		struct usdtkit_trace_value *v = &h->args[i];

		v->type = hit_type(p, e, i);
		v->ok = !(e->err_mask & (1u << i));
		set_value(v, e->args[i]);
		set_str(t, e, size, i, v);
	}
}

int usdtkit__on_event(void *ctx, void *data, size_t size)
{
	struct usdtkit_trace *t = ctx;
	const struct usdtkit_trace_event *e = data;
	struct usdtkit_trace_hit h;
	bool undecided = false;
	struct probe *p;

	if (size < sizeof(*e))
		return 0;
	/* a loader says its process mapped objects: where no tracer
	 * holds the thread (--all holds none), read it now (else the
	 * tracer says it) */
	if (e->flags & USDTKIT_TRACE_EV_MAPPED) {
		if (!t->follow.hold || t->all)
			usdtkit__follow_mapped(t, (int)e->pid);
		return 0;
	}
	/* not a hit: a process whose stacks are in keys, kept now */
	if (e->flags & USDTKIT_TRACE_EV_STACK_PID) {
		usdtkit__stack_keep(t, (int)e->pid);
		if (!usdtkit__unwind_known(t, (int)e->pid))
			usdtkit__unwind_pid(t, (int)e->pid);
		return 0;
	}
	if (e->ts_ns < t->start_ns)
		return 0;
	/* the cookie is the probe's index + 1; anything else is not ours */
	if (e->cookie < 1 || (unsigned long long)e->cookie > t->nprobes)
		return 0;
	/* kept by the kernel for a filter string it could not read: the
	 * filter decides now, on the strings read late */
	if ((e->flags & USDTKIT_TRACE_EV_UNDECIDED) &&
	    !usdtkit__late_filter(t, (size_t)(e->cookie - 1), e, &undecided)) {
		t->late_dropped++;
		return 0;
	}
	p = &t->probes[e->cookie - 1];
	/* with no aggregation, the only count of a probe's hits (metrics) */
	p->hits++;
	if (!t->on_hit)
		return 0;
	decode(t, p, e, size, &h);
	h.filter_undecided = undecided;
	return t->on_hit(t->hit_ctx, &h);
}
