// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The trigger engine's logic (bpf/engine.bpf.h) run as userspace C
 * (src/replay/engine_host.c), as the kernel's BPF selftests test program
 * logic: triggers compiled from text against synthetic formats, records fed
 * one by one, and the exact record (time, task, data) of each firing
 * checked against what the side-band message says.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "capture/recorder.h"
#include "capture/tracefs.h"
#include "engine/bpfctl.h"
#include "lang/trigger_lang.h"
#include "replay/engine_host.h"
#include "replay/replay.h"
#include "trig_formats.h"
#include "trigrec.skel.h"

#define MS 1000000ull
#define S 1000000000ull

/* test:ev's record (trig_formats.h). */
struct ev_rec {
	uint16_t type;
	uint8_t flags, pc;
	int32_t common_pid;
	int32_t a;
	uint8_t b, pad0;
	int16_t h;
	int64_t c;
	uint32_t d;
	char s[16];
	uint32_t dl;
	uint64_t args[2];
	uint64_t x;
	int32_t count, key, pid, pad1;
	uint64_t sysarg, fname;
};
_Static_assert(offsetof(struct ev_rec, key) == 76 && sizeof(struct ev_rec) == 104, "test:ev");

static struct tp_format *fmts[3];

static void formats(void)
{
	if (!fmts[0]) {
		fmts[0] = tp_format__parse("test", "ev", fmt_ev, sizeof(fmt_ev) - 1);
		fmts[1] = tp_format__parse("test", "ev2", fmt_ev2, sizeof(fmt_ev2) - 1);
		fmts[2] = tp_format__parse("other", "thing", fmt_thing, sizeof(fmt_thing) - 1);
	}
	trig_set_formats((const struct tp_format *const *)fmts, 3);
}

#define MAX_FIRES 64
static struct trigrec_trigger_msg_learn fires[MAX_FIRES];
static int nfires;

static void on_fire(const struct trigrec_trigger_msg_learn *m, void *arg)
{
	if (nfires < MAX_FIRES)
		fires[nfires] = *m;
	nfires++;
}

static struct trig_def defs[4];
static struct trigrec_hook_cfg hooks[3];

/* Compile texts into triggers 0..n-1 and load them; 0 or -1 (after saying why). */
static int load(const char *const *texts, int n, int need_freeze)
{
	struct trigrec_trigger_cfg cfgs[4];
	struct eh_opts o = { .ring_mode = 1, .need_freeze = need_freeze, .on_fire = on_fire };

	formats();
	for (int i = 0; i < n; i++) {
		struct tl_error e;

		if (trig_from_text(texts[i], &defs[i], &e)) {
			fprintf(stderr, "    %s: %d:%d: %s\n", texts[i], e.pos.line, e.pos.col,
				e.msg);
			return -1;
		}
		cfgs[i] = defs[i].cfg;
		if (bpfctl__task_keyed(&cfgs[i]))
			cfgs[i].flags |= TRIGREC_TF_TASK_KEY;
	}
	if (replay_plan((const struct tp_format *const *)fmts, 3, defs, n, hooks))
		return -1;
	nfires = 0;
	return eh_reset(cfgs, n, &o);
}

/* One test:ev record at time t (ns) on cpu, by thread tid of process pid. */
static int feed(uint64_t t, uint32_t cpu, uint32_t tid, const struct ev_rec *r)
{
	struct eh_task k = { .time = t, .pid = 100, .tid = tid, .cpu = cpu };

	snprintf(k.comm, sizeof(k.comm), "w%u", tid);
	return eh_record(&hooks[0], 0, &k, r, sizeof(*r));
}

static struct ev_rec ev(int a, int b, int key)
{
	struct ev_rec r = { .type = 9001, .a = a, .b = (uint8_t)b, .key = key };

	return r;
}

static int32_t fired_a(int i)
{
	int32_t a;

	memcpy(&a, &fires[i].m.data[8], 4);
	return a;
}

TEST(event_conditions)
{
	const char *t[] = { "test:ev if a > 5 && b == 1 || s == \"zz\" name e1 limit none" };
	struct ev_rec r;

	CHECK_EQ(load(t, 1, 0), 0);
	r = ev(3, 1, 0);
	CHECK_EQ(feed(1 * S, 0, 10, &r), 0);
	r = ev(7, 0, 0);
	CHECK_EQ(feed(2 * S, 1, 11, &r), 0);
	r = ev(7, 1, 0);
	CHECK_EQ(feed(3 * S, 1, 12, &r), 1);
	r = ev(1, 0, 0);
	memcpy(r.s, "zz", 3);
	CHECK_EQ(feed(4 * S, 0, 13, &r), 1);
	CHECK_EQ(nfires, 2);
	/* The exact records: time, task, CPU, comm, the record's bytes (common_pid fixed). */
	CHECK_EQ(fires[0].m.time_ns, 3 * S);
	CHECK_EQ(fires[0].m.tid, 12);
	CHECK_EQ(fires[0].m.pid, 100);
	CHECK_EQ(fires[0].m.cpu, 1);
	CHECK_STR(fires[0].m.comm, "w12");
	CHECK_EQ(fired_a(0), 7);
	CHECK_EQ(fires[0].m.data_size, TRIGREC_TRIGGER_DATA); /* 104 + 256 read, 256 sent */
	CHECK_EQ(fires[0].m.data[12], 1);
	CHECK_EQ(*(int32_t *)&fires[0].m.data[4], 12);
	CHECK_EQ(fires[0].m.trigger_id, 0);
	CHECK_EQ(fires[1].m.time_ns, 4 * S);
	CHECK_EQ(fires[1].m.tid, 13);
	CHECK_EQ(fired_a(1), 1);
	return 0;
}

TEST(count_at_least)
{
	const char *t[] = { "test:ev if a == 1 count >= 3 limit none" };
	int fired[6] = { 0 };

	CHECK_EQ(load(t, 1, 0), 0);
	for (int i = 0; i < 6; i++) {
		struct ev_rec r = ev(i == 1 ? 2 : 1, 0, 0); /* the second does not match */

		fired[i] = feed((uint64_t)(i + 1) * S, 0, 20 + i, &r);
	}
	/* Matches 1, 2 (records 0, 2) count; the third match (record 3) fires, then every one. */
	CHECK_EQ(fired[0] + fired[1] + fired[2], 0);
	CHECK_EQ(fired[3] && fired[4] && fired[5], 1);
	CHECK_EQ(nfires, 3);
	CHECK_EQ(fires[0].m.tid, 23);
	CHECK_EQ(fires[0].m.count, 3);
	CHECK_EQ(fires[2].m.count, 5);
	return 0;
}

