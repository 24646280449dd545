/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Logging: one place, levels set by repeated -v. Errors say what to do. */
#ifndef TRIGREC_LOG_H
#define TRIGREC_LOG_H

enum log_level { LOG_QUIET = -1, LOG_INFO = 0, LOG_VERBOSE = 1, LOG_DEBUG = 2 };
extern int log_level;

void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "trigrec: <message>" on stderr, always shown. */
#define elog(...) log_msg(-2, __VA_ARGS__)
/* "trigrec: warning: <message>" on stderr. */
#define wlog(...) log_msg(-3, __VA_ARGS__)
#define ilog(...) log_msg(LOG_INFO, __VA_ARGS__)
#define vlog(...) log_msg(LOG_VERBOSE, __VA_ARGS__)
#define dlog(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
