// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/log.h"

int log_level = LOG_INFO;

void log_msg(int level, const char *fmt, ...)
{
	char small[1024], *buf = small;
	va_list ap;
	int n;

	if (level >= 0 && level > log_level)
		return;
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	/* Never cut a message: its end is usually the part that says what to do. */
	if (n >= (int)sizeof(small)) {
		buf = malloc((size_t)n + 1);
		if (buf) {
			va_start(ap, fmt);
			vsnprintf(buf, (size_t)n + 1, fmt, ap);
			va_end(ap);
		} else {
			buf = small;
			n = sizeof(small) - 1;
		}
	}
	if (n < 0)
		n = 0;
	/* One write per message so lines from threads do not interleave. */
	fprintf(stderr, "trigrec: %s%s%s", level == -3 ? "warning: " : "", buf,
		n && buf[n - 1] == '\n' ? "" : "\n");
	if (buf != small)
		free(buf);
}

const char *log_short(const char *s, char *buf, size_t len)
{
	size_t n;

	if (!s)
		return "(null)";
	n = strlen(s);
	if (n < len)
		return s;
	/* Keep the start, which is what the user recognises, and say it was cut. */
	snprintf(buf, len, "%.*s...(%zu bytes)", (int)(len - 20), s, n);
	return buf;
}

int log_limit__hit(struct log_limit *l, uint64_t now, unsigned long *suppressed, uint64_t *span_ns)
{
	l->total++;
	if (l->last && now - l->last < l->period_ns) {
		l->suppressed++;
		return 0;
	}
	*suppressed = l->suppressed;
	*span_ns = l->last ? now - l->last : 0;
	l->suppressed = 0;
	l->last = now;
	return 1;
}

unsigned long log_limit__flush(struct log_limit *l, uint64_t now, uint64_t *span_ns)
{
	unsigned long n = l->suppressed;

	*span_ns = l->last ? now - l->last : 0;
	l->suppressed = 0;
	/* The next occurrence starts a new period: it is news again. */
	l->last = 0;
	return n;
}
