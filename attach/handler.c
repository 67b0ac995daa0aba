// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libbpf integration: a program handler for SEC("usdtkit") and
 * SEC("usdtkit/PATH:PROVIDER:NAME"), registered when the library is
 * loaded so that skeletons open, load and attach usdtkit programs with
 * no extra calls, and the bridge from a usdtkit link to a struct
 * bpf_link that skeletons keep and destroy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "attach/internal.h"
#include "base/kernel.h"

/*
 * libbpf 1.x lays out struct bpf_link (private) as below and calls
 * ->detach then ->dealloc from bpf_link__destroy(); it is how libbpf's
 * own USDT links work. The layout has been the same from libbpf 0.6
 * through 1.x; other majors are refused.
 */
struct libbpf_link_abi {
	int (*detach)(struct bpf_link *link);
	void (*dealloc)(struct bpf_link *link);
	char *pin_path;
	int fd;
	bool disconnected;
};

struct usdtkit_bpf_link {
	struct libbpf_link_abi link;	/* first: libbpf sees only this */
	struct usdtkit_link *ul;
};

static int bridge_detach(struct bpf_link *bl)
{
	struct usdtkit_bpf_link *b = (struct usdtkit_bpf_link *)bl;

	usdtkit_link_destroy(b->ul);
	b->ul = NULL;
	return 0;
}

static void bridge_dealloc(struct bpf_link *bl)
{
	struct usdtkit_bpf_link *b = (struct usdtkit_bpf_link *)bl;

	usdtkit_link_destroy(b->ul);
	free(b);
}

struct bpf_link *usdtkit_link_to_bpf(struct usdtkit_link *ul)
{
	struct usdtkit_bpf_link *b;

	if (!ul) {
		errno = EINVAL;
		return NULL;
	}
	if (libbpf_major_version() != 1) {
		usdtkit_link_destroy(ul);
		errno = EOPNOTSUPP;
		return NULL;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		usdtkit_link_destroy(ul);
		errno = ENOMEM;
		return NULL;
	}
	b->link.detach = bridge_detach;
	b->link.dealloc = bridge_dealloc;
	b->link.fd = -1;
	b->ul = ul;
	return (struct bpf_link *)b;
}

/* At open: the mode is fixed by the expected attach type set here. */
static int prog_setup(struct bpf_program *prog, long cookie)
{
	(void)cookie;
	return usdtkit_prog_prepare(prog, USDTKIT_MODE_AUTO);
}

static bool is_helper(const struct bpf_insn *in, int func)
{
	return in->code == (BPF_JMP | BPF_CALL) && !in->src_reg && in->imm == func;
}

/* "r0 = 0": what a helper the kernel lacks would return when unused */
static const struct bpf_insn r0_is_0 = { .code = BPF_ALU64 | BPF_MOV | BPF_K,
					 .dst_reg = BPF_REG_0 };

/* the map @fd is usdtkit.bpf.h's usdtkit_no_priv_stack (the kernel keeps
 * 15 bytes of its name) */
static bool is_no_priv_stack_map(int fd)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return !bpf_obj_get_info_by_fd(fd, &info, &len) &&
	       info.type == BPF_MAP_TYPE_PROG_ARRAY &&
	       !strncmp(info.name, "usdtkit_no_priv_stack", sizeof(info.name) - 1);
}

/*
 * The tail call at @i takes its prog array in r2 from a load of
 * usdtkit_no_priv_stack: the last write of r2 before it, in the few
 * instructions clang puts between them. That load's index, or 0 (never
 * a load followed by a call at 0).
 */
static size_t no_priv_stack_load(const struct bpf_insn *in, size_t i)
{
	size_t j;

	for (j = i; j-- > 0 && i - j <= 8;) {
		if (in[j].dst_reg != BPF_REG_2 || BPF_CLASS(in[j].code) == BPF_JMP ||
		    BPF_CLASS(in[j].code) == BPF_STX || BPF_CLASS(in[j].code) == BPF_ST)
			continue;
		return in[j].code == (BPF_LD | BPF_IMM | BPF_DW) &&
		       in[j].src_reg == BPF_PSEUDO_MAP_FD &&
		       is_no_priv_stack_map(in[j].imm) ? j : 0;
	}
	return 0;
}

/*
 * usdtkit.bpf.h's never-taken tail call keeps a program off the private
 * stack of Linux 6.13+, which only the x86-64 and arm64 JITs have;
 * elsewhere it only costs. In a program with BPF-to-BPF calls (a
 * function the compiler did not inline) the kernel takes a tail call
 * only where its JIT supports both together (x86-64 from 5.10, arm64
 * from 6.0; never interpreted, never 32-bit): elsewhere the whole program
 * is refused. And the prog array it names binds every program of the
 * object to one owner: programs loaded for different links (multi and
 * perf) were refused with EINVAL on 6.12 once it held one of them.
 */
