// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests for src/service/status.c: the text and JSON an operator greps. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "check.h"
#include "harvest/sideband.h"
#include "lang/trigger_lang.h"
#include "service/status.h"
#include "session/config.h"

static char *render(struct status *st, const struct status_trigger *t, int n, int json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK_EQ(status__render(st, t, n, json, f), 0);
	fclose(f);
	return buf;
}

static void put(const char *dir, const char *name, size_t size)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	for (size_t i = 0; i < size; i++)
		fputc('x', f);
	fclose(f);
}

TEST(file_filter)
{
	CHECK(status__is_snapshot_file("20261201-124651.044770-slow.data"));
	CHECK(status__is_snapshot_file("20261201-124651.044770-slow.json"));
	CHECK(!status__is_snapshot_file(".trigrec-12-abc.tmp"));
	CHECK(!status__is_snapshot_file(".hidden.data"));
	CHECK(!status__is_snapshot_file("notes.txt"));
	CHECK(!status__is_snapshot_file(".data"));
	return 0;
}

TEST(text_and_json)
{
	char dir[64], sub[128];
	struct trigrec_config c;
	struct status *st;
	struct status_trigger t[2] = {
		{ .name = "slow",
		  .have = 1,
		  .stats = { .fired = 3,
			     .coalesced = 1,
			     .suppressed_cooldown = 4,
			     .suppressed_limit = 5,
			     .rb_dropped = 0,
			     .evaluated = 100,
			     .matched = 13 } },
		{ .name = "gone", .have = 0 },
	};
	struct snap_written w = { .path = "/x/a-slow.data" };
	struct snap_report ok = { .trigger = 0, .name = "slow", .out = &w };
	struct snap_report man = { .trigger = -1, .name = "now", .out = &w };
	struct snap_report fin = { .trigger = -2, .name = "final", .out = &w };
	struct snap_report bad = { .trigger = 0, .name = "slow", .err = -28 };
	char *out;

	check_tmpdir(dir, sizeof(dir), "status");
	put(dir, "a-slow.data", 1000);
	put(dir, "a-slow.json", 24);
	put(dir, ".trigrec-1-x.tmp", 5000);
	put(dir, "README", 7);
	snprintf(sub, sizeof(sub), "%s/sub.data", dir);
	mkdir(sub, 0700); /* a directory named like a snapshot is not one */
	config__init(&c);
	config__set_str(&c.outdir, dir);
	config__set_str(&c.script_path, "/etc/trigrec/web.trig");
	st = status__new(c.script_path, c.outdir);
	CHECK(st);

	out = render(st, t, 2, 0);
	CHECK(strstr(out, "script:         /etc/trigrec/web.trig\n"));
	CHECK(strstr(out, "last snapshot:  none\n"));
	CHECK(strstr(out,
		     "snapshots:      0 written (0 by triggers, 0 manual, 0 final), 0 failed\n"));
	CHECK(strstr(out, "uptime:         0s (0 s)\n"));
	CHECK(strstr(out, "(2 files, 1 snapshots, 1024 bytes, "));
	CHECK(strstr(out, "triggers:       2\n"
			  "counters:       since start (trigger table generation 0)\n"));
	CHECK(strstr(
		out,
		"\ntrigger slow: fired 3, snapshots 0, coalesced 1, suppressed 9 (cooldown 4, "
		"limit 5, budget 0), side-band full 0, evaluated 100, matched 13, str() faults 0\n"));
	CHECK(strstr(out, "\ntrigger gone: counters unreadable\n"));
	CHECK(!strstr(out, "last failure:"));
	free(out);

	status__observe(st, &ok);
	status__observe(st, &ok);
	status__observe(st, &man);
	status__observe(st, &fin);
	status__observe(st, &bad);
	out = render(st, t, 2, 0);
	CHECK(strstr(out,
		     "snapshots:      4 written (2 by triggers, 1 manual, 1 final), 1 failed\n"));
	CHECK(strstr(out, "last snapshot:  /x/a-slow.data (trigger final, "));
	CHECK(strstr(out, "last failure:   trigger slow, "));
	CHECK(strstr(out, ": No space left on device\n"));
	CHECK(strstr(out, "\ntrigger slow: fired 3, snapshots 2, "));
	free(out);

	/* After a reload: the generation is said; the counters stay since the start. */
	status__set_generation(st, 3);
	out = render(st, t, 2, 0);
	CHECK(strstr(out, "counters:       since start (trigger table generation 3)\n"));
	free(out);
	out = render(st, t, 2, 1);
	CHECK(strstr(out, "\"failed\":1},\"generation\":3,\"counters\":\"since_start\","
			  "\"last_snapshot\":{"));
	CHECK(strstr(out, "\"script\":\"/etc/trigrec/web.trig\""));
	CHECK(strstr(out, "\"output\":{\"dir\":\""));
	CHECK(strstr(out, "\"files\":2,\"snapshots\":1,\"bytes\":1024}"));
	CHECK(strstr(out, "\"snapshots\":{\"written\":4,\"by_triggers\":2,\"manual\":1,\"final\":1,"
			  "\"failed\":1}"));
	CHECK(strstr(out, "\"last_snapshot\":{\"path\":\"/x/a-slow.data\",\"trigger\":\"final\""));
	CHECK(strstr(out, "{\"name\":\"slow\",\"fired\":3,\"snapshots\":2,\"coalesced\":1,"
			  "\"suppressed\":9,\"suppressed_cooldown\":4,\"suppressed_limit\":5,"));
	CHECK(strstr(out, ",{\"name\":\"gone\"}]}\n"));
	CHECK_EQ(strchr(out, '\n') - out, (long)strlen(out) - 1); /* one line */
	free(out);
	status__free(st);

	/* Without a script (trigrec record), and an output directory that went away. */
	free(c.script_path);
	c.script_path = NULL;
	config__set_str(&c.outdir, "/nonexistent/trigrec-status");
	st = status__new(c.script_path, c.outdir);
	out = render(st, NULL, 0, 0);
	CHECK(strstr(out, "script:         none (trigrec record)\n"));
	CHECK(strstr(out,
		     "output:         /nonexistent/trigrec-status (unreadable: No such file or "
		     "directory)\n"));
	CHECK(strstr(out, "triggers:       0\n"));
	free(out);
	out = render(st, NULL, 0, 1);
	CHECK(strstr(out, "\"script\":null"));
	CHECK(strstr(out, "\"last_snapshot\":null,\"triggers\":[]}"));
	free(out);
	status__free(st);
	config__fini(&c);

	check_rmtree(dir);
	return 0;
}

