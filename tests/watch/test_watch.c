// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * watch/: the objects seen, by inode (objects.c), and the tracer that
 * holds threads (hold.c), on this process and on children, with no BPF:
 *   - a library loaded later is the one unseen object, then seen;
 *   - our loader is found (AT_BASE), once; PT_INTERP names the same file;
 *     a script's is its interpreter's, through #! lines a few deep;
 *   - the tracer passes a job-control stop on to the parent as it came
 *     (the parent's waitpid(WUNTRACED) sees it) and a SIGUSR1 to the
 *     process's handler; it holds an exec until released; a process
 *     killed while seized holds nothing;
 *   - an exec of a file in a directory of exec.c's group is held until
 *     released, let go after 2 s unanswered or when the tracer stops.
 * Needs ptrace rights on its children (root, or Yama ptrace_scope 0).
 * usage: test_watch FIXTURE_DIR (where libfx_plug.so is)
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "check.h"
#include "watch/watch.h"

static void test_objects(const char *dir)
{
	USDTKIT_OPTS(usdtkit_open_opts, oo);
	struct usdtkit__watch *w;
	struct usdtkit_proc *p;
	char lib[4096], path[4352], interp[4096];
	struct stat a, b;
	bool *only = NULL;
	size_t n = 0, i;
	void *h;

	CHECK(!usdtkit__watch_new(&w, NULL, false), "watch_new");
	/* what is mapped now (libstdc++ has probes, and ASan maps it) is
	 * attached, say */
	p = usdtkit_proc_open(getpid(), &oo);
	CHECK(p && !usdtkit__watch_see(w, p, NULL), "see what is mapped now");
	CHECK(p && !usdtkit__watch_unseen(w, p, &only, &n) && n == 0,
	      "nothing new once seen: %zu", n);
	free(only);
	usdtkit_proc_close(p);
	snprintf(lib, sizeof(lib), "%s/libfx_plug.so", dir);
	h = dlopen(lib, RTLD_NOW);
	CHECK(h, "dlopen %s: %s", lib, dlerror());
	p = usdtkit_proc_open(getpid(), &oo);
	CHECK(p && !usdtkit__watch_unseen(w, p, &only, &n) && n == 1,
	      "the plugin is the one new object: %zu", n);
	for (i = 0; p && i < usdtkit_proc_object_count(p); i++)
		if (only[i])
			CHECK(strstr(usdtkit_proc_object_path(p, i), "libfx_plug.so"),
			      "new: %s", usdtkit_proc_object_path(p, i));
	CHECK(p && !usdtkit__watch_see(w, p, only), "see");
	free(only);
	CHECK(p && !usdtkit__watch_unseen(w, p, &only, &n) && n == 0,
	      "seen once attached: %zu new", n);
	free(only);
	usdtkit_proc_close(p);
	/* a path to the same inode is seen too, whatever its name */
	CHECK(!usdtkit__watch_see_path(w, lib), "see_path");
	CHECK(usdtkit__watch_see_path(w, "/nonexistent/x") == -ENOENT, "missing path");

	CHECK(!usdtkit__watch_loader(w, getpid(), path, sizeof(path)),
	      "our loader is found");
	CHECK(usdtkit__watch_loader(w, getpid(), path, sizeof(path)) == -EALREADY,
	      "and once only");
	CHECK(!usdtkit__watch_interp("/proc/self/exe", interp, sizeof(interp)) &&
	      !stat(interp, &a) && !stat(path, &b) && a.st_ino == b.st_ino &&
	      a.st_dev == b.st_dev, "PT_INTERP %s is the loader mapped, %s", interp, path);
	CHECK(usdtkit__watch_loader_path(w, interp) == -EALREADY, "seen by its path");
	CHECK(usdtkit__watch_loader(w, 0x7fffffff, path, sizeof(path)) == -ESRCH,
	      "a pid that does not exist");

	/* --all attaches only what this machine runs: the plugin, and not
	 * the same file made an arm64 one (its e_machine) */
	{
		char foreign[] = "/tmp/usdtkit-foreign-XXXXXX";
		unsigned short em = 183;	/* EM_AARCH64 */
		struct usdtkit_file *f = usdtkit_file_open(lib, &oo);
		int fd = mkstemp(foreign), src = open(lib, O_RDONLY);
		char buf[65536];
		ssize_t got;

		CHECK(f && usdtkit__watch_native(f, usdtkit__watch_self_arch()),
		      "the plugin is native");
		usdtkit_file_close(f);
		while (fd >= 0 && src >= 0 && (got = read(src, buf, sizeof(buf))) > 0)
			CHECK(write(fd, buf, (size_t)got) == got, "copy");
		CHECK(fd >= 0 && pwrite(fd, &em, sizeof(em), 18) == sizeof(em), "e_machine");
		f = usdtkit_file_open(foreign, &oo);
		CHECK(!usdtkit__watch_native(f, usdtkit__watch_self_arch()),
		      "an arm64 file is not (opened: %d)", f != NULL);
		usdtkit_file_close(f);
		if (src >= 0)
			close(src);
		if (fd >= 0)
			close(fd);
		unlink(foreign);
	}
	usdtkit__watch_free(w);
	dlclose(h);
}

static volatile sig_atomic_t usr1;

static void on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

/* a child that waits for a byte on @fd, then execs /bin/true, or exits
 * 3 if its SIGUSR1 handler did not run (the parent sends SIGUSR1 before
 * the byte: pending then, it is delivered before read() returns) */
static pid_t child(int fd)
{
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
	pid_t pid;
	char c;

	sigaction(SIGUSR1, &sa, NULL);
	pid = fork();
	if (pid)
		return pid;
	if (read(fd, &c, 1) != 1)
		_exit(4);
	if (!usr1)
		_exit(3);
	execl("/bin/true", "true", (char *)NULL);
	_exit(5);
}

/* the next held thread, waiting up to @ms */
static int next_held(struct usdtkit__hold *h, struct usdtkit__hold_event *ev, int ms)
{
	struct pollfd pf = { .fd = usdtkit__hold_fd(h), .events = POLLIN };
	int n = usdtkit__hold_next(h, ev);

	if (n)
		return n;
	if (poll(&pf, 1, ms) <= 0)
		return 0;
	return usdtkit__hold_next(h, ev);
}

static void test_hold(void)
{
	struct usdtkit__hold_opts o = { .signal = SIGSTOP };
	struct usdtkit__hold_event ev;
	struct usdtkit__hold *h;
	int go[2], st, err;
	pid_t pid;

	CHECK(!pipe(go), "pipe");
	pid = child(go[0]);
	CHECK(!usdtkit__hold_start(&h, &o), "hold_start");
	err = usdtkit__hold_seize(h, pid);
	if (err == -EPERM) {
		printf("note: ptrace denied here: the tracer's part was not run\n");
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		usdtkit__hold_stop(h);
		return;
	}
	CHECK(!err, "seize: %s", strerror(-err));
	CHECK(usdtkit__hold_seize(h, 0x7fffffff) == -ESRCH, "seize a pid that does not exist");
	/* a job-control stop goes to the parent as it would untraced */
	kill(pid, SIGSTOP);
	CHECK(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st) &&
	      WSTOPSIG(st) == SIGSTOP, "the parent sees the stop: %#x", st);
	kill(pid, SIGCONT);
	CHECK(waitpid(pid, &st, WCONTINUED) == pid && WIFCONTINUED(st),
	      "and the continue: %#x", st);
	/* a signal reaches the handler; the exec is held, then let go */
	kill(pid, SIGUSR1);
	CHECK(write(go[1], "g", 1) == 1, "go");
	CHECK(next_held(h, &ev, 5000) == 1 && ev.why == USDTKIT__HOLD_EXEC &&
	      ev.tid == pid && ev.tgid == pid, "the exec is held: %d %d", ev.why, ev.tid);
	CHECK(waitpid(pid, &st, WNOHANG) == 0, "held: it has not ended");
	CHECK(!usdtkit__hold_release(h, pid), "release");
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	      "it ran /bin/true: %#x", st);
	usdtkit__hold_stop(h);

	/* a process that dies while seized: nothing held, a clean stop */
	CHECK(!usdtkit__hold_start(&h, &o), "hold_start again");
	pid = child(go[0]);
	CHECK(!usdtkit__hold_seize(h, pid), "seize again");
	kill(pid, SIGKILL);
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st), "killed: %#x", st);
	CHECK(next_held(h, &ev, 300) == 0, "no hold for a death without TRACEEXIT");
	usdtkit__hold_stop(h);
	close(go[0]);
	close(go[1]);
}

