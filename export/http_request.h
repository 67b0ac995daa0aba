/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The request reader of http_serve.c: request line and headers of
 * HTTP/1.0 and 1.1, checked as they arrive, and the status they earn.
 * No socket here: bytes in, a verdict out.
 */
#ifndef USDTKIT_TRACE_HTTP_REQUEST_H
#define USDTKIT_TRACE_HTTP_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

/* What has been read of one request; zero it before the first byte. */
struct http_req {
	size_t pos;		/* where the first unread line starts */
	unsigned int lines;	/* complete lines so far */
	bool get_or_head, head;	/* the method */
	bool path_ok;		/* the target is the path served */
	bool v11, host;		/* HTTP/1.1, and its Host header seen */
};

/*
 * Look at the @len bytes of @buf (all that the client sent, of which the
 * first r->pos were seen before); @max is the most there may be. 0 while
 * the request is incomplete, else the status to answer: 200 (GET or HEAD
 * of @path), 400, 404, 405, 414 (request line over @max) or 431
 * (headers over @max).
 */
int usdtkit__http_req_scan(struct http_req *r, const char *buf, size_t len,
		  size_t max, const char *path);

#endif
