// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit trace: the options that turn hits into in-kernel aggregations
 * (--filter, --counts, --count-by, --hist, --sum/--avg/--min/--max,
 * --latency) -> one struct usdtkit_trace_cfg per probe, written into the
 * generic program's map. The program is never rebuilt: what changes from
 * one command line to the next is data (trace_event.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "opts.h"
#include "trace.h"
#include "trace.skel.h"

/* "argN" or, if @str_ok, "str(argN)"; 0 or -EINVAL */
int trace_agg_parse_arg(const char *s, bool str_ok, struct agg_arg *a)
{
	unsigned long long n;
	char num[8];
	size_t len;

	memset(a, 0, sizeof(*a));
	if (str_ok && !strncmp(s, "str(", 4)) {
		a->str = true;
		s += 4;
	}
	if (strncmp(s, "arg", 3))
		return -EINVAL;
	s += 3;
	len = strspn(s, "0123456789");
	if (!len || len >= sizeof(num) || strcmp(s + len, a->str ? ")" : ""))
		return -EINVAL;
	memcpy(num, s, len);
	num[len] = 0;
	if (!cli_parse_ulong(num, 0, MAX_ARGS - 1, &n))
		return -EINVAL;
	a->arg = (unsigned char)n;
	a->set = true;
	return 0;
}

/* anything but printing every hit */
bool trace_agg_any(const struct tracer *t)
{
	const struct trace_aggs *g = &t->agg;

	return g->counts || g->by.set || g->hist.set || g->stat_mask ||
	       g->lat_start;
}

/* argument @a of probe @p must exist, and be an integer */
static int check_arg(const struct probe *p, const char *opt,
		     const struct agg_arg *a)
{
	char name[512];

	if (!a->set)
		return 0;
	trace_probe_label(p, name, sizeof(name));
	if (a->arg >= p->nargs) {
		trace_err("%s: %s arg%u: the probe has %d argument%s", name, opt,
			  a->arg, p->nargs, p->nargs == 1 ? "" : "s");
		return -EINVAL;
	}
	if (p->args[a->arg].is_float) {
		trace_err("%s: %s arg%u: a floating-point argument cannot be %s",
			  name, opt, a->arg, a->str ? "a string" : "aggregated");
		return -EINVAL;
	}
	return 0;
}

/* --str N: like every other option naming an argument, one the probe
 * does not have is an error, not an argument printed as a number */
static int check_str_args(const struct tracer *t, const struct probe *p)
{
	struct agg_arg a = { .set = true, .str = true };
	int err = 0;

	for (a.arg = 0; !err && a.arg < MAX_ARGS; a.arg++)
		if (t->str_mask & (1u << a.arg))
			err = check_arg(p, "--str", &a);
	return err;
}

/* what operand @o of a filter needs read: arguments into *@args, the
 * pid and tid into *@need */
static void opnd_needs(const struct usdtkit_filter_opnd *o, unsigned int *args,
		       unsigned int *need)
{
	if (o->kind == USDTKIT_FSRC_ARG)
		*args |= 1u << o->arg;
	else if (o->kind == USDTKIT_FSRC_PID || o->kind == USDTKIT_FSRC_TID)
		*need |= USDTKIT_TRACE_NEED_FILTER_ID;
}

static void filter_needs(const struct usdtkit_filter *f, unsigned int *args,
			 unsigned int *need)
{
	unsigned int i;

	for (i = 0; i < f->ninsns && i < USDTKIT_FILTER_MAX_INSNS; i++) {
		opnd_needs(&f->insns[i].l, args, need);
		opnd_needs(&f->insns[i].r, args, need);
	}
}

static int compile_filter(struct tracer *t, const struct probe *p,
			  struct usdtkit_filter *out)
{
	struct filter_err e = { 0 };
	char name[512];

	if (!t->agg.filter)
		return 0;
	if (!trace_filter_compile(t->agg.filter, p->args, p->nargs, out, &e))
		return 0;
	trace_probe_label(p, name, sizeof(name));
	trace_err("--filter '%s': column %d: %s (probe %s)", t->agg.filter_text,
		  e.col, e.msg, name);
	return -EINVAL;
}

/* probe @p's configuration from the options */
static int make_cfg(struct tracer *t, const struct probe *p,
		    struct usdtkit_trace_cfg *c)
{
	const struct trace_aggs *g = &t->agg;
	int err;

	memset(c, 0, sizeof(*c));
	err = compile_filter(t, p, &c->filter);
	if (!err)
		err = check_arg(p, "--count-by", &g->by);
	if (!err)
		err = check_arg(p, "--hist", &g->hist);
	if (!err)
		err = check_arg(p, "--sum/--avg/--min/--max", &g->stats);
	if (!err && p->role)
		err = check_arg(p, "--key", &g->key);
	if (!err)
		err = check_str_args(t, p);
	if (err)
		return err;
	filter_needs(&c->filter, &c->filter_mask, &c->need);
	c->arg_mask = c->filter_mask;
	if (!trace_agg_any(t)) {
		c->flags = USDTKIT_TRACE_EMIT;
		c->arg_mask = ~0u;
		c->need |= USDTKIT_TRACE_NEED_TIME | USDTKIT_TRACE_NEED_ID;
		return 0;
	}
	if (g->counts)
		c->flags |= USDTKIT_TRACE_COUNTS;
	if (g->by.set) {
		c->flags |= USDTKIT_TRACE_COUNT_BY;
		c->by_arg = g->by.arg;
		c->by_str = g->by.str;
		c->arg_mask |= 1u << g->by.arg;
	}
	if (g->hist.set) {
		c->flags |= USDTKIT_TRACE_HIST;
		c->hist_arg = g->hist.arg;
		c->hist_signed = p->args[g->hist.arg].is_signed;
		c->arg_mask |= 1u << g->hist.arg;
	}
	if (g->stat_mask) {
		c->flags |= USDTKIT_TRACE_STATS;
		c->stats_arg = g->stats.arg;
		c->stats_signed = p->args[g->stats.arg].is_signed;
		c->arg_mask |= 1u << g->stats.arg;
	}
	if (p->role) {
		c->flags |= p->role & ROLE_START ? USDTKIT_TRACE_LAT_START :
			USDTKIT_TRACE_LAT_END;
		c->key_kind = g->key_kind;
		c->key_arg = g->key.arg;
		c->need |= USDTKIT_TRACE_NEED_TIME;
		if (g->key_kind == USDTKIT_TRACE_KEY_TID || g->key_kind == USDTKIT_TRACE_KEY_PID)
			c->need |= USDTKIT_TRACE_NEED_ID;
		if (g->key.set)
			c->arg_mask |= 1u << g->key.arg;
	}
	/* a probe that is only a latency's START or END still needs its
	 * entry to say so: flags are never 0 for a configured probe */
	if (!c->flags)
		c->flags = USDTKIT_TRACE_COUNTS;
	return 0;
}

static int set_entries(struct bpf_map *m, size_t n)
{
	if (n > INT32_MAX)
		return -E2BIG;
	return bpf_map__set_max_entries(m, (uint32_t)(n ? n : 1));
}

/* bytes of a string key: --strlen, one byte more (so that a longer
 * string is seen as cut: trace_agg_print.c) and the NUL, in whole words */
static unsigned int key_str_bytes(const struct tracer *t)
{
	unsigned int n = (t->str_len + 2 + 7) & ~7u;

	return n > USDTKIT_TRACE_KEY_STR_MAX ? USDTKIT_TRACE_KEY_STR_MAX : n;
}

/* the maps sized to the probes, the string keys to --strlen */
static int size_agg_maps(struct tracer *t)
{
	struct trace *s = t->skel;
	const struct trace_aggs *g = &t->agg;
	bool str_key = g->by.str || (g->lat_start && g->key_kind == USDTKIT_TRACE_KEY_STR);
	unsigned int ks = str_key ? key_str_bytes(t) : 0;
	int err;

	err = set_entries(s->maps.probe_cfg, t->nprobes);
	if (!err)
		err = set_entries(s->maps.agg_stats, t->nprobes + 1);
	if (!err)
		err = set_entries(s->maps.agg_hist,
				  (t->nprobes + 1) * USDTKIT_TRACE_HIST_SLOTS);
	/* a hash map is allocated whole at creation (10,240 entries, per
	 * CPU for agg_by): one entry when the command does not use it */
	if (!err && !g->by.set)
		err = set_entries(s->maps.agg_by, 1);
	if (!err && !g->lat_start)
		err = set_entries(s->maps.lat_start, 1);
	if (!err && g->by.str)
		err = bpf_map__set_key_size(s->maps.agg_by, 16 + ks);
	if (!err && g->lat_start && g->key_kind == USDTKIT_TRACE_KEY_STR)
		err = bpf_map__set_key_size(s->maps.lat_start, 8 + ks);
	if (err) {
		trace_err("sizing the aggregation maps: %s", strerror(-err));
		return err;
	}
	s->rodata->key_str = ks;
	s->rodata->lat_slot = (unsigned int)t->nprobes;
	return 0;
}

/* the USDTKIT_TRACE_F_* bits of configuration @c */
static unsigned int cfg_features(const struct usdtkit_trace_cfg *c)
{
	unsigned int f = c->flags, i;

	if (c->filter.ninsns)
		f |= USDTKIT_TRACE_F_FILTER;
	for (i = 0; i < c->filter.ninsns && i < USDTKIT_FILTER_MAX_INSNS; i++) {
		if (c->filter.insns[i].op == USDTKIT_FOP_STR_EQ ||
		    c->filter.insns[i].op == USDTKIT_FOP_STR_PREFIX)
			f |= USDTKIT_TRACE_F_FILTER_STR;
	}
	if ((c->flags & USDTKIT_TRACE_COUNT_BY) && c->by_str)
		f |= USDTKIT_TRACE_F_KEY_STR;
	if ((c->flags & (USDTKIT_TRACE_LAT_START | USDTKIT_TRACE_LAT_END)) &&
	    c->key_kind == USDTKIT_TRACE_KEY_STR)
		f |= USDTKIT_TRACE_F_KEY_STR;
	return f;
}

/*
 * What the program verifies: the paths some probe's configuration takes,
 * and no other. The configurations are map data the verifier cannot see,
 * so without this it walks every filter, aggregation and string path.
 */
static unsigned int trace_features(const struct tracer *t)
{
	unsigned int f = t->str_mask ? USDTKIT_TRACE_F_STR : 0;
	size_t i;

	for (i = 0; i < t->nprobes; i++)
		f |= cfg_features(&t->agg.cfgs[i]);
	return f;
}

/* the arguments the probes read: those they have of those their
 * configurations name; all when their sites disagree, or when objects
 * mapped later (-p PROVIDER:NAME) may bring sites with more */
static unsigned int trace_args_used(const struct tracer *t)
{
	unsigned int all = (1u << MAX_ARGS) - 1, used = 0, have;
	size_t i;

	for (i = 0; i < t->nprobes; i++) {
		const struct probe *p = &t->probes[i];

		have = p->mixed || !p->path || p->nargs >= MAX_ARGS ? all :
			(1u << p->nargs) - 1;
		used |= t->agg.cfgs[i].arg_mask & have;
	}
	return used;
}

static unsigned int trace_filter_insns(const struct tracer *t)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < t->nprobes; i++)
		if (t->agg.cfgs[i].filter.ninsns > n)
			n = t->agg.cfgs[i].filter.ninsns;
	return n;
}

