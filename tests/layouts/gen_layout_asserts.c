// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Prints a C file of _Static_asserts: for every register name in an arch's
 * table, offsetof(<uapi struct>, <field>) must equal the offset usdtkit
 * uses. Compiled with that target's cross compiler against its real uapi
 * <asm/ptrace.h>, the file proves the tables instead of trusting them.
 *
 * The name -> field mapping here is written from the uapi headers' field
 * names, independently of the library: only the numbers come from it.
 *
 * usage: gen_layout_asserts ARCH native|compat64
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usdtkit/usdtkit.h>

/* x86 register family of a view: "eax", "al", "ah", "rax" -> "ax" */
static const char *x86_family(const char *n, char *buf, size_t sz)
{
	static const char *const fam[] = { "ax", "bx", "cx", "dx", "si",
					   "di", "bp", "sp", "ip" };
	size_t i, len = strlen(n);

	if (n[0] == 'r' && isdigit((unsigned char)n[1])) {
		/* r8, r8d, r8w, r8b -> r8 */
		snprintf(buf, sz, "r%d", atoi(n + 1));
		return buf;
	}
	for (i = 0; i < sizeof(fam) / sizeof(fam[0]); i++) {
		/* "rax"/"eax"/"ax", "sil"/"bpl", "al"/"ah" */
		if ((len == 3 && (n[0] == 'r' || n[0] == 'e') && !strcmp(n + 1, fam[i])) ||
		    !strcmp(n, fam[i]) ||
		    (len == 3 && n[2] == 'l' && !strncmp(n, fam[i], 2)) ||
		    (len == 2 && fam[i][1] == 'x' && n[0] == fam[i][0] &&
		     (n[1] == 'l' || n[1] == 'h')))
			return fam[i];
	}
	return NULL;
}

static int x86_field(const char *name, const char *prefix, char *out, size_t sz)
{
	char buf[16];
	const char *f = x86_family(name, buf, sizeof(buf));

	if (!f)
		return -1;
	if (f[0] == 'r')	/* r8..r15 have no 32-bit field names */
		snprintf(out, sz, "%s", f);
	else
		snprintf(out, sz, "%s%s", prefix, f);
	return 0;
}

static const char *const riscv_abi[32] = {
	"zero", "ra", "sp",  "gp",  "tp", "t0", "t1", "t2", "s0", "s1", "a0",
	"a1",	"a2", "a3",  "a4",  "a5", "a6", "a7", "s2", "s3", "s4", "s5",
	"s6",	"s7", "s8",  "s9",  "s10", "s11", "t3", "t4", "t5", "t6",
};

static int riscv_field(const char *name, char *out, size_t sz)
{
	int i;

	if (name[0] == 'x' && isdigit((unsigned char)name[1]))
		name = riscv_abi[atoi(name + 1) & 31];
	if (!strcmp(name, "fp"))
		name = "s0";
	for (i = 1; i < 32; i++)
		if (!strcmp(name, riscv_abi[i])) {
			snprintf(out, sz, "%s", name);
			return 0;
		}
	return -1;
}

static int arm_field(const char *name, char *out, size_t sz)
{
	static const char *const alias[] = { "sb", "sl", "fp", "ip",
					     "sp", "lr", "pc" };
	size_t i;

	if (name[0] == 'r' && isdigit((unsigned char)name[1])) {
		snprintf(out, sz, "uregs[%d]", atoi(name + 1));
		return 0;
	}
	for (i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (!strcmp(name, alias[i])) {
			snprintf(out, sz, "uregs[%zu]", 9 + i);
			return 0;
		}
	return -1;
}

/* an arm process on an arm64 kernel: compat_usr(n) is regs[n] */
static int arm_compat_field(const char *name, char *out, size_t sz)
{
	int n;

	if (arm_field(name, out, sz))
		return -1;
	n = atoi(out + 6);	/* "uregs[N]" */
	if (n == 15)
		snprintf(out, sz, "pc");
	else
		snprintf(out, sz, "regs[%d]", n);
	return 0;
}

static int arm64_field(const char *name, char *out, size_t sz)
{
	if ((name[0] == 'x' || name[0] == 'w') && isdigit((unsigned char)name[1])) {
		snprintf(out, sz, "regs[%d]", atoi(name + 1));
		return 0;
	}
	if (!strcmp(name, "sp") || !strcmp(name, "wsp")) {
		snprintf(out, sz, "sp");
		return 0;
	}
	return -1;
}

static int s390x_field(const char *name, char *out, size_t sz)
{
	if (name[0] == 'r' && isdigit((unsigned char)name[1])) {
		snprintf(out, sz, "gprs[%d]", atoi(name + 1));
		return 0;
	}
	return -1;
}

/* ppc64: gpr[N], then the named slots (pt_regs says "link" for lr) */
static int ppc_field(const char *name, char *out, size_t sz)
{
	static const char *const named[] = { "nip", "msr", "ctr", "xer", "ccr" };
	size_t i;

	if (name[0] == 'r' && isdigit((unsigned char)name[1])) {
		snprintf(out, sz, "gpr[%d]", atoi(name + 1));
		return 0;
	}
	if (!strcmp(name, "lr")) {
		snprintf(out, sz, "link");
		return 0;
	}
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strcmp(name, named[i])) {
			snprintf(out, sz, "%s", name);
			return 0;
		}
	return -1;
}

