// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: an --on-snapshot command line through hook_argv_split
 * (blanks, '...' and "..." quoting, no shell), then hook_argv_build with
 * snapshot paths that are themselves taken from the input (placeholders
 * replaced, or the paths appended).
 *
 * Invariants: a split either fails with a reason or gives a non-empty argv
 * of non-NULL words; the built argv has as many words as the template (plus
 * the two paths when it has no placeholder), and no word of it holds a
 * placeholder the template did not have in a path.
 *
 *   make fuzz-build && .output/fuzz/fuzz_hook_argv tests/fuzz/corpus/hook_argv
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "service/hooks.h"

#define REQUIRE(cond)                                                                          \
	do {                                                                                   \
		if (!(cond)) {                                                                 \
			fprintf(stderr, "fuzz_hook_argv: %s:%d: %s does not hold\n", __FILE__, \
				__LINE__, #cond);                                              \
			abort();                                                               \
		}                                                                              \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), **argv = NULL, **built, err[512];
	const char *nl;
	struct hook_snap s;
	int n = 0, m = 0, r;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	/* The command, then (after the first newline) a snapshot path of the input's own. */
	nl = strchr(text, '\n');
	err[0] = 0;
	r = hook_argv_split(text, &argv, err, sizeof(err));
	if (r) {
		REQUIRE(r == -EINVAL || r == -ENOMEM);
		REQUIRE(argv == NULL);
		REQUIRE(r == -ENOMEM || err[0]);
		free(text);
		return 0;
	}
	REQUIRE(argv && argv[0]);
	while (argv[n])
		n++;
	s.data = nl ? nl + 1 : "/var/lib/trigrec/default/20261201-124651.044770-crash.data";
	s.sidecar = "/var/lib/trigrec/default/20261201-124651.044770-crash.json";
	s.trigger = "crash";
	built = hook_argv_build(argv, &s, "host");
	if (built) {
		while (built[m])
			m++;
		REQUIRE(m == n + (hook_argv_has_placeholder(argv) ? 0 : 2));
		if (!hook_argv_has_placeholder(argv)) {
			REQUIRE(built[n] && built[n + 1]);
			REQUIRE(!strcmp(built[n], s.data));
			REQUIRE(!strcmp(built[n + 1], s.sidecar));
		}
		hook_argv_free(built);
	}
	hook_argv_free(argv);
	free(text);
	return 0;
}
