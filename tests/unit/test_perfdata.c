// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * perf.data writer and record decoding. The writer tests read the file back
 * with stock perf (script, report --header-only, evlist -v) and compare what
 * it prints, so a layout perf rejects or misreads fails here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>
#include "check.h"
#include "snapshot/perfdata.h"
#include "capture/tracefs.h"
#include "snapshot/pdhost.h"

#define ST_TP                                                                            \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
	 PERF_SAMPLE_RAW)
#define ST_DUMMY (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)
#define T0 5000000000000ull /* 5000 s of CLOCK_MONOTONIC */

/* ------------------------------------------------------------ helpers -- */

/* Run a shell command, return its stdout (malloc'ed) and exit status. */
static char *run(const char *cmd, int *status)
{
	FILE *f = popen(cmd, "r");
	size_t len = 0, cap = 1 << 16;
	char *out = malloc(cap);
	size_t n;

	if (!f || !out) {
		free(out);
		if (f)
			pclose(f);
		*status = -1;
		return NULL;
	}
	while ((n = fread(out + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 4096) {
			char *p = realloc(out, cap * 2);

			if (!p)
				break;
			out = p;
			cap *= 2;
		}
	}
	out[len] = 0;
	*status = pclose(f);
	return out;
}

/* Offset and size of a field in format text; end of the last field in *fixed. */
static int fmt_field(const char *fmt, const char *name, int *off, int *size, int *fixed)
{
	const char *l = fmt;
	int found = -1;

	*fixed = 0;
	while ((l = strstr(l, "field:"))) {
		const char *semi = strchr(l, ';'), *e, *b;
		int o, s;

		if (!semi)
			break;
		e = semi;
		if (e[-1] == ']')
			while (e > l && *e != '[')
				e--;
		b = e;
		while (b > l && b[-1] != ' ' && b[-1] != '*')
			b--;
		if (sscanf(semi, "; offset:%d; size:%d;", &o, &s) != 2)
			return -1;
		if (o + s > *fixed)
			*fixed = o + s;
		if ((size_t)(e - b) == strlen(name) && !strncmp(b, name, e - b)) {
			*off = o;
			*size = s;
			found = 0;
		}
		l = semi;
	}
	return found;
}

struct tp {
	char *fmt;
	int id, fixed;
};

static int tp_load(struct tp *t, const char *sys, const char *name)
{
	char path[256];
	const char *id;
	size_t len;

	snprintf(path, sizeof(path), "events/%s/%s/format", sys, name);
	t->fmt = tracefs_read(path, &len);
	if (!t->fmt)
		return -1;
	id = strstr(t->fmt, "\nID: ");
	if (!id)
		return -1;
	t->id = atoi(id + 5);
	{
		int o, s;

		fmt_field(t->fmt, "common_type", &o, &s, &t->fixed);
	}
	return 0;
}

static void tp_set(const struct tp *t, unsigned char *raw, const char *field, const void *v,
		   size_t n)
{
	int o = 0, s = 0, fixed;

	if (fmt_field(t->fmt, field, &o, &s, &fixed)) {
		fprintf(stderr, "    no field %s\n", field);
		abort();
	}
	memset(raw + o, 0, s);
	memcpy(raw + o, v, n < (size_t)s ? n : (size_t)s);
}

/* A tracepoint sample: IDENTIFIER, TID, TIME, CPU, RAW as the kernel lays them out. */
static size_t tp_sample(unsigned char *buf, uint64_t id, uint32_t pid, uint32_t tid, uint64_t time,
			uint32_t cpu, const void *raw, uint32_t rawlen)
{
	uint32_t padded = ((4 + rawlen + 7) & ~7u) - 4; /* 4 + size is a multiple of 8 */
	struct perf_event_header h = {
		.type = PERF_RECORD_SAMPLE,
		.misc = PERF_RECORD_MISC_KERNEL,
		.size = 8 + 32 + 4 + padded,
	};
	uint32_t pt[2] = { pid, tid }, c[2] = { cpu, 0 };

	memset(buf, 0, h.size);
	memcpy(buf, &h, 8);
	memcpy(buf + 8, &id, 8);
	memcpy(buf + 16, pt, 8);
	memcpy(buf + 24, &time, 8);
	memcpy(buf + 32, c, 8);
	memcpy(buf + 40, &padded, 4);
	memcpy(buf + 44, raw, rawlen);
	return h.size;
}

static void common(const struct tp *t, unsigned char *raw, int32_t pid)
{
	uint16_t type = t->id;

	memset(raw, 0, t->fixed);
	tp_set(t, raw, "common_type", &type, 2);
	tp_set(t, raw, "common_pid", &pid, 4);
}

static size_t sched_switch(const struct tp *t, unsigned char *buf, uint64_t id, uint64_t time,
			   uint32_t cpu, const char *prev, int32_t prev_pid, int64_t state,
			   const char *next, int32_t next_pid)
{
	unsigned char raw[256];
	int32_t prio = 120;
	char comm[16];

	common(t, raw, prev_pid);
	memset(comm, 0, sizeof(comm));
	strncpy(comm, prev, 15);
	tp_set(t, raw, "prev_comm", comm, 16);
	tp_set(t, raw, "prev_pid", &prev_pid, 4);
	tp_set(t, raw, "prev_prio", &prio, 4);
	tp_set(t, raw, "prev_state", &state, 8);
	memset(comm, 0, sizeof(comm));
	strncpy(comm, next, 15);
	tp_set(t, raw, "next_comm", comm, 16);
	tp_set(t, raw, "next_pid", &next_pid, 4);
	tp_set(t, raw, "next_prio", &prio, 4);
	return tp_sample(buf, id, prev_pid, prev_pid, time, cpu, raw, t->fixed);
}

static size_t ev_getpgid(const struct tp *t, unsigned char *buf, uint64_t id, uint64_t time,
			 uint32_t cpu, int32_t pid, int32_t tid, uint64_t arg)
{
	unsigned char raw[256];
	int32_t nr = 121; /* __NR_getpgid on x86_64; only printed as a number anyway */

	common(t, raw, tid);
	tp_set(t, raw, "__syscall_nr", &nr, 4);
	tp_set(t, raw, "pid", &arg, 8);
	return tp_sample(buf, id, pid, tid, time, cpu, raw, t->fixed);
}

static struct perf_event_header hdr_of(const void *p)
{
	struct perf_event_header h;

	memcpy(&h, p, sizeof(h));
	return h;
}

/* Strip trailing blanks of each line, so spacing at line ends does not matter. */
static void rstrip_lines(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (*r == '\n')
			while (w > s && (w[-1] == ' ' || w[-1] == '\t'))
				w--;
		*w++ = *r;
	}
	*w = 0;
}

/* ------------------------------------------------------------- decode -- */

