// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The keys of the keyed aggregations (--count-by KEY, --by KEY): a key is
 * up to USDTKIT_TRACE_BY_PARTS parts, each one kind of key_kinds[]: its
 * name, its bytes in the maps' key, what the program needs to fill it,
 * and how it is read back. How the kernel fills each is trace.bpf.c's
 * by_part(); how the CLI prints each, cli/trace_agg_print.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/internal.h"

_Static_assert((int)USDTKIT_TRACE_PART_ARG == USDTKIT_TRACE_BY_ARG &&
	       (int)USDTKIT_TRACE_PART_STR == USDTKIT_TRACE_BY_STR &&
	       (int)USDTKIT_TRACE_PART_PID == USDTKIT_TRACE_BY_PID &&
	       (int)USDTKIT_TRACE_PART_TID == USDTKIT_TRACE_BY_TID &&
	       (int)USDTKIT_TRACE_PART_COMM == USDTKIT_TRACE_BY_COMM &&
	       (int)USDTKIT_TRACE_PART_USTACK == USDTKIT_TRACE_BY_USTACK &&
	       (int)USDTKIT_TRACE_PART_CGROUP == USDTKIT_TRACE_BY_CGROUP &&
	       USDTKIT_TRACE_KEY_PARTS == USDTKIT_TRACE_BY_PARTS &&
	       USDTKIT_TRACE_STACK_MAX_FRAMES == USDTKIT_TRACE_STACK_MAX &&
	       USDTKIT_TRACE_STACK_DEPTH == USDTKIT_TRACE_STACK_DEFAULT, "key kinds");

/* bytes of a string key: str_len, one byte more (so that a longer
 * string is seen as cut: read.c) and the NUL, in whole words */
unsigned int usdtkit__key_str_bytes(const struct usdtkit_trace *t)
{
	unsigned int n = (t->str_len + 2 + 7) & ~7u;

	return n > USDTKIT_TRACE_KEY_STR_MAX ? USDTKIT_TRACE_KEY_STR_MAX : n;
}

struct key_kind {
	const char *name;
	bool takes_arg;
	/* its bytes in the key (a multiple of 8) */
	unsigned int (*size)(const struct usdtkit_trace *t);
	unsigned int need;		/* USDTKIT_TRACE_NEED_* */
	/* the part at @b into @out */
	void (*decode)(const struct usdtkit_trace *t, const unsigned char *b,
		       struct usdtkit_trace_key_value *out);
};

static unsigned int size_u64(const struct usdtkit_trace *t) { (void)t; return 8; }
static unsigned int size_comm(const struct usdtkit_trace *t) { (void)t; return 16; }

static unsigned int size_str(const struct usdtkit_trace *t)
{
	return sizeof(struct usdtkit_trace_by_str) + usdtkit__key_str_bytes(t);
}

static unsigned int size_stack(const struct usdtkit_trace *t)
{
	if (t->agg.by_key.stack_ids)
		return sizeof(struct usdtkit_trace_by_stack_id);
	return sizeof(struct usdtkit_trace_by_stack) + 8 * t->agg.by_key.stack_depth;
}

static void decode_u64(const struct usdtkit_trace *t, const unsigned char *b,
		       struct usdtkit_trace_key_value *out)
{
	(void)t;
	memcpy(&out->value, b, sizeof(out->value));
}

static void decode_comm(const struct usdtkit_trace *t, const unsigned char *b,
			struct usdtkit_trace_key_value *out)
{
	(void)t;
	out->str = (const char *)b;
	out->str_len = strnlen(out->str, 16);
}

/* str(): read.c's canonical form (read late, cut) is already in @b:
 * val 0 the string, 1 a bad pointer, KEY_LATE unread; pad: 1 cut, 2 late,
 * 3 both */
static void decode_str(const struct usdtkit_trace *t, const unsigned char *b,
		       struct usdtkit_trace_key_value *out)
{
	const struct usdtkit_trace_by_str *s = (const void *)b;

