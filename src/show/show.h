/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `trigrec show`: a snapshot (its perf.data and JSON sidecar) read back and
 * told as what fired and why, the window per CPU, the busiest tasks and
 * events, and the triggering thread's last records; also drawn as one
 * self-contained HTML page (render.c) and as Chrome's Trace Event Format.
 */
#ifndef TRIGREC_SHOW_H
#define TRIGREC_SHOW_H
#include <stdint.h>
#include <stdio.h>
#include "show/jsonv.h"
#include "show/pdread.h"

/*
 * One sample of the data section, in time order: 48 bytes, as many as
 * struct pdr_rec, so that analyse() turns the file's index into these in
 * place (a snapshot of 4 M records touches 200 MB of fresh memory once,
 * not twice).
 */
struct show_rec {
	uint64_t time;
	const struct perf_event_header *hdr; /* the record in the file */
	const char *comm;		     /* the thread's name at that time (s's pool) */
	uint32_t cpu, pid, tid;
	int attr; /* index in pd->attrs */
	uint32_t raw_size;
	uint32_t raw_off; /* the tracepoint entry's offset in the record; 0: none */
};

/* A sample's tracepoint entry (raw_size bytes), or NULL. */
static inline const uint8_t *show_raw(const struct show_rec *r)
{
	return r->raw_off ? (const uint8_t *)r->hdr + r->raw_off : NULL;
}

/* A task on a CPU between two sched_switch records (or the window's ends). */
struct show_run {
	uint32_t cpu, pid, tid;
	uint64_t start, end;
	char comm[16];
};

/* A span drawn over the timeline. */
struct show_span {
	const char *kind; /* "latency", "rate", "post" */
	uint64_t start, end;
	char label[160];
};

struct show {
	char data_path[4096], json_path[4096];
	struct jv *sc; /* the sidecar; NULL when missing (said in sc_err) */
	char sc_err[1024];
	struct pdr_file *pd;
	struct show_rec *recs;
	size_t nr;
	struct show_names *names; /* the pool recs[].comm point into */
	struct show_run *runs;
	size_t nr_runs;
	int has_switch; /* sched:sched_switch recorded: runs are known */
	int *cpus;	/* lanes: every CPU of the sidecar's main rings and of the records */
	int nr_cpus;
	uint64_t win_start, win_end;
	/* the trigger (from the sidecar; trig_rec: its own record in the data, or -1) */
	int has_trigger; /* a trigger's message: not manual or final */
	uint64_t trig_time;
	uint32_t trig_cpu, trig_pid, trig_tid;
	long trig_rec;
	struct show_span spans[3];
	int nr_spans;
	uint64_t why_span_ns; /* --span: the why section's span before a non-latency trigger */
};

/*
 * Open a snapshot: path is its .data or its .json (the other is found
 * beside it: same name, other extension). NULL with the reason in err.
 */
struct show *show__open(const char *path, char *err, size_t errlen);
/* From a data file and sidecar text given separately (json may be NULL). */
struct show *show__open_pair(const char *data_path, const char *json_path, char *err,
			     size_t errlen);
/*
 * From memory (the fuzzers, the tests): data is a perf.data image (not
 * copied: it must outlive the result), json the sidecar's text (or NULL),
 * name what the report calls the file.
 */
struct show *show__open_mem(const void *data, size_t len, const char *json, size_t jlen,
			    const char *name, char *err, size_t errlen);
void show__free(struct show *s);

/*
 * What a scoped snapshot's records cannot hold, as one sentence, or NULL:
 * recorded through perf's rings in task scope, or in a cgroup scope, a
 * scheduler event is written only in the context of a task in scope, so
 * the switches into its tasks and the wake-ups others issue are missing
 * (the sidecar's "rings" and "scope"). The why section warns with it and
 * the page prints it.
 */
const char *show_scope_note(const struct show *s);
/* The terminal report; nlast: how many of the triggering thread's records. */
void show__print(const struct show *s, FILE *out, int nlast);
/*
 * What a page or trace holds: records [lo, hi) of s->recs and the time
 * [t0, t1] (the runs and spans are cut to it). All of the window, or the
 * records nearest the trigger when there are more than a browser opens.
 */
