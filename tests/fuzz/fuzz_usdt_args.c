// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: a USDT note's argument text ("-4@%edi 8@-24(%rbp)")
 * through usdt_args_parse and usdt_arg_parse, then the fetch-args a usdt:
 * probe writes to uprobe_events (probe_fetchargs, default fields and a
 * field list that dereferences them).
 *
 * Invariants: what is accepted never puts a control character or a blank
 * into a fetch-arg, and what is refused says which byte.
 *
 *   make fuzz-build && .output/fuzz/fuzz_usdt_args tests/fuzz/corpus/usdt_args
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/probes.h"

#define REQUIRE(cond)                                                                          \
	do {                                                                                   \
		if (!(cond)) {                                                                 \
			fprintf(stderr, "fuzz_usdt_args: %s:%d: %s does not hold\n", __FILE__, \
				__LINE__, #cond);                                              \
			abort();                                                               \
		}                                                                              \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct usdt_arg ua[PROBE_MAX_USDT_ARGS], one;
	struct probe_spec s;
	char text[600], err[1024], fa[2048];
	int n;

	if (size >= sizeof(text))
		size = sizeof(text) - 1;
	memcpy(text, data, size);
	text[size] = 0;
	/* One argument alone: accepted means a clean fetch-arg. */
	if (!usdt_arg_parse(text, &one)) {
		REQUIRE(one.size >= 1 && one.size <= 8);
		REQUIRE(!probe_text_check("fetch", one.fetch, 0, err, sizeof(err)));
	}
	n = usdt_args_parse(text, ua, PROBE_MAX_USDT_ARGS, err, sizeof(err));
	REQUIRE(n <= PROBE_MAX_USDT_ARGS);
	if (n < 0) {
		REQUIRE(strstr(err, "byte"));
		return 0;
	}
	for (int i = 0; i < n; i++)
		REQUIRE(!probe_text_check("fetch", ua[i].fetch, 0, err, sizeof(err)));
	REQUIRE(!probe_spec_parse("usdt:/x:p:n", &s, err, sizeof(err)));
	if (!probe_fetchargs(&s, ua, n, 0, fa, sizeof(fa), err, sizeof(err)))
		REQUIRE(!probe_text_check("fetch-args", fa, 1, err, sizeof(err)));
	REQUIRE(!probe_spec_parse("usdt:/x:p:n(a=+0(arg1):string,b=+8(arg2):u32)", &s, err,
				  sizeof(err)));
	if (!probe_fetchargs(&s, ua, n, 0, fa, sizeof(fa), err, sizeof(err)))
		REQUIRE(!probe_text_check("fetch-args", fa, 1, err, sizeof(err)));
	return 0;
}