TEST(decode_sample_fields_in_order)
{
	uint64_t ids0[] = { 7, 8 }, ids1[] = { 1000 };
	struct pd_event evs[2] = { 0 };
	struct pd_idmap *m;
	struct pd_rec_info info;
	uint64_t buf[16] = { 0 };
	struct perf_event_header *h = (void *)buf;

	evs[0].attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				  PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
				  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	evs[0].attr.sample_id_all = 1;
	evs[0].ids = ids0;
	evs[0].nr_ids = 2;
	evs[1].attr.sample_type = ST_DUMMY;
	evs[1].attr.sample_id_all = 1;
	evs[1].ids = ids1;
	evs[1].nr_ids = 1;
	m = pd_idmap__new(evs, 2);
	CHECK(m);
	if (!m)
		return 1;
	CHECK_EQ(pd_idmap__find(m, 7), 0);
	CHECK_EQ(pd_idmap__find(m, 8), 0);
	CHECK_EQ(pd_idmap__find(m, 1000), 1);
	CHECK_EQ(pd_idmap__find(m, 9), -1);

	h->type = PERF_RECORD_SAMPLE;
	h->size = 8 + 9 * 8;
	buf[1] = 8;			    /* IDENTIFIER */
	buf[2] = 0xffffffff81000000ull;	    /* IP */
	buf[3] = 1234ull | (1235ull << 32); /* pid, tid */
	buf[4] = T0 + 42;		    /* TIME */
	buf[5] = 0xdead;		    /* ADDR */
	buf[6] = 8;			    /* ID */
	buf[7] = 8;			    /* STREAM_ID */
	buf[8] = 3;			    /* cpu, res */
	buf[9] = 1;			    /* PERIOD */
	CHECK_EQ(pd_rec_decode(m, evs, h, &info), 0);
	CHECK_EQ(info.event, 0);
	CHECK_EQ(info.id, 8);
	CHECK_EQ(info.pid, 1234);
	CHECK_EQ(info.tid, 1235);
	CHECK_EQ(info.time, T0 + 42);
	CHECK_EQ(info.has_time, 1);
	CHECK_EQ(info.cpu, 3);

	/* cut before CPU: malformed */
	h->size = 8 + 7 * 8;
	CHECK_EQ(pd_rec_decode(m, evs, h, &info), -EINVAL);

	/* unknown id: well formed, owner unknown */
	h->size = 8 + 9 * 8;
	buf[1] = 99;
	CHECK_EQ(pd_rec_decode(m, evs, h, &info), 0);
	CHECK_EQ(info.event, -1);
	CHECK_EQ(info.id, 99);
	CHECK_EQ(info.has_time, 0);

	/* shorter than header + identifier, or not a multiple of 8 */
	h->size = 8;
	CHECK_EQ(pd_rec_decode(m, evs, h, &info), -EINVAL);
	h->size = 20;
	CHECK_EQ(pd_rec_decode(m, evs, h, &info), -EINVAL);
	pd_idmap__free(m);
	return 0;
}

TEST(decode_comm_trailer)
{
	uint64_t ids[] = { 55 }, ids2[] = { 66 };
	struct pd_event evs[2] = { 0 };
	struct pd_idmap *m;
	struct pd_rec_info info;
	uint64_t buf[32];
	const unsigned char *b = (const void *)buf;
	int n;

	evs[0].attr.sample_type = ST_TP;
	evs[0].attr.sample_id_all = 1;
	evs[0].ids = ids;
	evs[0].nr_ids = 1;
	/* every trailer field, to check their order */
	evs[1].attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
				  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER |
				  PERF_SAMPLE_IP | PERF_SAMPLE_RAW;
	evs[1].attr.sample_id_all = 1;
	evs[1].ids = ids2;
	evs[1].nr_ids = 1;
	m = pd_idmap__new(evs, 2);
	CHECK(m);
	if (!m)
		return 1;

	n = pd_synth_comm(buf, sizeof(buf), &evs[0].attr, 55, 300, 301, "bash", 1, T0 + 7, 2);
	/* header, pid/tid, "bash\0" padded to 8, then TID, TIME, CPU, IDENTIFIER */
	CHECK_EQ(n, 8 + 8 + 8 + 32);
	CHECK_EQ(hdr_of(buf).type, PERF_RECORD_COMM);
	CHECK_EQ(hdr_of(buf).misc, PERF_RECORD_MISC_COMM_EXEC);
	CHECK(!memcmp(b + 16, "bash\0\0\0\0", 8));
	CHECK_EQ(buf[6], 55);
	CHECK_EQ(pd_rec_decode(m, evs, (void *)buf, &info), 0);
	CHECK_EQ(info.event, 0);
	CHECK_EQ(info.pid, 300);
	CHECK_EQ(info.tid, 301);
	CHECK_EQ(info.time, T0 + 7);
	CHECK_EQ(info.cpu, 2);
	CHECK_EQ(info.has_time, 1);

	n = pd_synth_comm(buf, sizeof(buf), &evs[1].attr, 66, 1, 2, "a-comm-of-16-ch", 0, 99, 5);
	CHECK_EQ(n, 8 + 8 + 16 + 48);
	CHECK_EQ(hdr_of(buf).misc, 0);
	CHECK_EQ(buf[4], 1ull | (2ull << 32)); /* TID */
	CHECK_EQ(buf[5], 99);		       /* TIME */
	CHECK_EQ(buf[6], 66);		       /* ID */
	CHECK_EQ(buf[7], 66);		       /* STREAM_ID */
	CHECK_EQ(buf[8], 5);		       /* CPU */
	CHECK_EQ(buf[9], 66);		       /* IDENTIFIER */
	CHECK_EQ(pd_rec_decode(m, evs, (void *)buf, &info), 0);
	CHECK_EQ(info.event, 1);
	CHECK_EQ(info.time, 99);
	CHECK_EQ(info.cpu, 5);
	CHECK_EQ(info.tid, 2);

	/* too small a buffer */
	CHECK_EQ(pd_synth_comm(buf, 40, &evs[1].attr, 66, 1, 2, "x", 0, 1, 1), -ENOSPC);
	/* a non-sample too short for its trailer */
	{
		uint16_t sz = 16;

		memcpy((char *)buf + 6, &sz, 2);
		buf[1] = 66; /* header + identifier only: no room for the rest */
	}
	CHECK_EQ(pd_rec_decode(m, evs, (void *)buf, &info), -EINVAL);
	pd_idmap__free(m);
	return 0;
}

TEST(synth_maps_layout)
{
	struct perf_event_attr a = { .sample_type = ST_DUMMY, .sample_id_all = 1 };
	uint64_t buf[64];
	const unsigned char *b = (const void *)buf;
	uint32_t u32;
	int n;

	n = pd_synth_kernel_mmap(buf, sizeof(buf), &a, 9, 0xffffffff81000000ull, 0x2000000);
	CHECK(n > 0 && n % 8 == 0);
	CHECK_EQ(hdr_of(buf).type, PERF_RECORD_MMAP);
	CHECK_EQ(hdr_of(buf).misc, PERF_RECORD_MISC_KERNEL);
	memcpy(&u32, b + 8, 4);
	CHECK_EQ(u32, 0xffffffffu);
	CHECK_EQ(buf[2], 0xffffffff81000000ull);
	CHECK_EQ(buf[3], 0x2000000);
	CHECK_EQ(buf[4], 0xffffffff81000000ull); /* pgoff = _text */
	CHECK_STR((const char *)b + 40, "[kernel.kallsyms]_text");
	CHECK_EQ(buf[n / 8 - 1], 9);

	n = pd_synth_mmap2(buf, sizeof(buf), &a, 9, 10, 11, 0x400000, 0x1000, 0x2000, 8, 1, 1234, 5,
			   2, "/usr/bin/x");
	CHECK(n > 0 && n % 8 == 0);
	CHECK_EQ(hdr_of(buf).type, PERF_RECORD_MMAP2);
	CHECK_EQ(hdr_of(buf).misc, PERF_RECORD_MISC_USER);
	CHECK_EQ(buf[4], 0x2000);
	memcpy(&u32, b + 40, 4);
	CHECK_EQ(u32, 8);
	CHECK_EQ(buf[6], 1234);
	memcpy(&u32, b + 64, 4);
	CHECK_EQ(u32, 5);
	CHECK_STR((const char *)b + 72, "/usr/bin/x");
	pd_synth_mmap2(buf, sizeof(buf), &a, 9, 10, 11, 0x400000, 0x1000, 0, 0, 0, 0, 1, 2,
		       "/data");
	CHECK_EQ(hdr_of(buf).misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA);
	CHECK_EQ(pd_synth_mmap2(buf, 64, &a, 9, 10, 11, 0, 1, 0, 0, 0, 0, 1, 2, "/x"), -ENOSPC);
	return 0;
}

/* -------------------------------------------------------------- writer -- */

