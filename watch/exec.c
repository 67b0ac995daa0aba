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
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/fanotify.h>

#include "watch/watch.h"

int usdtkit__exec_group(void)
{
	int fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK,
			       O_RDONLY | O_CLOEXEC | O_LARGEFILE);

	return fd < 0 ? -errno : fd;
}

int usdtkit__exec_mark(int group, const char *dir)
{
	if (fanotify_mark(group, FAN_MARK_ADD, FAN_OPEN_EXEC_PERM | FAN_EVENT_ON_CHILD,
			  AT_FDCWD, dir))
		return -errno;
	return 0;
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
