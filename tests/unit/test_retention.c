// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Retention: which snapshots go (oldest first, by each limit, the one just
 * published never), what counts as a snapshot (a whole pair of ours named as
 * the writer names it; nothing else in the directory is counted or
 * touched), and the byte budget refusing a pair before it gets a name.
 * Also prints the cost of one enforcement with 50 and 1000 snapshots.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "check.h"
#include "service/retention.h"
#include "snapshot/outdir.h"
#include "util/log.h"
#include "util/util.h"

#define SEC 1000000000ll

static char dir[64];

/* A file of size bytes in dir. */
static void put(const char *name, size_t bytes)
{
	char p[4096];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, bytes))
		abort();
	close(fd);
}

static int exists(const char *name)
{
	char p[4096];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !lstat(p, &st);
}

/* STAMP for realtime second sec, as the writer makes it. */
static void stamp(time_t sec, int us, char *buf, size_t len)
{
	struct tm tm;

	localtime_r(&sec, &tm);
	snprintf(buf, len, "%04d%02d%02d-%02d%02d%02d.%06d", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, us);
}

/* A sidecar of 100 bytes that starts as the writer's, naming instance. */
static void put_json(const char *name, const char *instance)
{
	char p[4096];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (!f)
		abort();
	fprintf(f, "{\n  \"instance\": \"%s\",\n  \"file\": \"%-*s\"}\n", instance,
		(int)(100 - 34 - strlen(instance)), "x");
	fclose(f);
}

/* A snapshot pair STAMP(sec)-name of instance inst, a .data of bytes and a .json of 100. */
static void pair_of(const char *inst, time_t sec, const char *name, size_t bytes, char *base,
		    size_t len)
{
	char s[80], f[1024];

	stamp(sec, 0, s, sizeof(s));
	snprintf(base, len, "%s-%s", s, name);
	snprintf(f, sizeof(f), "%s.json", base);
	put_json(f, inst);
	snprintf(f, sizeof(f), "%s.data", base);
	put(f, bytes);
}

/* The same, written by instance "t1" (the one the tests' retention runs as). */
static void pair(time_t sec, const char *name, size_t bytes, char *base, size_t len)
{
	pair_of("t1", sec, name, bytes, base, len);
}

static struct ret_snap S(const char *base, int64_t t, uint64_t bytes) {
	struct ret_snap s = { .time_ns = t, .bytes = bytes };

	snprintf(s.base, sizeof(s.base), "%s", base);
	return s;
}

/* The bases of the marked (del) or kept entries, space-separated. */
static const char *
which(const struct ret_snap *s, size_t n, int del)
{
	static char out[1024];
	size_t o = 0;

	out[0] = 0;
	for (size_t i = 0; i < n; i++)
		if (!!s[i].del == del)
			o += snprintf(out + o, sizeof(out) - o, "%s%s", o ? " " : "", s[i].base);
	return out;
}

TEST(data_names)
{
	int64_t t;
	struct tm tm = { .tm_year = 126,
			 .tm_mon = 11,
			 .tm_mday = 1,
			 .tm_hour = 12,
			 .tm_min = 46,
			 .tm_sec = 51,
			 .tm_isdst = -1 };
	int64_t want = (int64_t)mktime(&tm) * SEC + 44770000;

	CHECK_EQ(retention_data_name("20261201-124651.044770-sys_enter_getsid.data", &t), 39);
	CHECK_EQ(t, want);
	CHECK_EQ(retention_data_name("20261201-124651.044770-manual-2.data", &t), 31);
	CHECK_EQ(t, want);
	/* A stamp that is no date: still ours (the writer's pattern), aged by mtime. */
	CHECK_EQ(retention_data_name("20261399-124651.044770-x.data", &t), 24);
	CHECK_EQ(t, -1);
	/* Not a snapshot's .data. */
	CHECK_EQ(retention_data_name("20261201-124651.044770-x.json", &t), 0);
	/* Found by fuzz_names: year 9623 overflowed the nanoseconds (UB); no date, mtime then. */
	CHECK_EQ(retention_data_name("96231209-000000.000000-badold.data", &t), 29);
	CHECK_EQ(t, -1);
	CHECK_EQ(retention_data_name("20261201-124651.044770.data", &t), 0);
	CHECK_EQ(retention_data_name("20261201-124651.044770-.data", &t), 0);
	CHECK_EQ(retention_data_name("notes.data", &t), 0);
	CHECK_EQ(retention_data_name("x20261201-124651.044770-a.data", &t), 0);
	CHECK_EQ(retention_data_name("2026120-1124651.044770-a.data", &t), 0);
	CHECK_EQ(retention_data_name("20261201-124651.044770-a.data.tmp", &t), 0);
	CHECK_EQ(retention_data_name(".trigrec-1-abc.tmp", &t), 0);
	return 0;
}

