// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit trace: the options of a filter and of the aggregations, read
 * into struct trace_aggs, then handed to the engine as requests (one
 * usdtkit_trace_add_agg() per kind asked for).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "trace.h"
#include "trace_opts.h"

/* "argN" or, if @str_ok, "str(argN)"; 0 or -EINVAL */
static int parse_arg(const char *s, bool str_ok, struct agg_arg *a)
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
	return t->agg.kinds != 0;
}

/* --filter EXPR: checked now, so a bad one is told before anything loads */
static int parse_filter(struct tracer *t, const struct cli_cmd *c, const char *expr)
{
	struct usdtkit_trace_filter_err e = { 0 };

	t->filter = expr;
	if (!usdtkit_trace_filter_check(expr, &e))
		return 0;
	cli_usage_err(c, "bad --filter '%s': column %d: %s", expr,
		      e.col, e.msg);
	return -1;
}

/* --sum/--avg/--min/--max argN: one argument for all four */
static int parse_stat(struct tracer *t, const struct cli_cmd *c, const char *opt,
		      const char *val, enum usdtkit_trace_agg_kind kind)
{
	struct agg_arg a;

	if (parse_arg(val, false, &a)) {
		cli_usage_err(c, "bad %s '%s': want argN, arg0 to arg%d", opt, val,
			      MAX_ARGS - 1);
		return -1;
	}
	if (t->agg.stat_mask && t->agg.stats.arg != a.arg) {
		cli_usage_err(c, "%s arg%u: --sum, --avg, --min and --max "
			      "take the same argument (here arg%u)", opt, a.arg,
			      t->agg.stats.arg);
		return -1;
	}
	t->agg.stats = a;
	t->agg.stat_mask |= AGG_STAT(kind);
	t->agg.kinds |= 1u << kind;
	return 0;
}

static int parse_key(struct tracer *t, const struct cli_cmd *c, const char *val)
{
	static const char *const fixed[] = { "tid", "pid" };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (!strcmp(val, fixed[i])) {
			t->agg.pair = i == 0 ? USDTKIT_TRACE_PAIR_TID : USDTKIT_TRACE_PAIR_PID;
			memset(&t->agg.key, 0, sizeof(t->agg.key));
			return 0;
		}
	}
	if (parse_arg(val, true, &t->agg.key)) {
		cli_usage_err(c, "bad --key '%s': want tid, pid, argN or str(argN)",
			      val);
		return -1;
	}
	t->agg.pair = t->agg.key.str ? USDTKIT_TRACE_PAIR_STR : USDTKIT_TRACE_PAIR_ARG;
	return 0;
}

/* --count-by KEY, --by KEY: the library's parser; one key per trace */
static int parse_key_opt(struct tracer *t, const struct cli_cmd *c, const char *opt,
			 const char *val)
{
	struct usdtkit_trace_key k;
	const char *other = t->agg.count_by ? t->agg.count_by : t->agg.by_text;

	if (usdtkit_trace_key_parse(val, &k)) {
		cli_usage_err(c, "bad key '%s': want argN, str(argN), pid, tid, comm or "
			      "ustack, up to %d joined by ','", val, USDTKIT_TRACE_KEY_PARTS);
		return -1;
	}
	if (other && memcmp(&k, &t->agg.by_key, sizeof(k))) {
		cli_usage_err(c, "%s '%s': one key per trace (here '%s')", opt, val, other);
		return -1;
	}
	t->agg.by_key = k;
	if (!strcmp(opt, "--by"))
		t->agg.by_text = val;
	else
		t->agg.count_by = val;
	return 0;
}

/* --count-by and --hist: an argument each */
static int parse_one(struct tracer *t, const struct cli_cmd *c, const char *opt,
		     const char *val, enum usdtkit_trace_agg_kind kind)
{
	bool str_ok = kind == USDTKIT_TRACE_AGG_COUNT_BY;
	struct agg_arg *a = str_ok ? &t->agg.by : &t->agg.hist;

	if (!parse_arg(val, str_ok, a)) {
		t->agg.kinds |= 1u << kind;
		return 0;
	}
	cli_usage_err(c, "bad %s '%s': want %s, arg0 to arg%d", opt, val,
		      str_ok ? "argN or str(argN)" : "argN", MAX_ARGS - 1);
	return -1;
}

