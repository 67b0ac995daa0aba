/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Process watching: what the processes a trace follows map, as it
 * changes (libraries loaded later, an exec), and the tracer that holds
 * a thread until what it mapped is attached. Below the trace engine,
 * above the attach layer; internal to the library.
 */
#ifndef USDTKIT_WATCH_H
#define USDTKIT_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <usdtkit/usdtkit.h>

#include "base/log.h"

/* ---- objects.c: the objects seen, by inode ---- */

struct usdtkit__watch;

/* @by_address: an object is also its address (mode ipmap, whose IP map
 * holds a site's address: a library loaded again elsewhere is new) */
int usdtkit__watch_new(struct usdtkit__watch **out, const struct usdtkit_log *log,
		       bool by_address);
void usdtkit__watch_free(struct usdtkit__watch *w);

/*
 * Mark every object of @proc seen (they are attached), or only those
 * with @only[i]. 0 or -ENOMEM.
 */
int usdtkit__watch_see(struct usdtkit__watch *w, const struct usdtkit_proc *proc,
		       const bool *only);
/*
 * Whether process @pid maps code of a file not looked at before (its
 * maps read, no file opened: the cheap question before a whole read of
 * the process). 1 and *@news (the files new, to pass to
 * usdtkit__watch_looked() once looked at), 0 (none new), or -errno.
 */
struct usdtkit__watch_news;
int usdtkit__watch_news(struct usdtkit__watch *w, int pid,
			struct usdtkit__watch_news **news);
/* the files of @news looked at (with probes or not), and @news freed */
int usdtkit__watch_looked(struct usdtkit__watch *w, struct usdtkit__watch_news *news);
void usdtkit__watch_news_free(struct usdtkit__watch_news *news);

/* The file of inode @ino (on any device) neither seen nor looked at any
 * more: detached, it is attached again when a process maps it. */
void usdtkit__watch_forget(struct usdtkit__watch *w, uint64_t ino);

/* ---- mapped.c: what the host's processes map ---- */

/* The inodes of the files whose code some process of this host maps
 * now, sorted, into *@inos (malloc'ed, *@n of them). 0 or -errno. */
int usdtkit__watch_mapped(uint64_t **inos, size_t *n);
bool usdtkit__watch_in_mapped(const uint64_t *inos, size_t n, uint64_t ino);

/* Mark the file at @path seen (attached by its path). 0 or -errno. */
int usdtkit__watch_see_path(struct usdtkit__watch *w, const char *path);

/*
 * Which objects of @proc were not seen: @only (one entry per object,
 * malloc'ed) and how many; 0, or -ENOMEM. An object that cannot be
 * identified (its mapping gone since @proc was read) is not new.
 */
int usdtkit__watch_unseen(struct usdtkit__watch *w, const struct usdtkit_proc *proc,
			  bool **only, size_t *n);

/*
 * The dynamic loader that process @pid runs (its AT_BASE), when it was
 * not seen before: a path that reaches its inode into @buf, and it is
 * seen from then on. 0, -EALREADY (seen), -ENOENT (no loader: a static
 * program), or -errno.
 */
int usdtkit__watch_loader(struct usdtkit__watch *w, int pid, char *buf, size_t size);

/* The loader at @path: 0 when it was not seen before (it is from now
 * on), -EALREADY, or -errno. */
int usdtkit__watch_loader_path(struct usdtkit__watch *w, const char *path);

/* The loader (PT_INTERP) the executable @path asks for, into @buf (as
 * it names it). 0, -ENOENT (static), or -errno. */
int usdtkit__watch_interp(const char *path, char *buf, size_t size);
/* The loader that running @path maps first: its own (PT_INTERP) or, for
 * a #! script, its interpreter's (#! lines followed as the kernel does).
 * Most often the loader of the program a script or shim execs too. 0,
 * -ENOENT (static), or -errno. */
int usdtkit__watch_run_interp(const char *path, char *buf, size_t size);

/* This process's own architecture (its executable's ELF identity), or
 * NULL; and whether @f is of it: under --all, an object of another (a
 * program qemu-user runs) is not attached: a breakpoint of ours in its
 * code would be an instruction of its. */
const struct usdtkit_arch *usdtkit__watch_self_arch(void);
bool usdtkit__watch_native(const struct usdtkit_file *f, const struct usdtkit_arch *self);

/* The function of every loader that the loader calls each time its list
 * of objects changes (the r_debug protocol of debuggers). */
#define USDTKIT__LOADER_FUNC "_dl_debug_state"

/* ---- exec.c: an exec held until the file it runs is attached ---- */

/* A fanotify group for exec-open permission events: its fd, or -errno
 * (-EPERM: no CAP_SYS_ADMIN; -EINVAL: a kernel without permission
 * events). */
