// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Uses only the installed header and library. */
#include <stdio.h>
#include <string.h>

#include <usdtkit/usdtkit.h>

int main(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("x86_64");
	const char *spec = "-4@-1204(%rbp,%rax,8)";
	struct usdtkit_arg arg;
	char buf[128];

	if (!a || usdtkit_args_parse(a, spec, strlen(spec), &arg, 1) != 1)
		return 1;
	usdtkit_arg_snprintf(buf, sizeof(buf), a, spec, &arg);
	printf("%s\n", buf);
	return strcmp(buf, "s32 mem [rbp + rax*8 - 1204]") != 0;
}
