// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* usdtkit: the command-line front end. One subcommand per file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usdtkit/usdtkit.h>

#include "cli.h"
#include "json.h"

static const struct cli_cmd *const commands[] = {
	&cli_cmd_parse,
#ifdef USDTKIT_CLI_WITH_ELF
	&cli_cmd_list,
#endif
#ifdef USDTKIT_CLI_TRACE
	&cli_cmd_trace,
	&cli_cmd_features,
#endif
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: usdtkit COMMAND [ARGS...]\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-9s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(f, "\nusdtkit help COMMAND (or COMMAND --help): the options of one command\n"
		"usdtkit -V, --version: the version\n");
}

static const struct cli_cmd *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i]->name))
			return commands[i];
	return NULL;
}

static int unknown_command(const char *name)
{
	fprintf(stderr, "usdtkit: unknown command '%s' (usdtkit help lists them)\n",
		name);
	return EXIT_USAGE;
}

#ifdef USDTKIT_CLI_WITH_ELF
/* Every PROVIDER:NAME of a file or a process, once, in note order. */
static int complete_probes(const char *what, const char *arg)
{
	USDTKIT_OPTS(usdtkit_open_opts, oo);
	struct usdtkit_file *f = NULL;
	struct usdtkit_proc *p = NULL;
	size_t i, nobj = 1;

	if (!strcmp(what, "--pid")) {
		p = usdtkit_proc_open(atoi(arg), &oo);
		if (!p)
			return EXIT_BAD_INPUT;
		nobj = usdtkit_proc_object_count(p);
	} else {
		f = usdtkit_file_open(arg, &oo);
		if (!f)
			return EXIT_BAD_INPUT;
	}
	for (i = 0; i < nobj; i++) {
		const struct usdtkit_file *o = p ? usdtkit_proc_object(p, i) : f;
		const struct usdtkit_site *s = NULL, *t;

		while ((s = usdtkit_file_next_site(o, s, NULL, NULL))) {
			/* a probe of many sites is one candidate */
			for (t = NULL; (t = usdtkit_file_next_site(o, t, NULL, NULL)) != s;)
				if (!strcmp(usdtkit_site_provider(t), usdtkit_site_provider(s)) &&
				    !strcmp(usdtkit_site_name(t), usdtkit_site_name(s)))
					break;
			if (t == s)
				printf("%s:%s\n", usdtkit_site_provider(s),
				       usdtkit_site_name(s));
		}
	}
	if (p)
		usdtkit_proc_close(p);
	usdtkit_file_close(f);
	return EXIT_OK;
}
#endif

/*
 * `usdtkit __complete WHAT [ARG]`, for the shell completions (not
 * documented for people): the lists come from the tables the commands
 * parse with and from the arch registry, never from a copy in a script.
 *   commands          one command per line
 *   options CMD       SHORT LONG ARG per line, tab-separated, "-" for none
 *   operand CMD       what CMD's positional arguments are (file, target, spec)
 *   arches            one architecture per line
 *   probes FILE       PROVIDER:NAME of FILE; probes --pid PID: of a process
 */
static int complete(int argc, char **argv)
{
	const struct cli_cmd *c;
	const struct cli_opt *o;
	size_t i;

	if (argc < 2)
		return EXIT_USAGE;
	if (!strcmp(argv[1], "commands")) {
		for (i = 0; i < NCOMMANDS; i++)
			printf("%s\n", commands[i]->name);
		printf("help\n");
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "arches")) {
		const struct usdtkit_arch *a;

		for (i = 0; (a = usdtkit_arch_at(i)); i++)
			printf("%s\n", usdtkit_arch_name(a));
		return EXIT_OK;
	}
	if ((!strcmp(argv[1], "options") || !strcmp(argv[1], "operand")) && argc > 2) {
		c = find_command(argv[2]);
		if (!c)
			return EXIT_USAGE;
		if (!strcmp(argv[1], "operand")) {
			printf("%s\n", c->operand ? c->operand : "-");
			return EXIT_OK;
		}
		for (o = c->opts; o->key; o++) {
			if (o->short_name)
				printf("-%c\t", o->short_name);
			else
				printf("-\t");
			printf("%s%s\t%s\n", o->long_name ? "--" : "-",
			       o->long_name ? o->long_name : "",
			       o->arg ? o->arg : "-");
		}
		return EXIT_OK;
	}
#ifdef USDTKIT_CLI_WITH_ELF
	if (!strcmp(argv[1], "probes") && argc > 2)
		return complete_probes(argv[2], argc > 3 ? argv[3] : argv[2]);
#endif
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const struct cli_cmd *c;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version") ||
	    !strcmp(argv[1], "version")) {
		/* the library's own version: a static CLI carries it, a
		 * dynamic one reports the library it runs with */
		printf("usdtkit %s\n", usdtkit_version_string());
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "__complete"))
		return complete(argc - 1, argv + 1);
	/* "help CMD" is "CMD --help", as with git and bpftool */
	if (!strcmp(argv[1], "help") && argc > 2) {
		c = find_command(argv[2]);
		if (!c)
			return unknown_command(argv[2]);
		cli_print_help(stdout, c);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (argv[1][0] == '-') {
		fprintf(stderr, "usdtkit: unknown option '%s' (usdtkit help)\n", argv[1]);
		return EXIT_USAGE;
	}
	/* --json-u64-strings, for every command with --json (cli/json.c) */
	json_take_opts(argc - 1, argv + 1);
	c = find_command(argv[1]);
	if (!c)
		return unknown_command(argv[1]);
	return c->fn(argc - 1, argv + 1);
}