TEST(writer_enospc)
{
	uint64_t ids[] = { 1 };
	struct pd_event ev = { .ids = ids, .nr_ids = 1 };
	unsigned char rec[4096];
	struct pd_writer *w;
	int fd, err;

	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.config = PERF_COUNT_SW_DUMMY;
	ev.attr.sample_type = ST_DUMMY;
	ev.attr.sample_id_all = 1;
	strcpy(ev.name, "dummy:tracking");
	fd = open("/dev/full", O_WRONLY);
	if (fd < 0)
		SKIP("no /dev/full: %s", strerror(errno));

	/* small file: the first real write is at finish */
	w = pd_writer__new(fd, &ev, 1);
	CHECK(w);
	CHECK_EQ(pd_writer__begin(w), 0);
	err = pd_synth_comm(rec, sizeof(rec), &ev.attr, 1, 1, 1, "init", 0, 0, 0);
	CHECK(err > 0);
	CHECK_EQ(pd_writer__write(w, rec, err), 0);
	CHECK_EQ(pd_writer__finish(w, NULL), -ENOSPC);
	pd_writer__free(w);

	/* large data: the buffer fills and write() itself reports it, then stays failed */
	w = pd_writer__new(fd, &ev, 1);
	CHECK(w);
	CHECK_EQ(pd_writer__begin(w), 0);
	memset(rec, 0, sizeof(rec));
	((struct perf_event_header *)rec)->size = sizeof(rec);
	err = 0;
	for (int i = 0; i < 4096 && !err; i++)
		err = pd_writer__write(w, rec, sizeof(rec));
	CHECK_EQ(err, -ENOSPC);
	CHECK_EQ(pd_writer__write(w, rec, sizeof(rec)), -ENOSPC);
	CHECK_EQ(pd_writer__finish(w, NULL), -ENOSPC);
	pd_writer__free(w);

	/* one write bigger than the buffer goes straight through */
	w = pd_writer__new(fd, &ev, 1);
	CHECK(w);
	CHECK_EQ(pd_writer__begin(w), 0);
	{
		size_t big = 9u << 20;
		unsigned char *p = calloc(1, big);

		CHECK(p);
		if (p)
			CHECK_EQ(pd_writer__write(w, p, big), -ENOSPC);
		free(p);
	}
	pd_writer__free(w);

	/* misuse */
	w = pd_writer__new(fd, &ev, 1);
	CHECK_EQ(pd_writer__write(w, rec, 8), -EINVAL); /* before begin */
	CHECK_EQ(pd_writer__begin(w), 0);
	CHECK_EQ(pd_writer__write(w, rec, 12), -EINVAL); /* not a multiple of 8 */
	pd_writer__free(w);
	close(fd);
	return 0;
}

struct fixture {
	char dir[64], file[128];
	struct tp sw, pg;
	int have_pg;
	struct pd_event evs[3];
	int nr;
	uint64_t data_size;
	int zlevel; /* compress (pd_writer__set_zstd) */
	int bulk;   /* this many more sched_switch samples after the fixed ones */
	int giant;  /* and one sample bigger than a compression slice */
	struct pd_comp_stats zst;
};

static uint64_t ids_sw[] = { 101, 102 }, ids_pg[] = { 201, 202 }, ids_dummy[] = { 301, 302 };

static void set_tp_attr(struct pd_event *e, const struct tp *t, const char *sys, const char *name)
{
	e->attr.type = PERF_TYPE_TRACEPOINT;
	e->attr.size = sizeof(e->attr);
	e->attr.config = t->id;
	e->attr.sample_period = 1;
	e->attr.sample_type = ST_TP;
	e->attr.sample_id_all = 1;
	e->attr.use_clockid = 1;
	e->attr.clockid = CLOCK_MONOTONIC;
	e->attr.write_backward = 1;
	snprintf(e->name, sizeof(e->name), "%s:%s", sys, name);
	snprintf(e->tp_sys, sizeof(e->tp_sys), "%s", sys);
	snprintf(e->tp_name, sizeof(e->tp_name), "%s", name);
}

/*
 * The file the perf tests read: COMMs at time 0 first, then samples and one
 * exec COMM deliberately out of time order (perf must sort them).
 */
static int build_file_meta(struct fixture *fx, void (*more)(struct pd_meta *));

static int build_file(struct fixture *fx)
{
	return build_file_meta(fx, NULL);
}

static int build_file_meta(struct fixture *fx, void (*more)(struct pd_meta *))
{
	static char *argv[] = { "trigrec", "record", "-e", "sched:sched_switch" };
	struct pd_meta meta = {
		.hostname = "testhost",
		.osrelease = "6.99.0-test",
		.version = "trigrec-test",
		.arch = "x86_64",
		.nr_cpus_avail = 4,
		.nr_cpus_online = 2,
		.argc = 4,
		.argv = argv,
		.first_time = T0 + 1000,
		.last_time = T0 + 5000,
		.clockid = CLOCK_MONOTONIC,
		.clock_res_ns = 1,
		.tod_ns = 1700000000000000000ull,
		.clockid_ns = T0,
	};
	const struct perf_event_attr *da;
	unsigned char rec[512];
	struct pd_writer *w;
	void *td = NULL;
	size_t tdlen = 0;
	int fd, n, err, e = 0;

	snprintf(fx->dir, sizeof(fx->dir), "/tmp/trigrec-pd-XXXXXX");
	if (!mkdtemp(fx->dir))
		return -errno;
	snprintf(fx->file, sizeof(fx->file), "%s/perf.data", fx->dir);

	set_tp_attr(&fx->evs[e], &fx->sw, "sched", "sched_switch");
	fx->evs[e].ids = ids_sw;
	fx->evs[e++].nr_ids = 2;
	if (fx->have_pg) {
		set_tp_attr(&fx->evs[e], &fx->pg, "syscalls", "sys_enter_getpgid");
		fx->evs[e].ids = ids_pg;
		fx->evs[e++].nr_ids = 2;
	}
	fx->evs[e].attr.type = PERF_TYPE_SOFTWARE;
	fx->evs[e].attr.size = sizeof(fx->evs[e].attr);
	fx->evs[e].attr.config = PERF_COUNT_SW_DUMMY;
	fx->evs[e].attr.sample_period = 1;
	fx->evs[e].attr.sample_type = ST_DUMMY;
	fx->evs[e].attr.sample_id_all = 1;
	fx->evs[e].attr.comm = 1;
	fx->evs[e].attr.comm_exec = 1;
	fx->evs[e].attr.task = 1;
	fx->evs[e].attr.use_clockid = 1;
	fx->evs[e].attr.clockid = CLOCK_MONOTONIC;
	fx->evs[e].attr.write_backward = 1;
	strcpy(fx->evs[e].name, "dummy:tracking");
	fx->evs[e].ids = ids_dummy;
	fx->evs[e++].nr_ids = 2;
	fx->nr = e;
	da = &fx->evs[e - 1].attr;

	err = pd_tracing_data(fx->evs, fx->nr, &td, &tdlen);
	if (err)
		return err;
	meta.tracing_data = td;
	meta.tracing_data_len = tdlen;
	if (more)
		more(&meta);

	fd = open(fx->file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		free(td);
		return -errno;
	}
	w = pd_writer__new(fd, fx->evs, fx->nr);
	err = w ? 0 : -ENOMEM;
	if (!err && fx->zlevel)
		err = pd_writer__set_zstd(w, fx->zlevel, 0);
	if (!err)
		err = pd_writer__begin(w);
#define PUT(expr)                                                      \
	do {                                                           \
		n = (expr);                                            \
		if (!err)                                              \
			err = n < 0 ? n : pd_writer__write(w, rec, n); \
	} while (0)
	PUT(pd_synth_kernel_mmap(rec, sizeof(rec), da, 301, 0xffffffff81000000ull, 0x2000000));
	PUT(pd_synth_comm(rec, sizeof(rec), da, 301, 1000, 1000, "worker", 0, 0, 0));
	PUT(pd_synth_comm(rec, sizeof(rec), da, 301, 1000, 1001, "worker-t2", 0, 0, 0));
	PUT(pd_synth_comm(rec, sizeof(rec), da, 301, 2000, 2000, "other", 0, 0, 0));
	PUT(pd_synth_mmap2(rec, sizeof(rec), da, 301, 2000, 2000, 0x400000, 0x1000, 0, 8, 1, 4242,
			   5, 2, "/usr/bin/other"));
	/* a ring's worth in reverse order, like a backward ring read newest first */
	PUT(sched_switch(&fx->sw, rec, 102, T0 + 5000, 1, "other", 2000, 0, "worker", 1000));
	if (fx->have_pg)
		PUT(ev_getpgid(&fx->pg, rec, 202, T0 + 4000, 1, 2000, 2000, 0x7b));
	PUT(pd_synth_comm(rec, sizeof(rec), da, 302, 2000, 2000, "renamed", 1, T0 + 3500, 1));
	if (fx->have_pg)
		PUT(ev_getpgid(&fx->pg, rec, 201, T0 + 3000, 0, 1000, 1001, 0));
	PUT(sched_switch(&fx->sw, rec, 101, T0 + 2000, 0, "worker", 1000, 1, "worker-t2", 1001));
	PUT(sched_switch(&fx->sw, rec, 102, T0 + 1000, 1, "swapper/1", 0, 0, "other", 2000));
	for (int i = 0; i < fx->bulk; i++)
		PUT(sched_switch(&fx->sw, rec, 101 + (i & 1), T0 + 10000 + 7 * i, i & 1,
				 i % 3 ? "worker" : "worker-t2", 1000 + i % 3 / 2, i % 3, "other",
				 2000));
#undef PUT
	if (!err && fx->giant) {
		/* a sched_switch whose raw data goes on with 64 KiB of noise (perf prints the fields) */
		unsigned char *big = malloc(65536), *raw = malloc(65536);
		uint32_t x = 12345;

		sched_switch(&fx->sw, rec, 101, T0 + 9000, 0, "giant", 3000, 0, "other", 2000);
		if (big && raw) {
			memcpy(raw, rec + 44, fx->sw.fixed);
			for (int i = fx->sw.fixed; i < 65400; i++)
				raw[i] = (x = x * 1103515245 + 12345) >> 16;
			n = tp_sample(big, 101, 3000, 3000, T0 + 9000, 0, raw, 65400);
			err = pd_writer__write(w, big, n);
		} else {
			err = -ENOMEM;
		}
		free(big);
		free(raw);
	}
	if (!err)
		err = pd_writer__finish(w, &meta);
	if (w) {
		fx->data_size = pd_writer__data_size(w);
		pd_writer__comp_stats(w, &fx->zst);
	}
	pd_writer__free(w);
	close(fd);
	free(td);
	return err;
}

