// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The backends by mode, and the one place a mode is decided: AUTO is
 * the first backend, in the order of the modes, that the kernel
 * supports (usdtkit_mode_resolve(), the libbpf handler's prepare at
 * open, and an attach of a program prepared for it all come here), and
 * that can place the target: a backend that finds specs by address is
 * passed over for a site whose address no process gives yet.
 */
#include <errno.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "attach/backend.h"

static const struct usdtkit__backend *const backends[] = {
	[USDTKIT_MODE_MULTI] = &usdtkit__backend_multi,
	[USDTKIT_MODE_PERF] = &usdtkit__backend_perf,
	[USDTKIT_MODE_IPMAP] = &usdtkit__backend_ipmap,
	[USDTKIT_MODE_INST] = &usdtkit__backend_inst,
	[USDTKIT_MODE_HWBP] = &usdtkit__backend_hwbp,
};

#define NMODES (sizeof(backends) / sizeof(backends[0]))

static const char auto_name[] = "auto";

const struct usdtkit__backend *usdtkit__backend_of(enum usdtkit_mode mode)
{
	return (unsigned int)mode < NMODES ? backends[mode] : NULL;
}

bool usdtkit__mode_by_address(enum usdtkit_mode mode)
{
	const struct usdtkit__backend *b = usdtkit__backend_of(mode);

	return b && b->by_address;
}

static bool supported(const struct usdtkit__backend *b,
		      const struct usdtkit_features *f)
{
	return !b->supported || b->supported(f);
}

const char *usdtkit__mode_refusal(enum usdtkit_mode mode, const char **instead)
{
	const struct usdtkit__backend *b = usdtkit__backend_of(mode);

	if (!b || supported(b, usdtkit_features()))
		return NULL;
	*instead = b->instead;
	return b->refusal;
}

size_t usdtkit__backend_state_max(void)
{
	size_t m, max = 0;

	for (m = 0; m < NMODES; m++)
		if (backends[m] && backends[m]->state_size > max)
			max = backends[m]->state_size;
	return max;
}

/*
 * AUTO among the backends whose programs are loaded as @type (any when
 * !@typed) and, unless @placed, that need no address: the first this
 * kernel supports, else the last of them, whose attach then says what
 * is missing.
 */
static enum usdtkit_mode mode_auto(bool typed, enum bpf_attach_type type, bool placed)
{
	const struct usdtkit_features *f = usdtkit_features();
	enum usdtkit_mode last = USDTKIT_MODE_AUTO;
	unsigned int m;

	for (m = 0; m < NMODES; m++) {
		if (!backends[m] || backends[m]->breakpoints ||
		    (typed && backends[m]->attach_type != type) ||
		    (!placed && backends[m]->by_address))
			continue;
		if (supported(backends[m], f))
			return (enum usdtkit_mode)m;
		last = (enum usdtkit_mode)m;
	}
	return last;
}

enum usdtkit_mode usdtkit_mode_resolve(enum usdtkit_mode mode)
{
	return mode == USDTKIT_MODE_AUTO ? mode_auto(false, 0, true) : mode;
}

const char *usdtkit_mode_str(enum usdtkit_mode mode)
{
	const struct usdtkit__backend *b = usdtkit__backend_of(mode);

	if (mode == USDTKIT_MODE_AUTO)
		return auto_name;
	return b ? b->name : "unknown";
}

int usdtkit_mode_parse(const char *s)
{
	unsigned int m;

	if (!s)
		return -EINVAL;
	if (!strcmp(s, auto_name))
		return USDTKIT_MODE_AUTO;
	for (m = 0; m < NMODES; m++)
		if (backends[m] && !strcmp(s, backends[m]->name))
			return (int)m;
	return -EINVAL;
}

static enum bpf_prog_type prog_type(const struct usdtkit__backend *b)
{
	return b->prog_type ? b->prog_type : BPF_PROG_TYPE_KPROBE;
}

int usdtkit_prog_prepare(struct bpf_program *prog, enum usdtkit_mode mode)
{
	const struct usdtkit__backend *b = usdtkit__backend_of(usdtkit_mode_resolve(mode));

	if (!prog || !b)
		return -EINVAL;
	bpf_program__set_type(prog, prog_type(b));
	return bpf_program__set_expected_attach_type(prog, b->attach_type);
}

static enum usdtkit_mode mode_of(const struct usdtkit__backend *b)
{
	unsigned int m;

	for (m = 0; m < NMODES && backends[m] != b; m++)
		;
	return (enum usdtkit_mode)m;
}

/*
 * The backends' attach type that @prog was loaded with; any other type
 * counts as perf events' 0, which the kernel then judges at attach.
 */
static const struct usdtkit__backend *loaded_for(const struct bpf_program *prog)
{
	enum bpf_attach_type t = bpf_program__expected_attach_type(prog);
	enum bpf_prog_type pt = bpf_program__type(prog);
	const struct usdtkit__backend *zero = NULL;
	unsigned int m;

	for (m = 0; m < NMODES; m++) {
		if (!backends[m] || (pt != BPF_PROG_TYPE_UNSPEC &&
				     pt != prog_type(backends[m])))
			continue;
		if (backends[m]->attach_type == t)
			return backends[m];
		if (!zero && !backends[m]->attach_type)
			zero = backends[m];
	}
	return zero;
}

int usdtkit__mode_pick(const struct bpf_program *prog, enum usdtkit_mode mode,
		       bool placed, enum usdtkit_spec_abi abi,
		       const struct usdtkit_log *lg)
{
	const struct usdtkit__backend *have = loaded_for(prog), *b;

	if (!have) {
		usdtkit__warn(lg, "program '%s' is of BPF program type %d: neither a "
			      "uprobe (kprobe) nor a perf-event program",
			      bpf_program__name(prog), (int)bpf_program__type(prog));
		return -EINVAL;
	}
	/* a program loaded for breakpoints can be attached by nothing else */
	if (mode == USDTKIT_MODE_AUTO)
		mode = have->breakpoints ? mode_of(have) :
		       mode_auto(true, have->attach_type, placed);
	b = usdtkit__backend_of(mode);
	if (!b || b->attach_type != have->attach_type ||
	    prog_type(b) != prog_type(have)) {
		usdtkit__warn(lg, "program '%s' was loaded for %s links, not %s: call "
			      "usdtkit_prog_prepare(prog, %s) before loading it",
			      bpf_program__name(prog), have->links,
			      usdtkit_mode_str(mode), usdtkit_mode_str(mode));
		return -EINVAL;
	}
	/* say which feature is missing: EOPNOTSUPP alone does not tell a
	 * user on a 6.1 board that the kernel, not the probe, is the cause */
	if (!supported(b, usdtkit_features())) {
		usdtkit__warn(lg, "mode %s: %s: use mode %s", b->name, b->refusal,
			      b->instead);
		return -EOPNOTSUPP;
	}
	if (b->check_abi) {
		int err = b->check_abi(abi, lg);

		if (err)
			return err;
	}
	return (int)mode;
}
