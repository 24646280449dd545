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
#include "capture/tracefs.h"
#include "engine/crwords.h"
#include "snapshot/bpfrec.h"
#include "snapshot/compact.h"
#include "trigrec_abi.h"

#define NEV 4

static const struct cr_event evs[NEV] = {
	/* like sys_enter_read: nr, fd, buf, count; fd written zigzagged as a signed field */
	{ .fixed = 40, .tp_id = 700, .zz = 0x2 },
	{ .fixed = 64, .tp_id = 301 }, /* like sched_switch, with its comms */
	{ .fixed = 12, .tp_id = 42 },  /* a short one, with a __data_loc tail sometimes */
	/* sched_switch as rings=compact writes it: prev_comm and next_comm left out */
	{ .fixed = 64, .tp_id = 302, .skip = 0x33, .zz = 0x08 }, /* prev_state zigzagged */
};

struct ring {
	struct cr_layout l;
	uint8_t *mem;
	struct cr_writer w;
};

static void ring_init(struct ring *r, uint32_t seg_shift, uint32_t nseg)
{
	r->l = cr_layout_of(seg_shift, nseg);
	r->mem = calloc(nseg, r->l.elem);
	memset(&r->w, 0, sizeof(r->w));
}

/*
 * Record number n: its event, size, time and bytes all follow from n. The
 * pid changes every third record (the others leave it out). Decoded, the
 * words an event leaves out (skip) read 0.
 */
static uint32_t rec_of_as(uint64_t n, uint8_t *rec, uint32_t *ev, int decoded)
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
		rec[4 + i] = (uint8_t)((1000 + (n / 3) % 50000) >> (8 * i));
	for (uint32_t i = 8; i < size; i++) /* small, large and zero values */
		rec[i] = (uint8_t)((i % 8) < (n + i / 8) % 9 ? n * 31 + i : 0);
	for (uint32_t i = 0; decoded && i < 16; i++)
		if ((evs[*ev].skip >> i) & 1)
			memset(rec + 8 + 8 * i, 0, 8);
	return size;
}

static uint32_t rec_of(uint64_t n, uint8_t *rec, uint32_t *ev)
{
	return rec_of_as(n, rec, ev, 0);
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
		     uint32_t size, const uint8_t *src)
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
	wsize = rec_of_as(n, want, &wev, 1);
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
		cr_put(r->mem, &r->l, &r->w, ev, rec, size, &evs[ev], time_of(n));
	}
}

TEST(round_trip_not_wrapped)
{
	struct cr_stats st = { 0 };
	struct seen s = { 0 };
	struct ring r;

	ring_init(&r, 14, 8); /* 128 KiB */
	put_n(&r, 0, 3000);
	CHECK(r.w.head & TRIGREC_CR_POS_MASK);
	CHECK_EQ(r.w.head >> TRIGREC_CR_POS_BITS, 3000);
	CHECK_EQ(cr_decode(r.mem, &r.l, r.w.head, r.w.head, evs, NEV, check_rec, &s, &st), 0);
	CHECK_EQ(s.bad, 0);
	CHECK_EQ(s.first, 0);
	CHECK_EQ(s.n, 3000);
	CHECK_EQ(st.records, 3000);
	CHECK_EQ(st.torn + st.bad + st.bad_blocks, 0);
	/* Compact: a sys_enter_read-like record is much smaller than its 40 bytes plus header. */
	free(r.mem);
	return 0;
}

/* The length of record rec (size bytes, event e) written 1 us after one of the same task. */
static uint32_t len_after_same_task(const uint8_t *rec, uint32_t size, const struct cr_event *e,
				    int keep_pid)
{
	struct ring r;
	uint32_t len;

	ring_init(&r, 12, 1);
	r.w.keep_pid = keep_pid;
	cr_put(r.mem, &r.l, &r.w, 0, rec, size, e, 1000000);
	len = cr_put(r.mem, &r.l, &r.w, 0, rec, size, e, 1001000);
	free(r.mem);
	return len;
}

/*
 * Bytes per record, as cr_body() writes them (issue 32's figures): the
 * pid only on a change of task, sched_switch without its two comms.
 */
