// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: probe names as -e and `record` take them ("uprobe:PATH:
 * SYM(FIELD, ...)", "usdt:...", "kprobe:...") through probe_list_next (the
 * comma-separated list), probe_spec_parse and probe_fetchargs (with and
 * without BTF arguments), which make the lines written to kprobe_events /
 * uprobe_events.
 *
 * Invariants: a parsed spec has a kind, a function, no blank or control
 * character in its path, function or provider; fetch-args that were built
 * hold no control character; an error has a message.
 *
 *   make fuzz-build && .output/fuzz/fuzz_probe_spec tests/fuzz/corpus/probe_spec
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/probes.h"

#define REQUIRE(cond)                                                                           \
	do {                                                                                    \
		if (!(cond)) {                                                                  \
			fprintf(stderr, "fuzz_probe_spec: %s:%d: %s does not hold\n", __FILE__, \
				__LINE__, #cond);                                               \
			abort();                                                                \
		}                                                                               \
	} while (0)

static void one(const char *text)
{
	static struct probe_spec s;
	struct usdt_arg ua[2] = { { 8, 1, "%di" }, { 4, 0, "-8(%sp)" } };
	char err[1024], fa[2048];

	err[0] = 0;
	if (probe_spec_parse(text, &s, err, sizeof(err))) {
		REQUIRE(err[0]);
		return;
	}
	REQUIRE(s.kind != PROBE_NONE);
	REQUIRE(s.func[0]);
	REQUIRE(!probe_text_check("path", s.path, 0, err, sizeof(err)));
	REQUIRE(!probe_text_check("func", s.func, 0, err, sizeof(err)));
	REQUIRE(!probe_text_check("provider", s.provider, 0, err, sizeof(err)));
	for (int btf = 0; btf < 2; btf++) {
		err[0] = 0;
		if (!probe_fetchargs(&s, ua, 2, btf, fa, sizeof(fa), err, sizeof(err)))
			REQUIRE(!probe_text_check("fetch-args", fa, 1, err, sizeof(err)));
		else
			REQUIRE(err[0]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), item[4096];
	const char *p;
	int r;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	one(text);
	p = text;
	while ((r = probe_list_next(&p, item, sizeof(item))) > 0)
		one(item);
	REQUIRE(r == 0 || r == -E2BIG);
	free(text);
	return 0;
}