/* the aggregation options; 0 or -1 (told) */
int trace_parse_agg_opt(struct tracer *t, struct cli_parser *p, int key)
{
	const struct cli_cmd *c = p->cmd;
	const char *opt = cli_opt_spelling(p);
	unsigned long long v;
	char *end;

	switch (key) {
	case 'f':
		return parse_filter(t, c, p->val);
	case OPT_COUNTS:
		t->agg.kinds |= 1u << USDTKIT_TRACE_AGG_COUNTS;
		return 0;
	case OPT_COUNT_BY:
		if (parse_key_opt(t, c, "--count-by", p->val))
			return -1;
		t->agg.kinds |= 1u << USDTKIT_TRACE_AGG_COUNT_BY;
		return 0;
	case OPT_BY:
		return parse_key_opt(t, c, "--by", p->val);
	case OPT_STACK_DEPTH:
		if (cli_parse_ulong(p->val, 1, USDTKIT_TRACE_STACK_MAX_FRAMES, &v)) {
			t->agg.stack_depth = (unsigned int)v;
			return 0;
		}
		cli_usage_err(c, "bad %s '%s': want 1 to %d frames", opt, p->val,
			      USDTKIT_TRACE_STACK_MAX_FRAMES);
		return -1;
	case OPT_BY_KEYS:
		if (cli_parse_ulong(p->val, 1, 1u << 24, &t->agg.by_keys))
			return 0;
		cli_usage_err(c, "bad %s '%s': want 1 to %u keys", opt, p->val, 1u << 24);
		return -1;
	case OPT_HIST:
		return parse_one(t, c, opt, p->val, USDTKIT_TRACE_AGG_HIST);
	case OPT_SUM:
	case OPT_AVG:
	case OPT_MIN:
	case OPT_MAX:
		return parse_stat(t, c, opt, p->val,
				  USDTKIT_TRACE_AGG_SUM + (key - OPT_SUM));
	case OPT_TOP:
		if (cli_parse_ulong(p->val, 1, 1000000, &v)) {
			t->agg.top = (unsigned int)v;
			return 0;
		}
		cli_usage_err(c, "bad %s '%s': want 1 to 1000000 rows", opt, p->val);
		return -1;
	case 'i':
		t->agg.interval = strtod(p->val, &end);
		if (!*end && end != p->val && t->agg.interval >= 0.01 &&
		    t->agg.interval <= 1e6)
			return 0;
		cli_usage_err(c, "bad %s '%s': want seconds, 0.01 or more", opt, p->val);
		return -1;
	case OPT_LATENCY:
		/* two values: START is this option's, END the next argument */
		if (p->i >= p->argc) {
			cli_usage_err(c, "%s START END: END is missing", opt);
			return -1;
		}
		t->agg.lat_start = p->val;
		t->agg.lat_end = p->argv[p->i++];
		t->agg.kinds |= 1u << USDTKIT_TRACE_AGG_LATENCY;
		return 0;
	case OPT_KEY:
		return parse_key(t, c, p->val);
	}
	return 0;
}

/* options that mean nothing without others */
int trace_check_agg_opts(struct tracer *t, const struct cli_cmd *c)
{
	struct trace_aggs *g = &t->agg;
	unsigned int valued = (1u << USDTKIT_TRACE_AGG_HIST) | (1u << USDTKIT_TRACE_AGG_LATENCY) |
			      (0xfu << USDTKIT_TRACE_AGG_SUM);

	if (g->count_by)
		g->by_kinds |= 1u << USDTKIT_TRACE_AGG_COUNT_BY;
	if (g->by_text) {
		if (!(g->kinds & valued))
			return cli_usage_err(c, "--by goes with --hist, --sum, --avg, --min, "
					     "--max or --latency"), -1;
		g->by_kinds |= g->kinds & valued;
	}
	for (unsigned int i = 0; t->verbose && t->stack_fp && i < g->by_key.nparts; i++)
		if (g->by_key.parts[i].kind == USDTKIT_TRACE_PART_USTACK)
			trace_err("ustack --stack-fp: code built without frame pointers "
				  "(most distribution binaries) gives short stacks; "
				  "-fno-omit-frame-pointer gives whole ones");
	if ((g->stack_depth || g->by_keys) && !g->by_kinds)
		return cli_usage_err(c, "--stack-depth and --by-keys go with --count-by or --by"), -1;
	if (!t->agg.top)
		t->agg.top = 20;
	else if (!g->by_kinds)
		return cli_usage_err(c, "--top goes with --count-by or --by"), -1;
	if (t->agg.interval > 0 && !trace_agg_any(t) && !t->textfile)
		return cli_usage_err(c, "--interval goes with an aggregation "
				     "(--counts, --count-by, --hist, --sum..., --latency)"), -1;
	if ((t->agg.key.set || t->agg.pair) && !t->agg.lat_start)
		return cli_usage_err(c, "--key goes with --latency"), -1;
	if (t->str_mask && trace_agg_any(t))
		return cli_usage_err(c, "--str prints hits; with an aggregation, "
				     "use --count-by str(argN)"), -1;
	return 0;
}

/* the aggregations asked for, as the engine's requests; latency last:
 * its START and END add probes after the TARGETs' */
int trace_request_aggs(struct tracer *t)
{
	const struct trace_aggs *g = &t->agg;
	unsigned int k;
	int err = 0;

	for (k = 0; !err && k < USDTKIT_TRACE_AGG_LATENCY; k++) {
		const struct agg_arg *a = k == USDTKIT_TRACE_AGG_COUNT_BY ? &g->by :
			k == USDTKIT_TRACE_AGG_HIST ? &g->hist : &g->stats;
		USDTKIT_OPTS(usdtkit_trace_agg_opts, o, .arg = a->arg, .str = a->str,
			     .stack_depth = g->stack_depth, .by_keys = (size_t)g->by_keys,
			     .by = !(g->by_kinds & (1u << k)) ? NULL :
			     k == USDTKIT_TRACE_AGG_COUNT_BY ? g->count_by : g->by_text);

		if (g->kinds & (1u << k))
			err = usdtkit_trace_add_agg(t->tr, k, &o);
	}
	if (!err && g->lat_start) {
		USDTKIT_OPTS(usdtkit_trace_agg_opts, o, .start = g->lat_start,
			     .end = g->lat_end, .pair = g->pair, .arg = g->key.arg,
			     .stack_depth = g->stack_depth, .by_keys = (size_t)g->by_keys,
			     .by = g->by_kinds & (1u << USDTKIT_TRACE_AGG_LATENCY) ? g->by_text : NULL);

		err = usdtkit_trace_add_agg(t->tr, USDTKIT_TRACE_AGG_LATENCY, &o);
	}
	return err;
}