	out->cut = s->pad & 1;
	out->late = s->pad & 2;
	out->unread = s->val == USDTKIT_TRACE_KEY_LATE;
	if (s->val)
		return;
	out->str = s->str;
	out->str_len = strnlen(s->str, usdtkit__key_str_bytes(t));
}

/* cgroup: its id, and its path when it still has one */
static void decode_cgroup(const struct usdtkit_trace *t, const unsigned char *b,
			  struct usdtkit_trace_key_value *out)
{
	memcpy(&out->value, b, sizeof(out->value));
	out->str = usdtkit__cgroup_path(t->agg.by_key.cgroups, out->value);
	out->str_len = out->str ? strlen(out->str) : 0;
}

static void decode_stack(const struct usdtkit_trace *t, const unsigned char *b,
			 struct usdtkit_trace_key_value *out)
{
	const struct usdtkit_trace_by_stack *s = (const void *)b;
	const struct usdtkit_trace_by_stack_id *si = (const void *)b;

	/* the frames are in the stack map: by.c reads them (stack.c) */
	if (t->agg.by_key.stack_ids) {
		out->value = si->pid;
		out->stack_err = si->id < 0 ? si->id : 0;
		out->nframes = 0;
		out->ips = NULL;
		return;
	}
	out->value = s->pid;
	out->stack_err = s->n < 0 ? s->n : 0;
	out->nframes = s->n > 0 ? USDTKIT_TRACE_STACK_N((size_t)s->n) : 0;
	if (out->nframes > t->agg.by_key.stack_depth)
		out->nframes = t->agg.by_key.stack_depth;
	out->ips = (const uint64_t *)s->ip;
}

static const struct key_kind key_kinds[USDTKIT_TRACE_BY_NR] = {
	[USDTKIT_TRACE_BY_ARG] = { "arg", true, size_u64, 0, decode_u64 },
	[USDTKIT_TRACE_BY_STR] = { "str", true, size_str, 0, decode_str },
	[USDTKIT_TRACE_BY_PID] = { "pid", false, size_u64, USDTKIT_TRACE_NEED_ID, decode_u64 },
	[USDTKIT_TRACE_BY_TID] = { "tid", false, size_u64, USDTKIT_TRACE_NEED_ID, decode_u64 },
	[USDTKIT_TRACE_BY_COMM] = { "comm", false, size_comm, 0, decode_comm },
	[USDTKIT_TRACE_BY_USTACK] = { "ustack", false, size_stack, USDTKIT_TRACE_NEED_ID,
				      decode_stack },
	[USDTKIT_TRACE_BY_CGROUP] = { "cgroup", false, size_u64, 0, decode_cgroup },
};

const char *usdtkit_trace_part_name(enum usdtkit_trace_part kind)
{
	return (int)kind > 0 && (int)kind < USDTKIT_TRACE_BY_NR ? key_kinds[kind].name : "?";
}

/* one part, [s, e): 0 or -EINVAL */
static int parse_part(const char *s, const char *e, enum usdtkit_trace_part *kind,
		      unsigned int *arg)
{
	size_t len = (size_t)(e - s), n;
	bool str = len > 5 && !strncmp(s, "str(", 4) && e[-1] == ')';
	unsigned int k, v = 0;

	for (k = 1; k < USDTKIT_TRACE_BY_NR; k++) {
		if (!key_kinds[k].takes_arg && strlen(key_kinds[k].name) == len &&
		    !strncmp(s, key_kinds[k].name, len)) {
			*kind = k;
			*arg = 0;
			return 0;
		}
	}
	if (str) {
		s += 4;
		e--;
	}
	if (e - s < 4 || strncmp(s, "arg", 3))
		return -EINVAL;
	for (s += 3, n = 0; s < e; s++, n++) {
		if (*s < '0' || *s > '9' || n >= 2)
			return -EINVAL;
		v = v * 10 + (unsigned int)(*s - '0');
	}
	if (v >= MAX_ARGS)
		return -EINVAL;
	*kind = str ? USDTKIT_TRACE_PART_STR : USDTKIT_TRACE_PART_ARG;
	*arg = v;
	return 0;
}

