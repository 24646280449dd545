// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * [HOST:]PORT text into a socket address, for the listeners a script or the
 * command line names (--metrics, `metrics`). Here, below every layer, so the
 * script parser and the options can check an address without the service.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "util/netaddr.h"

int netaddr_parse(const char *addr, struct sockaddr_storage *ss, char *err, size_t errlen)
{
	char host[256];
	const char *port;
	char *end;
	unsigned long p;

	memset(ss, 0, sizeof(*ss));
	if (!addr || !*addr) {
		snprintf(err, errlen,
			 "empty address (give PORT or HOST:PORT, e.g. 127.0.0.1:9464)");
		return -EINVAL;
	}
	port = strrchr(addr, ':');
	if (!port) {
		host[0] = 0;
		port = addr;
	} else {
		size_t hl = port - addr;

		if (hl >= sizeof(host)) {
			snprintf(err, errlen, "host part too long");
			return -EINVAL;
		}
		memcpy(host, addr, hl);
		host[hl] = 0;
		port++;
	}
	errno = 0;
	p = strtoul(port, &end, 10);
	if (!*port || *end || errno || p == 0 || p > 65535) {
		snprintf(err, errlen, "'%s': bad port (1-65535)", addr);
		return -EINVAL;
	}
	if (host[0] == '[') {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
		size_t hl = strlen(host);

		if (hl < 3 || host[hl - 1] != ']') {
			snprintf(err, errlen, "'%s': unclosed [ in an IPv6 address", addr);
			return -EINVAL;
		}
		host[hl - 1] = 0;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(p);
		if (inet_pton(AF_INET6, host + 1, &s6->sin6_addr) != 1) {
			snprintf(err, errlen, "'%s': not an IPv6 address", addr);
			return -EINVAL;
		}
		return 0;
	}
	{
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(p);
		/* Loopback unless an address is given: metrics are not for the world by default. */
		if (!host[0] || !strcmp(host, "localhost"))
			strcpy(host, "127.0.0.1");
		if (inet_pton(AF_INET, host, &s4->sin_addr) != 1) {
			snprintf(err, errlen,
				 "'%s': not an IPv4 address (use a numeric address, "
				 "[::1] for IPv6)",
				 addr);
			return -EINVAL;
		}
	}
	return 0;
}

int netaddr_is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
	if (ss->ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) ||
		       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return 0;
}