/* Before the load: every probe's configuration, checked, the maps
 * sized, and the program's features set. A bad --filter or aggregation
 * argument fails here: exit 2. */
int trace_agg_prepare(struct tracer *t)
{
	size_t i;
	int err;

	t->agg.cfgs = calloc(t->nprobes ? t->nprobes : 1, sizeof(*t->agg.cfgs));
	if (!t->agg.cfgs)
		return -ENOMEM;
	for (i = 0; i < t->nprobes; i++) {
		err = make_cfg(t, &t->probes[i], &t->agg.cfgs[i]);
		if (err)
			return err;
	}
	t->skel->rodata->features = trace_features(t);
	t->skel->rodata->args_used = trace_args_used(t);
	t->skel->rodata->filter_insns = trace_filter_insns(t);
	return size_agg_maps(t);
}

/* After the load, before the attach: the configuration in place before
 * the first hit can look for it. */
int trace_agg_write(struct tracer *t)
{
	size_t i;
	int err;

	for (i = 0; i < t->nprobes; i++) {
		unsigned int k = (unsigned int)i;

		err = bpf_map__update_elem(t->skel->maps.probe_cfg, &k, sizeof(k),
					   &t->agg.cfgs[i], sizeof(t->agg.cfgs[i]), 0);
		if (err) {
			trace_err("writing the probes' configuration: %s",
				  strerror(-err));
			return err;
		}
	}
	return 0;
}

void trace_agg_free(struct tracer *t)
{
	trace_filter_free(t->agg.filter);
	free(t->agg.cfgs);
}
