// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The snapshot writer's order and window, on hand-made ring copies: the
 * cases the kernel makes rare (a record stamped earlier than the one before
 * it in the same ring, equal times on two CPUs, a wrapped ring) decided
 * here, and read back from the perf.data written.
 *
 * Needs tracefs (the writer puts sched_switch's format in the file), so it
 * runs as root.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "check.h"
#include "capture/recorder.h"
#include "show/pdread.h"
#include "show/show.h"
#include "snapshot/snapshot.h"
#include "trigrec_abi.h"

#define NCPU 3
#define ST_TP (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)

/* One planted record: its ring, time, a marker in the raw bytes and its thread (common_pid). */
struct plant {
	uint64_t time;
	int cpu;
	uint32_t mark;
	uint32_t tid;
};

struct rig {
	struct recorder r;
	struct rec_event evs[2];
	struct rec_ring rings[2 * NCPU];
	struct harvest h;
	struct ring_copy copies[2 * NCPU];
	uint64_t ids_tp[NCPU], ids_trk[NCPU];
	struct tp_format *fmt;
	char dir[64];
};

/*
 * A tracepoint sample as the kernel writes it into trigrec's rings:
 * IDENTIFIER, TIME, RAW (u32 size, the entry: common fields then zeros,
 * the marker at offset 8, where sched_switch's prev_comm starts).
 */
static size_t put_sample(uint8_t *p, uint64_t id, uint64_t time, uint32_t mark, uint32_t tid,
			 uint32_t rawlen)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 8 + 8 + 8 + 4 + rawlen };

	memset(p, 0, h.size);
	memcpy(p, &h, 8);
	memcpy(p + 8, &id, 8);
	memcpy(p + 16, &time, 8);
	memcpy(p + 24, &rawlen, 4);
	memcpy(p + 28 + 4, &tid, 4);
	memcpy(p + 28 + 8, &mark, 4);
	return h.size;
}

static int rig_init(struct rig *g)
{
	memset(g, 0, sizeof(*g));
	g->fmt = tp_format__load("sched", "sched_switch");
	if (!g->fmt)
		return -errno;
	for (int c = 0; c < NCPU; c++) {
		g->ids_tp[c] = 1000 + c;
		g->ids_trk[c] = 2000 + c;
	}
	g->evs[0].kind = REC_EV_TRACEPOINT;
	g->evs[0].fmt = g->fmt;
	g->evs[0].pd.attr = (struct perf_event_attr){ .type = PERF_TYPE_TRACEPOINT,
						      .size = sizeof(struct perf_event_attr),
						      .config = g->fmt->id,
						      .sample_period = 1,
						      .sample_type = ST_TP,
						      .sample_id_all = 1,
						      .write_backward = 1 };
	g->evs[0].pd.ids = g->ids_tp;
	g->evs[0].pd.nr_ids = NCPU;
	strcpy(g->evs[0].pd.name, "sched:sched_switch");
	strcpy(g->evs[0].pd.tp_sys, "sched");
	strcpy(g->evs[0].pd.tp_name, "sched_switch");
	g->evs[1].kind = REC_EV_TRACKING;
	g->evs[1].pd.attr = (struct perf_event_attr){
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(struct perf_event_attr),
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CPU,
		.sample_id_all = 1,
		.comm = 1,
		.task = 1,
	};
	g->evs[1].pd.ids = g->ids_trk;
	g->evs[1].pd.nr_ids = NCPU;
	strcpy(g->evs[1].pd.name, "dummy:tracking");
	for (int i = 0; i < 2 * NCPU; i++) {
		g->rings[i] = (struct rec_ring){
			.cpu = i % NCPU, .fd = -1, .tracking = i >= NCPU, .size = 1 << 16, .set = -1
		};
		g->copies[i] = (struct ring_copy){ .buf = calloc(1, 1 << 16), .cap = 1 << 16 };
		if (!g->copies[i].buf)
			return -ENOMEM;
	}
	g->r.evs = g->evs;
	g->r.nr_evs = 2;
	g->r.rings = g->rings;
	g->r.nr_rings = 2 * NCPU;
	g->h.rings = g->copies;
	g->h.nr_rings = 2 * NCPU;
	strcpy(g->dir, "/tmp/trigrec-test-snapshot-XXXXXX");
	return mkdtemp(g->dir) ? 0 : -errno;
}

