// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The listening address of http_serve.h: HOST:PORT or [IPv6]:PORT. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/log.h"
#include "export/http_serve.h"
#include "export/http_serve_int.h"

/* a listening socket's queue of connections not yet accepted */
#define LISTEN_BACKLOG 128

static int bad(const struct usdtkit_log *log, const char *addr, const char *why)
{
	usdtkit__warn(log, "listen address \"%s\": %s", addr, why);
	return -EINVAL;
}

/* 0 to 65535, decimal digits only */
static int parse_port(const char *s, unsigned int *port)
{
	unsigned int v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 6553)
			return -EINVAL;
		v = v * 10 + (unsigned int)(*s - '0');
	}
	if (v > 65535)
		return -EINVAL;
	*port = v;
	return 0;
}

static int parse_v6(const char *addr, const struct usdtkit_log *log,
		    struct sockaddr_in6 *a, unsigned int *port)
{
	const char *end = strchr(addr, ']');
	char host[INET6_ADDRSTRLEN];
	size_t n;

	if (!end || end[1] != ':')
		return bad(log, addr, "expected [IPv6]:PORT");
	n = (size_t)(end - addr - 1);
	if (!n)
		return bad(log, addr, "no host: write [::1]:PORT for this machine only");
	if (n >= sizeof(host))
		return bad(log, addr, "not an IPv6 address");
	memcpy(host, addr + 1, n);
	host[n] = 0;
	if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
		return bad(log, addr, "not an IPv6 address (no name is resolved)");
	if (parse_port(end + 2, port))
		return bad(log, addr, "PORT must be a number from 0 to 65535");
	a->sin6_family = AF_INET6;
	a->sin6_port = htons((uint16_t)*port);
	return 0;
}

static int parse_v4(const char *addr, const struct usdtkit_log *log,
		    struct sockaddr_in *a, unsigned int *port)
{
	const char *colon = strrchr(addr, ':');
	char host[INET_ADDRSTRLEN];
	size_t n;

	if (!colon)
		return bad(log, addr, "expected HOST:PORT");
	n = (size_t)(colon - addr);
	if (memchr(addr, ':', n))
		return bad(log, addr, "an IPv6 address goes in brackets: [ADDR]:PORT");
	if (!n)
		return bad(log, addr, "no host: write 127.0.0.1:PORT for this machine only, "
			   "or 0.0.0.0:PORT for every interface");
	if (n == 9 && !memcmp(addr, "localhost", 9)) {
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	} else {
		if (n >= sizeof(host))
			return bad(log, addr, "HOST must be an IPv4 address, "
				   "[IPv6] or localhost (no name is resolved)");
		memcpy(host, addr, n);
		host[n] = 0;
		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return bad(log, addr, "HOST must be an IPv4 address, "
				   "[IPv6] or localhost (no name is resolved)");
	}
	if (parse_port(colon + 1, port))
		return bad(log, addr, "PORT must be a number from 0 to 65535");
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)*port);
	return 0;
}

static int parse_addr(const char *addr, const struct usdtkit_log *log,
		      struct sockaddr_storage *ss, unsigned int *len)
{
	unsigned int port;

	memset(ss, 0, sizeof(*ss));
	if (!addr || !*addr)
		return bad(log, addr ? addr : "", "expected HOST:PORT or [IPv6]:PORT");
	if (addr[0] == '[') {
		*len = sizeof(struct sockaddr_in6);
		return parse_v6(addr, log, (struct sockaddr_in6 *)ss, &port);
	}
	*len = sizeof(struct sockaddr_in);
	return parse_v4(addr, log, (struct sockaddr_in *)ss, &port);
}

int usdtkit__http_serve_parse_addr(const char *addr, struct sockaddr_storage *ss,
			  unsigned int *len, usdtkit_print_fn print, void *ctx)
{
	struct usdtkit_log log = { print, ctx };

	return parse_addr(addr, &log, ss, len);
}

static int fail(const struct usdtkit_log *log, const char *addr,
		const char *what, int fd)
{
	int err = -errno;

	usdtkit__warn(log, "listen address \"%s\": %s: %s", addr, what,
		      strerror(-err));
	if (fd >= 0)
		close(fd);
	return err;
}

static unsigned int bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return 0;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

int usdtkit__http_listen(const char *addr, const struct usdtkit_log *log, int *out,
		unsigned int *port)
{
	struct sockaddr_storage ss;
	unsigned int len;
	int fd, one = 1, err;

	err = parse_addr(addr, log, &ss, &len);
	if (err)
		return err;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(log, addr, "socket", -1);
	/* a restarted tracer binds again at once (TIME_WAIT of the last
	 * scrapes); [::] is IPv6 only, 0.0.0.0 is written for IPv4 */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (ss.ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one))))
		return fail(log, addr, "setsockopt", fd);
	if (bind(fd, (struct sockaddr *)&ss, len))
		return fail(log, addr, "bind", fd);
	if (listen(fd, LISTEN_BACKLOG))
		return fail(log, addr, "listen", fd);
	*out = fd;
	*port = bound_port(fd);
	return 0;
}
