// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit_proc_open()'s handle on each object (core/elf/proc.c): as root,
 * the /proc/PID/map_files link, which reaches a chrooted program that
 * /proc/PID/root/<path in maps> misses; without privilege (uid 65534,
 * as the program), the fallback /proc/PID/root/<path>, taken when it is
 * the inode mapped, and otherwise the object skipped with one line that
 * says why: another file at the path, or a deleted file. A dead pid is
 * refused. A process that maps two files in turn at one address, as
 * fast as it can: each object is read as the file maps named, or
 * skipped (gone) or refused (replaced) in one line. The program is
 * tests/fixtures/fx_box.c (static); the decoy, its other build, has its
 * tick elsewhere.
 * usage: test_proc_objs FX_BOX FX_BOX_DECOY
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "elf/proc.h"

#define NOBODY 65534

/* The messages of one usdtkit_proc_open(), one a line. */
struct msgs {
	char text[4096];
};

static void keep_msg(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	struct msgs *m = ctx;
	size_t n = strlen(m->text);

	(void)level;
	snprintf(m->text + n, sizeof(m->text) - n, "%s\n", msg);
}

static int copy(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	int err = in < 0 || out < 0 ? -errno : 0;

	while (!err && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			err = -EIO;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return err;
}

/* mkdir -p @path (cut and mended in place) */
static int mkdirs(char *path)
{
	char *s;
	int r;

	for (s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		r = mkdir(path, 0755);
		*s = '/';
		if (r && errno != EEXIST)
			return -errno;
	}
	return mkdir(path, 0755) && errno != EEXIST ? -errno : 0;
}

/* @tmp/@sub/app/boxed, a copy of @prog */
static int put_box(const char *tmp, const char *sub, const char *prog)
{
	char path[512];
	int err;

	snprintf(path, sizeof(path), "%s/%s/app", tmp, sub);
	err = mkdirs(path);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/%s/app/boxed", tmp, sub);
	return copy(prog, path);
}

struct box {
	pid_t pid;
	int in;			/* its stdin: closed, it exits */
};

/*
 * Run @path (under a chroot at @root unless NULL, as uid 65534 if
 * @nobody) until its "ready": 0, or -errno.
 */
static int box_start(struct box *b, const char *root, const char *path, bool nobody)
{
	char *argv[] = { (char *)path, "0", "1", NULL };
	int in[2], out[2];
	char line[16];
	ssize_t n;

	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	b->pid = fork();
	if (b->pid < 0)
		return -errno;
	if (!b->pid) {
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 ||
		    (root && (chroot(root) || chdir("/"))) ||
		    (nobody && (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
				setresuid(NOBODY, NOBODY, NOBODY))))
			_exit(126);
		execv(path, argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	b->in = in[1];
	n = read(out[0], line, sizeof(line) - 1);
	close(out[0]);
	return n == 6 && !memcmp(line, "ready\n", 6) ? 0 : -EIO;
}

static void box_stop(struct box *b)
{
	close(b->in);
	waitpid(b->pid, NULL, 0);
}

/* Object of @p with box:tick: its index, or -1 */
static int box_object(const struct usdtkit_proc *p)
{
	size_t i;

	for (i = 0; i < usdtkit_proc_object_count(p); i++)
		if (usdtkit_file_next_site(usdtkit_proc_object(p, i), NULL, "box", "tick"))
			return (int)i;
	return -1;
}

static bool has_decoy(const struct usdtkit_proc *p)
{
	size_t i;

	for (i = 0; i < usdtkit_proc_object_count(p); i++)
		if (usdtkit_file_next_site(usdtkit_proc_object(p, i), NULL, "box", "decoy"))
			return true;
	return false;
}

/* Open @pid's objects with @m collecting the messages; @kpath of the box. */
static struct usdtkit_proc *open_box(int pid, struct msgs *m, char *kpath, size_t size)
{
	USDTKIT_OPTS(usdtkit_open_opts, oo, .print = keep_msg, .print_ctx = m);
	struct usdtkit_proc *p;
	int i;

	m->text[0] = kpath[0] = 0;
	p = usdtkit_proc_open(pid, &oo);
	i = p ? box_object(p) : -1;
	if (i >= 0 && usdtkit__proc_object_kpath(p, (size_t)i, kpath, size))
		kpath[0] = 0;
	return p;
}

/* As root: a chrooted program is read through its map_files link. */
static void test_root(const char *tmp)
{
	char root[256], kpath[4200], want[64];
	struct box b;
	struct msgs m;
	struct usdtkit_proc *p;

	snprintf(root, sizeof(root), "%s/r2", tmp);
	CHECK(!box_start(&b, root, "/app/boxed", false), "box in %s", root);
	p = open_box(b.pid, &m, kpath, sizeof(kpath));
	snprintf(want, sizeof(want), "/proc/%d/map_files/", b.pid);
	CHECK(p && box_object(p) >= 0 && !has_decoy(p), "chroot: box:tick of the box's "
	      "file, not the decoy's: %s", m.text);
	CHECK(!strncmp(kpath, want, strlen(want)), "chroot: kpath '%s'", kpath);
	CHECK(p && usdtkit__proc_object_kpath(p, usdtkit_proc_object_count(p), kpath,
					      sizeof(kpath)) == -EINVAL, "index past the end");
	CHECK(p && usdtkit__proc_object_kpath(p, 0, kpath, 8) == -ENAMETOOLONG,
	      "kpath in 8 bytes");
	usdtkit_proc_close(p);
	box_stop(&b);
}

/*
 * Without privilege, the fallback and its refusals: run by a child that
 * drops to uid 65534 (its result: its exit status), on the boxes @b
 * (uid 65534 too): the path right, another file at the path, deleted.
 */
static int nobody_checks(const char *tmp, const struct box *b)
{
	char path[256], kpath[4200], want[1200];
	struct msgs m;
	struct usdtkit_proc *p;

	/* the path right: read through /proc/PID/root */
	snprintf(path, sizeof(path), "%s/r1/app/boxed", tmp);
	p = open_box(b[0].pid, &m, kpath, sizeof(kpath));
	snprintf(want, sizeof(want), "/proc/%d/root%s", b[0].pid, path);
	CHECK(p && box_object(p) >= 0, "nobody, path right: no box:tick: %s", m.text);
	CHECK(!strcmp(kpath, want), "nobody: kpath '%s', want '%s'", kpath, want);
	usdtkit_proc_close(p);

	/* another file at the path maps gives (the decoy, in the chroot) */
	snprintf(path, sizeof(path), "%s/r2", tmp);
	p = open_box(b[1].pid, &m, kpath, sizeof(kpath));
	CHECK(p && box_object(p) < 0 && !has_decoy(p), "nobody, another file: read");
	snprintf(want, sizeof(want), "pid %d: %s/app/boxed: skipped: its map_files link "
		 "is refused, and /proc/%d/root%s/app/boxed is another file (inode ",
		 b[1].pid, path, b[1].pid, path);
	CHECK(strstr(m.text, want) && strstr(m.text, "maps says"),
	      "nobody, another file: messages '%s'", m.text);
	usdtkit_proc_close(p);

	/* deleted: no path to it */
	snprintf(path, sizeof(path), "%s/del/app/boxed", tmp);
	p = open_box(b[2].pid, &m, kpath, sizeof(kpath));
	CHECK(p && box_object(p) < 0, "nobody, deleted: read");
	snprintf(want, sizeof(want), "pid %d: %s (deleted): skipped: /proc/%d/map_files/",
		 b[2].pid, path, b[2].pid);
	CHECK(strstr(m.text, want) && strstr(m.text, "a deleted file has no other path"),
	      "nobody, deleted: messages '%s'", m.text);
	usdtkit_proc_close(p);
	return check_failed ? 1 : 0;
}

static void test_nobody(const char *tmp)
{
	char path[256], root[256];
	struct box b[3] = { 0 };
	pid_t pid;
	int st = 0, i;

	snprintf(path, sizeof(path), "%s/r1/app/boxed", tmp);
	CHECK(!box_start(&b[0], NULL, path, true), "box %s", path);
	snprintf(root, sizeof(root), "%s/r2", tmp);
	CHECK(!box_start(&b[1], root, "/app/boxed", true), "box in %s", root);
	snprintf(path, sizeof(path), "%s/del/app/boxed", tmp);
	CHECK(!box_start(&b[2], NULL, path, true) && !unlink(path), "box %s, deleted",
	      path);
	fflush(NULL);
	pid = fork();
	if (!pid)
		_exit(setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		      setresuid(NOBODY, NOBODY, NOBODY) ? 3 : nobody_checks(tmp, b));
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      !WEXITSTATUS(st), "the unprivileged checks (status %d)", st);
	for (i = 0; i < 3; i++)
		if (b[i].pid > 0)
			box_stop(&b[i]);
}

#define CHURN_LEN (512 << 10)

/*
 * Map @a and @b in turn at one address, with nothing between them at
 * times, as fast as it goes (until killed): the mapping a reader found
 * in maps is often gone, or another file's, when it opens it.
 */
static void churn(const char *a, const char *b)
{
	int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY);
	void *at = mmap(NULL, CHURN_LEN, PROT_READ | PROT_EXEC, MAP_PRIVATE, fa, 0);

	if (fa < 0 || fb < 0 || at == MAP_FAILED)
		_exit(1);
	for (;;) {
		mmap(at, CHURN_LEN, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fb, 0);
		munmap(at, CHURN_LEN);
		mmap(at, CHURN_LEN, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fa, 0);
	}
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/*
 * usdtkit_proc_open() on the churn: it always answers, and reads each
 * object as the file maps named (the decoy's probe under its path
 * only); a mapping gone or replaced is skipped or refused in one line.
 */
static void test_churn(const char *tmp)
{
	char a[256], b[256];
	unsigned int read_a = 0, read_b = 0, gone = 0, refused = 0, other = 0;
	unsigned int opened = 0, wrong = 0;
	pid_t pid;
	int n;

	snprintf(a, sizeof(a), "%s/r1/app/boxed", tmp);
	snprintf(b, sizeof(b), "%s/r2%s/r2/app/boxed", tmp, tmp);
	fflush(NULL);
	pid = fork();
	if (!pid)
		churn(a, b);
	usleep(10000);
	for (n = 0; n < 300; n++) {
		struct msgs m = { .text = "" };
		USDTKIT_OPTS(usdtkit_open_opts, oo, .print = keep_msg, .print_ctx = &m);
		struct usdtkit_proc *p = usdtkit_proc_open(pid, &oo);
		char *line;
		size_t i;

		opened += !!p;
		for (i = 0; p && i < usdtkit_proc_object_count(p); i++) {
			const char *path = usdtkit_proc_object_path(p, i);
			bool is_b = ends_with(path, "/r2/app/boxed");
			bool has_b = usdtkit_file_next_site(usdtkit_proc_object(p, i), NULL,
							    "box", "decoy");

			if (!ends_with(path, "/app/boxed"))
				continue;
			wrong += is_b != has_b;
			read_a += !is_b;
			read_b += is_b;
		}
		usdtkit_proc_close(p);
		for (line = strtok(m.text, "\n"); line; line = strtok(NULL, "\n")) {
			if (ends_with(line, ": skipped: no longer mapped"))
				gone++;
			else if (strstr(line, ": refused: /proc/") &&
				 strstr(line, " is another file ("))
				refused++;
			else
				other++;
		}
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	printf("churn: 300 opens: %u read the box, %u the decoy, %u gone, "
	       "%u refused, %u other messages\n", read_a, read_b, gone, refused, other);
	CHECK(opened == 300, "churn: %u of 300 opens answered", opened);
	CHECK(!wrong, "churn: %u objects read from another file than maps named", wrong);
	CHECK(!other, "churn: %u unexpected messages", other);
}

static void test_dead(void)
{
	struct msgs m = { .text = "" };
	USDTKIT_OPTS(usdtkit_open_opts, oo, .print = keep_msg, .print_ctx = &m);
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	waitpid(pid, NULL, 0);
	errno = 0;
	CHECK(!usdtkit_proc_open(pid, &oo) && errno == ESRCH, "dead pid: errno %d", errno);
	CHECK(strstr(m.text, "cannot read"), "dead pid: messages '%s'", m.text);
}

int main(int argc, char **argv)
{
	char tmp[] = "/tmp/test_proc_objs.XXXXXX", path[300];

	if (argc != 3) {
		fprintf(stderr, "usage: test_proc_objs FX_BOX FX_BOX_DECOY\n");
		return 2;
	}
	test_dead();
	if (geteuid()) {
		printf("test_proc_objs: not root: chroot and uid 65534 not checked\n");
		return check_done();
	}
	CHECK(mkdtemp(tmp) && !chmod(tmp, 0755), "mkdtemp");
	/* the decoy where maps' path leads from the chroot: r2/<tmp>/r2 */
	snprintf(path, sizeof(path), "r2%s/r2", tmp);
	CHECK(!put_box(tmp, "r1", argv[1]) && !put_box(tmp, "del", argv[1]) &&
	      !put_box(tmp, "r2", argv[1]) && !put_box(tmp, path, argv[2]), "boxes");
	test_root(tmp);
	test_nobody(tmp);
	test_churn(tmp);
	snprintf(path, sizeof(path), "rm -rf %s", tmp);
	CHECK(!system(path), "%s", path);
	return check_done();
}
