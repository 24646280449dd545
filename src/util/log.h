/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Logging: one place, levels set by repeated -v. Errors say what to do. */
#ifndef TRIGREC_LOG_H
#define TRIGREC_LOG_H
#include <stddef.h>
#include <stdint.h>

enum log_level { LOG_QUIET = -1, LOG_INFO = 0, LOG_VERBOSE = 1, LOG_DEBUG = 2 };
extern int log_level;

/*
 * Text ("trigrec: message", for terminals) or logfmt (`level=info
 * event=snapshot trigger=slow msg="..."`, one line per event, for journald
 * and log shippers). log_format_auto() picks logfmt when stderr is the
 * journal (systemd sets JOURNAL_STREAM to its device:inode).
 */
enum log_format { LOG_FMT_TEXT, LOG_FMT_LOGFMT };
extern int log_format;
void log_format_auto(void);
/* "text" or "logfmt"; 0, or -EINVAL. */
int log_format_parse(const char *s);

/* Messages of any length are printed whole (no fixed buffer cuts them). */
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * An event of interest (start, snapshot, failure, suppression, reload,
 * stop): the message as log_msg() prints it, and in logfmt also the fields
 * kv (already logfmt: "event=snapshot trigger=slow", see log_kv_add()).
 */
void log_event(int level, const char *kv, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Append " key=value" to buf (quoted and escaped when it has to be). */
void log_kv_add(char *buf, size_t len, const char *key, const char *val);
void log_kv_addu(char *buf, size_t len, const char *key, unsigned long long val);

/* "trigrec: <message>" on stderr, always shown. */
#define elog(...) log_msg(-2, __VA_ARGS__)
/* "trigrec: warning: <message>" on stderr. */
#define wlog(...) log_msg(-3, __VA_ARGS__)
#define ilog(...) log_msg(LOG_INFO, __VA_ARGS__)
#define vlog(...) log_msg(LOG_VERBOSE, __VA_ARGS__)
#define dlog(...) log_msg(LOG_DEBUG, __VA_ARGS__)

/*
 * User input echoed in a message (an -e name, a filter, a trigger): returned
 * as is when shorter than len, else its start in buf, marked
 * "...(N bytes)". A 10 KB argument then costs a line, and the explanation
 * that follows it stays readable.
 */
const char *log_short(const char *s, char *buf, size_t len);
#define LOG_SHORT_LEN 200
/* log_short with a buffer that lives until the end of the enclosing statement's block. */
#define SHORT(s) log_short((s), (char[LOG_SHORT_LEN]){ 0 }, LOG_SHORT_LEN)

/*
 * One line per period for something that can repeat without bound (a full
 * disk fails every snapshot; a stranger can knock on the control socket):
 * the first occurrence is logged, the next ones within period_ns only
 * counted, and the next line that is logged says how many were left out.
 * Not thread-safe: one limiter per thread that uses it.
 */
struct log_limit {
	uint64_t period_ns;
	uint64_t last;		  /* when the last line was logged (monotonic ns), 0 = never */
	unsigned long suppressed; /* counted since then without a line */
	unsigned long total;	  /* every occurrence */
};
#define LOG_LIMIT_INIT(period)        \
	{                             \
		.period_ns = (period) \
	}
/*
 * Count one occurrence at `now`. 1 = log it (*suppressed: how many were left
 * out before it, *span_ns: over how long), 0 = counted only.
 */
int log_limit__hit(struct log_limit *l, uint64_t now, unsigned long *suppressed, uint64_t *span_ns);
/* Occurrences left out since the last line (and reset), for a summary at the end. */
unsigned long log_limit__flush(struct log_limit *l, uint64_t now, uint64_t *span_ns);

#endif
