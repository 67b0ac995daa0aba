// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The connections of http_serve.h: accept, read, answer, linger, cut. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/log.h"
#include "base/opts.h"
#include "export/http_request.h"
#include "export/http_serve.h"
#include "export/http_serve_int.h"

#define DEF_MAX_CONNS 64
#define DEF_TIMEOUT_MS 5000
#define DEF_MAX_REQUEST 8192
#define DEF_MAX_HELD (64u << 20)
/* accept() failed for want of fds or memory: try again after this */
#define ACCEPT_RETRY_MS 100
/* events taken per step, and reads per lingering client per event: the
 * caller's ring buffer is served between steps */
#define EVENTS_PER_STEP 64
#define LINGER_READS 4
/* status line and headers, and an error's short body with them */
#define HEAD_MAX 512

enum conn_state { CONN_FREE, CONN_READ, CONN_WRITE, CONN_LINGER };

struct conn {
	int fd;
	enum conn_state state;
	uint64_t since_ms, deadline_ms;
	struct http_req req;
	char *buf;		/* the request: max_request bytes of the pool */
	size_t len;
	char head[HEAD_MAX];
	size_t head_len;
	char *body;		/* a 200's body (malloc'd), or NULL */
	size_t body_len;
	size_t sent;		/* of head, then of body */
};

struct http_serve {
	struct http_serve_opts o;
	struct usdtkit_log log;
	int lfd, efd;
	unsigned int port;
	uint64_t accept_retry_ms;	/* 0: listening */
	bool accept_failing;		/* warned, no accept() since */
	size_t held;			/* bytes of the bodies being sent */
	struct conn *conns;
	char *pool;
};

static int watch(struct http_serve *s, int op, int fd, uint32_t events,
		 uint64_t id)
{
	struct epoll_event ev = { .events = events, .data.u64 = id };

	return epoll_ctl(s->efd, op, fd, &ev) ? -errno : 0;
}

static uint64_t conn_id(const struct http_serve *s, const struct conn *c)
{
	return (uint64_t)(c - s->conns) + 1;	/* 0 is the listening fd */
}

static void conn_drop_body(struct http_serve *s, struct conn *c)
{
	free(c->body);
	s->held -= c->body_len;
	c->body = NULL;
	c->body_len = 0;
}

static void conn_close(struct http_serve *s, struct conn *c)
{
	close(c->fd);	/* which also takes it out of the epoll set */
	conn_drop_body(s, c);
	c->fd = -1;
	c->state = CONN_FREE;
}

/* The response is out: no more to say, and what the client still sends
 * is read and dropped (http_serve.h) until it closes or time is up. */
static void conn_done(struct http_serve *s, struct conn *c)
{
	conn_drop_body(s, c);
	shutdown(c->fd, SHUT_WR);
	c->state = CONN_LINGER;
	if (watch(s, EPOLL_CTL_MOD, c->fd, EPOLLIN, conn_id(s, c)))
		conn_close(s, c);
}

/* what is left to send of head and body, in @iov; how many pieces */
static size_t conn_unsent(struct conn *c, struct iovec *iov)
{
	size_t n = 0;

	if (c->sent < c->head_len) {
		iov[n++] = (struct iovec){ c->head + c->sent,
					   c->head_len - c->sent };
		if (c->body_len)
			iov[n++] = (struct iovec){ c->body, c->body_len };
	} else {
		iov[n++] = (struct iovec){ c->body + (c->sent - c->head_len),
					   c->head_len + c->body_len - c->sent };
	}
	return n;
}

static void conn_write(struct http_serve *s, struct conn *c)
{
	while (c->sent < c->head_len + c->body_len) {
		struct iovec iov[2];
		struct msghdr m = { .msg_iov = iov };
		ssize_t n;

		m.msg_iovlen = conn_unsent(c, iov);
		/* a client gone does not raise SIGPIPE in the tracer */
		n = sendmsg(c->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (c->state != CONN_WRITE) {
				c->state = CONN_WRITE;
				if (watch(s, EPOLL_CTL_MOD, c->fd, EPOLLOUT,
					  conn_id(s, c)))
					conn_close(s, c);
			}
			return;
		}
		if (n <= 0) {
			conn_close(s, c);
			return;
		}
		c->sent += (size_t)n;
	}
	conn_done(s, c);
}

static void conn_answer(struct http_serve *s, struct conn *c, int status)
{
	char *body = NULL;
	size_t len = 0;
	int err;

	if (status == 200) {
		err = s->o.body(s->o.body_ctx, &body, &len);
		if (err) {
			usdtkit__warn(&s->log, "http: the response body: %s",
				      strerror(-err));
			body = NULL;
			len = 0;
			status = 500;
		} else if (!c->req.head && len > s->o.max_held - s->held) {
			/* clients that do not read hold their bodies: no
			 * more memory for them than max_held */
			free(body);
			body = NULL;
			len = 0;
			status = 503;
		}
	}
	c->head_len = usdtkit__http_head(c->head, sizeof(c->head), status,
				status == 200 ? s->o.content_type : NULL, len,
				c->req.head);
	if (c->req.head || status != 200) {
		free(body);	/* HEAD: its length was all that was needed */
		body = NULL;
		len = 0;
	}
	c->body = body;
	c->body_len = len;
	s->held += len;
	c->sent = 0;
	conn_write(s, c);
}

