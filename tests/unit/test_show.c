// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `trigrec show`'s pure parts: the JSON reader, the perf.data reader (on a
 * file pd_writer writes, plain and zstd-compressed, with hand-made
 * TRACING_DATA, so no tracefs is needed), task runs from sched_switch, the
 * report, and that the HTML and Trace Event outputs are what they claim.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <zstd.h>
#include "check.h"
#include "show/show.h"
#include "snapshot/perfdata.h"

/* ------------------------------------------------------------- JSON -- */

TEST(json_values_and_paths)
{
	const char *t =
		"{\"a\": {\"b\": [10, 18446744073709551615, -3, 1.5e3]}, \"s\": \"x\\\"y\\u00e9\\ud83d\\ude00\","
		" \"t\": true, \"f\": false, \"n\": null, \"e\": {}, \"z\": []}";
	char err[128];
	struct jv *v = jv_parse(t, strlen(t), err, sizeof(err));

	CHECK(v);
	if (!v)
		return 1;
	CHECK_EQ(jv_u64(v, "a.b.0", 0), 10);
	CHECK(jv_u64(v, "a.b.1", 0) == UINT64_MAX);
	CHECK_EQ(jv_i64(v, "a.b.2", 0), -3);
	CHECK_EQ(jv_u64(v, "a.b.2", 7), 7); /* negative: not a u64 */
	CHECK_STR(jv_str(v, "a.b.3", ""), "1.5e3");
	CHECK_STR(jv_str(v, "s", ""), "x\"y\xc3\xa9\xf0\x9f\x98\x80");
	CHECK_EQ(jv_bool(v, "t", 0), 1);
	CHECK_EQ(jv_bool(v, "f", 1), 0);
	CHECK_EQ(jv_get(v, "n")->type, JV_NULL);
	CHECK_EQ(jv_get(v, "e")->n, 0);
	CHECK_EQ(jv_get(v, "z")->type, JV_ARR);
	CHECK(!jv_get(v, "a.b.4"));
	CHECK(!jv_get(v, "a.c"));
	CHECK(!jv_get(v, "s.x"));
	CHECK_STR(jv_str(v, "missing", "def"), "def");
	jv_free(v);
	return 0;
}

TEST(json_errors_say_where)
{
	static const struct {
		const char *t, *err;
	} bad[] = {
		{ "{\"a\": 1,}", "line 1 col 9: expected a member name" },
		{ "[1 2]", "line 1 col 4: expected ',' or ']'" },
		{ "{\"a\"\n: tru}", "line 2 col 3: unexpected character" },
		{ "\"abc", "line 1 col 2: unterminated string" },
		{ "01", "line 1 col 2: text after the value" },
		{ "[1] x", "line 1 col 5: text after the value" },
		{ "\"\\x\"", "line 1 col 4: bad escape" },
		{ "", "line 1 col 1: unexpected end" },
		{ "-", "line 1 col 2: bad number" },
	};
	char err[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct jv *v = jv_parse(bad[i].t, strlen(bad[i].t), err, sizeof(err));

		CHECK(!v);
		CHECK_STR(err, bad[i].err);
		jv_free(v);
	}
	{
		char deep[200];

		memset(deep, '[', 100);
		memset(deep + 100, ']', 100);
		CHECK(!jv_parse(deep, 200, err, sizeof(err)));
		CHECK(strstr(err, "nested too deeply"));
	}
	return 0;
}

/* --------------------------------------------------------- fixture -- */

#define COMMON                                                                         \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"         \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"         \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
static const char fmt_sw[] = "name: sched_switch\nID: 316\nformat:\n" COMMON
			     "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
			     "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
			     "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
			     "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
			     "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
			     "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
			     "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
			     "print fmt: \"prev_comm=%s\"\n";
static const char fmt_pg[] = "name: sys_enter_getpgid\nID: 700\nformat:\n" COMMON
			     "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
			     "\tfield:pid_t pid;\toffset:16;\tsize:8;\tsigned:0;\n\n"
			     "print fmt: \"pid: 0x%08lx\"\n";

#define ST_TP                                                                            \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
	 PERF_SAMPLE_RAW)
#define T0 7000000000000ull

static void put(struct pd_buf *b, const void *p, size_t n)
{
	pd_buf__put(b, p, n);
}

/* TRACING_DATA up to its systems: magic, version, page size, empty headers, no ftrace formats. */
static struct pd_buf tracing_head(void)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct pd_buf b = { 0 };
	uint8_t one[2] = { 0, 8 };

	put(&b, magic, sizeof(magic));
	put(&b, "0.6", 4);
	put(&b, one, 2);
	pd_buf__u32(&b, 4096);
	put(&b, "header_page", 12);
	pd_buf__u64(&b, 0);
	put(&b, "header_event", 13);
	pd_buf__u64(&b, 0);
	pd_buf__u32(&b, 0);
	return b;
}

static void *tracing_data(size_t *len)
{
	struct pd_buf b = tracing_head();

	pd_buf__u32(&b, 2);
	put(&b, "sched", 6);
	pd_buf__u32(&b, 1);
	pd_buf__u64(&b, strlen(fmt_sw));
	put(&b, fmt_sw, strlen(fmt_sw));
	put(&b, "syscalls", 9);
	pd_buf__u32(&b, 1);
	pd_buf__u64(&b, strlen(fmt_pg));
	put(&b, fmt_pg, strlen(fmt_pg));
	pd_buf__u32(&b, 0);
	pd_buf__u32(&b, 0);
	pd_buf__u64(&b, 0);
	*len = b.len;
	return b.p;
}

/* A tracepoint sample as trigrec's file has it: IDENTIFIER TID TIME CPU RAW. */
static int tp_sample(uint8_t *buf, uint64_t id, uint32_t pid, uint32_t tid, uint64_t time,
		     uint32_t cpu, const uint8_t *raw, uint32_t rawlen)
{
	struct perf_event_header *h = (void *)buf;
	uint8_t *p = buf + sizeof(*h);
	uint32_t z = 0, rs = (rawlen + 4 + 7) / 8 * 8 - 4;

	memcpy(p, &id, 8);
	p += 8;
	memcpy(p, &pid, 4);
	memcpy(p + 4, &tid, 4);
	p += 8;
	memcpy(p, &time, 8);
	p += 8;
	memcpy(p, &cpu, 4);
	memcpy(p + 4, &z, 4);
	p += 8;
	memcpy(p, &rs, 4);
	p += 4;
	memset(p, 0, rs);
	memcpy(p, raw, rawlen);
	p += rs;
	h->type = PERF_RECORD_SAMPLE;
	h->misc = 0;
	h->size = p - buf;
	return h->size;
}

static int sw(uint8_t *buf, uint64_t t, uint32_t cpu, const char *pc, int32_t pp, const char *nc,
	      int32_t np)
{
	uint8_t raw[64] = { 0 };
	uint16_t type = 316;

	memcpy(raw, &type, 2);
	memcpy(raw + 4, &pp, 4);
	strncpy((char *)raw + 8, pc, 16);
	memcpy(raw + 24, &pp, 4);
	strncpy((char *)raw + 40, nc, 16);
	memcpy(raw + 56, &np, 4);
	return tp_sample(buf, 101 + cpu, pp, pp, t, cpu, raw, sizeof(raw));
}

static int pg(uint8_t *buf, uint64_t t, uint32_t cpu, uint32_t pid, uint32_t tid, uint64_t v)
{
	uint8_t raw[24] = { 0 };
	uint16_t type = 700;
	int32_t nr = 121;

	memcpy(raw, &type, 2);
	memcpy(raw + 4, &tid, 4);
	memcpy(raw + 8, &nr, 4);
	memcpy(raw + 16, &v, 8);
	return tp_sample(buf, 201 + cpu, pid, tid, t, cpu, raw, sizeof(raw));
}

static uint64_t ids_sw[] = { 101, 102 }, ids_pg[] = { 201, 202 }, ids_d[] = { 301, 302 };

/* Names with terminal escapes in every string show prints (see hostile_strings_are_clean). */
static int evil;

/* The snapshot: a worker (100) and another (200, threads 200 and 201); a rate trigger on CPU 1. */
static int write_snapshot_bulk(const char *dir, int zlevel, char *data, char *json, int bulk)
{
	struct pd_event evs[3] = { 0 };
	struct pd_meta meta = { .hostname = evil ? "h\x1b]0;owned\x07" : "h",
				.osrelease = "6.0",
				.version = "t",
				.arch = "x",
				.cpudesc = "",
				.cpuid = "" };
	uint8_t rec[512];
	struct pd_writer *w;
	size_t tdlen;
	void *td = tracing_data(&tdlen);
	int fd, n, err;
	FILE *f;

	for (int i = 0; i < 3; i++) {
		evs[i].attr.size = sizeof(evs[i].attr);
		evs[i].attr.sample_period = 1;
		evs[i].attr.sample_id_all = 1;
		evs[i].attr.sample_type = ST_TP;
		evs[i].nr_ids = 2;
	}
	evs[0].attr.type = evs[1].attr.type = PERF_TYPE_TRACEPOINT;
	evs[0].attr.config = 316;
	evs[1].attr.config = 700;
	evs[0].ids = ids_sw;
	evs[1].ids = ids_pg;
	strcpy(evs[0].name, "sched:sched_switch");
	strcpy(evs[1].name, evil ? "syscalls:\x1b[2Jgetpgid" : "syscalls:sys_enter_getpgid");
	evs[2].attr.type = PERF_TYPE_SOFTWARE;
	evs[2].attr.config = PERF_COUNT_SW_DUMMY;
	evs[2].attr.sample_type =
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	evs[2].attr.comm = 1;
	evs[2].ids = ids_d;
	strcpy(evs[2].name, "dummy:tracking");
	meta.tracing_data = td;
	meta.tracing_data_len = tdlen;

	sprintf(data, "%s/snap.data", dir);
	sprintf(json, "%s/snap.json", dir);
	fd = open(data, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	w = fd >= 0 ? pd_writer__new(fd, evs, 3) : NULL;
	err = w ? 0 : -EIO;
	if (!err && zlevel)
		err = pd_writer__set_zstd(w, zlevel, 0);
	if (!err)
		err = pd_writer__begin(w);
#define PUT(expr)                                                      \
	do {                                                           \
		n = (expr);                                            \
		if (!err)                                              \
			err = n < 0 ? n : pd_writer__write(w, rec, n); \
	} while (0)
	PUT(pd_synth_comm(rec, sizeof(rec), &evs[2].attr, 301, 100, 100, "worker", 0, 0, 0));
	PUT(pd_synth_comm(rec, sizeof(rec), &evs[2].attr, 301, 200, 200, "other", 0, 0, 0));
	PUT(sw(rec, T0 + 1000, 0, "swapper/0", 0, "worker", 100));
	PUT(pg(rec, T0 + 1100, 0, 100, 100, 5));
	PUT(sw(rec, T0 + 1200, 1, "swapper/1", 0, "other", 200));
	PUT(pg(rec, T0 + 1300, 0, 100, 100, 6));
	/* a rename (exec) between two of thread 200's records */
	PUT(pd_synth_comm(rec, sizeof(rec), &evs[2].attr, 302, 200, 200,
			  evil ? "re\x1b[31mnamed" : "renamed", 1, T0 + 1350, 1));
	PUT(pg(rec, T0 + 1400, 1, 200, 200, 8));
	PUT(sw(rec, T0 + 1500, 0, "worker", 100, "swapper/0", 0));
	PUT(pg(rec, T0 + 1550, 1, 200, 201, 9)); /* another thread of 200 */
	PUT(pg(rec, T0 + 1600, 1, 200, 200, 7)); /* the trigger's record */
	for (int i = 0; i < bulk; i++)
		PUT(pg(rec, T0 + 2000 + i, i & 1, 300, 300 + i % 7, 1000000 + i));
#undef PUT
	if (!err)
		err = pd_writer__finish(w, &meta);
	pd_writer__free(w);
	if (fd >= 0)
		close(fd);
	free(td);
	if (err)
		return err;
	f = fopen(json, "w");
	if (!f)
		return -errno;
	if (evil) {
		/* what a local user controls: their comm, str() text, so the key */
		fprintf(f,
			"{\"trigger\": {\"name\": \"b\\u001b[8murst\", \"text\": \"rate x "
			"\\u009b31m\", \"time_ns\": %llu, \"cpu\": 1, \"pid\": 200, \"tid\": 200, "
			"\"comm\": \"\\u001b]2;root\\u0007\", \"kind\": \"latency\", "
			"\"event\": \"e\\u001bv\", \"fields\": {\"k\\u001bey\": \"v\\u001b[1m\", "
			"\"n\": [\"\\u001b\"]}, \"latency\": {\"key_text\": \"\\u001b[2J\\r\", "
			"\"duration_ns\": 5, \"start\": {\"event\": \"\\u001bs\", \"key\": "
			"\"\\u007f\"}, \"end\": {\"event\": \"\\u001be\", \"key\": \"\\u0085\"}}, "
			"\"rate\": {\"key\": \"\\u001b\", \"key_text\": \"\\u001b[K\"}}, "
			"\"window\": {\"start_ns\": %llu, \"end_ns\": %llu}}\n",
			T0 + 1590, T0 + 1000, T0 + 1600);
		return fclose(f) ? -errno : 0;
	}
	fprintf(f,
		"{\"file\": \"%s\", \"trigger\": {\"name\": \"burst\", \"text\": \"rate "
		"syscalls:sys_enter_getpgid by tid > 2/1us name burst\", \"id\": 0, \"time_ns\": %llu, "
		"\"wall_time_ns\": 1, \"cpu\": 1, \"pid\": 200, \"tid\": 200, \"comm\": \"renamed\", "
		"\"event\": \"syscalls:sys_enter_getpgid\", \"fields\": {\"__syscall_nr\": 121, "
		"\"pid\": 7}, \"kind\": \"rate\", \"rate\": {\"count\": 3, \"threshold\": 2, "
		"\"window_ns\": 1000, \"key\": \"tid\", \"key_values\": [200, 0]}},\n"
		"\"coalesced_triggers\": 0, \"window\": {\"start_ns\": %llu, \"end_ns\": %llu, "
		"\"duration_ns\": 600, \"post_ns\": 0, \"aligned\": true}, \"records\": 9, \"bytes\": 1,"
		"\"lost_while_frozen\": 0, \"cpus\": [{\"cpu\": 0, \"ring\": \"main\", \"wrapped\": false, "
		"\"lost\": 0}, {\"cpu\": 1, \"ring\": \"main\", \"wrapped\": true, \"lost\": 2}, "
		"{\"cpu\": 2, \"ring\": \"main\", \"wrapped\": false, \"lost\": 0}, {\"cpu\": 0, "
		"\"ring\": \"tracking\"}]}\n",
		data, T0 + 1590, T0 + 1000, T0 + 1600);
	return fclose(f) ? -errno : 0;
}

static int write_snapshot(const char *dir, int zlevel, char *data, char *json)
{
	return write_snapshot_bulk(dir, zlevel, data, json, 0);
}

static char *report(const struct show *s, int nlast, size_t *len)
{
	char *out = NULL;
	FILE *f = open_memstream(&out, len);

	show__print(s, f, nlast);
	fclose(f);
	return out;
}

/* Remove a test's directory (its files are named by the test). */
static void rm_dir(const char *dir)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "    could not remove %s\n", dir);
}