static void fixture_free(struct fixture *fx)
{
	char cmd[256];

	free(fx->sw.fmt);
	free(fx->pg.fmt);
	if (fx->dir[0] && !getenv("KEEP")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->dir);
		if (system(cmd))
			fprintf(stderr, "    could not remove %s\n", fx->dir);
	}
}

static const char *perf_bin(void)
{
	if (!access("/usr/bin/perf", X_OK))
		return "/usr/bin/perf";
	return NULL;
}

/* Set up the fixture or explain why the test cannot run. */
static const char *fixture_init(struct fixture *fx)
{
	memset(fx, 0, sizeof(*fx));
	if (!perf_bin())
		return "perf not installed";
	if (!tracefs_root())
		return "tracefs not found or not mountable";
	if (tp_load(&fx->sw, "sched", "sched_switch"))
		return "sched:sched_switch format not readable";
	fx->have_pg = !tp_load(&fx->pg, "syscalls", "sys_enter_getpgid");
	return NULL;
}

TEST(perf_script_decodes_file)
{
	struct fixture fx;
	const char *why = fixture_init(&fx);
	char cmd[512], exp[4096];
	char *out;
	int st, err;

	if (why) {
		fixture_free(&fx);
		SKIP("%s", why);
	}
	err = build_file(&fx);
	CHECK_EQ(err, 0);
	if (err) {
		fixture_free(&fx);
		return 1;
	}
	/* trace: selects the tracepoint events only, so perf has nothing to warn about */
	snprintf(cmd, sizeof(cmd),
		 "%s script -f -i %s -F trace:comm,pid,tid,cpu,time,event,trace 2>&1", perf_bin(),
		 fx.file);
	out = run(cmd, &st);
	CHECK(out);
	CHECK_EQ(st, 0);
	if (!out) {
		fixture_free(&fx);
		return 1;
	}
	rstrip_lines(out);
	/*
	 * Sorted by time; names from the COMMs, including the timestamped exec
	 * one; the event column is as wide as the longest event name.
	 */
	if (fx.have_pg)
		snprintf(
			exp, sizeof(exp), "%s",
			"         swapper     0/0     [001]  5000.000001:         sched:sched_switch: "
			"prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> "
			"next_comm=other next_pid=2000 next_prio=120\n"
			"          worker  1000/1000  [000]  5000.000002:         sched:sched_switch: "
			"prev_comm=worker prev_pid=1000 prev_prio=120 prev_state=S ==> "
			"next_comm=worker-t2 next_pid=1001 next_prio=120\n"
			"       worker-t2  1000/1001  [000]  5000.000003: syscalls:sys_enter_getpgid: "
			"pid: 0x00000000\n"
			"         renamed  2000/2000  [001]  5000.000004: syscalls:sys_enter_getpgid: "
			"pid: 0x0000007b\n"
			"         renamed  2000/2000  [001]  5000.000005:         sched:sched_switch: "
			"prev_comm=other prev_pid=2000 prev_prio=120 prev_state=R ==> "
			"next_comm=worker next_pid=1000 next_prio=120\n");
	else
		snprintf(exp, sizeof(exp), "%s",
			 "         swapper     0/0     [001]  5000.000001: sched:sched_switch: "
			 "prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> "
			 "next_comm=other next_pid=2000 next_prio=120\n"
			 "          worker  1000/1000  [000]  5000.000002: sched:sched_switch: "
			 "prev_comm=worker prev_pid=1000 prev_prio=120 prev_state=S ==> "
			 "next_comm=worker-t2 next_pid=1001 next_prio=120\n"
			 "         renamed  2000/2000  [001]  5000.000005: sched:sched_switch: "
			 "prev_comm=other prev_pid=2000 prev_prio=120 prev_state=R ==> "
			 "next_comm=worker next_pid=1000 next_prio=120\n");
	CHECK_STR(out, exp);
	free(out);

	/* no thread left nameless */
	snprintf(cmd, sizeof(cmd), "%s script -f -i %s 2>&1 | grep -c '^ *:[0-9]'", perf_bin(),
		 fx.file);
	out = run(cmd, &st);
	CHECK_STR(out, "0\n");
	free(out);

	/* the synthesized maps and the exec COMM as perf sees them */
	snprintf(cmd, sizeof(cmd),
		 "%s script -f -i %s --show-mmap-events --show-task-events "
		 "-F comm,pid,tid,event 2>&1 | grep PERF_RECORD",
		 perf_bin(), fx.file);
	out = run(cmd, &st);
	CHECK(out);
	if (out) {
		CHECK(strstr(out, "PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x2000000) @ "
				  "0xffffffff81000000]: x [kernel.kallsyms]_text"));
		CHECK(strstr(out,
			     "PERF_RECORD_MMAP2 2000/2000: [0x400000(0x1000) @ 0 08:01 4242 0]: "
			     "r-xp /usr/bin/other"));
		CHECK(strstr(out, "PERF_RECORD_COMM exec: renamed:2000/2000"));
	}
	free(out);
	fixture_free(&fx);
	return 0;
}

