// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "show/show.h"
#include "util/cgroups.h"
#include "util/util.h"

/* ---- names: tid -> comm, as the COMM and FORK records say, in time order ---- */

struct comm_ent {
	uint32_t tid;
	char comm[16];
	const char *pooled; /* comm in the show's pool, once a record has it; NULL: not yet */
};
struct comms {
	struct comm_ent *e;
	size_t cap, n;
};

static struct comm_ent *comms_slot(struct comms *c, uint32_t tid, int add)
{
	if (add && (c->n + 1) * 2 > c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 1024;
		struct comm_ent *ne = calloc(ncap, sizeof(*ne));

		if (!ne)
			return NULL;
		for (size_t i = 0; i < c->cap; i++) {
			size_t h;

			if (!c->e[i].comm[0])
				continue;
			for (h = c->e[i].tid * 2654435761u % ncap; ne[h].comm[0];
			     h = (h + 1) % ncap)
				;
			ne[h] = c->e[i];
		}
		free(c->e);
		c->e = ne;
		c->cap = ncap;
	}
	if (!c->cap)
		return NULL;
	for (size_t h = tid * 2654435761u % c->cap;; h = (h + 1) % c->cap) {
		if (c->e[h].comm[0] && c->e[h].tid == tid)
			return &c->e[h];
		if (!c->e[h].comm[0]) {
			if (!add)
				return NULL;
			c->e[h].tid = tid;
			c->n++;
			return &c->e[h];
		}
	}
}

static void comms_set(struct comms *c, uint32_t tid, const char *comm)
{
	struct comm_ent *e = comm[0] ? comms_slot(c, tid, 1) : NULL;

	if (e) {
		snprintf(e->comm, sizeof(e->comm), "%s", comm);
		pdr_clean_text(e->comm); /* a process names itself: no escapes to a terminal */
		e->pooled = NULL;	 /* a new name: records from now on get a new copy */
	}
}

/* As perf script names threads: ":TID" when no record named it. */
static const char *comms_get(struct comms *c, uint32_t tid, char *buf, size_t len)
{
	struct comm_ent *e = comms_slot(c, tid, 0);

	if (e)
		return e->comm;
	if (tid)
		snprintf(buf, len, ":%u", tid);
	else
		snprintf(buf, len, "swapper");
	return buf;
}

/*
 * The records' names: each name a thread had, once, in chunks that never
 * move (recs[].comm point into them), however many records carry it.
 */
#define NAMES_CHUNK 1024
struct show_names {
	struct show_names *next;
	size_t n;
	char name[NAMES_CHUNK][16];
};

static void names_free(struct show_names *p)
{
	while (p) {
		struct show_names *next = p->next;

		free(p);
		p = next;
	}
}

/* A copy of name (cut to 15 bytes) in s's pool; NULL: out of memory. */
static const char *names_add(struct show *s, const char *name)
{
	struct show_names *c = s->names;
	size_t n = strnlen(name, 15);

	if (!c || c->n == NAMES_CHUNK) {
		c = malloc(sizeof(*c));
		if (!c)
			return NULL;
		c->next = s->names;
		c->n = 0;
		s->names = c;
	}
	memcpy(c->name[c->n], name, n);
	c->name[c->n][n] = 0;
	return c->name[c->n++];
}

/*
 * tid's name as of now, in the pool: its COMM/FORK name, else as perf
 * script names it (":TID", "swapper"), one copy per table entry.
 */
static const char *comm_pooled(struct show *s, struct comms *cm, struct comms *unnamed,
			       uint32_t tid)
{
	struct comm_ent *e = comms_slot(cm, tid, 0);

	if (!e) {
		e = comms_slot(unnamed, tid, 0);
		if (!e) {
			char buf[16];

			comms_get(cm, tid, buf, sizeof(buf));
			e = comms_slot(unnamed, tid, 1);
			if (!e)
				return NULL;
			snprintf(e->comm, sizeof(e->comm), "%s", buf);
		}
	}
	if (!e->pooled)
		e->pooled = names_add(s, e->comm);
	return e->pooled;
}

/* ---- helpers ---- */

/*
 * Where a rate trigger's window opened: the sidecar says since
 * window_start_ns; older sidecars only give the configured length, and the
 * window then is drawn as ending at the trigger.
 */
static uint64_t rate_window_start(const struct jv *sc, uint64_t trig_time)
{
	uint64_t ws = jv_u64(sc, "trigger.rate.window_start_ns", 0);
	uint64_t w = jv_u64(sc, "trigger.rate.window_ns", 0);

	if (ws && ws <= trig_time)
		return ws;
	return trig_time > w ? trig_time - w : 0;
}

const char *show_fmt_time(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".%09" PRIu64, ns / 1000000000, ns % 1000000000);
	return buf;
}

const char *show_fmt_dur(uint64_t ns, char *buf, size_t len)
{
	if (ns >= 1000000000ull)
		snprintf(buf, len, "%.3f s", ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, len, "%.3f ms", ns / 1e6);
	else if (ns >= 1000)
		snprintf(buf, len, "%.3f us", ns / 1e3);
	else
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	return buf;
}

/* 12340 -> "12 340": digits in groups of three. */
static const char *group3(uint64_t v, char *buf, size_t len)
{
	char d[32];
	size_t n, o = 0;

	snprintf(d, sizeof(d), "%" PRIu64, v);
	n = strlen(d);
	for (size_t i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ' ';
		buf[o++] = d[i];
	}
	buf[o] = 0;
	return buf;
}

/*
 * A learned threshold's firing: "latency 47.2 ms, p99.9 of this key was
 * 8.1 ms over 12 340 samples; of all keys 3 ms over 98 000" (and the
 * multiplier when there is one).
 */
static void show_learned(FILE *out, const struct jv *sc)
{
	const struct jv *p = jv_get(sc, "trigger.latency.learned.percentile");
	const struct jv *m = jv_get(sc, "trigger.latency.learned.multiplier");
	char a[32], b[32], c[32], pct[32] = "p?";
	double mult = m && m->type == JV_NUM ? strtod(m->str, NULL) : 1;

	if (p && p->type == JV_NUM)
		snprintf(pct, sizeof(pct), "p%g", strtod(p->str, NULL));
	fprintf(out, "  latency %s, %s of %s was %s over %s samples",
		fmt_duration_short(jv_u64(sc, "trigger.latency.duration_ns", 0), a, sizeof(a)), pct,
		jv_bool(sc, "trigger.latency.learned.per_key", 1) ? "this key" : "all spans",
		fmt_duration_short(jv_u64(sc, "trigger.latency.learned.percentile_ns", 0), b,
				   sizeof(b)),
		group3(jv_u64(sc, "trigger.latency.learned.samples", 0), c, sizeof(c)));
	if (mult != 1)
		fprintf(out, " (threshold x %g: %s)", mult,
			fmt_duration_short(jv_u64(sc, "trigger.latency.learned.threshold_ns", 0), a,
					   sizeof(a)));
	/* With `by`: all keys' percentile beside the key's ("; of all keys 3 ms over 98 000"). */
	if (jv_get(sc, "trigger.latency.learned.all_keys"))
		fprintf(out, "; of all keys %s over %s",
			fmt_duration_short(
				jv_u64(sc, "trigger.latency.learned.all_keys.percentile_ns", 0), b,
				sizeof(b)),
			group3(jv_u64(sc, "trigger.latency.learned.all_keys.samples", 0), c,
			       sizeof(c)));
	fputc('\n', out);
}

