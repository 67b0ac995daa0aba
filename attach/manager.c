// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One manager per BPF object: the spec map and IP map of that object are
 * shared by every attach of every program in it, so spec ids and IP-map
 * entries must be handed out in one place. libbpf 1.1 gives no way to
 * hang user data on a bpf_object, and the libbpf program handler
 * (auto-attach) receives nothing but the program, so managers live in a
 * process-wide list keyed by the kernel id of the spec map, under a mutex.
 * A manager lives as long as a link uses it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach/internal.h"
#include "spec/spectable.h"

static pthread_mutex_t managers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct usdtkit_manager *managers;

/*
 * The maps are the ones the loaded program uses (the kernel's list of its
 * map ids), found by name, which the kernel keeps to 15 bytes. The fds
 * come from what this process already holds: libbpf leaves the loaded
 * program's instructions in place, and each map load (ld_imm64) in them
 * carries the fd libbpf passed to the kernel. Opening a map by its id
 * (BPF_MAP_GET_FD_BY_ID) needs CAP_SYS_ADMIN, more than tracing needs
 * (CAP_BPF and CAP_PERFMON), so it is only the fallback, for programs
 * whose instructions do not carry fds (loaded by other means).
 */
struct map_info {
	int fd;
	uint32_t id, value_size, max_entries;
	char name[16];
};

#define MAX_PROG_MAPS 64

struct prog_maps {
	struct map_info m[MAX_PROG_MAPS];
	uint32_t ids[MAX_PROG_MAPS];
	uint32_t nids, n;
	uint32_t by_id_failed;	/* a map id we could not open, 0 if none */
	int by_id_err;		/* and why */
};

static bool has_map(const struct prog_maps *pm, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < pm->n; i++)
		if (pm->m[i].id == id)
			return true;
	return false;
}

static bool uses_map(const struct prog_maps *pm, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < pm->nids; i++)
		if (pm->ids[i] == id)
			return true;
	return false;
}

/* Keep a copy of @fd if it is one of the program's maps not yet kept. */
static void keep_map_fd(struct prog_maps *pm, int fd)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);
	struct map_info *mi;

	memset(&info, 0, sizeof(info));
	if (pm->n == MAX_PROG_MAPS || fd < 0 ||
	    bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    !uses_map(pm, info.id) || has_map(pm, info.id))
		return;
	fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return;
	mi = &pm->m[pm->n++];
	*mi = (struct map_info){ fd, info.id, info.value_size, info.max_entries, "" };
	memcpy(mi->name, info.name, sizeof(mi->name) - 1);
}

/* The fds in the program's ld_imm64 map loads, as libbpf left them. */
static void maps_from_insns(struct prog_maps *pm, const struct bpf_program *prog)
{
	const struct bpf_insn *in = bpf_program__insns(prog);
	size_t i, n = bpf_program__insn_cnt(prog);

	for (i = 0; in && i + 1 < n; i++) {
		if (in[i].code != (BPF_LD | BPF_DW | BPF_IMM))
			continue;
		if (in[i].src_reg == BPF_PSEUDO_MAP_FD ||
		    in[i].src_reg == BPF_PSEUDO_MAP_VALUE)
			keep_map_fd(pm, in[i].imm);
		i++;	/* the second half of the 16-byte instruction */
	}
}

/* The maps not found above, by id: needs CAP_SYS_ADMIN. */
static void maps_by_id(struct prog_maps *pm)
{
	uint32_t i;

	for (i = 0; i < pm->nids; i++) {
		int fd;

		if (has_map(pm, pm->ids[i]))
			continue;
		fd = bpf_map_get_fd_by_id(pm->ids[i]);
		if (fd < 0) {
			if (!pm->by_id_failed) {
				pm->by_id_failed = pm->ids[i];
				pm->by_id_err = -errno;
			}
			continue;
		}
		keep_map_fd(pm, fd);
		close(fd);
	}
}

