// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Backward ring reading against rings filled the way the kernel fills them:
 * head decreases by the record size, the record goes at
 * [new_head, new_head + size) modulo the ring size.
 */
#include <stdlib.h>
#include <stdint.h>
#include "check.h"
#include "capture/ring_reader.h"

struct fake_ring {
	unsigned char *data;
	uint64_t size;
	uint64_t head;
};

static void ring_init(struct fake_ring *r, uint64_t size)
{
	r->data = calloc(1, size);
	r->size = size;
	r->head = 0;
}

static void ring_put(struct fake_ring *r, const void *rec, size_t len)
{
	const unsigned char *s = rec;

	r->head -= len;
	for (size_t i = 0; i < len; i++)
		r->data[(r->head + i) & (r->size - 1)] = s[i];
}

/* A record of `size` bytes carrying seq and a filler derived from it. */
static void make_rec(unsigned char *buf, uint16_t size, uint64_t seq)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = size };

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + 8, &seq, 8);
	for (size_t i = 16; i < size; i++)
		buf[i] = (unsigned char)(seq * 7 + i);
}

static int rec_ok(const struct perf_event_header *h, uint64_t *seq)
{
	const unsigned char *b = (const void *)h;

	memcpy(seq, b + 8, 8);
	for (size_t i = 16; i < h->size; i++)
		if (b[i] != (unsigned char)(*seq * 7 + i))
			return 0;
	return h->type == PERF_RECORD_SAMPLE;
}

static uint16_t size_of_seq(uint64_t seq)
{
	return 16 + 8 * (seq % 7); /* 16..64 bytes */
}

struct walk_log {
	uint64_t seqs[4096];
	int n;
	int bad;
	int stop_after;
	int any_size; /* records not built with size_of_seq() */
};

static int log_rec(const struct perf_event_header *h, void *ctx)
{
	struct walk_log *l = ctx;
	uint64_t seq;

	if (!rec_ok(h, &seq) || (!l->any_size && h->size != size_of_seq(seq)))
		l->bad++;
	if (l->n < 4096)
		l->seqs[l->n++] = seq;
	if (l->stop_after && l->n == l->stop_after)
		return 42;
	return 0;
}

/* Fill with seq 0..n-1, return the total bytes written. */
static uint64_t fill(struct fake_ring *r, uint64_t n)
{
	unsigned char rec[64];
	uint64_t total = 0;

	for (uint64_t s = 0; s < n; s++) {
		make_rec(rec, size_of_seq(s), s);
		ring_put(r, rec, size_of_seq(s));
		total += size_of_seq(s);
	}
	return total;
}

TEST(empty_ring)
{
	struct fake_ring r;
	struct walk_log l = { 0 };
	unsigned char out[256];
	size_t used = 1, len;

	ring_init(&r, 256);
	len = ring_copy_linear(r.data, r.size, r.head, out);
	CHECK_EQ(len, 0);
	CHECK_EQ(ring_walk(out, len, log_rec, &l, &used), 0);
	CHECK_EQ(used, 0);
	CHECK_EQ(l.n, 0);
	free(r.data);
	return 0;
}

TEST(partial_never_wrapped)
{
	struct fake_ring r;
	struct walk_log l = { 0 };
	unsigned char out[4096];
	uint64_t total;
	size_t used, len;

	ring_init(&r, 4096);
	total = fill(&r, 10);
	len = ring_copy_linear(r.data, r.size, r.head, out);
	CHECK_EQ(len, total);
	CHECK_EQ(ring_walk(out, len, log_rec, &l, &used), 0);
	CHECK_EQ(used, total);
	CHECK_EQ(l.n, 10);
	CHECK_EQ(l.bad, 0);
	for (int i = 0; i < l.n; i++)
		CHECK_EQ(l.seqs[i], 9 - i); /* newest first */
	free(r.data);
	return 0;
}

/* Records the walk must return: the newest ones that fit whole in `room`. */
static int expected_count(uint64_t last_seq, uint64_t room, uint64_t *bytes)
{
	uint64_t sum = 0;
	int n = 0;

	for (uint64_t s = last_seq + 1; s-- > 0;) {
		if (sum + size_of_seq(s) > room)
			break;
		sum += size_of_seq(s);
		n++;
	}
	*bytes = sum;
	return n;
}

TEST(wrapped_many_times)
{
	struct fake_ring r;
	struct walk_log l = { 0 };
	unsigned char out[512];
	uint64_t total, bytes;
	size_t used, len;
	int n;

	ring_init(&r, 512);
	total = fill(&r, 5000);
	CHECK(total > 100 * r.size);
	CHECK_EQ(-r.head, total);
	len = ring_copy_linear(r.data, r.size, r.head, out);
	CHECK_EQ(len, 512);
	CHECK_EQ(ring_walk(out, len, log_rec, &l, &used), 0);
	n = expected_count(4999, r.size, &bytes);
	CHECK_EQ(l.n, n);
	CHECK_EQ(used, bytes);
	CHECK_EQ(l.bad, 0);
	for (int i = 0; i < l.n; i++)
		CHECK_EQ(l.seqs[i], 4999 - i);
	free(r.data);
	return 0;
}

