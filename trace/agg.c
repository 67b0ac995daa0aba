// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The request (a filter, aggregations, string arguments) -> one struct
 * usdtkit_trace_cfg per probe, written into the generic program's map.
 * The program is never rebuilt: what changes from one trace to the next
 * is data (trace_event.h), and the load-time constants that let the
 * verifier skip what no probe uses.
 *
 * Each kind of aggregation is one entry of agg_kinds[]: its name, the
 * argument it takes, the probe configuration it adds, and the maps it
 * needs. How a kind is read back is read.c's; how it is printed, the
 * CLI's (cli/trace_agg_print.c). docs/ARCHITECTURE.md lists the steps
 * of adding one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "elf/ustack.h"
#include "trace/internal.h"
#include "base/opts.h"
#include "trace.skel.h"

/* probe @p, argument @a of the kind that @opt names: 0 or -EINVAL */
static int check_arg(struct usdtkit_trace *t, const struct probe *p,
		     const char *opt, const struct agg_arg *a);

struct agg_kind {
	const char *name;	/* usdtkit_trace_agg_name(), JSON's "agg" */
	const char *opt;	/* its option, in messages */
	bool takes_arg, str_ok;
	/* where its argument is kept: kinds that share one share it */
	struct agg_arg *(*arg)(struct trace_aggs *g);
	/* what it adds to the configuration of probe @p */
	void (*configure)(const struct trace_aggs *g, const struct probe *p,
			  struct usdtkit_trace_cfg *c);
};

static struct agg_arg *by_arg(struct trace_aggs *g) { return &g->by; }

#define STATS_KINDS ((1u << USDTKIT_TRACE_AGG_SUM) | (1u << USDTKIT_TRACE_AGG_AVG) | \
		     (1u << USDTKIT_TRACE_AGG_MIN) | (1u << USDTKIT_TRACE_AGG_MAX))

/* is kind @k (a bit mask of kinds) aggregated by the trace's key? */
static bool keyed(const struct trace_aggs *g, unsigned int kinds)
{
	return g->by_key.kinds & kinds;
}

/* what building the key adds to probe @p's configuration */
static void cfg_key(const struct trace_aggs *g, struct usdtkit_trace_cfg *c)
{
	unsigned int i;

	for (i = 0; i < g->by_key.nparts; i++)
		if (g->by_key.parts[i].kind == USDTKIT_TRACE_BY_ARG ||
		    g->by_key.parts[i].kind == USDTKIT_TRACE_BY_STR)
			c->arg_mask |= 1u << g->by_key.parts[i].arg;
	c->need |= g->by_key.need;
}
static struct agg_arg *hist_arg(struct trace_aggs *g) { return &g->hist; }
static struct agg_arg *stats_arg(struct trace_aggs *g) { return &g->stats; }

static void cfg_counts(const struct trace_aggs *g, const struct probe *p,
		       struct usdtkit_trace_cfg *c)
{
	(void)g;
	(void)p;
	c->flags |= USDTKIT_TRACE_COUNTS;
}

static void cfg_by(const struct trace_aggs *g, const struct probe *p,
		   struct usdtkit_trace_cfg *c)
{
	(void)p;
	c->flags |= USDTKIT_TRACE_COUNT_BY;
	cfg_key(g, c);
}

static void cfg_hist(const struct trace_aggs *g, const struct probe *p,
		     struct usdtkit_trace_cfg *c)
{
	c->flags |= keyed(g, 1u << USDTKIT_TRACE_AGG_HIST) ? USDTKIT_TRACE_BY_HIST :
		USDTKIT_TRACE_HIST;
	if (keyed(g, 1u << USDTKIT_TRACE_AGG_HIST))
		cfg_key(g, c);
	c->hist_arg = g->hist.arg;
	c->hist_signed = p->pub.args[g->hist.arg].is_signed;
	c->arg_mask |= 1u << g->hist.arg;
}

