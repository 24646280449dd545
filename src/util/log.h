/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Logging: one place, levels set by repeated -v. Errors say what to do. */
#ifndef TRIGREC_LOG_H
#define TRIGREC_LOG_H
#include <stddef.h>
#include <stdint.h>

enum log_level { LOG_QUIET = -1, LOG_INFO = 0, LOG_VERBOSE = 1, LOG_DEBUG = 2 };
extern int log_level;

/* Messages of any length are printed whole (no fixed buffer cuts them). */
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

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
	uint64_t last;             /* when the last line was logged (monotonic ns), 0 = never */
	unsigned long suppressed;  /* counted since then without a line */
	unsigned long total;       /* every occurrence */
};
#define LOG_LIMIT_INIT(period) { .period_ns = (period) }
/*
 * Count one occurrence at `now`. 1 = log it (*suppressed: how many were left
 * out before it, *span_ns: over how long), 0 = counted only.
 */
int log_limit__hit(struct log_limit *l, uint64_t now, unsigned long *suppressed, uint64_t *span_ns);
/* Occurrences left out since the last line (and reset), for a summary at the end. */
unsigned long log_limit__flush(struct log_limit *l, uint64_t now, uint64_t *span_ns);

#endif
