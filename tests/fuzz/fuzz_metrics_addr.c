// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: the --metrics / `metrics` address (netaddr_parse)
 * and the Host header a loopback bind accepts (metrics_host_ok), both text
 * from outside: the first from a script, the second from any local client.
 *
 * Invariants: an accepted address is IPv4 or IPv6 with a port of 1-65535,
 * and an error says what was wrong; an accepted Host names loopback (it
 * parses back to localhost, 127.0.0.0/8 or ::1) and is short.
 *
 *   make fuzz-build && .output/fuzz/fuzz_metrics_addr tests/fuzz/corpus/metrics_addr
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include "service/metrics.h"
#include "util/netaddr.h"

#define REQUIRE(cond)                                                                             \
	do {                                                                                      \
		if (!(cond)) {                                                                    \
			fprintf(stderr, "fuzz_metrics_addr: %s:%d: %s does not hold\n", __FILE__, \
				__LINE__, #cond);                                                 \
			abort();                                                                  \
		}                                                                                 \
	} while (0)

/* A Host metrics_host_ok() accepted, checked again a second way. */
static int names_loopback(const char *h)
{
	char name[80];
	const char *end;
	size_t n;
	struct in_addr a4;
	struct in6_addr a6;

	if (h[0] == '[') {
		end = strchr(h, ']');
		if (!end || (n = (size_t)(end - h - 1)) >= sizeof(name))
			return 0;
		memcpy(name, h + 1, n);
		name[n] = 0;
		return inet_pton(AF_INET6, name, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
	}
	n = strcspn(h, ":");
	if (n >= sizeof(name))
		return 0;
	memcpy(name, h, n);
	name[n] = 0;
	if (!strcasecmp(name, "localhost") || !strcasecmp(name, "localhost."))
		return 1;
	return inet_pton(AF_INET, name, &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512];
	struct sockaddr_storage ss;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	err[0] = 0;
	if (!netaddr_parse(text, &ss, err, sizeof(err))) {
		REQUIRE(ss.ss_family == AF_INET || ss.ss_family == AF_INET6);
		if (ss.ss_family == AF_INET)
			REQUIRE(((struct sockaddr_in *)&ss)->sin_port != 0);
		else
			REQUIRE(((struct sockaddr_in6 *)&ss)->sin6_port != 0);
		(void)netaddr_is_loopback(&ss);
	} else {
		REQUIRE(err[0]);
	}
	if (metrics_host_ok(text)) {
		REQUIRE(strlen(text) < 80);
		REQUIRE(names_loopback(text));
	}
	free(text);
	return 0;
}
