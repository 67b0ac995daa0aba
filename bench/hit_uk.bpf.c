// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hit_bench, usdtkit side: count only, and count + read 3 arguments. */
#include <linux/bpf.h>
#include <linux/ptrace.h>

#include <usdtkit/usdtkit.bpf.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* hits; hits whose values were wrong (b != 3a + 1 or c != 7a + 2); the
 * last values read */
unsigned long hits, bad;
long last[3];

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

SEC("usdtkit")
int USDTKIT_PROBE(uk_read3, long a, long b, long c)
{
	hits++;
	if (b != 3 * a + 1 || c != 7 * a + 2)
		bad++;
	last[0] = a;
	last[1] = b;
	last[2] = c;
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
