/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * i686 only, forced into libvmsites.so's files (tests/vm/CMakeLists.txt):
 * the library is built with -fvisibility=hidden there, and these are
 * what vm_sites_so uses of it. -fPIC on i386 keeps %ebx for the GOT and
 * loads every default-visibility global through it, which leaves too
 * few registers for the eight 64-bit-pair arguments of
 * usdtkit_cross:globals ("impossible constraints"); hidden globals are
 * reached @GOTOFF as in a PIE.
 */
#ifndef USDTKIT_TESTS_VM_EXPORT_H
#define USDTKIT_TESTS_VM_EXPORT_H

#include "sites.h"
#include "vm_sites.h"

#define VM_EXPORT __attribute__((visibility("default")))

extern struct sites_expect sites_expect VM_EXPORT;
void sites_run_probes(void) VM_EXPORT;
extern bool vm_counting VM_EXPORT;
void vm_sema_fire(int round) VM_EXPORT;
volatile unsigned short *vm_sema_addr(void) VM_EXPORT;
volatile unsigned short *vm_sema_decoy_addr(void) VM_EXPORT;

#endif