int usdtkit__exec_group(void);
/* Hold the execs of every file in directory @dir. 0 or -errno. */
int usdtkit__exec_mark(int group, const char *dir);
/* Hold the execs of every file of every filesystem mounted here (those
 * that hold programs: not proc, sysfs and the like), each once, and
 * with @opens every open of a file there (a library's, before the
 * loader maps it) but on memory filesystems (tmpfs: a container's /dev
 * has devices, whose opens we would open again) and those with device
 * nodes in their own /dev: how many filesystems are marked, or -errno;
 * in @execs_only (when empty) the first other mount whose opens are not
 * held. Called again when the mounts change, it marks the new ones. */
int usdtkit__exec_mark_mounts(int group, bool opens, char *execs_only, size_t size);
/* Whether this kernel keeps an answer with the inode, as an ignore mark
 * it may drop (FAN_MARK_EVICTABLE, Linux 5.19): without, holding every
 * open would cost each open a round trip, forever. */
bool usdtkit__exec_can_remember(int group);
/* (the tracer's side) the execs of the file of @fd not held any more:
 * an ignore mark that the kernel may drop with the inode (Linux 5.19),
 * and drops when the file is written. 0 or -errno (an older kernel:
 * -EINVAL, each exec is held and answered again). */
int usdtkit__exec_ignore(int group, int fd);

/* (the tracer's side) an exec waiting for its answer */
struct usdtkit__exec_open {
	int fd;		/* the file it opened, to answer by */
	int pid;	/* the process that execs it */
};
/* The execs waiting now, at most @max (and USDTKIT__EXEC_BATCH): how
 * many, or -errno; those past @max stay waiting for the next call. */
#define USDTKIT__EXEC_BATCH 64
int usdtkit__exec_read(int group, struct usdtkit__exec_open *ev, int max);
/* Let the exec of @fd go on, and close @fd. */
void usdtkit__exec_allow(int group, int fd);

/* ---- hold.c: the tracer that holds a thread until it is attached ---- */

struct usdtkit__hold;

/* why a thread is held */
enum {
	USDTKIT__HOLD_LOADER = 1,	/* the loader's list of objects changed */
	USDTKIT__HOLD_EXEC,		/* it ran execve(): a new program */
	USDTKIT__HOLD_EXIT,		/* its process is exiting */
	USDTKIT__HOLD_EXPIRED,		/* no longer held: it was let go,
					 * unanswered, after 2 s */
	USDTKIT__HOLD_OPEN_EXEC,	/* process tid's execve() opened a
					 * file of a watched directory (exec.c) */
};

struct usdtkit__hold_event {
	int why;			/* USDTKIT__HOLD_* */
	int tid, tgid;
	int key;			/* what usdtkit__hold_release() takes */
	int fd;				/* an exec's: the tracer's fd of the
					 * file (usdtkit__hold_pid()), or -1 */
};

struct usdtkit__hold_opts {
	bool forks;		/* follow forks (--children): the children
				 * are held too, from their first instruction */
	bool exits;		/* hold a process at its exit (its address
				 * space still there) */
	int signal;		/* the signal the BPF side sends to hold */
	bool execs;		/* hold the execs of exec_group's marks: */
	int exec_group;		/* a group of exec.c, the tracer's from
				 * now on (the caller closes its copy) */
	bool exec_elf_only;	/* the group's opens of a file that is no
				 * ELF object are let go at once */
	bool exec_remember;	/* and the answer kept with the inode
				 * (usdtkit__exec_ignore()): only where
				 * usdtkit__exec_can_remember() */
};

/*
 * Start the tracer, a process of its own (no exit signal: the
 * application's wait() never sees it). 0 or -errno.
 */
int usdtkit__hold_start(struct usdtkit__hold **out, const struct usdtkit__hold_opts *o);
/* Hold every thread of process @tgid from now on (its threads and,
 * with forks, its children to come). 0, or -errno of ptrace(2):
 * -EPERM when another tracer (a debugger) has it, or ptrace is denied. */
int usdtkit__hold_seize(struct usdtkit__hold *h, int tgid);
/* The fd to poll for held threads, and the next one: 1 (@ev), 0 none. */
int usdtkit__hold_fd(const struct usdtkit__hold *h);
int usdtkit__hold_next(struct usdtkit__hold *h, struct usdtkit__hold_event *ev);
/* Let the hold of @ev->key go on. 0 or -errno. */
int usdtkit__hold_release(struct usdtkit__hold *h, int key);
/* The same, and for an exec with @remember, the answer kept for its
 * file (usdtkit__exec_ignore(): its next execs are not held). */
int usdtkit__hold_answer(struct usdtkit__hold *h, int key, bool remember);
/* The tracer's pid: an exec's file is /proc/PID/fd/FD (-1: none). */
int usdtkit__hold_pid(const struct usdtkit__hold *h);
/* Stop the tracer: every held thread goes on, every process is let go
 * as it was (a stopped job stays stopped). */
void usdtkit__hold_stop(struct usdtkit__hold *h);

#endif
