// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit__demangle_itanium() (core/elf/demangle_itanium.c) against
 * libstdc++'s __cxa_demangle(): hand cases with their text, hostile
 * names refused without a crash (the ASan build runs this too), then
 * every "_Z" symbol of the ELF files given as arguments (.symtab and
 * .dynsym), and their truncations and mutations: whatever ours
 * accepts must be byte-identical to theirs.
 * A path starting with '?' may be missing; "--min=PATH:PERCENT" asks
 * for at least that share of PATH's names accepted.
 *
 * The test is a host program, so it may dlopen() libstdc++ as the
 * library does; without it (no C++ on the host) the comparison is
 * skipped, the hand cases still run.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <unistd.h>

#include "check.h"
#include "elf/demangle.h"

typedef char *(*cxa_fn)(const char *, char *, size_t *, int *);

static cxa_fn cxa;

/* names __cxa_demangle prints so (its output, checked once by hand) */
static const char *const hand[][2] = {
	{ "_ZN3app6level3Ei", "app::level3(int)" },
	{ "_ZN3app6level3Ei.cold", "app::level3(int) [clone .cold]" },
	{ "_Z1fv.constprop.0.isra.0", "f() [clone .constprop.0] [clone .isra.0]" },
	{ "_ZNSt6vectorIiSaIiEE9push_backERKi",
	  "std::vector<int, std::allocator<int> >::push_back(int const&)" },
	{ "_Z3fooPKcm", "foo(char const*, unsigned long)" },
	{ "_ZN12_GLOBAL__N_11fEv", "(anonymous namespace)::f()" },
	{ "_ZN2ns1CC2Ei", "ns::C::C(int)" },
	{ "_ZN2ns1CD1Ev", "ns::C::~C()" },
	{ "_Znwm", "operator new(unsigned long)" },
	{ "_ZdlPvm", "operator delete(void*, unsigned long)" },
	{ "_Z3fooIiEiT_", "int foo<int>(int)" },
	{ "_Z1fIiEPKcv", "char const* f<int>()" },
	{ "_ZNK1A1fEv", "A::f() const" },
	{ "_ZNKR1A1fEv", "A::f() const &" },
	{ "_ZNO1A1fEv", "A::f() &&" },
	{ "_Z1fPVKi", "f(int const volatile*)" },
	{ "_Z1fRKPKc", "f(char const* const&)" },
	{ "_Z1fOi", "f(int&&)" },
	{ "_Z1fILi5ELj5ELl5ELm5ELx5ELy5ELb1ELc97ELs3ELin5EEvv",
	  "void f<5, 5u, 5l, 5ul, 5ll, 5ull, true, (char)97, (short)3, -5>()" },
	{ "_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc",
	  "std::basic_ostream<char, std::char_traits<char> >& std::operator<< "
	  "<std::char_traits<char> >(std::basic_ostream<char, "
	  "std::char_traits<char> >&, char const*)" },
	{ "_ZN1AcviEv", "A::operator int()" },
	{ "_ZNSsC1Ev", "std::basic_string<char, std::char_traits<char>, "
	  "std::allocator<char> >::basic_string()" },
	{ "_ZZ4mainE1x", "main::x" },
	{ "_ZZ1fvE1x_0", "f()::x" },
	{ "_ZZN3app6level3EiEN1S1gEv", "app::level3(int)::S::g()" },
	{ "_ZThn8_N1A1fEv", "non-virtual thunk to A::f()" },
	{ "_ZTv0_n24_N1A1fEv", "virtual thunk to A::f()" },
	{ "_ZTVSt9exception", "vtable for std::exception" },
	{ "_ZTIPKc", "typeinfo for char const*" },
	{ "_Z1fIJiEEvv", "void f<int>()" },
	{ "_Z1fIJEEvv", "void f<>()" },
	{ "_Z1fz", "f(...)" },
	{ "_Z1fiz", "f(int, ...)" },
	{ "_ZN1AIiEC1Ev", "A<int>::A()" },
	{ "_ZN1AIiED0Ev", "A<int>::~A()" },
	{ "_ZN1A1BIS_EE", "A::B<A>" },
	{ "_ZL3foov", "foo()" },
	{ "_ZNStL1fEv", "std::f()" },
	{ "_ZNSt8ios_base7failureB5cxx11C1EPKcRKSt10error_code",
	  "std::ios_base::failure[abi:cxx11]::failure(char const*, "
	  "std::error_code const&)" },
	{ "_ZN1AB3fooIiEC1Ev", "A[abi:foo]<int>::A()" },
	{ "_ZN1AB1xB1yD1Ev", "A[abi:x][abi:y]::~A()" },
	{ "_Z3foo", "foo" },
	{ "_ZGTt1fv", "transaction clone for f()" },
	{ "_Z1fIL1E3EEvv", "void f<(E)3>()" },
	{ "_Z1fILN1a1EEn3EEvv", "void f<(a::E)-3>()" },
	{ "_ZN1AC1Ev", "A::A()" },
	{ "_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE3strB5cxx11Ev",
	  "std::__cxx11::basic_string<char, std::char_traits<char>, "
	  "std::allocator<char> >::str[abi:cxx11]() const" },
};