static void cfg_stats(const struct trace_aggs *g, const struct probe *p,
		      struct usdtkit_trace_cfg *c)
{
	/* keyed: the probe's hits still counted per probe (COUNTS), for
	 * usdtkit_trace_read_stats()' count and the metrics' hits */
	c->flags |= keyed(g, STATS_KINDS) ? USDTKIT_TRACE_BY_STATS | USDTKIT_TRACE_COUNTS :
		USDTKIT_TRACE_STATS;
	if (keyed(g, STATS_KINDS))
		cfg_key(g, c);
	c->stats_arg = g->stats.arg;
	c->stats_signed = p->pub.args[g->stats.arg].is_signed;
	c->arg_mask |= 1u << g->stats.arg;
}

/* START and END probes only: the others of the trace are not timed */
static void cfg_latency(const struct trace_aggs *g, const struct probe *p,
			struct usdtkit_trace_cfg *c)
{
	bool start = p->pub.role & USDTKIT_TRACE_ROLE_START;

	if (!p->pub.role)
		return;
	if (keyed(g, 1u << USDTKIT_TRACE_AGG_LATENCY)) {
		/* the key is taken at START, and carried to its END */
		c->flags |= start ? USDTKIT_TRACE_BY_LAT_START : USDTKIT_TRACE_BY_LAT_END;
		if (start)
			cfg_key(g, c);
	} else {
		c->flags |= start ? USDTKIT_TRACE_LAT_START : USDTKIT_TRACE_LAT_END;
	}
	c->key_kind = g->key_kind;
	c->key_arg = g->key.arg;
	c->need |= USDTKIT_TRACE_NEED_TIME;
	if (g->key_kind == USDTKIT_TRACE_KEY_TID || g->key_kind == USDTKIT_TRACE_KEY_PID)
		c->need |= USDTKIT_TRACE_NEED_ID;
	if (g->key.set)
		c->arg_mask |= 1u << g->key.arg;
}

#define STATS_KIND(NAME) \
	{ NAME, "--sum/--avg/--min/--max", true, false, stats_arg, cfg_stats }

static const struct agg_kind agg_kinds[USDTKIT_TRACE_AGG_NR] = {
	[USDTKIT_TRACE_AGG_COUNTS] = { "counts", "--counts", false, false, NULL, cfg_counts },
	[USDTKIT_TRACE_AGG_COUNT_BY] = { "count_by", "--count-by", true, true, by_arg, cfg_by },
	[USDTKIT_TRACE_AGG_HIST] = { "hist", "--hist", true, false, hist_arg, cfg_hist },
	[USDTKIT_TRACE_AGG_SUM] = STATS_KIND("sum"),
	[USDTKIT_TRACE_AGG_AVG] = STATS_KIND("avg"),
	[USDTKIT_TRACE_AGG_MIN] = STATS_KIND("min"),
	[USDTKIT_TRACE_AGG_MAX] = STATS_KIND("max"),
	[USDTKIT_TRACE_AGG_LATENCY] = { "latency", "--latency", false, false, NULL, cfg_latency },
};

const char *usdtkit_trace_agg_name(enum usdtkit_trace_agg_kind kind)
{
	return (unsigned int)kind < USDTKIT_TRACE_AGG_NR ? agg_kinds[kind].name : "?";
}

bool usdtkit_trace_has_agg(const struct usdtkit_trace *t,
			   enum usdtkit_trace_agg_kind kind)
{
	return (unsigned int)kind < USDTKIT_TRACE_AGG_NR && (t->agg.kinds & (1u << kind));
}

/* anything but handing every hit over */
bool usdtkit__agg_any(const struct usdtkit_trace *t)
{
	return t->agg.kinds != 0;
}

/* the argument of a kind that takes one; kinds that share it agree */
static int set_arg(struct usdtkit_trace *t, const struct agg_kind *k,
		   const struct usdtkit_trace_agg_opts *o)
{
	struct agg_arg *a = k->arg(&t->agg);

	if (o->arg < 0 || o->arg >= MAX_ARGS || (o->str && !k->str_ok)) {
		trace_err(t, "bad %s: argument %d%s", k->opt, o->arg,
			  o->str && !k->str_ok ? " cannot be a string" : "");
		return -EINVAL;
	}
	if (a->set && (a->arg != o->arg || a->str != o->str)) {
		trace_err(t, "%s arg%d: --sum, --avg, --min and --max take the "
			  "same argument (here arg%u)", k->opt, o->arg, a->arg);
		return -EINVAL;
	}
	*a = (struct agg_arg){ .set = true, .str = o->str, .arg = (unsigned char)o->arg };
	return 0;
}