int usdtkit_trace_key_parse(const char *text, struct usdtkit_trace_key *key)
{
	const char *s = text, *e;

	if (!text || !key)
		return -EINVAL;
	memset(key, 0, sizeof(*key));
	for (;;) {
		while (*s == ' ')
			s++;
		for (e = s; *e && *e != ','; e++)
			;
		while (e > s && e[-1] == ' ')
			e--;
		if (key->nparts == USDTKIT_TRACE_KEY_PARTS || e == s ||
		    parse_part(s, e, &key->parts[key->nparts].kind,
			       &key->parts[key->nparts].arg))
			return -EINVAL;
		key->nparts++;
		while (*e == ' ')
			e++;
		if (!*e)
			return 0;
		if (*e != ',')
			return -EINVAL;
		s = e + 1;
	}
}

/* "pid,str(arg1)" of @k into @buf */
static void key_text(const struct trace_key *k, char *buf, size_t n)
{
	size_t at = 0;
	unsigned int i;

	buf[0] = 0;
	for (i = 0; i < k->nparts && at < n; i++) {
		const struct key_part *p = &k->parts[i];
		const char *sep = i ? "," : "";
		int w = p->kind == USDTKIT_TRACE_BY_STR ?
			snprintf(buf + at, n - at, "%sstr(arg%u)", sep, p->arg) :
			p->kind == USDTKIT_TRACE_BY_ARG ?
			snprintf(buf + at, n - at, "%sarg%u", sep, p->arg) :
			snprintf(buf + at, n - at, "%s%s", sep, key_kinds[p->kind].name);

		at += w > 0 ? (size_t)w : 0;
	}
}

static bool cgroup_part(const struct trace_key *k)
{
	unsigned int i;

	for (i = 0; i < k->nparts; i++)
		if (k->parts[i].kind == USDTKIT_TRACE_BY_CGROUP)
			return true;
	return false;
}

/* the names of a cgroup key's ids; said once where there are none */
static int key_cgroups(struct usdtkit_trace *t, struct trace_key *k)
{
	k->cgroups = usdtkit__cgroups_new();
	if (!k->cgroups)
		return -ENOMEM;
	if (!usdtkit__cgroups_mounted(k->cgroups))
		trace_err(t, "key cgroup: no cgroup2 is mounted (/proc/self/mountinfo): "
			  "each cgroup is shown by its id");
	return 0;
}

int usdtkit__key_set(struct usdtkit_trace *t, const char *opt,
		     const struct usdtkit_trace_key *k, unsigned int depth,
		     size_t entries)
{
	struct trace_key *tk = &t->agg.by_key, nk = { 0 };
	char a[96], b[96];
	unsigned int i;

	if (!k->nparts || k->nparts > USDTKIT_TRACE_KEY_PARTS ||
	    depth > USDTKIT_TRACE_STACK_MAX || entries > (1u << 24)) {
		trace_err(t, "bad %s key: want up to %d parts, a stack depth of 1 to %d, "
			  "and at most %u entries", opt, USDTKIT_TRACE_KEY_PARTS,
			  USDTKIT_TRACE_STACK_MAX, 1u << 24);
		return -EINVAL;
	}
	nk.nparts = k->nparts;
	for (i = 0; i < k->nparts; i++) {
		unsigned int kind = k->parts[i].kind;

		if (kind < 1 || kind >= USDTKIT_TRACE_BY_NR || k->parts[i].arg >= MAX_ARGS) {
			trace_err(t, "bad %s key: part %u", opt, i + 1);
			return -EINVAL;
		}
		nk.parts[i].kind = (unsigned char)kind;
		nk.parts[i].arg = key_kinds[kind].takes_arg ? (unsigned char)k->parts[i].arg : 0;
		nk.need |= key_kinds[kind].need;
		nk.str |= kind == USDTKIT_TRACE_BY_STR;
	}
	if (tk->nparts) {
		key_text(tk, a, sizeof(a));
		key_text(&nk, b, sizeof(b));
		if (strcmp(a, b) ||
		    (depth && tk->stack_depth && depth != tk->stack_depth)) {
			trace_err(t, "%s '%s': one key per trace (here '%s')", opt, b, a);
			return -EINVAL;
		}
	} else {
		memcpy(tk->parts, nk.parts, sizeof(nk.parts));
		tk->nparts = nk.nparts;
		tk->need = nk.need;
		tk->str = nk.str;
		if (cgroup_part(tk) && key_cgroups(t, tk))
			return -ENOMEM;
	}
	if (depth)
		tk->stack_depth = depth;
	if (entries)
		tk->entries = entries;
	return 0;
}

