// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rings=compact: records written by the reference encoder (cr_put(), the
 * rules bpf/records.bpf.h's cr_body() follows) decode back to the same
 * records: round trips of every width, records longer than the fixed part,
 * a torn record, a ring overwritten many times, blocks whose header is
 * gone, and time deltas of every width.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "capture/recorder.h"
#include "snapshot/compact.h"
#include "trigrec_abi.h"

#define NEV 3

static const struct cr_event evs[NEV] = {
	{ .fixed = 40, .tp_id = 700 }, /* like sys_enter_read: nr, fd, buf, count */
	{ .fixed = 64, .tp_id = 301 }, /* like sched_switch */
	{ .fixed = 12, .tp_id = 42 },  /* a short one, with a __data_loc tail sometimes */
};

struct ring {
	struct cr_layout l;
	uint8_t *mem;
	uint64_t head, last;
};

static void ring_init(struct ring *r, uint32_t seg_shift, uint32_t nseg)
{
	r->l = cr_layout_of(seg_shift, nseg);
	r->mem = calloc(nseg, r->l.elem);
	r->head = 0;
	r->last = 0;
}

/* Record number n: its event, size, time and bytes all follow from n. */
static uint32_t rec_of(uint64_t n, uint8_t *rec, uint32_t *ev)
{
	uint32_t size;

	*ev = n % NEV;
	size = evs[*ev].fixed;
	if (*ev == 2 && n % 5 == 0)
		size += 1 + n % 300; /* a string past the fixed part */
	memset(rec, 0, 8);
	rec[0] = (uint8_t)evs[*ev].tp_id;
	rec[1] = (uint8_t)(evs[*ev].tp_id >> 8);
	for (int i = 0; i < 4; i++)
		rec[4 + i] = (uint8_t)((1000 + n % 50000) >> (8 * i));
	for (uint32_t i = 8; i < size; i++) /* small, large and zero values */
		rec[i] = (uint8_t)((i % 8) < (n + i / 8) % 9 ? n * 31 + i : 0);
	return size;
}

static uint64_t time_of(uint64_t n)
{
	/* Mostly close together, sometimes ms or seconds apart, once in a while far. */
	uint64_t t = 1000000000ull + n * 1500;

	if (n % 97 == 0)
		t += 3000000;
	return t + (n / 1000) * 2000000000ull;
}

struct seen {
	uint64_t first, n;
	int bad;
};

static int check_rec(void *ctx, uint32_t seq, uint64_t time, uint32_t ev, const uint8_t *rec,
		     uint32_t size)
{
	struct seen *s = ctx;
	uint8_t want[TRIGREC_MAX_RECORD];
	uint32_t wev, wsize;
	uint64_t n;

	n = seq; /* numbers start at 0 and stay below 2^24 here */
	if (!s->n)
		s->first = n;
	if (s->n && n != s->first + s->n) {
		/* A jump in the numbers: count it, go on from there. */
		s->bad++;
		s->first = n - s->n;
	}
	wsize = rec_of(n, want, &wev);
	if (ev != wev || size != wsize || time != time_of(n) || memcmp(rec, want, size)) {
		s->bad += 1000;
		return 0;
	}
	s->n++;
	return 0;
}

static void put_n(struct ring *r, uint64_t from, uint64_t to)
{
	uint8_t rec[TRIGREC_MAX_RECORD];
	uint32_t ev, size;

	for (uint64_t n = from; n < to; n++) {
		size = rec_of(n, rec, &ev);
		cr_put(r->mem, &r->l, &r->head, &r->last, ev, rec, size, evs[ev].fixed, time_of(n));
	}
}

TEST(round_trip_not_wrapped)
{
	struct cr_stats st = { 0 };
	struct seen s = { 0 };
	struct ring r;

	ring_init(&r, 14, 8); /* 128 KiB */
	put_n(&r, 0, 3000);
	CHECK(r.head & TRIGREC_CR_POS_MASK);
	CHECK_EQ(r.head >> TRIGREC_CR_POS_BITS, 3000);
	CHECK_EQ(cr_decode(r.mem, &r.l, r.head, r.head, evs, NEV, check_rec, &s, &st), 0);
	CHECK_EQ(s.bad, 0);
	CHECK_EQ(s.first, 0);
	CHECK_EQ(s.n, 3000);
	CHECK_EQ(st.records, 3000);
	CHECK_EQ(st.torn + st.bad + st.bad_blocks, 0);
	/* Compact: a sys_enter_read-like record is much smaller than its 40 bytes plus header. */
	free(r.mem);
	return 0;
}