/* --latency START END: their probes, marked (a TARGET may be one too);
 * no probe may be both */
static int add_role(struct usdtkit_trace *t, const char *target, unsigned int role)
{
	size_t i;
	int err;

	t->adding_role = (unsigned char)role;
	err = usdtkit__trace_add_target(t, target);
	t->adding_role = 0;
	for (i = 0; !err && i < t->nprobes; i++) {
		const struct probe *p = &t->probes[i];

		if (p->pub.role != (USDTKIT_TRACE_ROLE_START | USDTKIT_TRACE_ROLE_END))
			continue;
		trace_err(t, "--latency: %s:%s is both START and END", p->provider,
			  p->name);
		return -EINVAL;
	}
	return err;
}

static int set_latency(struct usdtkit_trace *t, const struct usdtkit_trace_agg_opts *o)
{
	static const unsigned int kinds[] = {
		[USDTKIT_TRACE_PAIR_TID] = USDTKIT_TRACE_KEY_TID,
		[USDTKIT_TRACE_PAIR_PID] = USDTKIT_TRACE_KEY_PID,
		[USDTKIT_TRACE_PAIR_ARG] = USDTKIT_TRACE_KEY_ARG,
		[USDTKIT_TRACE_PAIR_STR] = USDTKIT_TRACE_KEY_STR,
	};
	struct trace_aggs *g = &t->agg;
	bool by_arg = o->pair == USDTKIT_TRACE_PAIR_ARG || o->pair == USDTKIT_TRACE_PAIR_STR;
	int err;

	if (!o->start || !o->end || g->lat_start || (unsigned int)o->pair > 3 ||
	    (by_arg && (o->arg < 0 || o->arg >= MAX_ARGS)))
		return -EINVAL;
	g->key_kind = kinds[o->pair];
	if (by_arg)
		g->key = (struct agg_arg){ .set = true, .arg = (unsigned char)o->arg,
					   .str = o->pair == USDTKIT_TRACE_PAIR_STR };
	g->lat_start = strdup(o->start);
	g->lat_end = strdup(o->end);
	if (!g->lat_start || !g->lat_end)
		return -ENOMEM;
	err = add_role(t, o->start, USDTKIT_TRACE_ROLE_START);
	if (!err)
		err = add_role(t, o->end, USDTKIT_TRACE_ROLE_END);
	return err;
}

/* the key of a keyed kind: its text, or COUNT_BY's argN or str(argN) */
static int set_key(struct usdtkit_trace *t, const struct agg_kind *k,
		   enum usdtkit_trace_agg_kind kind, const struct usdtkit_trace_agg_opts *o)
{
	struct usdtkit_trace_key key = { 0 };
	int err;

	if (kind == USDTKIT_TRACE_AGG_COUNTS) {
		trace_err(t, "--counts counts per probe: it takes no key");
		return -EINVAL;
	}
	if (o->by && usdtkit_trace_key_parse(o->by, &key)) {
		trace_err(t, "bad key '%s': want argN, str(argN), pid, tid, comm or "
			  "ustack, up to %d joined by ','", o->by, USDTKIT_TRACE_KEY_PARTS);
		return -EINVAL;
	}
	if (!o->by) {
		key.nparts = 1;
		key.parts[0].kind = o->str ? USDTKIT_TRACE_PART_STR : USDTKIT_TRACE_PART_ARG;
		key.parts[0].arg = (unsigned int)o->arg;
	}
	err = usdtkit__key_set(t, k->opt, &key, o->stack_depth, o->by_keys);
	/* SUM..MAX share their table: keyed one, keyed all */
	if (!err)
		t->agg.by_key.kinds |= (1u << kind) & STATS_KINDS ? STATS_KINDS : 1u << kind;
	return err;
}

