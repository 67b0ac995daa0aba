// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The program a command's first word names, found as execvp() finds it:
 * for -c CMD (cmd.c), and for the hint of a PROVIDER:NAME target given
 * without -p (target_hint.c). A file of its own: it calls nothing of
 * the engine, so both may call it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "trace/internal.h"

static bool is_exec_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

/*
 * The file execvp() would run for @file (malloc'ed), or NULL with errno:
 * a name with a '/' as it is, else the first executable file of $PATH.
 */
char *usdtkit__cmd_resolve(const char *file)
{
	const char *path = getenv("PATH"), *p, *end;
	char *cand;
	int err = ENOENT;

	if (strchr(file, '/')) {
		if (is_exec_file(file))
			return strdup(file);
		if (!access(file, F_OK))
			errno = EACCES;
		return NULL;
	}
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = end + 1) {
		end = strchrnul(p, ':');
		/* an empty element is the current directory */
		if (asprintf(&cand, "%.*s%s%s", (int)(end - p), p,
			     end == p ? "" : "/", file) < 0)
			return NULL;
		if (is_exec_file(cand))
			return cand;
		if (!access(cand, F_OK))
			err = EACCES;
		free(cand);
		if (!*end)
			break;
	}
	errno = err;
	return NULL;
}
