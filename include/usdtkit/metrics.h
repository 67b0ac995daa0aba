/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The exporter: a trace's aggregations (<usdtkit/trace.h>) as Prometheus
 * text, written to a textfile or served over HTTP (docs/METRICS.md). The
 * library's export/ room; its names are usdtkit_trace_metrics* and
 * usdtkit_trace_serve and usdtkit_trace_server_* (version node
 * USDTKIT_0.2, as when they were declared in <usdtkit/trace.h>).
 */
#ifndef USDTKIT_METRICS_H
#define USDTKIT_METRICS_H

#include <stddef.h>

#include <usdtkit/usdtkit.h>

struct usdtkit_trace;	/* <usdtkit/trace.h>, which includes this header */

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The families and labels are docs/METRICS.md's: hits per probe (with
 * COUNTS or SUM..MAX, counted in the kernel; with no aggregation, the
 * hits usdtkit_trace_consume() has read), hits per COUNT_BY key, the HIST argument as a
 * histogram (its _sum needs SUM..MAX of the same argument), SUM, MIN and
 * MAX, LATENCY as a histogram in seconds, lost events, attached sites,
 * the build. Values are read without RESET: they are cumulative since
 * the trace began, as Prometheus counters must be. Read them with RESET
 * elsewhere and the counters go back to zero, which Prometheus takes
 * for a restart.
 */
struct usdtkit_trace_metrics_opts {
	size_t sz;		/* sizeof(struct usdtkit_trace_metrics_opts) */
	size_t max_series;	/* COUNT_BY series in all; 0: 10000. Keys
				 * past it are summed into key="__other__" */
	unsigned int top;	/* COUNT_BY keys per probe; 0: no bound but
				 * max_series */
	const char *version;	/* usdtkit_build_info's label; NULL: the
				 * library's USDTKIT_VERSION */
	size_t :0;
};
#define usdtkit_trace_metrics_opts__last_field version

/* The exposition (text format 0.0.4) of @t now: *@text, malloc'd, not
 * NUL-terminated, *@len bytes. @opts may be NULL. 0 or a negative errno. */
USDTKIT_API int usdtkit_trace_metrics(struct usdtkit_trace *t,
				      const struct usdtkit_trace_metrics_opts *opts,
				      char **text, size_t *len);
/* The same, written to @path atomically for node_exporter's textfile
 * collector: a temporary file in @path's directory, then rename(). */
USDTKIT_API int usdtkit_trace_metrics_write(struct usdtkit_trace *t,
					    const struct usdtkit_trace_metrics_opts *opts,
					    const char *path);

struct usdtkit_trace_server;

struct usdtkit_trace_serve_opts {
	size_t sz;		/* sizeof(struct usdtkit_trace_serve_opts) */
	const struct usdtkit_trace_metrics_opts *metrics; /* may be NULL */
	unsigned int max_conns;	/* connections at once; 0: 64 */
	unsigned int timeout_ms; /* per connection; 0: 5000 */
	size_t :0;
};
#define usdtkit_trace_serve_opts__last_field timeout_ms

/*
 * Answer GET /metrics with usdtkit_trace_metrics() on @addr:
 * "IPv4:PORT", "localhost:PORT" or "[IPv6]:PORT" (no name is resolved,
 * and there is no default to every interface; PORT 0: the kernel picks
 * one). No thread: poll usdtkit_trace_server_fd() for POLLIN in the
 * loop that polls usdtkit_trace_fd(), and call usdtkit_trace_server_step()
 * when it is readable, and at the latest after
 * usdtkit_trace_server_timeout() ms. Bounded connections, request size
 * and time per connection (docs/METRICS.md). NULL with errno; the reason
 * goes to the trace's print callback, as do the server's warnings.
 */
USDTKIT_API struct usdtkit_trace_server *
usdtkit_trace_serve(struct usdtkit_trace *t, const char *addr,
		    const struct usdtkit_trace_serve_opts *opts);
USDTKIT_API int usdtkit_trace_server_fd(const struct usdtkit_trace_server *s);
/* the port listened on */
USDTKIT_API unsigned int usdtkit_trace_server_port(const struct usdtkit_trace_server *s);
/* never blocks; 0, or a negative errno when the server itself failed */
USDTKIT_API int usdtkit_trace_server_step(struct usdtkit_trace_server *s);
/* ms until a connection's time limit, -1: none */
USDTKIT_API int usdtkit_trace_server_timeout(const struct usdtkit_trace_server *s);
/* Before usdtkit_trace_free() of its trace. NULL is a no-op. */
USDTKIT_API void usdtkit_trace_server_free(struct usdtkit_trace_server *s);

#ifdef __cplusplus
}
#endif

#endif