int usdtkit_trace_add_agg(struct usdtkit_trace *t, enum usdtkit_trace_agg_kind kind,
			  const struct usdtkit_trace_agg_opts *opts)
{
	struct usdtkit_trace_agg_opts o;
	const struct agg_kind *k;
	int err;

	if ((unsigned int)kind >= USDTKIT_TRACE_AGG_NR || t->prepared)
		return -EINVAL;
	err = usdtkit__opts_copy(&o, usdtkit_trace_agg_opts, opts);
	if (err)
		return err;
	k = &agg_kinds[kind];
	if (k->takes_arg && !(kind == USDTKIT_TRACE_AGG_COUNT_BY && o.by))
		err = set_arg(t, k, &o);
	else if (kind == USDTKIT_TRACE_AGG_LATENCY)
		err = set_latency(t, &o);
	if (!err && (o.by || kind == USDTKIT_TRACE_AGG_COUNT_BY))
		err = set_key(t, k, kind, &o);
	if (!err)
		t->agg.kinds |= 1u << kind;
	return err;
}

/* argument @a of probe @p must exist, and be an integer */
static int check_arg(struct usdtkit_trace *t, const struct probe *p,
		     const char *opt, const struct agg_arg *a)
{
	char name[512];

	if (!a->set)
		return 0;
	usdtkit__probe_label(p, name, sizeof(name));
	if (a->arg >= p->pub.nargs) {
		trace_err(t, "%s: %s arg%u: the probe has %d argument%s", name, opt,
			  a->arg, p->pub.nargs, p->pub.nargs == 1 ? "" : "s");
		return -EINVAL;
	}
	if (p->pub.args[a->arg].is_float) {
		trace_err(t, "%s: %s arg%u: a floating-point argument cannot be %s",
			  name, opt, a->arg, a->str ? "a string" : "aggregated");
		return -EINVAL;
	}
	return 0;
}

/* string arguments of hits: like every other request naming an
 * argument, one the probe does not have is an error, not a number */
