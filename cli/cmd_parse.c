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

struct parse_opts {
	const struct usdtkit_arch *arch;
	bool json;
	int invalid;	/* specs with an invalid argument */
	struct jw *out;	/* JSON output buffer */
};

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

static void parse_usage(FILE *f)
{
	fprintf(f,
		"usage: usdtkit parse --arch NAME [--json] [--] SPEC...\n"
		"  Parse USDT argument specs (the Arguments of readelf -n) for\n"
		"  architecture NAME; with no SPEC, read one spec per line from\n"
		"  stdin. Specs may start with '-' (\"-4@%%eax\").\n");
}

/* A spec looks like "-4@..." or "-8f@..."; anything else with '-' is an
 * option. */
static bool looks_like_spec(const char *s)
{
	return s[0] == '-' && s[1] >= '0' && s[1] <= '9';
}

int cmd_parse(int argc, char **argv)
{
	struct parse_opts o = { 0 };
	const char *arch_name = NULL;
	int i, first_spec = argc;
	bool end_opts = false;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (end_opts || a[0] != '-' || looks_like_spec(a)) {
			if (first_spec == argc)
				first_spec = i;
			continue;
		}
		if (first_spec != argc) {
			fprintf(stderr, "usdtkit parse: options go before specs: %s\n", a);
			return EXIT_USAGE;
		}
		if (!strcmp(a, "--")) {
			end_opts = true;
		} else if (!strcmp(a, "--json")) {
			o.json = true;
		} else if (!strcmp(a, "--arch") || !strcmp(a, "-a")) {
			if (++i >= argc) {
				parse_usage(stderr);
				return EXIT_USAGE;
			}
			arch_name = argv[i];
		} else if (!strncmp(a, "--arch=", 7)) {
			arch_name = a + 7;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			parse_usage(stdout);
			return EXIT_OK;
		} else {
			fprintf(stderr, "usdtkit parse: unknown option %s\n", a);
			parse_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (!arch_name) {
		fprintf(stderr, "usdtkit parse: --arch is required\n");
		print_known_arches();
		return EXIT_USAGE;
	}
	o.arch = usdtkit_arch_by_name(arch_name);
	if (!o.arch) {
		fprintf(stderr, "usdtkit parse: unknown architecture '%s'\n",
			arch_name);
		print_known_arches();
		return EXIT_USAGE;
	}
	o.out = malloc(sizeof(*o.out));
	if (!o.out)
		return EXIT_BAD_INPUT;
	jw_init(o.out, stdout);
	if (first_spec == argc)
		parse_stdin(&o);
	for (i = first_spec; i < argc; i++)
		parse_one_spec(&o, argv[i]);
	free(o.out);
	return o.invalid ? EXIT_BAD_INPUT : EXIT_OK;
}
