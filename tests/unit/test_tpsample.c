// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tp_complete(): tracepoint records as the kernel writes them for trigrec
 * come out as ordinary perf samples, checked by decoding the result with the
 * file's attr (IDENTIFIER | [IP] | TID | TIME | CPU | [CALLCHAIN] | RAW).
 */
#include <errno.h>
#include <stdlib.h>
#include "check.h"
#include "snapshot/perfdata.h"
#include "snapshot/tpsample.h"

#define ID 4242
#define KERNEL_ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)
#define FILE_EXTRA (PERF_SAMPLE_TID | PERF_SAMPLE_CPU)

static size_t put(uint8_t *b, size_t o, const void *v, size_t n)
{
	memcpy(b + o, v, n);
	return o + n;
}

/* A kernel-format sample: IDENTIFIER [IP] TIME [CALLCHAIN] RAW(common_pid). */
static size_t kernel_sample(uint8_t *b, uint64_t st, uint64_t time, uint32_t common_pid, int nr_ips)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE };
	uint64_t id = ID, ip = 0xffffffff81000100ull, nr = nr_ips;
	uint8_t raw[20] = { 0x2a, 0x01, 0, 0 }; /* common_type 298 ... */
	uint32_t raw_size = sizeof(raw);
	size_t o = sizeof(h);

	memcpy(raw + 4, &common_pid, 4);
	raw[8] = 0x77; /* a field byte that must survive */
	o = put(b, o, &id, 8);
	if (st & PERF_SAMPLE_IP)
		o = put(b, o, &ip, 8);
	o = put(b, o, &time, 8);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		o = put(b, o, &nr, 8);
		for (int i = 0; i < nr_ips; i++) {
			uint64_t a = 0x400000 + i;

			o = put(b, o, &a, 8);
		}
	}
	o = put(b, o, &raw_size, 4);
	o = put(b, o, raw, sizeof(raw)); /* 4 + 20 = 24: 8-aligned */
	h.size = o;
	memcpy(b, &h, sizeof(h));
	return o;
}

static int decode_as_file(uint64_t kst, const void *rec, struct pd_rec_info *info)
{
	struct pd_event ev = { 0 };
	uint64_t ids[1] = { ID };
	struct pd_idmap *m;
	int err;

	ev.attr.size = sizeof(ev.attr);
	ev.attr.type = PERF_TYPE_TRACEPOINT;
	ev.attr.sample_type = kst | FILE_EXTRA;
	ev.attr.sample_id_all = 1;
	ev.ids = ids;
	ev.nr_ids = 1;
	m = pd_idmap__new(&ev, 1);
	if (!m)
		return -ENOMEM;
	err = pd_rec_decode(m, &ev, rec, info);
	pd_idmap__free(m);
	return err;
}

static int check_sample(uint64_t st, int nr_ips)
{
	uint8_t in[512], out[512];
	size_t n = kernel_sample(in, st, 123456789, 3141, nr_ips);
	const uint8_t *raw = tp_raw((struct perf_event_header *)in, st);
	struct pd_rec_info info = { 0 };
	uint32_t common_pid;
	int r;

	CHECK(raw != NULL);
	if (!raw)
		return 1;
	memcpy(&common_pid, raw + 8, 4);
	CHECK_EQ(common_pid, 3141);
	CHECK_EQ(rec_id((struct perf_event_header *)in), ID);
	r = tp_complete((struct perf_event_header *)in, st, 3000, 3141, 7, out, sizeof(out));
	CHECK_EQ(r, (long long)n + 16);
	CHECK_EQ(((struct perf_event_header *)out)->size, r);
	CHECK_EQ(decode_as_file(st, out, &info), 0);
	CHECK_EQ(info.event, 0);
	CHECK_EQ(info.pid, 3000);
	CHECK_EQ(info.tid, 3141);
	CHECK_EQ(info.time, 123456789);
	CHECK_EQ(info.cpu, 7);
	/* Callchain and RAW are carried byte for byte at the end. */
	CHECK(!memcmp(out + r - (n - (raw - in)), raw, n - (raw - in)));
	CHECK_EQ(rec_id((struct perf_event_header *)out), ID);
	return 0;
}

TEST(sample_lean)
{
	return check_sample(KERNEL_ST, 0);
}

TEST(sample_with_ip_and_callchain)
{
	return check_sample(KERNEL_ST | PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN, 3);
}

/* A LOST record from a tracepoint event gets the file attr's trailer. */
TEST(lost_record_trailer)
{
	struct {
		struct perf_event_header h;
		uint64_t id, lost;
		uint64_t time, ident; /* kernel trailer: TIME, IDENTIFIER */
	} in = { { PERF_RECORD_LOST, 0, sizeof(in) }, ID, 17, 999, ID };
	uint8_t out[128];
	struct pd_rec_info info = { 0 };
	uint64_t lost;
	int r = tp_complete(&in.h, KERNEL_ST, 1, 2, 1, out, sizeof(out));

	CHECK_EQ(r, sizeof(in) + 16);
	CHECK_EQ(decode_as_file(KERNEL_ST, out, &info), 0);
	CHECK_EQ(info.event, 0);
	CHECK_EQ(info.time, 999);
	CHECK_EQ(info.cpu, 1);
	CHECK_EQ(info.pid, 0);
	memcpy(&lost, out + sizeof(struct perf_event_header) + 8, 8);
	CHECK_EQ(lost, 17);
	CHECK_EQ(rec_id((struct perf_event_header *)out), ID);
	return 0;
}

TEST(errors)
{
	uint8_t in[512], out[64];
	size_t n = kernel_sample(in, KERNEL_ST, 1, 2, 0);
	struct perf_event_header *h = (struct perf_event_header *)in;

	CHECK_EQ(tp_complete(h, KERNEL_ST, 1, 2, 0, out, n + 15), -ENOSPC);
	h->size = 16; /* too short to hold TIME */
	CHECK_EQ(tp_complete(h, KERNEL_ST, 1, 2, 0, out, sizeof(out)), -EINVAL);
	CHECK(tp_raw(h, KERNEL_ST) == NULL);
	return 0;
}

RUN_TESTS(T(sample_lean), T(sample_with_ip_and_callchain), T(lost_record_trailer), T(errors))
