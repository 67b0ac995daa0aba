// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libvmfollow.so: the plugin vm_follow.c loads late. follow:init in its
 * constructor, before dlopen() returns: only a thread held at the
 * loader's _dl_debug_state() until the probe is attached has it counted. */
#include <sys/sdt.h>

void vm_follow_fire(int v);

__attribute__((constructor)) static void vm_follow_init(void)
{
	DTRACE_PROBE(follow, init);
}

void vm_follow_fire(int v)
{
	DTRACE_PROBE1(follow, fire, v);
}
