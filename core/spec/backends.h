/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The backends in arch/, as the registry sees them: both lists come from
 * the manifests (gen/arch_manifest.h). */
#ifndef USDTKIT_CORE_BACKENDS_H
#define USDTKIT_CORE_BACKENDS_H

#include "spec/arch.h"

#define USDTKIT_DECLARE_TARGET(t) extern const struct usdtkit_arch usdtkit__arch_##t;
USDTKIT_ARCH_TARGETS(USDTKIT_DECLARE_TARGET)
#undef USDTKIT_DECLARE_TARGET

/* Operand grammars, one per lexer (arch/<a>/<a>.re): the one-pass fast
 * path for common operands, then the token grammar. */
#define USDTKIT_DECLARE_LEXER(l)                                              \
	const char *usdtkit__##l##_parse_fast(const struct usdtkit_arch *arch, \
					      const char *op, const char *end, \
					      struct usdtkit_arg *arg);        \
	void usdtkit__##l##_parse_operand(const struct usdtkit_arch *arch,     \
					  struct usdtkit_lexer *lx,            \
					  struct usdtkit_arg *arg);
USDTKIT_ARCH_LEXERS(USDTKIT_DECLARE_LEXER)
#undef USDTKIT_DECLARE_LEXER

#endif /* USDTKIT_CORE_BACKENDS_H */
