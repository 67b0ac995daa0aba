// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A skeleton-only application: it attaches through SEC("usdtkit/...") and
 * skel__attach() and calls no usdtkit_* function, so nothing it references
 * keeps libusdtkit in the link. It works only if the installed package
 * (pkg-config or CMake) keeps the library, and with it the constructor
 * that registers the section handler with libbpf.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <sys/sdt.h>

#include "skel.skel.h"

#define ROUNDS 5

int main(void)
{
	struct skel *s;
	int i, err;

	s = skel__open_and_load();
	if (!s) {
		fprintf(stderr, "FAIL: open and load: %s\n", strerror(errno));
		return 1;
	}
	err = skel__attach(s);
	if (err) {
		fprintf(stderr, "FAIL: attach: %s\n", strerror(-err));
		skel__destroy(s);
		return 1;
	}
	for (i = 1; i <= ROUNDS; i++)
		STAP_PROBE1(consumer, hit, (long)i * 100);
	err = s->bss->hits != ROUNDS || s->bss->last_arg != ROUNDS * 100;
	printf("%s: %llu hits, last argument %ld\n", err ? "FAIL" : "ok",
	       (unsigned long long)s->bss->hits, s->bss->last_arg);
	skel__destroy(s);
	return err;
}