TEST(choose_by_each_limit)
{
	struct retention_limits none = { 0 }, files = { .files = 2 }, bytes = { .bytes = 250 },
				age = { .age_ns = 10 * SEC };
	struct ret_snap s[4];
	int64_t now = 1000 * SEC;

	/* Given in no order: sorted oldest first, name breaking ties. */
#define FILL()                                                         \
	(s[0] = S("d", 995 * SEC, 100), s[1] = S("b", 980 * SEC, 100), \
	 s[2] = S("a", 980 * SEC, 100), s[3] = S("c", 990 * SEC, 100))
	FILL();
	CHECK_EQ(retention_choose(s, 4, &none, now, NULL), 0);
	CHECK_STR(which(s, 4, 0), "a b c d");

	FILL();
	CHECK_EQ(retention_choose(s, 4, &files, now, NULL), 2);
	CHECK_STR(which(s, 4, 1), "a b");
	CHECK_EQ(s[0].del, RET_OVER_FILES);

	FILL();
	CHECK_EQ(retention_choose(s, 4, &bytes, now, NULL), 2);
	CHECK_STR(which(s, 4, 0), "c d");
	CHECK_EQ(s[1].del, RET_OVER_BYTES);

	/* Age: strictly older than now - 10 s (990 s is exactly at the horizon: kept). */
	FILL();
	CHECK_EQ(retention_choose(s, 4, &age, now, NULL), 2);
	CHECK_STR(which(s, 4, 0), "c d");
	CHECK_EQ(s[0].del, RET_OVER_AGE);

	/* Exactly at the limits: nothing goes. */
	{
		struct retention_limits at = { .files = 4, .bytes = 400, .age_ns = 20 * SEC };

		FILL();
		CHECK_EQ(retention_choose(s, 4, &at, now, NULL), 0);
	}
	/* Combined: the strictest wins, the reasons say which limits held each. */
	{
		struct retention_limits all = { .files = 3, .bytes = 150, .age_ns = 15 * SEC };

		FILL();
		CHECK_EQ(retention_choose(s, 4, &all, now, NULL), 3);
		CHECK_STR(which(s, 4, 0), "d");
		CHECK_EQ(s[0].del, RET_OVER_FILES | RET_OVER_BYTES | RET_OVER_AGE);
		CHECK_EQ(s[1].del, RET_OVER_BYTES | RET_OVER_AGE);
		CHECK_EQ(s[2].del, RET_OVER_BYTES);
	}
	/* Empty directory. */
	CHECK_EQ(retention_choose(s, 0, &files, now, NULL), 0);
#undef FILL
	return 0;
}

