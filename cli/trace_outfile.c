// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit trace -o FILE: where the trace's output goes (the hits, JSON
 * or text, and the aggregation tables), as bpftrace's -o: FILE created
 * or truncated, mode 0666 less the umask. Messages stay on stderr.
 *
 * FILE is opened close-on-exec: the command of -c, forked from trace,
 * never has it once it runs, and keeps trace's own stdout and stderr.
 * Its prints cannot reach FILE whatever it does, where on a shared
 * stdout they were mixed into a --json stream.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"
#include "trace_opts.h"

/* Options that print nothing to FILE: 0, or -1 (told, a usage error). */
int trace_check_out_opts(const struct tracer *t, const struct cli_cmd *c)
{
	if (!t->out_path)
		return 0;
	if (!*t->out_path)
		return cli_usage_err(c, "-o: the FILE is empty"), -1;
	/* the metrics are cumulative and print nothing: an -o that would
	 * stay empty is a mistake, said before anything runs */
	if ((t->serve_addr || t->textfile) && !t->print_hits)
		return cli_usage_err(c, "-o with --serve or --textfile: nothing is "
				     "printed but with --print-hits"), -1;
	if (t->textfile && !strcmp(t->textfile, t->out_path))
		return cli_usage_err(c, "-o and --textfile name the same file"), -1;
	return 0;
}

/*
 * t->out onto stdout, or onto FILE: 0, or -1 (told, one line naming the
 * path). Before the command of -c is forked: a FILE that cannot be
 * written runs nothing. Unbuffered: the writer buffers (64 KiB) and
 * keeps the errno of a write that fails.
 */
int trace_out_open(struct tracer *t)
{
	FILE *f;
	int fd;

	if (!t->out_path) {
		jw_init(t->out, stdout);
		return 0;
	}
	fd = open(t->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY,
		  0666);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		trace_err("cannot write %s: %s", t->out_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	setvbuf(f, NULL, _IONBF, 0);
	jw_init(t->out, f);
	return 0;
}

/* The output flushed: has a write failed? (stdout: a closed pipe, such
 * as | head, ends the trace as Ctrl-C does; FILE: a full disk) */
bool trace_out_broken(struct tracer *t)
{
	FILE *f = t->out->f;

	jw_flush(t->out);
	if (fflush(f) && !t->out->err)
		t->out->err = errno ? errno : EIO;
	return t->out->err || ferror(f);
}

/* At the end: 0, or -1 when FILE was not all written (told). A closed
 * stdout is no error, as before -o. */
int trace_out_close(struct tracer *t)
{
	bool broken = trace_out_broken(t);

	if (!t->out_path)
		return 0;
	if (fclose(t->out->f) && !t->out->err)
		t->out->err = errno ? errno : EIO;
	t->out->f = NULL;
	if (!broken && !t->out->err)
		return 0;
	trace_err("writing %s: %s", t->out_path, strerror(t->out->err ? t->out->err : EIO));
	return -1;
}
