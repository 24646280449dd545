// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `trigrec test SCRIPT FILE.data...`: where a script's triggers would have
 * fired on recorded snapshots, decided by the engine's own code
 * (replay/replay.h). Exit 0: one fired; 1: none; 2: an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli/cli.h"
#include "script/events.h"
#include "script/script.h"
#include "capture/tracefs.h"
#include "replay/replay.h"
#include "util/log.h"

static const char test_usage[] =
	"usage: trigrec test [-v|-q] SCRIPT FILE.data...\n"
	"\n"
	"Evaluate a trigger script's triggers on recorded snapshots (perf.data files\n"
	"trigrec wrote) with the kernel's own semantics: the same engine code\n"
	"(bpf/engine.bpf.h, built for userspace) runs over the files' tracepoint\n"
	"records in time order, with keys, latency spans, rate windows, learned\n"
	"thresholds, `post` and the policies. Prints one line per firing (file, time,\n"
	"CPU, thread, event, trigger and what it measured), then per trigger what it\n"
	"evaluated, matched, fired and held back. Records that two snapshots of one\n"
	"run both hold count once. The files must hold every event the triggers read\n"
	"(record them with -e). A condition on the text behind a pointer (str()) or\n"
	"on a cgroup cannot be replayed and is refused. A snapshot holds only what\n"
	"its rings kept: what the kernel saw before them, the replay did not.\n"
	"Exit status: 0 when a trigger fired, 1 when none did, 2 on an error (a bad\n"
	"script, with FILE:LINE:COL; an unreadable file; an event not recorded).\n"
	"Each file is read once, as the replay goes: a record found damaged on the\n"
	"way stops it there, after the firings of the records before it (status 2).\n"
	"-q prints the summary only; -v adds how long opening and replaying took.\n"
	"\n"
	"Examples:\n"
	"  # Would this rule have caught last night's stall?\n"
	"  trigrec test slow-syscalls.trig /var/lib/trigrec/*.data\n"
	"  # Gate a rule change in CI: fail when it does not fire on the known incident\n"
	"  trigrec test -q new-rule.trig incident.data || exit 1\n" CLI_MORE_EXAMPLES;

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct out_ctx {
	const struct replay *rp;
	const struct trigrec_config *c;
	uint64_t *fired;
	int quiet;
};

static void print_fire(const struct replay_fire *f, void *arg)
{
	struct out_ctx *o = arg;
	const struct trigrec_trigger_msg *m = &f->m->m;
	const struct trig_def *t = &o->c->trigs[m->trigger_id];
	char comm[TRIGREC_COMM_LEN + 1], what[160] = "";

	o->fired[m->trigger_id]++;
	if (o->quiet)
		return;
	snprintf(comm, sizeof(comm), "%s", f->comm[0] ? f->comm : "?");
	pdr_clean_text(comm);
	if (t->kind == TRIGREC_TRIG_LATENCY && f->m->threshold_ns)
		snprintf(what, sizeof(what),
			 " latency=%llu.%06llu ms (above %llu.%06llu ms learned over %llu spans)",
			 (unsigned long long)(m->latency_ns / 1000000),
			 (unsigned long long)(m->latency_ns % 1000000),
			 (unsigned long long)(f->m->threshold_ns / 1000000),
			 (unsigned long long)(f->m->threshold_ns % 1000000),
			 (unsigned long long)f->m->samples);
	else if (t->kind == TRIGREC_TRIG_LATENCY)
		snprintf(what, sizeof(what), " latency=%llu.%06llu ms start_tid=%u",
			 (unsigned long long)(m->latency_ns / 1000000),
			 (unsigned long long)(m->latency_ns % 1000000), m->start_tid);
	else if (t->kind == TRIGREC_TRIG_RATE || t->cfg.threshold > 1)
		snprintf(what, sizeof(what), " count=%llu", (unsigned long long)m->count);
	printf("%s: %llu.%09llu cpu=%u %s/%u %s: trigger %s fired%s\n", o->rp->paths[f->file],
	       (unsigned long long)(m->time_ns / 1000000000ull),
	       (unsigned long long)(m->time_ns % 1000000000ull), m->cpu, comm, m->tid, f->event,
	       t->name, what);
}

/* The script against the files' formats; on failure, why (errors printed). NULL: status 2. */
static struct script *parse_script(const char *path, struct trigrec_config *c)
{
	char err[512];
	struct script *s = script__load(path, err, sizeof(err));

	if (!s) {
		elog("%s", err);
		return NULL;
	}
	script__parse(s, c);
	return s;
}