struct show_view {
	size_t lo, hi;
	uint64_t t0, t1;
	int cut; /* fewer than all records */
};

/*
 * The view of at most max records (0: all): those up to and with the
 * trigger's own first, three quarters of max at least, then those after it
 * (the post window). Without a trigger, the newest.
 */
void show_view_pick(const struct show *s, size_t max, struct show_view *v);
/* The HTML page (render.c) of view v, with the report (nlast as above) under the timeline. 0 or -errno. */
int show__write_html(const struct show *s, const struct show_view *v, FILE *out, int nlast);
/* Trace Event Format JSON (render.c) of view v. 0 or -errno. */
int show__write_chrome(const struct show *s, const struct show_view *v, FILE *out);

/*
 * Pure helpers, exposed for the unit tests. show_runs_build() turns the
 * sched_switch records of s->recs into runs (idle, pid 0, left out).
 */
int show_runs_build(struct show *s);
/* Times as perf script --ns prints them: "1234.567890123". */
const char *show_fmt_time(uint64_t ns, char *buf, size_t len);
/* A duration as "1.234 ms" (s, ms, us with 3 decimals; ns whole). */
const char *show_fmt_dur(uint64_t ns, char *buf, size_t len);
/* JSON string with '<' '>' '&' escaped too, so it can sit inside <script>. */
void show_json_str(FILE *f, const char *s);
/* A record's fields, "name=value ...": tracepoint fields, else the sample's ip (text and --html). */
void show_rec_fields(const struct show *s, const struct show_rec *r, char *buf, size_t len);
/*
 * The container of process pid as the sidecar's "tasks" and "cgroups" map it
 * ("docker:0123456789ab", "pod 1f2e3d4c containerd:...", "nginx.service"),
 * into buf; "" when the sidecar does not say. Returns buf.
 */
const char *show_container(const struct show *s, uint32_t pid, char *buf, size_t len);

/*
 * The why section (why.c): where the triggering thread's time went over the
 * span (a latency's start to end; else span_ns, 0: WHY_DEFAULT_SPAN, before
 * the trigger), from sched_switch and the wake-ups.
 */
#define WHY_DEFAULT_SPAN 100000000ull /* 100 ms */
#define WHY_CPUS 16
#define WHY_TOP 5
#define WHY_WAKES 8
#define WHY_WARNS 4
struct why_cpu {
	uint32_t cpu;
	uint64_t ns;
};
struct why_task {
	uint32_t tid;
	uint64_t ns;
	char comm[16];
};
/* A blocked stretch that a wake-up ended, and (w_*) what the waker itself waited on. */
struct why_wake {
	uint64_t blocked_at, time; /* blocked_at 0: before the records */
	char state;		   /* 'S', 'D', '?' */
	int waking;		   /* from sched_waking (the waker's context), else sched_wakeup */
	uint32_t cpu, waker;	   /* waker: tid of the task the record ran in, 0 idle/irq */
	char comm[16];
	uint64_t w_blocked_at, w_woken_at; /* 0: not in the records */
	char w_state;
	uint32_t w_woken_by, w_woken_cpu;
	char w_woken_comm[16];
};
/* Time of the thread in one system call, irq or softirq (nr: number, vector). */
struct why_in {
	int64_t nr;
	char name[32];
	unsigned count;
	uint64_t ns, cpu_ns; /* cpu_ns: of ns, while the thread ran (system calls) */
};
/* What a span spent in system calls, irqs or softirqs; has: the events are recorded. */
struct why_ins {
	int has;
	unsigned count;
	uint64_t ns, cpu_ns;
	struct why_in top[WHY_TOP];
	size_t nr_top, nr_all;
};
/* A rate trigger's contributors: one key value, or one task, and its records. */
struct why_key {
	char key[64]; /* the key's value as text; tasks: "" */
	uint32_t tid;
	char comm[16];
	unsigned count;
};
/*
 * Who made up a rate trigger's count, from the records of its event in the
 * window (window_start_ns .. the trigger), and how many came in the window
 * of the same length before it.
 */
