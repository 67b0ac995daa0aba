// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * core/escape.h, the one rule for showing bytes as text: every byte
 * value alone and after a lead byte, against the rule written out here
 * independently; the quoted form; UTF-8 edge cases; and the cut of
 * usdtkit_escape() (never half an escape, the whole length returned).
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "base/escape.h"

static void expect(const char *in, size_t n, unsigned int flags, const char *want)
{
	char got[256];
	size_t len = usdtkit_escape(got, sizeof(got), in, n, flags);

	CHECK(len == strlen(want) && !strcmp(got, want),
	      "input of %zu bytes (first 0x%02x), flags %u: got \"%s\" (%zu), want \"%s\"",
	      n, n ? (unsigned char)in[0] : 0, flags, got, len, want);
}

/* the rule for one byte on its own: no byte alone from 0x80 up is
 * well-formed UTF-8 */
static void want_alone(unsigned int b, unsigned int flags, char *out)
{
	if (b >= 0x20 && b < 0x7f && !((flags & USDTKIT_ESC_QUOTE) && (b == '"' || b == '\\')))
		sprintf(out, "%c", b);
	else if (b == '"' || b == '\\')
		sprintf(out, "\\%c", b);
	else
		sprintf(out, "\\x%02x", b);
}

static void test_every_byte(void)
{
	unsigned int b, flags;
	char in[2], want[16];

	for (flags = 0; flags <= USDTKIT_ESC_QUOTE; flags++)
		for (b = 0; b < 256; b++) {
			in[0] = (char)b;
			want_alone(b, flags, want);
			expect(in, 1, flags, want);
		}
}

/* every two-byte sequence: lead 0xc2-0xdf and a continuation is one code
 * point, shown as is from U+00A0 (a C1 control below it is escaped, both
 * bytes); any other pair is two bytes alone */
static void test_every_pair(void)
{
	unsigned int a, c, cp;
	char in[2], want[32], w2[16];

	for (a = 0x80; a < 256; a++)
		for (c = 0; c < 256; c++) {
			in[0] = (char)a;
			in[1] = (char)c;
			cp = ((a & 0x1f) << 6) | (c & 0x3f);
			if (a >= 0xc2 && a <= 0xdf && (c & 0xc0) == 0x80 && cp >= 0xa0) {
				memcpy(want, in, 2);
				want[2] = 0;
			} else if (a >= 0xe0) {
				continue;	/* a lead of 3 or 4: below */
			} else {
				want_alone(a, 0, want);
				want_alone(c, 0, w2);
				strcat(want, w2);
			}
			expect(in, 2, 0, want);
		}
}

static void test_utf8(void)
{
	/* e acute, a CJK ideograph, an emoji, U+10FFFF */
	expect("\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf", 13, 0,
	       "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf");
	expect("\xc2\x9b[2J", 5, 0, "\\xc2\\x9b[2J");	/* C1 CSI */
	expect("\x1b]0;t\x07", 6, 0, "\\x1b]0;t\\x07");	/* OSC title */
	expect("\xc0\xaf", 2, 0, "\\xc0\\xaf");		/* overlong */
	expect("\xed\xa0\x80", 3, 0, "\\xed\\xa0\\x80");	/* surrogate */
	expect("\xf4\x90\x80\x80", 4, 0, "\\xf4\\x90\\x80\\x80"); /* > U+10FFFF */
	expect("ok\xe4\xb8", 4, 0, "ok\\xe4\\xb8");		/* cut by the end */
	expect("a\"b\\c", 5, USDTKIT_ESC_QUOTE, "a\\\"b\\\\c");
	expect("a\"b\\c", 5, 0, "a\"b\\c");
	expect("x\0y", 3, 0, "x\\x00y");
	expect("", 0, 0, "");
}

static void test_cut(void)
{
	char buf[8];
	size_t n;

	/* "ab" fits, then \x01 (4) does not in the 3 left: cut before it */
	n = usdtkit_escape(buf, 6, "ab\x01" "cd", 5, 0);
	CHECK(n == 8 && !strcmp(buf, "ab"), "cut: %zu \"%s\"", n, buf);
	n = usdtkit_escape(buf, 7, "ab\x01" "cd", 5, 0);
	CHECK(n == 8 && !strcmp(buf, "ab\\x01"), "fits: %zu \"%s\"", n, buf);
	n = usdtkit_escape(NULL, 0, "\x01\x02", 2, 0);
	CHECK(n == 8, "count only: %zu", n);
	/* a UTF-8 sequence is never split either */
	n = usdtkit_escape(buf, 3, "a\xc3\xa9", 3, 0);
	CHECK(n == 3 && !strcmp(buf, ""), "utf-8 cut: %zu \"%s\"", n, buf);
}

int main(void)
{
	test_every_byte();
	test_every_pair();
	test_utf8();
	test_cut();
	return check_done();
}
