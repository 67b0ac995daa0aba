/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A minimal HTTP/1.x server of one path, for `usdtkit trace --serve`
 * (GET /metrics, docs/METRICS.md), run from its caller's event loop.
 *
 * Why not a library. Debian's libmicrohttpd-dev ships a libmicrohttpd.a,
 * but Debian builds it with HTTPS: the archive calls 37 gnutls_*
 * functions, so a static CLI would link libgnutls.a and, through
 * gnutls.pc, nettle, hogweed, gmp, libtasn1, libidn2, libunistring and
 * p11-kit, for which Debian ships no static archive at all (checked on
 * Debian 12, libmicrohttpd-dev 0.9.75-6, libp11-kit-dev 0.24.1-2): the
 * static cross builds of every target (scripts/cross.sh) would fail to
 * link, and riscv64's sysroot would have to cross-build all of those
 * from source. libcivetweb-dev has no static archive, needs libstdc++,
 * and runs its own worker threads. One path, GET only, no TLS, is a few
 * hundred lines with bounds we choose.
 *
 * The design:
 * - The caller owns the loop: usdtkit__http_serve_fd() is one epoll fd, readable
 *   when the server has work; put it in the poll() with the ring buffer
 *   and the signalfd, call usdtkit__http_serve_step() when it is readable or when
 *   usdtkit__http_serve_timeout() has passed. No thread, nothing blocks: every
 *   socket is nonblocking, and a response that does not fit in the
 *   socket buffer is kept and sent as the client reads it.
 * - At most max_conns connections (64). One more is accepted, and the
 *   oldest connection that is done (its response sent) or still sending
 *   its request is closed to make room: a scraper sends its request at
 *   once and is answered within a step, so idle or slow clients cannot
 *   lock it out; left in the listen backlog instead, a new scrape would
 *   wait behind 64 idle sockets for their whole time limit. When every
 *   slot is sending a response, the new connection is closed at once.
 *   If accept() fails for want of fds or memory, the listening socket is
 *   left out of the epoll set for 100 ms at a time (one warning until
 *   an accept() succeeds), rather than waking the loop again and again
 *   for the same failure.
 * - A request is at most max_request bytes (8 KiB) of request line and
 *   headers: over that, 414 (request line) or 431 (headers), and close.
 *   Its body, if any, is never read.
 * - Each connection has timeout_ms (5 s) from its accept for the whole
 *   exchange: a client that sends one byte a second, or never reads its
 *   response, is cut then (with a 408 if it had not sent its request).
 * - A 200's body is held until the client has read it all: at most
 *   max_held bytes (64 MiB) of bodies are held at once, and a scrape
 *   whose body would go past that gets a 503, so that clients which
 *   never read cannot make the tracer's memory grow with their number.
 * - GET or HEAD of the path (a query string is ignored, the absolute
 *   form http://HOST/PATH is taken as PATH): 200 with the
 *   body the caller's callback makes at that moment. Another path: 404.
 *   Another method on the path: 405 with "Allow: GET, HEAD". A malformed
 *   request, an HTTP/0.9 request line (no version), a version other than
 *   HTTP/1.0 or 1.1 (the HTTP/2 preface "PRI * HTTP/2.0"), binary bytes,
 *   or an HTTP/1.1 request without Host: 400. The target is compared as
 *   a string, never mapped to a file.
 * - Every response carries "Connection: close" and the connection ends
 *   after it: no keep-alive, no pipelining, nothing to bound there. The
 *   rest of the request is read and dropped until the client closes or
 *   time is up, so that closing with unread bytes does not reset the
 *   connection before the client has read its answer.
 *
 * Errors are negative errnos, each with one line through the print
 * callback; nothing here prints by itself or exits.
 */
#ifndef USDTKIT_TRACE_HTTP_SERVE_H
#define USDTKIT_TRACE_HTTP_SERVE_H

#include <stddef.h>
#include <stdint.h>

#include <usdtkit/usdtkit.h>

struct http_serve;

/*
 * Make the body of one 200 response: *@body, malloc'd (the server frees
 * it), *@len bytes. 0, or a negative errno: the client gets a 500.
 */
typedef int (*http_serve_body_fn)(void *ctx, char **body, size_t *len);

struct http_serve_opts {
	size_t sz;			/* sizeof(struct http_serve_opts) */
	const char *path;		/* the one path served; NULL: /metrics */
	const char *content_type;	/* of the 200; NULL: text/plain */
	http_serve_body_fn body;	/* required */
	void *body_ctx;
	usdtkit_print_fn print;		/* errors and warnings, may be NULL */
	void *print_ctx;
	unsigned int max_conns;		/* 0: 64 */
	unsigned int timeout_ms;	/* per connection; 0: 5000 */
	unsigned int max_request;	/* request line + headers; 0: 8192 */
	size_t max_held;		/* bytes of 200 bodies held; 0: 64 MiB */
	size_t :0;			/* new fields go above */
};
#define http_serve_opts__last_field max_held

/*
 * Listen on @addr: "HOST:PORT" with HOST an IPv4 address or "localhost"
 * (127.0.0.1), or "[IPv6]:PORT". No name is resolved (a static CLI has no
 * NSS), and there is no default to every interface: an empty HOST is an
 * error; 0.0.0.0 or [::], written out, listen on every interface. PORT 0
 * lets the kernel pick one (usdtkit__http_serve_port()). 0 or a negative errno.
 */
int usdtkit__http_serve_new(const char *addr, const struct http_serve_opts *opts,
		   struct http_serve **out);
void usdtkit__http_serve_free(struct http_serve *s);

/* The port listened on (host byte order). */
unsigned int usdtkit__http_serve_port(const struct http_serve *s);

/* An fd that is readable when usdtkit__http_serve_step() has work. */
int usdtkit__http_serve_fd(const struct http_serve *s);

/*
 * Accept, read, answer and write what is ready, and cut the connections
 * whose time is up at @now_ms (CLOCK_MONOTONIC, in milliseconds). Never
 * blocks. 0, or a negative errno if the server itself failed (its epoll
 * fd): a client's error only ends that client.
 */
int usdtkit__http_serve_step(struct http_serve *s, uint64_t now_ms);

/* Milliseconds from @now_ms to the next time limit, -1 if none: the
 * longest the caller may poll before the next usdtkit__http_serve_step(). */
int usdtkit__http_serve_timeout(const struct http_serve *s, uint64_t now_ms);

/* Parse @addr as usdtkit__http_serve_new() does: 0 or -EINVAL with a message. */
struct sockaddr_storage;
int usdtkit__http_serve_parse_addr(const char *addr, struct sockaddr_storage *ss,
			  unsigned int *len, usdtkit_print_fn print, void *ctx);

#endif
