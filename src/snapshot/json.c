// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdint.h>
#include "snapshot/json.h"

/*
 * Length of the valid UTF-8 sequence at s (n bytes available), or 0.
 * Overlong forms, surrogates and code points above U+10FFFF are invalid
 * (RFC 3629), so what a JSON parser accepts is exactly what passes.
 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void json_str(FILE *f, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = 0;

	while (n < max && s[n])
		n++;
	fputc('"', f);
	for (size_t i = 0; i < n; ) {
		unsigned char c = s[i];
		size_t l;

		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			/* DEL is legal JSON, but a raw one in a log line helps nobody. */
			fprintf(f, "\\u%04x", c);
			i++;
		} else if ((l = utf8_len(s + i, n - i))) {
			fwrite(s + i, 1, l, f);
			i += l;
		} else {
			fputs("\xef\xbf\xbd", f); /* U+FFFD REPLACEMENT CHARACTER */
			i++;
		}
	}
	fputc('"', f);
}