static int check_str_args(struct usdtkit_trace *t, const struct probe *p)
{
	struct agg_arg a = { .set = true, .str = true };
	int err = 0;

	for (a.arg = 0; !err && a.arg < MAX_ARGS; a.arg++)
		if (t->str_mask & (1u << a.arg))
			err = check_arg(t, p, "--str", &a);
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

static int compile_filter(struct usdtkit_trace *t, const struct probe *p,
			  struct usdtkit_filter *out)
{
	struct usdtkit_trace_filter_err e = { 0 };
	char name[512];

	if (!t->agg.filter)
		return 0;
	if (!usdtkit__filter_compile(t->agg.filter, p->pub.args, p->pub.nargs, out, &e))
		return 0;
	usdtkit__probe_label(p, name, sizeof(name));
	trace_err(t, "--filter '%s': column %d: %s (probe %s)", t->agg.filter_text,
		  e.col, e.msg, name);
	return -EINVAL;
}

/* every argument the request names exists in probe @p */
static int check_probe(struct usdtkit_trace *t, const struct probe *p,
		       struct usdtkit_trace_cfg *c)
{
	struct trace_aggs *g = &t->agg;
	int err;

	err = compile_filter(t, p, &c->filter);
	if (!err && !keyed(g, 1u << USDTKIT_TRACE_AGG_COUNT_BY))
		err = check_arg(t, p, "--count-by", &g->by);
	/* the key is built at every probe of a keyed kind but LATENCY's,
	 * and at LATENCY's STARTs */
	if (!err && (keyed(g, ~(1u << USDTKIT_TRACE_AGG_LATENCY)) ||
		     (keyed(g, 1u << USDTKIT_TRACE_AGG_LATENCY) &&
		      (p->pub.role & USDTKIT_TRACE_ROLE_START))))
		err = usdtkit__key_check(t, p);
	if (!err)
		err = check_arg(t, p, "--hist", &g->hist);
	if (!err)
		err = check_arg(t, p, "--sum/--avg/--min/--max", &g->stats);
	if (!err && p->pub.role)
		err = check_arg(t, p, "--key", &g->key);
	if (!err)
		err = check_str_args(t, p);
	return err;
}

/* probe @p's configuration from the request */
int usdtkit__agg_cfg(struct usdtkit_trace *t, const struct probe *p,
		     struct usdtkit_trace_cfg *c)
{
	unsigned int k;
	int err;

	memset(c, 0, sizeof(*c));
	err = check_probe(t, p, c);
	if (err)
		return err;
	filter_needs(&c->filter, &c->filter_mask, &c->need);
	c->arg_mask = c->filter_mask;
	if (!usdtkit__agg_any(t)) {
		c->flags = USDTKIT_TRACE_EMIT;
		c->arg_mask = ~0u;
		c->need |= USDTKIT_TRACE_NEED_TIME | USDTKIT_TRACE_NEED_ID;
		return 0;
	}
	for (k = 0; k < USDTKIT_TRACE_AGG_NR; k++)
		if (t->agg.kinds & (1u << k))
			agg_kinds[k].configure(&t->agg, p, c);
	/* a probe that is only a latency's START or END still needs its
	 * entry to say so: flags are never 0 for a configured probe */
	if (!c->flags)
		c->flags = USDTKIT_TRACE_COUNTS;
	return 0;
}

/* Every probe's configuration, checked: a request that does not fit a
 * probe fails here (-EINVAL), before anything is loaded or forked. */
int usdtkit__agg_check(struct usdtkit_trace *t)
{
	size_t i;
	int err;

	free(t->agg.cfgs);
	t->agg.cfgs = calloc(t->nprobes ? t->nprobes : 1, sizeof(*t->agg.cfgs));
	if (!t->agg.cfgs)
		return -ENOMEM;
	for (i = 0; i < t->nprobes; i++) {
		err = usdtkit__agg_cfg(t, &t->probes[i], &t->agg.cfgs[i]);
		if (err)
			return err;
	}
	return 0;
}

static int set_entries(struct bpf_map *m, size_t n)
{
	if (n > INT32_MAX)
		return -E2BIG;
	return bpf_map__set_max_entries(m, (uint32_t)(n ? n : 1));
}

/* the trace's key as the program's by_* constants */
static void key_rodata(struct usdtkit_trace *t)
{
	const struct trace_key *k = &t->agg.by_key;
	struct trace__rodata *ro = t->skel->rodata;
	unsigned int i;

	for (i = 0; i < USDTKIT_TRACE_BY_PARTS; i++) {
		ro->by_kind[i] = i < k->nparts ? k->parts[i].kind : USDTKIT_TRACE_BY_NONE;
		ro->by_arg[i] = i < k->nparts ? k->parts[i].arg : 0;
		ro->by_off[i] = i < k->nparts ? k->parts[i].off : 0;
	}
	ro->stack_depth = k->stack_depth;
}

/*
 * The stack maps of a ustack part keyed by id: stacks with a bucket per
 * key of agg_by, stacks2 with twice that, so that a stack whose bucket
 * in stacks holds another one most likely finds a free bucket there.
 * A stack map's entries are allocated at creation: one of 8 bytes each
 * when no part is a stack id.
 */
static int size_stack_maps(struct usdtkit_trace *t)
{
	const struct trace_key *k = &t->agg.by_key;
	struct trace *s = t->skel;
	bool ustack = false;
	unsigned int i;
	int err;

	for (i = 0; i < k->nparts; i++)
		ustack |= k->parts[i].kind == USDTKIT_TRACE_BY_USTACK;
	/* said before the hits, or the empty stacks would look like a bug */
	if (ustack && !usdtkit_features()->user_stack)
		trace_err(t, "ustack: this kernel walks no user stack (usdtkit "
			  "features: user_stack): every stack has no frames");
	if (!ustack)
		return 0;
	/* a process told per entry (stack.c keeps as many): one evicted
	 * is told again */
	err = set_entries(s->maps.stack_pids, USDTKIT__SYMS_MAX_KEPT);
	if (err || !k->stack_ids)
		return err;
	err = bpf_map__set_value_size(s->maps.stacks, 8 * k->stack_depth);
	if (!err)
		err = bpf_map__set_value_size(s->maps.stacks2, 8 * k->stack_depth);
	if (!err)
		err = set_entries(s->maps.stacks, k->entries);
	if (!err)
		err = set_entries(s->maps.stacks2, 2 * k->entries);
	return err;
}

/* the maps sized to the probes, the string keys to str_len */
static int size_agg_maps(struct usdtkit_trace *t)
{
	struct trace *s = t->skel;
	const struct trace_aggs *g = &t->agg;
	bool by = g->by_key.kinds != 0;
	bool lat = usdtkit_trace_has_agg(t, USDTKIT_TRACE_AGG_LATENCY);
	bool lat_str = lat && g->key_kind == USDTKIT_TRACE_KEY_STR;
	unsigned int ks = (by && g->by_key.str) || lat_str ? usdtkit__key_str_bytes(t) : 0;
	int err;

	err = set_entries(s->maps.probe_cfg, t->nprobes);
	if (!err)
		err = set_entries(s->maps.agg_stats, t->nprobes + 1);
	if (!err)
		err = set_entries(s->maps.agg_hist,
				  (t->nprobes + 1) * USDTKIT_TRACE_HIST_SLOTS);
	/* a hash map is allocated whole at creation (10,240 entries, per
	 * CPU for agg_by): one entry when the trace does not use it */
	if (!err)
		err = set_entries(s->maps.agg_by, by ? g->by_key.entries : 1);
	if (!err)
		err = set_entries(s->maps.agg_by_hist,
				  keyed(g, (1u << USDTKIT_TRACE_AGG_HIST) |
					(1u << USDTKIT_TRACE_AGG_LATENCY)) ?
				  g->by_key.entries : 1);
	if (!err && !lat)
		err = set_entries(s->maps.lat_start, 1);
	if (!err && by)
		err = bpf_map__set_key_size(s->maps.agg_by, g->by_key.size);
	if (!err && by)
		err = bpf_map__set_key_size(s->maps.agg_by_hist, g->by_key.size);
	/* a keyed latency's START keeps its key with its time */
	if (!err && keyed(g, 1u << USDTKIT_TRACE_AGG_LATENCY))
		err = bpf_map__set_value_size(s->maps.lat_start, 8 + g->by_key.size);
	if (!err && lat_str)
		err = bpf_map__set_key_size(s->maps.lat_start, 8 + ks);
	if (!err)
		err = size_stack_maps(t);
	if (err) {
		trace_err(t, "sizing the aggregation maps: %s", strerror(-err));
		return err;
	}
	s->rodata->key_str = ks;
	s->rodata->lat_slot = (unsigned int)t->nprobes;
	key_rodata(t);
	return 0;
}

/* the USDTKIT_TRACE_F_* bits of configuration @c */
static unsigned int cfg_features(const struct usdtkit_trace *t,
				 const struct usdtkit_trace_cfg *c)
{
	unsigned int f = c->flags, i;

	if (c->filter.ninsns)
		f |= USDTKIT_TRACE_F_FILTER;
	for (i = 0; i < c->filter.ninsns && i < USDTKIT_FILTER_MAX_INSNS; i++) {
		if (c->filter.insns[i].op == USDTKIT_FOP_STR_EQ ||
		    c->filter.insns[i].op == USDTKIT_FOP_STR_PREFIX)
			f |= USDTKIT_TRACE_F_FILTER_STR;
	}
	if ((c->flags & USDTKIT_TRACE_BY_ANY & ~USDTKIT_TRACE_BY_LAT_END) &&
	    t->agg.by_key.str)
		f |= USDTKIT_TRACE_F_KEY_STR;
	if ((c->flags & (USDTKIT_TRACE_LAT_START | USDTKIT_TRACE_LAT_END |
			 USDTKIT_TRACE_BY_LAT_START | USDTKIT_TRACE_BY_LAT_END)) &&
	    c->key_kind == USDTKIT_TRACE_KEY_STR)
		f |= USDTKIT_TRACE_F_KEY_STR;
	return f;
}

/*
 * What the program verifies: the paths some probe's configuration takes,
 * and no other. The configurations are map data the verifier cannot see,
 * so without this it walks every filter, aggregation and string path.
 */
static unsigned int trace_features(const struct usdtkit_trace *t)
{
	unsigned int f = t->str_mask ? USDTKIT_TRACE_F_STR : 0;
	size_t i;

	for (i = 0; i < t->nprobes; i++)
		f |= cfg_features(t, &t->agg.cfgs[i]);
	return f;
}

/* the arguments the probes read: those they have of those their
 * configurations name; all when their sites disagree, or when objects
 * mapped later (a pid's PROVIDER:NAME) may bring sites with more */
static unsigned int trace_args_used(const struct usdtkit_trace *t)
{
	unsigned int all = (1u << MAX_ARGS) - 1, used = 0, have;
	size_t i;

	for (i = 0; i < t->nprobes; i++) {
		const struct probe *p = &t->probes[i];

		have = p->pub.mixed || !p->path || p->pub.nargs >= MAX_ARGS ? all :
			(1u << p->pub.nargs) - 1;
		used |= t->agg.cfgs[i].arg_mask & have;
	}
	return used;
}

static unsigned int trace_filter_insns(const struct usdtkit_trace *t)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < t->nprobes; i++)
		if (t->agg.cfgs[i].filter.ninsns > n)
			n = t->agg.cfgs[i].filter.ninsns;
	return n;
}

