/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A writer of the Prometheus text exposition format, version 0.0.4, into
 * a growing buffer: what `trace --serve` answers and `--textfile` writes
 * (docs/METRICS.md).
 *
 * Values are exact: a uint64 or int64 is printed in decimal digits, never
 * through a double (a counter past 2^53 would be rounded and could even
 * seem to go down). Only PROM_F64 values are floating point; nanoseconds
 * are written as exact decimal seconds (PROM_NS).
 *
 * Label values are bytes of a traced process (probe names, --count-by
 * keys), not text, so each goes through one reversible rendering before
 * the format's own escaping: core/escape.h's rule for a quoted string,
 * as `usdtkit trace` shows keys on a terminal (a backslash or a double
 * quote gets a backslash, and a control character (C0, DEL, C1) or a
 * byte that is not part of well-formed UTF-8 becomes the four characters
 * \xHH). Printable UTF-8 stays as is. Distinct keys thus stay distinct
 * series; U+FFFD would merge every key that differs only in its bad bytes
 * into one series, which Prometheus then rejects as a duplicate. (The
 * \x is a literal backslash of the value: the format itself knows only
 * \\, \" and \n, and its parsers refuse any other escape.)
 *
 * Errors are sticky: the first one (-ENOMEM, -EINVAL for a metric or
 * label name outside the format's grammar or an unknown type) is kept in
 * err, later calls do nothing, and usdtkit__prom_finish() returns it.
 */
#ifndef USDTKIT_TRACE_PROM_H
#define USDTKIT_TRACE_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The Content-Type of what this writes. */
#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct prom_buf {
	char *data;		/* malloc'd; not NUL-terminated */
	size_t len, cap;
	int err;		/* 0 or the first negative errno */
};

/* PROM_KIND_NS: a count of nanoseconds, written as exact decimal seconds
 * (1500 as 0.0000015), so that latencies in seconds stay exact too */
enum prom_kind { PROM_KIND_U64, PROM_KIND_I64, PROM_KIND_F64, PROM_KIND_NS };

struct prom_value {
	enum prom_kind kind;
	union {
		uint64_t u;
		int64_t i;
		double f;
	};
};

#define PROM_U64(x) ((struct prom_value){ .kind = PROM_KIND_U64, .u = (x) })
#define PROM_I64(x) ((struct prom_value){ .kind = PROM_KIND_I64, .i = (x) })
#define PROM_F64(x) ((struct prom_value){ .kind = PROM_KIND_F64, .f = (x) })
#define PROM_NS(x) ((struct prom_value){ .kind = PROM_KIND_NS, .u = (x) })

/* One label: @name is ours ([a-zA-Z_][a-zA-Z0-9_]*), @value any bytes. */
struct prom_label {
	const char *name;
	const char *value;
	size_t len;
};

#define PROM_LABEL(n, v) ((struct prom_label){ (n), (v), strlen(v) })
#define PROM_LABEL_N(n, v, l) ((struct prom_label){ (n), (v), (l) })

/*
 * A histogram: n buckets with inclusive upper bounds le[i] in increasing
 * order and their own (not cumulative) counts; @over counts the values
 * above the last bound, which only the +Inf bucket holds.
 */
struct prom_hist {
	const struct prom_value *le;
	const uint64_t *count;
	unsigned int n;
	uint64_t over;
	struct prom_value sum;
	bool no_sum;		/* the sum is not known: no _sum line */
};

void usdtkit__prom_init(struct prom_buf *b);
void usdtkit__prom_free(struct prom_buf *b);

/* The buffer's bytes, handed over: the caller frees *@data. 0 or the
 * sticky error (then nothing is handed over and the buffer is freed). */
int usdtkit__prom_finish(struct prom_buf *b, char **data, size_t *len);

/* "# HELP name help" and "# TYPE name type": once per family, before its
 * samples. @type: counter, gauge, histogram, summary or untyped. */
void usdtkit__prom_family(struct prom_buf *b, const char *name, const char *type,
		 const char *help);

/* name[suffix]{labels} value: @suffix may be NULL ("_total" is part of a
 * counter's name in 0.0.4, so it goes into @name). */
void usdtkit__prom_sample(struct prom_buf *b, const char *name, const char *suffix,
		 const struct prom_label *labels, unsigned int nlabels,
		 struct prom_value v);

/* name_bucket{labels,le="..."} (cumulative, then le="+Inf"), name_sum and
 * name_count, for a family declared with type "histogram". */
void usdtkit__prom_histogram(struct prom_buf *b, const char *name,
		    const struct prom_label *labels, unsigned int nlabels,
		    const struct prom_hist *h);

#endif