TEST(choose_never_removes_the_protected_one)
{
	struct retention_limits files = { .files = 1 }, age = { .age_ns = SEC };
	struct ret_snap s[3] = { S("new", 100 * SEC, 10), S("old", 200 * SEC, 10),
				 S("mid", 150 * SEC, 10) };

	/* "new" has the oldest stamp (a clock set back) but was just published. */
	CHECK_EQ(retention_choose(s, 3, &files, 300 * SEC, "new"), 2);
	CHECK_STR(which(s, 3, 0), "new");
	/* Everything is too old, even the one just written (a long post window). */
	CHECK_EQ(retention_choose(s, 3, &age, 300 * SEC, "new"), 2);
	CHECK_STR(which(s, 3, 0), "new");
	return 0;
}

TEST(enforce_counts_and_removes_only_our_pairs)
{
	struct retention_limits l = { .files = 2 };
	struct retention_stats st = { 0 };
	struct retention *r;
	char b[5][128], p[2048], f[1024];
	time_t now = time(NULL);

	check_tmpdir(dir, sizeof(dir), "retention");
	pair(now - 50, "a", 1000, b[0], sizeof(b[0]));
	pair(now - 40, "b", 1000, b[1], sizeof(b[1]));
	pair(now - 30, "c", 1000, b[2], sizeof(b[2]));
	pair(now - 20, "d", 1000, b[3], sizeof(b[3]));
	/* Not ours to count or remove: a .data without sidecar, a pair of symlinks,
	 * the operator's notes, a sidecar alone, a temporary. All older than any. */
	put("20000101-000000.000000-lone.data", 5);
	snprintf(p, sizeof(p), "%s/20000101-000000.000000-link.data", dir);
	CHECK_EQ(symlink("/nonexistent", p), 0);
	snprintf(p, sizeof(p), "%s/20000101-000000.000000-link.json", dir);
	CHECK_EQ(symlink("/nonexistent", p), 0);
	put("notes.data", 5);
	put("notes.json", 5);
	put("20000101-000000.000000-side.json", 5);
	put(".trigrec-1-00.tmp", 5);

	r = retention__new(-1, dir, "t1", &l);
	CHECK(r != NULL);
	if (!r)
		goto out;
	CHECK_EQ(retention__enforce(r, NULL, 0), 2);
	for (int i = 0; i < 4; i++) {
		snprintf(f, sizeof(f), "%s.data", b[i]);
		CHECK_EQ(exists(f), i >= 2);
		snprintf(f, sizeof(f), "%s.json", b[i]);
		CHECK_EQ(exists(f), i >= 2);
	}
	CHECK(exists("20000101-000000.000000-lone.data"));
	CHECK(exists("20000101-000000.000000-link.data"));
	CHECK(exists("20000101-000000.000000-link.json"));
	CHECK(exists("notes.data") && exists("notes.json"));
	CHECK(exists("20000101-000000.000000-side.json"));
	CHECK(exists(".trigrec-1-00.tmp"));
	retention__stats(r, &st);
	CHECK_EQ(st.removed, 2);
	CHECK_EQ(st.removed_bytes, 2 * 1100);
	CHECK_EQ(st.files, 2);
	CHECK_EQ(st.bytes, 2 * 1100);

	/* A new one: the oldest goes, the new one stays even though its stamp is the oldest. */
	pair(now - 100, "e", 1000, b[4], sizeof(b[4]));
	snprintf(p, sizeof(p), "%s/%s.data", dir, b[4]);
	CHECK_EQ(retention__enforce(r, p, 1100), 1);
	snprintf(f, sizeof(f), "%s.data", b[4]);
	CHECK(exists(f));
	snprintf(f, sizeof(f), "%s.data", b[2]);
	CHECK(!exists(f));
	snprintf(f, sizeof(f), "%s.data", b[3]);
	CHECK(exists(f));
	retention__stats(r, &st);
	CHECK_EQ(st.removed, 3);
	CHECK_EQ(st.files, 2);
	retention__free(r);
out:
	check_rmtree(dir);
	return 0;
}

