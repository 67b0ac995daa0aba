// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fx_exec PROG ARG...: exec PROG, or exit 126 when the kernel cannot run
 * it (ENOEXEC: an i386 fixture on a kernel without IA-32 emulation), 127
 * otherwise. fx_start() runs every fixture through it: under valgrind,
 * whose own execve() of such a file kills the process, this native exec
 * is the one that fails, and its status says why.
 */
#include <errno.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	execv(argv[1], argv + 1);
	return errno == ENOEXEC ? 126 : 127;
}
