// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The encoder's groups (spec version 2): which memory arguments share one
 * user-memory read, the window each group reads, and where each argument
 * sits in it. Also: a version 1 program gets no groups and no byte past
 * its 304, and sizes and signs survive grouping.
 */
#include <errno.h>

#include "check.h"
#include "attach/internal.h"

static struct usdtkit_bpf_spec spec;

/* Encode @text (x86-64) for @abi into the global spec; 0 or -errno. */
static int enc_abi(const char *text, enum usdtkit_spec_abi abi)
{
	const struct usdtkit_arch *x = usdtkit_arch_by_name("x86_64");
	struct usdtkit_arg a[USDTKIT_BPF_MAX_ARGS];
	int n = usdtkit_args_parse(x, text, strlen(text), a, USDTKIT_BPF_MAX_ARGS);

	if (n < 0)
		return n;
	memset(&spec, 0xaa, sizeof(spec));
	return usdtkit__spec_encode(NULL, "test", x, text, a, n, 0, 0, abi,
				    &spec, sizeof(spec));
}

static int enc(const char *text)
{
	return enc_abi(text, USDTKIT_ABI_OWN);
}

/* argument @i is in group @g (1-based, 0: alone) at window byte @off */
static void in_group(const char *what, int i, int g, int off)
{
	const struct usdtkit_bpf_arg *a = &spec.args[i];

	CHECK(a->group == g && (!g || a->win_off == off),
	      "%s: arg %d group %u off %u, want group %d off %d", what, i,
	      a->group, a->win_off, g, off);
}

/* group @g (1-based) reads @len bytes from base + @disp */
static void window(const char *what, int g, long long disp, int len)
{
	const struct usdtkit_bpf_group *w = &spec.groups[g - 1];

	CHECK(g <= spec.group_cnt && w->disp == disp && w->len == len,
	      "%s: group %d of %u: disp %lld len %u, want %lld %d", what, g,
	      spec.group_cnt, w->disp, w->len, disp, len);
}

static void same_base(void)
{
	CHECK(enc("-4@-8(%rsp) 8@-16(%rsp)") == 0, "encode");
	CHECK(spec.version == 2 && spec.group_cnt == 1, "version %u groups %u",
	      spec.version, spec.group_cnt);
	window("same base", 1, -16, 12);
	in_group("same base", 0, 1, 8);
	in_group("same base", 1, 1, 0);
	/* the group names the base the arguments have */
	CHECK(spec.groups[0].base_off == spec.args[0].base_off &&
	      spec.groups[0].base_width == 8 && spec.groups[0].flags == 0,
	      "group base %d width %u flags %#x", spec.groups[0].base_off,
	      spec.groups[0].base_width, spec.groups[0].flags);
	/* the same bytes twice: one group, both at the same offset */
	CHECK(enc("8@8(%rbp) -8@8(%rbp)") == 0, "encode");
	window("same slot", 1, 8, 8);
	in_group("same slot", 0, 1, 0);
	in_group("same slot", 1, 1, 0);
	/* overlapping, not aligned */
	CHECK(enc("8@3(%rbx) 4@5(%rbx)") == 0, "encode");
	window("overlap", 1, 3, 8);
	in_group("overlap", 1, 1, 2);
}

static void different_bases(void)
{
	CHECK(enc("8@-8(%rsp) 8@-8(%rbp) 8@(%rax)") == 0, "encode");
	CHECK(spec.group_cnt == 0, "groups %u", spec.group_cnt);
	in_group("bases", 0, 0, 0);
	in_group("bases", 1, 0, 0);
	in_group("bases", 2, 0, 0);
	/* a 32-bit view of a register is another base than the register */
	CHECK(enc("4@(%eax) 4@4(%rax)") == 0, "encode");
	CHECK(spec.group_cnt == 0, "views: groups %u", spec.group_cnt);
	/* registers and constants are never in a group, and do not split
	 * one: two groups, in order of their first argument */
	CHECK(enc("8@%rax 8@16(%rbp) 8@$5 4@(%rdi) 8@8(%rbp) -4@4(%rdi)") == 0, "encode");
	CHECK(spec.group_cnt == 2, "mixed: groups %u", spec.group_cnt);
	in_group("mixed", 0, 0, 0);
	in_group("mixed", 2, 0, 0);
	window("mixed", 1, 8, 16);
	window("mixed", 2, 0, 8);
	in_group("mixed", 1, 1, 8);
	in_group("mixed", 4, 1, 0);
	in_group("mixed", 3, 2, 0);
	in_group("mixed", 5, 2, 4);
}

static void index_present(void)
{
	CHECK(enc("8@8(%rsp) 4@(%rsp,%rcx,4) 8@16(%rsp) 2@2(%rsp,%rcx)") == 0, "encode");
	CHECK(spec.group_cnt == 1, "groups %u", spec.group_cnt);
	window("index", 1, 8, 16);
	in_group("index", 0, 1, 0);
	in_group("index", 1, 0, 0);
	in_group("index", 2, 1, 8);
	in_group("index", 3, 0, 0);
	/* two indexed arguments alone: no group */
	CHECK(enc("8@(%rsp,%rax,8) 8@8(%rsp,%rax,8)") == 0, "encode");
	CHECK(spec.group_cnt == 0, "indexed: groups %u", spec.group_cnt);
}