TEST(latency_by_key)
{
	const char *t[] = { "latency test:ev if b == 0 by key -> test:ev if b == 1 by key > 10ms "
			    "limit none" };
	struct ev_rec r;

	CHECK_EQ(load(t, 1, 0), 0);
	r = ev(0, 0, 1);
	feed(100 * MS, 0, 30, &r); /* key 1 starts */
	r = ev(0, 0, 2);
	feed(101 * MS, 1, 31, &r); /* key 2 starts */
	r = ev(0, 1, 2);
	CHECK_EQ(feed(105 * MS, 1, 32, &r), 0); /* key 2: 4 ms */
	r = ev(0, 1, 3);
	CHECK_EQ(feed(130 * MS, 0, 33, &r), 0); /* key 3 never started */
	r = ev(5, 1, 1);
	CHECK_EQ(feed(120 * MS + 1, 0, 34, &r), 1); /* key 1: 20 ms + 1 ns */
	CHECK_EQ(nfires, 1);
	CHECK_EQ(fires[0].m.latency_ns, 20 * MS + 1);
	CHECK_EQ(fires[0].m.start_ns, 100 * MS);
	CHECK_EQ(fires[0].m.start_tid, 30);
	CHECK_EQ(fires[0].m.tid, 34);
	CHECK_EQ(fires[0].m.key[0], 1);
	CHECK_EQ(fired_a(0), 5);
	/* The span ended: the same end again finds no start. */
	CHECK_EQ(feed(140 * MS, 0, 34, &r), 0);
	/* Near misses: the 4 ms span of key 2. */
	{
		struct trigrec_near_miss nm;

		CHECK_EQ(eh_near_miss(0, &nm), 0);
		CHECK_EQ(nm.all[0], 4 * MS);
	}
	return 0;
}

TEST(rate_by_key)
{
	const char *t[] = { "rate test:ev by key > 3/1s limit none" };
	int f = 0;

	CHECK_EQ(load(t, 1, 0), 0);
	for (int i = 0; i < 3; i++) {
		struct ev_rec r6 = ev(i, 0, 6);

		f |= feed(S + (uint64_t)i * 100 * MS, 0, 40, &r6); /* key 6: 3 in 1 s */
	}
	CHECK_EQ(f, 0);
	for (int i = 0; i < 4; i++) {
		struct ev_rec r5 = ev(10 + i, 0, 5);

		f = feed(2 * S + (uint64_t)i * 200 * MS, 1, 41 + i, &r5);
		CHECK_EQ(f, i == 3);
	}
	CHECK_EQ(nfires, 1);
	CHECK_EQ(fires[0].m.count, 4);
	CHECK_EQ(fires[0].m.key[0], 5);
	CHECK_EQ(fires[0].m.start_ns, 2 * S);
	CHECK_EQ(fires[0].m.tid, 44);
	CHECK_EQ(fired_a(0), 13);
	/* Key 5 again, in a new window: 3 more do not fire. */
	for (int i = 0; i < 3; i++) {
		struct ev_rec r5 = ev(0, 0, 5);

		CHECK_EQ(feed(4 * S + (uint64_t)i, 1, 45, &r5), 0);
	}
	return 0;
}

/* One key's near misses (key_nm) as kept, or all zero. */
static struct trigrec_key_nm key_nm(uint64_t key)
{
	struct trigrec_key_nm e;
	uint64_t k[TRIGREC_MAX_KEY_PARTS] = { key, 0 };

	if (eh_key_near_miss(0, k, &e))
		memset(&e, 0, sizeof(e));
	return e;
}

TEST(latency_near_misses_per_key)
{
	const char *t[] = { "latency test:ev if b == 0 by key -> test:ev if b == 1 by key > 10ms "
			    "limit none" };
	static const struct {
		uint64_t start, end;
		int key, fires;
	} spans[] = {
		{ 100, 104, 1, 0 }, { 110, 116, 1, 0 }, { 120, 123, 1, 0 }, { 130, 138, 2, 0 },
		{ 140, 142, 2, 0 }, { 150, 162, 1, 1 }, /* 12 ms: fires, not a near miss */
		{ 170, 175, 2, 0 }, { 180, 181, 1, 0 },
	};
	struct bpfctl_key_nm top[BPF_NM_KEYS];
	struct trigrec_key_nm k1, k2;
	int n = 0;

	CHECK_EQ(load(t, 1, 0), 0);
	for (size_t i = 0; i < sizeof(spans) / sizeof(spans[0]); i++) {
		struct ev_rec r = ev(0, 0, spans[i].key);

		feed(spans[i].start * MS, 0, 30, &r);
		r = ev(0, 1, spans[i].key);
		CHECK_EQ(feed(spans[i].end * MS, 0, 31, &r), spans[i].fires);
	}
	CHECK_EQ(nfires, 1);
	k1 = key_nm(1);
	k2 = key_nm(2);
	/* Since the start, largest first; the 12 ms that fired is in neither. */
	CHECK_EQ(k1.all[0], 6 * MS);
	CHECK_EQ(k1.all[1], 4 * MS);
	CHECK_EQ(k1.all[2], 3 * MS);
	CHECK_EQ(k1.all[3], 1 * MS);
	CHECK_EQ(k2.all[0], 8 * MS);
	CHECK_EQ(k2.all[1], 5 * MS);
	CHECK_EQ(k2.all[2], 2 * MS);
	CHECK_EQ(k2.all[3], 0);
	/* Since the firing (epoch 1): only what came after it. */
	CHECK_EQ(k1.epoch, 1);
	CHECK_EQ(k1.last[0], 1 * MS);
	CHECK_EQ(k1.last[1], 0);
	CHECK_EQ(k2.epoch, 1);
	CHECK_EQ(k2.last[0], 5 * MS);
	CHECK_EQ(k2.last[1], 0);
	/* The per-trigger near misses still see every key. */
	{
		struct trigrec_near_miss nm;

		CHECK_EQ(eh_near_miss(0, &nm), 0);
		CHECK_EQ(nm.all[0], 8 * MS);
		CHECK_EQ(nm.all[1], 6 * MS);
	}
	/* The top keys, as status lists them: key 2 (8 ms) first. */
	{
		uint64_t key1[2] = { 1, 0 }, key2[2] = { 2, 0 };

		bpfctl__key_nm_add(top, &n, key1, &k1, 1);
		bpfctl__key_nm_add(top, &n, key2, &k2, 1);
	}
	CHECK_EQ(n, 2);
	CHECK_EQ(top[0].key[0], 2);
	CHECK_EQ(top[0].all[0], 8 * MS);
	CHECK_EQ(top[0].last[0], 5 * MS);
	CHECK_EQ(top[1].key[0], 1);
	CHECK_EQ(top[1].last[0], 1 * MS);
	/* Read after another firing: last[] of an older epoch is empty. */
	n = 0;
	bpfctl__key_nm_add(top, &n, top[1].key, &k1, 2);
	CHECK_EQ(top[0].all[0], 6 * MS);
	CHECK_EQ(top[0].last[0], 0);
	return 0;
}