int cmd_test(int argc, char **argv)
{
	const char *script_path = NULL;
	const char **files = calloc(argc > 1 ? argc : 1, sizeof(*files));
	struct trigrec_config c;
	struct replay *rp = NULL;
	struct script *s = NULL;
	struct out_ctx o = { 0 };
	struct eh_opts eo = { 0 };
	uint64_t total = 0, t0 = 0, t1, t2, c0 = 0, c1, c2;
	char err[1024];
	int nfiles = 0, ret = 2, quiet = 0;

	config__init(&c);
	if (!files)
		goto out;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(test_usage, stdout);
			ret = 0;
			goto out;
		}
		if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			log_level++;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			quiet = 1;
		} else if (a[0] == '-' && a[1]) {
			elog("unknown option %s for test (options: -v, -q, -h)", a);
			fputs(test_usage, stderr);
			goto out;
		} else if (!script_path) {
			script_path = a;
		} else {
			files[nfiles++] = a;
		}
	}
	if (!script_path || !nfiles) {
		elog("test: give a trigger script and at least one snapshot: trigrec test SCRIPT "
		     "FILE.data...");
		fputs(test_usage, stderr);
		goto out;
	}
	t0 = clock_ns(CLOCK_MONOTONIC);
	c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	rp = replay_open(files, nfiles, err, sizeof(err));
	if (!rp) {
		elog("%s", err);
		goto out;
	}
	/* Fields and events resolve against what the files recorded, not this host. */
	trig_set_formats(rp->fmts, rp->nr_fmts);
	s = parse_script(script_path, &c);
	if (!s)
		goto out;
	if (script__nr_errors(s)) {
		/*
		 * Does it parse against this host's tracepoints? Then what the
		 * files lack is an event: name it, and the -e that records it.
		 */
		struct trigrec_config hc;
		struct script *hs;

		config__init(&hc);
		trig_set_formats(NULL, 0);
		script_events_read_only(1);
		hs = tracefs_root() ? parse_script(script_path, &hc) : NULL;
		script_events_read_only(0);
		trig_set_formats(rp->fmts, rp->nr_fmts);
		if (hs && !script__nr_errors(hs) &&
		    replay_check(rp, hc.trigs, hc.nr_trigs, hc.trig_origin, err, sizeof(err))) {
			elog("%s", err);
			script__free(hs);
			config__fini(&hc);
			goto out;
		}
		script__free(hs);
		config__fini(&hc);
		script__print_errors(s, stderr);
		elog("%s: %d error%s (events and fields are those the files recorded: %d "
		     "tracepoint%s)",
		     script__path(s), script__nr_errors(s), script__nr_errors(s) == 1 ? "" : "s",
		     rp->nr_fmts, rp->nr_fmts == 1 ? "" : "s");
		goto out;
	}
	if (!c.nr_trigs) {
		elog("%s: no trigger to test (manual triggers have no condition to replay)",
		     script__path(s));
		goto out;
	}
	if (replay_check(rp, c.trigs, c.nr_trigs, c.trig_origin, err, sizeof(err))) {
		elog("%s", err);
		goto out;
	}
	/* How the kernel would have coalesced firings: ring sets alone, or a freeze. */
	eo.ring_mode = c.rings != REC_RINGS_PERF;
	eo.need_freeze = c.rings == REC_RINGS_PERF;
	for (int i = 0; i < 2; i++) {
		eo.budget_n[i] = c.bpf.budget_n[i];
		eo.budget_period_ns[i] = c.bpf.budget_period_ns[i];
	}
	o.rp = rp;
	o.c = &c;
	o.quiet = quiet;
	o.fired = calloc(c.nr_trigs, sizeof(*o.fired));
	t1 = clock_ns(CLOCK_MONOTONIC);
	c1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (!o.fired) {
		elog("test: out of memory");
		goto out;
	}
	if (replay_run(rp, c.trigs, c.nr_trigs, &eo, print_fire, &o)) {
		/* found on the way: what was printed came from the records before it */
		fflush(stdout);
		elog("%s; the replay stopped there: any firing printed came from the %llu "
		     "records evaluated before it",
		     rp->err, (unsigned long long)rp->evaluated);
		goto out;
	}
	t2 = clock_ns(CLOCK_MONOTONIC);
	c2 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	/* the records are read as they are replayed: the first part is the files' headers */
	vlog("opened %d file%s and compiled the script in %llu ms (CPU %llu ms), read and "
	     "replayed %llu records in %llu ms (CPU %llu ms): %llu records/s of wall time",
	     rp->nr_files, rp->nr_files == 1 ? "" : "s", (unsigned long long)((t1 - t0) / 1000000),
	     (unsigned long long)((c1 - c0) / 1000000), (unsigned long long)rp->evaluated,
	     (unsigned long long)((t2 - t1) / 1000000), (unsigned long long)((c2 - c1) / 1000000),
	     (unsigned long long)(t2 > t0 ? rp->evaluated * 1000000000ull / (t2 - t0) : 0));
	printf("%s: %llu records of %d file%s evaluated", script__path(s),
	       (unsigned long long)rp->evaluated, rp->nr_files, rp->nr_files == 1 ? "" : "s");
	if (rp->duplicates)
		printf(" (%llu held by two snapshots, counted once)",
		       (unsigned long long)rp->duplicates);
	printf("\n");
	for (int i = 0; i < c.nr_trigs; i++) {
		struct trigrec_stats st = { 0 };

		eh_stats(i, &st);
		total += o.fired[i];
		printf("trigger %s: fired %llu; evaluated %llu, matched %llu, held back %llu "
		       "(limit/max %llu, cooldown %llu, budget %llu, inside a snapshot's window %llu)\n",
		       c.trigs[i].name, (unsigned long long)o.fired[i],
		       (unsigned long long)st.evaluated, (unsigned long long)st.matched,
		       (unsigned long long)(st.suppressed_limit + st.suppressed_cooldown +
					    st.suppressed_budget + st.coalesced),
		       (unsigned long long)st.suppressed_limit,
		       (unsigned long long)st.suppressed_cooldown,
		       (unsigned long long)st.suppressed_budget, (unsigned long long)st.coalesced);
	}
	ret = total ? 0 : 1;
out:
	trig_set_formats(NULL, 0);
	eh_free();
	free(o.fired);
	script__free(s);
	config__fini(&c);
	replay_close(rp);
	free(files);
	return ret;
}
