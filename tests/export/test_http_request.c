// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * export/http_request.c: the status each request earns, whole and fed one
 * byte at a time (as a slow client sends it); and export/http_addr.c: the
 * listening addresses taken and refused.
 */
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "check.h"
#include "export/http_request.h"
#include "export/http_serve.h"

#define MAX 64
/* a request and its status; sizeof: some hold NUL bytes */
#define R(req, status) { req, status, sizeof(req) - 1 }

static const struct {
	const char *req;
	int status;	/* 0: incomplete */
	size_t len;
} cases[] = {
	R("GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n", 200),
	R("GET /metrics HTTP/1.0\r\n\r\n", 200),
	R("HEAD /metrics HTTP/1.0\n\n", 200),
	R("GET /metrics?x=1 HTTP/1.0\r\nA: b\tc\r\n\r\n", 200),
	R("GET /metrics HTTP/1.1\r\nhOsT:\r\n\r\n", 200),
	R("GET /metric HTTP/1.0\r\n\r\n", 404),
	R("GET /metrics/ HTTP/1.0\r\n\r\n", 404),
	R("GET /../../etc/passwd HTTP/1.0\r\n\r\n", 404),
	R("POST /metrics HTTP/1.0\r\n\r\n", 405),
	R("PUT /x HTTP/1.0\r\n\r\n", 404),
	R("GET /metrics HTTP/1.1\r\n\r\n", 400),		/* no Host */
	R("GET /metrics\r\n", 400),				/* HTTP/0.9 */
	R("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400),
	R("GET /metrics HTTP/1.2\r\n\r\n", 400),
	R("GET  /metrics HTTP/1.0\r\n\r\n", 400),
	R("GET http://a:80/metrics HTTP/1.0\r\n\r\n", 200),	/* absolute-form */
	R("GET http://a HTTP/1.0\r\n\r\n", 404),
	R("GET * HTTP/1.0\r\n\r\n", 400),
	R("get /metrics HTTP/1.0\r\n\r\n", 400),
	R("\x16\x03\x01\x02\x00", 400),			/* TLS */
	R("G\0T", 400),
	R(" GET", 400),
	R("ABCDEFGHIJKLMNOPQ", 400),				/* no method */
	R("GET /metrics HTTP/1.0\r\n bad: fold\r\n\r\n", 400),
	R("GET /metrics HTTP/1.0\r\nno colon\r\n\r\n", 400),
	R("GET /metrics HTTP/1.0\r\n: v\r\n\r\n", 400),
	R("GET /metrics HTTP/1.0\r\nA: b\rc\r\n\r\n", 400),
	R("GET /metrics HTTP/1.0\r\nA: \x01\r\n\r\n", 400),
	R("GET /metrics HTTP/1.0\r\n", 0),
	R("GET /metr", 0),
	R("GET /metrics HTTP/1.0\r\nX: " "0123456789012345678901234567890123456789", 431),
	R("GET /" "0123456789012345678901234567890123456789012345678901234567890", 414),
};

static int scan(const char *req, size_t len, bool bytewise)
{
	struct http_req r = { 0 };
	size_t n;
	int st = 0;

	if (len > MAX)
		len = MAX;
	if (!bytewise)
		return usdtkit__http_req_scan(&r, req, len, MAX, "/metrics");
	for (n = 1; n <= len && !st; n++)
		st = usdtkit__http_req_scan(&r, req, n, MAX, "/metrics");
	return st;
}

static void test_requests(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = cases[i].len;
		int a, b;

		a = scan(cases[i].req, len, false);
		b = scan(cases[i].req, len, true);
		CHECK(a == cases[i].status, "case %zu: %d, want %d", i, a,
		      cases[i].status);
		CHECK(b == cases[i].status, "case %zu bytewise: %d, want %d", i,
		      b, cases[i].status);
	}
}

static void test_addrs(void)
{
	static const char *const good[] = {
		"127.0.0.1:9100", "0.0.0.0:0", "localhost:65535", "[::1]:9100",
		"[::]:1", "[fe80::1:2]:80",
	};
	static const char *const bad[] = {
		"", ":9100", "9100", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536",
		"127.0.0.1:-1", "127.0.0.1:9x", "::1:9100", "[::1]9100", "[]:80",
		"[::1:80", "example.com:80", "1.2.3:80", "[127.0.0.1]:80",
		"127.0.0.1:099999",
	};
	struct sockaddr_storage ss;
	unsigned int len;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK(!usdtkit__http_serve_parse_addr(good[i], &ss, &len, NULL, NULL),
		      "%s refused", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(usdtkit__http_serve_parse_addr(bad[i], &ss, &len, NULL, NULL) == -EINVAL,
		      "\"%s\" taken", bad[i]);
	CHECK(!usdtkit__http_serve_parse_addr("[::1]:80", &ss, &len, NULL, NULL) &&
	      ss.ss_family == AF_INET6 && len == sizeof(struct sockaddr_in6) &&
	      ((struct sockaddr_in6 *)&ss)->sin6_port == htons(80), "[::1]:80");
	CHECK(!usdtkit__http_serve_parse_addr("localhost:9", &ss, &len, NULL, NULL) &&
	      ss.ss_family == AF_INET &&
	      ((struct sockaddr_in *)&ss)->sin_addr.s_addr == htonl(INADDR_LOOPBACK),
	      "localhost");
}

int main(void)
{
	test_requests();
	test_addrs();
	return check_done();
}
