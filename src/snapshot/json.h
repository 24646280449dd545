/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * JSON strings for the sidecar (and anything else trigrec writes as JSON).
 * Kernel strings (comm, char arrays, __data_loc strings) are bytes, not text:
 * valid UTF-8 goes through unchanged, every byte that is not part of a valid
 * UTF-8 sequence becomes U+FFFD, and only what RFC 8259 requires is escaped
 * (quote, backslash, control characters).
 */
#ifndef TRIGREC_JSON_H
#define TRIGREC_JSON_H
#include <stddef.h>
#include <stdio.h>

/* Write s (at most max bytes, stopping at a NUL) as a quoted JSON string. */
void json_str(FILE *f, const char *s, size_t max);

#endif