/* A latency trigger's near misses: the status line and the JSON object. */
TEST(near_miss)
{
	char dir[64];
	struct trigrec_config c;
	struct status *st;
	struct trig_def lat = { .kind = TRIGREC_TRIG_LATENCY, .cfg = { .threshold = 20000000 } };
	struct trig_def rate = { .kind = TRIGREC_TRIG_RATE,
				 .cfg = { .threshold = 100, .window_ns = 1000000000 } };
	struct trig_def ev = { .kind = TRIGREC_TRIG_EVENT };
	struct status_trigger t[3] = {
		{ .name = "slow",
		  .have = 1,
		  .def = &lat,
		  .have_nm = 1,
		  .nm = { .all = { 19600000, 18000000, 5000 }, .last = { 18000000 } } },
		{ .name = "burst", .have = 1, .def = &rate, .have_nm = 1, .nm = { .all = { 97 } } },
		{ .name = "ev", .have = 1, .def = &ev, .have_nm = 1 },
	};
	char *out;

	check_tmpdir(dir, sizeof(dir), "status");
	config__init(&c);
	config__set_str(&c.outdir, dir);
	st = status__new(c.script_path, c.outdir);
	out = render(st, t, 3, 0);
	CHECK(strstr(out, "\ntrigger slow: near misses max 19.6 ms against a threshold of 20 ms; "
			  "largest since start: 19.6 ms, 18 ms, 5 us; since its last snapshot: "
			  "18 ms\n"));
	CHECK(strstr(out, "\ntrigger burst: near misses max 97 events in 1 s against a threshold "
			  "of 100; largest since start: 97; since its last snapshot: none\n"));
	CHECK(!strstr(out, "trigger ev: near misses"));
	free(out);
	out = render(st, t, 3, 1);
	CHECK(strstr(out,
		     "\"near_miss\":{\"unit\":\"ns\",\"threshold\":20000000,"
		     "\"since_start\":[19600000,18000000,5000],\"since_snapshot\":[18000000]}}"));
	CHECK(strstr(out, "\"near_miss\":{\"unit\":\"events\",\"threshold\":100,"
			  "\"since_start\":[97],\"since_snapshot\":[]}}"));
	CHECK(strstr(out, "\"str_faults\":0}]}")); /* ev: no near_miss */
	free(out);
	status__free(st);
	config__fini(&c);
	check_rmtree(dir);
	return 0;
}

