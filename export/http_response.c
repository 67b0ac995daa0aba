// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The head of every response http_serve.c sends. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "export/http_serve_int.h"

static const struct {
	int status;
	const char *reason;
} reasons[] = {
	{ 200, "OK" },
	{ 400, "Bad Request" },
	{ 404, "Not Found" },
	{ 405, "Method Not Allowed" },
	{ 408, "Request Timeout" },
	{ 414, "URI Too Long" },
	{ 431, "Request Header Fields Too Large" },
	{ 500, "Internal Server Error" },
	{ 503, "Service Unavailable" },
};

static const char *reason(int status)
{
	size_t i;

	for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (reasons[i].status == status)
			return reasons[i].reason;
	return "Error";
}

/* IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") by hand: strftime's
 * names follow the locale, the format's do not */
static void http_date(char *buf, size_t n)
{
	static const char days[7][4] = {
		"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char months[12][4] = {
		"Jan", "Feb", "Mar", "Apr", "May", "Jun",
		"Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t now = time(NULL);
	struct tm tm;

	if (!gmtime_r(&now, &tm)) {
		snprintf(buf, n, "Thu, 01 Jan 1970 00:00:00 GMT");
		return;
	}
	snprintf(buf, n, "%s, %02d %s %04d %02d:%02d:%02d GMT",
		 days[tm.tm_wday % 7], tm.tm_mday, months[tm.tm_mon % 12],
		 tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

size_t usdtkit__http_head(char *buf, size_t n, int status, const char *type,
		 size_t len, bool head_only)
{
	char date[64], text[64] = "";
	int k;

	http_date(date, sizeof(date));
	if (status != 200) {
		snprintf(text, sizeof(text), "%d %s\n", status, reason(status));
		len = strlen(text);
	}
	k = snprintf(buf, n,
		     "HTTP/1.1 %d %s\r\n"
		     "Date: %s\r\n"
		     "Content-Type: %s\r\n"
		     "Content-Length: %zu\r\n"
		     "%s"
		     "Cache-Control: no-store\r\n"
		     "Connection: close\r\n"
		     "\r\n"
		     "%s",
		     status, reason(status), date,
		     type ? type : "text/plain; charset=utf-8", len,
		     status == 405 ? "Allow: GET, HEAD\r\n" : "",
		     head_only ? "" : text);
	/* the caller's type is its own constant; never past @n */
	return k < 0 ? 0 : (size_t)k >= n ? n - 1 : (size_t)k;
}