/*
 * A rate baseline's firing: "rate 812/1s, 5x the baseline of this key
 * (143/1s over 60 windows, threshold 715)".
 */
static void show_baseline(FILE *out, const struct jv *sc)
{
	const struct jv *m = jv_get(sc, "trigger.rate.learned.multiplier");
	const struct jv *bl = jv_get(sc, "trigger.rate.learned.baseline");
	char w[32], bs[32], ms[32], c[32];
	double mult = m && m->type == JV_NUM ? strtod(m->str, NULL) : 0;
	double base = bl && bl->type == JV_NUM ? strtod(bl->str, NULL) : 0;
	size_t n;

	/* "1s", "100ms": the window as a rate's denominator. */
	fmt_duration_short(jv_u64(sc, "trigger.rate.window_ns", 0), bs, sizeof(bs));
	n = 0;
	for (const char *p = bs; *p && n + 1 < sizeof(w); p++)
		if (*p != ' ')
			w[n++] = *p;
	w[n] = 0;
	/* 143/1s, 0.4/1s, 2.5x: one decimal at most, none when it is 0. */
	snprintf(bs, sizeof(bs), "%.1f", base);
	n = strlen(bs);
	if (n > 2 && !strcmp(bs + n - 2, ".0"))
		bs[n - 2] = 0;
	snprintf(ms, sizeof(ms), "%g", mult);
	fprintf(out,
		"  rate    %" PRIu64 "/%s, %sx the baseline of %s (%s/%s over %s windows, "
		"threshold %" PRIu64 ")\n",
		jv_u64(sc, "trigger.rate.count", 0), w, ms,
		jv_bool(sc, "trigger.rate.learned.per_key", 1) ? "this key" : "all its events", bs,
		w, group3(jv_u64(sc, "trigger.rate.learned.windows", 0), c, sizeof(c)),
		jv_u64(sc, "trigger.rate.learned.threshold", 0));
}

void show_json_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");

	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s < 0x20 || *s == '<' || *s == '>' || *s == '&' || *s == 0x7f)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static int rec_cmp(const void *a, const void *b)
{
	const struct show_rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	/* file order among equal times: the records are in one buffer (the file's, or all decompressed) */
	return x->hdr < y->hdr ? -1 : x->hdr > y->hdr;
}

static int is_switch(const struct show *s, int attr)
{
	const struct tp_format *f = attr >= 0 ? s->pd->attrs[attr].fmt : NULL;

	return f && !strcmp(f->sys, "sched") && !strcmp(f->name, "sched_switch");
}

/* ---- runs ---- */

/* A task name into a 16-byte field, cut to 15 (snprintf's cost, per record, was the report's). */
static void cp16(char *dst, const char *src)
{
	size_t n = strnlen(src, 15);

	memcpy(dst, src, n);
	dst[n] = 0;
}

