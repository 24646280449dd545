// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * json_str(): kernel strings in the sidecar. Valid UTF-8 passes unchanged
 * (comm "été" stays readable), invalid bytes become U+FFFD, only what JSON
 * requires is escaped, and the result always parses as JSON.
 */
#include <stdlib.h>
#include "check.h"
#include "snapshot/json.h"

static char out[1024];

static const char *js(const char *s, size_t max)
{
	FILE *f = fmemopen(out, sizeof(out), "w");

	json_str(f, s, max);
	fclose(f);
	return out;
}

#define FFFD "\xef\xbf\xbd"

TEST(ascii_and_escapes)
{
	CHECK_STR(js("worker/1", 64), "\"worker/1\"");
	CHECK_STR(js("a\"b\\c", 64), "\"a\\\"b\\\\c\"");
	CHECK_STR(js("tab\there\nnl", 64), "\"tab\\u0009here\\u000anl\"");
	CHECK_STR(js("\x7f", 64), "\"\\u007f\"");
	CHECK_STR(js("", 64), "\"\"");
	return 0;
}

TEST(utf8_passes_through)
{
	/* The comm a user sees in ps: before the fix each byte became \u00XX. */
	CHECK_STR(js("\xc3\xa9t\xc3\xa9", 64), "\"\xc3\xa9t\xc3\xa9\"");	       /* été */
	CHECK_STR(js("\xe6\x97\xa5\xe6\x9c\xac", 64), "\"\xe6\x97\xa5\xe6\x9c\xac\""); /* 日本 */
	CHECK_STR(js("\xf0\x9f\x94\xa5!", 64), "\"\xf0\x9f\x94\xa5!\"");	       /* U+1F525 */
	CHECK_STR(js("\xf4\x8f\xbf\xbf", 64), "\"\xf4\x8f\xbf\xbf\""); /* U+10FFFF */
	return 0;
}

TEST(invalid_bytes_become_fffd)
{
	CHECK_STR(js("a\xff"
		     "b",
		     64),
		  "\"a" FFFD "b\"");
	CHECK_STR(js("\x80", 64), "\"" FFFD "\"");		     /* lone continuation */
	CHECK_STR(js("\xc0\xaf", 64), "\"" FFFD FFFD "\"");	     /* overlong '/' */
	CHECK_STR(js("\xe0\x80\xaf", 64), "\"" FFFD FFFD FFFD "\""); /* overlong 3-byte */
	CHECK_STR(js("\xed\xa0\x80", 64), "\"" FFFD FFFD FFFD "\""); /* surrogate D800 */
	CHECK_STR(js("\xf4\x90\x80\x80", 64), "\"" FFFD FFFD FFFD FFFD "\""); /* > U+10FFFF */
	CHECK_STR(js("\xc3"
		     "A",
		     64),
		  "\"" FFFD "A\""); /* truncated, then ASCII */
	return 0;
}

TEST(max_cuts_sequences_cleanly)
{
	/* A char array field cut inside a sequence (comm is 16 bytes). */
	CHECK_STR(js("ab\xc3\xa9", 3), "\"ab" FFFD "\"");
	CHECK_STR(js("ab\xc3\xa9", 4), "\"ab\xc3\xa9\"");
	CHECK_STR(js("abc", 0), "\"\"");
	return 0;
}

TEST(every_byte_parses_as_json)
{
	/* All 255 non-NUL bytes, with python's json as the judge. */
	char in[256],
		cmd[] = "python3 -c 'import json,sys; s=json.load(sys.stdin); "
			"sys.exit(0 if len(s) == 255 and s[0] == \"\\x01\" and s[-1] == \"\\ufffd\" else 1)'";
	FILE *p;

	for (int i = 1; i < 256; i++)
		in[i - 1] = i;
	in[255] = 0;
	p = popen(cmd, "w");
	if (!p)
		SKIP("cannot run python3");
	json_str(p, in, sizeof(in));
	CHECK_EQ(pclose(p), 0);
	return 0;
}

RUN_TESTS(T(ascii_and_escapes), T(utf8_passes_through), T(invalid_bytes_become_fffd),
	  T(max_cuts_sequences_cleanly), T(every_byte_parses_as_json))
