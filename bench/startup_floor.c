// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The floor of bench/startup_bench.sh: what any tracer of one probe must
 * do, and nothing else. One prebuilt minimal program ("r0 = 0; exit"),
 * one BPF_LINK_CREATE of uprobe_multi on every site, close, exit. The
 * sites' offsets are read from a file written beforehand (no ELF work
 * in the timed process).
 *
 *   startup_floor --offsets PATH PROVIDER NAME > FILE   (once, untimed)
 *   startup_floor PATH FILE                             (timed)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <usdtkit/usdtkit.h>

/* usdtkit's own syscall wrapper (attach/features.c), as attach_bench
 * uses it: internal, but a static link reaches it */
int usdtkit__sys_uprobe_multi(int prog_fd, const char *path,
			      const uint64_t *offsets, const uint64_t *ref_ctrs,
			      const uint64_t *cookies, uint32_t cnt, int pid);

/* BPF_TRACE_UPROBE_MULTI (Linux 6.6): Debian 12's uapi headers lack it */
#define FLOOR_UPROBE_MULTI 48

static int dump_offsets(const char *path, const char *prov, const char *name)
{
	struct usdtkit_file *f = usdtkit_file_open(path, NULL);
	const struct usdtkit_site *s = NULL;

	if (!f) {
		fprintf(stderr, "startup_floor: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((s = usdtkit_file_next_site(f, s, prov, name)))
		printf("%llu\n", (unsigned long long)usdtkit_site_pc_offset(s));
	usdtkit_file_close(f);
	return 0;
}

static uint64_t *read_offsets(const char *file, uint32_t *n)
{
	FILE *in = fopen(file, "r");
	uint64_t *offs = NULL, *grown;
	unsigned long long v;
	size_t cap = 0;

	*n = 0;
	while (in && fscanf(in, "%llu", &v) == 1) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			grown = realloc(offs, cap * sizeof(*offs));
			if (!grown)
				break;
			offs = grown;
		}
		offs[(*n)++] = v;
	}
	if (in)
		fclose(in);
	return offs;
}

int main(int argc, char **argv)
{
	static const struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = (enum bpf_attach_type)FLOOR_UPROBE_MULTI);
	uint64_t *offs;
	uint32_t n;
	int prog, link;

	if (argc == 5 && !strcmp(argv[1], "--offsets"))
		return dump_offsets(argv[2], argv[3], argv[4]);
	if (argc != 3) {
		fprintf(stderr, "usage: startup_floor PATH OFFSETS_FILE\n"
			"       startup_floor --offsets PATH PROVIDER NAME\n");
		return 2;
	}
	offs = read_offsets(argv[2], &n);
	if (!offs || !n) {
		fprintf(stderr, "startup_floor: no offsets in %s\n", argv[2]);
		return 1;
	}
	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", ret0, 2, &o);
	if (prog < 0) {
		fprintf(stderr, "startup_floor: load: %s\n", strerror(errno));
		return 1;
	}
	link = usdtkit__sys_uprobe_multi(prog, argv[1], offs, NULL, NULL, n, 0);
	if (link < 0) {
		fprintf(stderr, "startup_floor: link: %s\n", strerror(-link));
		return 1;
	}
	close(link);
	close(prog);
	free(offs);
	return 0;
}