/* The JSON data block of a --html page, parsed; NULL if absent. */
static struct jv *page_data(const char *html, char *err, size_t len)
{
	const char *b = strstr(html, "type=\"application/json\">"), *e;

	if (!b)
		return NULL;
	b += 24;
	e = strstr(b, "</script>");
	return e ? jv_parse(b, e - b, err, len) : NULL;
}

static int check_snapshot(int zlevel)
{
	char dir[] = "/tmp/trigrec-show-XXXXXX", data[128], json[128], err[512];
	struct show *s = NULL;
	struct show_view v;
	char *txt = NULL, *html = NULL, *chrome = NULL;
	size_t len, hlen, clen;
	FILE *f;

	CHECK(mkdtemp(dir));
	CHECK_EQ(write_snapshot(dir, zlevel, data, json), 0);
	/* either name finds the pair */
	s = show__open(json, err, sizeof(err));
	CHECK(s);
	if (!s) {
		fprintf(stderr, "    %s\n", err);
		goto out;
	}
	CHECK_STR(s->data_path, data);
	CHECK(s->sc);
	CHECK_EQ(s->pd->compressed, !!zlevel);
	CHECK_EQ(s->nr, 8);	 /* samples only, not the COMMs */
	CHECK_EQ(s->nr_cpus, 3); /* CPU 2 has a ring but no record: still a lane */
	CHECK_STR(s->pd->attrs[1].name, "syscalls:sys_enter_getpgid");
	CHECK(s->pd->attrs[1].fmt);
	CHECK_EQ(s->trig_rec, 7);	       /* the first record at/after the trigger time */
	CHECK_STR(s->recs[4].comm, "renamed"); /* the exec COMM at 1350 renamed thread 200 */
	CHECK_STR(s->recs[2].comm, "swapper"); /* the switch to 200 is idle's record */
	CHECK_STR(s->recs[3].comm, "worker");
	CHECK_STR(s->recs[6].comm, ":201"); /* never named: as perf script says it */
	/* runs: worker on CPU 0 1000..1500, other on CPU 1 from 1200 to the window's end */
	CHECK_EQ(s->nr_runs, 2);
	CHECK_EQ(s->has_switch, 1);
	for (size_t i = 0; i < s->nr_runs; i++) {
		const struct show_run *r = &s->runs[i];

		if (r->cpu == 0) {
			CHECK_EQ(r->tid, 100);
			CHECK_EQ(r->start, T0 + 1000);
			CHECK_EQ(r->end, T0 + 1500);
			CHECK_STR(r->comm, "worker");
		} else {
			CHECK_EQ(r->tid, 200);
			CHECK_EQ(r->pid, 200);
			CHECK_EQ(r->start, T0 + 1200);
			CHECK_EQ(r->end, T0 + 1600);
		}
	}
	CHECK_EQ(s->nr_spans, 1);
	CHECK_STR(s->spans[0].kind, "rate");
	CHECK_EQ(s->spans[0].start, T0 + 590);

	{
		char f[256];

		/* The one formatter of a record's fields (text report and --html). */
		show_rec_fields(s, &s->recs[s->trig_rec], f, sizeof(f));
		CHECK_STR(f, "__syscall_nr=121 pid=7");
	}
	txt = report(s, 3, &len);
	CHECK(strstr(txt, "trigger   burst (rate trigger)\n"));
	CHECK(strstr(txt, "  event   syscalls:sys_enter_getpgid: __syscall_nr=121 pid=7\n"));
	CHECK(strstr(txt, "  rate    3 events in 1.000 us, over the threshold of 2 (key tid), "
			  "from 7000.000000590 to 7000.000001590\n"));
	CHECK(strstr(txt,
		     "  1           4  7000.000001200        7000.000001600        yes      2\n"));
	CHECK(strstr(txt,
		     "  2           0  -                     -                     no       0\n"));
	/* thread 201's record at 1550 and idle's switch at 1200 are not the triggering thread's */
	CHECK(strstr(
		txt,
		"last 2 records of renamed 200/200 up to the trigger:\n"
		"  time                  cpu  event                            fields\n"
		"  7000.000001400        1    syscalls:sys_enter_getpgid       __syscall_nr=121 pid=8\n"
		"  7000.000001600        1    syscalls:sys_enter_getpgid       __syscall_nr=121 pid=7  "
		"<- trigger\n"));
	CHECK(strstr(txt, "         3  500 ns       100/100         worker\n"
			  "         2  400 ns       200/200         renamed\n"));
	CHECK(strstr(txt,
		     "window    7000.000001000 .. 7000.000001600 (600 ns), aligned, 8 records"));
	free(txt);
	txt = report(s, 1, &len);
	CHECK(strstr(txt, "last 1 record of renamed 200/200 up to the trigger:\n"));
	if (check_failed_in_test)
		fputs(txt, stderr);

	show_view_pick(s, 0, &v);
	CHECK_EQ(v.lo, 0);
	CHECK_EQ(v.hi, 8);
	CHECK_EQ(v.cut, 0);
	f = open_memstream(&html, &hlen);
	CHECK_EQ(show__write_html(s, &v, f, 10), 0);
	fclose(f);
	CHECK(strstr(html, "<script id=\"data\" type=\"application/json\">"));
	CHECK(!strstr(html, "http://") || !strstr(html, "src=\"http")); /* nothing fetched */
	CHECK(!strstr(html, "<script src"));
	CHECK(!strstr(html, "<link"));
	{
		/* the data block is JSON with every record, every run, the trigger */
		struct jv *d = page_data(html, err, sizeof(err));

		CHECK(d);
		CHECK_EQ(jv_get(d, "recs") ? jv_get(d, "recs")->n : -1, 8);
		CHECK_EQ(jv_get(d, "runs") ? jv_get(d, "runs")->n : -1, 2);
		CHECK_EQ(jv_get(d, "cpus") ? jv_get(d, "cpus")->n : -1, 3);
		CHECK_EQ(jv_u64(d, "trig.t", 0), 600);
		CHECK_STR(jv_str(d, "t0", ""), "7000000001000");
		CHECK_STR(jv_str(d, "recs.7.6", ""), "__syscall_nr=121 pid=7");
		jv_free(d);
	}

	f = open_memstream(&chrome, &clen);
	CHECK_EQ(show__write_chrome(s, &v, f), 0);
	fclose(f);
	{
		struct jv *c = jv_parse(chrome, clen, err, sizeof(err));
		const struct jv *ev = jv_get(c, "traceEvents");
		int inst = 0, runs = 0, trig = 0, cpus = 0, threads = 0;

		CHECK(c && ev);
		for (int i = 0; ev && i < ev->n; i++) {
			const char *ph = jv_str(&ev->kids[i], "ph", "");
			const char *name = jv_str(&ev->kids[i], "name", "");

			inst += !strcmp(ph, "i") && !strcmp(jv_str(&ev->kids[i], "s", ""), "t");
			runs += !strcmp(ph, "X") &&
				!strcmp(jv_str(&ev->kids[i], "cat", ""), "sched");
			trig += !strcmp(ph, "i") && !strcmp(name, "trigger burst") &&
				!strcmp(jv_str(&ev->kids[i], "ts", ""), "7000000001.600");
			if (!strcmp(ph, "M") && !strcmp(name, "thread_name")) {
				const char *n = jv_str(&ev->kids[i], "args.name", "");

				cpus += !strncmp(n, "CPU ", 4);
				threads += !strcmp(n, "renamed 200") || !strcmp(n, "worker 100") ||
					   !strcmp(n, ":201 201");
			}
			if (!strcmp(name, "syscalls:sys_enter_getpgid") &&
			    !strcmp(jv_str(&ev->kids[i], "ts", ""), "7000000001.600"))
				CHECK_EQ(jv_u64(&ev->kids[i], "args.pid", 0), 7);
		}
		CHECK_EQ(inst, 8);
		CHECK_EQ(runs, 2);
		CHECK_EQ(trig, 1);
		CHECK_EQ(cpus, 3);
		CHECK_EQ(threads, 3);
		jv_free(c);
	}
out:
	free(txt);
	free(html);
	free(chrome);
	show__free(s);
	rm_dir(dir);
	return 0;
}

TEST(snapshot_read_back)
{
	return check_snapshot(0);
}

TEST(snapshot_read_back_zstd)
{
	return check_snapshot(3);
}

/*
 * A page or trace of a big snapshot holds the records nearest the trigger:
 * up to and with its own, then a quarter of the room after it.
 */
TEST(view_of_a_big_snapshot)
{
	char dir[] = "/tmp/trigrec-show-XXXXXX", d[128], j[128], err[512];
	struct show *s = NULL;
	struct show_view v;
	char *html = NULL, *chrome = NULL;
	size_t hlen, clen;
	FILE *f;

	CHECK(mkdtemp(dir));
	CHECK_EQ(write_snapshot_bulk(dir, 0, d, j, 100), 0);
	s = show__open(j, err, sizeof(err));
	CHECK(s);
	if (!s) {
		fprintf(stderr, "    %s\n", err);
		goto out;
	}
	CHECK_EQ(s->nr, 108);
	CHECK_EQ(s->trig_rec, 7);
	show_view_pick(s, 0, &v); /* all: the window's start, the last record */
	CHECK_EQ(v.lo, 0);
	CHECK_EQ(v.hi, 108);
	CHECK_EQ(v.cut, 0);
	CHECK_EQ(v.t0, T0 + 1000);
	CHECK_EQ(v.t1, T0 + 2099);
	show_view_pick(s, 200, &v);
	CHECK_EQ(v.hi - v.lo, 108);
	CHECK_EQ(v.cut, 0);
	show_view_pick(s, 10, &v); /* all 8 up to the trigger, 2 after */
	CHECK_EQ(v.lo, 0);
	CHECK_EQ(v.hi, 10);
	CHECK_EQ(v.cut, 1);
	CHECK_EQ(v.t0, T0 + 1000);
	CHECK_EQ(v.t1, T0 + 2001);
	show_view_pick(s, 4, &v); /* 3 up to the trigger, 1 after */
	CHECK_EQ(v.lo, 5);
	CHECK_EQ(v.hi, 9);
	CHECK_EQ(v.t0, T0 + 1500);
	CHECK_EQ(v.t1, T0 + 2000);

	f = open_memstream(&html, &hlen);
	CHECK_EQ(show__write_html(s, &v, f, 10), 0);
	fclose(f);
	CHECK(strstr(html, "This page holds the 4 records nearest the trigger, of 108"));
	{
		struct jv *dj = page_data(html, err, sizeof(err));

		CHECK(dj);
		CHECK_EQ(jv_get(dj, "recs") ? jv_get(dj, "recs")->n : -1, 4);
		CHECK_STR(jv_str(dj, "t0", ""), "7000000001500");
		CHECK_EQ(jv_u64(dj, "win.1", 0), 500);
		CHECK_EQ(jv_u64(dj, "trig.t", 0), 100);
		CHECK_STR(jv_str(dj, "recs.2.6", ""), "__syscall_nr=121 pid=7");
		/* only thread 200's run reaches into the view, cut at its start */
		CHECK_EQ(jv_get(dj, "runs") ? jv_get(dj, "runs")->n : -1, 1);
		CHECK_EQ(jv_u64(dj, "runs.0.1", 1), 0);
		CHECK_EQ(jv_u64(dj, "runs.0.2", 0), 100);
		CHECK_EQ(jv_u64(dj, "runs.0.4", 0), 200);
		jv_free(dj);
	}
	f = open_memstream(&chrome, &clen);
	CHECK_EQ(show__write_chrome(s, &v, f), 0);
	fclose(f);
	{
		struct jv *c = jv_parse(chrome, clen, err, sizeof(err));
		const struct jv *ev = c ? jv_get(c, "traceEvents") : NULL;
		int inst = 0, runs = 0;

		CHECK(c && ev);
		for (int i = 0; ev && i < ev->n; i++) {
			const char *ph = jv_str(&ev->kids[i], "ph", "");

			inst += !strcmp(ph, "i") && !strcmp(jv_str(&ev->kids[i], "s", ""), "t");
			if (!strcmp(ph, "X") && !strcmp(jv_str(&ev->kids[i], "cat", ""), "sched")) {
				runs++;
				CHECK_STR(jv_str(&ev->kids[i], "ts", ""), "7000000001.500");
			}
		}
		CHECK_EQ(inst, 4);
		CHECK_EQ(runs, 1);
		jv_free(c);
	}
out:
	free(html);
	free(chrome);
	show__free(s);
	rm_dir(dir);
	return 0;
}