/* A keyed trigger: its keys with the largest near misses, each with both lists. */
TEST(near_miss_per_key)
{
	char dir[64];
	struct trigrec_config c;
	struct status *st;
	struct trig_def lat = { .kind = TRIGREC_TRIG_LATENCY, .cfg = { .threshold = 20000000 } };
	struct trig_def rate = { .kind = TRIGREC_TRIG_RATE,
				 .cfg = { .threshold = 100, .window_ns = 1000000000 } };
	struct status_trigger t[2] = {
		{ .name = "slow",
		  .have = 1,
		  .def = &lat,
		  .have_nm = 1,
		  .nm = { .all = { 19600000, 18000000 }, .last = { 18000000 } },
		  .keys = { { .key = { 42 }, .all = { 19600000, 5000 } },
			    { .key = { 7 }, .all = { 18000000 }, .last = { 18000000 } } },
		  .nr_keys = 2 },
		{ .name = "burst",
		  .have = 1,
		  .def = &rate,
		  .have_nm = 1,
		  .nm = { .all = { 97 } },
		  .keys = { { .key = { 3, 0xab }, .all = { 97, 2 }, .last = { 2 } } },
		  .nr_keys = 1 },
	};
	char *out;

	lat.cfg.kind = TRIGREC_TRIG_LATENCY;
	rate.cfg.kind = TRIGREC_TRIG_RATE;
	lat.cfg.side[TRIGREC_ROLE_EVENT].key.p[0].src = TRIGREC_SRC_FIELD;
	rate.cfg.side[TRIGREC_ROLE_EVENT].key.p[0].src = TRIGREC_SRC_FIELD;
	rate.cfg.side[TRIGREC_ROLE_EVENT].key.p[1].src = TRIGREC_SRC_USTR;
	check_tmpdir(dir, sizeof(dir), "status");
	config__init(&c);
	config__set_str(&c.outdir, dir);
	st = status__new(c.script_path, c.outdir);
	out = render(st, t, 2, 0);
	CHECK(strstr(out, "\ntrigger slow: near misses of key 42: 19.6 ms, 5 us; since its last "
			  "snapshot: none\ntrigger slow: near misses of key 7: 18 ms; since its "
			  "last snapshot: 18 ms\n"));
	CHECK(strstr(out, "\ntrigger burst: near misses of key 3/0xab: 97, 2; since its last "
			  "snapshot: 2\n"));
	free(out);
	out = render(st, t, 2, 1);
	CHECK(strstr(out, "\"since_start\":[19600000,18000000],\"since_snapshot\":[18000000],"
			  "\"keys\":[{\"key\":\"42\",\"key_values\":[42,0],\"since_start\":"
			  "[19600000,5000],\"since_snapshot\":[]},{\"key\":\"7\",\"key_values\":"
			  "[7,0],\"since_start\":[18000000],\"since_snapshot\":[18000000]}]}"));
	CHECK(strstr(out, "\"keys\":[{\"key\":\"3/0xab\",\"key_values\":[3,171],"
			  "\"since_start\":[97,2],\"since_snapshot\":[2]}]}"));
	free(out);
	/* No key has a near miss yet: an empty list. */
	t[1].nr_keys = 0;
	out = render(st, t, 2, 1);
	CHECK(strstr(out, "\"since_start\":[97],\"since_snapshot\":[],\"keys\":[]}"));
	free(out);
	status__free(st);
	config__fini(&c);
	check_rmtree(dir);
	return 0;
}