/* forms refused, as the contract says (lambdas, decltype, expressions,
 * function and array types), and names built to hurt */
static const char *const refused[] = {
	"_Z", "_ZN", "_ZN3app", "_ZN3app6level3", "_ZN3app6lev", "_Z1",
	"_Z9", "_Z99999999999999999999f", "_ZNS9999999999999999_1fEv",
	"_ZN1aS999_E", "_Z1fT_", "_Z1fT99999_", "_ZZ", "_ZZ1fvE",
	"_ZZ1fvEs", "_ZZ1fvE1x_", "_ZNKUlvE_clEv",
	"_ZN1AUt_E", "_Z1fDTfp_E", "_Z1fIiEvDpT_", "_Z1fPFivE", "_Z1fA10_i",
	"_Z1fM1AFivE", "_Z1fILZ1gvEEvv", "_Z1fIXadL_Z1gvEEEvv", "_Z1fRRi",
	"_Z1fU3fooi", "_Z3foov.", "_Z3foov junk", "_ZN1AD5Ev", "_ZN1AC4Ev",
	"_Z1fvv", "_Z1fIE", "_ZTC1A0_1B", "_ZGR1x_", "_Z1fILi5", "_Z1fILiE",
	"_Z1fSt", "_Z1fS_", "_Zli2_xPKc", "_ZGTn1fv",
	/* what __cxa_demangle merges, collapses or refuses, and we refuse */
	"_Z1fKKi", "_Z1fIKiEvKT_", "_Z1fIRiEvRT_", "_ZNrs1fEv", "_ZN1A1fET_",
	"_ZNStC1Ev", "_ZNssC1Ev", "_Z1fILf0EEvv", "_ZNSsIcEC1Ev",
	"_ZNStLcv1fEv", "_ZN1AIiE1fIcEEvT_IiE", "_ZN1AIiEB3fooC1Ev",
};

static void check_hand(void)
{
	char buf[1024];
	size_t i;
	int err;

	for (i = 0; i < sizeof(hand) / sizeof(hand[0]); i++) {
		err = usdtkit__demangle_itanium(hand[i][0], buf, sizeof(buf));
		CHECK(!err, "%s: %d", hand[i][0], err);
		if (!err)
			CHECK(!strcmp(buf, hand[i][1]), "%s: \"%s\", not \"%s\"",
			      hand[i][0], buf, hand[i][1]);
	}
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		err = usdtkit__demangle_itanium(refused[i], buf, sizeof(buf));
		CHECK(err == -EINVAL || err == -ENOSPC, "%s: %d \"%s\"",
		      refused[i], err, err ? "" : buf);
	}
	/* a buffer too small: -ENOSPC, nothing past it written */
	memset(buf, 'x', sizeof(buf));
	err = usdtkit__demangle_itanium("_ZN3app6level3Ei", buf, 8);
	CHECK(err == -ENOSPC && buf[8] == 'x', "small buffer: %d", err);
}

