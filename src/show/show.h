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

/* One sample of the data section, in time order. */
struct show_rec {
	uint64_t time;
	uint32_t cpu, pid, tid;
	int attr; /* index in pd->attrs */
	const struct pdr_rec *pr;
	char comm[16]; /* the thread's name at that time */
};

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
/* JSON string with '<' '>' '&' escaped too, so it can sit inside <script>. */
void show_json_str(FILE *f, const char *s);
/*
 * The container of process pid as the sidecar's "tasks" and "cgroups" map it
 * ("docker:0123456789ab", "pod 1f2e3d4c containerd:...", "nginx.service"),
 * into buf; "" when the sidecar does not say. Returns buf.
 */
const char *show_container(const struct show *s, uint32_t pid, char *buf, size_t len);

#endif
