// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "util/log.h"

int log_level = LOG_INFO;

void log_msg(int level, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	size_t n;

	if (level >= 0 && level > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	n = strlen(buf);
	/* One write per message so lines from threads do not interleave. */
	fprintf(stderr, "trigrec: %s%s%s", level == -3 ? "warning: " : "", buf,
		n && buf[n - 1] == '\n' ? "" : "\n");
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
