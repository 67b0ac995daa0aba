// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * hit_bench: the same programs as hit_uk.bpf.c, built with
 * USDTKIT_ARGS_SIMPLE (no index registers, register pairs or PC-relative
 * operands: code the verifier never walks). hit:hot, hit:reg and hit:real
 * use none of those forms, so they read the same values.
 */
#define USDTKIT_ARGS_SIMPLE
#include "hit_uk.bpf.c"
