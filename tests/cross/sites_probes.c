// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probes: each SITEn() records the values it is about to pass, then
 * fires STAP_PROBEn() with the same expressions. The values cover what
 * compilers put in specs: constants, arguments in registers, locals on
 * the stack, globals (symbol-relative operands), array elements with a
 * variable index, struct fields, negative values of every width, 64-bit
 * values on 32-bit targets (register pairs), pointers and floats. Built
 * at -O0 and -O2, so the same source yields different operands.
 */
#include "sites_probe.h"

struct sites_expect sites_expect;

struct rec {
	int8_t c;
	int16_t s;
	int32_t i;
	int64_t l;
	uint8_t uc;
	uint16_t us;
	uint32_t ui;
	uint64_t ul;
	void *p;
	double d;
};

int8_t g_i8 = -12;
int16_t g_i16 = -1234;
int32_t g_i32 = -123456;
int64_t g_i64 = -0x123456789abLL;
uint8_t g_u8 = 0xfe;
uint16_t g_u16 = 0xfedc;
uint32_t g_u32 = 0xfedcba98u;
uint64_t g_u64 = 0xfedcba9876543210ull;
int32_t g_arr[8] = { -1, 2, -3, 4, -5, 6, -7, 8 };
int64_t g_arr64[8] = { -100000000000LL, 1, -2, 3, -4, 5, -6, 7 };
int16_t g_arr16[8] = { -300, 301, -302, 303, -304, 305, -306, 307 };
float g_f = -1.5f;
double g_d = 6.25e10;
struct rec g_rec = { -7, -700, -70000, -7000000000LL, 0xf7, 0xf777,
		     0xf7777777u, 0xf777777777777777ull, &g_rec, -0.5 };
static int32_t s_counter = 77;	/* a local symbol */
const char g_str[] = "usdtkit";
volatile int sites_sink;	/* keeps values alive at -O2 */

/* Values the compiler cannot fold, so they live in registers. */
static volatile int32_t v_seed = -5;

static void escape(void *p)
{
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

NOINLINE static void constants(void)
{
	SITE8(constants, 42, -1, (int8_t)-128, (int16_t)-32768,
	      (int64_t)-1234567890123LL, (uint32_t)0xdeadbeefu,
	      (uint8_t)200, (uint64_t)0xfeedfacecafebeefull);
}

NOINLINE static void params(int8_t a, int16_t b, int32_t c, int64_t d,
			    uint8_t e, uint16_t f)
{
	SITE6(params, a, b, c, d, e, f);
	sites_sink = a + b + c + (int)d + e + f;
}

NOINLINE static void params2(uint32_t a, uint64_t b, char c, _Bool d,
			     long e, unsigned long f)
{
	SITE6(params2, a, b, c, d, e, f);
	sites_sink = (int)(a + b + c + d + e + f);
}

/* Negative values computed at run time, one per width. */
NOINLINE static void negatives(int n)
{
	int8_t a = (int8_t)(n * 3);
	int16_t b = (int16_t)(n * 1000);
	int32_t c = n * 100000;
	int64_t d = (int64_t)n * 10000000000LL;

	SITE4(negatives, a, b, c, d);
	sites_sink = a + b + c + (int)d;
}

/* 64-bit values in registers: register pairs on 32-bit targets. */
NOINLINE static void wide(int64_t x, uint64_t y)
{
	int64_t z = x * 3;
	uint64_t w = y ^ 0x0f0f0f0f0f0f0f0full;

	SITE4(wide, z, w, x, y);
	sites_sink = (int)(z + w);
}

/* Locals on the stack, read through a variable index. */
NOINLINE static void stack(int i)
{
	int32_t loc[8];
	int64_t loc64[4];
	int16_t loc16[4];
	int k;

	for (k = 0; k < 8; k++)
		loc[k] = (k & 1 ? 1 : -1) * (k + 1) * 1000;
	for (k = 0; k < 4; k++) {
		loc64[k] = -((int64_t)(k + 1) << 40);
		loc16[k] = (int16_t)(-k - 20);
	}
	escape(loc);
	escape(loc64);
	escape(loc16);
	SITE4(stack, loc[i], loc64[i], loc16[i], loc[i + 1]);
	SITE2(stack_addr, &loc[i], loc[0]);
}

NOINLINE static void globals(void)
{
	SITE8(globals, g_i8, g_i16, g_i32, g_i64, g_u8, g_u16, g_u32, g_u64);
	SITE2(statics, s_counter, &s_counter);
}

NOINLINE static void global_arrays(int i)
{
	SITE4(global_arrays, g_arr[i], g_arr64[i], g_arr16[i], g_arr[i + 1]);
	SITE2(global_addr, &g_arr[i], g_str[i]);
}

NOINLINE static void fields(const struct rec *r)
{
	SITE6(fields, r->c, r->s, r->i, r->l, r->p, r);
	SITE4(fields_u, r->uc, r->us, r->ui, r->ul);
}

NOINLINE static void pointers(const char *s, void *p)
{
	SITE4(pointers, s, p, &g_i32, g_str);
}

/* Floats in FP registers cannot be read from pt_regs: the check counts
 * them as skipped (unreadable); in memory or GPRs they are checked. */
NOINLINE static void floats(float f, double d)
{
	SITE4(floats, f, d, g_f, g_d);
	SITE2(float_fields, g_rec.d, g_rec.i);
}

NOINLINE static void loop(int n)
{
	int i;

	for (i = 0; i < n; i++)
		SITE3(loop, i, g_arr[i], -i);
}

void sites_run_probes(void)
{
	int seed = v_seed;	/* -5, unknown to the compiler */

	constants();
	params((int8_t)seed, (int16_t)(seed * 99), seed * 400000,
	       (int64_t)seed * 3000000000LL, (uint8_t)(250 + seed),
	       (uint16_t)(65000 + seed));
	params2((uint32_t)seed, (uint64_t)seed * 7, (char)(seed - 60),
		seed < 0, (long)seed * 9, (unsigned long)-seed);
	negatives(seed);
	negatives(-seed);
	wide((int64_t)seed * 0x123456789LL, 0x8000000000000001ull - seed);
	stack(-seed - 3);
	stack(0);
	globals();
	global_arrays(-seed);
	global_arrays(0);
	fields(&g_rec);
	pointers(g_str + 2, &g_rec);
	floats((float)seed / 4, (double)seed * 1e9);
	sites_fp_probes((float)seed * 3, (double)seed / 8);
	loop(-seed);
}