TEST(rate_near_misses_per_key)
{
	const char *t[] = { "rate test:ev by key > 3/1s limit none" };
	static const struct {
		uint64_t ms;
		int key, fires;
	} evs[] = {
		{ 1000, 6, 0 }, { 1100, 6, 0 }, /* key 6: 2 in its window */
		{ 2500, 6, 0 },			/* closes it: 2, a near miss */
		{ 3000, 5, 0 }, { 3100, 5, 0 },
		{ 3200, 5, 0 }, { 3300, 5, 1 }, /* 4 > 3: fires, not a near miss */
		{ 5000, 5, 0 }, { 5100, 5, 0 }, /* key 5: 2 in a window after the firing */
		{ 6500, 5, 0 },			/* closes it: 2 */
		{ 7000, 6, 0 },			/* closes key 6's window from 2.5 s: 1 */
	};
	struct trigrec_key_nm k5, k6;

	CHECK_EQ(load(t, 1, 0), 0);
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		struct ev_rec r = ev((int)i, 0, evs[i].key);

		CHECK_EQ(feed(evs[i].ms * MS, 0, 40, &r), evs[i].fires);
	}
	CHECK_EQ(nfires, 1);
	k5 = key_nm(5);
	k6 = key_nm(6);
	CHECK_EQ(k5.all[0], 2);
	CHECK_EQ(k5.all[1], 0);
	CHECK_EQ(k5.epoch, 1);
	CHECK_EQ(k5.last[0], 2);
	CHECK_EQ(k6.all[0], 2);
	CHECK_EQ(k6.all[1], 1);
	CHECK_EQ(k6.epoch, 1);
	CHECK_EQ(k6.last[0], 1);
	CHECK_EQ(k6.last[1], 0);
	return 0;
}

TEST(learned_threshold)
{
	const char *t[] = {
		"latency test:ev if b == 0 by tid -> test:ev if b == 1 by tid > p99 * 2 "
		"after 100 samples limit none"
	};
	uint64_t now = S;
	int early = 0;

	CHECK_EQ(load(t, 1, 0), 0);
	CHECK(defs[0].cfg.learn_pct != 0);
	/* 300 spans of 1.0-1.9 ms: none is above twice the key's p99, none fires. */
	for (int i = 0; i < 300; i++) {
		struct ev_rec st = ev(0, 0, 0), en = ev(i, 1, 0);

		feed(now, 0, 50, &st);
		now += MS + (uint64_t)(i % 10) * 100000;
		early += feed(now, 0, 50, &en);
		now += MS;
	}
	CHECK_EQ(early, 0);
	/* An outlier: 10 ms. */
	{
		struct ev_rec st = ev(0, 0, 0), en = ev(777, 1, 0);

		feed(now, 2, 50, &st);
		CHECK_EQ(feed(now + 10 * MS, 2, 50, &en), 1);
	}
	CHECK_EQ(nfires, 1);
	CHECK_EQ(fired_a(0), 777);
	CHECK_EQ(fires[0].m.latency_ns, 10 * MS);
	CHECK_EQ(fires[0].m.cpu, 2);
	CHECK_EQ(fires[0].samples, 300);
	/* The key's p99 of 1.0-1.9 ms spans: 1.9 ms within a bucket (3.1 %). */
	CHECK(fires[0].pct_ns > 1840000 && fires[0].pct_ns < 1970000);
	CHECK_EQ(fires[0].threshold_ns, fires[0].pct_ns * 2);
	{
		uint64_t sum = 0;

		for (unsigned int b = 0; b < TRIGREC_HIST_BUCKETS; b++)
			sum += fires[0].counts[b];
		/*
		 * total is what the key had before the span; the histogram is
		 * copied at the firing, after learn_sample() added it: one more.
		 */
		CHECK_EQ(sum, fires[0].total + 1);
	}
	/* A thread that has not warmed up does not fire on its first 10 ms span. */
	{
		struct ev_rec st = ev(0, 0, 0), en = ev(1, 1, 0);

		feed(now + S, 0, 51, &st);
		CHECK_EQ(feed(now + S + 10 * MS, 0, 51, &en), 0);
	}
	/*
	 * Per key (the thread): 50's largest spans, from before the firing
	 * (epoch 0: its "since the last snapshot" list is stale); 51's warm-up
	 * span, after it.
	 */
	{
		struct trigrec_key_nm k50 = key_nm(50), k51 = key_nm(51);

		for (int i = 0; i < TRIGREC_NEAR_MISS; i++)
			CHECK_EQ(k50.all[i], 1900000);
		CHECK_EQ(k50.epoch, 0);
		CHECK_EQ(k51.all[0], 10 * MS);
		CHECK_EQ(k51.all[1], 0);
		CHECK_EQ(k51.epoch, 1);
		CHECK_EQ(k51.last[0], 10 * MS);
	}
	return 0;
}

/* One span of thread tid: start at *now, end dur later on cpu; 1 = it fired. */
static int span(uint64_t *now, uint32_t tid, uint64_t dur, int a)
{
	struct ev_rec st = ev(0, 0, 0), en = ev(a, 1, 0);
	int r;

	feed(*now, 0, tid, &st);
	r = feed(*now + dur, 0, tid, &en);
	*now += dur + MS;
	return r;
}

/*
 * With `by`, all keys' spans also go into one histogram (learn_all) that
 * the firing reports beside the key's, and that judges no key: key 50 at
 * 1 ms and key 51 at 10 ms learn apart, 50 fires on 5 ms (its own
 * outlier, under all keys' p99), 51 does not on 15 ms, and a new key does
 * not fire on 50 ms (far above all keys' threshold) before its own warm-up.
 */