static bool drop_no_priv_stack(void)
{
#if defined(__x86_64__) || defined(__aarch64__)
	/* (an unreadable release: as before, nothing dropped) */
	return usdtkit__kernel_at_least(0, 0) && !usdtkit__kernel_at_least(6, 13);
#else
	return true;
#endif
}

/*
 * Just before the load, two rewrites so that one object loads on every
 * kernel from 5.8, with no build per kernel:
 *
 * A kernel without BPF cookies (before Linux 5.15) refuses, with a bare
 * EINVAL ("invalid func unknown#174"), every program that calls
 * bpf_get_attach_cookie(), as usdtkit_spec() does first. There each such
 * call becomes "r0 = 0", what it returns for a link without a cookie: the
 * spec then comes from the IP map (mode ipmap, which AUTO picks there).
 *
 * Where drop_no_priv_stack() says so, and in a program loaded sleepable
 * (which may use no prog array), the tail call into
 * usdtkit_no_priv_stack (never taken) becomes "r0 = 0" too, and the load
 * of that map "r2 = 0", so that the program no longer uses it.
 *
 * The calls clobbered r1-r5, which the code after them never reads.
 */
static int prog_prepare_load(struct bpf_program *prog,
			     struct bpf_prog_load_opts *opts, long cookie)
{
	const struct usdtkit_features *f = usdtkit_features();
	const struct bpf_insn *in = bpf_program__insns(prog);
	size_t i, j, n = bpf_program__insn_cnt(prog), patched = 0;
	bool cookies, tail;
	struct bpf_insn *out;
	int err;

	(void)opts;
	(void)cookie;
	if (!f->bpf || !in)
		return 0;
	cookies = !f->bpf_cookie;
	/* a sleepable program may not use a prog array at all (the kernel
	 * allows it array, hash, ring buffer and storage maps) */
	tail = drop_no_priv_stack() || (bpf_program__flags(prog) & BPF_F_SLEEPABLE);
	if (!cookies && !tail)
		return 0;
	out = malloc(n * sizeof(*out));
	if (!out)
		return -ENOMEM;
	memcpy(out, in, n * sizeof(*out));
	for (i = 0; i < n; i++) {
		if (cookies && is_helper(&in[i], BPF_FUNC_get_attach_cookie)) {
			out[i] = r0_is_0;
			patched++;
		} else if (tail && is_helper(&in[i], BPF_FUNC_tail_call) &&
			   (j = no_priv_stack_load(in, i))) {
			out[i] = r0_is_0;
			/* the 16-byte load stays one, of the constant 0 */
			out[j].src_reg = 0;
			out[j].imm = 0;
			out[j + 1].imm = 0;
			patched++;
		}
	}
	err = patched ? bpf_program__set_insns(prog, out, n) : 0;
	free(out);
	return err;
}

/*
 * SEC("usdtkit/PATH:PROVIDER:NAME"): attach to any process. PATH may
 * itself hold ':' (rare), so PROVIDER and NAME are the last two fields.
 * Plain SEC("usdtkit") is attached by hand: no link, no error.
 */
static int prog_attach(const struct bpf_program *prog, long cookie,
		       struct bpf_link **link)
{
	const char *sec = bpf_program__section_name(prog);
	char *spec, *name, *provider;
	struct usdtkit_link *ul;
	int err = 0;

	(void)cookie;
	*link = NULL;
	if (strncmp(sec, "usdtkit/", 8))
		return 0;
	spec = strdup(sec + 8);
	if (!spec)
		return -ENOMEM;
	name = strrchr(spec, ':');
	if (name) {
		*name++ = 0;
		provider = strrchr(spec, ':');
	}
	if (!name || !provider) {
		free(spec);
		return -EINVAL;
	}
	*provider++ = 0;
	ul = usdtkit_attach((struct bpf_program *)prog, -1, spec, provider, name, NULL);
	if (!ul)
		err = -errno;
	else if (!(*link = usdtkit_link_to_bpf(ul)))
		err = -errno;
	free(spec);
	return err;
}

static int handler_id = -1;
static pthread_once_t handler_once = PTHREAD_ONCE_INIT;

static void register_once(void)
{
	LIBBPF_OPTS(libbpf_prog_handler_opts, o,
		    .prog_setup_fn = prog_setup,
		    .prog_prepare_load_fn = prog_prepare_load,
		    .prog_attach_fn = prog_attach);

	handler_id = libbpf_register_prog_handler("usdtkit+", BPF_PROG_TYPE_KPROBE,
						  0, &o);
}

int usdtkit_register_libbpf_handler(void)
{
	pthread_once(&handler_once, register_once);
	return handler_id > 0 ? 0 : handler_id;
}

/* The shared library registers when it is loaded; a static link keeps
 * this file (and so this constructor) once anything calls the function
 * above. */
__attribute__((constructor)) static void register_at_load(void)
{
	usdtkit_register_libbpf_handler();
}

__attribute__((destructor)) static void unregister_at_unload(void)
{
	if (handler_id > 0)
		libbpf_unregister_prog_handler(handler_id);
}
