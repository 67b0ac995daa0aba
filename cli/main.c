// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* usdtkit: the command-line front end. One subcommand per file. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "json.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "parse", cmd_parse, "parse USDT argument specs for an architecture" },
#ifdef USDTKIT_CLI_WITH_ELF
	{ "list", cmd_list, "list the USDT probes of ELF files or a process" },
#endif
#ifdef USDTKIT_CLI_TRACE
	{ "trace", cmd_trace, "print USDT probe hits with their arguments (BPF)" },
	{ "features", cmd_features, "what this kernel offers for tracing, the mode AUTO picks" },
#endif
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: usdtkit COMMAND [ARGS...]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nusdtkit help COMMAND (or COMMAND --help): the options of one command\n"
		"usdtkit --version: the version\n");
}

void print_known_arches(void)
{
	const struct usdtkit_arch *a;
	size_t i;

	fprintf(stderr, "known architectures:");
	for (i = 0; (a = usdtkit_arch_at(i)); i++)
		fprintf(stderr, " %s", usdtkit_arch_name(a));
	fputc('\n', stderr);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version") ||
	    !strcmp(argv[1], "version")) {
		printf("usdtkit %s\n", USDTKIT_CLI_VERSION);
		return EXIT_OK;
	}
	/* "help CMD" is "CMD --help", as with git and bpftool */
	if (!strcmp(argv[1], "help") && argc > 2) {
		char *help_argv[] = { argv[2], "--help", NULL };

		for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[2], commands[i].name))
				return commands[i].fn(2, help_argv);
		fprintf(stderr, "usdtkit: unknown command '%s'\n", argv[2]);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	/* --json-u64-strings, for every command with --json (cli/json.c) */
	json_take_opts(argc - 1, argv + 1);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "usdtkit: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
