// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * hit_bench, usdtkit side: count only; read the probe's arguments with
 * usdtkit_spec_args() (as USDTKIT_PROBE does), coalescing on and off
 * (as -DUSDTKIT_NO_COALESCE builds it); and the
 * pieces of a read, each program adding one to the one before: the
 * cookie, the spec lookup, the first argument in memory.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>

#include <usdtkit/usdtkit.bpf.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* hits; hits whose values were wrong; the last values read */
unsigned long hits, bad;
long last[6];

/* usdtkit refuses a program without the spec map: this one names it on a
 * branch that is never taken, so a hit costs what libbpf's lb_count does */
SEC("usdtkit")
int uk_count(struct pt_regs *ctx)
{
	(void)ctx;
	if (hits == ~0UL)
		bpf_map_lookup_elem(&usdtkit_specs, &(int){ 0 });
	hits++;
	return 0;
}

/* hit:hot and hit:reg: b = 3a + 1, c = 7a + 2 */
static __always_inline void check3(const long *v)
{
	hits++;
	if (v[1] != 3 * v[0] + 1 || v[2] != 7 * v[0] + 2)
		bad++;
	last[0] = v[0];
	last[1] = v[1];
	last[2] = v[2];
}

/* hit:real: i, -i - 1, 3i + 1, -(7i + 2), 11i + 4, 13i + 5 */
static __always_inline void check6(const long *v)
{
	long a = v[0];

	hits++;
	if (v[1] != -a - 1 || v[2] != 3 * a + 1 || v[3] != -(7 * a + 2) ||
	    v[4] != 11 * a + 4 || v[5] != 13 * a + 5)
		bad++;
	last[0] = v[0];
	last[1] = v[1];
	last[2] = v[2];
	last[3] = v[3];
	last[4] = v[4];
	last[5] = v[5];
}

SEC("usdtkit")
int USDTKIT_PROBE(uk_read3, long a, long b, long c)
{
	long v[3] = { a, b, c };

	check3(v);
	return 0;
}

/* coalescing off: usdtkit_spec_args() as -DUSDTKIT_NO_COALESCE builds it */
SEC("usdtkit")
int uk_read3_nc(struct pt_regs *ctx)
{
	const struct usdtkit_bpf_spec *s = usdtkit_spec(ctx);
	long v[3];

	usdtkit__spec_args(ctx, s, v, 0, 0x7, 0);
	check3(v);
	return 0;
}

SEC("usdtkit")
int uk_read6(struct pt_regs *ctx)
{
	const struct usdtkit_bpf_spec *s = usdtkit_spec(ctx);
	long v[6];

	usdtkit_spec_args(ctx, s, v, 0x3f);
	check6(v);
	return 0;
}

SEC("usdtkit")
int uk_read6_nc(struct pt_regs *ctx)
{
	const struct usdtkit_bpf_spec *s = usdtkit_spec(ctx);
	long v[6];

	usdtkit__spec_args(ctx, s, v, 0, 0x3f, 0);
	check6(v);
	return 0;
}

/* ---- the pieces, hit:hot: each program is the previous one + one ---- */

/* + bpf_get_attach_cookie() */
SEC("usdtkit")
int uk_cookie(struct pt_regs *ctx)
{
	if (hits == ~0UL)
		bpf_map_lookup_elem(&usdtkit_specs, &(int){ 0 });
	last[0] = (long)bpf_get_attach_cookie(ctx);
	hits++;
	return 0;
}

/* + the spec lookup (cookie - 1 -> array map value) */
SEC("usdtkit")
int uk_lookup(struct pt_regs *ctx)
{
	const struct usdtkit_bpf_spec *s = usdtkit_spec(ctx);

	hits++;
	if (!s)
		bad++;
	return 0;
}

/* + argument 1 decoded and read (the stack slot: one user read) */
SEC("usdtkit")
int uk_read1(struct pt_regs *ctx)
{
	const struct usdtkit_bpf_spec *s = usdtkit_spec(ctx);
	long v = 0;

	usdtkit_spec_arg(ctx, s, 1, &v);
	hits++;
	last[1] = v;
	return 0;
}

/*
 * The floor of reading these 3 arguments: the spec lookup and the two
 * user-memory reads every reader must make (stack slot and global), with
 * no decoding at all. Not a correct reader (it reads two fixed stack
 * slots): it prices the helpers alone.
 */
SEC("usdtkit")
int uk_floor(struct pt_regs *ctx)
{
	const struct usdtkit_bpf_spec *s = usdtkit_spec(ctx);
	unsigned long long sp = 0, x = 0, y = 0;

	usdtkit__slot(ctx, 8, 152, &sp);	/* rsp */
	bpf_probe_read_user(&x, 8, (void *)(sp - 8));
	bpf_probe_read_user(&y, 8, (void *)(sp - 16));
	hits++;
	if (!s)
		bad++;
	last[0] = x;
	last[1] = y;
	return 0;
}