TEST(learned_all_keys)
{
	const char *t[] = {
		"latency test:ev if b == 0 by tid -> test:ev if b == 1 by tid > p99 * 2 "
		"after 100 samples limit none"
	};
	uint32_t want[TRIGREC_HIST_BUCKETS] = { 0 };
	uint64_t now = S, sum = 0;
	int early = 0;

	CHECK_EQ(load(t, 1, 0), 0);
	for (int i = 0; i < 200; i++) {
		early += span(&now, 50, 1 * MS, i);
		early += span(&now, 51, 10 * MS, i);
	}
	CHECK_EQ(early, 0);
	/* A new key: 50 ms, above all keys' p99 x 2 (~20 ms), still warming up. */
	CHECK_EQ(span(&now, 52, 50 * MS, 1), 0);
	/* Key 51: 15 ms, under its own p99 x 2 (~20 ms). */
	CHECK_EQ(span(&now, 51, 15 * MS, 2), 0);
	/* Key 50: 5 ms, above its own 2 ms, under all keys' 20 ms: fires. */
	CHECK_EQ(span(&now, 50, 5 * MS, 777), 1);
	CHECK_EQ(nfires, 1);
	CHECK_EQ(fired_a(0), 777);
	CHECK_EQ(fires[0].samples, 200);
	/* The key's p99, computed at its 1st span and every 16 after: last at 193 of 1 ms. */
	want[trigrec_hist_bucket(MS)] = 193;
	CHECK_EQ(fires[0].pct_ns, trigrec_hist_percentile(want, 99000));
	/* All keys: 402 spans before this one, the last recompute at 401 (the 50 ms one in). */
	CHECK_EQ(fires[0].all_samples, 402);
	CHECK_EQ(fires[0].all_total, 402);
	want[trigrec_hist_bucket(MS)] = 200;
	want[trigrec_hist_bucket(10 * MS)] = 200;
	want[trigrec_hist_bucket(50 * MS)] = 1;
	CHECK_EQ(fires[0].all_pct_ns, trigrec_hist_percentile(want, 99000));
	CHECK(fires[0].all_pct_ns >= 10 * MS && fires[0].all_pct_ns < 10 * MS + 10 * MS / 32);
	CHECK_EQ(fires[0].all_threshold_ns, fires[0].all_pct_ns * 2);
	/* The histogram at the firing: every span, the firing one included. */
	want[trigrec_hist_bucket(15 * MS)]++;
	want[trigrec_hist_bucket(5 * MS)]++;
	for (unsigned int b = 0; b < TRIGREC_HIST_BUCKETS; b++) {
		if (fires[0].all_counts[b] != want[b])
			fprintf(stderr, "    bucket %u: %u, want %u\n", b, fires[0].all_counts[b],
				want[b]);
		CHECK_EQ(fires[0].all_counts[b], want[b]);
		sum += fires[0].counts[b];
	}
	CHECK_EQ(sum, 201);
	return 0;
}

/*
 * All keys' histogram is fed by every CPU: a span that ends on one CPU
 * stamped a moment before the time another CPU just halved it at is no
 * reason to halve it again. Unsigned, that difference wrapped to 31
 * half-lives and emptied it.
 */
TEST(learned_all_keys_halving)
{
	const char *t[] = {
		"latency test:ev if b == 0 by tid -> test:ev if b == 1 by tid > p99 * 2 "
		"after 100 samples limit none"
	};
	uint64_t now = S;

	CHECK_EQ(load(t, 1, 0), 0);
	for (int i = 0; i < 200; i++)
		CHECK_EQ(span(&now, 50, MS, i), 0);
	/* 60 s on: key 50's span halves both its histogram and all keys' (200 -> 100). */
	now = 62 * S;
	CHECK_EQ(span(&now, 50, MS, 1), 0);
	/* Key 51's span, stamped 1 ms before that halving, on another CPU. */
	{
		struct ev_rec st = ev(0, 0, 0), en = ev(2, 1, 0);

		feed(62 * S - 5 * MS, 1, 51, &st);
		CHECK_EQ(feed(62 * S, 1, 51, &en), 0);
	}
	/* Key 50's outlier fires; all keys had 100 + 1 + 1 spans, not a wiped histogram. */
	CHECK_EQ(span(&now, 50, 10 * MS, 777), 1);
	CHECK_EQ(nfires, 1);
	CHECK_EQ(fires[0].all_samples, 202);
	CHECK_EQ(fires[0].all_total, 102);
	CHECK_EQ(fires[0].total, 101);
	return 0;
}

/*
 * Without `by`: one histogram for all spans (learn_all), which judges; the
 * firing carries it as the key's and nothing beside it.
 */
TEST(learned_unkeyed)
{
	const char *t[] = { "latency test:ev if b == 0 -> test:ev if b == 1 > p99 * 2 "
			    "after 100 samples limit none" };
	uint64_t now = S;
	int early = 0;

	CHECK_EQ(load(t, 1, 0), 0);
	CHECK(defs[0].cfg.flags & TRIGREC_TF_LEARN_ALL);
	for (int i = 0; i < 100; i++) {
		early += span(&now, 50, 1 * MS, i);
		early += span(&now, 51, 10 * MS, i);
	}
	/* 51's 10 ms spans before the first recompute at 16 (p99 1 ms) are not judged: warm-up. */
	CHECK_EQ(early, 0);
	CHECK_EQ(span(&now, 52, 25 * MS, 777), 1);
	CHECK_EQ(nfires, 1);
	CHECK_EQ(fires[0].samples, 200);
	CHECK(fires[0].pct_ns >= 10 * MS && fires[0].pct_ns < 10 * MS + 10 * MS / 32);
	CHECK_EQ(fires[0].all_samples, 0);
	CHECK_EQ(fires[0].all_pct_ns, 0);
	return 0;
}

TEST(post_coalesces_in_ring_sets)
{
	const char *t[] = { "test:ev if a == 1 post 100ms limit none" };
	struct ev_rec r = ev(1, 0, 0);
	struct trigrec_stats st;

	CHECK_EQ(load(t, 1, 0), 0);
	CHECK_EQ(feed(1 * S, 0, 60, &r), 1);
	CHECK_EQ(feed(1 * S + 100 * MS, 0, 61, &r), 0); /* inside the window: part of it */
	CHECK_EQ(feed(1 * S + 100 * MS + 1, 0, 62, &r), 1);
	CHECK_EQ(nfires, 2);
	CHECK_EQ(fires[0].m.freeze_at, 1 * S + 100 * MS);
	CHECK_EQ(fires[1].m.tid, 62);
	CHECK_EQ(eh_stats(0, &st), 0);
	CHECK_EQ(st.coalesced, 1);
	CHECK_EQ(st.fired, 2);
	CHECK_EQ(st.evaluated, 3);
	return 0;
}

