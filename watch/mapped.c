// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the processes of this host map: the inodes of the files whose
 * code some process maps now. --all (trace/all.c) detaches an object
 * once no process maps it; a process's exit is not watched one by one,
 * as a fork maps what its parent does without telling anyone: the maps
 * of the living say it, whoever forked whom.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "elf/proc.h"
#include "watch/watch.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int push(uint64_t **v, size_t *n, size_t *cap, uint64_t ino)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 256;
		void *nv = realloc(*v, c * sizeof(**v));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = ino;
	return 0;
}

/* the code mappings of process @pid (gone: none) */
static int one(int pid, uint64_t **v, size_t *n, size_t *cap)
{
	char path[64], *line = NULL;
	size_t lcap = 0;
	int err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!err && getline(&line, &lcap, f) > 0) {
		struct usdtkit__maps_line m;

		if (!usdtkit__maps_line_parse(line, &m) && m.exec && m.inode)
			err = push(v, n, cap, m.inode);
	}
	free(line);
	fclose(f);
	return err;
}

int usdtkit__watch_mapped(uint64_t **inos, size_t *n)
{
	DIR *d = opendir("/proc");
	uint64_t *v = NULL;
	size_t nv = 0, cap = 0, i, k = 0;
	struct dirent *e;
	int err = 0;

	if (!d)
		return -errno;
	while (!err && (e = readdir(d)))
		if (isdigit((unsigned char)e->d_name[0]))
			err = one(atoi(e->d_name), &v, &nv, &cap);
	closedir(d);
	if (err) {
		free(v);
		return err;
	}
	qsort(v, nv, sizeof(*v), cmp_u64);
	for (i = 0; i < nv; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	*inos = v;
	*n = k;
	return 0;
}

bool usdtkit__watch_in_mapped(const uint64_t *inos, size_t n, uint64_t ino)
{
	return bsearch(&ino, inos, n, sizeof(ino), cmp_u64) != NULL;
}
