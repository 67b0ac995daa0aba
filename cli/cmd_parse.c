// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit parse --arch NAME [--json] SPEC...
 * One line per SPEC; specs from stdin when none are given. Exit 0 when
 * every argument parsed, 1 when any is invalid, 2 on usage errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "opts.h"

struct parse_opts {
	const struct usdtkit_arch *arch;
	bool json;
	int invalid;	/* specs with an invalid argument */
	struct jw *out;	/* JSON output buffer */
};

/* " NAME NAME ...\n": every architecture of the registry. */
static void print_arch_list(FILE *f)
{
	const struct usdtkit_arch *a;
	size_t i;

	for (i = 0; (a = usdtkit_arch_at(i)); i++)
		fprintf(f, " %s", usdtkit_arch_name(a));
	fputc('\n', f);
}

int parse_all_args(const struct usdtkit_arch *arch, const char *spec,
		   size_t len, struct usdtkit_arg **out)
{
	struct usdtkit_arg *args = NULL;
	size_t cap = 16;
	int n;

	for (;;) {
		struct usdtkit_arg *tmp = realloc(args, cap * sizeof(*args));

		if (!tmp) {
			free(args);
			return -ENOMEM;
		}
		args = tmp;
		n = usdtkit_args_parse(arch, spec, len, args, cap);
		if (n < 0 || (size_t)n <= cap)
			break;
		cap = (size_t)n;
	}
	if (n < 0) {
		free(args);
		return n;
	}
	*out = args;
	return n;
}

static void print_text(const struct parse_opts *o, const char *spec,
		       const struct usdtkit_arg *args, int n)
{
	char buf[512];
	int i;

	printf("%s \"%s\":", usdtkit_arch_name(o->arch), spec);
	if (!n)
		printf(" no arguments");
	for (i = 0; i < n; i++) {
		usdtkit_arg_snprintf(buf, sizeof(buf), o->arch, spec, &args[i]);
		printf("%s [%d] %s", i ? " |" : "", i, buf);
	}
	if (n > USDTKIT_BPF_MAX_ARGS)
		printf(" (%d arguments: BPF reads at most %d)", n,
		       USDTKIT_BPF_MAX_ARGS);
	putchar('\n');
}

static void print_json(const struct parse_opts *o, const char *spec,
		       const struct usdtkit_arg *args, int n)
{
	struct jw *w = o->out;
	int i;

	JW_OPEN(w, JSON_SCHEMA_PARSE);
	JW_LIT(w, ",\"arch\":\"");
	json_raw(w, usdtkit_arch_name(o->arch));
	json_raw(w, "\",\"spec\":");
	json_str(w, spec, strlen(spec));
	json_raw(w, ",\"nargs\":");
	json_i64(w, n);
	if (n > USDTKIT_BPF_MAX_ARGS)
		json_raw(w, ",\"bpf_too_many_args\":true");
	json_raw(w, ",\"args\":[");
	for (i = 0; i < n; i++) {
		if (i)
			jw_putc(w, ',');
		json_arg(w, o->arch, spec, &args[i], i);
	}
	json_raw(w, "]}\n");
	jw_flush(w);
}

static int parse_one_spec(struct parse_opts *o, const char *spec)
{
	struct usdtkit_arg *args;
	int n, i;

	n = parse_all_args(o->arch, spec, strlen(spec), &args);
	if (n < 0) {
		fprintf(stderr, "usdtkit parse: \"%s\": %s\n", spec, strerror(-n));
		o->invalid++;
		return n;
	}
	if (o->json)
		print_json(o, spec, args, n);
	else
		print_text(o, spec, args, n);
	for (i = 0; i < n; i++)
		if (args[i].status == USDTKIT_ARG_INVALID) {
			o->invalid++;
			break;
		}
	free(args);
	return 0;
}