static int prog_map_ids(int prog_fd, struct prog_maps *pm)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	info.nr_map_ids = MAX_PROG_MAPS;
	info.map_ids = (uint64_t)(uintptr_t)pm->ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	pm->nids = info.nr_map_ids < MAX_PROG_MAPS ? info.nr_map_ids : MAX_PROG_MAPS;
	return 0;
}

/* Take map @name out of @pm (the caller owns its fd then). */
static int map_by_name(struct prog_maps *pm, const char *name, struct map_info *out)
{
	uint32_t i;

	for (i = 0; i < pm->n; i++)
		if (pm->m[i].fd >= 0 && !strcmp(pm->m[i].name, name)) {
			*out = pm->m[i];
			pm->m[i].fd = -1;
			return 0;
		}
	return -ENOENT;
}

static void prog_maps_close(struct prog_maps *pm)
{
	uint32_t i;

	for (i = 0; i < pm->n; i++)
		if (pm->m[i].fd >= 0)
			close(pm->m[i].fd);
}

static size_t want_value_size(enum usdtkit_spec_abi abi)
{
	switch (abi) {
	case USDTKIT_ABI_LIBBPF_V1:
		return 208;
	case USDTKIT_ABI_LIBBPF_V2:
		return 304;
	case USDTKIT_ABI_OWN_V1:
		return USDTKIT_BPF_SPEC_V1_SIZE;
	default:
		return sizeof(struct usdtkit_bpf_spec);
	}
}

/* usdtkit programs take cookie 0 as "no cookie"; libbpf's take the id. */
uint64_t usdtkit__cookie(const struct usdtkit_manager *m, int spec_id)
{
	return usdtkit__abi_own(m->abi) ? USDTKIT_BPF_COOKIE(spec_id)
					 : (uint64_t)spec_id;
}

/* No spec map among the maps we could open: say why. */
static int no_spec_map(const struct prog_maps *pm, const struct bpf_program *prog,
		       const struct usdtkit_log *lg)
{
	if (pm->by_id_failed) {
		usdtkit__warn(lg, "program '%s': cannot open its map id %u: %s%s",
			      bpf_program__name(prog), pm->by_id_failed,
			      strerror(-pm->by_id_err), pm->by_id_err == -EPERM ?
			      " (opening a map by id needs CAP_SYS_ADMIN; a program "
			      "loaded by libbpf in this process needs only CAP_BPF "
			      "and CAP_PERFMON)" : "");
		return pm->by_id_err;
	}
	/* no /proc/sys/net: libbpf's feature probes load socket filters,
	 * which need CONFIG_NET; every probe failed and the maps were
	 * created without names (found on riscv64, docs/ARCHES.md) */
	if (usdtkit_features()->jit_sysctl < 0) {
		usdtkit__warn(lg, "program '%s': its maps have no names: this kernel "
			      "has no CONFIG_NET, which libbpf needs to probe the "
			      "kernel's BPF support", bpf_program__name(prog));
		return -EOPNOTSUPP;
	}
	usdtkit__warn(lg, "program '%s' uses no usdtkit_specs map: include "
		      "<usdtkit/usdtkit.bpf.h> and read an argument",
		      bpf_program__name(prog));
	return -ENOENT;
}