/* A learned threshold: how it is said, its learning counted, its near misses. */
TEST(learned)
{
	char dir[64], b[48];
	struct trigrec_config c;
	struct status *st;
	struct trig_def lat = {
		.kind = TRIGREC_TRIG_LATENCY,
		.cfg = { .learn_pct = 99900, .learn_mult = 200, .learn_after = 500 }
	};
	struct trig_def all = { .kind = TRIGREC_TRIG_LATENCY,
				.cfg = { .learn_pct = 50000,
					 .learn_mult = 150,
					 .learn_after = 1000,
					 .flags = TRIGREC_TF_LEARN_ALL } };
	struct status_trigger t[2] = {
		{ .name = "slow",
		  .have = 1,
		  .def = &lat,
		  .have_nm = 1,
		  .nm = { .all = { 8100000 } },
		  .have_ls = 1,
		  .ls = { .keys = 3, .samples = 12340, .warming = 1500 },
		  .have_la = 1,
		  .la_pct_ns = 3000000,
		  .la_samples = 98000,
		  .la_total = 60000 },
		{ .name = "all",
		  .have = 1,
		  .def = &all,
		  .have_nm = 1,
		  .have_ls = 1,
		  .have_la = 1,
		  .la_samples = 12 },
	};
	char *out;

	CHECK_STR(status__learned_text(&lat, b, sizeof(b)), "p99.9 x 2");
	CHECK_STR(status__learned_text(&all, b, sizeof(b)), "p50 x 1.5");
	lat.cfg.learn_pct = 99999;
	lat.cfg.learn_mult = 125;
	CHECK_STR(status__learned_text(&lat, b, sizeof(b)), "p99.999 x 1.25");
	lat.cfg.learn_pct = 99000;
	lat.cfg.learn_mult = 100;
	CHECK_STR(status__learned_text(&lat, b, sizeof(b)), "p99");
	lat.cfg.learn_pct = 99900;
	lat.cfg.learn_mult = 200;

	check_tmpdir(dir, sizeof(dir), "status");
	config__init(&c);
	config__set_str(&c.outdir, dir);
	st = status__new(c.script_path, c.outdir);
	out = render(st, t, 2, 0);
	CHECK(strstr(out,
		     "\ntrigger slow: near misses max 8.1 ms under its key's learned p99.9 x 2; "
		     "largest since start: 8.1 ms; since its last snapshot: none\n"));
	CHECK(strstr(out, "\ntrigger slow: learns p99.9 x 2 per key, after 500 samples: 3 keys (of "
			  "the 1024 all learned triggers share), 12340 spans learned from, 1500 "
			  "while their key was warming up\n"));
	CHECK(strstr(out,
		     "\ntrigger all: learns p50 x 1.5 of all spans, after 1000 samples: 0 keys"));
	/* All keys' threshold: beside the keys' with `by`, not learned yet, the one without. */
	CHECK(strstr(out, "\ntrigger slow: p99.9 x 2 of all keys: 6 ms (p99.9 3 ms over 98000 "
			  "spans) (reported only: a key fires on its own threshold)\n"));
	CHECK(strstr(out, "\ntrigger all: p50 x 1.5 of all spans: not learned yet (12 spans)\n"));
	free(out);
	out = render(st, t, 2, 1);
	CHECK(strstr(out,
		     "\"learned\":{\"threshold\":\"p99.9 x 2\",\"per_key\":true,"
		     "\"after\":500,\"keys\":3,\"max_keys\":1024,\"samples\":12340,"
		     "\"warming\":1500,\"all_keys\":{\"percentile_ns\":3000000,"
		     "\"threshold_ns\":6000000,\"samples\":98000,\"histogram_total\":60000}}"));
	CHECK(strstr(out, "\"learned\":{\"threshold\":\"p50 x 1.5\",\"per_key\":false,"));
	free(out);
	status__free(st);
	config__fini(&c);
	check_rmtree(dir);
	return 0;
}

