// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: an ELF image's USDT notes (usdt_sites_mem, the code
 * probes use on a binary's .note.stapsdt), each site's argument text
 * (usdt_args_parse) and the fetch-args written to uprobe_events
 * (probe_fetchargs). A binary is anyone's to build, its notes are untrusted.
 *
 * Besides the sanitizers, it checks what the caller relies on: every string
 * of a site ends inside its field, and nothing that would reach
 * uprobe_events holds a control character (a newline would add or remove
 * other tools' probes).
 *
 *   make fuzz-build && .output/fuzz/fuzz_usdt tests/fuzz/corpus/usdt
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/probes.h"

#define REQUIRE(cond)                                                                     \
	do {                                                                              \
		if (!(cond)) {                                                            \
			fprintf(stderr, "fuzz_usdt: %s:%d: %s does not hold\n", __FILE__, \
				__LINE__, #cond);                                         \
			abort();                                                          \
		}                                                                         \
	} while (0)

#define MAX_SITES 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct usdt_site sites[MAX_SITES];
	struct usdt_arg ua[PROBE_MAX_USDT_ARGS];
	struct probe_spec s;
	char err[1024], fa[2048];
	void *img = malloc(size ? size : 1);
	int n;

	if (!img)
		return 0;
	memcpy(img, data, size); /* libelf wants a writable image */
	n = usdt_sites_mem(img, size, "", "*", sites, MAX_SITES, err, sizeof(err));
	REQUIRE(n <= MAX_SITES);
	if (n < 0)
		REQUIRE(err[0]);
	REQUIRE(!probe_spec_parse("usdt:/x:p:n", &s, err, sizeof(err)));
	for (int i = 0; i < n; i++) {
		int na;

		REQUIRE(memchr(sites[i].provider, 0, sizeof(sites[i].provider)));
		REQUIRE(memchr(sites[i].name, 0, sizeof(sites[i].name)));
		REQUIRE(memchr(sites[i].args, 0, sizeof(sites[i].args)));
		na = usdt_args_parse(sites[i].args, ua, PROBE_MAX_USDT_ARGS, err, sizeof(err));
		REQUIRE(na <= PROBE_MAX_USDT_ARGS);
		if (na < 0) {
			REQUIRE(strstr(err, "byte"));
			continue;
		}
		if (!probe_fetchargs(&s, ua, na, 0, fa, sizeof(fa), err, sizeof(err)))
			REQUIRE(!probe_text_check("fetch-args", fa, 1, err, sizeof(err)));
	}
	free(img);
	return 0;
}
