/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Listener addresses as text: [HOST:]PORT, numeric hosts only. */
#ifndef TRIGREC_NETADDR_H
#define TRIGREC_NETADDR_H
#include <stddef.h>

struct sockaddr_storage;
/*
 * PORT, HOST:PORT or [IPV6]:PORT into ss; no host (or "localhost") means
 * 127.0.0.1: a listener is loopback unless told otherwise. 0, or -EINVAL
 * with the reason in err (err may be NULL).
 */
int netaddr_parse(const char *addr, struct sockaddr_storage *ss, char *err, size_t errlen);
/* Is ss a loopback address (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104)? */
int netaddr_is_loopback(const struct sockaddr_storage *ss);

#endif