static void rig_free(struct rig *g)
{
	char cmd[128];

	for (int i = 0; i < 2 * NCPU; i++)
		free(g->copies[i].buf);
	tp_format__free(g->fmt);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g->dir);
	if (system(cmd))
		fprintf(stderr, "    cannot remove %s\n", g->dir);
}

/* Set up g for a test, or skip it where tracefs has no sched_switch format (not root). */
#define RIG_START(g)                                                                           \
	do {                                                                                   \
		int e_ = rig_init(g);                                                          \
                                                                                               \
		if (e_ == -ENOENT || e_ == -EACCES || e_ == -EPERM) {                          \
			rig_free(g);                                                           \
			SKIP("no sched:sched_switch format in tracefs (%s): run as root with " \
			     "tracefs mounted",                                                \
			     strerror(-e_));                                                   \
		}                                                                              \
		CHECK_EQ(e_, 0);                                                               \
	} while (0)

/* Plant records, in the order given = oldest first per ring, laid out newest first. */
static void rig_plant(struct rig *g, const struct plant *p, int n)
{
	for (int c = 0; c < NCPU; c++) {
		uint8_t *b = g->copies[c].buf;
		size_t pos = 0;

		if (!b)
			continue;
		for (int i = n - 1; i >= 0; i--)
			if (p[i].cpu == c)
				pos += put_sample(b + pos, g->ids_tp[c], p[i].time, p[i].mark,
						  p[i].tid,
						  /* odd CPUs: a longer entry, so sizes differ */
						  c & 1 ? 68 : 36);
		g->copies[c].len = pos;
	}
}

/* Write the snapshot, read its records back as "mark@cpu" in file order. */
static int rig_write(struct rig *g, const struct snap_trigger *t, char *out, size_t len)
{
	struct snapshot_ctx sc = { .outdir = g->dir, .no_buildid_cache = 1 };
	struct snap_written w;
	struct pdr_file *f;
	char err[256];
	size_t o = 0;
	int e;

	e = snapshot_ctx__init(&sc, &g->r);
	if (!e)
		e = snapshot__write(&sc, &g->r, &g->h, t, &(struct snap_timing){ 0 }, &w);
	snapshot_ctx__fini(&sc);
	if (e)
		return e;
	f = pdr_open(w.path, err, sizeof(err));
	if (!f) {
		fprintf(stderr, "    %s: %s\n", w.path, err);
		return -EINVAL;
	}
	out[0] = 0;
	for (size_t i = 0; i < f->nr_recs; i++) {
		const struct pdr_rec *r = &f->recs[i];
		uint32_t mark;

		if (r->hdr->type != PERF_RECORD_SAMPLE || !r->raw || r->raw_size < 12)
			continue;
		memcpy(&mark, r->raw + 8, 4);
		o += snprintf(out + o, o < len ? len - o : 0, "%s%u@%u", o ? " " : "", mark,
			      r->cpu);
	}
	pdr_close(f);
	unlink(w.path);
	unlink(w.sidecar);
	return 0;
}

/* Marks are numbered in the order the file must have them. */
static const struct plant ordered[] = {
	/* CPU 0: 300 then 250 (nested: stamped earlier, written later), two at 400 */
	{ 100, 0, 2 },
	{ 300, 0, 6 },
	{ 250, 0, 5 },
	{ 400, 0, 7 },
	{ 400, 0, 8 },
	{ 600, 0, 13 },
	/* CPU 1: one at 400 too, after CPU 0's (ring order breaks the tie) */
	{ 150, 1, 3 },
	{ 400, 1, 9 },
	{ 500, 1, 12 },
	/* CPU 2 */
	{ 50, 2, 1 },
	{ 200, 2, 4 },
	{ 450, 2, 10 },
	{ 460, 2, 11 },
};