TEST(enforce_bytes_and_age)
{
	struct retention_limits lb = { .bytes = 2500 }, la = { .age_ns = 3600 * SEC };
	struct retention_stats st = { 0 };
	struct retention *r;
	char b[4][128], f[1024];
	time_t now = time(NULL);

	check_tmpdir(dir, sizeof(dir), "retention");
	pair(now - 7200, "old", 500, b[0], sizeof(b[0]));
	pair(now - 60, "x", 900, b[1], sizeof(b[1]));
	pair(now - 50, "y", 900, b[2], sizeof(b[2]));
	pair(now - 40, "z", 900, b[3], sizeof(b[3]));
	/* 600 + 3 x 1000 = 3600 bytes: over 2500 by the two oldest. */
	r = retention__new(-1, dir, "t1", &lb);
	CHECK(r && retention__enforce(r, NULL, 0) == 2);
	if (r)
		retention__stats(r, &st);
	CHECK_EQ(st.bytes, 2000);
	snprintf(f, sizeof(f), "%s.data", b[1]);
	CHECK(!exists(f));
	snprintf(f, sizeof(f), "%s.data", b[2]);
	CHECK(exists(f));
	retention__free(r);

	pair(now - 7200, "old", 500, b[0], sizeof(b[0]));
	r = retention__new(-1, dir, "t1", &la);
	CHECK(r && retention__enforce(r, NULL, 0) == 1);
	snprintf(f, sizeof(f), "%s.json", b[0]);
	CHECK(!exists(f));
	retention__free(r);
	check_rmtree(dir);
	return 0;
}

/* Without limits (metrics only): a scan at start, then only the account. */
TEST(enforce_without_limits_only_counts)
{
	struct retention_limits none = { 0 };
	struct retention_stats st = { 0 };
	struct retention *r;
	char b[128];

	check_tmpdir(dir, sizeof(dir), "retention");
	pair(1000000000, "a", 100, b, sizeof(b));
	r = retention__new(-1, dir, "t1", &none);
	CHECK(r && retention__enforce(r, NULL, 0) == 0);
	CHECK(r && retention__enforce(r, "/x/20261201-124651.044770-b.data", 300) == 0);
	if (r)
		retention__stats(r, &st);
	CHECK_EQ(st.files, 2);
	CHECK_EQ(st.bytes, 500);
	CHECK_EQ(st.removed, 0);
	retention__free(r);
	check_rmtree(dir);
	return 0;
}

static int render(void *ctx, const char *datapath, char **buf, size_t *len)
{
	*len = asprintf(buf, "{\"file\": \"%s\"}\n", datapath);
	return *len == (size_t)-1 ? -ENOMEM : 0;
}

/* The byte budget at publish: refused before a name exists, the size reported. */
TEST(publish_refuses_a_pair_over_the_budget)
{
	char path[4096], big[3000] = { 0 }, want[64];
	struct out_file f = { .fd = -1 };
	struct outdir *d;
	int json_len;

	check_tmpdir(dir, sizeof(dir), "retention");
	d = outdir__open(dir);
	CHECK(d != NULL);
	if (!d)
		goto out;
	json_len = snprintf(want, sizeof(want), "{\"file\": \"%s/%s\"}\n", dir,
			    "20261201-124651.044770-t.data");
	CHECK_EQ(outdir__create(d, &f), 0);
	CHECK_EQ(write(f.fd, big, sizeof(big)), sizeof(big));
	/* One byte short of .data + .json. */
	outdir__set_max_pair(d, sizeof(big) + json_len - 1);
	CHECK_EQ(outdir__publish_pair(d, &f, "20261201-124651.044770-t", render, NULL, path,
				      sizeof(path)),
		 -EFBIG);
	CHECK_EQ(outdir__refused_bytes(d), sizeof(big) + json_len);
	CHECK(!exists("20261201-124651.044770-t.data"));
	CHECK(!exists("20261201-124651.044770-t.json"));
	/* Exactly the budget: published. */
	outdir__set_max_pair(d, sizeof(big) + json_len);
	CHECK_EQ(outdir__publish_pair(d, &f, "20261201-124651.044770-t", render, NULL, path,
				      sizeof(path)),
		 0);
	CHECK(exists("20261201-124651.044770-t.data"));
	CHECK(exists("20261201-124651.044770-t.json"));
	outdir__discard(d, &f);
	outdir__free(d);
out:
	check_rmtree(dir);
	return 0;
}