TEST(bytes_per_record)
{
	const struct cr_event getpgid = { .fixed = 24, .tp_id = 1 };
	/* sys_exit_getpgid as cr_zz_words() marks it: ret (word 1) is one signed field */
	const struct cr_event getpgid_ret = { .fixed = 24, .tp_id = 1, .zz = 0x2 };
	const struct cr_event switch_comms = { .fixed = 64, .tp_id = 2 };
	const struct cr_event switch_compact = { .fixed = 64, .tp_id = 2, .skip = 0x33 };
	uint8_t rd[40] = { 0 }, enter[24] = { 0 }, ex[24] = { 0 }, sw[64] = { 0 };

	/* sys_enter_read: common (type, pid 4321), nr 0, fd 3, buf 0x7ffd12345678, count 4096 */
	rd[4] = 0xe1;
	rd[5] = 0x10;
	rd[16] = 3;
	memcpy(&rd[24], &(uint64_t){ 0x7ffd12345678ull }, 8);
	rd[33] = 0x10;
	/* len, ev, 2 tag bytes, 3 time, 2 pid (none: the same task), 0+1+8+3 (fd 3 zigzagged: 6) */
	CHECK_EQ(len_after_same_task(rd, 40, &evs[0], 1), 21);
	CHECK_EQ(len_after_same_task(rd, 40, &evs[0], 0), 19);
	/* sys_enter_getpgid(1000042): nr 121, pid; sys_exit_getpgid: nr 121, ret -ESRCH */
	memcpy(enter, rd, 8);
	enter[8] = 121;
	memcpy(&enter[16], &(uint64_t){ 1000042 }, 8);
	memcpy(ex, rd, 8);
	ex[8] = 121;
	memcpy(&ex[16], &(int64_t){ -3 }, 8);
	/*
	 * len, ev, 1 tag byte, 3 time, [2 pid], 1 nr, 3 (enter: 1000042 < 2^24);
	 * exit: 8 (-ESRCH as it is), 1 zigzagged (5)
	 */
	CHECK_EQ(len_after_same_task(enter, 24, &getpgid, 1), 12);
	CHECK_EQ(len_after_same_task(enter, 24, &getpgid, 0), 10);
	CHECK_EQ(len_after_same_task(ex, 24, &getpgid, 1), 17);
	CHECK_EQ(len_after_same_task(ex, 24, &getpgid, 0), 15);
	CHECK_EQ(len_after_same_task(ex, 24, &getpgid_ret, 1), 10);
	CHECK_EQ(len_after_same_task(ex, 24, &getpgid_ret, 0), 8);
	/* a return of 0 takes no byte at all */
	memset(&ex[16], 0, 8);
	CHECK_EQ(len_after_same_task(ex, 24, &getpgid_ret, 0), 7);
	/*
	 * sched_switch from "kworker/1:2" 4321 (prio 120, state 1) to
	 * "seqgen" 5000 (prio 120): len, ev, 3 tag bytes, 3 time, [2 pid],
	 * [8 + 3 prev_comm], 8 prev_pid+prio, 1 state, [8 + 0 next_comm], 8.
	 */
	memcpy(sw, rd, 8);
	memcpy(&sw[8], "kworker/1:2", 12);
	memcpy(&sw[24], &(uint32_t){ 4321 }, 4);
	memcpy(&sw[28], &(uint32_t){ 120 }, 4);
	sw[32] = 1;
	memcpy(&sw[40], "seqgen", 7);
	memcpy(&sw[56], &(uint32_t){ 5000 }, 4);
	memcpy(&sw[60], &(uint32_t){ 120 }, 4);
	CHECK_EQ(len_after_same_task(sw, 64, &switch_comms, 1), 46);
	CHECK_EQ(len_after_same_task(sw, 64, &switch_compact, 1), 27);
	CHECK_EQ(len_after_same_task(sw, 64, &switch_compact, 0), 25);
	return 0;
}

/*
 * The pid left out of a record of the same task as the previous one is
 * that task's pid, also for the first record of a block (the block's header
 * holds the pid of the record that crossed into it), however many blocks
 * start with such a record.
 */
TEST(same_task_pid_from_block_header)
{
	struct cr_stats st = { 0 };
	struct seen s = { 0 };
	struct ring r, k;

	ring_init(&r, 12, 8);
	put_n(&r, 0, 20000); /* wrapped: decoding starts at block headers */
	CHECK_EQ(cr_decode(r.mem, &r.l, r.w.head, r.w.head, evs, NEV, check_rec, &s, &st), 0);
	CHECK_EQ(s.bad, 0);
	CHECK_EQ(s.first + s.n, 20000);
	CHECK(s.n > 500);
	CHECK_EQ(st.bad + st.torn + st.bad_blocks, 0);
	/* Two of three records were of the task before them and left their pid (2 bytes) out. */
	ring_init(&k, 12, 8);
	k.w.keep_pid = 1;
	put_n(&k, 0, 20000);
	CHECK_EQ((k.w.head & TRIGREC_CR_POS_MASK) - (r.w.head & TRIGREC_CR_POS_MASK),
		 2 * (20000 - 6667));
	free(r.mem);
	free(k.mem);
	return 0;
}

