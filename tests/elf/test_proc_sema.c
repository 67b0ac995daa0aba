// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit_proc_semaphore() on a live process (tests/fixtures/fx_sema.c), which
 * sets its own semaphore on command: 0 at first, then the values it was
 * told (258: both bytes count), -ENOENT for a probe without semaphore,
 * -EINVAL for a site of another handle on the same file, -ESRCH once the
 * process has exec'd or exited. Both fixtures are tests/fixtures/fx_sema.c; the
 * second is linked so that its text mapping shares the semaphore's file
 * page with the data mapping (the read-only copy holds the file's 0).
 * usage: test_proc_sema FIXTURE SHARED_PAGE_FIXTURE
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fx_proc.h"

struct fx {
	pid_t pid;
	FILE *in, *out;		/* its stdin and stdout */
};

/* Read one line of the fixture: whether it is @want. */
static bool fx_expect(struct fx *fx, const char *want)
{
	char line[64];

	if (!fgets(line, sizeof(line), fx->out))
		return false;
	line[strcspn(line, "\n")] = 0;
	return !strcmp(line, want);
}

static bool fx_say(struct fx *fx, const char *cmd, const char *want)
{
	fprintf(fx->in, "%s\n", cmd);
	fflush(fx->in);
	return fx_expect(fx, want);
}

static int fx_start(struct fx *fx, const char *path)
{
	int err = fx_proc_start(path, &fx->pid, &fx->in, &fx->out);

	if (err)
		return err;
	return fx_expect(fx, "ready") ? 0 : -EIO;
}

static void fx_stop(struct fx *fx)
{
	fx_proc_stop(&fx->pid, &fx->in, &fx->out);
	memset(fx, 0, sizeof(*fx));
}

struct sites {
	const struct usdtkit_site *guarded, *plain;
	const char *path;	/* the object's path in the maps */
};

static bool find_sites(const struct usdtkit_proc *p, struct sites *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < usdtkit_proc_object_count(p); i++) {
		const struct usdtkit_file *f = usdtkit_proc_object(p, i);

		s->guarded = usdtkit_file_next_site(f, NULL, "fxsema", "guarded");
		s->plain = usdtkit_file_next_site(f, NULL, "fxplain", "tick");
		if (s->guarded && s->plain) {
			s->path = usdtkit_proc_object_path(p, i);
			return true;
		}
	}
	return false;
}

/* How many mappings of @path in @pid hold file offset @off, and how many
 * of those are writable: what makes the second fixture the hard case. */
static int maps_covering(pid_t pid, const char *path, uint64_t off, int *writable)
{
	char fname[64], line[4200], perms[8];
	uint64_t start, end, moff;
	int n = 0, pos;
	FILE *f;

	*writable = 0;
	snprintf(fname, sizeof(fname), "/proc/%d/maps", (int)pid);
	f = fopen(fname, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		pos = 0;
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n",
			   &start, &end, perms, &moff, &pos) < 4 || !pos ||
		    strcmp(line + pos, path) || off < moff || off - moff >= end - start)
			continue;
		n++;
		*writable += perms[1] == 'w';
	}
	fclose(f);
	return n;
}

/* The semaphore as the library reads it; -errno, or the value. */
static int sema(const struct usdtkit_proc *p, const struct usdtkit_site *s)
{
	uint16_t v = 0xbeef;
	int err = usdtkit_proc_semaphore(p, s, &v);

	return err ? err : v;
}

static void check_values(const char *fx_path, struct fx *fx,
			 const struct usdtkit_proc *p, const struct sites *s)
{
	static const char *const raise[] = { "258", "1", "65535", "0" };
	size_t i;

	CHECK(sema(p, s->guarded) == 0, "%s: idle semaphore: %d", fx_path,
	      sema(p, s->guarded));
	for (i = 0; i < sizeof(raise) / sizeof(raise[0]); i++) {
		CHECK(fx_say(fx, raise[i], "ok"), "%s: fixture did not set %s",
		      fx_path, raise[i]);
		CHECK(sema(p, s->guarded) == atoi(raise[i]), "%s: set %s, read %d",
		      fx_path, raise[i], sema(p, s->guarded));
	}
	CHECK(sema(p, s->plain) == -ENOENT, "%s: probe without semaphore: %d",
	      fx_path, sema(p, s->plain));
}