/* 200 000 records: many COMPRESSED payloads, one zstd stream; the same records as plain. */
TEST(zstd_many_payloads)
{
	char dir[] = "/tmp/trigrec-show-XXXXXX", d1[128], j1[128], d2[128], j2[128], err[512];
	char a[256], b[256], cmd[160];
	struct show *p = NULL, *z = NULL;
	int bulk = 200000;

	CHECK(mkdtemp(dir));
	CHECK_EQ(write_snapshot_bulk(dir, 0, d1, j1, bulk), 0);
	snprintf(cmd, sizeof(cmd), "mv %s %s/plain.data", d1, dir);
	CHECK_EQ(system(cmd), 0);
	snprintf(d1, sizeof(d1), "%s/plain.data", dir);
	CHECK_EQ(write_snapshot_bulk(dir, 1, d2, j2, bulk), 0);
	p = show__open_pair(d1, NULL, err, sizeof(err));
	z = show__open_pair(d2, NULL, err, sizeof(err));
	CHECK(p && z);
	if (p && z) {
		CHECK_EQ(z->pd->compressed, 1);
		CHECK_EQ(p->nr, 8 + bulk);
		CHECK_EQ(z->nr, p->nr);
		for (size_t i = 0; i < p->nr && i < z->nr; i += 997) {
			pdr_fields_str(p->pd->attrs[p->recs[i].attr].fmt, show_raw(&p->recs[i]),
				       p->recs[i].raw_size, a, sizeof(a));
			pdr_fields_str(z->pd->attrs[z->recs[i].attr].fmt, show_raw(&z->recs[i]),
				       z->recs[i].raw_size, b, sizeof(b));
			CHECK_STR(a, b);
			CHECK_EQ(p->recs[i].time, z->recs[i].time);
			CHECK_EQ(p->recs[i].tid, z->recs[i].tid);
		}
		/*
		 * Several zstd frames (a chunk of ~1 MiB each, compressed by the
		 * workers), read back through one stream as perf does: count the
		 * frame magic at the start of COMPRESSED payloads.
		 */
		{
			FILE *f = fopen(d2, "rb");
			unsigned char *buf = malloc(64 << 20);
			size_t len = f && buf ? fread(buf, 1, 64 << 20, f) : 0;
			static const unsigned char magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
			int frames = 0;

			for (size_t o = 0; o + 12 <= len; o++)
				if (buf[o] == 81 && buf[o + 1] == 0 &&
				    !memcmp(buf + o + 8, magic, 4))
					frames++;
			CHECK(frames >= 3);
			if (f)
				fclose(f);
			free(buf);
		}
		snprintf(a, sizeof(a), "__syscall_nr=121 pid=%d", 1000000 + bulk - 1);
		pdr_fields_str(z->pd->attrs[1].fmt, show_raw(&z->recs[z->nr - 1]),
			       z->recs[z->nr - 1].raw_size, b, sizeof(b));
		CHECK_STR(b, a);
	} else {
		fprintf(stderr, "    %s\n", err);
	}
	show__free(p);
	show__free(z);
	rm_dir(dir);
	return 0;
}

/* ------------------------------------------------------ crafted files -- */

/*
 * Bytes placed right before a PROT_NONE page: a read one byte past them
 * faults in every build, not only under ASan. Free with unguard().
 */
static void *guarded(const void *p, size_t len)
{
	size_t pg = sysconf(_SC_PAGESIZE), n = (len + pg - 1) / pg * pg + pg;
	uint8_t *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	if (mprotect(m + n - pg, pg, PROT_NONE)) {
		munmap(m, n);
		return NULL;
	}
	memcpy(m + n - pg - len, p, len);
	return m + n - pg - len;
}

static void unguard(void *q, size_t len)
{
	size_t pg = sysconf(_SC_PAGESIZE), n = (len + pg - 1) / pg * pg + pg;
	uint8_t *end = (uint8_t *)q + len;

	if (q)
		munmap(end + pg - n, n);
}

/*
 * A perf.data by hand: header, nattr copies of one attr (all naming the same
 * ids, nids of them), the ids, then the data section, and nothing after it.
 */
static uint8_t *craft(uint64_t sample_type, int nattr, int nids, const void *data, size_t dlen,
		      size_t *len)
{
	struct {
		uint64_t magic, size, attr_size, attrs[2], data[2], types[2], feat[4];
	} fh = { 0 };
	size_t asz = sizeof(struct perf_event_attr) + 16, ids_off = 104 + nattr * asz;
	uint8_t *b;

	*len = ids_off + nids * 8 + dlen;
	b = calloc(1, *len);
	fh.magic = 0x32454c4946524550ull;
	fh.size = 104;
	fh.attr_size = asz;
	fh.attrs[0] = 104;
	fh.attrs[1] = nattr * asz;
	fh.data[0] = ids_off + nids * 8;
	fh.data[1] = dlen;
	memcpy(b, &fh, sizeof(fh));
	for (int i = 0; i < nattr; i++) {
		struct perf_event_attr a = { .size = sizeof(a), .sample_type = sample_type };
		uint64_t ids[2] = { ids_off, nids * 8 };

		memcpy(b + 104 + i * asz, &a, sizeof(a));
		memcpy(b + 104 + i * asz + sizeof(a), ids, 16);
	}
	for (int i = 0; i < nids; i++) {
		uint64_t id = 500 + i;

		memcpy(b + ids_off + i * 8, &id, 8);
	}
	memcpy(b + fh.data[0], data, dlen);
	return b;
}

/* Open crafted bytes (placed before a guard page) as show does; err says why not. */
static struct show *open_crafted(const uint8_t *b, size_t len, const char *json, char *err,
				 size_t errlen)
{
	void *g = guarded(b, len);
	struct show *s;

	if (!g) {
		snprintf(err, errlen, "mmap failed");
		return NULL;
	}
	s = show__open_mem(g, len, json, json ? strlen(json) : 0, "crafted.data", err, errlen);
	if (s) {
		size_t rl;
		char *out = report(s, 10, &rl);

		free(out);
		show__free(s);
	}
	unguard(g, len);
	return s;
}

TEST(crafted_cpu_ffffffff_is_refused)
{
	uint8_t rec[256], raw[8] = { 0 }, *b;
	char err[512];
	size_t len;
	int n = tp_sample(rec, 500, 7, 7, T0, 0xffffffffu, raw, sizeof(raw));

	/* as in issue 28: the CPU once was compared as an int against the highest one */
	b = craft(ST_TP, 1, 1, rec, n, &len);
	CHECK(!open_crafted(b, len, NULL, err, sizeof(err)));
	CHECK(strstr(err, "crafted.data: file offset 256: PERF_RECORD_SAMPLE of attr0 says CPU "
			  "4294967295, not below 8192"));
	free(b);
	/* CPU 8191 is one: read, and the per-CPU tables take 8192 entries, no more */
	n = tp_sample(rec, 500, 7, 7, T0, 8191, raw, sizeof(raw));
	b = craft(ST_TP, 1, 1, rec, n, &len);
	CHECK(open_crafted(b, len, NULL, err, sizeof(err)));
	free(b);
	return 0;
}

TEST(crafted_sidecar_cpus_out_of_range_are_left_out)
{
	uint8_t rec[256], raw[8] = { 0 }, *b;
	char err[512];
	size_t len;
	int n = tp_sample(rec, 500, 7, 7, T0, 3, raw, sizeof(raw));
	const char *json = "{\"cpus\": [{\"cpu\": -1}, {\"cpu\": 4294967295}, "
			   "{\"cpu\": 1099511627776}, {\"cpu\": 2}]}";
	struct show *s;

	b = craft(ST_TP, 1, 1, rec, n, &len);
	s = show__open_mem(b, len, json, strlen(json), "x.data", err, sizeof(err));
	CHECK(s);
	if (s) {
		size_t rl;
		char *out = report(s, 10, &rl);

		CHECK_EQ(s->nr_cpus, 2);
		CHECK_EQ(s->cpus[0], 2);
		CHECK_EQ(s->cpus[1], 3);
		free(out);
		show__free(s);
	}
	free(b);
	return 0;
}

TEST(crafted_short_comm_at_the_end_is_refused)
{
	uint8_t d[256], raw[8] = { 0 }, *b;
	struct perf_event_header comm = { PERF_RECORD_COMM, 0, 8 };
	char err[512];
	size_t len;
	int n = tp_sample(d, 500, 7, 7, T0, 0, raw, sizeof(raw));

	/* an 8-byte COMM, the file's last bytes: its name was read with %s past them */
	memcpy(d + n, &comm, sizeof(comm));
	b = craft(ST_TP, 1, 1, d, n + 8, &len);
	CHECK(!open_crafted(b, len, NULL, err, sizeof(err)));
	CHECK(strstr(err, "crafted.data: file offset 312: PERF_RECORD_COMM of 8 bytes, shorter "
			  "than its header, pid, tid and name (24)"));
	free(b);
	/* a FORK too short for its tids */
	comm = (struct perf_event_header){ PERF_RECORD_FORK, 0, 24 };
	memcpy(d + n, &comm, sizeof(comm));
	memset(d + n + 8, 0, 16);
	b = craft(ST_TP, 1, 1, d, n + 24, &len);
	CHECK(!open_crafted(b, len, NULL, err, sizeof(err)));
	CHECK(strstr(err, "PERF_RECORD_FORK of 24 bytes"));
	free(b);
	/* a COMM whose name fills it with no NUL: read up to its end, no further */
	{
		struct perf_event_header h = { PERF_RECORD_COMM, 0, 24 };
		uint32_t ids[2] = { 7, 7 };
		const uint8_t nonul[8] = { 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H' };
		void *g;

		/* the COMM first, so it names thread 7's sample */
		memcpy(d, &h, 8);
		memcpy(d + 8, ids, 8);
		memcpy(d + 16, nonul, sizeof(nonul));
		n = tp_sample(d + 24, 500, 7, 7, T0, 0, raw, sizeof(raw));
		b = craft(ST_TP, 1, 1, d, n + 24, &len);
		g = guarded(b, len);
		if (g) {
			struct show *s = show__open_mem(g, len, "{\"trigger\":{\"tid\":7}}", 21,
							"c.data", err, sizeof(err));

			CHECK(s);
			if (s) {
				CHECK_EQ(s->nr, 1);
				CHECK_STR(s->recs[0].comm, "ABCDEFGH");
				show__free(s);
			}
			unguard(g, len);
		}
		free(b);
	}
	return 0;
}

static const char fmt_wrap[] =
	"name: wrap\nID: 9\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int big;\toffset:4294967280;\tsize:32;\tsigned:1;\n"
	"\tfield:int arr[8];\toffset:4294967292;\tsize:32;\tsigned:1;\n"
	"\tfield:__data_loc char[] s;\toffset:14;\tsize:2;\tsigned:0;\n"
	"\tfield:int ok;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"\"\n";

TEST(crafted_field_offset_wrapping_in_32_bits_reads_nothing)
{
	struct tp_format *f = tp_format__parse("x", "wrap", fmt_wrap, strlen(fmt_wrap));
	uint8_t raw[16] = { 9, 0, 0, 0, 42 };
	uint8_t *g = guarded(raw, sizeof(raw));
	char buf[256];
	int64_t v = 1;

	CHECK(f && g);
	if (!f || !g)
		return 1;
	/* offset + size was 0x10 in 32 bits: "inside" a 16-byte record, read 4 GiB past it */
	pdr_field_str(tp_format__field(f, "big"), g, sizeof(raw), buf, sizeof(buf));
	CHECK_STR(buf, "");
	pdr_field_str(tp_format__field(f, "arr"), g, sizeof(raw), buf, sizeof(buf));
	CHECK_STR(buf, "");
	CHECK_EQ(pdr_field_int(f, g, sizeof(raw), "big", &v), -ENOENT);
	CHECK_EQ(v, 0);
	/* a __data_loc of 2 bytes at the record's end: its 4-byte word would cross it */
	pdr_field_str(tp_format__field(f, "s"), g, sizeof(raw), buf, sizeof(buf));
	CHECK_STR(buf, "");
	pdr_fields_str(f, g, sizeof(raw), buf, sizeof(buf));
	CHECK_STR(buf, "big= arr= s= ok=42");
	unguard(g, sizeof(raw));
	tp_format__free(f);
	return 0;
}

/* TRACING_DATA with one format of txtlen bytes, ending the section. */
static uint8_t *tracing_one(const char *txt, size_t txtlen, size_t *len)
{
	struct pd_buf b = tracing_head();

	pd_buf__u32(&b, 1);
	put(&b, "sys", 4);
	pd_buf__u32(&b, 1);
	pd_buf__u64(&b, txtlen);
	put(&b, txt, txtlen);
	*len = b.len;
	return b.p;
}

TEST(crafted_format_at_the_section_end_is_read_inside_it)
{
	/* no newline after the name, nothing after the section: each read once went past it */
	static const char *texts[] = {
		"\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\nname: abc",
		"\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\nna",
		"\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\nname: ",
	};
	static const char *names[] = { "abc", "", "" };

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		size_t len;
		uint8_t *td = tracing_one(texts[i], strlen(texts[i]), &len);
		void *g = guarded(td, len);
		struct tp_format **v = NULL;
		int n = g ? pdr_tracing_formats(g, len, &v) : -1;

		CHECK_EQ(n, 1);
		if (n == 1) {
			CHECK_STR(v[0]->name, names[i]);
			CHECK_STR(v[0]->sys, "sys");
			tp_format__free(v[0]);
		}
		free(v);
		unguard(g, len);
		free(td);
	}
	return 0;
}