TEST(post_with_a_freeze)
{
	const char *t[] = { "test:ev if a == 1 post 50ms limit none" };
	struct ev_rec r = ev(1, 0, 0);

	CHECK_EQ(load(t, 1, 1), 0);
	CHECK_EQ(feed(1 * S, 0, 60, &r), 1);
	CHECK_EQ(feed(1 * S + 50 * MS, 0, 61, &r), 0); /* frozen until the cut */
	CHECK_EQ(feed(1 * S + 50 * MS + 1, 0, 62, &r), 1);
	CHECK_EQ(nfires, 2);
	return 0;
}

TEST(policies)
{
	const char *t[] = { "test:ev if a == 1 max 2 limit none",
			    "test:ev if a == 2 cooldown 1s limit none",
			    "test:ev if a == 3 limit 2/10s" };
	struct trigrec_stats st;
	uint64_t now = S;
	int f[3] = { 0 };

	CHECK_EQ(load(t, 3, 0), 0);
	for (int i = 0; i < 4; i++) {
		struct ev_rec r = ev(1, 0, 0);

		f[0] += feed(now += 10 * MS, 0, 70, &r);
	}
	CHECK_EQ(f[0], 2); /* max 2 */
	CHECK_EQ(eh_stats(0, &st), 0);
	CHECK_EQ(st.suppressed_limit, 2);
	for (int i = 0; i < 4; i++) {
		struct ev_rec r = ev(2, 0, 0);

		f[1] += feed(now += 400 * MS, 0, 71, &r); /* 0, 0.4, 0.8, 1.2 s on: 1st and 4th */
	}
	CHECK_EQ(f[1], 2);
	CHECK_EQ(eh_stats(1, &st), 0);
	CHECK_EQ(st.suppressed_cooldown, 2);
	for (int i = 0; i < 4; i++) {
		struct ev_rec r = ev(3, 0, 0);

		f[2] += feed(now += 10 * MS, 0, 72, &r);
	}
	CHECK_EQ(f[2], 2); /* limit 2/10s */
	CHECK_EQ(nfires, 6);
	return 0;
}

/* Strings behind pointers are not in a recording: the clause faults, as a bad address does. */
TEST(str_faults)
{
	const char *t[] = { "test:ev if str(fname) == \"x\" limit none" };
	struct ev_rec r = ev(0, 0, 0);
	struct trigrec_stats st;

	CHECK_EQ(load(t, 1, 0), 0);
	r.fname = 0x1000;
	CHECK_EQ(feed(S, 0, 80, &r), 0);
	CHECK_EQ(eh_stats(0, &st), 0);
	CHECK_EQ(st.str_faults, 1);
	return 0;
}

/* trigrec test refuses what a recording cannot answer, with the trigger's line. */
TEST(replay_refuses)
{
	const char *t[] = { "test:ev if str(fname) == \"x\"", "test:ev if cgroup == 5" };
	const char *paths[] = { "f.data" };
	struct replay rp = { .paths = paths, .nr_files = 1 };
	struct cfg_origin o[1] = { { .file = "s.trig", .line = 7 } };
	char err[512];

	formats();
	rp.fmts = (const struct tp_format **)fmts;
	rp.nr_fmts = 1; /* test:ev only */
	for (int i = 0; i < 2; i++) {
		struct tl_error e;

		if (trig_from_text(t[i], &defs[0], &e)) {
			if (i == 1)
				continue; /* `cgroup ==` takes a path: the language refuses a number */
			CHECK(0);
			continue;
		}
		CHECK_EQ(replay_check(&rp, defs, 1, o, err, sizeof(err)), -EINVAL);
		CHECK(strstr(err, "(s.trig:7)") != NULL);
		CHECK(strstr(err, "cannot be replayed") != NULL);
	}
	CHECK_EQ(trig_from_text("test:ev2 if a == 1", &defs[0], &(struct tl_error){ 0 }), 0);
	/* trigrec test resolves events against the files' formats only: test:ev here */
	trig_set_formats((const struct tp_format *const *)fmts, 1);
	CHECK_EQ(replay_check(&rp, defs, 1, o, err, sizeof(err)), -EINVAL);
	formats();
	CHECK(strstr(err, "needs test:ev2, which f.data did not record") != NULL);
	CHECK(strstr(err, "-e test:ev2") != NULL);
	/* two files: said once, not "none of the files did not record" */
	rp.nr_files = 2;
	trig_set_formats((const struct tp_format *const *)fmts, 1);
	CHECK_EQ(replay_check(&rp, defs, 1, o, err, sizeof(err)), -EINVAL);
	formats();
	CHECK(strstr(err, "needs test:ev2, which none of the 2 files recorded: record it") != NULL);
	rp.nr_files = 1;
	CHECK_EQ(trig_from_text("test:ev if a == 1", &defs[0], &(struct tl_error){ 0 }), 0);
	CHECK_EQ(replay_check(&rp, defs, 1, o, err, sizeof(err)), 0);
	return 0;
}

/* ---- trigrec test's reader: one pass per file, merged in time order ---- */

#define FIXTURE "tests/fuzz/corpus/perfdata/fixture-why-ins" /* 15 records, 8 events */
#define FIXTURE_ZSTD "tests/fuzz/corpus/perfdata/fixture-zstd"

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
	    (b = malloc(n)) && fread(b, 1, n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	*len = b ? (size_t)n : 0;
	fclose(f);
	return b;
}

/* With TRIGREC_FUZZ_SEEDS=DIR, a file this test made into DIR (fuzz_replay's seeds). */
static void seed(const char *name, const uint8_t *b, size_t len)
{
	const char *dir = getenv("TRIGREC_FUZZ_SEEDS");
	char path[4096];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	CHECK(f != NULL);
	if (f) {
		CHECK_EQ(fwrite(b, 1, len, f), len);
		fclose(f);
	}
}

