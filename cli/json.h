/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* JSON output helpers for the CLI: one object per line, no allocation. */
#ifndef USDTKIT_CLI_JSON_H
#define USDTKIT_CLI_JSON_H

#include <stdio.h>

#include <usdtkit/usdtkit.h>

/* Write @len bytes of @s as a JSON string, escaping what JSON requires. */
void json_str(FILE *f, const char *s, size_t len);

/* Write @s as is, and integers in decimal. */
void json_raw(FILE *f, const char *s);
void json_u64(FILE *f, uint64_t v);
void json_i64(FILE *f, int64_t v);

/* Write one parsed argument as a JSON object. */
void json_arg(FILE *f, const struct usdtkit_arch *arch, const char *spec,
	      const struct usdtkit_arg *arg, int index);

#endif
