/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The backends in arch/, as the registry sees them. */
#ifndef USDTKIT_CORE_BACKENDS_H
#define USDTKIT_CORE_BACKENDS_H

#include "arch.h"

extern const struct usdtkit_arch usdtkit__arch_x86_64;
extern const struct usdtkit_arch usdtkit__arch_i386;
extern const struct usdtkit_arch usdtkit__arch_x32;
extern const struct usdtkit_arch usdtkit__arch_aarch64;
extern const struct usdtkit_arch usdtkit__arch_arm;
extern const struct usdtkit_arch usdtkit__arch_riscv64;
extern const struct usdtkit_arch usdtkit__arch_riscv32;
extern const struct usdtkit_arch usdtkit__arch_s390x;
extern const struct usdtkit_arch usdtkit__arch_ppc64le;
extern const struct usdtkit_arch usdtkit__arch_ppc64;

/* Operand grammars, one per lexer (arch/<a>/<a>.re): the one-pass fast
 * path for common operands, then the token grammar. */
const char *usdtkit__x86_parse_fast(const struct usdtkit_arch *arch,
				    const char *op, const char *end,
				    struct usdtkit_arg *arg);
void usdtkit__x86_parse_operand(const struct usdtkit_arch *arch,
				struct usdtkit_lexer *lx,
				struct usdtkit_arg *arg);
const char *usdtkit__arm64_parse_fast(const struct usdtkit_arch *arch,
				      const char *op, const char *end,
				      struct usdtkit_arg *arg);
void usdtkit__arm64_parse_operand(const struct usdtkit_arch *arch,
				  struct usdtkit_lexer *lx,
				  struct usdtkit_arg *arg);
const char *usdtkit__arm_parse_fast(const struct usdtkit_arch *arch,
				    const char *op, const char *end,
				    struct usdtkit_arg *arg);
void usdtkit__arm_parse_operand(const struct usdtkit_arch *arch,
				struct usdtkit_lexer *lx,
				struct usdtkit_arg *arg);
const char *usdtkit__riscv_parse_fast(const struct usdtkit_arch *arch,
				      const char *op, const char *end,
				      struct usdtkit_arg *arg);
void usdtkit__riscv_parse_operand(const struct usdtkit_arch *arch,
				  struct usdtkit_lexer *lx,
				  struct usdtkit_arg *arg);
const char *usdtkit__s390x_parse_fast(const struct usdtkit_arch *arch,
				      const char *op, const char *end,
				      struct usdtkit_arg *arg);
void usdtkit__s390x_parse_operand(const struct usdtkit_arch *arch,
				  struct usdtkit_lexer *lx,
				  struct usdtkit_arg *arg);
const char *usdtkit__ppc_parse_fast(const struct usdtkit_arch *arch,
				    const char *op, const char *end,
				    struct usdtkit_arg *arg);
void usdtkit__ppc_parse_operand(const struct usdtkit_arch *arch,
				struct usdtkit_lexer *lx,
				struct usdtkit_arg *arg);

#endif /* USDTKIT_CORE_BACKENDS_H */
