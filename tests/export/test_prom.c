// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * export/prom.c: the exposition text, byte for byte, for families, exact
 * integers, label values of any bytes and histograms; sticky errors; and
 * all of it through `promtool check metrics` when promtool is installed
 * (PROMTOOL, else promtool on PATH; Debian's package "prometheus").
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "export/prom.h"

/* the buffer's text, NUL-terminated, for comparing */
static char *text(struct prom_buf *b)
{
	char *d, *s;
	size_t n;

	if (usdtkit__prom_finish(b, &d, &n))
		return NULL;
	s = malloc(n + 1);
	if (s) {
		memcpy(s, d, n);
		s[n] = 0;
	}
	free(d);
	return s;
}

#define EXPECT_TEXT(b, want)                                                 \
	do {                                                                 \
		char *got_ = text(b);                                        \
		CHECK(got_ && !strcmp(got_, want), "\n   got: %s\n  want: %s", \
		      got_ ? got_ : "(error)", want);                        \
		free(got_);                                                  \
	} while (0)

static void test_values(void)
{
	struct prom_buf b;

	usdtkit__prom_init(&b);
	usdtkit__prom_family(&b, "t_hits_total", "counter", "Hits,\nper \\ probe.");
	usdtkit__prom_sample(&b, "t_hits_total", NULL, NULL, 0, PROM_U64(UINT64_MAX));
	usdtkit__prom_sample(&b, "t_hits_total", NULL, NULL, 0, PROM_U64(0));
	usdtkit__prom_sample(&b, "t_hits_total", NULL, NULL, 0,
		    PROM_U64(9007199254740993ull));	/* 2^53 + 1 */
	usdtkit__prom_family(&b, "t_min", "gauge", NULL);
	usdtkit__prom_sample(&b, "t_min", NULL, NULL, 0, PROM_I64(INT64_MIN));
	usdtkit__prom_sample(&b, "t_min", NULL, NULL, 0, PROM_I64(-1));
	usdtkit__prom_sample(&b, "t_min", NULL, NULL, 0, PROM_F64(0.5));
	usdtkit__prom_sample(&b, "t_min", NULL, NULL, 0, PROM_F64(1.0 / 0.0));
	usdtkit__prom_sample(&b, "t_min", NULL, NULL, 0, PROM_F64(-1.0 / 0.0));
	usdtkit__prom_sample(&b, "t_min", NULL, NULL, 0, PROM_F64(0.0 / 0.0));
	EXPECT_TEXT(&b,
		"# HELP t_hits_total Hits,\\nper \\\\ probe.\n"
		"# TYPE t_hits_total counter\n"
		"t_hits_total 18446744073709551615\n"
		"t_hits_total 0\n"
		"t_hits_total 9007199254740993\n"
		"# HELP t_min \n"
		"# TYPE t_min gauge\n"
		"t_min -9223372036854775808\n"
		"t_min -1\n"
		"t_min 0.5\n"
		"t_min +Inf\n"
		"t_min -Inf\n"
		"t_min NaN\n");
}

/* one label value's bytes -> its text between the quotes */
static void expect_label(const char *v, size_t n, const char *want)
{
	struct prom_buf b;
	char line[256];

	usdtkit__prom_init(&b);
	usdtkit__prom_sample(&b, "m", NULL, (struct prom_label[]){ PROM_LABEL_N("k", v, n) },
		    1, PROM_U64(1));
	snprintf(line, sizeof(line), "m{k=\"%s\"} 1\n", want);
	EXPECT_TEXT(&b, line);
}

static void test_labels(void)
{
	struct prom_buf b;

	expect_label("plain:name.1", 12, "plain:name.1");
	expect_label("", 0, "");
	/* " and \ each get a backslash in the rendering, then the format
	 * escapes every one of those */
	expect_label("a\"b\\c", 5, "a\\\\\\\"b\\\\\\\\c");
	/* controls, the newline among them, are \xHH: never a raw line */
	expect_label("x\ny\tz\x7f", 6, "x\\\\x0ay\\\\x09z\\\\x7f");
	expect_label("\0", 1, "\\\\x00");
	/* printable UTF-8 as is: e acute, a CJK ideograph, an emoji */
	expect_label("\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80", 9,
		     "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80");
	/* a C1 control: both bytes */
	expect_label("\xc2\x85", 2, "\\\\xc2\\\\x85");
	/* ill-formed: lone continuation, truncated, overlong, surrogate,
	 * past U+10FFFF, a lead byte cut by the end */
	expect_label("\x80", 1, "\\\\x80");
	expect_label("\xc3(", 2, "\\\\xc3(");
	expect_label("\xc0\xaf", 2, "\\\\xc0\\\\xaf");
	expect_label("\xed\xa0\x80", 3, "\\\\xed\\\\xa0\\\\x80");
	expect_label("\xf4\x90\x80\x80", 4, "\\\\xf4\\\\x90\\\\x80\\\\x80");
	expect_label("ok\xe4\xb8", 4, "ok\\\\xe4\\\\xb8");
	/* the rendering is one to one: these two stay two series */
	expect_label("\\x80", 4, "\\\\\\\\x80");

	usdtkit__prom_init(&b);
	usdtkit__prom_sample(&b, "m", "_x",
		    (struct prom_label[]){ PROM_LABEL("a", "1"), PROM_LABEL("b_2", "2") },
		    2, PROM_U64(3));
	EXPECT_TEXT(&b, "m_x{a=\"1\",b_2=\"2\"} 3\n");
}

static void test_histogram(void)
{
	static const struct prom_value le[] = {
		PROM_I64(-1), PROM_U64(0), PROM_U64(1), PROM_U64(3),
		PROM_U64(UINT64_MAX),
	};
	static const uint64_t count[] = { 2, 0, 5, 1, 1 };
	struct prom_hist h = { le, count, 5, 3, PROM_I64(-40), false };
	struct prom_buf b;

	usdtkit__prom_init(&b);
	usdtkit__prom_family(&b, "t_lat_seconds", "histogram", "Latency.");
	usdtkit__prom_histogram(&b, "t_lat_seconds",
		       (struct prom_label[]){ PROM_LABEL("probe", "p:n") }, 1, &h);
	usdtkit__prom_histogram(&b, "t_lat_seconds", NULL, 0,
		       &(struct prom_hist){ NULL, NULL, 0, 0, PROM_U64(0), false });
	EXPECT_TEXT(&b,
		"# HELP t_lat_seconds Latency.\n"
		"# TYPE t_lat_seconds histogram\n"
		"t_lat_seconds_bucket{probe=\"p:n\",le=\"-1\"} 2\n"
		"t_lat_seconds_bucket{probe=\"p:n\",le=\"0\"} 2\n"
		"t_lat_seconds_bucket{probe=\"p:n\",le=\"1\"} 7\n"
		"t_lat_seconds_bucket{probe=\"p:n\",le=\"3\"} 8\n"
		"t_lat_seconds_bucket{probe=\"p:n\",le=\"18446744073709551615\"} 9\n"
		"t_lat_seconds_bucket{probe=\"p:n\",le=\"+Inf\"} 12\n"
		"t_lat_seconds_sum{probe=\"p:n\"} -40\n"
		"t_lat_seconds_count{probe=\"p:n\"} 12\n"
		"t_lat_seconds_bucket{le=\"+Inf\"} 0\n"
		"t_lat_seconds_sum 0\n"
		"t_lat_seconds_count 0\n");
}

/* nanoseconds as exact decimal seconds, and a histogram with no sum */
static void test_ns(void)
{
	static const struct prom_value le[] = {
		PROM_NS(0), PROM_NS(1), PROM_NS(1023), PROM_NS(2000000000ull),
		PROM_NS(UINT64_MAX),
	};
	static const uint64_t count[] = { 1, 0, 2, 0, 1 };
	struct prom_hist h = { le, count, 5, 0, PROM_NS(0), true };
	struct prom_buf b;

	usdtkit__prom_init(&b);
	usdtkit__prom_family(&b, "t_seconds", "histogram", "NS.");
	usdtkit__prom_histogram(&b, "t_seconds", NULL, 0, &h);
	usdtkit__prom_sample(&b, "t_seconds", "_x", NULL, 0, PROM_NS(1500));
	EXPECT_TEXT(&b,
		"# HELP t_seconds NS.\n"
		"# TYPE t_seconds histogram\n"
		"t_seconds_bucket{le=\"0\"} 1\n"
		"t_seconds_bucket{le=\"0.000000001\"} 1\n"
		"t_seconds_bucket{le=\"0.000001023\"} 3\n"
		"t_seconds_bucket{le=\"2\"} 3\n"
		"t_seconds_bucket{le=\"18446744073.709551615\"} 4\n"
		"t_seconds_bucket{le=\"+Inf\"} 4\n"
		"t_seconds_count 4\n"
		"t_seconds_x 0.0000015\n");
}

static void expect_einval(const char *what, struct prom_buf *b)
{
	char *d = NULL;
	size_t n;

	CHECK(usdtkit__prom_finish(b, &d, &n) == -EINVAL, "%s: not refused", what);
	CHECK(!d && !b->data, "%s: something handed over", what);
}

static void test_errors(void)
{
	struct prom_buf b;

	usdtkit__prom_init(&b);
	usdtkit__prom_family(&b, "1bad", "counter", "x");
	usdtkit__prom_sample(&b, "ok", NULL, NULL, 0, PROM_U64(1));	/* sticky */
	expect_einval("a name starting with a digit", &b);
	usdtkit__prom_init(&b);
	usdtkit__prom_family(&b, "ok", "countr", "x");
	expect_einval("an unknown type", &b);
	usdtkit__prom_init(&b);
	usdtkit__prom_sample(&b, "ok", NULL, (struct prom_label[]){ PROM_LABEL("a:b", "v") },
		    1, PROM_U64(1));
	expect_einval("a ':' in a label name", &b);
	usdtkit__prom_init(&b);
	usdtkit__prom_sample(&b, "o k", NULL, NULL, 0, PROM_U64(1));
	expect_einval("a space in a metric name", &b);
	usdtkit__prom_init(&b);
	usdtkit__prom_sample(&b, "ok", NULL, NULL, 0, (struct prom_value){ .kind = 99 });
	expect_einval("an unknown value kind", &b);
	usdtkit__prom_init(&b);
	usdtkit__prom_sample(&b, "ns:sub_x", NULL, NULL, 0, PROM_U64(1));
	EXPECT_TEXT(&b, "ns:sub_x 1\n");
}

/* every piece above in one exposition, as a scrape would be */
static void write_all(struct prom_buf *b)
{
	static const struct prom_value le[] = { PROM_U64(1), PROM_U64(1024) };
	static const uint64_t count[] = { 4, 6 };
	static const char *const keys[] = {
		"", "a\"b\\c", "x\ny", "\xc3\xa9", "\x80", "\\x80", "\xc2\x85",
	};
	unsigned int i;

	usdtkit__prom_family(b, "usdtkit_test_hits_total", "counter", "Hits.\nTwo lines.");
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		usdtkit__prom_sample(b, "usdtkit_test_hits_total", NULL,
			    (struct prom_label[]){ PROM_LABEL("key", keys[i]) }, 1,
			    PROM_U64(UINT64_MAX - i));
	usdtkit__prom_family(b, "usdtkit_test_min", "gauge", "Least value.");
	usdtkit__prom_sample(b, "usdtkit_test_min", NULL, NULL, 0, PROM_I64(INT64_MIN));
	usdtkit__prom_family(b, "usdtkit_test_value", "histogram", "Values of arg0.");
	usdtkit__prom_histogram(b, "usdtkit_test_value",
		       (struct prom_label[]){ PROM_LABEL("probe", "p:n") }, 1,
		       &(struct prom_hist){ le, count, 2, 1, PROM_U64(5000), false });
}

static bool have_promtool(const char **cmd)
{
	*cmd = getenv("PROMTOOL");
	if (*cmd && **cmd)
		return access(*cmd, X_OK) == 0;
	*cmd = "promtool";
	return system("command -v promtool >/dev/null 2>&1") == 0;
}

static void test_promtool(void)
{
	char path[] = "/tmp/test_prom.XXXXXX", cmd[512];
	const char *tool;
	struct prom_buf b;
	char *d;
	size_t n;
	int fd;

	if (!have_promtool(&tool)) {
		printf("SKIP part: no promtool (PROMTOOL or PATH; Debian package "
		       "prometheus), so the exposition is not checked by it\n");
		return;
	}
	usdtkit__prom_init(&b);
	write_all(&b);
	CHECK(!usdtkit__prom_finish(&b, &d, &n), "write_all failed");
	fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp: %s", strerror(errno));
	if (fd < 0) {
		free(d);
		return;
	}
	CHECK(write(fd, d, n) == (ssize_t)n, "write");
	close(fd);
	free(d);
	snprintf(cmd, sizeof(cmd), "%s check metrics < %s", tool, path);
	CHECK(system(cmd) == 0, "%s: not accepted (text in %s)", cmd, path);
	printf("promtool check metrics: %s\n", tool);
	unlink(path);
}

int main(void)
{
	test_values();
	test_labels();
	test_histogram();
	test_ns();
	test_errors();
	test_promtool();
	return check_done();
}