/* a string of @n copies of @unit between @head and @tail, malloc'ed */
static char *repeat(const char *head, const char *unit, size_t n,
		    const char *tail)
{
	size_t h = strlen(head), u = strlen(unit), t = strlen(tail), i;
	char *s = malloc(h + u * n + t + 1);

	if (!s)
		abort();
	memcpy(s, head, h);
	for (i = 0; i < n; i++)
		memcpy(s + h + i * u, unit, u);
	memcpy(s + h + u * n, tail, t + 1);
	return s;
}

/* deep nesting of every recursive form, and huge tables: refused */
static void check_hostile(void)
{
	static const char *const forms[][3] = {
		{ "_Z", "N", "1aE" }, { "_Z1f", "P", "i" }, { "_Z1f", "K", "i" },
		{ "_Z1f", "N1aI", "iEE" }, { "_Z", "Z", "1fvE1x" },
		{ "_Z1fI", "J", "iE" }, { "_Z1f", "1aI", "iE" },
		{ "_Z", "Th0_", "1fv" }, { "_Z1f", "PS_", "" },
	};
	char buf[4096], *s;
	size_t i;
	int err;

	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		s = repeat(forms[i][0], forms[i][1], 10000, forms[i][2]);
		err = usdtkit__demangle_itanium(s, buf, sizeof(buf));
		CHECK(err == -EINVAL || err == -ENOSPC, "%s x10000: %d",
		      forms[i][1], err);
		free(s);
	}
	/* 300 parameters, each a new pointer type: past the table */
	s = repeat("_Z1f", "P1a", 300, "");
	err = usdtkit__demangle_itanium(s, buf, sizeof(buf));
	CHECK(err == -EINVAL || err == -ENOSPC || !err, "%d", err);
	free(s);
	/* the longest text: -ENOSPC */
	s = repeat("_Z1f", "PPPPPPPPPPPPi", 1000, "");
	err = usdtkit__demangle_itanium(s, buf, sizeof(buf));
	CHECK(err == -EINVAL || err == -ENOSPC, "long: %d", err);
	free(s);
}

/* usdtkit__demangle() without __cxa_demangle() (as in the static CLI):
 * ours, and NULL (the mangled name shown) for what ours refuses */
static void check_fallback(void)
{
	struct usdtkit__demangler dm = { .tried = true };
	const char *s;

	s = usdtkit__demangle(&dm, "_ZN3app6level3Ei.cold");
	CHECK(s && !strcmp(s, "app::level3(int) [clone .cold]"), "%s",
	      s ? s : "(null)");
	s = usdtkit__demangle(&dm, "_ZNKUlvE_clEv");
	CHECK(!s, "lambda: %s", s);
	s = usdtkit__demangle(&dm, "main");
	CHECK(!s, "main: %s", s);
	usdtkit__demangler_fini(&dm);
}

struct tally {
	long total, accepted, mismatched;
	long mutants, mutants_accepted;
};

/* 0: accepted and identical, 1: refused, -1: a mismatch (reported) */
static int compare_one(const char *name)
{
	char mine[4096], *theirs;
	int status = -1, err, ret = 0;

	err = usdtkit__demangle_itanium(name, mine, sizeof(mine));
	CHECK(err == 0 || err == -EINVAL || err == -ENOSPC, "%s: %d", name, err);
	if (err)
		return 1;
	theirs = cxa(name, NULL, NULL, &status);
	if (!theirs || status || strcmp(mine, theirs)) {
		ret = -1;
		CHECK(0, "%s: ours \"%s\", __cxa_demangle \"%s\"", name, mine,
		      theirs ? theirs : "(refused)");
	}
	free(theirs);
	return ret;
}