static int find_maps(struct usdtkit_manager *m, const struct bpf_program *prog,
		     const struct usdtkit_log *lg)
{
	struct map_info spec, ip = { .fd = -1 }, inst = { .fd = -1 };
	struct prog_maps pm = { .n = 0 };
	int err, fd = bpf_program__fd(prog);

	if (fd < 0) {
		usdtkit__warn(lg, "program '%s' is not loaded", bpf_program__name(prog));
		return -EINVAL;
	}
	err = prog_map_ids(fd, &pm);
	if (err)
		return err;
	maps_from_insns(&pm, prog);
	maps_by_id(&pm);
	if (!map_by_name(&pm, "usdtkit_specs", &spec)) {
		map_by_name(&pm, "usdtkit_ip_map", &ip);
		/* mode inst's programs write the spec id there (inst.c) */
		map_by_name(&pm, "usdtkit_inst", &inst);
		m->inst_fd = inst.fd;
		/* a program built against the version 1 header keeps its
		 * layout: it gets specs without groups */
		m->abi = spec.value_size == USDTKIT_BPF_SPEC_V1_SIZE ?
			 USDTKIT_ABI_OWN_V1 : USDTKIT_ABI_OWN;
	} else if (!map_by_name(&pm, "__bpf_usdt_spec", &spec)) {
		/* libbpf's <bpf/usdt.bpf.h>; the kernel keeps 15 bytes of
		 * "__bpf_usdt_specs" and "__bpf_usdt_ip_to_spec_id" */
		map_by_name(&pm, "__bpf_usdt_ip_t", &ip);
		m->abi = spec.value_size == 304 ? USDTKIT_ABI_LIBBPF_V2 :
			 USDTKIT_ABI_LIBBPF_V1;
	} else {
		err = no_spec_map(&pm, prog, lg);
		prog_maps_close(&pm);
		return err;
	}
	prog_maps_close(&pm);
	m->spec_fd = spec.fd;
	m->spec_map_id = spec.id;
	m->ip_fd = ip.fd;
	m->spec_value_size = spec.value_size;
	if (spec.value_size != want_value_size(m->abi)) {
		usdtkit__warn(lg, "spec map values are %u bytes, not the %zu of a known "
			      "layout (usdtkit v%d: %zu, v1: %d, libbpf: 208 or 304): "
			      "rebuild the program", spec.value_size,
			      want_value_size(m->abi), USDTKIT_BPF_SPEC_VERSION,
			      sizeof(struct usdtkit_bpf_spec), USDTKIT_BPF_SPEC_V1_SIZE);
		return -EPROTO;
	}
	m->specs = usdtkit__spec_table_new(spec.max_entries);
	m->ip_cap = 64;
	m->ips = calloc(m->ip_cap, sizeof(*m->ips));
	return m->specs && m->ips ? 0 : -ENOMEM;
}

static void manager_free(struct usdtkit_manager *m)
{
	if (m->spec_fd >= 0)
		close(m->spec_fd);
	if (m->ip_fd >= 0)
		close(m->ip_fd);
	if (m->inst_fd >= 0)
		close(m->inst_fd);
	usdtkit__spec_table_free(m->specs);
	free(m->ips);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/* The spec map identifies the manager: programs sharing it share ids. */
static struct usdtkit_manager *manager_find(uint32_t map_id)
{
	struct usdtkit_manager *m;

	for (m = managers; m; m = m->next)
		if (m->spec_map_id == map_id)
			return m;
	return NULL;
}

struct usdtkit_manager *usdtkit__manager_get(const struct bpf_program *prog,
					     const struct usdtkit_log *lg)
{
	struct usdtkit_manager *m = calloc(1, sizeof(*m)), *old;
	int err;

	if (!m)
		return NULL;
	m->spec_fd = m->ip_fd = m->inst_fd = -1;
	pthread_mutex_init(&m->lock, NULL);
	err = find_maps(m, prog, lg);
	if (err) {
		manager_free(m);
		errno = -err;
		return NULL;
	}
	pthread_mutex_lock(&managers_lock);
	old = manager_find(m->spec_map_id);
	if (old) {
		old->refs++;
	} else {
		m->refs = 1;
		m->next = managers;
		managers = m;
	}
	pthread_mutex_unlock(&managers_lock);
	if (old)
		manager_free(m);
	return old ? old : m;
}

void usdtkit__manager_put(struct usdtkit_manager *m)
{
	struct usdtkit_manager **p;

	if (!m)
		return;
	pthread_mutex_lock(&managers_lock);
	if (--m->refs) {
		pthread_mutex_unlock(&managers_lock);
		return;
	}
	for (p = &managers; *p; p = &(*p)->next)
		if (*p == m) {
			*p = m->next;
			break;
		}
	pthread_mutex_unlock(&managers_lock);
	manager_free(m);
}

/* ---- the IP-map shadow: which IP holds which spec id, how often ---- */

static size_t ip_slot(const struct usdtkit_manager *m, uint64_t ip)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17) & (m->ip_cap - 1);
}