TEST(crafted_record_of_odd_size_is_refused)
{
	uint8_t d[256] = { 0 }, raw[8] = { 0 }, *b;
	struct perf_event_header odd = { PERF_RECORD_COMM, 0, 28 };
	char err[512];
	size_t len;
	int n;

	/* found by fuzz_perfdata: a COMM of 28 bytes left the next record misaligned */
	memcpy(d, &odd, sizeof(odd));
	n = tp_sample(d + 28, 500, 7, 7, T0, 0, raw, sizeof(raw));
	b = craft(ST_TP, 1, 1, d, (28 + n + 7) / 8 * 8, &len);
	CHECK(!open_crafted(b, len, NULL, err, sizeof(err)));
	CHECK(strstr(err, "crafted.data: file offset 256: record type 3 of 28 bytes, not a "
			  "multiple of 8"));
	free(b);
	return 0;
}

/* The inputs fuzz_perfdata found (tests/fuzz/corpus/perfdata/crash-*): each opens or says why. */
TEST(fuzz_findings_open_or_say_why)
{
	static const char *names[] = { "crash-no-event-desc", "crash-misaligned-record",
				       "crash-no-cpus", "crash-format-size-cut" };
	int found = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[256], err[1024];
		size_t len = 0;
		uint8_t *b = NULL;
		FILE *f;

		snprintf(path, sizeof(path), "tests/fuzz/corpus/perfdata/%s", names[i]);
		f = fopen(path, "re");
		if (!f)
			continue;
		b = malloc(65536);
		len = b ? fread(b, 1, 65536, f) : 0;
		fclose(f);
		if (!b)
			return 1;
		found++;
		if (!open_crafted(b, len, "{\"trigger\":{\"tid\":200}}", err, sizeof(err)))
			CHECK(strstr(err, "crafted.data: "));
		free(b);
	}
	if (!found)
		SKIP("no tests/fuzz/corpus/perfdata/crash-* here (run from the source tree)");
	CHECK_EQ(found, 4);
	return 0;
}

TEST(crafted_overlapping_id_tables_are_refused)
{
	uint8_t rec[256], raw[8] = { 0 }, *b;
	char err[512];
	size_t len;
	int n = tp_sample(rec, 500, 7, 7, T0, 0, raw, sizeof(raw));

	/* 64 attrs naming one table of 64 ids: 32 KiB of ids from a file of 14 KiB */
	b = craft(ST_TP, 64, 64, rec, n, &len);
	CHECK(!open_crafted(b, len, NULL, err, sizeof(err)));
	CHECK(strstr(err, "the attrs' id tables add up to"));
	CHECK(strstr(err, "they overlap"));
	free(b);
	/* one attr with them all is fine */
	b = craft(ST_TP, 1, 64, rec, n, &len);
	CHECK(open_crafted(b, len, NULL, err, sizeof(err)));
	free(b);
	return 0;
}

TEST(crafted_zstd_bomb_is_refused)
{
	size_t zn = 100u << 20, cb = ZSTD_compressBound(zn), len;
	uint8_t *zeros = calloc(1, zn), *rec = malloc(cb + 8), *b;
	struct perf_event_header h = { 81, 0, 0 };
	char err[512];
	size_t c;

	CHECK(zeros && rec);
	if (!zeros || !rec) {
		free(zeros);
		free(rec);
		return 1;
	}
	c = ZSTD_compress(rec + 8, cb, zeros, zn, 1);
	free(zeros);
	CHECK(!ZSTD_isError(c) && c + 8 < 65536);
	h.size = (uint16_t)(c + 8);
	memcpy(rec, &h, 8);
	/* 100 MiB from a few KiB: more than 256 times the data and 64 MiB */
	b = craft(ST_TP, 1, 1, rec, (c + 8 + 7) / 8 * 8, &len);
	CHECK(!open_crafted(b, len, NULL, err, sizeof(err)));
	CHECK(strstr(err, "PERF_RECORD_COMPRESSED at data offset 0: the"));
	CHECK(strstr(err, "(256 times and 64 MiB): a crafted or corrupt file"));
	free(b);
	free(rec);
	return 0;
}

/*
 * The index is built in one walk of the file (no scan for compression
 * first): plain samples, then a PERF_RECORD_COMPRESSED holding more, read
 * as the same records, each once, as when all of them are plain; and a bad
 * record before a compressed one is reported as it was when the scan came
 * first (in the decompressed data).
 */
TEST(index_of_plain_then_compressed_records)
{
	uint8_t plain[8 * 64], bad[16], raw[8] = { 0 }, *z, *b;
	size_t pl = 0, sz, zl, len, zcap = ZSTD_compressBound(sizeof(plain));
	struct perf_event_header ch = { 81, 0, 0 }, bh = { PERF_RECORD_SAMPLE, 0, 12 };
	struct show *p, *m;
	char err[512];

	for (int i = 0; i < 8; i++) /* 8 samples of sz bytes, tids 7..14 */
		pl += tp_sample(plain + pl, 500, 7 + i, 7 + i, T0 + i, 0, raw, sizeof(raw));
	sz = pl / 8;
	z = malloc(pl + 8 + zcap);
	CHECK(z);
	if (!z)
		return 1;
	/* all 8 plain: the reference */
	b = craft(ST_TP, 1, 1, plain, pl, &len);
	p = show__open_mem(b, len, NULL, 0, "plain.data", err, sizeof(err));
	CHECK(p);
	/* the first 3 plain, the other 5 in one COMPRESSED record at the end */
	memcpy(z, plain, 3 * sz);
	zl = ZSTD_compress(z + 3 * sz + 8, zcap, plain + 3 * sz, 5 * sz, 1);
	CHECK(!ZSTD_isError(zl));
	ch.size = (uint16_t)(zl + 8);
	memcpy(z + 3 * sz, &ch, 8);
	free(b);
	b = craft(ST_TP, 1, 1, z, 3 * sz + 8 + zl, &len);
	m = show__open_mem(b, len, NULL, 0, "mixed.data", err, sizeof(err));
	CHECK(m);
	if (p && m) {
		CHECK_EQ(p->pd->compressed, 0);
		CHECK_EQ(m->pd->compressed, 1);
		CHECK_EQ(p->nr, 8);
		CHECK_EQ(m->nr, 8);
		for (size_t i = 0; i < m->nr && i < 8; i++) {
			CHECK_EQ(m->recs[i].tid, 7 + i);
			CHECK_EQ(m->recs[i].time, p->recs[i].time);
			CHECK_EQ(m->recs[i].hdr->type, PERF_RECORD_SAMPLE);
		}
	} else {
		fprintf(stderr, "    %s\n", err);
	}
	show__free(p);
	show__free(m);
	free(b);
	/* a sample, a record of 12 bytes, then the COMPRESSED one right after it */
	memcpy(z, plain, sz);
	memset(bad, 0, sizeof(bad));
	memcpy(bad, &bh, 8);
	memcpy(z + sz, bad, 12);
	zl = ZSTD_compress(z + sz + 12 + 8, zcap, plain + sz, sz, 1);
	CHECK(!ZSTD_isError(zl));
	ch.size = (uint16_t)(zl + 8);
	memcpy(z + sz + 12, &ch, 8);
	b = craft(ST_TP, 1, 1, z, sz + 12 + 8 + zl, &len);
	CHECK(!show__open_mem(b, len, NULL, 0, "bad.data", err, sizeof(err)));
	CHECK_EQ((int)sz, 56);
	CHECK(strstr(err, "decompressed offset 56: record type 9 of 12 bytes, not a multiple "
			  "of 8: the file is corrupt"));
	free(b);
	free(z);
	return 0;
}

/* A sample without a tracepoint: its ip, read back from the record, is its fields. */
TEST(sample_ip_is_read_from_the_record)
{
	uint8_t rec[48], *b;
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, sizeof(rec) };
	uint64_t id = 500, ip = 0xffffffff81234567ull, t = T0;
	uint32_t pt[2] = { 7, 8 }, cpu[2] = { 1, 0 };
	struct show *s;
	char err[512], f[128];
	size_t len;

	memcpy(rec, &h, 8);
	memcpy(rec + 8, &id, 8);
	memcpy(rec + 16, &ip, 8);
	memcpy(rec + 24, pt, 8);
	memcpy(rec + 32, &t, 8);
	memcpy(rec + 40, cpu, 8);
	b = craft(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			  PERF_SAMPLE_CPU,
		  1, 1, rec, sizeof(rec), &len);
	s = show__open_mem(b, len, NULL, 0, "ip.data", err, sizeof(err));
	CHECK(s);
	if (s) {
		CHECK_EQ(s->nr, 1);
		CHECK_EQ(s->recs[0].tid, 8);
		CHECK_EQ(s->recs[0].cpu, 1);
		CHECK_EQ(pdr_sample_ip(s->pd, s->recs[0].attr, s->recs[0].hdr), ip);
		show_rec_fields(s, &s->recs[0], f, sizeof(f));
		CHECK_STR(f, "ip=0xffffffff81234567");
	} else {
		fprintf(stderr, "    %s\n", err);
	}
	show__free(s);
	free(b);
	return 0;
}

TEST(chrome_json_of_many_threads_is_not_quadratic)
{
	const int n = 200000;
	uint8_t raw[8] = { 0 }, *d = malloc((size_t)n * 64), *b;
	size_t len = 0, dl = 0, outlen = 0;
	char err[512], *out = NULL, want[64];
	struct show_view v;
	struct show *s;
	struct timespec t0, t1;
	FILE *f;

	if (!d)
		return 1;
	/* a crafted 11 MB file: every sample its own thread */
	for (int i = 0; i < n; i++)
		dl += tp_sample(d + dl, 500, 1000 + i, 1000 + i, T0 + i, i & 1, raw, sizeof(raw));
	b = craft(ST_TP, 1, 1, d, dl, &len);
	free(d);
	s = show__open_mem(b, len, NULL, 0, "many.data", err, sizeof(err));
	CHECK(s);
	if (s) {
		show_view_pick(s, 0, &v);
		f = open_memstream(&out, &outlen);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		CHECK_EQ(show__write_chrome(s, &v, f), 0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		fclose(f);
		/* it was threads x records (2 x 10^10 steps, minutes): now well under a second */
		CHECK((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9 < 5);
		snprintf(want, sizeof(want), "\"args\":{\"name\":\":%d %d\"}", 1000 + n - 1,
			 1000 + n - 1);
		CHECK(out && strstr(out, want));
		free(out);
		show__free(s);
	}
	free(b);
	return 0;
}

/* Bytes a terminal acts on: C0 but the newline, DEL, C1 raw or in UTF-8. */
static int terminal_controls(const char *t, size_t n)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = t[i];

		if ((c < 0x20 && c != '\n') || c == 0x7f || (c >= 0x80 && c < 0xa0 && i == 0) ||
		    (c == 0xc2 && i + 1 < n && (unsigned char)t[i + 1] >= 0x80 &&
		     (unsigned char)t[i + 1] < 0xa0))
			bad++;
	}
	return bad;
}

TEST(clean_text_replaces_control_characters)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain text", "plain text" },
		{ "a\x1b[31mb", "a?[31mb" },
		{ "bell\x07\r\n\t", "bell????" },
		{ "del\x7f", "del?" },
		{ "\xc2\x9b"
		  "31m",
		  "?31m" }, /* C1 CSI as UTF-8 */
		{ "\x9b"
		  "31m",
		  "?31m" },						    /* raw C1 */
		{ "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac" }, /* UTF-8 stays */
		{ "\xe2\x82", "??" },					    /* cut short */
		{ "\xc0\xaf\xed\xa0\x80\xff", "????" }, /* overlong (2), surrogate, 0xff */
		{ "", "" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char b[64];

		snprintf(b, sizeof(b), "%s", cases[i].in);
		pdr_clean_text(b);
		CHECK_STR(b, cases[i].out);
	}
	return 0;
}