TEST(merged_in_time_order_ties_by_cpu_then_age)
{
	struct snap_trigger t = { .name = "unit", .text = "unit", .id = -1, .freeze_at = 1000 };
	struct rig g;
	char got[512];

	RIG_START(&g);
	rig_plant(&g, ordered, sizeof(ordered) / sizeof(ordered[0]));
	CHECK_EQ(rig_write(&g, &t, got, sizeof(got)), 0);
	CHECK_STR(got, "1@2 2@0 3@1 4@2 5@0 6@0 7@0 8@0 9@1 10@2 11@2 12@1 13@0");
	rig_free(&g);
	return 0;
}

TEST(cut_at_the_triggers_record_and_window_from_the_newest_wrap)
{
	struct trigrec_trigger_msg m = {
		.time_ns = 455, .freeze_at = 455, .cpu = 2, .hook_recorded = 1
	};
	struct snap_trigger t = {
		.name = "unit", .text = "unit", .id = -1, .msg = &m, .freeze_at = 455
	};
	struct rig g;
	char got[512];

	RIG_START(&g);
	rig_plant(&g, ordered, sizeof(ordered) / sizeof(ordered[0]));
	/*
	 * The trigger's own record is CPU 2's first at or after 455 (460): the
	 * cut. CPU 1 wrapped with 150 its oldest: nothing older than 150 from
	 * any CPU (CPU 0's 100, CPU 2's 50), so no CPU shows a gap the others
	 * do not.
	 */
	g.copies[1].wrapped = 1;
	CHECK_EQ(rig_write(&g, &t, got, sizeof(got)), 0);
	CHECK_STR(got, "3@1 4@2 5@0 6@0 7@0 8@0 9@1 10@2 11@2");
	/* Without the wrap, the window reaches back to the oldest record. */
	g.copies[1].wrapped = 0;
	CHECK_EQ(rig_write(&g, &t, got, sizeof(got)), 0);
	CHECK_STR(got, "1@2 2@0 3@1 4@2 5@0 6@0 7@0 8@0 9@1 10@2 11@2");
	rig_free(&g);
	return 0;
}

/*
 * A uprobe trigger's own record written on another CPU: the kernel runs a
 * uprobe's program with only migration disabled and writes the record
 * after it, so the task (thread 77) may have moved from CPU 2 to CPU 1
 * before its record was stamped.
 */
TEST(cut_at_the_triggers_record_on_another_cpu)
{
	static const struct plant p[] = {
		{ 100, 0, 1, 5 },
		{ 400, 0, 4, 5 },
		{ 200, 1, 2, 6 },
		/* stamped after the trigger by a program that ran before it */
		{ 458, 1, 5, 6 },
		/* the trigger's own record, moved to CPU 1 */
		{ 470, 1, 6, 77 },
		/* thread 77 again, later: never the cut */
		{ 520, 1, 7, 77 },
		{ 300, 2, 3, 77 },
	};
	struct trigrec_trigger_msg m = {
		.time_ns = 455, .freeze_at = 455, .cpu = 2, .tid = 77, .hook_recorded = 1
	};
	struct snap_trigger t = {
		.name = "unit", .text = "unit", .id = -1, .msg = &m, .freeze_at = 455
	};
	struct rig g;
	char got[512];

	RIG_START(&g);
	rig_plant(&g, p, sizeof(p) / sizeof(p[0]));
	CHECK_EQ(rig_write(&g, &t, got, sizeof(got)), 0);
	CHECK_STR(got, "1@0 2@1 3@2 4@0 5@1 6@1");
	/* Not the trigger's thread: the cut stays at the trigger. */
	m.tid = 78;
	CHECK_EQ(rig_write(&g, &t, got, sizeof(got)), 0);
	CHECK_STR(got, "1@0 2@1 3@2 4@0");
	/*
	 * With a record at or after the trigger on its own CPU, that is the cut,
	 * whoever's it is (that CPU's gate let only the trigger's through).
	 */
	m.tid = 77;
	m.cpu = 1;
	CHECK_EQ(rig_write(&g, &t, got, sizeof(got)), 0);
	CHECK_STR(got, "1@0 2@1 3@2 4@0 5@1");
	rig_free(&g);
	return 0;
}