/* What one enforcement costs on the writer thread (docs/operations.md quotes it). */
static void cost(int n)
{
	struct retention_limits l = { .files = n };
	struct retention_stats st = { 0 };
	struct retention *r;
	char b[128], p[2048];
	time_t now = time(NULL);
	uint64_t scan = 0, del = 0;
	int rounds = 20, lvl = log_level;

	check_tmpdir(dir, sizeof(dir), "retention");
	for (int i = 0; i < n; i++) {
		char name[16];

		snprintf(name, sizeof(name), "s%d", i);
		pair(now - 2 * n + i, name, 4096, b, sizeof(b));
	}
	r = retention__new(-1, dir, "t1", &l);
	if (!r)
		goto out;
	log_level = LOG_QUIET; /* a line per removal here */
	retention__enforce(r, NULL, 0);
	for (int k = 0; k < rounds; k++) {
		uint64_t t0 = mono_ns();

		retention__enforce(r, NULL, 0); /* at the limit: scan, nothing removed */
		scan += mono_ns() - t0;
		pair(now - n + k, "new", 4096, b, sizeof(b)); /* one over: one removed */
		snprintf(p, sizeof(p), "%s/%s.data", dir, b);
		t0 = mono_ns();
		CHECK_EQ(retention__enforce(r, p, 4196), 1);
		del += mono_ns() - t0;
	}
	retention__stats(r, &st);
	retention__free(r);
	log_level = lvl;
	CHECK_EQ(st.files, n);
	printf("    cost with %d snapshots: scan %.0f us, scan + remove one %.0f us\n", n,
	       (double)scan / rounds / 1e3, (double)del / rounds / 1e3);
out:
	check_rmtree(dir);
}

TEST(cost_50_and_1000)
{
	cost(50);
	cost(1000);
	return 0;
}

