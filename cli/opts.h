/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One option table per subcommand. The table is the single source of
 * what a command accepts: its parser reads it, --help prints it, and
 * `usdtkit __complete` hands it to the shell completions and the man
 * page test, so none of them keeps a list of its own that could drift.
 */
#ifndef USDTKIT_CLI_OPTS_H
#define USDTKIT_CLI_OPTS_H

#include <stdbool.h>
#include <stdio.h>

struct cli_opt {
	int key;		/* what cli_next() returns; 0 ends a table */
	char short_name;	/* 'p' for -p; 0: none */
	const char *long_name;	/* "pid" for --pid; NULL: none */
	const char *arg;	/* the value's name ("PID"); NULL: a flag */
	const char *help;	/* one line in --help */
};

struct cli_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;	/* one line in `usdtkit --help` */
	const char *synopsis;	/* after "usage: usdtkit NAME " */
	const char *description; /* paragraphs, each line indented by two */
	const struct cli_opt *opts;
	/* what a positional argument completes to: "file", "target",
	 * "spec" or NULL (see completion/) */
	const char *operand;
};

/* cli_next() results besides an option's key (keys are > 0) */
#define CLI_OPERAND 0	/* p->val is a positional argument */
#define CLI_END (-1)	/* no more arguments */
#define CLI_ERROR (-2)	/* a usage error, already reported on one line */

struct cli_parser {
	const struct cli_cmd *cmd;
	int argc;
	char **argv;
	int i;			/* the next argument */
	bool opts_done;		/* "--" was seen: the rest are operands */
	const char *val;	/* the option's value, or the operand */
	const struct cli_opt *opt; /* the option just returned */
	/* arguments that start with '-' and yet are operands ("-4@%eax") */
	bool (*is_operand)(const char *arg);
};

void cli_parser_init(struct cli_parser *p, const struct cli_cmd *cmd,
		     int argc, char **argv);
int cli_next(struct cli_parser *p);
/* How the option just returned was spelled: "--count" or "-c". */
const char *cli_opt_spelling(const struct cli_parser *p);

/* "usdtkit CMD: " then the message, one line, on stderr */
__attribute__((format(printf, 2, 3)))
void cli_usage_err(const struct cli_cmd *cmd, const char *fmt, ...);

void cli_print_help(FILE *f, const struct cli_cmd *cmd);

/* stdout flushed; false after one line saying it could not be written
 * (a full disk): the command failed, exit 1, whatever it printed */
bool cli_stdout_ok(const struct cli_cmd *cmd);

/* Unsigned decimal within [min, max], the whole string; false if not. */
bool cli_parse_ulong(const char *s, unsigned long long min,
		     unsigned long long max, unsigned long long *out);

/* -p's pids, as given by every -p (PID, or PID,PID...), duplicates
 * dropped, in their order */
struct cli_pids {
	int *v;
	size_t n;
};

/*
 * -p @s, its pids appended to @pids: true, or false and a usage error
 * told (a space-separated list, as pidof prints it, is told the forms
 * that work). Free with cli_pids_free().
 */
bool cli_parse_pids(const struct cli_cmd *cmd, const char *s, struct cli_pids *pids);
void cli_pids_free(struct cli_pids *pids);

extern const struct cli_cmd cli_cmd_parse, cli_cmd_list, cli_cmd_trace,
	cli_cmd_features;

#endif
