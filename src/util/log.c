// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "util/log.h"

int log_level = LOG_INFO;
int log_format = LOG_FMT_TEXT;

void log_format_auto(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	/* systemd.exec(5): stderr is the journal when its device:inode match. */
	if (js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 && !fstat(2, &st) &&
	    (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino)
		log_format = LOG_FMT_LOGFMT;
}

int log_format_parse(const char *s)
{
	if (!strcmp(s, "text"))
		log_format = LOG_FMT_TEXT;
	else if (!strcmp(s, "logfmt"))
		log_format = LOG_FMT_LOGFMT;
	else
		return -EINVAL;
	return 0;
}

/* logfmt value: bare when it is a plain word, else quoted with \" \\ \n escaped. */
static void kv_value(FILE *f, const char *v, size_t n)
{
	int bare = n > 0;

	for (size_t i = 0; i < n && bare; i++)
		if (v[i] <= ' ' || v[i] == '"' || v[i] == '=' || v[i] == '\\' ||
		    (unsigned char)v[i] >= 0x7f)
			bare = 0;
	if (bare) {
		fwrite(v, 1, n, f);
		return;
	}
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = v[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < ' ' || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void log_kv_add(char *buf, size_t len, const char *key, const char *val)
{
	size_t used = strnlen(buf, len);
	char *out = NULL;
	size_t olen = 0;
	FILE *f;

	if (used >= len - 1)
		return;
	f = open_memstream(&out, &olen);
	if (!f)
		return;
	fprintf(f, "%s%s=", used ? " " : "", key);
	kv_value(f, val ? val : "", val ? strlen(val) : 0);
	fclose(f);
	if (out && used + olen < len)
		memcpy(buf + used, out, olen + 1);
	free(out);
}

void log_kv_addu(char *buf, size_t len, const char *key, unsigned long long val)
{
	char v[32];

	snprintf(v, sizeof(v), "%llu", val);
	log_kv_add(buf, len, key, v);
}

static const char *level_name(int level)
{
	switch (level) {
	case -2: return "error";
	case -3: return "warn";
	case LOG_INFO: return "info";
	default: return "debug";
	}
}

static void vlog_msg(int level, const char *kv, const char *fmt, va_list ap0)
{
	char small[1024], *buf = small;
	va_list ap;
	int n;

	if (level >= 0 && level > log_level)
		return;
	va_copy(ap, ap0);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	/* Never cut a message: its end is usually the part that says what to do. */
	if (n >= (int)sizeof(small)) {
		buf = malloc((size_t)n + 1);
		if (buf) {
			va_copy(ap, ap0);
			vsnprintf(buf, (size_t)n + 1, fmt, ap);
			va_end(ap);
		} else {
			buf = small;
			n = sizeof(small) - 1;
		}
	}
	if (n < 0)
		n = 0;
	if (n && buf[n - 1] == '\n')
		buf[--n] = 0;
	if (log_format == LOG_FMT_LOGFMT) {
		char *line = NULL;
		size_t llen = 0;
		FILE *f = open_memstream(&line, &llen);

		if (f) {
			fprintf(f, "level=%s", level_name(level));
			if (kv && *kv)
				fprintf(f, " %s", kv);
			fputs(" msg=", f);
			kv_value(f, buf, n);
			fputc('\n', f);
			fclose(f);
		}
		/* One write per message so lines from threads do not interleave. */
		if (line)
			fwrite(line, 1, llen, stderr);
		free(line);
	} else {
		fprintf(stderr, "trigrec: %s%s\n", level == -3 ? "warning: " : "", buf);
	}
	if (buf != small)
		free(buf);
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog_msg(level, NULL, fmt, ap);
	va_end(ap);
}

void log_event(int level, const char *kv, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog_msg(level, kv, fmt, ap);
	va_end(ap);
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