/* Every sample of the file in buf one ns later (patched in place), so two copies interleave. */
static int shift_times(uint8_t *buf, size_t len)
{
	char err[512];
	struct pdr_file *f = pdr_open_mem(buf, len, err, sizeof(err));
	int n = 0;

	if (!f)
		return -1;
	for (size_t i = 0; i < f->nr_recs; i++) {
		const uint8_t *h = (const uint8_t *)f->recs[i].hdr;
		size_t sz = f->recs[i].hdr->size;

		if (!f->recs[i].raw || h < buf || h >= buf + len)
			continue;
		/* the TIME field: after the header and the IDENTIFIER, the first u64 equal to it */
		for (size_t o = 16; o + 8 <= sz; o += 8) {
			uint64_t v;

			memcpy(&v, h + o, 8);
			if (v == f->recs[i].time) {
				v++;
				memcpy(buf + (h - buf) + o, &v, 8);
				n++;
				break;
			}
		}
	}
	pdr_close(f);
	return n;
}

struct seen {
	int n;
	int file[64];
	uint64_t time[64];
};

static void seen_fire(const struct replay_fire *f, void *arg)
{
	struct seen *s = arg;

	if (s->n < 64) {
		s->file[s->n] = f->file;
		s->time[s->n] = f->m->m.time_ns;
	}
	s->n++;
}

/* Streams of the given buffers (each opened with PDR_STREAM), through "every record fires". */
static struct replay *stream_of(uint8_t *const *bufs, const size_t *lens, int n, char *err,
				size_t errlen)
{
	static const char *const names[] = { "a.data", "b.data", "c.data" };
	struct replay *rp = replay_new();

	for (int i = 0; rp && i < n; i++) {
		struct pdr_file *f = pdr_open_mem_flags(bufs[i], lens[i], PDR_STREAM, err, errlen);

		if (!f || replay_add(rp, f, names[i])) {
			replay_close(rp);
			return NULL;
		}
		CHECK(f->recs == NULL); /* no index: the records are read as they are merged */
	}
	return rp;
}

static int run_all(struct replay *rp, const char *text, struct seen *s)
{
	struct eh_opts o = { .ring_mode = 1 };
	struct tl_error e;
	int ret;

	trig_set_formats(rp->fmts, rp->nr_fmts);
	memset(s, 0, sizeof(*s));
	ret = trig_from_text(text, &defs[0], &e) ? -1 : replay_run(rp, defs, 1, &o, seen_fire, s);
	trig_set_formats(NULL, 0);
	return ret;
}

/* replay_open() reads no record: the run walks each file once (no index of every record). */
TEST(replay_open_builds_no_index)
{
	const char *paths[] = { FIXTURE };
	char err[512];
	struct replay *rp;
	struct seen s;

	if (access(FIXTURE, R_OK))
		SKIP("no " FIXTURE " here (run from the source tree)");
	rp = replay_open(paths, 1, err, sizeof(err));
	CHECK(rp != NULL);
	if (!rp)
		return 0;
	CHECK(rp->files[0]->recs == NULL);
	CHECK_EQ(rp->files[0]->nr_recs, 0);
	CHECK_EQ(run_all(rp, "raw_syscalls:sys_enter limit none", &s), 0);
	CHECK_EQ(s.n, 3); /* the fixture's three system call entries, each once */
	CHECK_EQ(rp->evaluated, 3);
	replay_close(rp);
	eh_free();
	return 0;
}

/* Two files whose records interleave: evaluated in time order, alternating, each once. */
TEST(replay_merges_files_in_time_order)
{
	uint8_t *b[2];
	size_t len[2];
	char err[512];
	struct replay *rp;
	struct seen s;

	b[0] = slurp(FIXTURE, &len[0]);
	b[1] = slurp(FIXTURE, &len[1]);
	if (!b[0] || !b[1]) {
		free(b[0]);
		free(b[1]);
		SKIP("no " FIXTURE " here (run from the source tree)");
	}
	CHECK_EQ(shift_times(b[1], len[1]), 15);
	rp = stream_of(b, len, 2, err, sizeof(err));
	CHECK(rp != NULL);
	if (rp) {
		CHECK_EQ(run_all(rp, "sched:sched_switch limit none", &s), 0);
		CHECK_EQ(s.n, 6);
		for (int i = 0; i < 6 && i < s.n; i++) {
			CHECK_EQ(s.file[i], i % 2); /* a.data's record, then b.data's 1 ns later */
			if (i)
				CHECK(s.time[i] > s.time[i - 1]);
		}
		CHECK_EQ(rp->duplicates, 0);
		CHECK_EQ(rp->evaluated, 6);
	}
	replay_close(rp);
	eh_free();
	free(b[0]);
	free(b[1]);
	return 0;
}

/* Records two (or three) snapshots both hold are evaluated once; a shifted copy is not one. */
TEST(replay_counts_duplicates_once)
{
	uint8_t *b[3];
	size_t len[3];
	char err[512];
	struct replay *rp;
	struct seen s;

	for (int i = 0; i < 3; i++)
		b[i] = slurp(FIXTURE, &len[i]);
	if (!b[0] || !b[1] || !b[2]) {
		for (int i = 0; i < 3; i++)
			free(b[i]);
		SKIP("no " FIXTURE " here (run from the source tree)");
	}
	rp = stream_of(b, len, 3, err, sizeof(err));
	CHECK(rp != NULL);
	if (rp) {
		CHECK_EQ(run_all(rp, "sched:sched_switch limit none", &s), 0);
		CHECK_EQ(s.n, 3);
		CHECK_EQ(rp->evaluated, 3);
		CHECK_EQ(rp->duplicates, 6);
		for (int i = 0; i < 3 && i < s.n; i++)
			CHECK_EQ(s.file[i], 0); /* the first file's copy is the one evaluated */
	}
	replay_close(rp);
	eh_free();
	/* the third file shifted by 1 ns: its records are new ones */
	CHECK_EQ(shift_times(b[2], len[2]), 15);
	rp = stream_of(b, len, 3, err, sizeof(err));
	CHECK(rp != NULL);
	if (rp) {
		CHECK_EQ(run_all(rp, "sched:sched_switch limit none", &s), 0);
		CHECK_EQ(s.n, 6);
		CHECK_EQ(rp->duplicates, 3);
	}
	replay_close(rp);
	eh_free();
	for (int i = 0; i < 3; i++)
		free(b[i]);
	return 0;
}

/*
 * A record damaged in the middle of a file: the run stops there with the
 * file, the offset and what is wrong; the firings before it were reported
 * once each, none after it.
 */
