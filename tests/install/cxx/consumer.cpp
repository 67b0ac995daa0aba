// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A C++ caller of <usdtkit/usdtkit.h>, <usdtkit/attach.h> and
 * <usdtkit/trace.h>, built by tests/install/cxx/cxx_consumer.sh with g++ and
 * clang++ at -std=c++17 and -std=c++20 (-Wall -Wextra -Werror):
 * - USDTKIT_OPTS() declares options whose padding is zero however dirty
 *   the stack was (C++20 with designated initializers in field order,
 *   C++17 with assignments after: usdtkit(3));
 * - the file API finds fx_tlib's probes;
 * - the trace engine runs fx_tlib as a command in MODE and counts its
 *   hits in the kernel: tl:val 100, tl:name 30.
 * usage: consumer FX_TLIB MODE     exit 0 when every check held
 */
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <usdtkit/attach.h>
#include <usdtkit/trace.h>
#include <usdtkit/usdtkit.h>

static int failed;

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			failed++;                                              \
			std::fprintf(stderr, "consumer: FAIL: " __VA_ARGS__); \
			std::fputc('\n', stderr);                              \
		}                                                              \
	} while (0)

static void print(void *, enum usdtkit_log_level, const char *msg)
{
	std::fprintf(stderr, "consumer: usdtkit: %s\n", msg);
}

/* a stack full of 0xaa where the next frame's options will be */
__attribute__((noinline)) static void dirty_stack(void)
{
	volatile unsigned char junk[4096];

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = 0xaa;
}

/* bytes of @p past @known up to @size that are not zero */
static size_t dirty_tail(const void *p, size_t known, size_t size)
{
	const unsigned char *b = static_cast<const unsigned char *>(p);
	size_t n = 0;

	for (size_t i = known; i < size; i++)
		n += b[i] != 0;
	return n;
}

__attribute__((noinline)) static void check_opts_padding(void)
{
#if __cplusplus >= 202002L
	USDTKIT_OPTS(usdtkit_attach_opts, o, .cookie = 7, .any_process = true);
#else
	USDTKIT_OPTS(usdtkit_attach_opts, o);
	o.cookie = 7;
	o.any_process = true;
#endif
	CHECK(o.sz == sizeof(o) && o.cookie == 7 && o.any_process,
	      "attach opts fields");
	CHECK(!dirty_tail(&o, offsetof(struct usdtkit_attach_opts, any_process) +
				 sizeof(o.any_process), sizeof(o)),
	      "attach opts: padding past any_process not zero");
}

static void check_file(const char *path)
{
	USDTKIT_OPTS(usdtkit_open_opts, oo);
	struct usdtkit_file *f;
	size_t names = 0;

	oo.print = print;
	f = usdtkit_file_open(path, &oo);
	CHECK(f, "usdtkit_file_open(%s): %s", path, std::strerror(errno));
	if (!f)
		return;
	for (const struct usdtkit_site *s = nullptr;
	     (s = usdtkit_file_next_site(f, s, "tl", "name"));)
		names++;
	CHECK(names == 1, "%s: %zu tl:name sites, want 1", path, names);
	usdtkit_file_close(f);
}

static int run_steps(struct usdtkit_trace *t)
{
	int (*const steps[])(struct usdtkit_trace *) = {
		usdtkit_trace_prepare, usdtkit_trace_load,
		usdtkit_trace_attach, usdtkit_trace_go,
	};
	int err = 0;

	for (auto step : steps)
		if (!err)
			err = step(t);
	return err;
}

static void check_trace(const char *path, const char *mode_name)
{
	int mode = usdtkit_mode_parse(mode_name);
#if __cplusplus >= 202002L
	USDTKIT_OPTS(usdtkit_trace_opts, o, .mode = (enum usdtkit_mode)mode,
		     .print = print);
#else
	USDTKIT_OPTS(usdtkit_trace_opts, o);
	o.mode = (enum usdtkit_mode)mode;
	o.print = print;
#endif
	USDTKIT_OPTS(usdtkit_trace_agg_opts, counts);
	struct usdtkit_trace_stats st[2];
	char *const argv[] = { const_cast<char *>(path), nullptr };
	struct usdtkit_trace *t;
	int err, status = -1;

	CHECK(mode >= 0, "mode %s", mode_name);
	t = usdtkit_trace_new(&o);
	CHECK(t, "usdtkit_trace_new: %s", std::strerror(errno));
	if (!t)
		return;
	err = usdtkit_trace_set_command(t, argv);
	if (!err)
		err = usdtkit_trace_add(t, "tl:val");
	if (!err)
		err = usdtkit_trace_add(t, "tl:name");
	if (!err)
		err = usdtkit_trace_add_agg(t, USDTKIT_TRACE_AGG_COUNTS, &counts);
	if (!err)
		err = run_steps(t);
	CHECK(!err, "trace %s in %s: %s", path, mode_name, std::strerror(-err));
	if (!err) {
		usdtkit_trace_command_exited(t, true, &status);
		CHECK(status == 0, "fx_tlib's status %d", status);
		for (size_t i = 0; i < 2; i++)
			CHECK(!usdtkit_trace_read_stats(t, i, 0, &st[i]),
			      "read_stats %zu", i);
		CHECK(st[0].count == 100 && st[1].count == 30,
		      "%s: counted tl:val %llu (want 100), tl:name %llu (want 30)",
		      usdtkit_mode_str(usdtkit_trace_mode(t)),
		      (unsigned long long)st[0].count,
		      (unsigned long long)st[1].count);
		std::printf("consumer: C++%ld, %s mode (asked %s): tl:val %llu, "
			    "tl:name %llu\n", __cplusplus / 100 % 100,
			    usdtkit_mode_str(usdtkit_trace_mode(t)), mode_name,
			    (unsigned long long)st[0].count,
			    (unsigned long long)st[1].count);
	}
	usdtkit_trace_free(t);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		std::fprintf(stderr, "usage: consumer FX_TLIB MODE\n");
		return 2;
	}
	dirty_stack();
	check_opts_padding();
	check_file(argv[1]);
	check_trace(argv[1], argv[2]);
	std::printf("consumer: %s\n", failed ? "FAIL" : "ok");
	return failed ? 1 : 0;
}