static const char switch_fmt[] =
	"name: sched_switch\nID: 316\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s\", REC->prev_comm\n";

/* sched_switch's comm fields are left out (cr_skip_words()), the rest is not. */
TEST(skip_words_of_sched_switch)
{
	struct tp_format *f =
		tp_format__parse("sched", "sched_switch", switch_fmt, sizeof(switch_fmt) - 1);
	struct tp_format *g =
		tp_format__parse("sched", "sched_wakeup", switch_fmt, sizeof(switch_fmt) - 1);

	CHECK(f && g);
	CHECK_EQ(cr_skip_words(f), 0x33);
	CHECK_EQ(cr_skip_words(g), 0); /* only sched_switch */
	CHECK_EQ(cr_skip_words(NULL), 0);
	CHECK_EQ(cr_zz_words(f), 0x08); /* prev_state, a long of its own word; not the pids */
	CHECK_EQ(cr_zz_words(NULL), 0);
	tp_format__free(f);
	tp_format__free(g);
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
	CHECK((r.w.head & TRIGREC_CR_POS_MASK) > 5 * rsize);
	CHECK_EQ(cr_decode(r.mem, &r.l, r.w.head, r.w.head, evs, NEV, check_rec, &s, &st), 0);
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
		       uint32_t size, const uint8_t *src)
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
	mid = r.w.head & TRIGREC_CR_POS_MASK;
	put_n(&r, 200, 2000);
	/* Record 200 is still being written: its length byte is 0. */
	d = r.mem + mid; /* segment 0: position = offset */
	CHECK(mid < (1u << 16));
	d[0] = 0;
	CHECK_EQ(cr_decode(r.mem, &r.l, r.w.head, r.w.head, evs, NEV, count_jumps, &j, &st), 0);
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

	uint64_t n = 3000;

	ring_init(&r, 13, 4);
	put_n(&r, 0, n);
	/*
	 * Wrapped, and the head half a ring past block 1, whatever the records'
	 * sizes: block 1 is then neither the oldest block of the copy nor the
	 * one being written, and losing it leaves a gap.
	 */
	while ((r.w.head & TRIGREC_CR_POS_MASK) % (4 << 13) < (2 << 13) ||
	       (r.w.head & TRIGREC_CR_POS_MASK) % (4 << 13) >= (2 << 13) + TRIGREC_CR_BLOCK) {
		put_n(&r, n, n + 1);
		n++;
	}
	CHECK((r.w.head & TRIGREC_CR_POS_MASK) > (4 << 13));
	/* The header of block 1 (segment 0, second block) overwritten by a later lap. */
	k = (struct trigrec_cblk *)(r.mem + (1 << 13) + TRIGREC_CR_SLACK + TRIGREC_CR_GUARD) + 1;
	k->pos += 4 << 13;
	CHECK_EQ(cr_decode(r.mem, &r.l, r.w.head, r.w.head, evs, NEV, count_jumps, &j, &st), 0);
	CHECK_EQ(st.bad_blocks, 1);
	CHECK_EQ(j.gaps, 1);
	/* Every block other than that one still decodes to the right records. */
	CHECK_EQ(cr_decode(r.mem, &r.l, r.w.head, r.w.head, evs, NEV, check_rec, &s, &st), 0);
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
	before = r.w.head;
	put_n(&r, 5000, 5300); /* written while the copy ran: overwrote the oldest part */
	CHECK_EQ(cr_decode(r.mem, &r.l, before, r.w.head, evs, NEV, count_jumps, &j, &st), 0);
	CHECK_EQ(j.gaps, 0);
	CHECK_EQ(j.last, 4999);	       /* nothing newer than the head read before the copy */
	CHECK_EQ(st.bad + st.torn, 0); /* what the writer overwrote meanwhile is left out */
	CHECK(j.n > 100);
	/* A head that went backwards is refused. */
	CHECK_EQ(cr_decode(r.mem, &r.l, r.w.head, before, evs, NEV, count_jumps, &j, &st), -EINVAL);
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
	struct rec_cr_hdr mh = { .head_before = m->w.head, .head_after = m->w.head };
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
	CHECK((m.w.head & TRIGREC_CR_POS_MASK) < 4096);
	CHECK_EQ(write_seed(dir, "fresh", &m, &sp, &carry, seg0), 0);
	/* The same with its last record still being written. */
	mid = m.w.head & TRIGREC_CR_POS_MASK;
	put_n(&m, 90, 91);
	m.mem[mid] = 0;
	CHECK_EQ(write_seed(dir, "torn", &m, &sp, &carry, seg0), 0);
	/* Wrapped many times, and a cut: the spare took 300 records, the carry says where. */
	put_n(&m, 91, 6000);
	carry.nepis = 1;
	carry.epis[0].m = (uint32_t)(m.w.head >> TRIGREC_CR_POS_BITS);
	carry.epis[0].sprev = 0;
	sp.w.last = 0;
	put_n(&sp, 6000, 6300);
	carry.epis[0].s = (uint32_t)(sp.w.head >> TRIGREC_CR_POS_BITS);
	carry.head_before = carry.head_after = sp.w.head;
	put_n(&m, 6300, 6400);
	CHECK_EQ(write_seed(dir, "wrapped-carry", &m, &sp, &carry,
			    2 * REC_CR_HDR + m.l.nseg * m.l.elem + sp.l.elem),
		 0);
	free(m.mem);
	free(sp.mem);
	return 0;
}

