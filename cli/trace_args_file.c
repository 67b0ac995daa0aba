// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit trace --args-file FILE: the arguments of a trace kept in a
 * file, one per line, so that a service's command line is fixed
 * (usdtkit-exporter@.service: `usdtkit trace --args-file
 * /etc/usdtkit/exporter/%i.conf`) and its trace is the admin's file.
 *
 * A line is one argument, as it is: no quoting, no escapes, no
 * expansion, so a --filter with spaces and quotes needs none. Blanks at
 * either end are dropped; an empty line and one whose first non-blank is
 * '#' are skipped. The option comes first; what follows FILE on the
 * command line comes before the file's arguments, so that an option
 * added there (-v, --mode) applies to the file's TARGETs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "trace_opts.h"

/* a service's arguments, not a data file: bounded */
#define ARGS_FILE_MAX (1024 * 1024)

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* @path read whole into *@buf (NUL-terminated): its size or -errno */
static long read_all(const char *path, char **buf)
{
	FILE *f = fopen(path, "re");
	size_t n;

	*buf = NULL;
	if (!f)
		return -errno;
	*buf = malloc(ARGS_FILE_MAX + 1);
	n = *buf ? fread(*buf, 1, ARGS_FILE_MAX + 1, f) : 0;
	if (!*buf || ferror(f)) {
		fclose(f);
		return *buf ? -EIO : -ENOMEM;
	}
	fclose(f);
	if (n > ARGS_FILE_MAX)
		return -EFBIG;
	(*buf)[n] = 0;
	return (long)n;
}

/*
 * The arguments in @buf (@len bytes), cut in place, appended to @v (room
 * for one per line, counted by the caller): their number, or -1 after
 * saying which line is wrong.
 */
static int split_lines(const char *path, char *buf, size_t len, char **v)
{
	char *line = buf, *end = buf + len, *nl, *s, *e;
	int n = 0, lineno = 0;

	for (; line < end; line = nl + 1) {
		lineno++;
		nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			nl = end;
		if (memchr(line, 0, (size_t)(nl - line))) {
			trace_err("%s: line %d: a NUL byte: not a text file", path, lineno);
			return -1;
		}
		*nl = 0;
		for (s = line; blank(*s); s++)
			;
		for (e = nl; e > s && blank(e[-1]); e--)
			;
		*e = 0;
		if (!*s || *s == '#')
			continue;
		if (!strcmp(s, "--args-file") || !strncmp(s, "--args-file=", 12)) {
			trace_err("%s: line %d: --args-file in an arguments file", path,
				  lineno);
			return -1;
		}
		v[n++] = s;
	}
	return n;
}

/* argv[1] is --args-file FILE (or --args-file=FILE): the file's name,
 * and how many words the option takes; NULL if it is not */
static const char *args_file_opt(int argc, char **argv, int *words)
{
	if (argc > 1 && !strncmp(argv[1], "--args-file=", 12)) {
		*words = 1;
		return argv[1] + 12;
	}
	if (argc > 2 && !strcmp(argv[1], "--args-file")) {
		*words = 2;
		return argv[2];
	}
	return NULL;
}

bool trace_args_file_first(int argc, char **argv)
{
	int words;

	return args_file_opt(argc, argv, &words) != NULL;
}

int trace_args_file_run(int argc, char **argv, int (*run)(int argc, char **argv))
{
	int words, n, rc, i;
	const char *path = args_file_opt(argc, argv, &words);
	char *buf, **v;
	long len;

	if (!path)
		return EXIT_USAGE;
	len = read_all(path, &buf);
	if (len < 0) {
		trace_err("--args-file %s: %s", path,
			  len == -EFBIG ? "larger than 1 MiB" : strerror((int)-len));
		free(buf);
		return EXIT_BAD_INPUT;
	}
	/* argv[0], a line at most per byte + 1, the rest, NULL */
	v = calloc((size_t)len + 2 + (size_t)argc, sizeof(*v));
	if (!v) {
		free(buf);
		return EXIT_BAD_INPUT;
	}
	v[0] = argv[0];
	for (i = 1 + words; i < argc; i++)
		v[i - words] = argv[i];
	n = split_lines(path, buf, (size_t)len, v + argc - words);
	if (n < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	/* no recursion: the file cannot name --args-file */
	rc = run(argc - words + n, v);
out:
	free(v);
	free(buf);
	return rc;
}