TEST(hostile_strings_are_clean)
{
	char dir[] = "/tmp/trigrec-show-XXXXXX", data[128], json[128], err[512];
	struct show *s = NULL;
	int e;

	CHECK(mkdtemp(dir));
	evil = 1;
	e = write_snapshot(dir, 0, data, json);
	evil = 0;
	CHECK(!e);
	s = show__open(data, err, sizeof(err));
	CHECK(s);
	if (s) {
		size_t n;
		char *out = report(s, 10, &n);

		/* every string: comm, hostname, event name, sidecar text, keys, fields */
		CHECK_EQ(terminal_controls(out, n), 0);
		CHECK(strstr(out, "host      h?]0;owned?, Linux 6.0"));
		CHECK(strstr(out, "trigger   b?[8murst (latency trigger)"));
		CHECK(strstr(out, "  text    rate x ?31m"));
		CHECK(strstr(out, "by ?]2;root? pid 200"));
		CHECK(strstr(out, "  event   e?v: k?ey=v?[1m n=[?]"));
		CHECK(strstr(out, "  key     \"?[2J?\" (the text of the str() key part)"));
		CHECK(strstr(out, "start ?s at"));
		CHECK(strstr(out, "(key ?)"));
		CHECK(strstr(out, "re?[31mnamed"));
		CHECK(strstr(out, "syscalls:?[2Jgetpgid"));
		if (terminal_controls(out, n))
			fprintf(stderr, "%s", out);
		free(out);
		show__free(s);
	}
	rm_dir(dir);
	return 0;
}

static void on_alarm(int sig)
{
	static const char msg[] = "    a FIFO hung the open\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

TEST(fifos_are_refused_not_waited_for)
{
	char dir[] = "/tmp/trigrec-show-XXXXXX", data[128], json[128], err[512];
	struct show *s;

	CHECK(mkdtemp(dir));
	CHECK(!write_snapshot(dir, 0, data, json));
	signal(SIGALRM, on_alarm);
	alarm(10);
	/* the sidecar a FIFO: the report goes on without it, saying why */
	unlink(json);
	CHECK(!mkfifo(json, 0600));
	s = show__open_pair(data, json, err, sizeof(err));
	CHECK(s);
	if (s) {
		CHECK(strstr(s->sc_err, "snap.json: not a regular file"));
		show__free(s);
	}
	/* the data a FIFO: refused */
	unlink(data);
	CHECK(!mkfifo(data, 0600));
	CHECK(!show__open_pair(data, NULL, err, sizeof(err)));
	CHECK(strstr(err, "snap.data: not a regular file"));
	alarm(0);
	rm_dir(dir);
	return 0;
}

TEST(damaged_files_are_refused_with_a_reason)
{
	char err[512];
	uint8_t zeros[200] = { 0 };
	struct pdr_file *f = pdr_open_mem(zeros, sizeof(zeros), err, sizeof(err));

	CHECK(!f);
	CHECK(strstr(err, "all zeros: a write that never finished"));
	CHECK(!pdr_open_mem(zeros, 50, err, sizeof(err)));
	CHECK(strstr(err, "too short"));
	CHECK(!pdr_open("/nonexistent/x.data", err, sizeof(err)));
	CHECK(strstr(err, "No such file"));
	return 0;
}

TEST(times_and_escapes)
{
	char b[32], *out = NULL;
	size_t n;
	FILE *f;

	CHECK_STR(show_fmt_time(12345678901234ull, b, sizeof(b)), "12345.678901234");
	CHECK_STR(show_fmt_time(5, b, sizeof(b)), "0.000000005");
	f = open_memstream(&out, &n);
	show_json_str(f, "a\"</script>\n\\");
	fclose(f);
	CHECK_STR(out, "\"a\\\"\\u003c/script\\u003e\\u000a\\\\\"");
	free(out);
	return 0;
}

/* ------------------------------------------------------------- why -- */

static const char fmt_wk[] = "name: sched_wakeup\nID: 317\nformat:\n" COMMON
			     "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
			     "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
			     "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
			     "\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
			     "print fmt: \"comm=%s\"\n";

/* sched_switch with a prev_state, run by prev (tid pp) */
static int sw_st(uint8_t *buf, uint64_t t, uint32_t cpu, int32_t pp, int64_t st, int32_t np)
{
	uint8_t raw[64] = { 0 };
	uint16_t type = 316;

	memcpy(raw, &type, 2);
	memcpy(raw + 4, &pp, 4);
	snprintf((char *)raw + 8, 16, "t%d", pp);
	memcpy(raw + 24, &pp, 4);
	memcpy(raw + 32, &st, 8);
	snprintf((char *)raw + 40, 16, "t%d", np);
	memcpy(raw + 56, &np, 4);
	return tp_sample(buf, 101 + cpu, pp, pp, t, cpu, raw, sizeof(raw));
}

/* sched_wakeup of pid to target, run by tid `by` on cpu */
static int wk(uint8_t *buf, uint64_t t, uint32_t cpu, uint32_t by, int32_t pid, int32_t target)
{
	uint8_t raw[40] = { 0 };
	uint16_t type = 317;

	memcpy(raw, &type, 2);
	memcpy(raw + 4, &by, 4);
	snprintf((char *)raw + 8, 16, "t%d", pid);
	memcpy(raw + 24, &pid, 4);
	memcpy(raw + 32, &target, 4);
	return tp_sample(buf, 401 + cpu, by, by, t, cpu, raw, sizeof(raw));
}

static uint64_t ids_wk[] = { 401, 402 };

/*
 * A perf.data being written for the why tests: sched_switch (getpgid in its
 * place without with_sw), sched_wakeup and getpgid, two CPUs' ids each.
 */
struct why_file {
	struct pd_event evs[3];
	struct pd_meta meta;
	struct pd_buf b;
	struct pd_writer *w;
	int fd, err;
};

static void why_file__open(struct why_file *wf, const char *data, int with_sw)
{
	memset(wf, 0, sizeof(*wf));
	wf->meta = (struct pd_meta){ .hostname = "h",
				     .osrelease = "6.0",
				     .version = "t",
				     .arch = "x",
				     .cpudesc = "",
				     .cpuid = "" };
	wf->b = tracing_head();
	pd_buf__u32(&wf->b, 2);
	put(&wf->b, "sched", 6);
	pd_buf__u32(&wf->b, 2);
	pd_buf__u64(&wf->b, strlen(fmt_sw));
	put(&wf->b, fmt_sw, strlen(fmt_sw));
	pd_buf__u64(&wf->b, strlen(fmt_wk));
	put(&wf->b, fmt_wk, strlen(fmt_wk));
	put(&wf->b, "syscalls", 9);
	pd_buf__u32(&wf->b, 1);
	pd_buf__u64(&wf->b, strlen(fmt_pg));
	put(&wf->b, fmt_pg, strlen(fmt_pg));
	pd_buf__u32(&wf->b, 0);
	pd_buf__u32(&wf->b, 0);
	pd_buf__u64(&wf->b, 0);
	for (int i = 0; i < 3; i++) {
		wf->evs[i].attr.size = sizeof(wf->evs[i].attr);
		wf->evs[i].attr.sample_period = 1;
		wf->evs[i].attr.sample_id_all = 1;
		wf->evs[i].attr.sample_type = ST_TP;
		wf->evs[i].attr.type = PERF_TYPE_TRACEPOINT;
		wf->evs[i].nr_ids = 2;
	}
	wf->evs[0].attr.config = with_sw ? 316 : 700;
	wf->evs[0].ids = ids_sw;
	strcpy(wf->evs[0].name, with_sw ? "sched:sched_switch" : "syscalls:sys_enter_getpgid");
	wf->evs[1].attr.config = 317;
	wf->evs[1].ids = ids_wk;
	strcpy(wf->evs[1].name, "sched:sched_wakeup");
	wf->evs[2].attr.config = 700;
	wf->evs[2].ids = ids_pg;
	strcpy(wf->evs[2].name, "syscalls:sys_enter_getpgid");
	wf->meta.tracing_data = wf->b.p;
	wf->meta.tracing_data_len = wf->b.len;
	wf->fd = open(data, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	wf->w = wf->fd >= 0 ? pd_writer__new(wf->fd, wf->evs, 3) : NULL;
	wf->err = wf->w ? pd_writer__begin(wf->w) : -EIO;
}

/* One record of n bytes (n < 0: building it failed); the first error stays. */
static void why_file__put(struct why_file *wf, const uint8_t *rec, int n)
{
	if (!wf->err)
		wf->err = n < 0 ? n : pd_writer__write(wf->w, rec, n);
}

static int why_file__close(struct why_file *wf)
{
	if (!wf->err)
		wf->err = pd_writer__finish(wf->w, &wf->meta);
	pd_writer__free(wf->w);
	if (wf->fd >= 0)
		close(wf->fd);
	free(wf->b.p);
	return wf->err;
}

/*
 * A latency of thread 100 from T0+1000 to T0+9000 with a known answer:
 * running on CPU 0 to 2000, blocked (S) to 5000, woken by 200 from CPU 1
 * (200 itself blocked from 1200, woken by idle at 4800), runnable on CPU 0
 * while 300 runs to 7000, running to 9000. On CPU 1, 400 is switched out at
 * 8000 though 200 was the last switched in: the switches between were not
 * recorded (task scope), a gap. Window from win (with sched_switch: sw).
 */
static int write_why(const char *dir, char *data, char *json, uint64_t win, int with_sw)
{
	struct why_file wf;
	uint8_t rec[512];
	int err;
	FILE *f;

	sprintf(data, "%s/why.data", dir);
	sprintf(json, "%s/why.json", dir);
	why_file__open(&wf, data, with_sw);
	if (with_sw) {
		why_file__put(&wf, rec, sw_st(rec, T0 + 500, 0, 0, 0, 100));
		why_file__put(&wf, rec, sw_st(rec, T0 + 1200, 1, 200, 1, 0));
		why_file__put(&wf, rec, sw_st(rec, T0 + 2000, 0, 100, 1, 0));
		why_file__put(&wf, rec, sw_st(rec, T0 + 4000, 0, 0, 0, 300));
	}
	why_file__put(&wf, rec, wk(rec, T0 + 4800, 1, 0, 200, 1));
	if (with_sw)
		why_file__put(&wf, rec, sw_st(rec, T0 + 4900, 1, 0, 0, 200));
	why_file__put(&wf, rec, wk(rec, T0 + 5000, 1, 200, 100, 0));
	if (with_sw) {
		why_file__put(&wf, rec, sw_st(rec, T0 + 7000, 0, 300, 0x100, 100));
		why_file__put(&wf, rec, sw_st(rec, T0 + 8000, 1, 400, 1, 0));
	}
	why_file__put(&wf, rec, pg(rec, T0 + 9000, 0, 100, 100, 7));
	err = why_file__close(&wf);
	if (err)
		return err;
	f = fopen(json, "w");
	if (!f)
		return -errno;
	fprintf(f,
		"{\"trigger\": {\"name\": \"slow\", \"text\": \"latency\", \"time_ns\": %llu, "
		"\"cpu\": 0, \"pid\": 100, \"tid\": 100, \"comm\": \"t100\", \"kind\": \"latency\", "
		"\"latency\": {\"duration_ns\": 8000, \"start\": {\"time_ns\": %llu, \"tid\": 100}, "
		"\"end\": {\"time_ns\": %llu, \"tid\": 100}}}, \"window\": {\"start_ns\": %llu, "
		"\"end_ns\": %llu, \"aligned\": true}, \"cpus\": [{\"cpu\": 0, \"ring\": \"set0\", "
		"\"wrapped\": false, \"oldest_ns\": %llu}, {\"cpu\": 1, \"ring\": \"set0\", "
		"\"wrapped\": true, \"oldest_ns\": %llu}]}\n",
		T0 + 9000, T0 + 1000, T0 + 9000, (unsigned long long)win, T0 + 9000, T0 + 500,
		(unsigned long long)win);
	return fclose(f) ? -errno : 0;
}

TEST(why_of_a_known_latency)
{
	char dir[] = "/tmp/trigrec-why-XXXXXX", data[128], json[128], err[512];
	struct show_why w;
	struct show *s;
	char *txt;
	size_t len;

	CHECK(mkdtemp(dir) != NULL);
	CHECK_EQ(write_why(dir, data, json, T0 + 500, 1), 0);
	s = show__open(data, err, sizeof(err));
	CHECK(s != NULL);
	if (!s) {
		fprintf(stderr, "    %s\n", err);
		rm_dir(dir);
		return 1;
	}
	CHECK_EQ(show_why(s, 0, &w), 0);
	CHECK(w.done);
	CHECK_EQ(w.tid, 100);
	CHECK_EQ(w.end - w.start, 8000);
	CHECK_EQ(w.running, 3000);
	CHECK_EQ(w.nr_cpus, 1);
	CHECK_EQ(w.cpus[0].cpu, 0);
	CHECK_EQ(w.sleep_s, 3000);
	CHECK_EQ(w.runnable, 2000);
	CHECK_EQ(w.sleep_d + w.other + w.unknown, 0);
	CHECK_EQ(w.nr_instead, 1);
	CHECK_EQ(w.instead[0].tid, 300);
	CHECK_EQ(w.instead[0].ns, 2000);
	CHECK_EQ(w.runnable_unexplained, 0);
	CHECK_EQ(w.nr_wakes, 1);
	CHECK_EQ(w.wakes[0].waker, 200);
	CHECK_EQ(w.wakes[0].cpu, 1);
	CHECK_EQ(w.wakes[0].blocked_at, T0 + 2000);
	CHECK_EQ(w.wakes[0].state, 'S');
	/* one level back: 200 was blocked from 1200, woken from idle at 4800 */
	CHECK_EQ(w.wakes[0].w_blocked_at, T0 + 1200);
	CHECK_EQ(w.wakes[0].w_woken_at, T0 + 4800);
	CHECK_EQ(w.wakes[0].w_woken_by, 0);
	CHECK_EQ(w.cut_short, 0);
	CHECK_EQ(w.nr_warn, 0);
	/* CPU 1: 400's switch-out disagrees with the switch into 200: a gap, no run */
	for (size_t i = 0; i < s->nr_runs; i++)
		CHECK(s->runs[i].tid != 400);
	txt = report(s, 3, &len);
	CHECK(strstr(txt, "\n  runnable       2.000 us   25.0%  ran instead:\n"
			  "                 2.000 us t300 tid 300\n") != NULL);
	CHECK(strstr(txt, "\n  blocked S      3.000 us   37.5%") != NULL);
	CHECK(strstr(txt, "in the context of :200 tid 200 on CPU 1\n") != NULL);
	free(txt);
	/* the stretches, in order: what the --chrome-json tracks draw */
	CHECK_EQ(w.nr_segs, 4);
	if (w.nr_segs == 4) {
		CHECK_EQ(w.segs[0].st, WHY_ST_RUNNING);
		CHECK_EQ(w.segs[0].b - w.segs[0].a, 1000);
		CHECK_EQ(w.segs[1].st, WHY_ST_S);
		CHECK_EQ(w.segs[2].st, WHY_ST_RUNNABLE);
		CHECK_EQ(w.segs[2].a, T0 + 5000);
		CHECK_EQ(w.segs[2].b, T0 + 7000);
		CHECK_EQ(w.segs[3].st, WHY_ST_RUNNING);
	}
	show_why_free(&w);
	{
		struct show_view v;
		char *chrome = NULL;
		size_t clen;
		FILE *f = open_memstream(&chrome, &clen);

		show_view_pick(s, 0, &v);
		CHECK_EQ(show__write_chrome(s, &v, f), 0);
		fclose(f);
		CHECK(strstr(chrome, "\"name\":\"why: t100 100 runnable\"") != NULL);
		CHECK(strstr(chrome,
			     "\"cat\":\"why\",\"pid\":1073741824,\"tid\":1073807353,"
			     "\"ts\":7000000005.000,\"dur\":2.000,\"name\":\"runnable on CPU 0\"") !=
		      NULL);
		free(chrome);
	}
	{
		/* --html: the thread's lane, a stretch per state relative to the window start */
		struct show_view v;
		char *html = NULL;
		size_t hlen;
		FILE *f = open_memstream(&html, &hlen);
		struct jv *d;
		static const int64_t want[][4] = { { 500, 1500, WHY_ST_RUNNING, 0 },
						   { 1500, 4500, WHY_ST_S, 0 },
						   { 4500, 6500, WHY_ST_RUNNABLE, 0 },
						   { 6500, 8500, WHY_ST_RUNNING, 0 } };
		char p[32];

		show_view_pick(s, 0, &v);
		CHECK_EQ(show__write_html(s, &v, f, 3), 0);
		fclose(f);
		d = page_data(html, err, sizeof(err));
		CHECK(d != NULL);
		CHECK_EQ(jv_u64(d, "why.tid", 0), 100);
		CHECK(jv_get(d, "why.segs") && jv_get(d, "why.segs")->n == 4);
		for (int i = 0; i < 4; i++)
			for (int j = 0; j < 4; j++) {
				snprintf(p, sizeof(p), "why.segs.%d.%d", i, j);
				CHECK_EQ(jv_i64(d, p, -1), want[i][j]);
			}
		/* who ran instead, for the hover on the runnable stretch */
		CHECK_STR(jv_str(d, "why.segs.2.4", ""), "t300 300 2.000 us");
		CHECK_STR(jv_str(d, "why.segs.0.4", "?"), "");
		CHECK_STR(jv_str(d, "why.states.4", ""), "blocked D");
		/* the wake-up by 200 on CPU 1 at 5000 */
		CHECK_EQ(jv_i64(d, "why.wakes.0.0", -1), 4500);
		CHECK_EQ(jv_i64(d, "why.wakes.0.1", -1), 200);
		CHECK_EQ(jv_i64(d, "why.wakes.0.2", -1), 1);
		CHECK(strstr(html, "rect.whyseg") != NULL);
		jv_free(d);
		free(html);
	}
	show__free(s);

	/* a window that starts after the latency: said, with the figures */
	CHECK_EQ(write_why(dir, data, json, T0 + 3000, 1), 0);
	s = show__open(data, err, sizeof(err));
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ(show_why(s, 0, &w), 0);
		CHECK_EQ(w.cut_short, 1);
		CHECK_EQ(w.from, T0 + 3000);
		CHECK_EQ(w.running + w.runnable + w.sleep_s + w.unknown + w.sleep_d + w.other,
			 8000);
		CHECK_EQ(w.unknown, 2000);
		CHECK(w.nr_warn >= 2 &&
		      strstr(w.warn[0], "the window starts 2.000 us after the latency's start") &&
		      strstr(w.warn[0], "-m"));
		CHECK(w.nr_warn >= 2 &&
		      strstr(w.warn[1], "CPU 1's ring wrapped first (its oldest record at "
					"7000.000003000) and aligned every CPU's window to it: "
					"--no-align"));
		show_why_free(&w);
		show__free(s);
	}

	/* without sched_switch: nothing told, what to record said */
	CHECK_EQ(write_why(dir, data, json, T0 + 500, 0), 0);
	s = show__open(data, err, sizeof(err));
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ(show_why(s, 0, &w), 0);
		CHECK_EQ(w.done, 0);
		CHECK(strstr(w.reason, "no sched:sched_switch") &&
		      strstr(w.reason, "-e sched:sched_switch"));
		show_why_free(&w);
		show__free(s);
	}
	rm_dir(dir);
	return 0;
}

