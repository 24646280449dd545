// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tp_complete(): tracepoint records as the kernel writes them for trigrec
 * come out as ordinary perf samples, checked by decoding the result with the
 * file's attr (IDENTIFIER | [IP] | TID | TIME | CPU | [CALLCHAIN] | RAW);
 * tp_msg_sample(): a trigger's own record from its side-band message, the same.
 */
#include <errno.h>
#include <stdlib.h>
#include "check.h"
#include "snapshot/perfdata.h"
#include "snapshot/tpsample.h"
#include "capture/tracefs.h"
#include "trig_formats.h"

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

/* A trigger's own record from its side-band message, decoded with the attr the file gives it. */
static int decode_msg_sample(const void *rec, struct pd_rec_info *info, const uint8_t **raw,
			     uint32_t *raw_size)
{
	struct pd_event ev = { 0 };
	uint64_t ids[1] = { ID };
	const struct perf_event_header *h = rec;
	struct pd_idmap *m;
	int err;

	ev.attr.size = sizeof(ev.attr);
	ev.attr.type = PERF_TYPE_TRACEPOINT;
	ev.attr.sample_type = TP_MSG_SAMPLE_TYPE;
	ev.attr.sample_id_all = 1;
	ev.ids = ids;
	ev.nr_ids = 1;
	m = pd_idmap__new(&ev, 1);
	if (!m)
		return -ENOMEM;
	err = pd_rec_decode(m, &ev, rec, info);
	pd_idmap__free(m);
	/* IDENTIFIER, TID, TIME, CPU: RAW follows at 8 + 32, and ends the record. */
	memcpy(raw_size, (const uint8_t *)rec + 40, 4);
	*raw = (const uint8_t *)rec + 44;
	if (44 + *raw_size != h->size)
		return -EINVAL;
	return err;
}

static void msg_init(struct trigrec_trigger_msg *m, uint32_t size)
{
	memset(m, 0, sizeof(*m));
	m->type = TRIGREC_MSG_TRIGGER;
	m->time_ns = 987654321;
	m->cpu = 3;
	m->pid = 4000;
	m->tid = 4001;
	m->data_size = size;
	/* common_type 9001, common_pid = the thread, as fix_common() writes them */
	m->data[0] = 0x29;
	m->data[1] = 0x23;
	memcpy(m->data + 4, &m->tid, 4);
}

/* Fixed fields only (test:ev2): RAW is the record, padded as the kernel pads it. */
TEST(msg_sample_fixed)
{
	struct tp_format *f = tp_format__parse("test", "ev2", fmt_ev2, sizeof(fmt_ev2) - 1);
	struct trigrec_trigger_msg m;
	struct pd_rec_info info = { 0 };
	uint8_t out[512];
	const uint8_t *raw = NULL;
	uint32_t rs = 0;
	int64_t a = -5;
	int n;

	CHECK(f != NULL);
	if (!f)
		return 1;
	CHECK_EQ(f->fixed_size, 28);
	/* The engine copies more than the record (data_size is the hook's): only 28 are kept. */
	msg_init(&m, 64);
	memcpy(m.data + 8, &a, 8);
	memcpy(m.data + 20, "comm", 5);
	m.data[40] = 0x55; /* past the record: not in the sample */
	n = tp_msg_sample(f, &m, ID, out, sizeof(out));
	CHECK_EQ(n, 8 + 32 + 4 + 28);
	CHECK_EQ(decode_msg_sample(out, &info, &raw, &rs), 0);
	CHECK_EQ(info.event, 0);
	CHECK_EQ(info.pid, 4000);
	CHECK_EQ(info.tid, 4001);
	CHECK_EQ(info.time, 987654321);
	CHECK_EQ(info.cpu, 3);
	CHECK_EQ(rs, 28); /* 4 + 28 = 32: already 8-aligned */
	CHECK(raw && !memcmp(raw, m.data, 28));
	CHECK_EQ(((const struct perf_event_header *)out)->misc, PERF_RECORD_MISC_KERNEL);
	CHECK_EQ(rec_id((const struct perf_event_header *)out), ID);
	/* Errors: a small buffer, a message without the fixed part, no format. */
	CHECK_EQ(tp_msg_sample(f, &m, ID, out, (size_t)n - 1), -ENOSPC);
	m.data_size = 27;
	CHECK_EQ(tp_msg_sample(f, &m, ID, out, sizeof(out)), -E2BIG);
	CHECK_EQ(tp_msg_sample(NULL, &m, ID, out, sizeof(out)), -EINVAL);
	tp_format__free(f);
	return 0;
}

/* A __data_loc string (test:ev's dl at 44): kept whole, or cut at what the message holds. */
TEST(msg_sample_dataloc)
{
	struct tp_format *f = tp_format__parse("test", "ev", fmt_ev, sizeof(fmt_ev) - 1);
	struct trigrec_trigger_msg m;
	struct pd_rec_info info = { 0 };
	uint8_t out[512];
	const uint8_t *raw = NULL;
	uint32_t rs = 0, loc;
	int n;

	CHECK(f != NULL);
	if (!f)
		return 1;
	CHECK_EQ(f->fixed_size, 104);
	msg_init(&m, 256);
	loc = 6u << 16 | 104; /* "hello" and its NUL, right after the fixed part */
	memcpy(m.data + 44, &loc, 4);
	memcpy(m.data + 104, "hello", 6);
	n = tp_msg_sample(f, &m, ID, out, sizeof(out));
	CHECK_EQ(decode_msg_sample(out, &info, &raw, &rs), 0);
	CHECK_EQ(rs, 116); /* 104 + 6 = 110; 4 + 110 rounds up to 120 */
	CHECK_EQ(n, 8 + 32 + 4 + 116);
	CHECK(raw && !memcmp(raw, m.data, 110));
	CHECK(raw && raw[110] == 0 && raw[111] == 0);
	/* 200 bytes said, 152 held (256 - 104): cut there, NUL-terminated, its loc says so. */
	loc = 200u << 16 | 104;
	memcpy(m.data + 44, &loc, 4);
	memset(m.data + 104, 'x', 152);
	n = tp_msg_sample(f, &m, ID, out, sizeof(out));
	CHECK_EQ(decode_msg_sample(out, &info, &raw, &rs), 0);
	CHECK_EQ(rs, 260); /* 4 + 256 rounds up to 264 */
	CHECK_EQ(n, 8 + 32 + 4 + 260);
	if (raw) {
		memcpy(&loc, raw + 44, 4);
		CHECK_EQ(loc, 152u << 16 | 104);
		CHECK_EQ(raw[255], 0);
		CHECK_EQ(raw[254], 'x');
	}
	/* A loc past what the message holds: an empty string there, not a read past it. */
	loc = 4u << 16 | 300;
	memcpy(m.data + 44, &loc, 4);
	n = tp_msg_sample(f, &m, ID, out, sizeof(out));
	CHECK_EQ(decode_msg_sample(out, &info, &raw, &rs), 0);
	CHECK_EQ(rs, 108); /* the fixed part alone: 4 + 104 rounds up to 112 */
	if (raw) {
		memcpy(&loc, raw + 44, 4);
		CHECK_EQ(loc, 256u);
	}
	CHECK_EQ(n, 8 + 32 + 4 + 108);
	tp_format__free(f);
	return 0;
}

RUN_TESTS(T(sample_lean), T(sample_with_ip_and_callchain), T(lost_record_trailer), T(errors),
	  T(msg_sample_fixed), T(msg_sample_dataloc))