TEST(perf_header_and_evlist)
{
	struct fixture fx;
	const char *why = fixture_init(&fx);
	char cmd[512], exp[512];
	char *out;
	int st, err;

	if (why) {
		fixture_free(&fx);
		SKIP("%s", why);
	}
	err = build_file(&fx);
	CHECK_EQ(err, 0);
	if (err) {
		fixture_free(&fx);
		return 1;
	}
	snprintf(cmd, sizeof(cmd), "%s report -f --header-only -i %s 2>&1", perf_bin(), fx.file);
	out = run(cmd, &st);
	CHECK_EQ(st, 0);
	CHECK(out);
	if (out) {
		CHECK(strstr(out, "# header version : 1\n"));
		snprintf(exp, sizeof(exp), "# data size      : %" PRIu64 "\n", fx.data_size);
		CHECK(strstr(out, exp));
		CHECK(strstr(out, "# hostname : testhost\n"));
		CHECK(strstr(out, "# os release : 6.99.0-test\n"));
		CHECK(strstr(out, "# perf version : trigrec-test\n"));
		CHECK(strstr(out, "# arch : x86_64\n"));
		CHECK(strstr(out, "# nrcpus online : 2\n"));
		CHECK(strstr(out, "# nrcpus avail : 4\n"));
		CHECK(strstr(out, "# cmdline : trigrec record -e sched:sched_switch \n"));
		snprintf(exp, sizeof(exp),
			 "# event : name = sched:sched_switch, , id = { 101, 102 }, "
			 "type = 2, size = 128, config = 0x%x, { sample_period, sample_freq } = 1, "
			 "sample_type = TID|TIME|CPU|RAW|IDENTIFIER, ",
			 fx.sw.id);
		CHECK(strstr(out, exp));
		CHECK(strstr(out, "# event : name = dummy:tracking, , id = { 301, 302 }, type = 1, "
				  "size = 128, config = 0x9, "));
		if (fx.have_pg) {
			snprintf(exp, sizeof(exp),
				 "# event : name = syscalls:sys_enter_getpgid, , "
				 "id = { 201, 202 }, type = 2, size = 128, config = 0x%x,",
				 fx.pg.id);
			CHECK(strstr(out, exp));
		}
		CHECK(strstr(out, "# time of first sample : 5000.000001\n"));
		CHECK(strstr(out, "# time of last sample : 5000.000005\n"));
		CHECK(strstr(out, "# clockid frequency: 1000 MHz\n"));
		CHECK(strstr(out, "# clockid: monotonic (1)\n"));
		CHECK(strstr(out, "= 1700000000.000000 (TOD) = 5000.000000000 (monotonic)\n"));
		CHECK(!strstr(out, "incompatible"));
	}
	free(out);

	snprintf(cmd, sizeof(cmd), "%s evlist -f -v -i %s 2>&1", perf_bin(), fx.file);
	out = run(cmd, &st);
	CHECK_EQ(st, 0);
	CHECK(out);
	if (out) {
		snprintf(
			exp, sizeof(exp),
			"sched:sched_switch: type: 2, size: 128, config: 0x%x, "
			"{ sample_period, sample_freq }: 1, sample_type: TID|TIME|CPU|RAW|IDENTIFIER, "
			"sample_id_all: 1, use_clockid: 1, write_backward: 1, clockid: 1\n",
			fx.sw.id);
		CHECK(!strncmp(out, exp, strlen(exp)));
		CHECK(strstr(
			out,
			"dummy:tracking: type: 1, size: 128, config: 0x9, "
			"{ sample_period, sample_freq }: 1, sample_type: TID|TIME|CPU|IDENTIFIER, "
			"comm: 1, task: 1, sample_id_all: 1, comm_exec: 1, use_clockid: 1, "
			"write_backward: 1, clockid: 1\n"));
	}
	free(out);

	/* TRACING_DATA parsed: the formats' fields are known */
	snprintf(cmd, sizeof(cmd), "%s evlist -f -i %s --trace-fields 2>&1", perf_bin(), fx.file);
	out = run(cmd, &st);
	CHECK(out && strstr(out, "trace_fields: prev_comm,prev_pid,prev_prio,prev_state,"
				 "next_comm,next_pid,next_prio"));
	if (fx.have_pg)
		CHECK(out && strstr(out, "trace_fields: __syscall_nr,pid"));
	free(out);
	fixture_free(&fx);
	return 0;
}

/* Only the recorded formats, grouped per system, with the fixed framing around them. */
TEST(tracing_data_layout)
{
	struct fixture fx;
	const char *why = fixture_init(&fx);
	struct pd_event evs[4] = { 0 };
	unsigned char *td;
	size_t len, off;
	void *p;
	uint32_t u32;
	uint64_t u64;

	if (why) {
		fixture_free(&fx);
		SKIP("%s", why);
	}
	/* sched twice (two events of one system), plus a non-tracepoint */
	set_tp_attr(&evs[0], &fx.sw, "sched", "sched_switch");
	set_tp_attr(&evs[1], &fx.sw, "sched", "sched_wakeup");
	evs[2].attr.type = PERF_TYPE_SOFTWARE;
	set_tp_attr(&evs[3], &fx.sw, "sched", "sched_switch"); /* duplicate: once */
	CHECK_EQ(pd_tracing_data(evs, 4, &p, &len), 0);
	td = p;
	CHECK(td && len > 100);
	if (!td) {
		fixture_free(&fx);
		return 1;
	}
	CHECK(!memcmp(td,
		      "\x17\x08\x44"
		      "tracing"
		      "0.6",
		      14));  /* with the version's NUL */
	CHECK_EQ(td[14], 0); /* little endian */
	CHECK_EQ(td[15], sizeof(long));
	memcpy(&u32, td + 16, 4);
	CHECK_EQ(u32, sysconf(_SC_PAGESIZE));
	CHECK(!memcmp(td + 20, "header_page", 12));
	memcpy(&u64, td + 32, 8);
	off = 40 + u64;
	if (off + 21 > len) {
		CHECK(0);
		free(td);
		fixture_free(&fx);
		return 1;
	}
	CHECK(!memcmp(td + off, "header_event", 13));
	memcpy(&u64, td + off + 13, 8);
	off += 21 + u64;
	memcpy(&u32, td + off, 4);
	CHECK_EQ(u32, 0); /* ftrace formats */
	memcpy(&u32, td + off + 4, 4);
	CHECK_EQ(u32, 1); /* one system */
	CHECK_STR((char *)td + off + 8, "sched");
	off += 8 + 6;
	memcpy(&u32, td + off, 4);
	CHECK_EQ(u32, 2); /* switch and wakeup */
	memcpy(&u64, td + off + 4, 8);
	CHECK_EQ(u64, strlen(fx.sw.fmt));
	CHECK(!memcmp(td + off + 12, fx.sw.fmt, u64));
	off += 12 + u64;
	memcpy(&u64, td + off, 8);
	CHECK(!memcmp(td + off + 8, "name: sched_wakeup\n", 19));
	off += 8 + u64;
	CHECK_EQ(len, off + 4 + 4 + 8); /* kallsyms 0, printk 0, saved_cmdlines 0 */
	free(td);

	/* a tracepoint that does not exist: an error, nothing allocated */
	set_tp_attr(&evs[0], &fx.sw, "sched", "no_such_event_xyz");
	CHECK(pd_tracing_data(evs, 1, &p, &len) < 0);
	CHECK(p == NULL);
	fixture_free(&fx);
	return 0;
}

/*
 * perf 6.1's `perf data convert --to-json` printed the header's cpudesc and
 * cpuid without checking the file had them: SIGSEGV on every snapshot. The
 * fixture sets neither; the writer must still give perf strings to print.
 */
