/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What switches.bpf.c's readers saw on the last hit: shared with the test. */
#ifndef SWITCHES_H
#define SWITCHES_H

#define SW_NARGS 12

struct sw_out {
	long long bulk[SW_NARGS];	/* usdtkit_spec_args_errs() */
	int bulk_err[SW_NARGS];
	long long one[SW_NARGS];	/* usdtkit_spec_arg(), one by one */
	int one_err[SW_NARGS];
	int ret;			/* usdtkit_spec_args_errs()'s own */
	int nargs;
	unsigned long long hits;
};

#endif
