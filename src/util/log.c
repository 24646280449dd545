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