/* The limits as the log states them: as the user wrote them ("1d", not "86400.000 s"). */
TEST(limits_logged_as_written)
{
	static const struct {
		struct retention_limits l;
		const char *want;
	} cases[] = {
		{ { .age_ns = 86400 * SEC }, "1d" },
		{ { .age_ns = 90 * 60 * SEC }, "90min" },
		{ { .age_ns = 36 * 3600 * SEC }, "36h" },
		{ { .age_ns = 1500 * SEC / 1000 }, "1500ms" },
		{ { .files = 5, .bytes = 2ULL << 30, .age_ns = 7 * 86400 * SEC },
		  "5 files, 2 GiB, 7d" },
		{ { 0 }, "none" },
	};
	char buf[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_STR(retention_limits_fmt(&cases[i].l, buf, sizeof(buf)), cases[i].want);
	return 0;
}

/* The sidecar's instance as the writer puts it, and nothing else. */
TEST(sidecar_instance_parsed)
{
	char id[RETENTION_INSTANCE_MAX + 1];
	const char *ok = "{\n  \"instance\": \"web-01\",\n  \"file\": \"x\"}";

	CHECK_EQ(retention_sidecar_instance(ok, strlen(ok), id), 6);
	CHECK_STR(id, "web-01");
	/* Cut before the closing quote, another first key, {} of older versions. */
	CHECK_EQ(retention_sidecar_instance(ok, 20, id), -1);
	CHECK_EQ(retention_sidecar_instance("{\n  \"file\": \"x\"}", 16, id), -1);
	CHECK_EQ(retention_sidecar_instance("{}\n", 3, id), -1);
	/* Characters an ID never has, an empty one, one too long. */
	CHECK_EQ(retention_sidecar_instance("{\n  \"instance\": \"a b\",", 22, id), -1);
	CHECK_EQ(retention_sidecar_instance("{\n  \"instance\": \"\",", 19, id), -1);
	/* Found by fuzz_names: a NUL inside made "3f\0\0y21" the ID "3f". */
	CHECK_EQ(retention_sidecar_instance("{\n  \"instance\": \"3f\0\0y21\",", 26, id), -1);
	{
		char big[200];
		int n = snprintf(big, sizeof(big), "{\n  \"instance\": \"%064d\",", 0);

		CHECK_EQ(retention_sidecar_instance(big, n, id), -1);
		n = snprintf(big, sizeof(big), "{\n  \"instance\": \"%063d\",", 0);
		CHECK_EQ(retention_sidecar_instance(big, n, id), 63);
	}
	CHECK(retention_instance_ok("trigrec@web.service") == 0);
	CHECK(retention_instance_ok("web.service") == 1);
	{
		char a[17], b[17];

		retention_instance_random(a);
		retention_instance_random(b);
		CHECK_EQ(strlen(a), 16);
		CHECK(strcmp(a, b) != 0);
		CHECK(retention_instance_ok(a));
	}
	return 0;
}

/*
 * Two recorders in one directory, each keeping 1 file: neither counts or
 * removes the other's pairs, however old. Before the fix every pair of our
 * uid counted, so t1's limit removed t2's snapshots.
 */
TEST(other_instances_pairs_never_removed)
{
	struct retention_limits l = { .files = 1 };
	struct retention *r1 = NULL, *r2 = NULL;
	struct retention_stats st = { 0 };
	char a[3][128], b[3][128], f[1024];
	time_t now = time(NULL);

	check_tmpdir(dir, sizeof(dir), "retention");
	for (int i = 0; i < 3; i++) {
		char n[16];

		snprintf(n, sizeof(n), "a%d", i);
		pair_of("t1", now - 60 + 2 * i, n, 1000, a[i], sizeof(a[i]));
		snprintf(n, sizeof(n), "b%d", i);
		pair_of("t2", now - 59 + 2 * i, n, 1000, b[i], sizeof(b[i]));
	}
	r1 = retention__new(-1, dir, "t1", &l);
	r2 = retention__new(-1, dir, "t2", &l);
	CHECK(r1 && r2);
	if (!r1 || !r2)
		goto out;
	CHECK_EQ(retention__enforce(r1, NULL, 0), 2);
	retention__stats(r1, &st);
	CHECK_EQ(st.files, 1);
	for (int i = 0; i < 3; i++) {
		snprintf(f, sizeof(f), "%s.data", a[i]);
		CHECK_EQ(exists(f), i == 2);
		snprintf(f, sizeof(f), "%s.data", b[i]);
		CHECK_EQ(exists(f), 1);
		snprintf(f, sizeof(f), "%s.json", b[i]);
		CHECK_EQ(exists(f), 1);
	}
	CHECK_EQ(retention__enforce(r2, NULL, 0), 2);
	snprintf(f, sizeof(f), "%s.data", a[2]);
	CHECK_EQ(exists(f), 1);
	snprintf(f, sizeof(f), "%s.data", b[2]);
	CHECK_EQ(exists(f), 1);
	CHECK(retention__new(-1, dir, "not an id", &l) == NULL);
out:
	retention__free(r1);
	retention__free(r2);
	check_rmtree(dir);
	return 0;
}

RUN_TESTS(T(sidecar_instance_parsed), T(other_instances_pairs_never_removed), T(data_names),
	  T(limits_logged_as_written), T(choose_by_each_limit),
	  T(choose_never_removes_the_protected_one), T(enforce_counts_and_removes_only_our_pairs),
	  T(enforce_bytes_and_age), T(enforce_without_limits_only_counts),
	  T(publish_refuses_a_pair_over_the_budget), T(cost_50_and_1000))
