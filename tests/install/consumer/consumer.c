// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Uses only the installed header and library. */
#include <stdio.h>
#include <string.h>

#include <usdtkit/usdtkit.h>
/* config.h (from usdtkit.h) says whether the attach layer was installed */
#if USDTKIT_HAVE_BPF
#include <usdtkit/attach.h>
#endif

int main(void)
{
	const struct usdtkit_arch *a = usdtkit_arch_by_name("x86_64");
	const char *spec = "-4@-1204(%rbp,%rax,8)";
	struct usdtkit_arg arg;
	char buf[128];

	if (strcmp(usdtkit_version_string(), USDTKIT_VERSION)) {
		printf("library %s, headers %s\n", usdtkit_version_string(),
		       USDTKIT_VERSION);
		return 1;
	}
#if USDTKIT_HAVE_BPF
	if (strcmp(usdtkit_mode_str(USDTKIT_MODE_MULTI), "multi"))
		return 1;
#endif
	if (!a || usdtkit_args_parse(a, spec, strlen(spec), &arg, 1) != 1)
		return 1;
	usdtkit_arg_snprintf(buf, sizeof(buf), a, spec, &arg);
	printf("%s\n", buf);
	return strcmp(buf, "s32 mem [rbp + rax*8 - 1204]") != 0;
}
