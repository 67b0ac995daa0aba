// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * How soon a traced process is whole again: the time from
 * usdtkit_link_destroy() (or a failed attach) returning until no site of
 * a running target traps (its bytes read back from /proc/PID/mem are not
 * int3) and the probe's semaphore is 0 again.
 *
 *   restore_bench TARGET multi|perf|ipmap detach|fail
 *
 * TARGET comes from bench/attach_gen.sh -s (N sites of bench:site, one
 * semaphore, non-PIE). "fail" holds the last site with a uprobe of
 * another semaphore offset, so the attach fails there and is rolled back.
 * Needs root.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include <usdtkit/attach.h>

#include "trace.skel.h"

#define MAX_SITES 20000

struct target {
	pid_t pid;
	uint64_t pc[MAX_SITES];
	uint64_t sema;
	int n;
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sites that trap, and the semaphore, as the process sees them. */
static int target_state(const struct target *t, int *sema)
{
	unsigned short v = 0;
	unsigned char b;
	char path[64];
	int fd, i, traps = 0;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)t->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (i = 0; i < t->n; i++)
		traps += pread(fd, &b, 1, (off_t)t->pc[i]) == 1 && b == 0xcc;
	*sema = pread(fd, &v, sizeof(v), (off_t)t->sema) == sizeof(v) ? v : -1;
	close(fd);
	return traps;
}

static void print_msg(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	(void)ctx;
	if (level == USDTKIT_LOG_WARN)
		fprintf(stderr, "  usdtkit: %s\n", msg);
}

/* A uprobe at the last site with a semaphore offset that is not its own. */
static struct bpf_link *blocker(struct trace **skel, const char *path,
				const struct usdtkit_site *s)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o,
		    .ref_ctr_offset = usdtkit_site_semaphore_offset(s) + 64);
	struct bpf_link *l;

	*skel = trace__open();
	if (!*skel || usdtkit_prog_prepare((*skel)->progs.usdtkit_trace, USDTKIT_MODE_PERF) ||
	    trace__load(*skel))
		return NULL;
	l = bpf_program__attach_uprobe_opts((*skel)->progs.usdtkit_trace, -1, path,
					    usdtkit_site_pc_offset(s), &o);
	return libbpf_get_error(l) ? NULL : l;
}

int main(int argc, char **argv)
{
	static struct target t;
	const struct usdtkit_site *s = NULL, *last = NULL;
	struct trace *skel, *bskel = NULL;
	struct bpf_link *blk = NULL;
	struct usdtkit_link *l;
	struct usdtkit_file *f;
	int mode, traps, sema;
	bool fail;
	double t0, t1;

	if (argc != 4 || (mode = usdtkit_mode_parse(argv[2])) < 0) {
		fprintf(stderr, "usage: restore_bench TARGET multi|perf|ipmap detach|fail\n");
		return 2;
	}
	fail = !strcmp(argv[3], "fail");
	f = usdtkit_file_open(argv[1], NULL);
	while (f && t.n < MAX_SITES && (s = usdtkit_file_next_site(f, s, "bench", "site"))) {
		t.pc[t.n++] = usdtkit_site_pc(s);
		t.sema = usdtkit_site_semaphore(s);
		last = s;
	}
	skel = trace__open();
	if (!last || !t.sema || !skel ||
	    usdtkit_prog_prepare(skel->progs.usdtkit_trace, mode) || trace__load(skel)) {
		fprintf(stderr, "%s: no bench:site with a semaphore, or no BPF\n", argv[1]);
		return 1;
	}
	t.pid = fork();
	if (t.pid == 0) {
		execl(argv[1], argv[1], (char *)NULL);
		_exit(127);
	}
	usleep(100 * 1000);
	if (fail) {
		blk = blocker(&bskel, argv[1], last);
		if (!blk) {
			fprintf(stderr, "blocker uprobe: %s\n", strerror(errno));
			return 1;
		}
		t.n--;	/* the blocker's own breakpoint stays */
	}
	{
		USDTKIT_OPTS(usdtkit_attach_opts, o, .mode = mode, .print = print_msg);

		t0 = mono_s();
		l = usdtkit_attach(skel->progs.usdtkit_trace, -1, argv[1], "bench", "site", &o);
		t1 = mono_s();
	}
	if (fail) {
		printf("%s, %d sites: the failed attach returned in %.3f s\n", argv[2],
		       t.n, t1 - t0);
		usdtkit_link_destroy(l);
	} else {
		traps = target_state(&t, &sema);
		printf("%s, %d sites: attached in %.3f s, %d sites trap, semaphore %d\n",
		       argv[2], t.n, t1 - t0, traps, sema);
		t0 = mono_s();
		usdtkit_link_destroy(l);
		t1 = mono_s();
		printf("  usdtkit_link_destroy() returned in %.3f s\n", t1 - t0);
	}
	do {
		traps = target_state(&t, &sema);
		if (!traps && !sema)
			break;
		usleep(1000);
	} while (mono_s() - t1 < 600);
	printf("  %.3f s later: %d sites trap, semaphore %d\n", mono_s() - t1, traps, sema);
	kill(t.pid, SIGKILL);
	waitpid(t.pid, NULL, 0);
	bpf_link__destroy(blk);
	trace__destroy(bskel);
	trace__destroy(skel);
	usdtkit_file_close(f);
	return traps || sema;
}
