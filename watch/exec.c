// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An exec held until the file it runs is attached: fanotify's
 * FAN_OPEN_EXEC_PERM on a directory. execve() opens the file for exec
 * and waits for our answer before it maps anything; a uprobe attached to
 * that inode meanwhile is in place when the program maps it, so a
 * process started right after an upgrade renamed a new file over a
 * traced one is counted from its first instruction.
 *
 * Why fanotify and not the tracer's ptrace: a PATH target is not a
 * process we trace, any process may exec the file; and an exec-open
 * permission event stops only the exec, in the kernel, before the new
 * program exists: its parent, job control and the program see nothing
 * but a slower execve(). The cost falls on every exec of a file in the
 * directory (a round trip to the tracer), not only the target's.
 *
 * The group is answered by the tracer process (hold.c), not the engine:
 * it lets an exec go after 2 s unanswered, and when it dies the group is
 * closed with it, which answers every exec waiting (the kernel allows
 * them). The engine makes the group and its marks and closes its own
 * copy once the tracer has it. Needs CAP_SYS_ADMIN and a kernel with
 * CONFIG_FANOTIFY_ACCESS_PERMISSIONS (Linux 5.0 for the exec event).
 */
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/fanotify.h>
#include <sys/stat.h>

#include "base/kernel.h"
#include "watch/watch.h"

int usdtkit__exec_group(void)
{
	/* (O_NONBLOCK: the fd of a fifo's open event must not wait for a
	 * writer) */
	int fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK,
			       O_RDONLY | O_CLOEXEC | O_LARGEFILE | O_NONBLOCK);

	return fd < 0 ? -errno : fd;
}

int usdtkit__exec_mark(int group, const char *dir)
{
	if (fanotify_mark(group, FAN_MARK_ADD, FAN_OPEN_EXEC_PERM | FAN_EVENT_ON_CHILD,
			  AT_FDCWD, dir))
		return -errno;
	return 0;
}

#ifndef FAN_MARK_EVICTABLE
#define FAN_MARK_EVICTABLE 0x00000200	/* Linux 5.19 */
#endif

/*
 * Filesystems that hold no program anyone execs, or that fanotify
 * cannot mark whole: not marked. (A program on one of them, which no
 * distribution puts there, is found at its loader's news instead.)
 */
static const char *const no_programs[] = {
	"proc", "sysfs", "cgroup", "cgroup2", "devpts", "mqueue", "debugfs",
	"tracefs", "securityfs", "pstore", "bpf", "configfs", "fusectl",
	"hugetlbfs", "autofs", "binfmt_misc", "nsfs", "efivarfs", "rpc_pipefs",
	"selinuxfs", "devtmpfs",
};

/* memory filesystems: execs held, not opens (see the header) */
static const char *const in_memory[] = { "tmpfs", "shm", "ramfs" };

static bool in_table(const char *const *v, size_t n, const char *type)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(type, v[i]))
			return true;
	return false;
}

/* mountinfo's octal escapes (\040 a space) undone, in place */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++, d++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*d = *s;
		}
	}
	*d = 0;
}

/*
 * Whether the filesystem mounted at @mnt keeps device nodes of its own
 * in its /dev (a board's static /dev on its root): its opens are not
 * held, only its execs. Holding an open makes fanotify open the file
 * for us too, and opening a device is not free of effects (a watchdog
 * opened, then closed, is armed).
 */
static bool own_devices(const char *mnt)
{
	char dev[4200];
	struct stat a, b;

	snprintf(dev, sizeof(dev), "%s/dev", strcmp(mnt, "/") ? mnt : "");
	return !stat(mnt, &a) && !stat(dev, &b) && S_ISDIR(b.st_mode) &&
	       a.st_dev == b.st_dev;
}

/*
 * A filesystem mark for each mount's superblock (marking one twice adds
 * nothing). A mount that cannot be marked (a filesystem without the
 * ids fanotify needs) is passed over: its execs are not held.
 */
int usdtkit__exec_mark_mounts(int group, bool opens, char *execs_only, size_t size)
{
	char *line = NULL;
	size_t cap = 0;
	int n = 0;
	uint64_t mask;
	bool memory;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char mnt[4096], type[64], *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    sscanf(dash + 3, "%63s", type) != 1 ||
		    in_table(no_programs, sizeof(no_programs) / sizeof(no_programs[0]), type))
			continue;
		unescape(mnt);
		memory = in_table(in_memory, sizeof(in_memory) / sizeof(in_memory[0]), type);
		mask = opens && !memory && !own_devices(mnt) ? FAN_OPEN_PERM :
			FAN_OPEN_EXEC_PERM;
		if (!fanotify_mark(group, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, mask,
				   AT_FDCWD, mnt))
			n++;
		else if (opens && !memory)
			mask = 0;
		/* a disk's whose opens are not held: named, the first */
		if (opens && !memory && mask != FAN_OPEN_PERM && size && !*execs_only)
			snprintf(execs_only, size, "%s", mnt);
	}
	free(line);
	fclose(f);
	return n;
}

/* (in the tracer: system calls only) */
int usdtkit__exec_ignore(int group, int fd)
{
	if (fanotify_mark(group, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK | FAN_MARK_EVICTABLE,
			  FAN_OPEN_PERM | FAN_OPEN_EXEC_PERM, fd, NULL))
		return -errno;
	return 0;
}

bool usdtkit__exec_can_remember(int group)
{
	int fd;
	bool ok;

	/* a kernel before 5.19 takes the flag and ignores it (Debian's
	 * 5.10 did): a mark that pins its inode, a deleted file's blocks
	 * kept; so the version first, then an evictable mark on a file of
	 * ours, taken back at once */
	if (!usdtkit__kernel_at_least(5, 19))
		return false;
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = !fanotify_mark(group, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK | FAN_MARK_EVICTABLE,
			    FAN_OPEN_EXEC_PERM, fd, NULL);
	if (ok)
		fanotify_mark(group, FAN_MARK_REMOVE | FAN_MARK_IGNORED_MASK,
			      FAN_OPEN_EXEC_PERM, fd, NULL);
	close(fd);
	return ok;
}

/* (in the tracer: system calls only) */
int usdtkit__exec_read(int group, struct usdtkit__exec_open *ev, int max)
{
	struct fanotify_event_metadata buf[USDTKIT__EXEC_BATCH], *m = buf;
	size_t room = (size_t)(max < USDTKIT__EXEC_BATCH ? max : USDTKIT__EXEC_BATCH);
	/* a read gives whole events only, as many as fit: sized to the
	 * caller's room, none is read that could not be held (the rest
	 * wait in the group for the next read) */
	ssize_t len = read(group, buf, room * sizeof(buf[0]));
	int n = 0;

	if (len < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	for (; FAN_EVENT_OK(m, len); m = FAN_EVENT_NEXT(m, len)) {
		/* (no reporting of names or fids is asked for: every event is
		 * bare metadata, and one without a file needs no answer) */
		if (m->vers != FANOTIFY_METADATA_VERSION || m->fd < 0)
			continue;
		ev[n].fd = m->fd;
		ev[n].pid = m->pid;
		n++;
	}
	return n;
}

void usdtkit__exec_allow(int group, int fd)
{
	struct fanotify_response r = { .fd = fd, .response = FAN_ALLOW };

	while (write(group, &r, sizeof(r)) < 0 && errno == EINTR)
		;
	close(fd);
}