struct why_rate {
	int done;	/* a rate trigger whose event the snapshot records */
	char note[400]; /* why not (done 0), or what the figures do not say */
	char event[128], key[64];
	uint64_t start, end, window_ns;
	unsigned records;
	struct why_key keys[WHY_TOP], tasks[WHY_TOP];
	size_t nr_keys, nr_keys_all, nr_tasks, nr_tasks_all;
	int by_key;			   /* the key is one the records carry: keys[] are filled */
	uint64_t before_start, before_end; /* the window before, cut to the snapshot's */
	unsigned before;
};
/* A stretch of one state (WHY_ST_*), for the --chrome-json tracks. */
enum {
	WHY_ST_UNKNOWN,
	WHY_ST_RUNNING,
	WHY_ST_RUNNABLE,
	WHY_ST_S,
	WHY_ST_D,
	WHY_ST_OTHER,
	WHY_NR_ST
};
struct why_seg {
	uint64_t a, b;
	int st;
	uint32_t cpu; /* WHY_ST_RUNNING, WHY_ST_RUNNABLE: where */
};
#define WHY_MAX_SEGS 200000
struct show_why {
	int done; /* 0: nothing told, reason says why */
	char reason[320];
	uint32_t tid, pid;
	char comm[16];
	const char *basis;	   /* "latency", "span", "default span" */
	uint64_t start, end, from; /* from: where the records begin to explain it */
	int cut_short;		   /* the window starts after the span */
	uint64_t running, runnable, sleep_s, sleep_d, other, unknown;
	struct why_cpu cpus[WHY_CPUS];
	size_t nr_cpus;
	uint64_t cpus_other_ns;
	struct why_task instead[WHY_TOP];
	size_t nr_instead, nr_instead_all;
	uint64_t runnable_unexplained; /* runnable while no recorded task ran there */
	struct why_wake wakes[WHY_WAKES];
	size_t nr_wakes;
	unsigned total_wakes, migrations;
	/*
	 * Where recorded: the thread's system calls (raw_syscalls:sys_enter/exit,
	 * else syscalls:sys_enter_* / sys_exit_*) inside the span, and the hard
	 * and soft irqs that ran in its context (on its CPU while it ran).
	 */
	struct why_ins sys, irq, softirq;
	struct why_rate rate; /* rate triggers: filled whether or not done */
	char warn[WHY_WARNS][640];
	int nr_warn;
	struct why_seg *segs; /* in time order; show_why_free() frees them */
	size_t nr_segs, cap_segs;
	int segs_cut; /* more than WHY_MAX_SEGS: the rest left out */
};
/* 0 (w filled; w->done says whether it could be told) or -errno; then show_why_free(). */
int show_why(const struct show *s, uint64_t span_ns, struct show_why *w);
void show_why_free(struct show_why *w);
/* "running", "runnable", "blocked S", ... */
const char *show_why_state(int st);
void show_why_print(const struct show_why *w, FILE *out);
/*
 * Who ran on cpu over [a, b) (tid skip left out), from s->runs: the top max
 * tasks by time into top, the number of tasks; *none (if not NULL) the time
 * no recorded task ran there. The --html lane's hover on a runnable stretch.
 */
size_t show_why_ran_on(const struct show *s, uint32_t cpu, uint64_t a, uint64_t b, uint32_t skip,
		       struct why_task *top, size_t max, uint64_t *none);
/* `show --json`: what fired, the window and the breakdown, one JSON object. */
void show_why_json(const struct show *s, const struct show_why *w, FILE *out);
/*
 * The "why" object of that JSON alone (no newline): what the snapshot
 * writer stores in the sidecar as "why" (src/snapshot/snapshot.c).
 */
void show_why_json_obj(const struct show_why *w, FILE *out);

#endif
