// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdint.h>
#include <string.h>
#include "snapshot/json.h"
#include "util/util.h"

/* Length of the valid UTF-8 sequence at s, with only n bytes available (no NUL needed), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	char tmp[5] = "";

	if (n >= 4)
		return utf8_char((const char *)s, NULL); /* reads at most 4 bytes */
	memcpy(tmp, s, n);
	return utf8_char(tmp, NULL);
}

void json_str(FILE *f, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = 0;

	while (n < max && s[n])
		n++;
	fputc('"', f);
	for (size_t i = 0; i < n;) {
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