/* The whole of a file, NUL-terminated; NULL on error. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *b = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (cap - n < 4096) {
			char *nb = realloc(b, cap += 65536);

			if (!nb) {
				free(b);
				fclose(f);
				return NULL;
			}
			b = nb;
		}
		r = fread(b + n, 1, cap - n - 1, f);
		n += r;
	} while (r);
	fclose(f);
	b[n] = 0;
	return b;
}

/*
 * The sidecar holds the why section as `show --json` prints it for the same
 * pair (show/why.c on the file just written), and what it cost; past the
 * records bound, why_skipped says why it is not there.
 */
TEST(sidecar_why_is_shows_why)
{
	static const struct plant p[] = {
		{ 100, 0, 1, 5 }, { 200, 1, 2, 77 }, { 300, 2, 3, 77 }, { 470, 1, 4, 77 }
	};
	struct trigrec_trigger_msg m = {
		.time_ns = 455, .freeze_at = 455, .cpu = 1, .tid = 77, .pid = 77, .hook_recorded = 1
	};
	struct snap_trigger t = {
		.name = "unit", .text = "unit", .id = -1, .msg = &m, .freeze_at = 455
	};
	struct rig g;

	RIG_START(&g);
	rig_plant(&g, p, sizeof(p) / sizeof(p[0]));
	for (int bound = 0; bound < 2; bound++) {
		struct snapshot_ctx sc = { .outdir = g.dir,
					   .no_buildid_cache = 1,
					   .why_max_records = bound ? 3 : 0 };
		struct snap_written w;
		char err[256], *side = NULL, *why = NULL, *want = NULL;
		struct show_why sw;
		struct show *s = NULL;
		size_t len;
		FILE *f;
		int e;

		e = snapshot_ctx__init(&sc, &g.r);
		if (!e)
			e = snapshot__write(&sc, &g.r, &g.h, &t, &(struct snap_timing){ 0 }, &w);
		snapshot_ctx__fini(&sc);
		CHECK_EQ(e, 0);
		if (e)
			break;
		side = slurp(w.sidecar);
		CHECK(side != NULL);
		s = show__open(w.path, err, sizeof(err));
		CHECK(s != NULL);
		if (s && side && !show_why(s, 0, &sw)) {
			f = open_memstream(&why, &len);
			show_why_json_obj(&sw, f);
			fclose(f);
			show_why_free(&sw);
			CHECK(strstr(why, "\"tid\":77") != NULL);
			len = strlen(why) + 16;
			want = malloc(len);
			snprintf(want, len, "\n  \"why\": %s,\n", why);
			if (!bound) {
				CHECK(strstr(side, want) != NULL);
				CHECK(strstr(side, "\"why_skipped\"") == NULL);
			} else {
				CHECK(strstr(side, "\"why\":") == NULL);
				CHECK(strstr(side,
					     "\"why_skipped\": \"4 records, more than the 3 the "
					     "writer analyses: trigrec show --json FILE") != NULL);
			}
			CHECK(strstr(side, "\"why_ns\": 0}") == NULL);
		}
		free(want);
		free(why);
		free(side);
		show__free(s);
		unlink(w.path);
		unlink(w.sidecar);
	}
	rig_free(&g);
	return 0;
}

/* A ring walked newest first with many displaced records comes out in time order. */
TEST(many_displaced_records_in_one_ring)
{
	struct snap_trigger t = { .name = "unit", .text = "unit", .id = -1, .freeze_at = 1000000 };
	struct plant p[300];
	struct rig g;
	char got[4096], want[4096];
	size_t o = 0;

	RIG_START(&g);
	/* In ring order, every third record stamped 25 before the one ahead of it. */
	for (int i = 0; i < 300; i++)
		p[i] = (struct plant){ 1000 + 10 * i - (i % 3 == 2 ? 25 : 0), 0, 0 };
	/* Marks: the rank of each record's time (times are distinct). */
	for (int i = 0; i < 300; i++)
		for (int j = 0; j < 300; j++)
			p[i].mark += p[j].time < p[i].time;
	rig_plant(&g, p, 300);
	CHECK_EQ(rig_write(&g, &t, got, sizeof(got)), 0);
	for (int i = 0; i < 300; i++)
		o += snprintf(want + o, sizeof(want) - o, "%s%d@0", i ? " " : "", i);
	CHECK_STR(got, want);
	rig_free(&g);
	return 0;
}