/* A rate baseline: how it is said, its windows counted, its near misses. */
TEST(rate_baseline)
{
	char dir[64], b[64];
	struct trigrec_config c;
	struct status *st;
	struct trig_def rb = { .kind = TRIGREC_TRIG_RATE,
			       .cfg = { .flags = TRIGREC_TF_RATE_BASELINE,
					.learn_mult = 500,
					.learn_after = 10,
					.window_ns = 1000000000ull } };
	struct status_trigger t[1] = {
		{ .name = "burst",
		  .have = 1,
		  .def = &rb,
		  .have_nm = 1,
		  .nm = { .all = { 612, 580 }, .last = { 97 } },
		  .have_ls = 1,
		  .ls = { .keys = 2, .samples = 130, .warming = 20 } },
	};
	char *out;

	CHECK_STR(status__baseline_text(&rb, b, sizeof(b)), "5x baseline per 1 s");
	rb.cfg.learn_mult = 250;
	rb.cfg.window_ns = 200000000ull;
	CHECK_STR(status__baseline_text(&rb, b, sizeof(b)), "2.5x baseline per 200 ms");
	rb.cfg.learn_mult = 1025;
	CHECK_STR(status__baseline_text(&rb, b, sizeof(b)), "10.25x baseline per 200 ms");
	rb.cfg.learn_mult = 500;
	rb.cfg.window_ns = 1000000000ull;
	/* Without `by`: one baseline for all its events; with it, per key. */
	check_tmpdir(dir, sizeof(dir), "status");
	config__init(&c);
	config__set_str(&c.outdir, dir);
	st = status__new(c.script_path, c.outdir);
	out = render(st, t, 1, 0);
	CHECK(strstr(out, "\ntrigger burst: near misses max 612 events in 1 s under its key's 5x "
			  "baseline per 1 s; largest since start: 612, 580; since its last "
			  "snapshot: 97\n"));
	CHECK(strstr(out, "\ntrigger burst: learns 5x baseline per 1 s of all events, after 10 "
			  "windows: 2 keys (in the rate keys' LRU, --max-keys), 130 windows "
			  "learned from, 20 while their key was warming up\n"));
	/* Not the latency's learned line. */
	CHECK(!strstr(out, "samples"));
	free(out);
	rb.cfg.side[TRIGREC_ROLE_EVENT].key.p[0].src = TRIGREC_SRC_PID;
	out = render(st, t, 1, 1);
	CHECK(strstr(out, "\"learned\":{\"threshold\":\"5x baseline per 1 s\",\"per_key\":true,"
			  "\"after_windows\":10,\"keys\":2,\"windows\":130,\"warming\":20}"));
	free(out);
	status__free(st);
	config__fini(&c);
	check_rmtree(dir);
	return 0;
}

/* An event trigger's `FIELD > N`: its near misses said against the comparison. */
TEST(event_condition)
{
	char dir[64], b[160];
	struct trigrec_config c;
	struct status *st;
	struct trig_def ev = { .kind = TRIGREC_TRIG_EVENT,
			       .nm_desc = "ret > -5",
			       .cfg = { .nm_clause1 = 2 } };
	struct status_trigger t[1] = {
		{ .name = "big", .have = 1, .def = &ev, .have_nm = 1, .nm = { .all = { 99, 7 } } },
	};
	char *out;

	ev.cfg.side[TRIGREC_ROLE_EVENT].filter.n = 2;
	ev.cfg.side[TRIGREC_ROLE_EVENT].filter.c[1].is_signed = 1;
	ev.cfg.side[TRIGREC_ROLE_EVENT].filter.c[1].imm = (__u64)-5ll;
	CHECK_STR(status__near_miss_text(&ev, t[0].nm.all, b, sizeof(b)),
		  "max 99 against ret > -5");
	CHECK_STR(status__near_miss_text(&ev, t[0].nm.last, b, sizeof(b)), "none against ret > -5");
	check_tmpdir(dir, sizeof(dir), "status");
	config__init(&c);
	config__set_str(&c.outdir, dir);
	st = status__new(c.script_path, c.outdir);
	out = render(st, t, 1, 0);
	CHECK(strstr(out,
		     "\ntrigger big: near misses max 99 against ret > -5; largest since start: "
		     "99, 7; since its last snapshot: none\n"));
	free(out);
	out = render(st, t, 1, 1);
	CHECK(strstr(out, "\"near_miss\":{\"unit\":\"value\",\"comparison\":\"ret > -5\","
			  "\"threshold\":-5,\"since_start\":[99,7],\"since_snapshot\":[]}"));
	free(out);
	/* Without a comparison: nothing. */
	ev.cfg.nm_clause1 = 0;
	CHECK_STR(status__near_miss_text(&ev, t[0].nm.all, b, sizeof(b)), "");
	status__free(st);
	config__fini(&c);
	check_rmtree(dir);
	return 0;
}

RUN_TESTS(T(file_filter), T(text_and_json), T(near_miss), T(near_miss_per_key), T(learned),
	  T(rate_baseline), T(event_condition))