/* ----------------------------------------- runs in a scoped recording -- */

/*
 * A task-scoped recording (sidecar scope: scope, or none): on CPU 0 thread
 * 100 writes a record at 600, is preempted at 1000 for 300 (out of scope,
 * "migration/0"), which wakes 400 at 2500 and is never seen switched out:
 * its switch-out was not recorded. 100 waits runnable to the end (9000).
 */
static int write_scoped(const char *dir, char *data, char *json, const char *scope,
			const char *rings, int variant)
{
	struct why_file wf;
	uint8_t rec[512];
	int err;
	FILE *f;

	sprintf(data, "%s/scoped.data", dir);
	sprintf(json, "%s/scoped.json", dir);
	why_file__open(&wf, data, 1);
	if (!variant) {
		why_file__put(&wf, rec, pg(rec, T0 + 600, 0, 100, 100, 7));
		why_file__put(&wf, rec, sw_st(rec, T0 + 1000, 0, 100, 0, 300));
		why_file__put(&wf, rec, wk(rec, T0 + 2500, 0, 300, 400, 1));
	} else {
		/* 100 runs from 1000, blocks (S) at 2000, its next own record at 6000 */
		why_file__put(&wf, rec, sw_st(rec, T0 + 1000, 0, 300, 0, 100));
		why_file__put(&wf, rec, sw_st(rec, T0 + 2000, 0, 100, 1, 0));
		why_file__put(&wf, rec, pg(rec, T0 + 6000, 0, 100, 100, 7));
	}
	err = why_file__close(&wf);
	if (err)
		return err;
	f = fopen(json, "w");
	if (!f)
		return -errno;
	fprintf(f,
		"{\"trigger\": {\"name\": \"slow\", \"text\": \"latency\", \"time_ns\": %llu, "
		"\"cpu\": 0, \"pid\": 100, \"tid\": 100, \"comm\": \"t100\", \"kind\": \"latency\", "
		"\"latency\": {\"duration_ns\": 8000, \"start\": {\"time_ns\": %llu, \"tid\": 100}, "
		"\"end\": {\"time_ns\": %llu, \"tid\": 100}}}, \"window\": {\"start_ns\": %llu, "
		"\"end_ns\": %llu, \"aligned\": true}, \"rings\": \"%s\", %s%s%s\"cpus\": [{\"cpu\": "
		"0, \"ring\": \"set0\", \"wrapped\": false, \"oldest_ns\": %llu}]}\n",
		T0 + 9000, T0 + 1000, T0 + 9000, T0 + 500, T0 + 9000, rings,
		scope ? "\"scope\": \"" : "", scope ? scope : "", scope ? "\", " : "", T0 + 500);
	return fclose(f) ? -errno : 0;
}

/* The run of tid on cpu, or NULL. */
static const struct show_run *run_of(const struct show *s, uint32_t cpu, uint32_t tid)
{
	for (size_t i = 0; i < s->nr_runs; i++)
		if (s->runs[i].cpu == cpu && s->runs[i].tid == tid)
			return &s->runs[i];
	return NULL;
}

/*
 * On perf's rings in task scope without "sched_scope": "system" (files from
 * before it), or in a cgroup scope, the switch into a scoped thread and
 * others' wake-ups of it are not recorded: a blocked stretch its own next
 * record ends is unknown there, and the report, the --json warnings and the
 * page say why. On the ring sets, and on perf's rings with sched_scope, it
 * is blocked.
 */
TEST(blind_scope_says_so_and_leaves_gaps)
{
	char dir[] = "/tmp/trigrec-blind-XXXXXX", data[128], json[128], err[512];
	static const struct {
		const char *scope, *rings;
		int blind;
	} c[] = { { "tasks", "perf", 1 },
		  /* perf's scheduler events opened per CPU in task scope (recorder.c) */
		  { "tasks\", \"sched_scope\": \"system", "perf", 0 },
		  { "cgroup", "bpf", 1 },
		  { "tasks", "bpf", 0 },
		  { "system", "perf", 0 },
		  { NULL, "perf", 0 } };

	CHECK(mkdtemp(dir) != NULL);
	for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		struct show_why w;
		struct show_view v;
		struct show *s;
		char *out = NULL;
		size_t len;
		FILE *f;

		CHECK_EQ(write_scoped(dir, data, json, c[k].scope, c[k].rings, 1), 0);
		s = show__open(data, err, sizeof(err));
		CHECK(s != NULL);
		if (!s)
			break;
		CHECK_EQ(show_scope_note(s) != NULL, c[k].blind);
		CHECK_EQ(show_why(s, 0, &w), 0);
		CHECK_EQ(w.running, 4000); /* 1000-2000, and from its record at 6000 */
		CHECK_EQ(w.sleep_s, c[k].blind ? 0 : 4000);
		CHECK_EQ(w.unknown, c[k].blind ? 4000 : 0);
		CHECK_EQ(w.running + w.runnable + w.sleep_s + w.sleep_d + w.other + w.unknown,
			 8000);
		CHECK_EQ(w.nr_warn > 0 && strstr(w.warn[0], "not in this snapshot") != NULL,
			 c[k].blind);
		if (c[k].blind && !strcmp(c[k].rings, "perf"))
			CHECK(strstr(w.warn[0], "perf's rings in task scope") &&
			      strstr(w.warn[0], "--rings bpf"));
		show_why_free(&w);
		/* the report and the page say it */
		out = report(s, 3, &len);
		CHECK_EQ(strstr(out, "  warning: recorded ") != NULL, c[k].blind);
		free(out);
		out = NULL;
		f = open_memstream(&out, &len);
		show_view_pick(s, 0, &v);
		CHECK_EQ(show__write_html(s, &v, f, 3), 0);
		fclose(f);
		CHECK_EQ(strstr(out, "<p class=\"cut\" id=\"scope\">This snapshot was recorded ") !=
				 NULL,
			 c[k].blind);
		free(out);
		show__free(s);
	}
	rm_dir(dir);
	return 0;
}