TEST(replay_stops_at_a_damaged_record)
{
	uint8_t *b[1];
	size_t len[1], off_bad = 0;
	char err[512];
	struct pdr_file *f;
	struct replay *rp;
	struct seen s;
	int before = 0, k = 0;

	b[0] = slurp(FIXTURE, &len[0]);
	if (!b[0])
		SKIP("no " FIXTURE " here (run from the source tree)");
	/* the size of the third sched_switch record: 4 (shorter than a header) */
	f = pdr_open_mem(b[0], len[0], err, sizeof(err));
	CHECK(f != NULL);
	for (size_t i = 0; f && i < f->nr_recs; i++) {
		const char *ev = f->recs[i].attr >= 0 ? f->attrs[f->recs[i].attr].name : "";

		if (strcmp(ev, "sched:sched_switch"))
			continue;
		if (++k == 3) {
			off_bad = (const uint8_t *)f->recs[i].hdr - b[0];
			break;
		}
		before++;
	}
	pdr_close(f);
	CHECK_EQ(before, 2);
	CHECK(off_bad > 0);
	if (off_bad) {
		uint16_t four = 4;

		memcpy(b[0] + off_bad + 6, &four, 2);
		seed("damaged-third-switch", b[0], len[0]); /* replay.sh runs trigrec test on it */
		CHECK(pdr_open_mem(b[0], len[0], err, sizeof(err)) ==
		      NULL); /* the index refuses it */
		rp = stream_of(b, len, 1, err, sizeof(err));
		CHECK(rp != NULL);
		if (rp) {
			char want[64];

			CHECK_EQ(run_all(rp, "sched:sched_switch limit none", &s), -EINVAL);
			CHECK_EQ(s.n, 2);
			CHECK(s.n < 2 || s.time[0] < s.time[1]);
			CHECK(strncmp(rp->err, "a.data: ", 8) == 0);
			snprintf(want, sizeof(want), "file offset %zu has size 4", off_bad);
			CHECK(strstr(rp->err, want) != NULL);
			CHECK(strstr(rp->err, "cut short or corrupt") != NULL);
		}
		replay_close(rp);
		eh_free();
	}
	free(b[0]);
	return 0;
}

/* A zstd file streamed: decompressed when its first compressed record comes, read as the index reads it. */
TEST(replay_streams_compressed)
{
	uint8_t *b[1];
	size_t len[1];
	char err[512];
	struct pdr_file *f;
	struct replay *rp;
	struct seen s;
	int want = 0;

	b[0] = slurp(FIXTURE_ZSTD, &len[0]);
	if (!b[0])
		SKIP("no " FIXTURE_ZSTD " here (run from the source tree)");
	f = pdr_open_mem(b[0], len[0], err, sizeof(err));
	CHECK(f != NULL && f->compressed);
	for (size_t i = 0; f && i < f->nr_recs; i++)
		want += f->recs[i].attr >= 0 && f->recs[i].raw &&
			!strcmp(f->attrs[f->recs[i].attr].name, "syscalls:sys_enter_getpgid");
	pdr_close(f);
	CHECK_EQ(want, 5);
	rp = stream_of(b, len, 1, err, sizeof(err));
	CHECK(rp != NULL);
	if (rp) {
		CHECK(!rp->files[0]->compressed); /* not known until a compressed record comes */
		CHECK_EQ(run_all(rp, "syscalls:sys_enter_getpgid limit none", &s), 0);
		CHECK(rp->files[0]->compressed);
		CHECK_EQ(s.n, want);
		CHECK_EQ(rp->evaluated, (uint64_t)want);
	}
	replay_close(rp);
	eh_free();
	free(b[0]);
	return 0;
}

static int cleanup(void)
{
	eh_free();
	trig_set_formats(NULL, 0);
	for (int i = 0; i < 3; i++)
		tp_format__free(fmts[i]);
	return 0;
}
/*
 * rings=compact, a reload (bpfctl__take_over()): both objects write one
 * set of rings, so a snapshot of the old object still on its way (its cut
 * set, the spare held until its carry is copied) must go on in the new
 * one, and that snapshot's settle and spare_back must reach the new one.
 * Only the objects' globals are used: opened, never loaded.
 */
static int hand_over(__u64 flip_at, __u32 spare_free, __u64 window_end, struct bpfctl *nb,
		     struct bpfctl *old)
{
	int ncpu = libbpf_num_possible_cpus();
	struct recorder r = { .rec_cpu_fd = -1, .cr_fd = -1 };
	struct trigrec_rec_cpu *rc;

	if (ncpu <= 0)
		return -1;
	rc = calloc((size_t)ncpu, sizeof(*rc));
	old->skel = trigrec_bpf__open();
	nb->skel = trigrec_bpf__open();
	if (!rc || !old->skel || !nb->skel) {
		free(rc);
		return -1;
	}
	r.rec_cpu = rc;
	old->skel->rodata->ring_mode = nb->skel->rodata->ring_mode = 1;
	old->skel->rodata->compact = nb->skel->rodata->compact = 1;
	old->opts.generation = 0;
	nb->opts.generation = 1;
	old->skel->bss->flip_at = flip_at;
	old->skel->data->spare_free = spare_free;
	old->skel->bss->window_end = window_end;
	bpfctl__take_over(nb, old, &r);
	for (int c = 0; c < ncpu && c < TRIGREC_MAX_CPUS; c++)
		CHECK_EQ(rc[c].live, 1);
	free(rc);
	return 0;
}

TEST(compact_reload_keeps_the_cut)
{
	struct bpfctl old = { 0 }, nb = { 0 };

	/* A snapshot of the old object not yet taken: cut at 5 s, the spare held. */
	CHECK_EQ(hand_over(5 * S, 0, 5 * S, &nb, &old), 0);
	if (nb.skel) {
		CHECK_EQ(nb.skel->bss->flip_at, 5 * S);
		CHECK_EQ(nb.skel->data->spare_free, 0);
		CHECK_EQ(nb.skel->bss->window_end, 5 * S);
		/* No second claim of the held spare, from userspace either. */
		CHECK_EQ(bpfctl__flip_now(&nb, 6 * S), 0);
		/* That snapshot is taken on the old object: the new one follows. */
		bpfctl__settle(&old);
		CHECK_EQ(nb.skel->bss->flip_at, 0);
		CHECK_EQ(nb.skel->data->spare_free, 0); /* until the carry is copied */
		bpfctl__spare_back(&old);
		CHECK_EQ(nb.skel->data->spare_free, 1);
		CHECK_EQ(bpfctl__flip_now(&nb, 7 * S), 1);
		CHECK_EQ(nb.skel->bss->flip_at, 7 * S);
	}
	trigrec_bpf__destroy(old.skel);
	trigrec_bpf__destroy(nb.skel);
	return 0;
}