/* A child that execs @path (a copy of /bin/true) once told to: its
 * fork first, so that only its exec is held. */
static pid_t exec_child(int fd, const char *path)
{
	pid_t pid = fork();
	char c;

	if (pid)
		return pid;
	if (read(fd, &c, 1) != 1)
		_exit(4);
	execl(path, path, (char *)NULL);
	_exit(5);
}

/* the child did not end (its exec not done) within @ms */
static bool still_waits(pid_t pid, int ms)
{
	int st;

	usleep((useconds_t)ms * 1000);
	return waitpid(pid, &st, WNOHANG) == 0;
}

/*
 * exec.c's group on a directory, answered by the tracer: an exec of a
 * file there waits until released, then runs; one never released goes
 * on after 2 s, said (EXPIRED, key < 0); the tracer's end lets a
 * waiting exec go; an exec elsewhere is not held.
 */
static void test_exec_hold(void)
{
	struct usdtkit__hold_opts o = { .signal = SIGSTOP, .execs = true };
	struct usdtkit__hold_event ev;
	struct usdtkit__hold *h;
	char dir[] = "/tmp/usdtkit-exec-XXXXXX", bin[64], cmd[128];
	int go[2], st, group, late;
	pid_t pid;

	CHECK(mkdtemp(dir), "mkdtemp");
	snprintf(bin, sizeof(bin), "%s/true", dir);
	snprintf(cmd, sizeof(cmd), "cp /bin/true %s", bin);
	CHECK(!system(cmd), "%s", cmd);
	group = usdtkit__exec_group();
	if (group == -EPERM || group == -EINVAL) {
		printf("SKIP exec holds: no fanotify permission events here: %s\n",
		       strerror(-group));
		goto out;
	}
	CHECK(group >= 0, "exec_group: %s", strerror(-group));
	CHECK(!usdtkit__exec_mark(group, dir), "mark %s", dir);
	CHECK(usdtkit__exec_mark(group, "/nonexistent/dir") == -ENOENT, "mark a missing dir");
	o.exec_group = group;
	CHECK(!pipe(go), "pipe");
	CHECK(!usdtkit__hold_start(&h, &o), "hold_start with a group");
	close(group);

	/* held, then released */
	pid = exec_child(go[0], bin);
	CHECK(write(go[1], "g", 1) == 1, "go");
	CHECK(next_held(h, &ev, 5000) == 1 && ev.why == USDTKIT__HOLD_OPEN_EXEC &&
	      ev.tid == pid && ev.tgid == pid && ev.key < 0,
	      "the exec is held: why %d pid %d key %d", ev.why, ev.tid, ev.key);
	CHECK(still_waits(pid, 200), "held: its exec waits");
	CHECK(!usdtkit__hold_release(h, ev.key), "release");
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	      "it ran %s: %#x", bin, st);

	/* an exec elsewhere: not held */
	pid = exec_child(go[0], "/bin/true");
	CHECK(write(go[1], "g", 1) == 1, "go");
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	      "/bin/true ran: %#x", st);
	CHECK(next_held(h, &ev, 200) == 0, "an exec outside the directory is not held");

	/* never answered: let go after 2 s, said */
	pid = exec_child(go[0], bin);
	CHECK(write(go[1], "g", 1) == 1, "go");
	CHECK(next_held(h, &ev, 5000) == 1 && ev.why == USDTKIT__HOLD_OPEN_EXEC,
	      "held again");
	CHECK(next_held(h, &ev, 5000) == 1 && ev.why == USDTKIT__HOLD_EXPIRED &&
	      ev.key < 0 && ev.tgid == pid, "expired: why %d key %d pid %d",
	      ev.why, ev.key, ev.tgid);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	      "then it ran: %#x", st);
	late = ev.key;

	/* a release that comes after its hold expired lets no later hold
	 * go (the next exec's event may well have the same fd) */
	pid = exec_child(go[0], bin);
	CHECK(write(go[1], "g", 1) == 1, "go");
	CHECK(next_held(h, &ev, 5000) == 1 && ev.why == USDTKIT__HOLD_OPEN_EXEC &&
	      ev.key != late, "held once more, under a key of its own: %d", ev.key);
	CHECK(!usdtkit__hold_release(h, late), "the late release");
	CHECK(still_waits(pid, 300), "the late release let the new hold go");
	CHECK(!usdtkit__hold_release(h, ev.key), "its own release");
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	      "released: %#x", st);

	/* the tracer ends while an exec waits: it goes on */
	pid = exec_child(go[0], bin);
	CHECK(write(go[1], "g", 1) == 1, "go");
	CHECK(next_held(h, &ev, 5000) == 1 && ev.why == USDTKIT__HOLD_OPEN_EXEC,
	      "held before the stop");
	usdtkit__hold_stop(h);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	      "let go by the stop: %#x", st);
	close(go[0]);
	close(go[1]);