/* the parts' offsets and the key's size, once str_len is known */
void usdtkit__key_layout(struct usdtkit_trace *t)
{
	struct trace_key *k = &t->agg.by_key;
	unsigned int off = sizeof(struct usdtkit_trace_by_head), i;

	if (!k->stack_depth)
		k->stack_depth = USDTKIT_TRACE_STACK_DEFAULT;
	if (!k->entries)
		k->entries = USDTKIT_TRACE_BY_KEYS;
	for (i = 0; i < k->nparts; i++) {
		k->parts[i].off = (unsigned short)off;
		k->parts[i].size = (unsigned short)key_kinds[k->parts[i].kind].size(t);
		off += k->parts[i].size;
	}
	k->size = off;
}

int usdtkit__key_check(struct usdtkit_trace *t, const struct probe *p)
{
	const struct trace_key *k = &t->agg.by_key;
	char name[512];
	unsigned int i;

	for (i = 0; i < k->nparts; i++) {
		const struct key_part *kp = &k->parts[i];

		if (!key_kinds[kp->kind].takes_arg)
			continue;
		usdtkit__probe_label(p, name, sizeof(name));
		if (kp->arg >= p->pub.nargs) {
			trace_err(t, "%s: key %s(arg%u): the probe has %d argument%s", name,
				  key_kinds[kp->kind].name, kp->arg, p->pub.nargs,
				  p->pub.nargs == 1 ? "" : "s");
			return -EINVAL;
		}
		if (p->pub.args[kp->arg].is_float) {
			trace_err(t, "%s: key arg%u: a floating-point argument cannot be a key",
				  name, kp->arg);
			return -EINVAL;
		}
	}
	return 0;
}

void usdtkit__key_decode(const struct usdtkit_trace *t, const unsigned char *kb,
			 unsigned int i, bool is_signed,
			 struct usdtkit_trace_key_value *out)
{
	const struct key_part *kp = &t->agg.by_key.parts[i];

	memset(out, 0, sizeof(*out));
	out->kind = kp->kind;
	out->arg = kp->arg;
	out->is_signed = kp->kind == USDTKIT_TRACE_BY_ARG && is_signed;
	key_kinds[kp->kind].decode(t, kb + kp->off, out);
}

int usdtkit_trace_by_key(const struct usdtkit_trace *t, struct usdtkit_trace_key *key)
{
	unsigned int i;

	if (!t || !key)
		return -EINVAL;
	memset(key, 0, sizeof(*key));
	key->nparts = t->agg.by_key.nparts;
	for (i = 0; i < key->nparts; i++) {
		key->parts[i].kind = t->agg.by_key.parts[i].kind;
		key->parts[i].arg = t->agg.by_key.parts[i].arg;
	}
	return 0;
}