TEST(scoped_runs_end_where_the_records_do)
{
	char dir[] = "/tmp/trigrec-scoped-XXXXXX", data[128], json[128], err[512];
	static const char *const scopes[] = { "tasks", "cgroup", NULL, "system" };

	CHECK(mkdtemp(dir) != NULL);
	for (int k = 0; k < 4; k++) {
		int scoped = k < 2;
		const struct show_run *r;
		struct show_why w;
		struct show_view v;
		struct show *s;
		char *txt, *out = NULL, want[160];
		size_t len;
		FILE *f;

		CHECK_EQ(write_scoped(dir, data, json, scopes[k], "bpf", 0), 0);
		s = show__open(data, err, sizeof(err));
		CHECK(s != NULL);
		if (!s) {
			fprintf(stderr, "    %s\n", err);
			break;
		}
		/* 300: from its switch-in to its own last record (scoped), else to the end */
		r = run_of(s, 0, 300);
		CHECK(r != NULL);
		if (r) {
			CHECK_EQ(r->start, T0 + 1000);
			CHECK_EQ(r->end, scoped ? T0 + 2500 : T0 + 9000);
		}
		/* 100 before the first switch: since its first record in a row (scoped) */
		r = run_of(s, 0, 100);
		CHECK(r != NULL);
		if (r) {
			CHECK_EQ(r->start, scoped ? T0 + 600 : T0 + 500);
			CHECK_EQ(r->end, T0 + 1000);
		}
		/* the why breakdown: who ran instead of the runnable 100 */
		CHECK_EQ(show_why(s, 0, &w), 0);
		CHECK_EQ(w.runnable, 8000);
		CHECK_EQ(w.nr_instead, 1);
		CHECK_EQ(w.instead[0].tid, 300);
		CHECK_EQ(w.instead[0].ns, scoped ? 1500 : 8000);
		CHECK_EQ(w.runnable_unexplained, scoped ? 6500 : 0);
		f = open_memstream(&out, &len);
		show_why_json(s, &w, f);
		fclose(f);
		snprintf(want, sizeof(want),
			 "\"ran_instead\":[{\"tid\":300,\"comm\":\"t300\",\"ns\":%d}],"
			 "\"runnable_no_task_ns\":%d",
			 scoped ? 1500 : 8000, scoped ? 6500 : 0);
		CHECK(strstr(out, want) != NULL);
		free(out);
		show_why_free(&w);
		/* the text: busiest tasks' on-CPU time */
		txt = report(s, 3, &len);
		snprintf(want, sizeof(want), "  %-12s %-15s %s", scoped ? "1.500 us" : "8.000 us",
			 "300/300", ":300");
		CHECK(strstr(txt, want) != NULL);
		free(txt);
		/* --chrome-json: 300's run on CPU 0 */
		out = NULL;
		f = open_memstream(&out, &len);
		show_view_pick(s, 0, &v);
		CHECK_EQ(show__write_chrome(s, &v, f), 0);
		fclose(f);
		snprintf(want, sizeof(want), "\"dur\":%s,\"name\":\"t300 300\"",
			 scoped ? "1.500" : "8.000");
		CHECK(strstr(out, want) != NULL);
		free(out);
		/* --html: the run, relative to the page's start */
		{
			struct jv *d;
			int64_t t0;

			out = NULL;
			f = open_memstream(&out, &len);
			CHECK_EQ(show__write_html(s, &v, f, 3), 0);
			fclose(f);
			d = page_data(out, err, sizeof(err));
			CHECK(d != NULL);
			for (int i = 0; d && jv_get(d, "runs") && i < jv_get(d, "runs")->n; i++) {
				char p[32];

				snprintf(p, sizeof(p), "runs.%d.4", i);
				if (jv_i64(d, p, -1) != 300)
					continue;
				snprintf(p, sizeof(p), "runs.%d.1", i);
				t0 = jv_i64(d, p, -1);
				snprintf(p, sizeof(p), "runs.%d.2", i);
				CHECK_EQ(jv_i64(d, p, -1) - t0, scoped ? 1500 : 8000);
			}
			jv_free(d);
			free(out);
		}
		show__free(s);
	}
	rm_dir(dir);
	return 0;
}

/* ------------------------------------- why: syscalls, irqs, softirqs -- */

static const char fmt_rse[] = "name: sys_enter\nID: 20\nformat:\n" COMMON
			      "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
			      "\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n\n"
			      "print fmt: \"NR %ld\"\n";
static const char fmt_rsx[] = "name: sys_exit\nID: 21\nformat:\n" COMMON
			      "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
			      "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
			      "print fmt: \"NR %ld = %ld\"\n";
static const char fmt_ie[] = "name: irq_handler_entry\nID: 30\nformat:\n" COMMON
			     "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
			     "\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n\n"
			     "print fmt: \"irq=%d\"\n";
static const char fmt_ix[] = "name: irq_handler_exit\nID: 31\nformat:\n" COMMON
			     "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
			     "\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n\n"
			     "print fmt: \"irq=%d\"\n";
static const char fmt_se[] = "name: softirq_entry\nID: 32\nformat:\n" COMMON
			     "\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\n"
			     "print fmt: \"vec=%u\"\n";
static const char fmt_sx[] = "name: softirq_exit\nID: 33\nformat:\n" COMMON
			     "\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\n"
			     "print fmt: \"vec=%u\"\n";

/* A record of format `type` (its sample ids from 500 + 10 * ev) with an 8-byte value at 8, another at 16. */
static int ev2(uint8_t *buf, int ev, uint16_t type, uint64_t t, uint32_t cpu, uint32_t tid,
	       int64_t a, int64_t b)
{
	uint8_t raw[64] = { 0 };

	memcpy(raw, &type, 2);
	memcpy(raw + 4, &tid, 4);
	memcpy(raw + 8, &a, 8);
	memcpy(raw + 16, &b, 8);
	return tp_sample(buf, 500 + 10 * ev + cpu, tid, tid, t, cpu, raw, sizeof(raw));
}

/* irq_handler_entry: irq at 8 (4 bytes), __data_loc name at 12 -> the string at 16 */
static int irq_in(uint8_t *buf, uint64_t t, uint32_t cpu, uint32_t tid, int32_t irq,
		  const char *name)
{
	uint8_t raw[40] = { 0 };
	uint16_t type = 30;
	uint32_t loc = (uint32_t)(strlen(name) + 1) << 16 | 16;

	memcpy(raw, &type, 2);
	memcpy(raw + 4, &tid, 4);
	memcpy(raw + 8, &irq, 4);
	memcpy(raw + 12, &loc, 4);
	memcpy(raw + 16, name, strlen(name) + 1);
	return tp_sample(buf, 500 + 10 * 2 + cpu, tid, tid, t, cpu, raw, sizeof(raw));
}

/*
 * Thread 100 over the latency T0+1000 .. T0+9000 on CPU 0: read(2) from 1000
 * to 6000 (blocked S 2000..5000, runnable 5000..5500), irq 24 "eth0" in its
 * context 1200..1500, NET_RX 1500..1900, getpid 7000..7100, nanosleep from
 * 8500 still open at the end. An irq at 3000 on CPU 0 runs in idle's context:
 * not the thread's. arch: the host the file says it was written on.
 */
