// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>
#include <strings.h>

#include "export/http_request.h"

/* the longest method name looked at: longer is no method we know */
#define METHOD_MAX 16

/* RFC 9110 tchar: what a method or header name is made of */
static bool tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/*
 * The first bytes, before the request line is complete: a method is a
 * few capital letters then a space, so binary bytes, TLS handshakes and
 * the like are refused at once instead of after max bytes or the time
 * limit.
 */
static int method_prefix(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len && i <= METHOD_MAX; i++) {
		if (buf[i] == ' ')
			return i ? 0 : 400;
		if (buf[i] < 'A' || buf[i] > 'Z')
			return 400;
	}
	return i > METHOD_MAX ? 400 : 0;
}

/* origin-form ("/metrics") or absolute-form ("http://host/metrics",
 * which a server must take too): visible ASCII only */
static bool is_target(const char *s, size_t n)
{
	size_t i;

	if (!n || (s[0] != '/' && (n < 7 || strncasecmp(s, "http://", 7))))
		return false;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

/* the target names @path, with or without a query */
static bool target_is(const char *s, size_t n, const char *path)
{
	const char *q = memchr(s, '?', n);
	size_t plen = strlen(path);

	if (s[0] != '/') {	/* absolute-form: the path after the host */
		const char *p = memchr(s + 7, '/', n - 7);

		if (!p)
			return false;
		n -= (size_t)(p - s);
		s = p;
		q = memchr(s, '?', n);
	}
	if (q)
		n = (size_t)(q - s);
	return n == plen && !memcmp(s, path, n);
}

/* METHOD SP TARGET SP HTTP/1.x: no version (HTTP/0.9) is refused */
static int request_line(struct http_req *r, const char *s, size_t n,
			const char *path)
{
	const char *sp1 = memchr(s, ' ', n), *sp2;
	size_t mlen, tlen, vlen;

	if (!sp1)
		return 400;
	mlen = (size_t)(sp1 - s);
	sp2 = memchr(sp1 + 1, ' ', n - mlen - 1);
	if (!sp2)
		return 400;
	tlen = (size_t)(sp2 - sp1 - 1);
	vlen = n - mlen - tlen - 2;
	if (vlen != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) ||
	    (sp2[8] != '0' && sp2[8] != '1'))
		return 400;
	if (!is_target(sp1 + 1, tlen))
		return 400;
	r->v11 = sp2[8] == '1';
	r->head = mlen == 4 && !memcmp(s, "HEAD", 4);
	r->get_or_head = r->head || (mlen == 3 && !memcmp(s, "GET", 3));
	r->path_ok = target_is(sp1 + 1, tlen, path);
	return 0;
}

/* NAME ":" VALUE, NAME a token; no obs-fold, no control character but
 * HTAB in the value */
static int header_line(struct http_req *r, const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n);
	size_t i, nlen;

	if (!colon || colon == s)
		return 400;
	nlen = (size_t)(colon - s);
	for (i = 0; i < nlen; i++)
		if (!tchar((unsigned char)s[i]))
			return 400;
	for (i = nlen + 1; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return 400;
	}
	if (nlen == 4 && !strncasecmp(s, "host", 4))
		r->host = true;
	return 0;
}

static int verdict(const struct http_req *r)
{
	if (r->v11 && !r->host)
		return 400;
	if (!r->path_ok)
		return 404;
	return r->get_or_head ? 200 : 405;
}

/* One complete line (CRLF or a bare LF); 0 to go on, or a status. */
static int one_line(struct http_req *r, const char *s, size_t n,
		    const char *path, bool *end)
{
	if (n && s[n - 1] == '\r')
		n--;
	if (r->lines++ == 0)
		return request_line(r, s, n, path);
	if (!n) {
		*end = true;
		return verdict(r);
	}
	return header_line(r, s, n);
}

int usdtkit__http_req_scan(struct http_req *r, const char *buf, size_t len,
		  size_t max, const char *path)
{
	const char *nl;
	bool end = false;
	int st;

	if (!r->lines && (st = method_prefix(buf, len)))
		return st;
	while ((nl = memchr(buf + r->pos, '\n', len - r->pos))) {
		size_t n = (size_t)(nl - buf) - r->pos;

		st = one_line(r, buf + r->pos, n, path, &end);
		r->pos += n + 1;
		if (st || end)
			return st;
	}
	if (len >= max)
		return r->lines ? 431 : 414;
	return 0;
}
