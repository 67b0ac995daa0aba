/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the files of http_serve.h share: the listening socket
 * (http_addr.c) and the response head (http_response.c). */
#ifndef USDTKIT_TRACE_HTTP_SERVE_INT_H
#define USDTKIT_TRACE_HTTP_SERVE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct usdtkit_log;

/* A nonblocking socket listening on @addr (usdtkit__http_serve_new()), in *@fd,
 * and its port. 0 or a negative errno, said through @log. */
int usdtkit__http_listen(const char *addr, const struct usdtkit_log *log, int *fd,
		unsigned int *port);

/*
 * The status line and headers of a response with @status into @buf of
 * @n bytes (HEAD_MAX is enough); the length. @type NULL: text/plain. A
 * status other than 200 also gets its short text body here, unless
 * @head_only; @len is the length of a 200's body. Date: the wall clock's now.
 */
size_t usdtkit__http_head(char *buf, size_t n, int status, const char *type,
		 size_t len, bool head_only);

#endif