static void window_overflow(void)
{
	/* 64 bytes from first to last byte: one group */
	CHECK(enc("8@0(%rsp) 8@56(%rsp)") == 0, "encode");
	CHECK(spec.group_cnt == 1, "64: groups %u", spec.group_cnt);
	window("64", 1, 0, 64);
	in_group("64", 1, 1, 56);
	CHECK(enc("1@-1(%rsp) 1@62(%rsp)") == 0, "encode");
	window("64 bytes", 1, -1, 64);
	/* 65: each alone */
	CHECK(enc("8@0(%rsp) 8@57(%rsp)") == 0, "encode");
	CHECK(spec.group_cnt == 0, "65: groups %u", spec.group_cnt);
	CHECK(enc("1@-1(%rsp) 1@63(%rsp)") == 0, "encode");
	CHECK(spec.group_cnt == 0, "65 bytes: groups %u", spec.group_cnt);
	/* first fit: a third argument joins the group it fits in, a fourth
	 * that fits in neither starts a new one */
	CHECK(enc("8@0(%rsp) 8@100(%rsp) 8@8(%rsp) 8@108(%rsp) 8@300(%rsp)") == 0,
	      "encode");
	CHECK(spec.group_cnt == 2, "first fit: groups %u", spec.group_cnt);
	window("first fit", 1, 0, 16);
	window("first fit", 2, 100, 16);
	in_group("first fit", 2, 1, 8);
	in_group("first fit", 3, 2, 8);
	in_group("first fit", 4, 0, 0);
	/* a window grows downwards too, up to 64 bytes */
	CHECK(enc("8@40(%rbp) 8@-16(%rbp) 8@-24(%rbp)") == 0, "encode");
	CHECK(spec.group_cnt == 1, "down: groups %u", spec.group_cnt);
	window("down", 1, -16, 64);
	in_group("down", 0, 1, 56);
	in_group("down", 1, 1, 0);
	in_group("down", 2, 0, 0);
}

/* the largest tables: twelve arguments in one group, or six pairs */
static void capacity(void)
{
	CHECK(enc("1@0(%rsp) 1@1(%rsp) 2@2(%rsp) 4@4(%rsp) 8@8(%rsp) 8@16(%rsp) "
		  "8@24(%rsp) 8@32(%rsp) 8@40(%rsp) 8@48(%rsp) 4@56(%rsp) 4@60(%rsp)") == 0,
	      "encode");
	CHECK(spec.group_cnt == 1, "twelve: groups %u", spec.group_cnt);
	window("twelve", 1, 0, 64);
	in_group("twelve", 11, 1, 60);
	CHECK(enc("8@(%rax) 8@(%rbx) 8@(%rcx) 8@(%rdx) 8@(%rsi) 8@(%rdi) "
		  "8@8(%rax) 8@8(%rbx) 8@8(%rcx) 8@8(%rdx) 8@8(%rsi) 8@8(%rdi)") == 0,
	      "encode");
	CHECK(spec.group_cnt == USDTKIT_BPF_MAX_GROUPS, "pairs: groups %u",
	      spec.group_cnt);
	in_group("pairs", 5, 6, 0);
	in_group("pairs", 11, 6, 8);
}

/* grouping keeps each argument's size and sign */
static void sizes_and_signs(void)
{
	static const int size[8] = { 1, 1, 2, 2, 4, 4, 8, 8 };
	int i;

	CHECK(enc("-1@1(%rbx) 1@2(%rbx) -2@3(%rbx) 2@5(%rbx) -4@7(%rbx) 4@11(%rbx) "
		  "-8@15(%rbx) 8@23(%rbx)") == 0, "encode");
	CHECK(spec.group_cnt == 1 && spec.arg_cnt == 8, "groups %u args %u",
	      spec.group_cnt, spec.arg_cnt);
	window("sizes", 1, 1, 30);
	for (i = 0; i < 8; i++) {
		const struct usdtkit_bpf_arg *a = &spec.args[i];
		bool sgn = !(i & 1);

		CHECK(a->size == size[i] && !!(a->flags & USDTKIT_BPF_F_SIGNED) == sgn &&
		      a->kind == USDTKIT_BPF_ARG_MEM,
		      "arg %d: size %u flags %#x", i, a->size, a->flags);
		in_group("sizes", i, 1, (int)a->disp - 1);
	}
}

/* version 1 programs: the 304 bytes they know, no groups, nothing past */
static void version1(void)
{
	const unsigned char *b = (const unsigned char *)&spec;
	size_t i, past = 0;

	CHECK(enc_abi("-4@-8(%rsp) 8@-16(%rsp)", USDTKIT_ABI_OWN_V1) == 0, "encode");
	CHECK(spec.version == 1 && spec.group_cnt == 0, "v1: version %u groups %u",
	      spec.version, spec.group_cnt);
	in_group("v1", 0, 0, 0);
	in_group("v1", 1, 0, 0);
	for (i = USDTKIT_BPF_SPEC_V1_SIZE; i < sizeof(spec); i++)
		past += b[i] != 0xaa;
	CHECK(past == 0, "v1: %zu bytes written past 304", past);
	/* a version 2 spec fills its group table: unused entries are 0 */
	CHECK(enc("-4@-8(%rsp) 8@-16(%rsp)") == 0, "encode");
	CHECK(spec.groups[1].len == 0 && spec.groups[5].len == 0, "v2: unused groups");
}

int main(void)
{
	same_base();
	different_bases();
	index_present();
	window_overflow();
	capacity();
	sizes_and_signs();
	version1();
	return check_done();
}
