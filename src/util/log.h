/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Logging: one place, levels set by repeated -v. Errors say what to do. */
#ifndef TRIGREC_LOG_H
#define TRIGREC_LOG_H
#include <stddef.h>

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

#endif