TEST(perf_json_convert)
{
	struct fixture fx;
	const char *why = fixture_init(&fx);
	char cmd[1024];
	char *out, *n_script;
	int st, err;

	if (why) {
		fixture_free(&fx);
		SKIP("%s", why);
	}
	err = build_file(&fx);
	CHECK_EQ(err, 0);
	if (err) {
		fixture_free(&fx);
		return 1;
	}
	snprintf(cmd, sizeof(cmd),
		 "timeout 60 %s data convert --force --to-json %s/out.json -i %s "
		 ">/dev/null 2>&1; echo $?",
		 perf_bin(), fx.dir, fx.file);
	out = run(cmd, &st);
	CHECK_STR(out, "0\n");
	free(out);
	snprintf(cmd, sizeof(cmd), "timeout 60 %s script -f -i %s -F time 2>/dev/null | grep -c .",
		 perf_bin(), fx.file);
	n_script = run(cmd, &st);
	snprintf(
		cmd, sizeof(cmd),
		"python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); "
		"print(len(d[\"samples\"])); print(d[\"headers\"][\"hostname\"])' %s/out.json 2>&1",
		fx.dir);
	out = run(cmd, &st);
	CHECK(out && n_script);
	if (out && n_script) {
		char exp[64];

		snprintf(exp, sizeof(exp), "%.*stesthost\n", (int)strcspn(n_script, "\n") + 1,
			 n_script);
		CHECK_STR(out, exp);
		CHECK_STR(n_script, fx.have_pg ? "5\n" : "3\n");
	}
	free(out);
	free(n_script);
	fixture_free(&fx);
	return 0;
}

static struct pd_host host;
static const struct pd_build_id test_bids[] = {
	{ .pid = -1,
	  .misc = PERF_RECORD_MISC_KERNEL,
	  .size = 20,
	  .name = "[kernel.kallsyms]",
	  .data = { 0xa3, 0xe4, 0xcd, 0x60, 0xa8, 0xec, 0x14, 0xf0, 0x2a, 0xa4,
		    0x1b, 0x41, 0xd5, 0xb5, 0x84, 0x6d, 0x3d, 0x9f, 0x1d, 0xd8 } },
	{ .pid = -1,
	  .misc = PERF_RECORD_MISC_USER,
	  .size = 20,
	  .name = "/usr/bin/other",
	  .data = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
		    0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14 } },
	{ .pid = -1,
	  .misc = PERF_RECORD_MISC_USER,
	  .size = 16,
	  .name = "[vdso]",
	  .data = { 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33,
		    0x22, 0x11, 0x00 } },
};

static void with_host(struct pd_meta *m)
{
	pd_host__meta(&host, m);
	m->build_ids = test_bids;
	m->nr_build_ids = 3;
}

/* First line a shell command prints (static buffer). */
static const char *sh1(const char *cmd)
{
	static char buf[4096];
	int st;
	char *out = run(cmd, &st);

	snprintf(buf, sizeof(buf), "%s", out ? out : "");
	buf[strcspn(buf, "\n")] = 0;
	free(out);
	return buf;
}

/* The host features as perf prints them, against their sources read with other tools. */
TEST(perf_header_host_features)
{
	static const char *const must[] = {
		"BUILD_ID",	 "CPUDESC",	  "CPUID",   "TOTAL_MEM",    "CPU_TOPOLOGY",
		"NUMA_TOPOLOGY", "PMU_MAPPINGS",  "CACHE",   "MEM_TOPOLOGY", "CLOCKID",
		"CLOCK_DATA",	 "BPF_PROG_INFO", "BPF_BTF",
	};
	struct fixture fx;
	const char *why = fixture_init(&fx), *m;
	char cmd[512], exp[1024];
	char *out;
	int st, err;

	if (why) {
		fixture_free(&fx);
		SKIP("%s", why);
	}
	CHECK_EQ(pd_host__init(&host), 0);
	err = build_file_meta(&fx, with_host);
	CHECK_EQ(err, 0);
	snprintf(cmd, sizeof(cmd), "timeout 60 %s report -f --header-only -I -i %s 2>&1",
		 perf_bin(), fx.file);
	out = run(cmd, &st);
	CHECK_EQ(st, 0);
	if (!out || err) {
		free(out);
		pd_host__fini(&host);
		fixture_free(&fx);
		return 1;
	}
	snprintf(
		exp, sizeof(exp), "# cpudesc : %s\n",
		sh1("sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1 | tr -s ' \\t' '  '"));
	CHECK(strstr(out, exp));
	snprintf(exp, sizeof(exp), "# cpuid : %s,",
		 sh1("sed -n 's/^vendor_id[[:space:]]*: //p' /proc/cpuinfo | head -1"));
	CHECK(strstr(out, exp));
	snprintf(exp, sizeof(exp), "# total memory : %s kB\n",
		 sh1("awk '/^MemTotal:/ { print $2 }' /proc/meminfo"));
	CHECK(strstr(out, exp));
	snprintf(exp, sizeof(exp), "# sibling threads : %s\n",
		 sh1("cat /sys/devices/system/cpu/cpu0/topology/core_cpus_list"));
	CHECK(strstr(out, exp));
	snprintf(exp, sizeof(exp), "# CPU 0: Core ID %s, ",
		 sh1("cat /sys/devices/system/cpu/cpu0/topology/core_id"));
	CHECK(strstr(out, exp));
	snprintf(exp, sizeof(exp), "# node0 cpu list : %s\n",
		 sh1("cat /sys/devices/system/node/node0/cpulist"));
	CHECK(strstr(out, exp));
	snprintf(exp, sizeof(exp), "tracepoint = %s",
		 sh1("cat /sys/bus/event_source/devices/tracepoint/type"));
	CHECK(strstr(out, "# pmu mappings: ") && strstr(out, exp));
	{
		char nodes[16]; /* sh1() returns a static buffer: one call at a time */

		snprintf(nodes, sizeof(nodes), "%s",
			 sh1("ls -d /sys/devices/system/node/node[0-9]* | wc -l"));
		snprintf(exp, sizeof(exp), "# memory nodes (nr %s, block size 0x%s):\n", nodes,
			 sh1("cat /sys/devices/system/memory/block_size_bytes"));
	}
	CHECK(strstr(out, exp));
	CHECK(strstr(out, "# CPU cache info:\n"));
	m = strstr(out, "# missing features: ");
	CHECK(m);
	if (m) {
		char line[512], word[40];

		snprintf(line, sizeof(line), " %.*s ", (int)strcspn(m + 20, "\n"), m + 20);
		for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++) {
			snprintf(word, sizeof(word), " %s ", must[i]);
			if (strstr(line, word)) {
				fprintf(stderr, "    missing: %s\n", must[i]);
				CHECK(0);
			}
		}
	}
	free(out);

	/* BUILD_ID: every entry, any size, as buildid-list prints them */
	snprintf(cmd, sizeof(cmd), "timeout 60 %s buildid-list -f -i %s 2>&1", perf_bin(), fx.file);
	out = run(cmd, &st);
	CHECK_STR(out, "a3e4cd60a8ec14f02aa41b41d5b5846d3d9f1dd8 [kernel.kallsyms]\n"
		       "0102030405060708090a0b0c0d0e0f1011121314 /usr/bin/other\n"
		       "ffeeddccbbaa99887766554433221100         [vdso]\n"); /* padded to 40 */
	free(out);
	pd_host__fini(&host);
	fixture_free(&fx);
	return 0;
}

/* ------------------------------------------------------------- zstd -- */

static int slurp(const char *path, unsigned char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;

	*buf = NULL;
	if (!f)
		return -errno;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	*buf = malloc(n > 0 ? n : 1);
	*len = *buf ? fread(*buf, 1, n, f) : 0;
	fclose(f);
	return *buf && (long)*len == n ? 0 : -EIO;
}