/* Every ring fill level across several wraps: the walk never returns a torn record. */
TEST(every_fill_level)
{
	unsigned char out[256];

	for (uint64_t n = 1; n < 200; n++) {
		struct fake_ring r;
		struct walk_log l = { 0 };
		uint64_t total, bytes;
		size_t used, len;
		int exp;

		ring_init(&r, 256);
		total = fill(&r, n);
		len = ring_copy_linear(r.data, r.size, r.head, out);
		CHECK_EQ(len, total < 256 ? total : 256);
		ring_walk(out, len, log_rec, &l, &used);
		exp = expected_count(n - 1, len, &bytes);
		CHECK_EQ(l.n, exp);
		CHECK_EQ(used, bytes);
		CHECK_EQ(l.bad, 0);
		free(r.data);
	}
	return 0;
}

TEST(torn_oldest_and_straddling)
{
	struct fake_ring r;
	struct walk_log l = { .any_size = 1 };
	unsigned char a[40], b[32], out[64];
	size_t used, len;

	ring_init(&r, 64);
	make_rec(a, 40, 1);
	make_rec(b, 32, 2);
	/* A at offsets 24..63; B at 56..63 + 0..23: it straddles the end and eats A's tail */
	ring_put(&r, a, 40);
	ring_put(&r, b, 32);
	CHECK_EQ(r.head & 63, 56);
	len = ring_copy_linear(r.data, r.size, r.head, out);
	CHECK_EQ(len, 64);
	CHECK(!memcmp(out, b, 32)); /* unwrapped in one piece */
	CHECK_EQ(ring_walk(out, len, log_rec, &l, &used), 0);
	CHECK_EQ(l.n, 1);
	CHECK_EQ(l.seqs[0], 2);
	CHECK_EQ(l.bad, 0);
	CHECK_EQ(used, 32);
	free(r.data);
	return 0;
}

/*
 * Headers are 8 bytes at 8-aligned offsets, so only bodies can straddle the
 * end; here the newest record does and older whole records follow it.
 */
TEST(straddling_newest_then_whole_older)
{
	struct fake_ring r;
	struct walk_log l = { .any_size = 1 };
	unsigned char a[24], b[40], c[48], d[32], out[128];
	size_t used, len;

	ring_init(&r, 128);
	make_rec(a, 24, 1);
	make_rec(b, 40, 2);
	make_rec(c, 48, 3);
	make_rec(d, 32, 4);
	ring_put(&r, a, 24); /* 104..127 */
	ring_put(&r, b, 40); /* 64..103 */
	ring_put(&r, c, 48); /* 16..63 */
	ring_put(&r, d, 32); /* 112..127 + 0..15: straddles, eats A */
	CHECK_EQ(r.head & 127, 112);
	len = ring_copy_linear(r.data, r.size, r.head, out);
	CHECK_EQ(len, 128);
	CHECK(!memcmp(out, d, 32));
	CHECK(!memcmp(out + 32, c, 48));
	CHECK(!memcmp(out + 80, b, 40));
	ring_walk(out, len, log_rec, &l, &used);
	CHECK_EQ(l.n, 3);
	CHECK_EQ(l.seqs[0], 4);
	CHECK_EQ(l.seqs[2], 2);
	CHECK_EQ(l.bad, 0);
	CHECK_EQ(used, 120);
	free(r.data);
	return 0;
}

TEST(head_moved_during_copy)
{
	unsigned char out[1024], rec[64];

	for (uint64_t extra = 1; extra < 60; extra++) {
		struct fake_ring r;
		struct walk_log l = { 0 };
		uint64_t before, moved = 0, bytes;
		size_t used, len, half;

		ring_init(&r, 1024);
		fill(&r, 300);
		before = r.head;
		/* copy the newest half, let the writer run, then copy the rest */
		len = ring_copy_linear(r.data, r.size, before, out);
		half = len / 2;
		for (uint64_t s = 300; s < 300 + extra; s++) {
			make_rec(rec, size_of_seq(s), s);
			ring_put(&r, rec, size_of_seq(s));
			moved += size_of_seq(s);
		}
		{
			unsigned char tmp[1024];

			ring_copy_linear(r.data, r.size, before, tmp);
			memcpy(out + half, tmp + half, len - half);
		}
		len = ring_discard_moved(len, r.size, before, r.head);
		CHECK_EQ(len, moved >= 1024 ? 0 : 1024 - moved);
		ring_walk(out, len, log_rec, &l, &used);
		CHECK_EQ(l.bad, 0);
		CHECK_EQ(l.n, expected_count(299, len, &bytes));
		CHECK_EQ(used, bytes);
		for (int i = 0; i < l.n; i++)
			CHECK_EQ(l.seqs[i], 299 - i);
		free(r.data);
	}
	CHECK_EQ(ring_discard_moved(500, 1024, 100, 100), 500);
	CHECK_EQ(ring_discard_moved(500, 1024, 100, 100 - 600), 424);
	CHECK_EQ(ring_discard_moved(500, 1024, 100, 100 - 2048), 0);
	/* head crossing zero: differences still right */
	CHECK_EQ(ring_discard_moved(1024, 1024, 8, (uint64_t)-56), 960);
	return 0;
}

