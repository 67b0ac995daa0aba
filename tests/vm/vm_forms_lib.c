// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libvmforms.so: the "forms" scenario's library probe (vm_forms.c). */
#include <sys/sdt.h>

void vm_forms_lib(int i);

void vm_forms_lib(int i)
{
	DTRACE_PROBE1(forms, lib, i);
}