/* Payload of feature bit in a perf.data image, or NULL. */
static const unsigned char *feature(const unsigned char *f, size_t len, int bit, uint64_t *size)
{
	uint64_t doff, dsz, bm[4], tab;
	int idx = 0;

	memcpy(&doff, f + 40, 8);
	memcpy(&dsz, f + 48, 8);
	memcpy(bm, f + 72, 32);
	if (!(bm[bit / 64] & (1ull << (bit % 64))))
		return NULL;
	for (int b = 0; b < bit; b++)
		idx += !!(bm[b / 64] & (1ull << (b % 64)));
	tab = doff + dsz + 16ull * idx;
	if (tab + 16 > len)
		return NULL;
	memcpy(&doff, f + tab, 8);
	memcpy(size, f + tab + 8, 8);
	return doff + *size <= len ? f + doff : NULL;
}

/*
 * The data section decompressed the way perf 6.1 does it
 * (perf_session__process_compressed_event): one stream, each record into a
 * new buffer of comp_mmap_len bytes. Every payload must decompress whole into
 * that buffer, to at least one byte; the result must be what was written.
 */
static void check_zstd_file(const char *path, int level, const unsigned char *orig, size_t olen,
			    const struct pd_comp_stats *st, uint64_t data_size)
{
	unsigned char *f = NULL, *dec = NULL, *buf = NULL;
	const unsigned char *feat;
	uint64_t doff, dsz, fsz = 0, nrec = 0;
	uint32_t v[5] = { 0 };
	size_t len = 0, dlen = 0;
	ZSTD_DStream *ds = ZSTD_createDStream();

	CHECK_EQ(slurp(path, &f, &len), 0);
	if (!f || !ds)
		goto out;
	memcpy(&doff, f + 40, 8);
	memcpy(&dsz, f + 48, 8);
	CHECK_EQ(dsz, data_size);
	feat = feature(f, len, 27, &fsz);
	CHECK(feat);
	CHECK_EQ(fsz, 20);
	if (!feat || fsz != 20)
		goto out;
	memcpy(v, feat, sizeof(v));
	CHECK_EQ(v[0], 1); /* version */
	CHECK_EQ(v[1], 1); /* PERF_COMP_ZSTD */
	CHECK_EQ(v[2], level);
	CHECK_EQ(v[3], (uint32_t)((double)olen / dsz + 0.5));
	CHECK_EQ(v[4], 512 * 1024); /* comp_mmap_len */
	CHECK_EQ(st->level, level);
	CHECK_EQ(st->bytes_in, olen);
	CHECK_EQ(st->bytes_out, dsz);
	dec = malloc(olen + v[4]);
	buf = malloc(v[4]);
	if (!dec || !buf)
		goto out;
	ZSTD_initDStream(ds);
	for (uint64_t off = doff; off < doff + dsz; nrec++) {
		struct perf_event_header h = hdr_of(f + off);
		ZSTD_inBuffer in = { f + off + 8, h.size - 8, 0 };
		ZSTD_outBuffer o = { buf, v[4], 0 };

		CHECK_EQ(h.type, PD_RECORD_COMPRESSED);
		CHECK(h.size > 8);
		CHECK(off + h.size <= doff + dsz);
		if (h.type != PD_RECORD_COMPRESSED || h.size <= 8 || off + h.size > doff + dsz)
			goto out;
		while (in.pos < in.size && o.pos < o.size)
			if (ZSTD_isError(ZSTD_decompressStream(ds, &o, &in)))
				break;
		CHECK_EQ(in.pos, in.size); /* all of it fitted in comp_mmap_len */
		CHECK(o.pos > 0);	   /* 0 is "Couldn't decompress data" in perf */
		if (in.pos != in.size || dlen + o.pos > olen + v[4])
			goto out;
		memcpy(dec + dlen, buf, o.pos);
		dlen += o.pos;
		off += h.size;
	}
	CHECK_EQ(nrec, st->records);
	CHECK_EQ(dlen, olen);
	CHECK(dlen == olen && !memcmp(dec, orig, olen));
out:
	ZSTD_freeDStream(ds);
	free(buf);
	free(dec);
	free(f);
}

TEST(zstd_round_trip)
{
	uint64_t ids[] = { 1 };
	struct pd_event ev = { .ids = ids, .nr_ids = 1 };
	char dir[] = "/tmp/trigrec-zstd-XXXXXX", path[64];
	size_t cap = 8u << 20, len = 0;
	unsigned char *all = malloc(cap);
	uint32_t x = 1;
	static const int levels[] = { 1, 3, 19 };

	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.config = PERF_COUNT_SW_DUMMY;
	ev.attr.sample_type = ST_DUMMY;
	ev.attr.sample_id_all = 1;
	CHECK(all && mkdtemp(dir));
	if (!all)
		return 1;
	/*
	 * What a snapshot holds, and worse: runs of similar small records,
	 * incompressible ones (raw blocks), and records bigger than a slice.
	 */
	while (len < 3u << 20) {
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE };
		unsigned r = (x = x * 1103515245 + 12345) >> 16;

		if (r % 1000 == 0)
			h.size = 65528; /* more than a slice */
		else if (r % 50 == 0)
			h.size = 8 * (1 + r % 1000); /* noise below */
		else
			h.size = 64 + 8 * (r % 4);
		memcpy(all + len, &h, 8);
		for (size_t i = 8; i < h.size; i++)
			all[len + i] = h.size > 200 ?
					       (unsigned char)((x = x * 1103515245 + 12345) >> 16) :
					       (unsigned char)(i * 7 + (r & 3));
		len += h.size;
	}
	for (size_t k = 0; k < sizeof(levels) / sizeof(levels[0]); k++) {
		struct pd_comp_stats st;
		struct pd_writer *w;
		size_t l = levels[k] >= 19 ? len / 4 : len; /* 19 is slow: less of it */
		int fd, err = 0;

		/* whole records only: cut l at a record boundary */
		for (size_t o = 0, n; o < len; o += n) {
			n = hdr_of(all + o).size;
			if (o + n > l) {
				l = o;
				break;
			}
		}
		snprintf(path, sizeof(path), "%s/z%d.data", dir, levels[k]);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		CHECK(fd >= 0);
		w = pd_writer__new(fd, &ev, 1);
		CHECK(w);
		if (!w) {
			close(fd);
			continue;
		}
		CHECK_EQ(pd_writer__set_zstd(w, 23, 0), -EINVAL);
		CHECK_EQ(pd_writer__set_zstd(w, levels[k], l), 0);
		CHECK_EQ(pd_writer__begin(w), 0);
		CHECK_EQ(pd_writer__set_zstd(w, 1, 0), -EINVAL); /* too late */
		/* in uneven pieces: a write is one or more whole records */
		for (size_t o = 0, n; o < l && !err; o += n) {
			n = hdr_of(all + o).size;
			err = pd_writer__write(w, all + o, n);
		}
		CHECK_EQ(err, 0);
		CHECK_EQ(pd_writer__finish(w, NULL), 0);
		pd_writer__comp_stats(w, &st);
		check_zstd_file(path, levels[k], all, l, &st, pd_writer__data_size(w));
		CHECK(st.bytes_out < l);
		printf("    level %d: %zu -> %" PRIu64 " bytes (%.2fx) in %" PRIu64
		       " records, %.1f MiB/s\n",
		       levels[k], l, st.bytes_out, (double)l / st.bytes_out, st.records,
		       st.ns ? l / (st.ns / 1e9) / 1048576 : 0.0);
		pd_writer__free(w);
		close(fd);
	}
	/* level 0 is off: the file is as without compression */
	{
		struct pd_writer *w;
		struct pd_comp_stats st;
		int fd;

		snprintf(path, sizeof(path), "%s/z0.data", dir);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		w = pd_writer__new(fd, &ev, 1);
		CHECK(w);
		if (w) {
			CHECK_EQ(pd_writer__set_zstd(w, 0, 0), 0);
			CHECK_EQ(pd_writer__begin(w), 0);
			CHECK_EQ(pd_writer__write(w, all, 64), 0);
			CHECK_EQ(pd_writer__finish(w, NULL), 0);
			CHECK_EQ(pd_writer__data_size(w), 64);
			pd_writer__comp_stats(w, &st);
			CHECK_EQ(st.level, 0);
			CHECK_EQ(st.records, 0);
		}
		pd_writer__free(w);
		close(fd);
	}
	if (!getenv("KEEP")) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			fprintf(stderr, "    could not remove %s\n", dir);
	}
	free(all);
	return 0;
}