static const char wakeup_fmt[] =
	"name: sched_wakeup\nID: 318\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s\", REC->comm\n";

static int stub_proc_comm(uint32_t tid, char comm[16])
{
	memset(comm, 0, 16);
	if (tid != 200)
		return 0;
	memcpy(comm, "fromproc", 9);
	return 1;
}

/* A PERF_RECORD_COMM of the tracking ring, with its sample_id (TID, TIME, CPU, IDENTIFIER). */
static size_t put_comm_rec(uint8_t *b, uint32_t tid, const char *comm, uint64_t time)
{
	struct perf_event_header ph = { .type = PERF_RECORD_COMM, .size = 8 + 8 + 16 + 32 };

	memset(b, 0, ph.size);
	memcpy(b, &ph, sizeof(ph));
	memcpy(b + 8, &tid, 4);
	memcpy(b + 12, &tid, 4);
	memcpy(b + 16, comm, strlen(comm) + 1);
	memcpy(b + 32 + 8, &time, 8);
	return ph.size;
}

/*
 * The names sched_switch leaves out come back by time: from the thread's
 * COMM records, from a record that carries its name (sched_wakeup) in the
 * span of the switch, from /proc when no COMM record follows, swapper/CPU
 * for pid 0, and CR_COMM_UNKNOWN when nothing says.
 */
