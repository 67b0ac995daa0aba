// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The metrics endpoint of a trace: http_serve.h's server, whose one
 * path answers usdtkit_trace_metrics() made at the moment of the
 * request. The server only reads the maps: the hits' path in the kernel
 * is the same with it or without.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "export/http_serve.h"
#include "trace/internal.h"
#include "base/opts.h"
#include "export/prom.h"

struct usdtkit_trace_server {
	struct usdtkit_trace *t;
	struct usdtkit_trace_metrics_opts mo;
	struct http_serve *http;
};

static uint64_t now_ms(void)
{
	return clock_mono_ns() / 1000000u;
}

static int body(void *ctx, char **text, size_t *len)
{
	struct usdtkit_trace_server *s = ctx;

	return usdtkit_trace_metrics(s->t, &s->mo, text, len);
}

/* @o: the caller's serve options, or @err already (its copy failed) */
static int server_opts(struct usdtkit_trace_server *s,
		       const struct usdtkit_trace_serve_opts *o, int err)
{
	if (!err)
		err = usdtkit__opts_copy(&s->mo, usdtkit_trace_metrics_opts, o->metrics);
	if (err)
		trace_err(s->t, "serve: options not known to this library");
	return err;
}

struct usdtkit_trace_server *usdtkit_trace_serve(struct usdtkit_trace *t, const char *addr,
						 const struct usdtkit_trace_serve_opts *opts)
{
	struct usdtkit_trace_server *s;
	struct usdtkit_trace_serve_opts o;
	int err;

	if (!t || !addr) {
		errno = EINVAL;
		return NULL;
	}
	err = usdtkit__opts_copy(&o, usdtkit_trace_serve_opts, opts);
	s = calloc(1, sizeof(*s));
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	s->t = t;
	err = server_opts(s, &o, err);
	if (!err) {
		USDTKIT_OPTS(http_serve_opts, ho, .content_type = PROM_CONTENT_TYPE,
			     .body = body, .body_ctx = s, .print = t->log.print,
			     .print_ctx = t->log.ctx, .max_conns = o.max_conns,
			     .timeout_ms = o.timeout_ms);

		err = usdtkit__http_serve_new(addr, &ho, &s->http);
	}
	if (err) {
		free(s);
		errno = -err;
		return NULL;
	}
	return s;
}

int usdtkit_trace_server_fd(const struct usdtkit_trace_server *s)
{
	return s ? usdtkit__http_serve_fd(s->http) : -EINVAL;
}

unsigned int usdtkit_trace_server_port(const struct usdtkit_trace_server *s)
{
	return s ? usdtkit__http_serve_port(s->http) : 0;
}

int usdtkit_trace_server_step(struct usdtkit_trace_server *s)
{
	return s ? usdtkit__http_serve_step(s->http, now_ms()) : -EINVAL;
}

int usdtkit_trace_server_timeout(const struct usdtkit_trace_server *s)
{
	return s ? usdtkit__http_serve_timeout(s->http, now_ms()) : -1;
}

void usdtkit_trace_server_free(struct usdtkit_trace_server *s)
{
	if (!s)
		return;
	usdtkit__http_serve_free(s->http);
	free(s);
}