/*
 * A configuration made after the load (a file replaced under a PATH
 * target: refresh.c) runs in the program as verified: it may take no
 * path, read no argument and run no longer filter than the load allowed.
 */
bool usdtkit__agg_fits(const struct usdtkit_trace *t, const struct probe *p,
		       const struct usdtkit_trace_cfg *c)
{
	const struct trace__rodata *ro = t->skel->rodata;
	unsigned int all = (1u << MAX_ARGS) - 1;
	unsigned int have = p->pub.mixed || p->pub.nargs >= MAX_ARGS ? all :
		(1u << p->pub.nargs) - 1;

	return !(cfg_features(t, c) & ~ro->features) &&
	       !(c->arg_mask & have & ~ro->args_used) &&
	       c->filter.ninsns <= ro->filter_insns;
}

/* Before the load: the maps sized and the program's features set. */
int usdtkit__agg_size(struct usdtkit_trace *t)
{
	unsigned int f = trace_features(t);

	/* usdtkit_trace_by keys a stack by its id; usdtkit_trace_by_str,
	 * which may be sleepable, by its frames (trace_event.h) */
	t->agg.by_key.stack_ids = !(f & STR_FEATURES) && !t->unw;
	usdtkit__key_layout(t);
	t->skel->rodata->features = f;
	t->skel->rodata->args_used = trace_args_used(t);
	t->skel->rodata->filter_insns = trace_filter_insns(t);
	return size_agg_maps(t);
}

/* After the load, before the attach: the configuration in place before
 * the first hit can look for it. */
int usdtkit__agg_write(struct usdtkit_trace *t)
{
	size_t i;
	int err;

	for (i = 0; i < t->nprobes; i++) {
		unsigned int k = (unsigned int)i;

		err = bpf_map__update_elem(t->skel->maps.probe_cfg, &k, sizeof(k),
					   &t->agg.cfgs[i], sizeof(t->agg.cfgs[i]), 0);
		if (err) {
			trace_err(t, "writing the probes' configuration: %s",
				  strerror(-err));
			return err;
		}
	}
	return 0;
}

void usdtkit__agg_free(struct usdtkit_trace *t)
{
	usdtkit__filter_free(t->agg.filter);
	free(t->agg.filter_text);
	free((char *)t->agg.lat_start);
	free((char *)t->agg.lat_end);
	free(t->agg.cfgs);
	usdtkit__cgroups_free(t->agg.by_key.cgroups);
}