static struct usdtkit_ip_ent *ip_find(struct usdtkit_manager *m, uint64_t ip)
{
	size_t i = ip_slot(m, ip);

	while (m->ips[i].refs && m->ips[i].ip != ip)
		i = (i + 1) & (m->ip_cap - 1);
	return &m->ips[i];
}

static int ip_grow(struct usdtkit_manager *m)
{
	struct usdtkit_ip_ent *old = m->ips;
	size_t i, cap = m->ip_cap;

	m->ips = calloc(cap * 2, sizeof(*m->ips));
	if (!m->ips) {
		m->ips = old;
		return -ENOMEM;
	}
	m->ip_cap = cap * 2;
	for (i = 0; i < cap; i++)
		if (old[i].refs)
			*ip_find(m, old[i].ip) = old[i];
	free(old);
	return 0;
}

/*
 * Map @ip to spec @id. The same IP with the same spec (two attaches of
 * one probe) shares the entry; with another spec it is a collision: the
 * program could not tell the two apart without cookies.
 */
int usdtkit__ip_add(struct usdtkit_manager *m, uint64_t ip, int id,
		    const struct usdtkit_log *lg, const char *where)
{
	struct usdtkit_ip_ent *e;
	uint64_t key = ip;	/* the BPF side's long: 8 bytes on every host */
	int err;

	if ((m->ip_used + 1) * 2 > m->ip_cap && (err = ip_grow(m)))
		return err;
	e = ip_find(m, ip);
	if (e->refs) {
		if (e->id == id) {
			e->refs++;
			return 0;
		}
		usdtkit__warn(lg, "IP 0x%llx already maps to spec %d, not %d: two "
			      "attaches without BPF cookies put different specs at "
			      "one address", (unsigned long long)ip, e->id, id);
		return -EEXIST;
	}
	if (m->ip_fd < 0) {
		usdtkit__warn(lg, "the program uses no usdtkit_ip_map: IP-map mode "
			      "needs it (built with usdtkit.bpf.h's usdtkit_spec())");
		return -ENOENT;
	}
	if (bpf_map_update_elem(m->ip_fd, &key, &id, BPF_NOEXIST)) {
		err = -errno;
		if (err == -E2BIG)
			usdtkit__warn(lg, "%s: map usdtkit_ip_map is full (%zu "
				      "entries): build the program with a larger "
				      "USDTKIT_MAX_IPS, or set its max_entries "
				      "before load", where, m->ip_used);
		else
			usdtkit__warn(lg, "%s: IP map: cannot add 0x%llx: %s", where,
				      (unsigned long long)ip, strerror(-err));
		return err;
	}
	e->ip = ip;
	e->id = id;
	e->refs = 1;
	m->ip_used++;
	return 0;
}

/* Backward-shift deletion keeps every probe chain intact. */
static void ip_remove_slot(struct usdtkit_manager *m, size_t i)
{
	size_t j = i, mask = m->ip_cap - 1;

	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!m->ips[j].refs)
			break;
		home = ip_slot(m, m->ips[j].ip);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->ips[i] = m->ips[j];
			i = j;
		}
	}
	memset(&m->ips[i], 0, sizeof(m->ips[i]));
}

void usdtkit__ip_del(struct usdtkit_manager *m, uint64_t ip)
{
	struct usdtkit_ip_ent *e = ip_find(m, ip);
	uint64_t key = ip;	/* the BPF side's long: 8 bytes on every host */

	if (!e->refs || --e->refs)
		return;
	bpf_map_delete_elem(m->ip_fd, &key);
	ip_remove_slot(m, (size_t)(e - m->ips));
	m->ip_used--;
}