TEST(bytes_per_record)
{
	uint8_t rec[40] = { 0 };
	struct ring r;
	uint32_t len;

	ring_init(&r, 12, 1);
	/* sys_enter_read: common (type, pid 4321), nr 0, fd 3, buf 0x7ffd12345678, count 4096 */
	rec[4] = 0xe1;
	rec[5] = 0x10;
	rec[16] = 3;
	memcpy(&rec[24], &(uint64_t){ 0x7ffd12345678ull }, 8);
	rec[33] = 0x10;
	cr_put(r.mem, &r.l, &r.head, &r.last, 0, rec, 40, 40, 1000000);
	/* The second is relative to the first: len, ev, 2 tag bytes, 3 time, 2 pid, 1+1+8+2 */
	len = cr_put(r.mem, &r.l, &r.head, &r.last, 0, rec, 40, 40, 1001000);
	CHECK_EQ(len, 21);
	free(r.mem);
	return 0;
}

TEST(wrapped_many_times)
{
	struct cr_stats st = { 0 };
	struct seen s = { 0 };
	struct ring r;
	uint64_t rsize = 8 << 12;

	ring_init(&r, 12, 8); /* 32 KiB in 4 KiB segments */
	put_n(&r, 0, 20000);
	CHECK((r.head & TRIGREC_CR_POS_MASK) > 5 * rsize);
	CHECK_EQ(cr_decode(r.mem, &r.l, r.head, r.head, evs, NEV, check_rec, &s, &st), 0);
	CHECK_EQ(s.bad, 0);
	/* Everything from the first whole block after head - size to the newest record. */
	CHECK_EQ(s.first + s.n, 20000);
	CHECK(s.n > 500);
	CHECK(st.bad + st.torn == 0);
	free(r.mem);
	return 0;
}

/* The record numbers a decode sees, in order: where they jump. */
struct jumps {
	uint32_t last, n, gaps;
};

static int count_jumps(void *ctx, uint32_t seq, uint64_t time, uint32_t ev, const uint8_t *rec,
		       uint32_t size)
{
	struct jumps *j = ctx;

	(void)time, (void)ev, (void)rec, (void)size;
	if (j->n && seq != ((j->last + 1) & 0xffffff))
		j->gaps++;
	j->last = seq;
	j->n++;
	return 0;
}

TEST(torn_record_ends_its_block_only)
{
	struct cr_stats st = { 0 };
	struct jumps j = { 0 };
	struct ring r;
	uint64_t mid;
	uint8_t *d;

	ring_init(&r, 16, 4);
	put_n(&r, 0, 200);
	mid = r.head & TRIGREC_CR_POS_MASK;
	put_n(&r, 200, 2000);
	/* Record 200 is still being written: its length byte is 0. */
	d = r.mem + mid; /* segment 0: position = offset */
	CHECK(mid < (1u << 16));
	d[0] = 0;
	CHECK_EQ(cr_decode(r.mem, &r.l, r.head, r.head, evs, NEV, count_jumps, &j, &st), 0);
	CHECK_EQ(st.torn, 1);
	CHECK_EQ(j.gaps, 1); /* the rest of its block is skipped, the next block starts again */
	CHECK(j.n > 1700 && j.n < 2000);
	free(r.mem);
	return 0;
}

TEST(lost_block_header_skips_that_block)
{
	struct cr_stats st = { 0 };
	struct seen s = { 0 };
	struct jumps j = { 0 };
	struct ring r;
	struct trigrec_cblk *k;

	ring_init(&r, 13, 4);
	put_n(&r, 0, 3000);
	/* The header of block 1 (segment 0, second block) overwritten by a later lap. */
	k = (struct trigrec_cblk *)(r.mem + (1 << 13) + TRIGREC_CR_SLACK + TRIGREC_CR_GUARD) + 1;
	k->pos += 4 << 13;
	CHECK_EQ(cr_decode(r.mem, &r.l, r.head, r.head, evs, NEV, count_jumps, &j, &st), 0);
	CHECK_EQ(st.bad_blocks, 1);
	CHECK_EQ(j.gaps, 1);
	/* Every block other than that one still decodes to the right records. */
	CHECK_EQ(cr_decode(r.mem, &r.l, r.head, r.head, evs, NEV, check_rec, &s, &st), 0);
	CHECK_EQ(s.bad, 1); /* the jump over the lost block */
	free(r.mem);
	return 0;
}

TEST(head_moved_during_copy)
{
	struct cr_stats st = { 0 };
	struct jumps j = { 0 };
	struct ring r;
	uint64_t before;

	ring_init(&r, 13, 4);
	put_n(&r, 0, 5000);
	before = r.head;
	put_n(&r, 5000, 5300); /* written while the copy ran: overwrote the oldest part */
	CHECK_EQ(cr_decode(r.mem, &r.l, before, r.head, evs, NEV, count_jumps, &j, &st), 0);
	CHECK_EQ(j.gaps, 0);
	CHECK_EQ(j.last, 4999);	       /* nothing newer than the head read before the copy */
	CHECK_EQ(st.bad + st.torn, 0); /* what the writer overwrote meanwhile is left out */
	CHECK(j.n > 100);
	/* A head that went backwards is refused. */
	CHECK_EQ(cr_decode(r.mem, &r.l, r.head, before, evs, NEV, count_jumps, &j, &st), -EINVAL);
	free(r.mem);
	return 0;
}

