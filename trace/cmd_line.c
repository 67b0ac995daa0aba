// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit_trace_set_command_line(): a command line split into words
 * here, not by sh -c: the pid that is traced and the file that
 * PROVIDER:NAME targets are resolved in must be those of the command
 * itself, and a shell in between would be neither (it may fork the
 * command instead of exec'ing it). Words are split at blanks; '...',
 * "..." and \ quote as in sh, with no expansion of any kind.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trace/internal.h"

/* Append word @w (@n bytes) to *@argv; 0 or -ENOMEM. */
static int push_word(char ***argv, size_t *argc, const char *w, size_t n)
{
	char **a = realloc(*argv, (*argc + 2) * sizeof(*a));

	if (!a)
		return -ENOMEM;
	*argv = a;
	a[*argc] = strndup(w, n);
	if (!a[*argc])
		return -ENOMEM;
	a[++*argc] = NULL;
	return 0;
}

static void free_argv(char **argv)
{
	char **a;

	for (a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

/*
 * @s split as described above into a NULL-terminated array (malloc'ed);
 * 0, -EINVAL with *@why set (an unterminated quote, no word at all) or
 * -ENOMEM.
 */
static int split_words(const char *s, char ***argvp, const char **why)
{
	size_t len = strlen(s), argc = 0, n;
	char **argv = NULL, *w = malloc(len + 1), q;
	bool in_word;
	int err = 0;

	*argvp = NULL;
	if (!w)
		return -ENOMEM;
	while (!err) {
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			break;
		n = 0;
		in_word = true;
		while (in_word && *s) {
			switch (*s) {
			case ' ': case '\t': case '\n':
				in_word = false;
				continue;
			case '\'': case '"':
				q = *s++;
				while (*s && *s != q) {
					/* in "...", \ quotes only what sh lets it */
					if (q == '"' && *s == '\\' && s[1] &&
					    strchr("\"\\$`", s[1]))
						s++;
					w[n++] = *s++;
				}
				if (!*s) {
					*why = "unterminated quote";
					err = -EINVAL;
					in_word = false;
					continue;
				}
				s++;
				break;
			case '\\':
				if (s[1])
					s++;
				/* fallthrough */
			default:
				w[n++] = *s++;
			}
		}
		if (!err)
			err = push_word(&argv, &argc, w, n);
	}
	free(w);
	if (!err && !argc) {
		*why = "empty command";
		err = -EINVAL;
	}
	if (err) {
		free_argv(argv);
		return err;
	}
	*argvp = argv;
	return 0;
}

int usdtkit_trace_set_command_line(struct usdtkit_trace *t, const char *line)
{
	const char *why = NULL;
	char **argv;
	int err;

	if (!line)
		return -EINVAL;
	err = split_words(line, &argv, &why);
	if (err == -EINVAL)
		trace_err(t, "bad command '%s': %s", line, why);
	if (err)
		return err;
	err = usdtkit_trace_set_command(t, argv);
	free_argv(argv);
	/* -EINVAL now is not the line's fault: a pid or a command is set */
	return err == -EINVAL ? -EBUSY : err;
}