static void conn_read(struct http_serve *s, struct conn *c)
{
	size_t max = s->o.max_request;
	ssize_t n;
	int st;

	for (;;) {
		n = recv(c->fd, c->buf + c->len, max - c->len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {	/* gone before its request ended */
			conn_close(s, c);
			return;
		}
		c->len += (size_t)n;
		st = usdtkit__http_req_scan(&c->req, c->buf, c->len, max, s->o.path);
		if (st) {
			conn_answer(s, c, st);
			return;
		}
	}
}

static void conn_linger(struct http_serve *s, struct conn *c)
{
	ssize_t n;
	int i;

	for (i = 0; i < LINGER_READS; i++) {
		n = recv(c->fd, c->buf, s->o.max_request, 0);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
			      errno == EINTR))
			return;
		if (n <= 0) {
			conn_close(s, c);
			return;
		}
	}
}

/*
 * A slot for a new connection: a free one, else the oldest that is
 * lingering, else the oldest still sending its request (http_serve.h);
 * NULL if every one is sending a response.
 */
static struct conn *conn_slot(struct http_serve *s)
{
	struct conn *best = NULL, *c;
	unsigned int i;

	for (i = 0; i < s->o.max_conns; i++) {
		c = &s->conns[i];
		if (c->state == CONN_FREE)
			return c;
		if (c->state == CONN_WRITE)
			continue;
		if (!best || (c->state == CONN_LINGER && best->state == CONN_READ) ||
		    (c->state == best->state && c->since_ms < best->since_ms))
			best = c;
	}
	if (best)
		conn_close(s, best);
	return best;
}

static void conn_open(struct http_serve *s, int fd, uint64_t now_ms)
{
	struct conn *c = conn_slot(s);

	if (!c) {
		close(fd);
		return;
	}
	c->fd = fd;
	c->state = CONN_READ;
	c->since_ms = now_ms;
	c->deadline_ms = now_ms + s->o.timeout_ms;
	memset(&c->req, 0, sizeof(c->req));
	c->len = 0;
	c->sent = 0;
	c->body_len = 0;
	if (watch(s, EPOLL_CTL_ADD, fd, EPOLLIN, conn_id(s, c))) {
		conn_close(s, c);
		return;
	}
	/* a scraper's request is often here already: read it now, before
	 * more connections of a flood can make this one the oldest */
	conn_read(s, c);
}

/* out of fds or memory: stop listening for a while, or every step
 * would find the same connection waiting and fail the same way */
static void accept_pause(struct http_serve *s, int err, uint64_t now_ms)
{
	if (!s->accept_failing)
		usdtkit__warn(&s->log, "http: accept: %s (new connections wait)",
			      strerror(err));
	s->accept_failing = true;
	if (!watch(s, EPOLL_CTL_MOD, s->lfd, 0, 0))
		s->accept_retry_ms = now_ms + ACCEPT_RETRY_MS;
}

static void accept_some(struct http_serve *s, uint64_t now_ms)
{
	unsigned int i;
	int fd;

	for (i = 0; i < s->o.max_conns; i++) {
		fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0) {
			s->accept_failing = false;
			conn_open(s, fd, now_ms);
			continue;
		}
		switch (errno) {
		case EINTR:
		case ECONNABORTED:
			continue;
		case EMFILE:
		case ENFILE:
		case ENOBUFS:
		case ENOMEM:
			accept_pause(s, errno, now_ms);
			return;
		default:	/* EAGAIN, or the peer's error */
			return;
		}
	}
}

static void conn_event(struct http_serve *s, struct conn *c, uint32_t ev)
{
	if (c->state == CONN_FREE)
		return;		/* closed earlier in this step */
	if ((ev & EPOLLERR) || ((ev & EPOLLHUP) && c->state != CONN_READ)) {
		conn_close(s, c);
		return;
	}
	if (c->state == CONN_READ)
		conn_read(s, c);
	else if (c->state == CONN_WRITE)
		conn_write(s, c);
	else
		conn_linger(s, c);
}

