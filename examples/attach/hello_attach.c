// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The host side of the example: load hello.bpf.c (its skeleton), attach
 * it to every site of hello:greet in a program with usdtkit_attach(),
 * and print each hit the BPF program sends through its ring buffer.
 *
 *   hello_attach [-p PID] [-c COUNT] [-m auto|multi|perf|ipmap] PATH
 *
 * PATH is the traced executable or library; -p PID traces one process
 * of it (default: every process), -c stops after COUNT hits (default:
 * Ctrl-C). Needs root, or CAP_BPF and CAP_PERFMON.
 *
 * usdtkit and libbpf return errors as negative errno values (or NULL with
 * errno set); every error below is carried that way to main().
 */
/* getopt(), nanosleep(), sigaction(), kill() under -std=c11 too */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <usdtkit/attach.h>

#include "hello.h"
#include "hello.skel.h"		/* made by usdtkit_add_bpf_skeleton() */

struct state {
	unsigned long count;	/* stop after this many hits; 0: never */
	unsigned long seen;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * usdtkit's diagnostics: it never writes to stderr by itself, and the
 * message names the file, probe and argument an attach failed on, which
 * the errno alone cannot.
 */
static void on_usdtkit_msg(void *ctx, enum usdtkit_log_level level,
			   const char *msg)
{
	if (level <= USDTKIT_LOG_INFO)
		fprintf(stderr, "%s: usdtkit: %s\n", (const char *)ctx, msg);
}

/* One ring buffer record; a negative return stops ring_buffer__poll(). */
static int on_event(void *ctx, void *data, size_t size)
{
	const struct hello_event *e = data;
	struct state *st = ctx;

	if (size < sizeof(*e))
		return -EINVAL;
	/* one poll consumes every record that is waiting: past COUNT, the
	 * rest are not printed */
	if (st->count && st->seen >= st->count)
		return 0;
	printf("hello:greet pid %u seq %u value %lld who \"%s\" nargs %d cookie %llu",
	       e->pid, e->seq, (long long)e->value, e->who, e->nargs,
	       (unsigned long long)e->cookie);
	if (e->err)
		printf(" (argument 2: %s)", strerror(-e->err));
	putchar('\n');
	st->seen++;
	if (st->count && st->seen >= st->count)
		stop = 1;
	return 0;
}

static int usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-p PID] [-c COUNT] "
		"[-m auto|multi|perf|ipmap] PATH\n", prog);
	return 2;
}

int main(int argc, char **argv)
{
	enum usdtkit_mode mode = USDTKIT_MODE_AUTO;
	struct usdtkit_link *link = NULL;
	struct state st = { 0 };
	struct ring_buffer *rb = NULL;
	struct hello *skel;
	struct sigaction sa = { .sa_handler = on_signal };
	int pid = -1, c, err;

	while ((c = getopt(argc, argv, "p:c:m:h")) != -1) {
		switch (c) {
		case 'p':
			pid = atoi(optarg);
			break;
		case 'c':
			st.count = strtoul(optarg, NULL, 10);
			break;
		case 'm':
			err = usdtkit_mode_parse(optarg);
			if (err < 0)
				return usage(argv[0]);
			mode = err;
			break;
		default:
			return usage(argv[0]);
		}
	}
	if (optind != argc - 1)
		return usage(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0);

	/*
	 * Open: libusdtkit's libbpf handler recognizes SEC("usdtkit") and
	 * prepares the program for the best mode of this kernel. A forced
	 * mode must be set now, before load: a program loaded for
	 * uprobe_multi cannot be attached to perf events, nor the reverse.
	 */
	skel = hello__open();
	if (!skel) {
		err = -errno;
		fprintf(stderr, "opening the BPF program: %s\n", strerror(-err));
		return 1;
	}
	if (mode != USDTKIT_MODE_AUTO) {
		err = usdtkit_prog_prepare(skel->progs.on_greet, mode);
		if (err) {
			fprintf(stderr, "mode %s: %s\n", usdtkit_mode_str(mode),
				strerror(-err));
			goto out;
		}
	}
	err = hello__load(skel);
	if (err) {
		fprintf(stderr, "loading the BPF program: %s\n", strerror(-err));
		goto out;
	}

	/*
	 * Attach. USDTKIT_OPTS zeroes the struct (padding too) and sets its
	 * size, so this program keeps working with a newer libusdtkit. The
	 * cookie comes back in the BPF program as usdtkit_cookie(ctx): one
	 * program attached to several probes can tell them apart by it.
	 */
	USDTKIT_OPTS(usdtkit_attach_opts, opts,
		.cookie = 42,
		.mode = mode,
		.print = on_usdtkit_msg,
		.print_ctx = argv[0],
	);
	link = usdtkit_attach(skel->progs.on_greet, pid, argv[optind],
			      "hello", "greet", &opts);
	if (!link) {
		err = -errno;
		fprintf(stderr, "attaching to %s:hello:greet: %s\n",
			argv[optind], strerror(-err));
		goto out;
	}
	fprintf(stderr, "attached to %zu site(s) of hello:greet, mode %s\n",
		usdtkit_link_site_count(link),
		usdtkit_mode_str(usdtkit_link_mode(link)));

	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, &st,
			      NULL);
	if (!rb) {
		err = -errno;
		fprintf(stderr, "ring buffer: %s\n", strerror(-err));
		goto out;
	}

	/* no SA_RESTART: a signal interrupts the poll at once (-EINTR) */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!stop) {
		err = ring_buffer__poll(rb, 100 /* ms */);
		if (err == -EINTR)
			continue;	/* the loop condition sees the signal */
		if (err < 0) {
			fprintf(stderr, "ring buffer: %s\n", strerror(-err));
			goto out;
		}
		/* the traced process is gone: nothing more will come */
		if (pid > 0 && kill(pid, 0) && errno == ESRCH)
			break;
	}
	err = 0;
	if (skel->bss->dropped)
		fprintf(stderr, "%llu hits dropped (ring buffer full)\n",
			(unsigned long long)skel->bss->dropped);

out:
	/*
	 * Detach before freeing the program: when usdtkit_link_destroy()
	 * returns, the program runs at none of the sites. Every call here
	 * takes NULL.
	 */
	ring_buffer__free(rb);
	usdtkit_link_destroy(link);
	hello__destroy(skel);
	return err ? 1 : 0;
}
