// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Issue 41's first question, asked in the VM (guest.sh scenario hwbp,
 * run by hand: not in the matrix): does a BPF program on a hardware
 * breakpoint fire in a 32-bit arm process on an arm64 kernel, under
 * qemu, and does the process go on past it?
 * usage: vm_hwbp PID ADDR LEN SECONDS
 *   A breakpoint (perf_event_open PERF_TYPE_BREAKPOINT, HW_BREAKPOINT_X,
 *   LEN 4 for ARM code, 2 for Thumb) at ADDR in PID, carrying a BPF
 *   program (PERF_EVENT_IOC_SET_BPF) that counts its runs; "armed", then
 *   after SECONDS "runs N" (or why not, one line each step).
 * Raw system calls and a hand-assembled program: nothing here is the
 * library's, so what it shows is the kernel's.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), \
						 .src_reg = (s), .off = (o), .imm = (i) })

static long sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(__NR_bpf, cmd, a, sizeof(*a));
}

int main(int argc, char **argv)
{
	union bpf_attr a;
	struct perf_event_attr pa;
	uint64_t runs = 0;
	uint32_t key = 0;
	char log[4096] = "";
	int map, prog, ev;

	if (argc != 5)
		return 2;
	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 1;
	map = (int)sys_bpf(BPF_MAP_CREATE, &a);
	if (map < 0) {
		printf("hwbp: map: %s\n", strerror(errno));
		return 1;
	}
	{
		/* *(u32 *)(fp - 4) = 0; r0 = lookup(map, fp - 4);
		 * if r0: *(u64 *)r0 += 1; return 0 */
		struct bpf_insn p[] = {
			INSN(BPF_ST | BPF_MEM | BPF_W, 10, 0, -4, 0),
			INSN(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, map),
			INSN(0, 0, 0, 0, 0),
			INSN(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0),
			INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4),
			INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
			INSN(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2, 0),
			INSN(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, 1),
			INSN(BPF_STX | BPF_ATOMIC | BPF_DW, 0, 1, 0, BPF_ADD),
			INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
			INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
		};

		memset(&a, 0, sizeof(a));
		a.prog_type = BPF_PROG_TYPE_PERF_EVENT;
		a.insns = (uint64_t)(uintptr_t)p;
		a.insn_cnt = sizeof(p) / sizeof(p[0]);
		a.license = (uint64_t)(uintptr_t)"GPL";
		a.log_buf = (uint64_t)(uintptr_t)log;
		a.log_size = sizeof(log);
		a.log_level = 1;
		prog = (int)sys_bpf(BPF_PROG_LOAD, &a);
		if (prog < 0) {
			printf("hwbp: prog: %s: %s\n", strerror(errno), log);
			return 1;
		}
	}
	memset(&pa, 0, sizeof(pa));
	pa.type = PERF_TYPE_BREAKPOINT;
	pa.size = sizeof(pa);
	pa.bp_type = HW_BREAKPOINT_X;
	pa.bp_addr = strtoull(argv[2], NULL, 0);
	pa.bp_len = strtoull(argv[3], NULL, 0);
	pa.sample_period = 1;
	pa.disabled = 1;
	ev = (int)syscall(__NR_perf_event_open, &pa, atoi(argv[1]), -1, -1, 0);
	if (ev < 0) {
		printf("hwbp: perf_event_open: %s\n", strerror(errno));
		return 1;
	}
	if (ioctl(ev, PERF_EVENT_IOC_SET_BPF, prog)) {
		printf("hwbp: SET_BPF: %s\n", strerror(errno));
		return 1;
	}
	if (ioctl(ev, PERF_EVENT_IOC_ENABLE, 0)) {
		printf("hwbp: enable: %s\n", strerror(errno));
		return 1;
	}
	printf("hwbp: armed at %s len %s in pid %s\n", argv[2], argv[3], argv[1]);
	fflush(stdout);
	sleep((unsigned int)atoi(argv[4]));
	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)map;
	a.key = (uint64_t)(uintptr_t)&key;
	a.value = (uint64_t)(uintptr_t)&runs;
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &a))
		printf("hwbp: lookup: %s\n", strerror(errno));
	printf("hwbp: runs %llu\n", (unsigned long long)runs);
	return 0;
}
