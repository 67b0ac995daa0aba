// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The test driver of export/http_serve.c (tests/export/http_hostile.py): serves
 * GET /metrics on ADDR from a poll loop like trace's (the server's fd and
 * a signalfd), until SIGTERM or SIGINT. The body is a fixed family and a
 * counter of the bodies made so far, written with export/prom.c, and
 * pad=N bytes of comment after them. Prints "port N" once listening.
 *   http_serve_drv ADDR [max_conns=N] [timeout_ms=N] [max_request=N]
 *                       [max_held=N] [pad=N]
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "export/http_serve.h"
#include "export/prom.h"

struct drv {
	unsigned long long scrapes;
	size_t pad;
};

static int body(void *ctx, char **data, size_t *len)
{
	struct drv *d = ctx;
	struct prom_buf b;

	d->scrapes++;
	usdtkit__prom_init(&b);
	usdtkit__prom_family(&b, "drv_fixed", "gauge", "A fixed value.");
	usdtkit__prom_sample(&b, "drv_fixed", NULL,
		    (struct prom_label[]){ PROM_LABEL("k", "v\"\\\n\x80") }, 1,
		    PROM_U64(18446744073709551615ull));
	usdtkit__prom_family(&b, "drv_scrapes_total", "counter",
		    "Bodies made, this one included.");
	usdtkit__prom_sample(&b, "drv_scrapes_total", NULL, NULL, 0, PROM_U64(d->scrapes));
	if (d->pad && !usdtkit__prom_finish(&b, data, len)) {
		/* the padding: a comment line, which the format allows */
		char *p = realloc(*data, *len + d->pad + 3);

		if (!p) {
			free(*data);
			return -ENOMEM;
		}
		memcpy(p + *len, "# ", 2);
		memset(p + *len + 2, 'p', d->pad);
		p[*len + 2 + d->pad] = '\n';
		*data = p;
		*len += d->pad + 3;
		return 0;
	}
	return usdtkit__prom_finish(&b, data, len);
}

static void print(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	fprintf(stderr, "http_serve_drv: %s\n", msg);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int sig_fd(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -1;
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static int run(struct http_serve *s, int sfd)
{
	struct pollfd fds[2] = {
		{ .fd = usdtkit__http_serve_fd(s), .events = POLLIN },
		{ .fd = sfd, .events = POLLIN },
	};
	int err;

	for (;;) {
		if (poll(fds, 2, usdtkit__http_serve_timeout(s, now_ms())) < 0 &&
		    errno != EINTR)
			return -errno;
		if (fds[1].revents)
			return 0;
		err = usdtkit__http_serve_step(s, now_ms());
		if (err)
			return err;
	}
}

/* NAME=N arguments: a field of the options, or the padding */
static int set_args(int argc, char **argv, struct http_serve_opts *o,
		    struct drv *d)
{
	unsigned long long v;
	char name[32];
	int i, n;

	for (i = 2; i < argc; i++) {
		if (sscanf(argv[i], "%31[a-z_]=%llu%n", name, &v, &n) != 2 ||
		    argv[i][n])
			return -1;
		if (!strcmp(name, "max_conns"))
			o->max_conns = (unsigned int)v;
		else if (!strcmp(name, "timeout_ms"))
			o->timeout_ms = (unsigned int)v;
		else if (!strcmp(name, "max_request"))
			o->max_request = (unsigned int)v;
		else if (!strcmp(name, "max_held"))
			o->max_held = (size_t)v;
		else if (!strcmp(name, "pad"))
			d->pad = (size_t)v;
		else
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct drv d = { 0 };
	struct http_serve *s;
	int sfd, err;

	USDTKIT_OPTS(http_serve_opts, o, .content_type = PROM_CONTENT_TYPE,
		     .body = body, .body_ctx = &d, .print = print);
	if (argc < 2 || set_args(argc, argv, &o, &d)) {
		fprintf(stderr, "usage: http_serve_drv ADDR [max_conns=N] [timeout_ms=N] "
			"[max_request=N] [max_held=N] [pad=N]\n");
		return 2;
	}
	sfd = sig_fd();
	if (sfd < 0) {
		perror("http_serve_drv: signalfd");
		return 1;
	}
	err = usdtkit__http_serve_new(argv[1], &o, &s);
	if (err) {
		close(sfd);
		return 1;
	}
	printf("port %u\n", usdtkit__http_serve_port(s));
	fflush(stdout);
	err = run(s, sfd);
	if (err)
		fprintf(stderr, "http_serve_drv: %s\n", strerror(-err));
	fprintf(stderr, "http_serve_drv: %llu bodies made\n", d.scrapes);
	usdtkit__http_serve_free(s);
	close(sfd);
	return err ? 1 : 0;
}
