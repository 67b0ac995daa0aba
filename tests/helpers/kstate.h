/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What an attach leaves in the kernel and in the process, counted the
 * same way by the host's attach tests (test_attach.c) and by the VM's
 * attach-API program (tests/vm/vm_api.c): open fds, BPF links, perf
 * events of every process, entries of a BPF hash map, a per-CPU
 * counter summed. Header-only.
 */
#ifndef USDTKIT_TESTS_KSTATE_H
#define USDTKIT_TESTS_KSTATE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static inline int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

/* Does this process hold an fd of BPF program @prog_id (a program fd, or
 * a link fd whose fdinfo names it), other than @skip? */
static inline int ours(__u32 prog_id, int skip)
{
	DIR *d = opendir("/proc/self/fdinfo");
	struct dirent *e;
	char path[300], line[128];
	unsigned int id;
	int found = 0;
	FILE *f;

	while (d && !found && (e = readdir(d))) {
		if (atoi(e->d_name) == skip)
			continue;
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%s", e->d_name);
		f = fopen(path, "re");
		while (f && !found && fgets(line, sizeof(line), f))
			found = sscanf(line, "prog_id: %u", &id) == 1 && id == prog_id;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * BPF links of this process's programs, wherever they are held (here,
 * or by the reaper a perf detach hands them to): not every link of the
 * machine, which other tracers on a shared machine open and close at
 * any time (a baseline of 2 that went to 0 once failed a check).
 */
static inline int count_links(void)
{
	struct bpf_link_info info;
	__u32 id = 0, len;
	int n = 0, fd;

	while (!bpf_link_get_next_id(id, &id)) {
		fd = bpf_link_get_fd_by_id(id);
		if (fd < 0)
			continue;	/* gone meanwhile */
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && ours(info.prog_id, fd))
			n++;
		close(fd);
	}
	return n;
}

/*
 * The kernel frees a closed perf link after an RCU grace period, so its
 * id stays listed for a moment after close(): wait (up to 5 s) until the
 * list reaches @want, or for @want < 0 until it stops changing.
 */
static inline int settled_links(int want)
{
	int i, n = count_links(), prev = -1;

	for (i = 0; i < 100 && (want >= 0 ? n != want : n != prev); i++) {
		usleep(50 * 1000);
		prev = n;
		n = count_links();
	}
	return n;
}

/* Perf events open in any process (fds that are "anon_inode:[perf_event]"):
 * a uprobe the attach layer opened and left behind shows here, also one
 * handed to a background process. */
static inline int count_perf_events(void)
{
	DIR *procs = opendir("/proc"), *fds;
	struct dirent *p, *f;
	char path[600], target[64];
	int n = 0;
	ssize_t len;

	while (procs && (p = readdir(procs))) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		fds = opendir(path);
		while (fds && (f = readdir(fds))) {
			snprintf(path, sizeof(path), "/proc/%s/fd/%s", p->d_name, f->d_name);
			len = readlink(path, target, sizeof(target) - 1);
			if (len > 0) {
				target[len] = 0;
				n += !strcmp(target, "anon_inode:[perf_event]");
			}
		}
		if (fds)
			closedir(fds);
	}
	if (procs)
		closedir(procs);
	return n;
}

static inline int map_entries(int fd)
{
	long key, next;
	int n = 0;

	if (bpf_map_get_next_key(fd, NULL, &next))
		return 0;
	do {
		n++;
		key = next;
	} while (!bpf_map_get_next_key(fd, &key, &next) && n < 100000);
	return n;
}

/* entry @key of per-CPU array @fd, summed over the CPUs; ~0 if unread */
static inline unsigned long long percpu_sum(int fd, int key)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	unsigned long long v[512], sum = 0;

	if (ncpu <= 0 || ncpu > 512 || bpf_map_lookup_elem(fd, &key, v))
		return ~0ull;
	for (i = 0; i < ncpu; i++)
		sum += v[i];
	return sum;
}

#endif /* USDTKIT_TESTS_KSTATE_H */