TEST(compact_reload_with_the_spare_free)
{
	struct bpfctl old = { 0 }, nb = { 0 };

	CHECK_EQ(hand_over(0, 1, 3 * S, &nb, &old), 0);
	if (nb.skel) {
		CHECK_EQ(nb.skel->bss->flip_at, 0);
		CHECK_EQ(nb.skel->data->spare_free, 1);
		/* A firing of the new object inside the old one's last window is part of it. */
		CHECK_EQ(nb.skel->bss->window_end, 3 * S);
	}
	trigrec_bpf__destroy(old.skel);
	trigrec_bpf__destroy(nb.skel);
	return 0;
}

TEST(zz_cleanup)
{
	return cleanup();
}

/*
 * The size-class programs (tp_rec_wN, gates.bpf.h): a format gets the class
 * whose loads end exactly at its fixed part, never one that reads past it
 * (the kernel would refuse the attach) or stops short (words would be
 * lost), and the class's program in the object is the one of that size.
 */
static struct tp_format *fmt_of_size(uint32_t size, int dataloc)
{
	char text[2048];
	int n = snprintf(text, sizeof(text), "name: sz\nID: 9100\nformat:\n" COMMON);

	/* 4-byte fields up to size, then a trailing u16 when size is not a multiple of 4. */
	for (uint32_t off = 8, i = 0; off + 4 <= size; off += 4, i++)
		n += snprintf(text + n, sizeof(text) - (size_t)n,
			      "\tfield:%s f%u;\toffset:%u;\tsize:4;\tsigned:0;\n",
			      dataloc && off == 8 ? "__data_loc char[]" : "unsigned int", i, off);
	if (size % 4)
		n += snprintf(text + n, sizeof(text) - (size_t)n,
			      "\tfield:unsigned short t;\toffset:%u;\tsize:2;\tsigned:0;\n",
			      size - 2);
	n += snprintf(text + n, sizeof(text) - (size_t)n, "\nprint fmt: \"x\"\n");
	return tp_format__parse("test", "sz", text, (size_t)n);
}

TEST(record_size_classes)
{
	struct bpfctl b = { .skel = trigrec_bpf__open() };
	const uint32_t rec = TRIGREC_HOOK_BPFREC;

	CHECK(b.skel != NULL);
	for (uint32_t size = 8; size <= 96; size += 2) {
		struct tp_format *f = fmt_of_size(size, 0);
		int c, want = -1;
		char name[32];

		CHECK(f != NULL);
		if (!f)
			continue;
		CHECK_EQ(f->fixed_size, size);
		/* Whole words up to 8, or whole words up to 7 and a 4-byte tail. */
		if (size >= 12 && (((size - 8) % 8 == 0 && size <= 8 + 8 * 8) ||
				   ((size - 8) % 8 == 4 && size <= 8 + 8 * 7 + 4)))
			want = (int)(size - 8) / 4;
		c = bpfctl__rec_class(f, rec);
		CHECK_EQ(c, want);
		if (c >= 0 && b.skel) {
			/* Class c reads 4 * c bytes from offset 8: exactly the record. */
			snprintf(name, sizeof(name), "tp_rec_w%d%s", c / 2, c % 2 ? "h" : "");
			CHECK(bpfctl__rec_prog(&b, c) != NULL);
			if (bpfctl__rec_prog(&b, c))
				CHECK_STR(bpf_program__name(bpfctl__rec_prog(&b, c)), name);
			CHECK_EQ(8 + 4 * c, size);
		}
		/* Not recorded by BPF, or with a --filter: tp_rec (or no program). */
		CHECK_EQ(bpfctl__rec_class(f, 0), -1);
		CHECK_EQ(bpfctl__rec_class(f, rec | TRIGREC_HOOK_RECFILTER), -1);
		/* Triggers of a hook BPF does not record: the same classes, tp_trig_w*. */
		c = bpfctl__trig_class(f, TRIGREC_HOOK_GATED);
		CHECK_EQ(c, want);
		if (c >= 0 && b.skel) {
			snprintf(name, sizeof(name), "tp_trig_w%d%s", c / 2, c % 2 ? "h" : "");
			CHECK(bpfctl__trig_prog(&b, c) != NULL);
			if (bpfctl__trig_prog(&b, c))
				CHECK_STR(bpf_program__name(bpfctl__trig_prog(&b, c)), name);
		}
		/* Recorded by BPF: tp_hook, whose record() copies it for the rings. */
		CHECK_EQ(bpfctl__trig_class(f, rec), -1);
		tp_format__free(f);
		/* A __data_loc field: the record runs past its fixed part. */
		f = fmt_of_size(size, 1);
		if (f && size >= 12) {
			CHECK_EQ(bpfctl__rec_class(f, rec), -1);
			CHECK_EQ(bpfctl__trig_class(f, 0), -1);
		}
		tp_format__free(f);
	}
	CHECK(bpfctl__rec_prog(&b, -1) == NULL);
	CHECK(bpfctl__rec_prog(&b, 0) == NULL);
	CHECK(bpfctl__rec_prog(&b, 17) == NULL);
	CHECK(bpfctl__trig_prog(&b, -1) == NULL);
	CHECK(bpfctl__trig_prog(&b, 0) == NULL);
	CHECK(bpfctl__trig_prog(&b, 17) == NULL);
	trigrec_bpf__destroy(b.skel);
	return 0;
}

RUN_TESTS(T(event_conditions), T(count_at_least), T(latency_by_key), T(rate_by_key),
	  T(latency_near_misses_per_key), T(rate_near_misses_per_key), T(learned_threshold),
	  T(learned_all_keys), T(learned_all_keys_halving), T(learned_unkeyed),
	  T(post_coalesces_in_ring_sets), T(post_with_a_freeze), T(policies), T(str_faults),
	  T(replay_refuses), T(compact_reload_keeps_the_cut), T(compact_reload_with_the_spare_free),
	  T(replay_open_builds_no_index), T(replay_merges_files_in_time_order),
	  T(replay_counts_duplicates_once), T(replay_stops_at_a_damaged_record),
	  T(replay_streams_compressed), T(record_size_classes), T(zz_cleanup))
