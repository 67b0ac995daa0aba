// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The exposition as a file, for node_exporter's textfile collector: it
 * reads PATH whenever it is scraped, so it must never see half a file.
 * The text goes to a temporary file beside PATH (same directory, so the
 * same file system), then rename() puts it in place at once. The
 * temporary name starts with a dot and does not end in .prom: the
 * collector reads only *.prom, and never this one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/internal.h"

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* "DIR/.BASE.XXXXXX" beside @path */
static char *temp_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0, n = strlen(path) + 10;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%.*s.%s.XXXXXX", (int)dir, path, path + dir);
	return s;
}

static int write_file(const char *path, const char *text, size_t len)
{
	char *tmp = temp_name(path);
	int fd, err;

	if (!tmp)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		free(tmp);
		return -errno;
	}
	/* mkostemp()'s 0600: the collector may run as another user */
	err = fchmod(fd, 0644) ? -errno : write_all(fd, text, len);
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}

int usdtkit_trace_metrics_write(struct usdtkit_trace *t,
				const struct usdtkit_trace_metrics_opts *opts,
				const char *path)
{
	char *text;
	size_t len;
	int err;

	if (!t || !path || !*path)
		return -EINVAL;
	err = usdtkit_trace_metrics(t, opts, &text, &len);
	if (err)
		return err;
	err = write_file(path, text, len);
	free(text);
	if (err)
		trace_err(t, "metrics: writing %s: %s", path, strerror(-err));
	return err;
}