static int parse_stdin(struct parse_opts *o)
{
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, stdin)) >= 0) {
		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		/* a spec never holds a NUL: say so rather than parse a prefix */
		if (strlen(line) != (size_t)len) {
			jw_flush(o->out);
			fprintf(stderr, "usdtkit parse: stdin line %zu: NUL byte at "
				"offset %zu\n", lineno, strlen(line));
			o->invalid++;
			continue;
		}
		parse_one_spec(o, line);
	}
	free(line);
	return 0;
}

/* A spec looks like "-4@..." or "-8f@..."; anything else with '-' is an
 * option. */
static bool looks_like_spec(const char *s)
{
	return s[0] == '-' && s[1] >= '0' && s[1] <= '9';
}

static const struct cli_opt parse_options[] = {
	{ 'a', 'a', "arch", "NAME", "the architecture of the specs (required)" },
	{ 'j', 0, "json", NULL, "one JSON object per spec" },
	{ 'h', 'h', "help", NULL, "print this help and exit" },
	{ 0 }
};

const struct cli_cmd cli_cmd_parse = {
	.name = "parse",
	.fn = cmd_parse,
	.summary = "parse USDT argument specs for an architecture",
	.synopsis = "--arch NAME [--json] [--] SPEC...",
	.description =
		"  Parse USDT argument specs (the Arguments of readelf -n) for\n"
		"  architecture NAME; with no SPEC, read one spec per line from\n"
		"  stdin. Specs may start with '-' (\"-4@%eax\"). Exit 0 when every\n"
		"  argument parsed, 1 when one is invalid, 2 on usage errors.\n",
	.opts = parse_options,
	.operand = "spec",
};

int cmd_parse(int argc, char **argv)
{
	struct parse_opts o = { 0 };
	const char *arch_name = NULL;
	struct cli_parser p;
	char **specs;
	int i, key, nspecs = 0;

	/* every operand is a spec: at most argc of them */
	specs = calloc((size_t)argc, sizeof(*specs));
	if (!specs)
		return EXIT_BAD_INPUT;
	cli_parser_init(&p, &cli_cmd_parse, argc, argv);
	p.is_operand = looks_like_spec;
	while ((key = cli_next(&p)) != CLI_END) {
		if (key == CLI_ERROR)
			goto usage;
		if (key == CLI_OPERAND) {
			specs[nspecs++] = (char *)p.val;
			continue;
		}
		/* "parse --arch x86_64 SPEC --json": is --json a typo'd spec? */
		if (nspecs) {
			cli_usage_err(&cli_cmd_parse, "options go before specs: %s",
				      cli_opt_spelling(&p));
			goto usage;
		}
		switch (key) {
		case 'a':
			arch_name = p.val;
			break;
		case 'j':
			o.json = true;
			break;
		case 'h':
			cli_print_help(stdout, &cli_cmd_parse);
			free(specs);
			return EXIT_OK;
		}
	}
	/* one line, with what would have been right */
	if (!arch_name) {
		fprintf(stderr, "usdtkit parse: --arch is required; known architectures:");
		print_arch_list(stderr);
		goto usage;
	}
	o.arch = usdtkit_arch_by_name(arch_name);
	if (!o.arch) {
		fprintf(stderr, "usdtkit parse: unknown architecture '%s'; known "
			"architectures:", arch_name);
		print_arch_list(stderr);
		goto usage;
	}
	o.out = malloc(sizeof(*o.out));
	if (!o.out) {
		free(specs);
		return EXIT_BAD_INPUT;
	}
	jw_init(o.out, stdout);
	if (!nspecs)
		parse_stdin(&o);
	for (i = 0; i < nspecs; i++)
		parse_one_spec(&o, specs[i]);
	free(o.out);
	free(specs);
	if (!cli_stdout_ok(&cli_cmd_parse))
		return EXIT_BAD_INPUT;
	return o.invalid ? EXIT_BAD_INPUT : EXIT_OK;
usage:
	free(specs);
	return EXIT_USAGE;
}