TEST(zero_and_bad_sizes)
{
	uint64_t buf[32] = { 0 };
	struct perf_event_header *h;
	struct walk_log l = { 0 };
	size_t used;

	make_rec((void *)buf, 16, 0);
	/* second header left zero: never written */
	CHECK_EQ(ring_walk(buf, sizeof(buf), log_rec, &l, &used), 0);
	CHECK_EQ(l.n, 1);
	CHECK_EQ(used, 16);

	l.n = 0;
	h = (void *)(buf + 2);
	h->size = 12; /* not a multiple of 8 */
	ring_walk(buf, sizeof(buf), log_rec, &l, &used);
	CHECK_EQ(l.n, 1);
	CHECK_EQ(used, 16);

	l.n = 0;
	h->size = 4; /* smaller than a header */
	ring_walk(buf, sizeof(buf), log_rec, &l, &used);
	CHECK_EQ(l.n, 1);

	l.n = 0;
	h->size = 8 * 31; /* crosses len */
	ring_walk(buf, sizeof(buf), log_rec, &l, &used);
	CHECK_EQ(l.n, 1);
	CHECK_EQ(used, 16);

	/* a length shorter than a header */
	l.n = 0;
	CHECK_EQ(ring_walk(buf, 7, log_rec, &l, &used), 0);
	CHECK_EQ(l.n, 0);
	CHECK_EQ(used, 0);
	return 0;
}

TEST(callback_stops_walk)
{
	struct fake_ring r;
	struct walk_log l = { .stop_after = 3 };
	unsigned char out[4096];
	size_t used, len;

	ring_init(&r, 4096);
	fill(&r, 10);
	len = ring_copy_linear(r.data, r.size, r.head, out);
	CHECK_EQ(ring_walk(out, len, log_rec, &l, &used), 42);
	CHECK_EQ(l.n, 3);
	CHECK_EQ(used, size_of_seq(9) + size_of_seq(8)); /* the stopping record is not counted */
	free(r.data);
	return 0;
}

TEST(copy_since_prev_harvest)
{
	struct fake_ring r;
	struct walk_log l = { 0 };
	unsigned char out[1024];
	uint64_t prev, since = 0;
	size_t used, len;

	ring_init(&r, 1024);
	fill(&r, 20);
	prev = r.head;
	{
		unsigned char rec[64];

		for (uint64_t s = 20; s < 25; s++) {
			make_rec(rec, size_of_seq(s), s);
			ring_put(&r, rec, size_of_seq(s));
			since += size_of_seq(s);
		}
	}
	len = ring_copy_range(r.data, r.size, r.head, prev, out);
	CHECK_EQ(len, since);
	ring_walk(out, len, log_rec, &l, &used);
	CHECK_EQ(l.n, 5);
	CHECK_EQ(l.seqs[0], 24);
	CHECK_EQ(l.seqs[4], 20);
	CHECK_EQ(used, since);
	CHECK_EQ(l.bad, 0);
	free(r.data);

	/* positions that crossed zero: prev = 16, head = -24 */
	{
		unsigned char d[64], o[64];

		for (int i = 0; i < 64; i++)
			d[i] = i;
		CHECK_EQ(ring_copy_range(d, 64, (uint64_t)-24, 16, o), 40);
		CHECK_EQ(o[0], 40);
		CHECK_EQ(o[23], 63);
		CHECK_EQ(o[24], 0);
		CHECK_EQ(o[39], 15);
	}
	return 0;
}

RUN_TESTS(T(empty_ring), T(partial_never_wrapped), T(wrapped_many_times), T(every_fill_level),
	  T(torn_oldest_and_straddling), T(straddling_newest_then_whole_older),
	  T(head_moved_during_copy), T(zero_and_bad_sizes), T(callback_stops_walk),
	  T(copy_since_prev_harvest))
