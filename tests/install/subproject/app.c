// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The parent project's program (tests/install/subproject/CMakeLists.txt): parses
 * one spec through usdtkit::usdtkit. It is written to warn under the
 * flags usdtkit uses for itself: with usdtkit's -Werror it would not
 * build, with its -Wextra it would warn twice.
 */
#include <stdio.h>
#include <string.h>

#include <usdtkit/usdtkit.h>

static int check(const char *got, const char *unused_param)
{
	return strcmp(got, "s32 mem [rbp + rax*8 - 1204]") != 0;
}

int main(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("x86_64");
	const char *spec = "-4@-1204(%rbp,%rax,8)";
	struct usdtkit_arg arg;
	char buf[128];
	int unused_variable;

	if (!a || usdtkit_args_parse(a, spec, strlen(spec), &arg, 1) != 1)
		return 1;
	usdtkit_arg_snprintf(buf, sizeof(buf), a, spec, &arg);
	printf("%s\n", buf);
	return check(buf, spec);
}
