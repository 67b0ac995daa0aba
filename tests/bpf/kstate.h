/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What an attach leaves in the kernel and in the process, counted the
 * same way by the host's attach tests (test_attach.c) and by the VM's
 * attach-API program (tests/vm/vm_api.c): open fds, BPF links, perf
 * events of every process, entries of a BPF hash map. Header-only.
 */
#ifndef USDTKIT_TESTS_KSTATE_H
#define USDTKIT_TESTS_KSTATE_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

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

static inline int count_links(void)
{
	__u32 id = 0;
	int n = 0;

	while (!bpf_link_get_next_id(id, &id))
		n++;
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

#endif /* USDTKIT_TESTS_KSTATE_H */