/*
 * Ring sets (rings=bpf): records as trigrec.bpf.c writes them (header, raw
 * size, trigrec_rec_hdr, the entry), two sets per CPU. Rings 0..NCPU-1 are
 * set 0, NCPU..2*NCPU-1 set 1 (the tracking rings stay empty).
 */
struct bplant {
	uint64_t time;
	uint32_t seq, mark;
	int cpu, set;
};

static size_t put_bpf(uint8_t *p, uint64_t time, uint32_t seq, uint32_t mark)
{
	struct trigrec_rec_hdr rh = { .time = time, .seq = seq, .ev = 0 };
	uint32_t raw = sizeof(rh) + 36;
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 8 + 4 + raw };

	memset(p, 0, h.size);
	memcpy(p, &h, 8);
	memcpy(p + 8, &raw, 4);
	memcpy(p + 12, &rh, sizeof(rh));
	memcpy(p + 28 + 8, &mark, 4);
	return h.size;
}

TEST(ring_sets_joined_by_record_number_up_to_the_first_gap)
{
	/* In each ring's order, newest first. */
	static const struct bplant p[] = {
		/* CPU 0, set 0: 17 and 18 swapped in place (a preempted writer) */
		{ 2000, 20, 7, 0, 0 },
		{ 1900, 19, 6, 0, 0 },
		{ 1700, 17, 4, 0, 0 },
		{ 1800, 18, 5, 0, 0 },
		/* CPU 0, set 1: 14 is missing: 13 and 12 are older than a gap */
		{ 1600, 16, 3, 0, 1 },
		{ 1500, 15, 1, 0, 1 },
		{ 1300, 13, 0, 0, 1 },
		{ 1200, 12, 0, 0, 1 },
		/* CPU 1, set 1 only: record 0 is its first ever, nothing lost */
		{ 1550, 2, 2, 1, 1 },
		{ 1450, 1, 0, 1, 1 },
		{ 1000, 0, 0, 1, 1 },
	};
	struct snap_trigger t = { .name = "unit", .text = "unit", .id = -1, .freeze_at = 5000 };
	uint64_t ids[NCPU];
	int cpus[NCPU];
	struct rig g;
	char got[512];

	RIG_START(&g);
	for (int c = 0; c < NCPU; c++) {
		ids[c] = REC_BPF_ID(0, c);
		cpus[c] = c;
	}
	g.evs[0].bpf_rec = 1;
	g.evs[0].pd.ids = ids;
	g.r.nr_bpf_evs = 1;
	g.r.cpus = cpus;
	g.r.nr_cpus = NCPU;
	for (int i = 0; i < 2 * NCPU; i++) {
		int set = i / NCPU, cpu = i % NCPU;
		size_t pos = 0;

		g.rings[i].set = set;
		g.rings[i].tracking = 0;
		for (size_t j = 0; j < sizeof(p) / sizeof(p[0]); j++)
			if (p[j].cpu == cpu && p[j].set == set)
				pos += put_bpf((uint8_t *)g.copies[i].buf + pos, p[j].time,
					       p[j].seq, p[j].mark);
		g.copies[i].len = pos;
	}
	/* No tracking rings in this layout: the two sets' rings stand for them in r. */
	g.r.nr_rings = g.h.nr_rings = 2 * NCPU;
	/*
	 * CPU 0 keeps 15-20 in time order and lost what is older than the gap,
	 * so no CPU's window starts before 1500: CPU 1's 1450 and 1000 go too.
	 */
	CHECK_EQ(rig_write(&g, &t, got, sizeof(got)), 0);
	CHECK_STR(got, "1@0 2@1 3@0 4@0 5@0 6@0 7@0");
	g.evs[0].pd.ids = g.ids_tp;
	rig_free(&g);
	return 0;
}

RUN_TESTS(T(merged_in_time_order_ties_by_cpu_then_age),
	  T(ring_sets_joined_by_record_number_up_to_the_first_gap),
	  T(cut_at_the_triggers_record_and_window_from_the_newest_wrap),
	  T(cut_at_the_triggers_record_on_another_cpu), T(sidecar_why_is_shows_why),
	  T(many_displaced_records_in_one_ring))