/*
 * Names one step from real ones, where a demangler's guesses show:
 * every truncation, and 8 characters replaced (a fixed sequence).
 * What ours accepts of them must still be what __cxa_demangle prints
 * (and refuses: refused).
 */
static void mutate(const char *name, struct tally *t)
{
	static const char alpha[] = "_0123456789NESIJLKVRrOPTZCDabcdefghijlmnostvxyz";
	static unsigned int seed = 1;
	size_t n = strlen(name), i;
	char m[4096];
	int k;

	if (n >= sizeof(m) || n < 4)
		return;
	for (i = 3; i < n; i++) {
		memcpy(m, name, i);
		m[i] = '\0';
		t->mutants++;
		t->mutants_accepted += !compare_one(m);
	}
	for (k = 0; k < 8; k++) {
		memcpy(m, name, n + 1);
		seed = seed * 1103515245u + 12345u;
		i = 2 + (seed >> 8) % (n - 2);
		seed = seed * 1103515245u + 12345u;
		m[i] = alpha[(seed >> 8) % (sizeof(alpha) - 1)];
		t->mutants++;
		t->mutants_accepted += !compare_one(m);
	}
}

static void compare(const char *name, struct tally *t)
{
	int r = compare_one(name);

	t->total++;
	mutate(name, t);
	if (r == 1)
		return;
	t->accepted++;
	t->mismatched += r < 0;
}

static void compare_section(Elf *e, Elf_Scn *scn, struct tally *t)
{
	GElf_Shdr sh;
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Sym sym;
	const char *name;
	size_t i, n;

	if (!gelf_getshdr(scn, &sh) || !data || !sh.sh_entsize)
		return;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 0; i < n; i++) {
		if (!gelf_getsym(data, (int)i, &sym) || !sym.st_name)
			continue;
		name = elf_strptr(e, sh.sh_link, sym.st_name);
		if (name && !strncmp(name, "_Z", 2))
			compare(name, t);
	}
}

/* every "_Z" symbol of @path; -1: no such file */
static int compare_file(const char *path, struct tally *t)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *e;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ, NULL);
	CHECK(e, "%s: not ELF", path);
	while (e && (scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM))
			compare_section(e, scn, t);
	elf_end(e);
	close(fd);
	return 0;
}

static void check_file(const char *arg)
{
	struct tally t = { 0, 0, 0, 0, 0 };
	bool optional = arg[0] == '?';
	const char *path = arg + optional, *colon = strrchr(arg, ':');
	char p[4096];
	double min = 0;

	if (!strncmp(arg, "--min=", 6) && colon) {
		snprintf(p, sizeof(p), "%.*s", (int)(colon - arg - 6), arg + 6);
		path = p;
		min = atof(colon + 1);
	}
	if (compare_file(path, &t)) {
		CHECK(optional, "%s: %s", path, strerror(errno));
		return;
	}
	printf("%s: %ld of %ld names accepted (%.1f%%), %ld mismatched\n", path,
	       t.accepted, t.total, t.total ? 100.0 * t.accepted / t.total : 0.0,
	       t.mismatched);
	printf("%s: %ld of %ld truncated or mutated names accepted, "
	       "each as __cxa_demangle prints it\n", path, t.mutants_accepted,
	       t.mutants);
	CHECK(!min || (t.total && 100.0 * t.accepted / t.total >= min),
	      "%s: under %.0f%% accepted", path, min);
}

int main(int argc, char **argv)
{
	void *lib;
	int i;

	check_hand();
	check_hostile();
	check_fallback();
	lib = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
	if (lib)
		*(void **)&cxa = dlsym(lib, "__cxa_demangle");
	if (!cxa) {
		printf("no __cxa_demangle: the comparison skipped\n");
		return check_done();
	}
	elf_version(EV_CURRENT);
	for (i = 1; i < argc; i++)
		check_file(argv[i]);
	dlclose(lib);
	return check_done();
}