/* time is up: a request not yet complete earns a 408, sent if it fits */
static void conn_expire(struct http_serve *s, struct conn *c)
{
	char h[HEAD_MAX];
	size_t n;

	if (c->state == CONN_READ) {
		n = usdtkit__http_head(h, sizeof(h), 408, NULL, 0, false);
		if (send(c->fd, h, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			usdtkit__debug(&s->log, "http: 408: %s", strerror(errno));
	}
	conn_close(s, c);
}

int usdtkit__http_serve_step(struct http_serve *s, uint64_t now_ms)
{
	struct epoll_event ev[EVENTS_PER_STEP];
	unsigned int i;
	int n;

	if (s->accept_retry_ms && now_ms >= s->accept_retry_ms &&
	    !watch(s, EPOLL_CTL_MOD, s->lfd, EPOLLIN, 0))
		s->accept_retry_ms = 0;
	n = epoll_wait(s->efd, ev, EVENTS_PER_STEP, 0);
	if (n < 0 && errno != EINTR) {
		n = -errno;
		usdtkit__warn(&s->log, "http: epoll_wait: %s", strerror(-n));
		return n;
	}
	for (i = 0; n > 0 && i < (unsigned int)n; i++) {
		if (ev[i].data.u64 == 0)
			accept_some(s, now_ms);
		else
			conn_event(s, &s->conns[ev[i].data.u64 - 1],
				   ev[i].events);
	}
	for (i = 0; i < s->o.max_conns; i++)
		if (s->conns[i].state != CONN_FREE &&
		    now_ms >= s->conns[i].deadline_ms)
			conn_expire(s, &s->conns[i]);
	return 0;
}

int usdtkit__http_serve_timeout(const struct http_serve *s, uint64_t now_ms)
{
	uint64_t next = s->accept_retry_ms ? s->accept_retry_ms : UINT64_MAX;
	unsigned int i;

	for (i = 0; i < s->o.max_conns; i++)
		if (s->conns[i].state != CONN_FREE &&
		    s->conns[i].deadline_ms < next)
			next = s->conns[i].deadline_ms;
	if (next == UINT64_MAX)
		return -1;
	if (next <= now_ms)
		return 0;
	return next - now_ms > INT_MAX ? INT_MAX : (int)(next - now_ms);
}

int usdtkit__http_serve_fd(const struct http_serve *s)
{
	return s->efd;
}

unsigned int usdtkit__http_serve_port(const struct http_serve *s)
{
	return s->port;
}

static int serve_opts(struct http_serve *s, const struct http_serve_opts *opts)
{
	int err = usdtkit__opts_copy(&s->o, http_serve_opts, opts);

	s->log = (struct usdtkit_log){ s->o.print, s->o.print_ctx };
	if (err || !s->o.body) {
		usdtkit__warn(&s->log, "http: %s", err ? "options not known here"
			      : "no body callback");
		return -EINVAL;
	}
	/* the head must fit in HEAD_MAX whatever the type */
	if (s->o.content_type && strlen(s->o.content_type) > 128) {
		usdtkit__warn(&s->log, "http: content type over 128 bytes");
		return -EINVAL;
	}
	if (!s->o.path)
		s->o.path = "/metrics";
	if (!s->o.max_conns)
		s->o.max_conns = DEF_MAX_CONNS;
	if (!s->o.timeout_ms)
		s->o.timeout_ms = DEF_TIMEOUT_MS;
	if (!s->o.max_request)
		s->o.max_request = DEF_MAX_REQUEST;
	if (!s->o.max_held)
		s->o.max_held = DEF_MAX_HELD;
	return 0;
}

static int serve_alloc(struct http_serve *s)
{
	unsigned int i;

	s->conns = calloc(s->o.max_conns, sizeof(*s->conns));
	/* calloc'd: a slot's pages are touched only once a client uses it */
	s->pool = calloc(s->o.max_conns, s->o.max_request);
	if (!s->conns || !s->pool)
		return -ENOMEM;
	for (i = 0; i < s->o.max_conns; i++) {
		s->conns[i].fd = -1;
		s->conns[i].buf = s->pool + (size_t)i * s->o.max_request;
	}
	return 0;
}

int usdtkit__http_serve_new(const char *addr, const struct http_serve_opts *opts,
		   struct http_serve **out)
{
	struct http_serve *s = calloc(1, sizeof(*s));
	int err;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->lfd = s->efd = -1;
	err = serve_opts(s, opts);
	if (!err)
		err = serve_alloc(s);
	if (!err)
		err = usdtkit__http_listen(addr, &s->log, &s->lfd, &s->port);
	if (!err) {
		s->efd = epoll_create1(EPOLL_CLOEXEC);
		err = s->efd < 0 ? -errno : watch(s, EPOLL_CTL_ADD, s->lfd, EPOLLIN, 0);
		if (err)
			usdtkit__warn(&s->log, "http: epoll: %s", strerror(-err));
	}
	if (err) {
		usdtkit__http_serve_free(s);
		return err;
	}
	*out = s;
	return 0;
}

void usdtkit__http_serve_free(struct http_serve *s)
{
	unsigned int i;

	if (!s)
		return;
	for (i = 0; s->conns && i < s->o.max_conns; i++)
		if (s->conns[i].state != CONN_FREE)
			conn_close(s, &s->conns[i]);
	if (s->efd >= 0)
		close(s->efd);
	if (s->lfd >= 0)
		close(s->lfd);
	free(s->conns);
	free(s->pool);
	free(s);
}
