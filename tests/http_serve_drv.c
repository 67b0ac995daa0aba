// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The test driver of cli/http_serve.c (tests/http_hostile.py): serves
 * GET /metrics on ADDR from a poll loop like trace's (the server's fd and
 * a signalfd), until SIGTERM or SIGINT. The body is a fixed family and a
 * counter of the bodies made so far, written with cli/prom.c. Prints
 * "port N" once listening.
 *   http_serve_drv ADDR [MAX_CONNS TIMEOUT_MS MAX_REQUEST]
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

#include "http_serve.h"
#include "prom.h"

struct drv {
	unsigned long long scrapes;
};

static int body(void *ctx, char **data, size_t *len)
{
	struct drv *d = ctx;
	struct prom_buf b;

	d->scrapes++;
	prom_init(&b);
	prom_family(&b, "drv_fixed", "gauge", "A fixed value.");
	prom_sample(&b, "drv_fixed", NULL,
		    (struct prom_label[]){ PROM_LABEL("k", "v\"\\\n\x80") }, 1,
		    PROM_U64(18446744073709551615ull));
	prom_family(&b, "drv_scrapes_total", "counter",
		    "Bodies made, this one included.");
	prom_sample(&b, "drv_scrapes_total", NULL, NULL, 0, PROM_U64(d->scrapes));
	return prom_finish(&b, data, len);
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
		{ .fd = http_serve_fd(s), .events = POLLIN },
		{ .fd = sfd, .events = POLLIN },
	};
	int err;

	for (;;) {
		if (poll(fds, 2, http_serve_timeout(s, now_ms())) < 0 &&
		    errno != EINTR)
			return -errno;
		if (fds[1].revents)
			return 0;
		err = http_serve_step(s, now_ms());
		if (err)
			return err;
	}
}

int main(int argc, char **argv)
{
	struct drv d = { 0 };
	struct http_serve *s;
	int sfd, err;

	if (argc != 2 && argc != 5) {
		fprintf(stderr, "usage: http_serve_drv ADDR [MAX_CONNS TIMEOUT_MS MAX_REQUEST]\n");
		return 2;
	}
	USDTKIT_OPTS(http_serve_opts, o, .content_type = PROM_CONTENT_TYPE,
		     .body = body, .body_ctx = &d, .print = print);
	if (argc == 5) {
		o.max_conns = (unsigned int)atoi(argv[2]);
		o.timeout_ms = (unsigned int)atoi(argv[3]);
		o.max_request = (unsigned int)atoi(argv[4]);
	}
	sfd = sig_fd();
	if (sfd < 0) {
		perror("http_serve_drv: signalfd");
		return 1;
	}
	err = http_serve_new(argv[1], &o, &s);
	if (err) {
		close(sfd);
		return 1;
	}
	printf("port %u\n", http_serve_port(s));
	fflush(stdout);
	err = run(s, sfd);
	if (err)
		fprintf(stderr, "http_serve_drv: %s\n", strerror(-err));
	fprintf(stderr, "http_serve_drv: %llu bodies made\n", d.scrapes);
	http_serve_free(s);
	close(sfd);
	return err ? 1 : 0;
}