TEST(names_by_time)
{
	struct tp_format *sw = tp_format__parse("sched", "sched_switch", switch_fmt,
						sizeof(switch_fmt) - 1),
			 *wk = tp_format__parse("sched", "sched_wakeup", wakeup_fmt,
						sizeof(wakeup_fmt) - 1);
	struct rec_event rev[3] = { 0 };
	struct rec_ring rings[3] = { { .cpu = 1, .set = 0, .compact = 1 },
				     { .cpu = 1, .set = 1, .compact = 1 },
				     { .cpu = 1, .set = -1, .tracking = 1 } };
	struct ring_copy copies[3] = { 0 };
	int cpus[1] = { 1 };
	struct ring m, sp;
	struct cr_event ce[2];
	struct recorder r = { .evs = rev,
			      .nr_evs = 3,
			      .rings = rings,
			      .nr_rings = 3,
			      .cpus = cpus,
			      .nr_cpus = 1,
			      .nr_bpf_evs = 2,
			      .compact = 1,
			      .cr_shift = 12,
			      .cr_nseg = 8 };
	struct harvest h = { .rings = copies, .nr_rings = 3 };
	struct bpfrec_scratch s = { .proc_comm = stub_proc_comm };
	struct bpfrec_stats st;
	/* (time, prev_pid, next_pid) of each switch, and the names that must come back */
	static const struct {
		uint64_t t;
		uint32_t prev, next;
		const char *pname, *nname;
	} want[] = {
		{ 1000, 100, 0, "oldname", "swapper/1" },  /* a wakeup at 500 named 100 */
		{ 3000, 100, 200, "newname", "fromproc" }, /* 100's COMM at 2000 */
		{ 4000, 300, 400, CR_COMM_UNKNOWN, CR_COMM_UNKNOWN }, /* 400 renamed at 5000 */
		{ 6000, 400, 300, "late", CR_COMM_UNKNOWN },
	};
	uint8_t rec[64], trk[4 * 64], *buf;
	static uint8_t xbuf[BPFREC_EXPAND_MAX];
	size_t mlen, tl = 0, found = 0;
	struct rec_cr_hdr hdr = { 0 };

	CHECK(sw && wk);
	rev[0] = (struct rec_event){ .kind = REC_EV_TRACEPOINT, .fmt = sw, .bpf_rec = 1 };
	rev[1] = (struct rec_event){ .kind = REC_EV_TRACEPOINT, .fmt = wk, .bpf_rec = 1 };
	rev[2].kind = REC_EV_TRACKING;
	rev[2].pd.attr.sample_id_all = 1;
	rev[2].pd.attr.sample_type =
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	ce[0] = (struct cr_event){ .fixed = 64, .tp_id = 316, .skip = cr_skip_words(sw) };
	ce[1] = (struct cr_event){ .fixed = 36, .tp_id = 318 };
	ring_init(&m, 12, 8);
	ring_init(&sp, 12, 1);
	r.cr_elem = m.l.elem;
	/* sched_wakeup of 100 "oldname" at 500 */
	memset(rec, 0, sizeof(rec));
	rec[0] = 318 & 0xff;
	rec[1] = 318 >> 8;
	memcpy(&rec[8], "oldname", 8);
	memcpy(&rec[24], &(uint32_t){ 100 }, 4);
	CHECK(cr_put(m.mem, &m.l, &m.w, 1, rec, 36, &ce[1], 500));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		memset(rec, 0, sizeof(rec));
		rec[0] = 316 & 0xff;
		rec[1] = 316 >> 8;
		memcpy(&rec[4], &want[i].prev, 4);
		memcpy(&rec[8], "written anyway", 15); /* left out: never read */
		memcpy(&rec[24], &want[i].prev, 4);
		memcpy(&rec[56], &want[i].next, 4);
		CHECK(cr_put(m.mem, &m.l, &m.w, 0, rec, 64, &ce[0], want[i].t));
	}
	tl += put_comm_rec(trk + tl, 400, "late", 5000);
	tl += put_comm_rec(trk + tl, 100, "newname", 2000);
	mlen = REC_CR_HDR + 8 * m.l.elem;
	buf = calloc(1, mlen + REC_CR_HDR + sp.l.elem);
	CHECK(buf);
	hdr.head_before = hdr.head_after = m.w.head;
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + REC_CR_HDR, m.mem, 8 * m.l.elem);
	copies[0] = (struct ring_copy){ .buf = buf, .cap = mlen, .len = mlen };
	copies[1] = (struct ring_copy){ .buf = buf + mlen,
					.cap = REC_CR_HDR + sp.l.elem,
					.len = REC_CR_HDR + sp.l.elem };
	copies[2] = (struct ring_copy){ .buf = trk, .cap = sizeof(trk), .len = tl };
	CHECK_EQ(bpfrec__convert(&r, &h, &s, &st), 0);
	CHECK_EQ(st.records, 5);
	for (size_t off = 0; off < h.rings[0].len;) {
		const struct perf_event_header *ph =
			(const void *)((uint8_t *)h.rings[0].buf + off);
		const uint8_t *d;
		uint64_t t;

		off += ph->size;
		if (ph->size < 8 || ph->type != PERF_RECORD_SAMPLE)
			continue;
		/* The stub is the size the index counts, not the sample's. */
		CHECK_EQ(ph->size, BPFREC_STUB_SIZE);
		CHECK_EQ(bpfrec__expand(&r, &s, 0, ph, 1, xbuf, sizeof(xbuf), &ph), 0);
		d = (const uint8_t *)ph + 28;
		if (d[0] != (316 & 0xff))
			continue;
		CHECK_EQ(ph->size, 96); /* 8 + 8 id + 8 time + 4 + 64, padded to 8 */
		memcpy(&t, (const uint8_t *)ph + 16, 8);
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			if (want[i].t != t)
				continue;
			found++;
			CHECK_STR((const char *)d + 8, want[i].pname);
			CHECK_STR((const char *)d + 40, want[i].nname);
			CHECK(!memcmp(d + 24, &want[i].prev, 4) &&
			      !memcmp(d + 56, &want[i].next, 4));
		}
	}
	CHECK_EQ(found, 4);
	bpfrec__restore(&h, &s);
	bpfrec_scratch__free(&s);
	free(buf);
	free(m.mem);
	free(sp.mem);
	tp_format__free(sw);
	tp_format__free(wk);
	return 0;
}

RUN_TESTS(T(round_trip_not_wrapped), T(bytes_per_record), T(same_task_pid_from_block_header),
	  T(skip_words_of_sched_switch), T(names_by_time), T(wrapped_many_times),
	  T(torn_record_ends_its_block_only), T(lost_block_header_skips_that_block),
	  T(head_moved_during_copy), T(garbage_does_not_crash), T(fuzz_seeds))