static int add_run(struct show *s, size_t *cap, uint32_t cpu, uint32_t pid, uint32_t tid,
		   const char *comm, uint64_t start, uint64_t end)
{
	struct show_run *r;

	if (!tid || end < start)
		return 0; /* idle is the lane's background */
	if (s->nr_runs == *cap) {
		size_t nc = *cap ? *cap * 2 : 1024;
		struct show_run *nr = realloc(s->runs, nc * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		s->runs = nr;
		*cap = nc;
	}
	r = &s->runs[s->nr_runs++];
	*r = (struct show_run){ cpu, pid, tid, start, end, "" };
	cp16(r->comm, comm);
	return 0;
}

static int run_end_cmp(const void *a, const void *b)
{
	const struct show_run *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/*
 * Per CPU: before its first switch, prev ran (since the window's start);
 * after its last, next (to the window's end). Not so in a scoped recording
 * (the sidecar's scope "tasks" or "cgroup"): a CPU's switches between tasks
 * out of scope are not recorded there, so who ran before the first switch
 * and after the last is known only as far as that task's own records on the
 * CPU say (from the first of them in a row up to the switch; from the
 * switch to the last of them), and the rest is a gap.
 */
int show_runs_build(struct show *s)
{
	struct last {
		int seen;
		uint64_t t;
		uint32_t tid;
		char comm[16];
		uint64_t own;	    /* seen: next's last record on the CPU since t */
		uint32_t row_tid;   /* not seen: the thread of the CPU's records in a row */
		uint64_t row_since; /* and the first of them */
	} * last;
	const char *scope = jv_str(s->sc, "scope", "system");
	int scoped = !strcmp(scope, "tasks") || !strcmp(scope, "cgroup");
	/* sched_switch's fields, per attr: looked up once, not per record */
	struct swf {
		const struct tp_field *prev, *next, *pc, *nc;
	} *swf = calloc((size_t)s->pd->nr_attrs + 1, sizeof(*swf));
	uint32_t maxcpu = 0;
	size_t cap = 0;
	int err = 0;

	if (!swf)
		return -ENOMEM;
	for (int i = 0; i < s->pd->nr_attrs; i++) {
		const struct tp_format *f = s->pd->attrs[i].fmt;

		if (!is_switch(s, i))
			continue;
		swf[i] = (struct swf){ tp_format__field(f, "prev_pid"),
				       tp_format__field(f, "next_pid"),
				       tp_format__field(f, "prev_comm"),
				       tp_format__field(f, "next_comm") };
	}

	/*
	 * CPUs are unsigned and below PDR_MAX_CPUS (pdr_open refuses others):
	 * never an int. A slot for each (calloc'd: only those used are
	 * touched), not a pass over the records for the highest.
	 */
	last = calloc(PDR_MAX_CPUS, sizeof(*last));
	if (!last) {
		free(swf);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->nr && !err; i++) {
		const struct show_rec *r = &s->recs[i];
		const struct swf *sf = &swf[r->attr];
		struct last *l = &last[r->cpu];
		int64_t prev = 0, next = 0;
		char pc[16] = "", nc[16] = "";

		if (r->cpu >= PDR_MAX_CPUS)
			continue;
		if (r->cpu > maxcpu)
			maxcpu = r->cpu;
		if (!l->seen && (!l->row_since || l->row_tid != r->tid)) {
			l->row_tid = r->tid;
			l->row_since = r->time;
		} else if (l->seen && r->tid == l->tid) {
			l->own = r->time;
		}
		const uint8_t *raw = show_raw(r);

		if (!sf->prev || !raw)
			continue;
		s->has_switch = 1;
		pdr_fl_int(sf->prev, raw, r->raw_size, &prev);
		pdr_fl_int(sf->next, raw, r->raw_size, &next);
		if (sf->pc)
			pdr_field_str(sf->pc, raw, r->raw_size, pc, sizeof(pc));
		if (sf->nc)
			pdr_field_str(sf->nc, raw, r->raw_size, nc, sizeof(nc));
		/*
		 * The process of a thread is only known when it has records of its
		 * own. Two switch records of a CPU that disagree (the last one
		 * switched to another task than this one switches out: the switches
		 * in between were not recorded, as in a task-scoped recording) leave
		 * a gap: who ran from the last one on is not known.
		 */
		if (l->seen && l->tid == (uint32_t)prev)
			err = add_run(s, &cap, r->cpu, prev, prev, pc, l->t, r->time);
		else if (!l->seen && !scoped)
			err = add_run(s, &cap, r->cpu, prev, prev, pc, s->win_start, r->time);
		else if (!l->seen && l->row_tid == (uint32_t)prev && l->row_since < r->time)
			err = add_run(s, &cap, r->cpu, prev, prev, pc, l->row_since, r->time);
		l->seen = 1;
		l->t = l->own = r->time;
		l->tid = next;
		cp16(l->comm, nc);
	}
	for (uint32_t c = 0; c <= maxcpu && !err; c++) {
		if (!last[c].seen)
			continue;
		if (!scoped)
			err = add_run(s, &cap, c, last[c].tid, last[c].tid, last[c].comm, last[c].t,
				      s->win_end);
		else if (last[c].own > last[c].t)
			err = add_run(s, &cap, c, last[c].tid, last[c].tid, last[c].comm, last[c].t,
				      last[c].own);
	}
	/* the runs stay in order of their ends (why.c searches them so) */
	if (!err && scoped && s->nr_runs)
		qsort(s->runs, s->nr_runs, sizeof(*s->runs), run_end_cmp);
	/*
	 * pids: a thread's process from its own samples, the lowest pid they
	 * carry (perf writes -1 for an exiting task), in a hash of the tids:
	 * one probe a record, no sort of every record's pair.
	 */
	if (!err && s->nr_runs) {
		struct tp {
			uint32_t tid, pid, full; /* full 0: an empty slot */
		} *tp = NULL;
		size_t nslot = 0, used = 0;

		for (size_t i = 0; i <= s->nr && !err; i++) {
			uint32_t tid = i < s->nr ? s->recs[i].tid : 0, pid;
			size_t h;

			if (i && i < s->nr && tid == s->recs[i - 1].tid &&
			    s->recs[i].pid == s->recs[i - 1].pid)
				continue;	      /* a thread's records come in runs */
			if (2 * (used + 1) > nslot) { /* grow (also the first time, i == 0) */
				size_t ns = nslot ? nslot * 2 : 1024;
				struct tp *n = calloc(ns, sizeof(*n));

				if (!n) {
					err = -ENOMEM;
					break;
				}
				for (size_t k = 0; k < nslot; k++) {
					if (!tp[k].full)
						continue;
					for (h = tp[k].tid * 2654435761u & (ns - 1); n[h].full;
					     h = (h + 1) & (ns - 1))
						;
					n[h] = tp[k];
				}
				free(tp);
				tp = n;
				nslot = ns;
			}
			if (i == s->nr)
				break;
			pid = s->recs[i].pid;
			for (h = tid * 2654435761u & (nslot - 1); tp[h].full && tp[h].tid != tid;
			     h = (h + 1) & (nslot - 1))
				;
			if (!tp[h].full) {
				tp[h] = (struct tp){ tid, pid, 1 };
				used++;
			} else if (pid < tp[h].pid) {
				tp[h].pid = pid;
			}
		}
		for (size_t i = 0; i < s->nr_runs && !err; i++) {
			uint32_t tid = s->runs[i].tid;
			size_t h;

			for (h = tid * 2654435761u & (nslot - 1); tp[h].full && tp[h].tid != tid;
			     h = (h + 1) & (nslot - 1))
				;
			s->runs[i].pid = tp[h].full ? tp[h].pid : tid;
		}
		free(tp);
	}
	free(last);
	free(swf);
	return err;
}

/* ---- loading ---- */

/* A sidecar is a few KiB (a line per CPU and ring): more is not one. */
#define SIDECAR_MAX (16u << 20)

static char *slurp(const char *path, size_t *len, char *why, size_t whylen)
{
	/* O_NONBLOCK: a FIFO must not hang the open; it is refused below */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	FILE *f = NULL;
	char *buf = NULL;
	size_t cap = 0, n = 0, r;
	struct stat st;

	if (fd < 0 || fstat(fd, &st)) {
		snprintf(why, whylen, "%s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > SIDECAR_MAX) {
		snprintf(why, whylen, "%s",
			 !S_ISREG(st.st_mode) ? "not a regular file" :
						"over 16 MiB, too big for a sidecar");
		goto fail;
	}
	f = fdopen(fd, "r");
	if (!f) {
		snprintf(why, whylen, "%s", strerror(errno));
		goto fail;
	}
	do {
		if (cap - n < 65536) {
			char *nb = realloc(buf, cap = cap * 2 + 65536);

			if (!nb) {
				snprintf(why, whylen, "out of memory");
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
		if (n > SIDECAR_MAX) { /* it grew since fstat */
			snprintf(why, whylen, "over 16 MiB, too big for a sidecar");
			free(buf);
			fclose(f);
			return NULL;
		}
	} while (r > 0);
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	return NULL;
}

static int add_cpu(struct show *s, int cpu)
{
	int *nc;

	for (int i = 0; i < s->nr_cpus; i++)
		if (s->cpus[i] == cpu)
			return 0;
	nc = realloc(s->cpus, (s->nr_cpus + 1) * sizeof(*nc));
	if (!nc)
		return -ENOMEM;
	s->cpus = nc;
	s->cpus[s->nr_cpus++] = cpu;
	return 0;
}

static int int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void add_span(struct show *s, const char *kind, uint64_t start, uint64_t end,
		     const char *label)
{
	struct show_span *sp;

	if (s->nr_spans == 3 || end < start)
		return;
	sp = &s->spans[s->nr_spans++];
	sp->kind = kind;
	sp->start = start;
	sp->end = end;
	snprintf(sp->label, sizeof(sp->label), "%s", label);
}

static int analyse(struct show *s)
{
	struct comms cm = { 0 };
	size_t n = 0;
	int err = 0;

	/* the COMM/FORK records, as found (the index they are in is rewritten below) */
	struct nm {
		uint64_t time;
		const struct perf_event_header *hdr;
	} *names = NULL;
	size_t nn = 0, ncap = 0;
	struct comms unnamed = { 0 };
	/* the CPUs the records name (lanes, below): seen while their names are set */
	unsigned char *rec_cpu = calloc(PDR_MAX_CPUS, 1);

	if (!rec_cpu)
		return -ENOMEM;
	/*
	 * One pass over the index: the samples, and the COMM/FORK records
	 * that name their threads. A sample becomes a struct show_rec in the
	 * index's own memory (the same size; the n-th sample is written over
	 * record n or an earlier one, after record i is read): this is the
	 * only copy of the records, and it moves to s->recs. Names come
	 * first from time-0 COMMs, then in time order (trigrec writes sorted
	 * files).
	 */
	_Static_assert(sizeof(struct show_rec) == sizeof(struct pdr_rec) &&
			       _Alignof(struct show_rec) <= _Alignof(struct pdr_rec),
		       "a show_rec is written in place of a pdr_rec");
	s->recs = (struct show_rec *)s->pd->recs;
	for (size_t i = 0; i < s->pd->nr_recs && !err; i++) {
		const struct pdr_rec pr = s->pd->recs[i];

		if (pr.type == PERF_RECORD_SAMPLE && pr.attr >= 0) {
			s->recs[n++] = (struct show_rec){
				.time = pr.time,
				.hdr = pr.hdr,
				.cpu = pr.cpu,
				.pid = pr.pid,
				.tid = pr.tid,
				.attr = pr.attr,
				.raw_size = pr.raw ? pr.raw_size : 0,
				.raw_off =
					pr.raw ? (uint32_t)(pr.raw - (const uint8_t *)pr.hdr) : 0,
			};
		} else if (pr.type == PERF_RECORD_COMM || pr.type == PERF_RECORD_FORK) {
			if (nn == ncap) {
				size_t nc = ncap ? ncap * 2 : 256;
				struct nm *nb = realloc(names, nc * sizeof(*nb));

				if (!nb) {
					err = -ENOMEM;
					break;
				}
				names = nb;
				ncap = nc;
			}
			names[nn++] = (struct nm){ pr.time, pr.hdr };
		}
	}
	/* the index is s->recs now (pdr_close must not free it) */
	s->pd->recs = NULL;
	s->pd->nr_recs = 0;
	if (!s->recs && !err && !(s->recs = calloc(1, sizeof(*s->recs))))
		err = -ENOMEM;
	s->nr = n;
	if (err) {
		free(names);
		free(rec_cpu);
		return err;
	}
	/* trigrec writes its files in time order: sort only a file that is not (perf's own). */
	for (size_t i = 1; i < n; i++) {
		if (rec_cmp(&s->recs[i - 1], &s->recs[i]) > 0) {
			qsort(s->recs, n, sizeof(*s->recs), rec_cmp);
			break;
		}
	}
	/* COMM/FORK records interleaved by time with the samples: a name as of each record. */
	{
		size_t k = 0;
		char tmp[16];
		uint32_t last_tid = 0;
		const char *last_name = NULL; /* last_tid's name as of now; NULL: to look up */

		for (size_t i = 0; i < n && !err; i++) {
			for (; k < nn && names[k].time <= s->recs[i].time; k++) {
				last_name = NULL; /* a COMM or FORK: names may change */
				/* pdr_open checked the sizes: COMM 16 bytes at least, FORK 24 */
				const struct perf_event_header *h = names[k].hdr;
				const uint32_t *f = (const uint32_t *)(h + 1);

				if (h->type == PERF_RECORD_COMM) {
					/* the name: up to its NUL, inside the record and 16 bytes */
					size_t room = h->size - sizeof(*h) - 8;
					char cn[16];

					snprintf(cn, sizeof(cn), "%.*s",
						 (int)strnlen((const char *)(f + 2),
							      room < 15 ? room : 15),
						 (const char *)(f + 2));
					comms_set(&cm, f[1], cn);
				} else if (comms_slot(
						   &cm, f[3],
						   0)) /* pid ppid tid ptid: named after the parent */
					comms_set(&cm, f[2],
						  comms_get(&cm, f[3], tmp, sizeof(tmp)));
			}
			/* records come in runs of one thread: its name is looked up once a run */
			if (!last_name || s->recs[i].tid != last_tid) {
				last_tid = s->recs[i].tid;
				last_name = comm_pooled(s, &cm, &unnamed, last_tid);
				if (!last_name)
					err = -ENOMEM;
			}
			s->recs[i].comm = last_name;
			if (s->recs[i].cpu < PDR_MAX_CPUS)
				rec_cpu[s->recs[i].cpu] = 1;
		}
		free(names);
	}
	free(cm.e);
	free(unnamed.e);
	if (err) {
		free(rec_cpu);
		return err;
	}

	/* The window: the sidecar's, else the records'. */
	s->win_start = jv_u64(s->sc, "window.start_ns", n ? s->recs[0].time : 0);
	s->win_end = jv_u64(s->sc, "window.end_ns", n ? s->recs[n - 1].time : 0);
	if (!s->win_start && n)
		s->win_start = s->recs[0].time;
	{
		const struct jv *cpus = jv_get(s->sc, "cpus");

		unsigned char seen[PDR_MAX_CPUS] = { 0 }; /* each CPU once */

		/* a sidecar's CPU outside [0, PDR_MAX_CPUS) is none: left out */
		for (int i = 0; cpus && cpus->type == JV_ARR && i < cpus->n && !err; i++) {
			int64_t c = jv_i64(&cpus->kids[i], "cpu", -1);

			if (!strcmp(jv_str(&cpus->kids[i], "ring", "main"), "tracking") || c < 0 ||
			    c >= PDR_MAX_CPUS || seen[c])
				continue;
			seen[c] = 1;
			err = add_cpu(s, (int)c);
		}
		for (uint32_t c = 0; c < PDR_MAX_CPUS && !err; c++) {
			if (!rec_cpu[c] || seen[c])
				continue;
			seen[c] = 1;
			err = add_cpu(s, (int)c);
		}
		free(rec_cpu);
		rec_cpu = NULL;
		if (err)
			return err;
		if (s->nr_cpus) /* qsort(NULL, 0) is UB */
			qsort(s->cpus, s->nr_cpus, sizeof(*s->cpus), int_cmp);
	}

	/* The trigger: its message (not for manual and final snapshots), its record. */
	s->trig_rec = -1;
	s->has_trigger = jv_get(s->sc, "trigger.tid") != NULL;
	s->trig_time = jv_u64(s->sc, "trigger.time_ns", s->win_end);
	if (s->has_trigger) {
		s->trig_cpu = jv_u64(s->sc, "trigger.cpu", 0);
		s->trig_pid = jv_u64(s->sc, "trigger.pid", 0);
		s->trig_tid = jv_u64(s->sc, "trigger.tid", 0);
		/*
		 * perf stamps the record a little after the BPF program: the first
		 * at or after (the records are in time order: from the first at
		 * the trigger's time, found by bisection, not a pass over all)
		 */
		size_t lo = 0, hi = n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (s->recs[mid].time < s->trig_time)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t i = lo; i < n; i++) {
			const struct show_rec *r = &s->recs[i];

			if (r->time >= s->trig_time && r->cpu == s->trig_cpu &&
			    r->tid == s->trig_tid) {
				s->trig_rec = i;
				break;
			}
		}
	}
	{
		char a[48], b[48], label[160];
		uint64_t post = jv_u64(s->sc, "window.post_ns", 0);

		if (jv_get(s->sc, "trigger.latency")) {
			uint64_t st = jv_u64(s->sc, "trigger.latency.start.time_ns", 0);
			uint64_t en = jv_u64(s->sc, "trigger.latency.end.time_ns", s->trig_time);

			snprintf(label, sizeof(label), "latency %s (threshold %s)",
				 show_fmt_dur(jv_u64(s->sc, "trigger.latency.duration_ns", en - st),
					      a, sizeof(a)),
				 show_fmt_dur(jv_u64(s->sc, "trigger.latency.threshold_ns", 0), b,
					      sizeof(b)));
			add_span(s, "latency", st, en, label);
		}
		if (jv_get(s->sc, "trigger.rate")) {
			uint64_t w = jv_u64(s->sc, "trigger.rate.window_ns", 0);

			snprintf(label, sizeof(label),
				 "rate: %" PRIu64 " in %s (threshold %" PRIu64 ")",
				 jv_u64(s->sc, "trigger.rate.count", 0),
				 show_fmt_dur(w, a, sizeof(a)),
				 jv_u64(s->sc, "trigger.rate.threshold", 0));
			add_span(s, "rate", rate_window_start(s->sc, s->trig_time), s->trig_time,
				 label);
		}
		if (post) {
			snprintf(label, sizeof(label), "post window %s",
				 show_fmt_dur(post, a, sizeof(a)));
			add_span(s, "post", s->trig_time, s->trig_time + post, label);
		}
	}
	return show_runs_build(s);
}

/* Every string and member name of the sidecar made safe for a terminal. */
static void clean_tree(struct jv *v)
{
	if (!v)
		return;
	if (v->type == JV_STR)
		pdr_clean_text(v->str);
	if (v->key)
		pdr_clean_text(v->key);
	for (int i = 0; (v->type == JV_ARR || v->type == JV_OBJ) && i < v->n; i++)
		clean_tree(&v->kids[i]);
}

static struct show *show_new(const char *data_path, const char *json_path, char *err, size_t errlen)
{
	struct show *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(s->data_path, sizeof(s->data_path), "%s", data_path);
	snprintf(s->json_path, sizeof(s->json_path), "%s", json_path ? json_path : "");
	pdr_clean_text(s->data_path); /* file names are printed too */
	pdr_clean_text(s->json_path);
	return s;
}

static void parse_sidecar(struct show *s, const char *txt, size_t len)
{
	char perr[512];

	if (!(s->sc = jv_parse(txt, len, perr, sizeof(perr))))
		snprintf(s->sc_err, sizeof(s->sc_err), "%.512s: not valid JSON: %.400s",
			 s->json_path, perr);
	clean_tree(s->sc);
	pdr_clean_text(s->sc_err);
}

static struct show *show_done(struct show *s, char *err, size_t errlen)
{
	if (analyse(s)) {
		snprintf(err, errlen, "out of memory reading %s", s->data_path);
		show__free(s);
		return NULL;
	}
	return s;
}

struct show *show__open_pair(const char *data_path, const char *json_path, char *err, size_t errlen)
{
	struct show *s = show_new(data_path, json_path, err, errlen);
	char perr[1024];

	if (!s)
		return NULL;
	if (json_path) {
		size_t len = 0;
		char *txt = slurp(json_path, &len, perr, sizeof(perr));

		if (!txt) {
			snprintf(s->sc_err, sizeof(s->sc_err), "%.512s: %.400s", s->json_path,
				 perr);
			pdr_clean_text(s->sc_err);
		} else {
			parse_sidecar(s, txt, len);
		}
		free(txt);
	}
	s->pd = pdr_open(data_path, perr, sizeof(perr));
	if (!s->pd) {
		snprintf(err, errlen, "%s", perr);
		pdr_clean_text(err);
		show__free(s);
		return NULL;
	}
	return show_done(s, err, errlen);
}

struct show *show__open_mem(const void *data, size_t len, const char *json, size_t jlen,
			    const char *name, char *err, size_t errlen)
{
	struct show *s = show_new(name, json ? "(sidecar)" : NULL, err, errlen);
	char perr[1024];

	if (!s)
		return NULL;
	if (json)
		parse_sidecar(s, json, jlen);
	s->pd = pdr_open_mem(data, len, perr, sizeof(perr));
	if (!s->pd) {
		snprintf(err, errlen, "%s: %s", s->data_path, perr);
		pdr_clean_text(err);
		show__free(s);
		return NULL;
	}
	return show_done(s, err, errlen);
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a >= b && !strcmp(s + a - b, suf);
}

struct show *show__open(const char *path, char *err, size_t errlen)
{
	char data[4096], json[4096];
	size_t n = strlen(path);

	if (n >= sizeof(data) - 6) {
		snprintf(err, errlen, "path too long");
		return NULL;
	}
	if (ends_with(path, ".json")) {
		snprintf(json, sizeof(json), "%s", path);
		snprintf(data, sizeof(data), "%.*s.data", (int)(n - 5), path);
	} else {
		snprintf(data, sizeof(data), "%s", path);
		if (ends_with(path, ".data"))
			snprintf(json, sizeof(json), "%.*s.json", (int)(n - 5), path);
		else
			snprintf(json, sizeof(json), "%s.json", path);
	}
	return show__open_pair(data, json, err, errlen);
}

void show__free(struct show *s)
{
	if (!s)
		return;
	jv_free(s->sc);
	pdr_close(s->pd);
	free(s->recs);
	names_free(s->names);
	free(s->runs);
	free(s->cpus);
	free(s);
}

const char *show_scope_note(const struct show *s)
{
	const char *scope = jv_str(s->sc, "scope", "system");

	/* Since sched_scope (recorder.c, sched_wide()), perf's rings record both sides too. */
	if (!strcmp(scope, "tasks") && !strcmp(jv_str(s->sc, "rings", ""), "perf") &&
	    strcmp(jv_str(s->sc, "sched_scope", ""), "system"))
		return "recorded through perf's rings in task scope (--rings perf with a command "
		       "or -p, no -a): perf writes a scheduler event only in the context of a task "
		       "in scope, so the switches into the scoped tasks and the wake-ups other "
		       "tasks, interrupts or idle issue for them are not in this snapshot; the "
		       "stretches only those records would end are unknown (gaps), not running, "
		       "runnable or blocked. The ring sets (the default, --rings bpf) record them "
		       "in task scope; so does -a";
	if (!strcmp(scope, "cgroup"))
		return "recorded in a cgroup scope (-G): a scheduler event is written only in the "
		       "context of a task in the cgroup, so the switches into its tasks and the "
		       "wake-ups issued for them from outside it are not in this snapshot; the "
		       "stretches only those records would end are unknown (gaps), not running, "
		       "runnable or blocked. Record system-wide (-a) to see them";
	return NULL;
}

/* ---- the terminal report ---- */

/* A record's fields, "name=value ...": tracepoint fields, else the sample's ip. */
void show_rec_fields(const struct show *s, const struct show_rec *r, char *buf, size_t len)
{
	const struct pdr_attr *a = &s->pd->attrs[r->attr];

	if (a->fmt && show_raw(r))
		pdr_fields_str(a->fmt, show_raw(r), r->raw_size, buf, len);
	else
		snprintf(buf, len, "ip=0x%" PRIx64, pdr_sample_ip(s->pd, r->attr, r->hdr));
}

static void json_scalar(const struct jv *v, char *buf, size_t len)
{
	switch (v->type) {
	case JV_STR:
	case JV_NUM: snprintf(buf, len, "%s", v->str); break;
	case JV_TRUE: snprintf(buf, len, "true"); break;
	case JV_FALSE: snprintf(buf, len, "false"); break;
	case JV_NULL: snprintf(buf, len, "null"); break;
	case JV_ARR: {
		size_t o = snprintf(buf, len, "[");

		for (int i = 0; i < v->n && o < len; i++)
			o += snprintf(buf + o, len - o, "%s%s", i ? ", " : "",
				      v->kids[i].str ? v->kids[i].str : "?");
		if (o < len)
			snprintf(buf + o, len - o, "]");
		break;
	}
	default: snprintf(buf, len, "{...}");
	}
}

struct count {
	uint64_t key;
	uint64_t n, ns;
	const char *name;
	uint32_t pid;
};

static int count_cmp(const void *a, const void *b)
{
	const struct count *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/*
 * Counts by key: an array (sorted at the end) and an open-addressing index
 * into it, so a window of millions of records over thousands of tasks costs
 * one probe a record, not a scan of the tasks.
 */
struct counts {
	struct count *v;
	size_t n, cap;
	uint32_t *slot; /* index into v + 1; 0: empty */
	size_t nslot;	/* a power of two, at least twice n */
};

static inline size_t count_hash(uint64_t key, size_t nslot)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & (nslot - 1);
}

static int counts_grow(struct counts *c)
{
	size_t ns = c->nslot ? c->nslot * 2 : 256;
	uint32_t *sl = calloc(ns, sizeof(*sl));

	if (!sl)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++) {
		size_t h = count_hash(c->v[i].key, ns);

		while (sl[h])
			h = (h + 1) & (ns - 1);
		sl[h] = (uint32_t)i + 1;
	}
	free(c->slot);
	c->slot = sl;
	c->nslot = ns;
	return 0;
}

static struct count *count_add(struct counts *c, uint64_t key)
{
	size_t h;

	if (2 * (c->n + 1) > c->nslot && counts_grow(c))
		return NULL;
	for (h = count_hash(key, c->nslot); c->slot[h]; h = (h + 1) & (c->nslot - 1))
		if (c->v[c->slot[h] - 1].key == key)
			return &c->v[c->slot[h] - 1];
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 64;
		struct count *nv = realloc(c->v, ncap * sizeof(*nv));

		if (!nv)
			return NULL;
		c->v = nv;
		c->cap = ncap;
	}
	memset(&c->v[c->n], 0, sizeof(*c->v));
	c->v[c->n].key = key;
	c->slot[h] = (uint32_t)++c->n;
	return &c->v[c->n - 1];
}

static void print_trigger(const struct show *s, FILE *out)
{
	const struct jv *sc = s->sc;
	const struct jv *fields = jv_get(sc, "trigger.fields");
	char a[48], b[48], c[48], d[48];

	fprintf(out, "trigger   %s", jv_str(sc, "trigger.name", "?"));
	if (jv_get(sc, "trigger.kind"))
		fprintf(out, " (%s trigger)", jv_str(sc, "trigger.kind", ""));
	else if (!s->has_trigger)
		fprintf(out, " (%s)",
			!strcmp(jv_str(sc, "trigger.name", ""), "final") ?
				"the final snapshot, at the end of the run" :
				"taken on demand");
	fprintf(out, "\n  text    %s\n", jv_str(sc, "trigger.text", ""));
	if (s->has_trigger) {
		fprintf(out,
			"  fired   at %s on CPU %" PRIu64 " by %s pid %" PRIu64 " tid %" PRIu64
			"\n",
			show_fmt_time(s->trig_time, a, sizeof(a)), jv_u64(sc, "trigger.cpu", 0),
			jv_str(sc, "trigger.comm", "?"), jv_u64(sc, "trigger.pid", 0),
			jv_u64(sc, "trigger.tid", 0));
	} else {
		fprintf(out, "  at      %s\n", show_fmt_time(s->trig_time, a, sizeof(a)));
	}
	if (jv_get(sc, "trigger.event")) {
		fprintf(out, "  event   %s:", jv_str(sc, "trigger.event", ""));
		for (int i = 0; fields && fields->type == JV_OBJ && i < fields->n; i++) {
			char v[512];

			json_scalar(&fields->kids[i], v, sizeof(v));
			fprintf(out, " %s=%s", fields->kids[i].key, v);
		}
		fputc('\n', out);
	}
	if (jv_get(sc, "trigger.latency.key_text"))
		fprintf(out, "  key     \"%s\" (the text of the str() key part)\n",
			jv_str(sc, "trigger.latency.key_text", ""));
	if (jv_get(sc, "trigger.latency")) {
		uint64_t st = jv_u64(sc, "trigger.latency.start.time_ns", 0);
		uint64_t en = jv_u64(sc, "trigger.latency.end.time_ns", 0);

		if (jv_get(sc, "trigger.latency.learned"))
			show_learned(out, sc);
		else
			fprintf(out, "  latency %s, over the threshold of %s\n",
				show_fmt_dur(jv_u64(sc, "trigger.latency.duration_ns", 0), a,
					     sizeof(a)),
				show_fmt_dur(jv_u64(sc, "trigger.latency.threshold_ns", 0), b,
					     sizeof(b)));
		fprintf(out, "    start %s at %s on CPU %" PRIu64 ", tid %" PRIu64 " (key %s)\n",
			jv_str(sc, "trigger.latency.start.event", "?"),
			show_fmt_time(st, c, sizeof(c)), jv_u64(sc, "trigger.latency.start.cpu", 0),
			jv_u64(sc, "trigger.latency.start.tid", 0),
			jv_str(sc, "trigger.latency.start.key", ""));
		fprintf(out, "    end   %s at %s on CPU %" PRIu64 ", tid %" PRIu64 " (key %s)\n",
			jv_str(sc, "trigger.latency.end.event", "?"),
			show_fmt_time(en, d, sizeof(d)), jv_u64(sc, "trigger.latency.end.cpu", 0),
			jv_u64(sc, "trigger.latency.end.tid", 0),
			jv_str(sc, "trigger.latency.end.key", ""));
	}
	if (jv_get(sc, "trigger.rate.key_text"))
		fprintf(out, "  key     \"%s\" (the text of the str() key part)\n",
			jv_str(sc, "trigger.rate.key_text", ""));
	if (jv_get(sc, "trigger.rate")) {
		uint64_t w = jv_u64(sc, "trigger.rate.window_ns", 0);

		fprintf(out,
			"  rate    %" PRIu64 " events in %s, over the threshold of %" PRIu64
			" (key %s), from %s to %s\n",
			jv_u64(sc, "trigger.rate.count", 0), show_fmt_dur(w, a, sizeof(a)),
			jv_u64(sc, "trigger.rate.threshold", 0), jv_str(sc, "trigger.rate.key", ""),
			show_fmt_time(rate_window_start(sc, s->trig_time), b, sizeof(b)),
			show_fmt_time(s->trig_time, c, sizeof(c)));
		if (jv_get(sc, "trigger.rate.learned"))
			show_baseline(out, sc);
	}
	if (jv_get(sc, "trigger.matches"))
		fprintf(out, "  matches %" PRIu64 "\n", jv_u64(sc, "trigger.matches", 0));
	if (jv_u64(sc, "window.post_ns", 0))
		fprintf(out, "  post    %s after the trigger, to %s\n",
			show_fmt_dur(jv_u64(sc, "window.post_ns", 0), a, sizeof(a)),
			show_fmt_time(s->trig_time + jv_u64(sc, "window.post_ns", 0), b,
				      sizeof(b)));
	if (jv_u64(sc, "coalesced_triggers", 0))
		fprintf(out, "  coalesced %" PRIu64 " more firings while this one was taken\n",
			jv_u64(sc, "coalesced_triggers", 0));
}

static void print_cpus(const struct show *s, FILE *out)
{
	const struct jv *cpus = jv_get(s->sc, "cpus");

	fprintf(out, "  %-4s %8s  %-21s %-21s %-8s %s\n", "cpu", "records", "first", "last",
		"wrapped", "lost");
	struct span {
		uint64_t n, first, last;
	} * sp;
	int maxcpu = 0;

	/* One pass over the records for all CPUs (s->cpus is sorted). */
	if (s->nr_cpus)
		maxcpu = s->cpus[s->nr_cpus - 1];
	sp = calloc((size_t)maxcpu + 1, sizeof(*sp));
	if (!sp)
		return;
	for (size_t k = 0; k < s->nr; k++) {
		struct span *p;

		if ((int)s->recs[k].cpu > maxcpu)
			continue;
		p = &sp[s->recs[k].cpu];
		if (!p->n++)
			p->first = s->recs[k].time;
		p->last = s->recs[k].time;
	}
	for (int i = 0; i < s->nr_cpus; i++) {
		int cpu = s->cpus[i];
		uint64_t nrec = cpu >= 0 ? sp[cpu].n : 0, first = cpu >= 0 ? sp[cpu].first : 0,
			 last = cpu >= 0 ? sp[cpu].last : 0, lost = 0;
		int rings = 0, wrapped = 0;
		char a[32], b[32], l[24];

		/* perf's one main ring, or the ring sets (rings=bpf): any wrapped, lost summed */
		for (int k = 0; cpus && cpus->type == JV_ARR && k < cpus->n; k++) {
			const struct jv *ring = &cpus->kids[k];

			if (jv_i64(ring, "cpu", -1) != cpu ||
			    !strcmp(jv_str(ring, "ring", "main"), "tracking"))
				continue;
			rings++;
			wrapped |= jv_bool(ring, "wrapped", 0);
			lost += jv_u64(ring, "lost", 0);
		}
		snprintf(l, sizeof(l), "%" PRIu64, lost);
		fprintf(out, "  %-4d %8" PRIu64 "  %-21s %-21s %-8s %s\n", cpu, nrec,
			nrec ? show_fmt_time(first, a, sizeof(a)) : "-",
			nrec ? show_fmt_time(last, b, sizeof(b)) : "-",
			rings ? (wrapped ? "yes" : "no") : "?", rings ? l : "?");
	}
	free(sp);
}

const char *show_container(const struct show *s, uint32_t pid, char *buf, size_t len)
{
	const struct jv *tasks = jv_get(s->sc, "tasks"), *cgs = jv_get(s->sc, "cgroups");

	buf[0] = 0;
	if (!tasks || tasks->type != JV_ARR || !cgs || cgs->type != JV_ARR)
		return buf;
	for (int i = 0; i < tasks->n; i++) {
		const struct jv *t = &tasks->kids[i], *cg;
		struct cg_info c;
		int64_t k;

		if (jv_u64(t, "pid", 0) != pid)
			continue;
		k = jv_i64(t, "cgroup", -1);
		if (k < 0 || k >= cgs->n)
			break;
		cg = &cgs->kids[k];
		memset(&c, 0, sizeof(c));
		snprintf(c.runtime, sizeof(c.runtime), "%s", jv_str(cg, "runtime", ""));
		snprintf(c.id, sizeof(c.id), "%s", jv_str(cg, "id", ""));
		snprintf(c.pod_uid, sizeof(c.pod_uid), "%s", jv_str(cg, "pod_uid", ""));
		cg_label(&c, buf, len);
		/* Terminal-safe: the sidecar may be anyone's. */
		for (char *p = buf; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
		break;
	}
	return buf;
}

static void print_busiest(const struct show *s, FILE *out)
{
	struct counts tc = { 0 }, ec = { 0 };
	struct count *tasks, *evs;
	size_t nt, ne;
	char a[32];

	for (size_t i = 0; i < s->nr; i++) {
		struct count *t = count_add(&tc, s->recs[i].tid);
		struct count *e = count_add(&ec, s->recs[i].attr);

		if (!t || !e)
			goto out;
		t->n++;
		t->name = s->recs[i].comm;
		t->pid = s->recs[i].pid;
		e->n++;
		e->name = s->pd->attrs[s->recs[i].attr].name;
	}
	for (size_t i = 0; i < s->nr_runs; i++) {
		struct count *t = count_add(&tc, s->runs[i].tid);

		if (!t)
			goto out;
		t->ns += s->runs[i].end - s->runs[i].start;
		if (!t->name) {
			t->name = s->runs[i].comm;
			t->pid = s->runs[i].pid;
		}
	}
	tasks = tc.v;
	nt = tasks ? tc.n : 0;
	evs = ec.v;
	ne = evs ? ec.n : 0;
	if (tasks)
		qsort(tasks, nt, sizeof(*tasks), count_cmp);
	if (evs)
		qsort(evs, ne, sizeof(*evs), count_cmp);
	fprintf(out, "busiest tasks (records%s):\n",
		s->has_switch ? "; on-CPU time from sched_switch" :
				"; no sched_switch recorded: no on-CPU time");
	fprintf(out, "  %8s  %-12s %-15s %s\n", "records", s->has_switch ? "on-cpu" : "", "pid/tid",
		"comm");
	for (size_t i = 0; i < nt && i < 10; i++) {
		char pt[32], ct[320];

		snprintf(pt, sizeof(pt), "%u/%" PRIu64, tasks[i].pid, tasks[i].key);
		show_container(s, tasks[i].pid, ct, sizeof(ct));
		/* idle's time is what the runs leave out: not summed */
		fprintf(out, "  %8" PRIu64 "  %-12s %-15s %s%s%s%s\n", tasks[i].n,
			!s->has_switch ? "" :
			tasks[i].key   ? show_fmt_dur(tasks[i].ns, a, sizeof(a)) :
					 "-",
			pt, tasks[i].name ? tasks[i].name : "", ct[0] ? "  [" : "", ct,
			ct[0] ? "]" : "");
	}
	fprintf(out, "busiest events:\n  %8s  %s\n", "records", "event");
	for (size_t i = 0; i < ne && i < 10; i++)
		fprintf(out, "  %8" PRIu64 "  %s\n", evs[i].n, evs[i].name);
out:
	free(tc.v);
	free(tc.slot);
	free(ec.v);
	free(ec.slot);
}

static void print_last(const struct show *s, FILE *out, int nlast)
{
	long end = s->trig_rec;
	size_t idx[nlast > 0 ? nlast : 1];
	int n = 0;
	char a[32], f[1024], ct[320];

	if (!s->has_trigger) {
		fprintf(out, "no triggering thread (the snapshot was not taken by a trigger)\n");
		return;
	}
	if (end < 0) {
		/* the trigger's record is not in the file (its event not recorded): up to its time */
		for (end = (long)s->nr - 1; end >= 0 && s->recs[end].time > s->trig_time; end--)
			;
	}
	for (long i = end; i >= 0 && n < nlast; i--)
		if (s->recs[i].tid == s->trig_tid)
			idx[n++] = i;
	show_container(s, s->trig_pid, ct, sizeof(ct));
	fprintf(out, "last %d record%s of %s %u/%u%s%s%s up to the trigger%s:\n", n,
		n == 1 ? "" : "s", jv_str(s->sc, "trigger.comm", "?"), s->trig_pid, s->trig_tid,
		ct[0] ? " [" : "", ct, ct[0] ? "]" : "",
		s->trig_rec < 0 ?
			" (its own record is not in the file: its event is not recorded)" :
			"");
	fprintf(out, "  %-21s %-4s %-32s %s\n", "time", "cpu", "event", "fields");
	while (n--) {
		const struct show_rec *r = &s->recs[idx[n]];

		show_rec_fields(s, r, f, sizeof(f));
		fprintf(out, "  %-21s %-4u %-32s %s%s\n", show_fmt_time(r->time, a, sizeof(a)),
			r->cpu, s->pd->attrs[r->attr].name, f,
			(long)idx[n] == s->trig_rec ? "  <- trigger" : "");
	}
}

void show__print(const struct show *s, FILE *out, int nlast)
{
	char a[32], b[32], c[32];

	fprintf(out, "snapshot  %s\n", s->data_path);
	if (s->sc)
		fprintf(out, "sidecar   %s\n", s->json_path);
	else
		fprintf(out, "sidecar   none: %s (only the perf.data is told)\n", s->sc_err);
	if (s->pd->hostname[0])
		fprintf(out, "host      %s, Linux %s\n", s->pd->hostname, s->pd->osrelease);
	if (s->sc)
		print_trigger(s, out);
	fprintf(out, "window    %s .. %s (%s)%s, %zu records (samples)%s\n",
		show_fmt_time(s->win_start, a, sizeof(a)), show_fmt_time(s->win_end, b, sizeof(b)),
		show_fmt_dur(s->win_end - s->win_start, c, sizeof(c)),
		s->sc ? (jv_bool(s->sc, "window.aligned", 1) ? ", aligned" : ", not aligned") : "",
		s->nr, s->pd->compressed ? ", zstd-compressed" : "");
	print_cpus(s, out);
	if (s->sc) {
		struct show_why *w = malloc(sizeof(*w));

		if (w && !show_why(s, s->why_span_ns, w))
			show_why_print(w, out);
		else
			fprintf(out, "why:\n  out of memory\n");
		if (w)
			show_why_free(w);
		free(w);
	}
	print_busiest(s, out);
	if (s->sc)
		print_last(s, out, nlast);
}