static int write_why_ins(const char *dir, char *data, char *json, const char *arch)
{
	static uint64_t ids[8][2] = { { 101, 102 }, { 401, 402 }, { 500, 501 }, { 510, 511 },
				      { 520, 521 }, { 530, 531 }, { 540, 541 }, { 550, 551 } };
	static const char *const names[8] = { "sched:sched_switch",	"sched:sched_wakeup",
					      "raw_syscalls:sys_enter", "raw_syscalls:sys_exit",
					      "irq:irq_handler_entry",	"irq:irq_handler_exit",
					      "irq:softirq_entry",	"irq:softirq_exit" };
	static const uint64_t cfg[8] = { 316, 317, 20, 21, 30, 31, 32, 33 };
	struct pd_event evs[8] = { 0 };
	struct pd_meta meta = { .hostname = "h",
				.osrelease = "6.0",
				.version = "t",
				.arch = arch,
				.cpudesc = "",
				.cpuid = "" };
	struct pd_buf b = tracing_head();
	uint8_t rec[512];
	struct pd_writer *w;
	int fd, n, err;
	FILE *f;

	pd_buf__u32(&b, 3);
	put(&b, "sched", 6);
	pd_buf__u32(&b, 2);
	pd_buf__u64(&b, strlen(fmt_sw));
	put(&b, fmt_sw, strlen(fmt_sw));
	pd_buf__u64(&b, strlen(fmt_wk));
	put(&b, fmt_wk, strlen(fmt_wk));
	put(&b, "raw_syscalls", 13);
	pd_buf__u32(&b, 2);
	pd_buf__u64(&b, strlen(fmt_rse));
	put(&b, fmt_rse, strlen(fmt_rse));
	pd_buf__u64(&b, strlen(fmt_rsx));
	put(&b, fmt_rsx, strlen(fmt_rsx));
	put(&b, "irq", 4);
	pd_buf__u32(&b, 4);
	pd_buf__u64(&b, strlen(fmt_ie));
	put(&b, fmt_ie, strlen(fmt_ie));
	pd_buf__u64(&b, strlen(fmt_ix));
	put(&b, fmt_ix, strlen(fmt_ix));
	pd_buf__u64(&b, strlen(fmt_se));
	put(&b, fmt_se, strlen(fmt_se));
	pd_buf__u64(&b, strlen(fmt_sx));
	put(&b, fmt_sx, strlen(fmt_sx));
	pd_buf__u32(&b, 0);
	pd_buf__u32(&b, 0);
	pd_buf__u64(&b, 0);
	for (int i = 0; i < 8; i++) {
		evs[i].attr.size = sizeof(evs[i].attr);
		evs[i].attr.sample_period = 1;
		evs[i].attr.sample_id_all = 1;
		evs[i].attr.sample_type = ST_TP;
		evs[i].attr.type = PERF_TYPE_TRACEPOINT;
		evs[i].attr.config = cfg[i];
		evs[i].nr_ids = 2;
		evs[i].ids = ids[i];
		strcpy(evs[i].name, names[i]);
	}
	meta.tracing_data = b.p;
	meta.tracing_data_len = b.len;
	sprintf(data, "%s/ins.data", dir);
	sprintf(json, "%s/ins.json", dir);
	fd = open(data, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	w = fd >= 0 ? pd_writer__new(fd, evs, 8) : NULL;
	err = w ? pd_writer__begin(w) : -EIO;
#define PUT(expr)                                                      \
	do {                                                           \
		n = (expr);                                            \
		if (!err)                                              \
			err = n < 0 ? n : pd_writer__write(w, rec, n); \
	} while (0)
	PUT(sw_st(rec, T0 + 500, 0, 0, 0, 100));
	PUT(ev2(rec, 0, 20, T0 + 1000, 0, 100, __NR_read, 3));
	PUT(irq_in(rec, T0 + 1200, 0, 100, 24, "eth0"));
	PUT(ev2(rec, 3, 31, T0 + 1500, 0, 100, 24, 0));
	PUT(ev2(rec, 4, 32, T0 + 1500, 0, 100, 3, 0));
	PUT(ev2(rec, 5, 33, T0 + 1900, 0, 100, 3, 0));
	PUT(sw_st(rec, T0 + 2000, 0, 100, 1, 0));
	PUT(irq_in(rec, T0 + 3000, 0, 0, 24, "eth0"));
	PUT(ev2(rec, 3, 31, T0 + 3100, 0, 0, 24, 0));
	PUT(wk(rec, T0 + 5000, 1, 200, 100, 0));
	PUT(sw_st(rec, T0 + 5500, 0, 0, 0, 100));
	PUT(ev2(rec, 1, 21, T0 + 6000, 0, 100, __NR_read, 1));
	PUT(ev2(rec, 0, 20, T0 + 7000, 0, 100, __NR_getpid, 0));
	PUT(ev2(rec, 1, 21, T0 + 7100, 0, 100, __NR_getpid, 100));
	PUT(ev2(rec, 0, 20, T0 + 8500, 0, 100, __NR_nanosleep, 0));
#undef PUT
	if (!err)
		err = pd_writer__finish(w, &meta);
	pd_writer__free(w);
	if (fd >= 0)
		close(fd);
	free(b.p);
	if (err)
		return err;
	f = fopen(json, "w");
	if (!f)
		return -errno;
	fprintf(f,
		"{\"trigger\": {\"name\": \"slow\", \"text\": \"latency\", \"time_ns\": %llu, "
		"\"cpu\": 0, \"pid\": 100, \"tid\": 100, \"comm\": \"t100\", \"kind\": \"latency\", "
		"\"latency\": {\"duration_ns\": 8000, \"start\": {\"time_ns\": %llu, \"tid\": 100}, "
		"\"end\": {\"time_ns\": %llu, \"tid\": 100}}}, \"window\": {\"start_ns\": %llu, "
		"\"end_ns\": %llu}}\n",
		T0 + 9000, T0 + 1000, T0 + 9000, T0 + 500, T0 + 9000);
	return fclose(f) ? -errno : 0;
}

TEST(why_syscalls_irqs_softirqs)
{
	char dir[] = "/tmp/trigrec-whyins-XXXXXX", data[128], json[128], err[512];
	struct utsname u;
	struct show_why w;
	struct show *s;
	char *txt = NULL, *js = NULL;
	size_t len;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	CHECK_EQ(uname(&u), 0);
	CHECK_EQ(write_why_ins(dir, data, json, u.machine), 0);
	s = show__open(data, err, sizeof(err));
	CHECK(s != NULL);
	if (!s) {
		fprintf(stderr, "    %s\n", err);
		rm_dir(dir);
		return 1;
	}
	CHECK_EQ(show_why(s, 0, &w), 0);
	CHECK(w.done);
	CHECK_EQ(w.running, 4500);
	CHECK_EQ(w.sleep_s, 3000);
	CHECK_EQ(w.runnable, 500);
	/* read 1000..6000 (running 1000..2000, 5500..6000), getpid, nanosleep open at the end */
	CHECK(w.sys.has);
	CHECK_EQ(w.sys.count, 3);
	CHECK_EQ(w.sys.ns, 5000 + 100 + 500);
	CHECK_EQ(w.sys.cpu_ns, 1500 + 100 + 500);
	CHECK_EQ(w.sys.nr_top, 3);
	CHECK_EQ(w.sys.top[0].nr, __NR_read);
	CHECK_STR(w.sys.top[0].name, "read");
	CHECK_EQ(w.sys.top[0].ns, 5000);
	CHECK_EQ(w.sys.top[0].cpu_ns, 1500);
	CHECK_STR(w.sys.top[1].name, "nanosleep");
	CHECK_EQ(w.sys.top[1].ns, 500);
	CHECK_STR(w.sys.top[2].name, "getpid");
	CHECK_EQ(w.sys.top[2].ns, 100);
	/* the irq in idle's context at 3000 is not the thread's */
	CHECK(w.irq.has);
	CHECK_EQ(w.irq.count, 1);
	CHECK_EQ(w.irq.ns, 300);
	CHECK_EQ(w.irq.top[0].nr, 24);
	CHECK_STR(w.irq.top[0].name, "eth0");
	CHECK(w.softirq.has);
	CHECK_EQ(w.softirq.ns, 400);
	CHECK_STR(w.softirq.top[0].name, "NET_RX");
	show_why_free(&w);
	txt = report(s, 3, &len);
	CHECK(strstr(txt,
		     "\n  syscalls       5.600 us   70.0%  3 calls, 2.100 us of it running; by "
		     "time:\n                 5.000 us read x1 (running 1.500 us)\n") != NULL);
	CHECK(strstr(txt, "\n  in irq           300 ns    6.7%  of the running time, 1 irq handler "
			  "run(s); by time:\n                   300 ns irq 24 eth0 x1\n") != NULL);
	CHECK(strstr(txt, "\n  in softirq       400 ns    8.9%  of the running time, 1 softirq "
			  "run(s); by time:\n                   400 ns NET_RX x1\n") != NULL);
	free(txt);
	f = open_memstream(&js, &len);
	CHECK_EQ(show_why(s, 0, &w), 0);
	show_why_json(s, &w, f);
	fclose(f);
	show_why_free(&w);
	{
		struct jv *d = jv_parse(js, strlen(js), err, sizeof(err));

		CHECK(d != NULL);
		CHECK_EQ(jv_u64(d, "why.syscalls.ns", 0), 5600);
		CHECK_EQ(jv_u64(d, "why.syscalls.running_ns", 0), 2100);
		CHECK_STR(jv_str(d, "why.syscalls.top.0.name", ""), "read");
		CHECK_EQ(jv_u64(d, "why.irq.top.0.irq", 0), 24);
		CHECK_STR(jv_str(d, "why.softirq.top.0.name", ""), "NET_RX");
		CHECK_EQ(jv_u64(d, "why.softirq.top.0.vec", 0), 3);
		jv_free(d);
	}
	free(js);
	show__free(s);

	/* written on another architecture: its numbers are not this build's names */
	CHECK_EQ(write_why_ins(dir, data, json, "some-other-arch"), 0);
	s = show__open(data, err, sizeof(err));
	CHECK(s != NULL);
	if (s) {
		char want[32];

		snprintf(want, sizeof(want), "syscall %d", __NR_read);
		CHECK_EQ(show_why(s, 0, &w), 0);
		CHECK_STR(w.sys.top[0].name, want);
		show_why_free(&w);
		show__free(s);
	}
	rm_dir(dir);
	return 0;
}

/* ------------------------------------------- why: rate contributors -- */

/*
 * A rate trigger "by pid > 5/1us" at T0+5000 whose window opened at T0+4000:
 * in it process 300 (threads 300 x4, 301 x2) and thread 100 x1; before it
 * (T0+3000 .. 4000) thread 100 x2; window from T0+1000. key: the sidecar's.
 */
static int write_rate(const char *dir, char *data, char *json, const char *key)
{
	struct pd_event evs[3] = { 0 };
	struct pd_meta meta = { .hostname = "h",
				.osrelease = "6.0",
				.version = "t",
				.arch = "x",
				.cpudesc = "",
				.cpuid = "" };
	static const uint64_t in_window[][3] = { { 4100, 300, 300 }, { 4200, 300, 301 },
						 { 4300, 300, 300 }, { 4400, 100, 100 },
						 { 4500, 300, 300 }, { 4600, 300, 301 },
						 { 5000, 300, 300 } };
	uint8_t rec[512];
	struct pd_writer *w;
	size_t tdlen;
	void *td = tracing_data(&tdlen);
	int fd, n, err;
	FILE *f;

	for (int i = 0; i < 3; i++) {
		evs[i].attr.size = sizeof(evs[i].attr);
		evs[i].attr.sample_period = 1;
		evs[i].attr.sample_id_all = 1;
		evs[i].attr.sample_type = ST_TP;
		evs[i].nr_ids = 2;
	}
	evs[0].attr.type = evs[1].attr.type = PERF_TYPE_TRACEPOINT;
	evs[0].attr.config = 316;
	evs[1].attr.config = 700;
	evs[0].ids = ids_sw;
	evs[1].ids = ids_pg;
	strcpy(evs[0].name, "sched:sched_switch");
	strcpy(evs[1].name, "syscalls:sys_enter_getpgid");
	evs[2].attr.type = PERF_TYPE_SOFTWARE;
	evs[2].attr.config = PERF_COUNT_SW_DUMMY;
	evs[2].attr.sample_type =
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	evs[2].attr.comm = 1;
	evs[2].ids = ids_d;
	strcpy(evs[2].name, "dummy:tracking");
	meta.tracing_data = td;
	meta.tracing_data_len = tdlen;
	sprintf(data, "%s/rate.data", dir);
	sprintf(json, "%s/rate.json", dir);
	fd = open(data, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	w = fd >= 0 ? pd_writer__new(fd, evs, 3) : NULL;
	err = w ? pd_writer__begin(w) : -EIO;
#define PUT(expr)                                                      \
	do {                                                           \
		n = (expr);                                            \
		if (!err)                                              \
			err = n < 0 ? n : pd_writer__write(w, rec, n); \
	} while (0)
	PUT(pd_synth_comm(rec, sizeof(rec), &evs[2].attr, 301, 100, 100, "solo", 0, 0, 0));
	PUT(pd_synth_comm(rec, sizeof(rec), &evs[2].attr, 301, 300, 300, "pool", 0, 0, 0));
	PUT(pd_synth_comm(rec, sizeof(rec), &evs[2].attr, 301, 300, 301, "pool-1", 0, 0, 0));
	PUT(pg(rec, T0 + 1500, 0, 300, 300, 1)); /* two rate windows back: in neither */
	PUT(pg(rec, T0 + 3000, 0, 100, 100, 2));
	PUT(pg(rec, T0 + 3999, 0, 100, 100, 2));
	for (size_t i = 0; i < sizeof(in_window) / sizeof(in_window[0]); i++)
		PUT(pg(rec, T0 + in_window[i][0], i & 1, (uint32_t)in_window[i][1],
		       (uint32_t)in_window[i][2], 7));
	PUT(pg(rec, T0 + 5100, 0, 300, 300, 1)); /* after the trigger */
#undef PUT
	if (!err)
		err = pd_writer__finish(w, &meta);
	pd_writer__free(w);
	if (fd >= 0)
		close(fd);
	free(td);
	if (err)
		return err;
	f = fopen(json, "w");
	if (!f)
		return -errno;
	fprintf(f,
		"{\"trigger\": {\"name\": \"burst\", \"text\": \"rate\", \"time_ns\": %llu, "
		"\"cpu\": 0, \"pid\": 300, \"tid\": 300, \"comm\": \"pool\", \"kind\": \"rate\", "
		"\"event\": \"syscalls:sys_enter_getpgid\", \"rate\": {\"count\": 6, "
		"\"threshold\": 5, \"window_ns\": 1000, \"window_start_ns\": %llu, \"key\": \"%s\", "
		"\"key_values\": [300, 0]}}, \"window\": {\"start_ns\": %llu, \"end_ns\": %llu}}\n",
		T0 + 5000, T0 + 4000, key, T0 + 1000, T0 + 5200);
	return fclose(f) ? -errno : 0;
}

TEST(why_rate_contributors)
{
	char dir[] = "/tmp/trigrec-whyrate-XXXXXX", data[128], json[128], err[512];
	struct show_why w;
	struct show *s;
	char *txt, *js = NULL;
	size_t len;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	CHECK_EQ(write_rate(dir, data, json, "pid"), 0);
	s = show__open(data, err, sizeof(err));
	CHECK(s != NULL);
	if (!s) {
		fprintf(stderr, "    %s\n", err);
		rm_dir(dir);
		return 1;
	}
	CHECK_EQ(show_why(s, 0, &w), 0);
	CHECK(w.rate.done);
	CHECK_EQ(w.rate.start, T0 + 4000);
	CHECK_EQ(w.rate.end, T0 + 5000);
	CHECK_EQ(w.rate.records, 7);
	CHECK(w.rate.by_key);
	CHECK_EQ(w.rate.nr_keys_all, 2);
	CHECK_STR(w.rate.keys[0].key, "300");
	CHECK_EQ(w.rate.keys[0].count, 6);
	CHECK_STR(w.rate.keys[1].key, "100");
	CHECK_EQ(w.rate.keys[1].count, 1);
	CHECK_EQ(w.rate.nr_tasks_all, 3);
	CHECK_EQ(w.rate.tasks[0].tid, 300);
	CHECK_EQ(w.rate.tasks[0].count, 4);
	CHECK_STR(w.rate.tasks[0].comm, "pool");
	CHECK_EQ(w.rate.tasks[1].tid, 301);
	CHECK_EQ(w.rate.tasks[1].count, 2);
	CHECK_STR(w.rate.tasks[1].comm, "pool-1");
	CHECK_EQ(w.rate.tasks[2].tid, 100);
	CHECK_EQ(w.rate.before_start, T0 + 3000);
	CHECK_EQ(w.rate.before_end, T0 + 4000);
	CHECK_EQ(w.rate.before, 2);
	CHECK_STR(w.rate.note, "");
	show_why_free(&w);
	txt = report(s, 3, &len);
	CHECK(strstr(txt, "\nwhy:\n  rate     7 records of syscalls:sys_enter_getpgid in the rate "
			  "window 7000.000004000 .. 7000.000005000 (1.000 us)\n"
			  "           by key pid (2 values):\n"
			  "               6  300\n"
			  "               1  100\n"
			  "           by task (3):\n"
			  "               4  pool tid 300\n"
			  "               2  pool-1 tid 301\n"
			  "               1  solo tid 100\n"
			  "           before it: 2 in the 1.000 us from 7000.000003000\n") != NULL);
	free(txt);
	f = open_memstream(&js, &len);
	CHECK_EQ(show_why(s, 0, &w), 0);
	show_why_json(s, &w, f);
	fclose(f);
	show_why_free(&w);
	{
		struct jv *d = jv_parse(js, strlen(js), err, sizeof(err));

		CHECK(d != NULL);
		CHECK_EQ(jv_u64(d, "why.rate.records", 0), 7);
		CHECK_STR(jv_str(d, "why.rate.top_keys.0.key", ""), "300");
		CHECK_EQ(jv_u64(d, "why.rate.top_tasks.1.tid", 0), 301);
		CHECK_EQ(jv_u64(d, "why.rate.before.records", 0), 2);
		jv_free(d);
	}
	free(js);
	show__free(s);

	/* a key the records do not carry as one value: by task only, said */
	CHECK_EQ(write_rate(dir, data, json, "pid, str(nothere)"), 0);
	s = show__open(data, err, sizeof(err));
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ(show_why(s, 0, &w), 0);
		CHECK(w.rate.done && !w.rate.by_key);
		CHECK_EQ(w.rate.nr_tasks_all, 3);
		CHECK(strstr(w.rate.note, "by task only") != NULL);
		show_why_free(&w);
		show__free(s);
	}
	rm_dir(dir);
	return 0;
}

RUN_TESTS(T(json_values_and_paths), T(json_errors_say_where), T(snapshot_read_back),
	  T(snapshot_read_back_zstd), T(zstd_many_payloads), T(view_of_a_big_snapshot),
	  T(damaged_files_are_refused_with_a_reason), T(times_and_escapes),
	  T(crafted_cpu_ffffffff_is_refused), T(crafted_sidecar_cpus_out_of_range_are_left_out),
	  T(crafted_short_comm_at_the_end_is_refused),
	  T(crafted_field_offset_wrapping_in_32_bits_reads_nothing),
	  T(crafted_format_at_the_section_end_is_read_inside_it),
	  T(crafted_record_of_odd_size_is_refused), T(fuzz_findings_open_or_say_why),
	  T(crafted_overlapping_id_tables_are_refused), T(crafted_zstd_bomb_is_refused),
	  T(index_of_plain_then_compressed_records), T(sample_ip_is_read_from_the_record),
	  T(fifos_are_refused_not_waited_for), T(clean_text_replaces_control_characters),
	  T(hostile_strings_are_clean), T(chrome_json_of_many_threads_is_not_quadratic),
	  T(why_of_a_known_latency), T(scoped_runs_end_where_the_records_do),
	  T(blind_scope_says_so_and_leaves_gaps), T(why_syscalls_irqs_softirqs),
	  T(why_rate_contributors))
