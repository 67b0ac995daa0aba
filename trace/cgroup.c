// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The cgroup key (--count-by cgroup): the program keys a hit by
 * bpf_get_current_cgroup_id(), the id of the process's cgroup in the
 * cgroup v2 hierarchy, which is the inode number of that cgroup's
 * directory in the cgroup2 mount (kernfs). Here an id is named by its
 * path under that mount ("/system.slice/nginx.service", "/" the root):
 * the mount is walked once and again on a miss (a cgroup made since), at
 * most once a second. A cgroup removed before the report has no path
 * any more: its key keeps its id. The walk follows no mount point and
 * stops at CGROUP_DEPTH levels.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "trace/internal.h"

#define CGROUP_DEPTH 32
#define CGROUP_RESCAN_NS 1000000000ull

struct cgroup_name {
	uint64_t id;
	char *path;
};

struct usdtkit__cgroups {
	char *root;			/* the cgroup2 mount; NULL: none */
	struct cgroup_name *v;
	size_t n, cap;
	uint64_t walked_ns;		/* the last walk (0: never) */
};

/* The mount point of the first cgroup2 in our mountinfo (on a hybrid
 * system /sys/fs/cgroup/unified, else /sys/fs/cgroup). */
static char *cgroup2_root(void)
{
	char *line = NULL, *root = NULL;
	size_t cap = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return NULL;
	while (!root && getline(&line, &cap, f) > 0) {
		char mnt[4096], *dash = strstr(line, " - ");

		if (!dash || strncmp(dash + 3, "cgroup2 ", 8) ||
		    sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		/* (a mount point with spaces is \040 in mountinfo: not ours) */
		root = strdup(mnt);
	}
	free(line);
	fclose(f);
	return root;
}

struct usdtkit__cgroups *usdtkit__cgroups_new(void)
{
	struct usdtkit__cgroups *c = calloc(1, sizeof(*c));

	if (c)
		c->root = cgroup2_root();
	return c;
}

bool usdtkit__cgroups_mounted(const struct usdtkit__cgroups *c)
{
	return c && c->root;
}

static void forget(struct usdtkit__cgroups *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->v[i].path);
	c->n = 0;
}

void usdtkit__cgroups_free(struct usdtkit__cgroups *c)
{
	if (!c)
		return;
	forget(c);
	free(c->v);
	free(c->root);
	free(c);
}

static int add(struct usdtkit__cgroups *c, uint64_t id, const char *path)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct cgroup_name *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n].path = strdup(path);
	if (!c->v[c->n].path)
		return -ENOMEM;
	c->v[c->n++].id = id;
	return 0;
}

/* the cgroups below directory @fd (its path @path, "" for the root),
 * at @depth */
static void walk(struct usdtkit__cgroups *c, int fd, const char *path, dev_t dev,
		 int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;

	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		char sub[4096];
		struct stat st;
		int cfd;

		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name) >= (int)sizeof(sub))
			continue;
		cfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
			     O_NOFOLLOW);
		if (cfd < 0)
			continue;
		if (fstat(cfd, &st) || st.st_dev != dev || add(c, st.st_ino, sub)) {
			close(cfd);
			continue;
		}
		if (depth < CGROUP_DEPTH)
			walk(c, cfd, sub, dev, depth + 1);
		else
			close(cfd);
	}
	closedir(d);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void walk_all(struct usdtkit__cgroups *c)
{
	struct stat st;
	int fd;

	c->walked_ns = now_ns();
	forget(c);
	fd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || add(c, st.st_ino, "/")) {
		close(fd);
		return;
	}
	walk(c, fd, "", st.st_dev, 1);
}

static const char *lookup(const struct usdtkit__cgroups *c, uint64_t id)
{
	size_t i;

	/* (a 32-bit ino_t holds the id's low half) */
	for (i = 0; i < c->n; i++)
		if (c->v[i].id == (uint64_t)(ino_t)id)
			return c->v[i].path;
	return NULL;
}

const char *usdtkit__cgroup_path(struct usdtkit__cgroups *c, uint64_t id)
{
	const char *p;

	if (!c || !c->root)
		return NULL;
	p = lookup(c, id);
	if (!p && (!c->walked_ns || now_ns() - c->walked_ns >= CGROUP_RESCAN_NS)) {
		walk_all(c);
		p = lookup(c, id);
	}
	return p;
}
