// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: a snapshot's JSON sidecar through jv_parse and the
 * dotted-path lookups, then, with a small fixed perf.data (two threads'
 * samples on two CPUs), all of `trigrec show` driven by it: the trigger,
 * its latency and rate, the CPUs, the spans, the report, --html and
 * --chrome-json. A text that does not parse must say where.
 *
 *   make fuzz-build && .output/fuzz/fuzz_sidecar CORPUS_DIR...   (see make help)
 */
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>
#include "fuzz_show_common.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

static uint64_t pd[64];
static size_t pd_len;

/* header, one attr with one id, four samples (IDENTIFIER TID TIME CPU) */
static void build_perfdata(void)
{
	uint8_t *b = (uint8_t *)pd;
	size_t asz = sizeof(struct perf_event_attr) + 16, o;
	struct perf_event_attr a = { .size = sizeof(a), .sample_type = ST, .sample_id_all = 1 };
	uint64_t fh[13] = { 0x32454c4946524550ull, 104, asz, 104, asz, 0, 0 };
	uint64_t ids[2] = { 104 + asz, 8 }, id = 7;

	o = 104 + asz + 8;
	fh[5] = o;
	memcpy(b + 104, &a, sizeof(a));
	memcpy(b + 104 + sizeof(a), ids, 16);
	memcpy(b + 104 + asz, &id, 8);
	for (int i = 0; i < 4; i++) {
		struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 40 };
		uint32_t tid[2] = { 200, 200 + (i & 1) }, cpu[2] = { (uint32_t)i & 1, 0 };
		uint64_t t = 7000000001000ull + i * 200;

		memcpy(b + o, &h, 8);
		memcpy(b + o + 8, &id, 8);
		memcpy(b + o + 16, tid, 8);
		memcpy(b + o + 24, &t, 8);
		memcpy(b + o + 32, cpu, 8);
		o += 40;
	}
	fh[6] = o - fh[5];
	memcpy(b, fh, sizeof(fh));
	pd_len = o;
	REQUIRE(pd_len <= sizeof(pd));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *paths[] = { "trigger.name",
				       "trigger.tid",
				       "cpus.0.cpu",
				       "window",
				       "trigger.latency.start.time_ns",
				       "a.b.c.d",
				       "0",
				       "" };
	char err[1024];
	struct jv *v;
	struct show *s;

	if (!pd_len)
		build_perfdata();
	v = jv_parse((const char *)data, size, err, sizeof(err));
	if (!v)
		REQUIRE(!strncmp(err, "line ", 5));
	for (size_t i = 0; v && i < sizeof(paths) / sizeof(paths[0]); i++) {
		jv_str(v, paths[i], "");
		jv_u64(v, paths[i], 0);
		jv_i64(v, paths[i], 0);
		jv_bool(v, paths[i], 0);
	}
	jv_free(v);
	s = show__open_mem(pd, pd_len, (const char *)data, size, "fuzz.data", err, sizeof(err));
	REQUIRE(s != NULL);
	REQUIRE(s->nr == 4);
	fuzz_show(s);
	show__free(s);
	return 0;
}
