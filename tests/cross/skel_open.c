// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The trace skeleton of a cross build, opened by the target's own libbpf
 * on the target (qemu-user): the embedded object must be in the target's
 * byte order (libbpf refuses the other one), and hold the program and
 * maps the CLI uses. Opening parses the ELF and BTF only; no kernel is
 * needed. A big-endian target's skeleton is made from a little-endian
 * twin (cmake/BpfSkelBytes.cmake), so this is the proof of that step.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>
#include <usdtkit/bpf_spec.h>

#include "trace.skel.h"

static int failed;

#define CHECK(c, ...) do {						\
	if (!(c)) {							\
		printf("FAIL %s:%d: ", __FILE__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
		failed++;						\
	}								\
} while (0)

static int host_data(void)
{
	const unsigned short one = 1;

	return *(const unsigned char *)&one ? ELFDATA2LSB : ELFDATA2MSB;
}

int main(void)
{
	const unsigned char *elf;
	struct trace *skel;
	size_t sz;

	elf = trace__elf_bytes(&sz);
	CHECK(sz > EI_NIDENT && !memcmp(elf, ELFMAG, SELFMAG), "not ELF");
	CHECK(elf[EI_DATA] == host_data(), "EI_DATA %d, host %d",
	      elf[EI_DATA], host_data());
	skel = trace__open();
	CHECK(skel, "trace__open: %s", strerror(errno));
	if (skel) {
		CHECK(skel->progs.usdtkit_trace &&
		      !strcmp(bpf_program__name(skel->progs.usdtkit_trace),
			      "usdtkit_trace"), "program usdtkit_trace");
		CHECK(bpf_map__type(skel->maps.events) == BPF_MAP_TYPE_RINGBUF,
		      "events is a ring buffer");
		CHECK(bpf_map__value_size(skel->maps.usdtkit_specs) ==
		      sizeof(struct usdtkit_bpf_spec), "spec value size %u",
		      bpf_map__value_size(skel->maps.usdtkit_specs));
		CHECK(bpf_map__key_size(skel->maps.usdtkit_ip_map) == 8,
		      "IP-map key size %u", bpf_map__key_size(skel->maps.usdtkit_ip_map));
		trace__destroy(skel);
	}
	printf("%d passed, %d failed\n", failed ? 0 : 1, failed ? 1 : 0);
	return failed != 0;
}