/* Bad arguments: never a value, never a crash. */
static void check_einval(const char *fx_path, const struct usdtkit_proc *p,
			 const struct sites *s)
{
	struct usdtkit_file *other = usdtkit_file_open(fx_path, NULL);
	const struct usdtkit_site *os;
	uint16_t v = 0;

	/* the same file, through another handle: not a site of @p */
	os = usdtkit_file_next_site(other, NULL, "fxsema", "guarded");
	CHECK(os, "%s: no fxsema:guarded in a file handle", fx_path);
	if (os)
		CHECK(sema(p, os) == -EINVAL, "%s: site of another handle: %d",
		      fx_path, sema(p, os));
	usdtkit_file_close(other);
	CHECK(usdtkit_proc_semaphore(NULL, s->guarded, &v) == -EINVAL, "NULL proc");
	CHECK(usdtkit_proc_semaphore(p, NULL, &v) == -EINVAL, "NULL site");
	CHECK(usdtkit_proc_semaphore(p, s->guarded, NULL) == -EINVAL, "NULL value");
}

/*
 * exec: the handle's maps describe an address space that is gone, and
 * must not be read at the new program's addresses. Then the exit, seen
 * through a handle opened after the exec.
 */
static void check_exec_exit(const char *fx_path, struct fx *fx,
			    const struct usdtkit_proc *p, const struct sites *s)
{
	struct usdtkit_proc *again;
	struct sites s2;

	CHECK(fx_say(fx, "exec", "ready"), "%s: exec", fx_path);
	CHECK(sema(p, s->guarded) == -ESRCH, "%s: after exec: %d", fx_path,
	      sema(p, s->guarded));
	again = usdtkit_proc_open(fx->pid, NULL);
	CHECK(again && find_sites(again, &s2), "%s: reopen after exec", fx_path);
	if (again && s2.guarded) {
		CHECK(fx_say(fx, "7", "ok"), "%s: set 7 after exec", fx_path);
		CHECK(sema(again, s2.guarded) == 7, "%s: after exec, reopened: %d",
		      fx_path, sema(again, s2.guarded));
	}
	fx_stop(fx);
	if (again && s2.guarded)
		CHECK(sema(again, s2.guarded) == -ESRCH, "%s: after exit: %d",
		      fx_path, sema(again, s2.guarded));
	usdtkit_proc_close(again);
}

static void run_fixture(const char *fx_path, bool shared_page)
{
	struct usdtkit_proc *p;
	struct fx fx = { 0 };
	struct sites s;
	int n, w;

	CHECK(fx_start(&fx, fx_path) == 0, "%s: cannot start it", fx_path);
	p = fx.pid > 0 ? usdtkit_proc_open(fx.pid, NULL) : NULL;
	CHECK(p && find_sites(p, &s), "%s: pid %d: no fxsema:guarded and "
	      "fxplain:tick (%s)", fx_path, (int)fx.pid, strerror(errno));
	if (!p || !s.guarded) {
		usdtkit_proc_close(p);
		fx_stop(&fx);
		return;
	}
	n = maps_covering(fx.pid, s.path, usdtkit_site_semaphore_offset(s.guarded), &w);
	if (shared_page)
		CHECK(n >= 2 && w == 1, "%s: %d mappings (%d writable) hold the "
		      "semaphore's page, want a read-only one too", fx_path, n, w);
	else
		CHECK(n == 1 && w == 1, "%s: %d mappings (%d writable) hold the "
		      "semaphore's page", fx_path, n, w);
	check_values(fx_path, &fx, p, &s);
	check_einval(fx_path, p, &s);
	check_exec_exit(fx_path, &fx, p, &s);
	usdtkit_proc_close(p);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_proc_sema FIXTURE SHARED_PAGE_FIXTURE\n");
		return 2;
	}
	run_fixture(argv[1], false);
	run_fixture(argv[2], true);
	return check_done();
}
