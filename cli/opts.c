// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The option parser every subcommand shares, so that they all spell
 * options, report mistakes and exit the same way: "--name", "--name=V",
 * "--name V", "-x", "-xV", "-x V", "--" ends the options; any usage error
 * is one line naming the option and the problem (exit 2 by the caller).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "opts.h"

void cli_parser_init(struct cli_parser *p, const struct cli_cmd *cmd,
		     int argc, char **argv)
{
	memset(p, 0, sizeof(*p));
	p->cmd = cmd;
	p->argc = argc;
	p->argv = argv;
	p->i = 1;
}

void cli_usage_err(const struct cli_cmd *cmd, const char *fmt, ...)
{
	char msg[1024], line[1200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* one line, with the way to the whole story; what the user typed
	 * (an option's value) escaped, never raw to a terminal */
	snprintf(line, sizeof(line), "usdtkit %s: %s (usdtkit help %s)", cmd->name, msg,
		 cmd->name);
	put_text_line(stderr, line);
}

bool cli_stdout_ok(const struct cli_cmd *cmd)
{
	int err;

	errno = 0;
	err = fflush(stdout) ? errno : 0;
	if (!err && !ferror(stdout))
		return true;
	/* a write that failed before the flush left no errno of its own: an
	 * errno now would be any later call's */
	fprintf(stderr, "usdtkit %s: cannot write the output: %s\n", cmd->name,
		err ? strerror(err) : "a write failed");
	return false;
}

const char *cli_opt_spelling(const struct cli_parser *p)
{
	static char buf[64];

	if (!p->opt)
		return "";
	if (p->opt->long_name)
		snprintf(buf, sizeof(buf), "--%s", p->opt->long_name);
	else
		snprintf(buf, sizeof(buf), "-%c", p->opt->short_name);
	return buf;
}

static const struct cli_opt *find_long(const struct cli_cmd *cmd,
				       const char *name, size_t len)
{
	const struct cli_opt *o;

	for (o = cmd->opts; o->key; o++)
		if (o->long_name && strlen(o->long_name) == len &&
		    !strncmp(o->long_name, name, len))
			return o;
	return NULL;
}

static const struct cli_opt *find_short(const struct cli_cmd *cmd, char c)
{
	const struct cli_opt *o;

	for (o = cmd->opts; o->key; o++)
		if (o->short_name && o->short_name == c)
			return o;
	return NULL;
}

/* The value of option @o: inline (after '=' or the letter) or the next
 * argument, which may itself start with '-' ("--duration -1" is then a
 * bad duration, not a missing one). */
static int take_value(struct cli_parser *p, const struct cli_opt *o,
		      const char *inl, const char *spelled)
{
	p->opt = o;
	if (!o->arg) {
		if (inl) {
			cli_usage_err(p->cmd, "%s takes no value", spelled);
			return CLI_ERROR;
		}
		p->val = NULL;
		return o->key;
	}
	if (inl) {
		p->val = inl;
		return o->key;
	}
	if (p->i >= p->argc) {
		cli_usage_err(p->cmd, "%s needs a value (%s)", spelled, o->arg);
		return CLI_ERROR;
	}
	p->val = p->argv[p->i++];
	return o->key;
}

int cli_next(struct cli_parser *p)
{
	const struct cli_opt *o;
	const char *a, *eq;

	for (;;) {
		if (p->i >= p->argc)
			return CLI_END;
		a = p->argv[p->i++];
		p->opt = NULL;
		if (p->opts_done || a[0] != '-' || !a[1] ||
		    (p->is_operand && p->is_operand(a))) {
			p->val = a;
			return CLI_OPERAND;
		}
		if (!strcmp(a, "--")) {
			p->opts_done = true;
			continue;
		}
		if (a[1] == '-') {
			eq = strchr(a + 2, '=');
			o = find_long(p->cmd, a + 2,
				      eq ? (size_t)(eq - a - 2) : strlen(a + 2));
			if (!o) {
				cli_usage_err(p->cmd, "unknown option '%.*s'",
					      eq ? (int)(eq - a) : (int)strlen(a), a);
				return CLI_ERROR;
			}
			{
				char spelled[64];

				snprintf(spelled, sizeof(spelled), "--%s", o->long_name);
				return take_value(p, o, eq ? eq + 1 : NULL, spelled);
			}
		}
		o = find_short(p->cmd, a[1]);
		if (!o) {
			cli_usage_err(p->cmd, "unknown option '-%c'", a[1]);
			return CLI_ERROR;
		}
		{
			char spelled[3] = { '-', a[1], 0 };

			/* "-p123" is "-p 123"; "-jx" is no flag bundle */
			return take_value(p, o, a[2] ? a + 2 : NULL, spelled);
		}
	}
}

bool cli_parse_ulong(const char *s, unsigned long long min,
		     unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	/* strtoull() takes "-1" and " 1" as numbers: neither is one here */
	if (s[0] < '0' || s[0] > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end || errno == ERANGE || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static bool add_pid(struct cli_pids *pids, int pid)
{
	size_t i;
	int *v;

	for (i = 0; i < pids->n; i++)
		if (pids->v[i] == pid)
			return true;
	v = realloc(pids->v, (pids->n + 1) * sizeof(*v));
	if (!v)
		return false;
	pids->v = v;
	pids->v[pids->n++] = pid;
	return true;
}

/* Is @s pids separated by blanks ("3829 3828", pidof's), and what they
 * would be as -p's forms: "3829,3828" into @commas, "-p 3829 -p 3828"
 * into @opts */
static bool blank_list(const char *s, char *commas, size_t nc, char *opts, size_t no)
{
	unsigned long long v;
	char *copy = strdup(s), *save = NULL, *w;
	size_t words = 0, lc, lo;
	bool ok = copy != NULL;

	commas[0] = opts[0] = 0;
	for (w = copy ? strtok_r(copy, " \t\n", &save) : NULL; ok && w;
	     w = strtok_r(NULL, " \t\n", &save)) {
		ok = cli_parse_ulong(w, 1, INT32_MAX, &v);
		lc = strlen(commas);
		lo = strlen(opts);
		snprintf(commas + lc, nc - lc, "%s%s", words ? "," : "", w);
		snprintf(opts + lo, no - lo, "%s-p %s", words ? " " : "", w);
		words++;
	}
	free(copy);
	return ok && words > 1;
}

bool cli_parse_pids(const struct cli_cmd *cmd, const char *s, struct cli_pids *pids)
{
	char commas[128], opts[160], *copy, *save = NULL, *w;
	unsigned long long v;
	bool ok;

	if (blank_list(s, commas, sizeof(commas), opts, sizeof(opts))) {
		cli_usage_err(cmd, "bad pid '%s': several pids are separated by commas "
			      "(-p %s) or given as %s; pidof -d, NAME prints them so",
			      s, commas, opts);
		return false;
	}
	copy = strdup(s);
	ok = copy && *s && s[strlen(s) - 1] != ',';
	for (w = ok ? strtok_r(copy, ",", &save) : NULL; ok && w;
	     w = strtok_r(NULL, ",", &save))
		ok = cli_parse_ulong(w, 1, INT32_MAX, &v) && add_pid(pids, (int)v);
	/* (",," and a leading comma: strtok_r() skips empty words) */
	ok &= !strstr(s, ",,") && s[0] != ',';
	free(copy);
	if (!ok)
		cli_usage_err(cmd, "bad pid '%s': want PID or PID,PID...", s);
	return ok;
}

void cli_pids_free(struct cli_pids *pids)
{
	free(pids->v);
	pids->v = NULL;
	pids->n = 0;
}

void cli_print_help(FILE *f, const struct cli_cmd *cmd)
{
	const struct cli_opt *o;
	char left[64];

	fprintf(f, "usage: usdtkit %s %s\n%s", cmd->name, cmd->synopsis,
		cmd->description);
	fprintf(f, "\noptions:\n");
	for (o = cmd->opts; o->key; o++) {
		int n = 0;

		if (o->short_name)
			n += snprintf(left + n, sizeof(left) - n, "-%c%s",
				      o->short_name, o->long_name ? ", " : "");
		if (o->long_name)
			n += snprintf(left + n, sizeof(left) - n, "--%s",
				      o->long_name);
		if (o->arg)
			snprintf(left + n, sizeof(left) - n, " %s", o->arg);
		fprintf(f, "  %-28s %s\n", left, o->help);
	}
}