/*
 * The snapshot writer keeps one pool of zstd workers for all its files
 * (pd_writer__use_zpool). A file that fails half-way (ENOSPC), or a writer
 * dropped with chunks still being compressed, must leave the pool ready for
 * the next file, whose stream then decodes exactly.
 */
TEST(zstd_pool_kept_across_files_and_failures)
{
	uint64_t ids[] = { 1 };
	struct pd_event ev = { .ids = ids, .nr_ids = 1 };
	char dir[] = "/tmp/trigrec-zpool-XXXXXX", path[64];
	size_t cap = 4u << 20, len = 0;
	unsigned char *all = malloc(cap);
	struct pd_zpool *zp;
	uint32_t x = 7;

	errno = 0;
	CHECK(!pd_zpool__new(0, 0) && errno == EINVAL);
	CHECK(!pd_zpool__new(PD_ZSTD_LEVEL_MAX + 1, 0));
	zp = pd_zpool__new(1, 0);
	CHECK(zp && all && mkdtemp(dir));
	if (!zp || !all) {
		pd_zpool__free(zp);
		free(all);
		return 1;
	}
	CHECK_EQ(pd_zpool__level(zp), 1);
	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.config = PERF_COUNT_SW_DUMMY;
	ev.attr.sample_type = ST_DUMMY;
	ev.attr.sample_id_all = 1;
	/* ~3.5 chunks of small, similar records */
	while (len + 88 <= cap && len < (7u << 19)) {
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE };
		unsigned r = (x = x * 1103515245 + 12345) >> 16;

		h.size = 64 + 8 * (r % 4);
		memcpy(all + len, &h, 8);
		for (size_t i = 8; i < h.size; i++)
			all[len + i] = (unsigned char)(i * 7 + (r & 3) + (len >> 12));
		len += h.size;
	}
	for (int round = 0; round < 4; round++) {
		/* 0: ENOSPC at once; 1: dropped unfinished; 2, 3: real files, same pool */
		int full = round < 2, fd, err = 0;
		struct pd_comp_stats st;
		struct pd_writer *w;

		snprintf(path, sizeof(path), "%s/z%d.data", dir, round);
		fd = full ? open("/dev/full", O_WRONLY) :
			    open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0) {
			CHECK(full); /* a temp file opens */
			continue;    /* no /dev/full: those rounds cannot run */
		}
		w = pd_writer__new(fd, &ev, 1);
		CHECK(w);
		if (!w) {
			close(fd);
			continue;
		}
		CHECK_EQ(pd_writer__use_zpool(w, zp), 0);
		CHECK_EQ(pd_writer__use_zpool(w, zp), -EINVAL); /* once */
		CHECK_EQ(pd_writer__begin(w), 0);
		for (size_t o = 0, n; o < len && !err; o += n) {
			n = hdr_of(all + o).size;
			err = pd_writer__write(w, all + o, n);
			if (round == 1 && o > len / 2)
				break; /* chunks queued or in flight: dropped below */
		}
		if (round == 0) {
			if (!err)
				err = pd_writer__finish(w, NULL);
			CHECK_EQ(err, -ENOSPC);
		} else if (round >= 2) {
			CHECK_EQ(err, 0);
			CHECK_EQ(pd_writer__finish(w, NULL), 0);
			pd_writer__comp_stats(w, &st);
			CHECK(st.workers >= 1);
			check_zstd_file(path, 1, all, len, &st, pd_writer__data_size(w));
		}
		pd_writer__free(w); /* the pool is the caller's: reset, not freed */
		close(fd);
	}
	pd_zpool__free(zp);
	if (!getenv("KEEP")) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			fprintf(stderr, "    could not remove %s\n", dir);
	}
	free(all);
	return 0;
}

/* Stock perf reads the compressed file exactly as the plain one. */
TEST(perf_reads_zstd)
{
	struct fixture plain, z;
	const char *why = fixture_init(&plain);
	char cmd[512];
	char *a = NULL, *b = NULL;
	int st, err, lines = 0;

	if (why) {
		fixture_free(&plain);
		SKIP("%s", why);
	}
	fixture_init(&z);
	/* enough for several COMPRESSED records, and a sample split across two slices */
	plain.bulk = z.bulk = 60000;
	plain.giant = z.giant = 1;
	z.zlevel = 1;
	err = build_file(&plain);
	CHECK_EQ(err, 0);
	err = err ? err : build_file(&z);
	CHECK_EQ(err, 0);
	if (err)
		goto out;
	CHECK(z.zst.records > 3);
	/* more than two chunks of 16 x 63 KiB: perf reads at least three zstd frames */
	CHECK(z.zst.bytes_in > 2 * 16 * 63 * 1024);
	CHECK(z.zst.workers >= 1);
	CHECK(z.data_size * 4 < plain.data_size);
	snprintf(cmd, sizeof(cmd),
		 "%s script -f -i %s -F trace:comm,pid,tid,cpu,time,event,trace "
		 "2>&1",
		 perf_bin(), plain.file);
	a = run(cmd, &st);
	CHECK_EQ(st, 0);
	snprintf(cmd, sizeof(cmd),
		 "%s script -f -i %s -F trace:comm,pid,tid,cpu,time,event,trace "
		 "2>&1",
		 perf_bin(), z.file);
	b = run(cmd, &st);
	CHECK_EQ(st, 0);
	CHECK(a && b);
	if (!a || !b)
		goto out;
	for (char *p = b; (p = strchr(p, '\n')); p++)
		lines++;
	CHECK_EQ(lines, (plain.have_pg ? 5 : 3) + 60000 + 1);
	CHECK(strstr(b, "3000/3000  [000]  5000.000009:") &&
	      strstr(b, "prev_comm=giant prev_pid=3000"));
	CHECK(a && b && !strcmp(a, b));
	free(a);
	free(b);

	/* the header says it is compressed, as for perf record -z */
	snprintf(cmd, sizeof(cmd), "%s report -f --header-only -i %s 2>&1 | grep compressed",
		 perf_bin(), z.file);
	a = run(cmd, &st);
	snprintf(cmd, sizeof(cmd), "# compressed : Zstd, level = 1, ratio = %u\n",
		 (uint32_t)((double)z.zst.bytes_in / z.zst.bytes_out + 0.5));
	CHECK_STR(a, cmd);
	free(a);
	snprintf(cmd, sizeof(cmd), "%s report -f --header-only -i %s 2>&1 | grep -c compressed",
		 perf_bin(), plain.file);
	b = run(cmd, &st);
	CHECK_STR(b, "0\n");
	free(b);

	/* perf report aggregates the same */
	snprintf(cmd, sizeof(cmd), "%s report -f --stdio -i %s --sort comm,pid 2>&1 | grep -v '^#'",
		 perf_bin(), plain.file);
	a = run(cmd, &st);
	snprintf(cmd, sizeof(cmd), "%s report -f --stdio -i %s --sort comm,pid 2>&1 | grep -v '^#'",
		 perf_bin(), z.file);
	b = run(cmd, &st);
	CHECK_EQ(st, 0);
	CHECK(a && b && strstr(b, "worker") && !strcmp(a, b));
out:
	free(a);
	free(b);
	fixture_free(&plain);
	fixture_free(&z);
	return 0;
}

RUN_TESTS(T(decode_sample_fields_in_order), T(decode_comm_trailer), T(synth_maps_layout),
	  T(writer_enospc), T(perf_script_decodes_file), T(perf_header_and_evlist),
	  T(tracing_data_layout), T(perf_json_convert), T(perf_header_host_features),
	  T(zstd_round_trip), T(zstd_pool_kept_across_files_and_failures), T(perf_reads_zstd))
