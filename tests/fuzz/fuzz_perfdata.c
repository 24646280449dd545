// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: a perf.data file through pdr_open_mem (attrs, ids,
 * TRACING_DATA formats, EVENT_DESC, zstd, the records) and, when it opens,
 * all of `trigrec show`: the analysis (names, runs, CPUs, the trigger's
 * record), the report, --html and --chrome-json, without a sidecar and with
 * one naming a trigger (so the triggering thread's records are listed).
 * A file that is refused must say why.
 *
 *   make fuzz-build && .output/fuzz/fuzz_perfdata CORPUS_DIR...   (see make help)
 */
#include <stdint.h>
#include <string.h>
#include "fuzz_show_common.h"

static const char sidecar[] =
	"{\"trigger\": {\"name\": \"t\", \"text\": \"x\", \"time_ns\": 7000000001600, "
	"\"cpu\": 1, \"pid\": 200, \"tid\": 200, \"comm\": \"c\", \"kind\": \"latency\", "
	"\"event\": \"e\", \"fields\": {\"a\": 1}, \"latency\": {\"duration_ns\": 5, "
	"\"start\": {\"time_ns\": 7000000001000}, \"end\": {\"time_ns\": 7000000001600}}, "
	"\"rate\": {\"count\": 3, \"window_ns\": 1000}}, \"window\": {\"start_ns\": "
	"7000000001000, \"end_ns\": 7000000001600, \"post_ns\": 10}, \"cpus\": [{\"cpu\": 0}, "
	"{\"cpu\": 1, \"wrapped\": true, \"lost\": 2}]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024];

	for (int with = 0; with < 2; with++) {
		struct show *s = show__open_mem(data, size, with ? sidecar : NULL,
						with ? sizeof(sidecar) - 1 : 0, "fuzz.data", err,
						sizeof(err));

		if (!s) {
			REQUIRE(err[0] != 0);
			return 0;
		}
		fuzz_show(s);
		show__free(s);
	}
	return 0;
}