TEST(garbage_does_not_crash)
{
	struct cr_stats st = { 0 };
	struct jumps j = { 0 };
	struct ring r;

	ring_init(&r, 12, 2);
	srand(7);
	for (size_t i = 0; i < 2 * r.l.elem; i++)
		r.mem[i] = (uint8_t)rand();
	/* Headers that claim their block, over random records. */
	for (int s = 0; s < 2; s++) {
		struct trigrec_cblk *k =
			(void *)(r.mem + s * r.l.elem + 4096 + TRIGREC_CR_SLACK + TRIGREC_CR_GUARD);

		k->pos = (uint64_t)s * 4096;
		k->first = 5;
	}
	CHECK_EQ(cr_decode(r.mem, &r.l, 8192, 8192, evs, NEV, count_jumps, &j, &st), 0);
	CHECK(st.bad + st.torn >= 1);
	free(r.mem);
	return 0;
}

/*
 * One CPU's copies as a harvest holds them (struct rec_cr_hdr, then the
 * segments), main ring then carry: the input of tests/fuzz/fuzz_compact.c,
 * cut after `keep` bytes (the fuzzer pads with zeros).
 */
static int write_seed(const char *dir, const char *name, const struct ring *m,
		      const struct ring *sp, const struct rec_cr_hdr *carry, size_t keep)
{
	struct rec_cr_hdr mh = { .head_before = m->head, .head_after = m->head };
	size_t mlen = m->l.nseg * m->l.elem, slen = sp->l.nseg * sp->l.elem;
	uint8_t *buf = calloc(1, 2 * REC_CR_HDR + mlen + slen);
	char path[4096];
	FILE *f;
	int ok;

	if (!buf)
		return -1;
	memcpy(buf, &mh, sizeof(mh));
	memcpy(buf + REC_CR_HDR, m->mem, mlen);
	memcpy(buf + REC_CR_HDR + mlen, carry, sizeof(*carry));
	memcpy(buf + 2 * REC_CR_HDR + mlen, sp->mem, slen);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	ok = f && fwrite(buf, 1, keep, f) == keep;
	if (f && fclose(f))
		ok = 0;
	free(buf);
	return ok ? 0 : -1;
}

/*
 * fuzz_compact's seeds (tests/fuzz/corpus/compact/), from the rings these
 * tests write: TRIGREC_FUZZ_SEEDS=DIR make check-unit T=compact.
 */
TEST(fuzz_seeds)
{
	const char *dir = getenv("TRIGREC_FUZZ_SEEDS");
	struct rec_cr_hdr carry = { 0 };
	struct ring m, sp;
	size_t seg0;
	uint64_t mid;

	if (!dir) {
		SKIP("TRIGREC_FUZZ_SEEDS=DIR writes fuzz_compact's seeds into DIR; not set");
	}
	ring_init(&m, 12, 8); /* the smallest ring, as the fuzzer lays it out */
	ring_init(&sp, 12, 1);
	seg0 = REC_CR_HDR + m.l.elem; /* the first segment and its block headers */
	/* A fresh ring: a few records of every kind in the first block. */
	put_n(&m, 0, 90);
	CHECK((m.head & TRIGREC_CR_POS_MASK) < 4096);
	CHECK_EQ(write_seed(dir, "fresh", &m, &sp, &carry, seg0), 0);
	/* The same with its last record still being written. */
	mid = m.head & TRIGREC_CR_POS_MASK;
	put_n(&m, 90, 91);
	m.mem[mid] = 0;
	CHECK_EQ(write_seed(dir, "torn", &m, &sp, &carry, seg0), 0);
	/* Wrapped many times, and a cut: the spare took 300 records, the carry says where. */
	put_n(&m, 91, 6000);
	carry.nepis = 1;
	carry.epis[0].m = (uint32_t)(m.head >> TRIGREC_CR_POS_BITS);
	carry.epis[0].sprev = 0;
	sp.last = 0;
	put_n(&sp, 6000, 6300);
	carry.epis[0].s = (uint32_t)(sp.head >> TRIGREC_CR_POS_BITS);
	carry.head_before = carry.head_after = sp.head;
	put_n(&m, 6300, 6400);
	CHECK_EQ(write_seed(dir, "wrapped-carry", &m, &sp, &carry,
			    2 * REC_CR_HDR + m.l.nseg * m.l.elem + sp.l.elem),
		 0);
	free(m.mem);
	free(sp.mem);
	return 0;
}

RUN_TESTS(T(round_trip_not_wrapped), T(bytes_per_record), T(wrapped_many_times),
	  T(torn_record_ends_its_block_only), T(lost_block_header_skips_that_block),
	  T(head_moved_during_copy), T(garbage_does_not_crash), T(fuzz_seeds))