/* uapi struct and field for @name in arch @a's layout @kind */
static int field_of(const char *arch, int compat, const char *name,
		    const char **type, char *out, size_t sz)
{
	if (!strcmp(arch, "x86_64") || !strcmp(arch, "x32") ||
	    (!strcmp(arch, "i386") && compat)) {
		*type = "struct pt_regs";
		return x86_field(name, "r", out, sz);
	}
	if (!strcmp(arch, "i386")) {
		*type = "struct pt_regs";
		return x86_field(name, "e", out, sz);
	}
	if (!strcmp(arch, "aarch64")) {
		*type = "struct user_pt_regs";
		return arm64_field(name, out, sz);
	}
	if (!strcmp(arch, "arm") && compat) {
		*type = "struct user_pt_regs";
		return arm_compat_field(name, out, sz);
	}
	if (!strcmp(arch, "arm")) {
		*type = "struct pt_regs";
		return arm_field(name, out, sz);
	}
	if (!strncmp(arch, "riscv", 5)) {
		*type = "struct user_regs_struct";
		return riscv_field(name, out, sz);
	}
	if (!strcmp(arch, "s390x")) {
		*type = "user_pt_regs";
		return s390x_field(name, out, sz);
	}
	if (!strncmp(arch, "ppc64", 5)) {
		*type = "struct pt_regs";
		return ppc_field(name, out, sz);
	}
	return -1;
}

int main(int argc, char **argv)
{
	const struct usdtkit_arch *a;
	const struct usdtkit_layout *l;
	const struct usdtkit_regdef *d;
	const char *type = NULL;
	char field[32];
	int compat, n = 0;
	size_t i;

	if (argc != 3) {
		fprintf(stderr, "usage: %s ARCH native|compat64\n", argv[0]);
		return 2;
	}
	compat = !strcmp(argv[2], "compat64");
	a = usdtkit_arch_by_name(argv[1]);
	l = a ? usdtkit_arch_layout(a, compat ? USDTKIT_LAYOUT_COMPAT64
					      : USDTKIT_LAYOUT_NATIVE) : NULL;
	if (!l) {
		fprintf(stderr, "no %s layout for %s\n", argv[2], argv[1]);
		return 2;
	}
	printf("/* generated: %s %s, %s */\n#include <stddef.h>\n"
	       "#include <asm/ptrace.h>\n", argv[1], argv[2], l->name);
	for (i = 0; (d = usdtkit_arch_reg_at(a, i)); i++) {
		if (field_of(argv[1], compat, d->name, &type, field, sizeof(field))) {
			fprintf(stderr, "%s: no uapi field known for register %s\n",
				argv[1], d->name);
			return 1;
		}
		printf("_Static_assert(offsetof(%s, %s) == %d, \"%s %s: %s\");\n",
		       type, field, l->offsets[d->id], argv[1], d->name, field);
		printf("_Static_assert(sizeof(((%s *)0)->%s) == %d, \"%s slot\");\n",
		       type, field, l->slot_size, d->name);
		n++;
	}
	printf("_Static_assert(sizeof(%s) == %d, \"%s size\");\n", type, l->size,
	       l->name);
	/* the layout's byte order is the target compiler's */
	printf("_Static_assert((__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) == %d, "
	       "\"%s byte order\");\n", l->big_endian, l->name);
	printf("/* %d registers */\n", n);
	return n ? 0 : 1;
}