out:
	unlink(bin);
	rmdir(dir);
}

/* a script at @path (mode 0755) whose text is @text */
static void put_script(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);

	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text),
	      "write %s", path);
	close(fd);
}

/* -c of a script: the loader it runs first is its interpreter's */
static void test_run_interp(void)
{
	char dir[] = "/tmp/usdtkit-interp-XXXXXX", a[64], b[64], c[64], d[64];
	char want[4096], sh[4096], got[4096], text[128];

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	snprintf(c, sizeof(c), "%s/c", dir);
	snprintf(d, sizeof(d), "%s/d", dir);
	put_script(a, "#!/bin/sh\nexec true\n");
	snprintf(text, sizeof(text), "#! %s -x\n", a);	/* a script's script */
	put_script(b, text);
	put_script(c, "echo no line\n");
	snprintf(text, sizeof(text), "#!%s\n", d);	/* itself, for ever */
	put_script(d, text);
	CHECK(!usdtkit__watch_interp("/bin/sh", sh, sizeof(sh)), "/bin/sh's loader");
	CHECK(!usdtkit__watch_run_interp("/bin/sh", want, sizeof(want)) &&
	      !strcmp(want, sh), "an ELF program's own: %s", want);
	CHECK(!usdtkit__watch_run_interp(a, got, sizeof(got)) && !strcmp(got, sh),
	      "#!/bin/sh: %s", got);
	CHECK(!usdtkit__watch_run_interp(b, got, sizeof(got)) && !strcmp(got, sh),
	      "#! a script: %s", got);
	CHECK(usdtkit__watch_run_interp(c, got, sizeof(got)) == -ENOENT, "no #! line");
	CHECK(usdtkit__watch_run_interp(d, got, sizeof(got)) == -ELOOP, "a loop");
	unlink(a);
	unlink(b);
	unlink(c);
	unlink(d);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_watch FIXTURE_DIR\n");
		return 2;
	}
	test_objects(argv[1]);
	test_hold();
	test_exec_hold();
	test_run_interp();
	return check_done();
}
