// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <bpf/libbpf.h>
#include "util/log.h"
#include "harvest/sideband.h"
#include "util/util.h"

#define REQ_SNAPSHOT 1u /* SIGUSR2 */
#define REQ_STOP 2u
#define REQ_CONTROL 4u /* a control client's snapshot is posted in s->mreq */
#define REQ_RELOAD 8u  /* swap the BPF object (s->reload) */

#define NR_JOBS 2 /* harvests in flight: one being written, one being taken */

/* A harvested snapshot waiting for (or in) the writer thread. */
struct job {
	int state; /* JOB_FREE, JOB_QUEUED, JOB_WRITING */
	unsigned long seq;
	struct harvest *h;
	struct trigrec_trigger_msg_learn msg; /* the message, and what a learned trigger learned */
	int has_msg;
	struct snap_trigger t;
	struct snap_timing tm;
	char name[64];
	char text[64];
	const char *alert; /* the sidecar's "alert" object (the waiting client's), or NULL */
	/* For a control client waiting on its manual snapshot (on the control thread). */
	int waited;
	int done;
	int err;
	struct snap_written out;
};

/* A control client's snapshot request, handed from the control thread to the side-band thread. */
enum { MREQ_IDLE, MREQ_POSTED, MREQ_SERVING, MREQ_TAKEN, MREQ_ANSWERED };
struct manual_req {
	int state;
	char name[64];
	char text[64];
	const char *alert; /* the client's, valid until it is answered and its file written */
	int budgeted;	   /* spends the run's snapshot budget (refused -EDQUOT past it) */
	struct job *job;   /* MREQ_TAKEN: the harvest being written */
	int result;	   /* MREQ_ANSWERED: 0 = coalesced, <0 = -errno */
};

enum { JOB_FREE, JOB_QUEUED, JOB_WRITING };

struct sideband {
	struct recorder *r;
	struct bpfctl *b;
	struct snapshot_ctx *sc;
	struct sideband_opts o;
	struct ring_buffer *rb;
	int epfd, evfd;
	int finished_fd; /* eventfd: written once stopping is over */
	pthread_t thr;
	int started;
	unsigned int req;	 /* REQ_* bits, atomic */
	int stopping;		 /* atomic: no more manual snapshots */
	int thread_done;	 /* the side-band thread has returned (under mu) */
	struct manual_req mreq;	 /* under mu */
	int events_stopped;	 /* side-band thread */
	uint64_t coalesced_seen; /* sum of BPF coalesced counters already reported */
	uint64_t gated_seen;
	uint64_t skipped_seen; /* bpfctl__recursion_misses() already reported */
	/* Per trigger: suppressed by cooldown, limit/max, budget, already logged. */
	uint64_t sup_seen[TRIGREC_MAX_TRIGGERS][3];
	uint64_t last_resume; /* floor of the next snapshot's window */
	struct sideband_stats st;
	/* Writer thread: files are written while the next freeze can already happen. */
	pthread_t writer;
	int writer_started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job jobs[NR_JOBS];
	unsigned long next_seq;
	int writer_stop;
	int sync_init;
	unsigned long written;	    /* jobs written (writer thread) */
	unsigned long write_failed; /* jobs whose write failed (writer thread, atomic) */
	int count_reached;	    /* --count snapshots written (atomic) */
	/* Reload: posted by sideband__reload(), done on the side-band thread (under mu). */
	struct {
		sideband_swap_fn fn;
		void *ctx;
		int posted, done, err;
	} reload;
	uint32_t generation; /* of s->b: messages of another one are dropped */
	unsigned long stale_msgs;
};

static void sum_counters(struct sideband *s, uint64_t *coalesced, uint64_t *gated,
			 uint64_t *skipped)
{
	struct trigrec_stats st;

	/* Since the start, reloads included (removed triggers too): never goes back. */
	bpfctl__stats_retired(s->b, &st);
	*coalesced = st.coalesced;
	*gated = 0;
	*skipped = bpfctl__recursion_total(s->b);
	for (int i = 0; i < s->b->nr_trigs; i++)
		if (!bpfctl__stats(s->b, i, &st))
			*coalesced += st.coalesced;
	if (!bpfctl__stats(s->b, TRIGREC_MAX_TRIGGERS, &st))
		*gated = st.gated;
}

/*
 * One log line per trigger whose firings were suppressed since the last
 * line (cooldown, limit/max, the global budget), written when a snapshot is
 * taken: a storm becomes a line per snapshot, not a line per firing, and an
 * idle recorder is never woken to say so. The exit summary has the totals.
 */
static void report_suppressed(struct sideband *s)
{
	for (int i = 0; i < s->b->nr_trigs && i < TRIGREC_MAX_TRIGGERS; i++) {
		struct trigrec_stats st;
		uint64_t now[3], d[3];
		char kv[256] = "event=suppressed";

		if (bpfctl__stats(s->b, i, &st))
			continue;
		now[0] = st.suppressed_cooldown;
		now[1] = st.suppressed_limit;
		now[2] = st.suppressed_budget;
		for (int k = 0; k < 3; k++)
			d[k] = now[k] - s->sup_seen[i][k];
		memcpy(s->sup_seen[i], now, sizeof(now));
		if (!(d[0] | d[1] | d[2]))
			continue;
		log_kv_add(kv, sizeof(kv), "trigger", s->b->trigs[i].name);
		log_kv_addu(kv, sizeof(kv), "cooldown", d[0]);
		log_kv_addu(kv, sizeof(kv), "limit", d[1]);
		log_kv_addu(kv, sizeof(kv), "budget", d[2]);
		log_event(LOG_INFO, kv,
			  "trigger %s: %llu firings suppressed since the last report "
			  "(cooldown %llu, limit/max %llu, budget %llu)",
			  s->b->trigs[i].name, (unsigned long long)d[0] + d[1] + d[2],
			  (unsigned long long)d[0], (unsigned long long)d[1],
			  (unsigned long long)d[2]);
	}
}

static void notify_done(struct sideband *s)
{
	uint64_t one = 1;

	if (write(s->o.done_fd, &one, sizeof(one)) < 0)
		wlog("cannot notify the main thread: %s", strerror(errno));
}

/* Write one job's file and report it (writer thread). */
static void write_job(struct sideband *s, struct job *j)
{
	struct snap_trigger *t = &j->t;
	const struct trigrec_trigger_msg *m = j->has_msg ? &j->msg.m : NULL;
	char d1[32], d2[32], what[160] = "";
	uint64_t now;

	t->msg = m;
	t->learn = j->has_msg ? &j->msg : NULL;
	t->name = j->name;
	t->text = j->text;
	t->alert = j->alert;
	if (t->def) {
		t->name = t->def->name;
		t->text = t->def->text;
	}
	j->err = snapshot__write(s->sc, s->r, j->h, t, &j->tm, &j->out);
	now = mono_ns();
	if (s->o.written) {
		struct snap_report rep = {
			.trigger = t->def		     ? t->id :
				   !strcmp(t->name, "final") ? -2 :
							       -1,
			.name = t->name,
			.err = j->err,
			.out = j->err ? NULL : &j->out,
			.freeze_ns = j->tm.resume - t->freeze_at,
			.to_file_ns = now - t->freeze_at,
		};

		s->o.written(s->o.ctx, &rep);
	}
	if (j->err)
		return;
	if (m && t->def && t->def->kind == TRIGREC_TRIG_LATENCY) {
		char d3[32], d4[32];

		snprintf(what, sizeof(what), ": %s > %s, tid %u",
			 fmt_duration(m->latency_ns, d3, sizeof(d3)),
			 fmt_duration(t->def->cfg.threshold, d4, sizeof(d4)), m->tid);
	} else if (m && t->def && t->def->kind == TRIGREC_TRIG_RATE) {
		char d3[32];

		snprintf(what, sizeof(what), ": %llu events in %s", (unsigned long long)m->count,
			 fmt_duration(m->window_ns, d3, sizeof(d3)));
	}
	{
		char kv[4608] = "event=snapshot";

		log_kv_add(kv, sizeof(kv), "trigger", t->name);
		log_kv_add(kv, sizeof(kv), "path", j->out.path);
		log_kv_addu(kv, sizeof(kv), "freeze_ns", j->tm.resume - t->freeze_at);
		log_kv_addu(kv, sizeof(kv), "write_ns", now - j->tm.resume);
		log_kv_addu(kv, sizeof(kv), "bytes", j->out.data_bytes + j->out.sidecar_bytes);
		log_kv_addu(kv, sizeof(kv), "coalesced", t->coalesced);
		log_event(LOG_INFO, kv, "snapshot %s (%s%s; frozen %s, written in %s)", j->out.path,
			  t->name, what, fmt_duration(j->tm.resume - t->freeze_at, d1, sizeof(d1)),
			  fmt_duration(now - j->tm.resume, d2, sizeof(d2)));
	}
	if (t->coalesced)
		ilog("  %llu more trigger firings coalesced into it",
		     (unsigned long long)t->coalesced);
}

static void *writer_main(void *arg)
{
	struct sideband *s = arg;
	uint64_t one = 1;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		struct job *j = NULL;

		for (int i = 0; i < NR_JOBS; i++)
			if (s->jobs[i].state == JOB_QUEUED && (!j || s->jobs[i].seq < j->seq))
				j = &s->jobs[i];
		if (!j) {
			if (s->writer_stop)
				break;
			pthread_cond_wait(&s->cv, &s->mu);
			continue;
		}
		j->state = JOB_WRITING;
		pthread_mutex_unlock(&s->mu);
		write_job(s, j);
		pthread_mutex_lock(&s->mu);
		/* --count counts what was written: a failed write lets one more be taken. */
		if (j->err)
			__atomic_add_fetch(&s->write_failed, 1, __ATOMIC_RELEASE);
		else
			s->written++;
		j->done = 1;
		if (!j->waited)
			j->state = JOB_FREE;
		pthread_cond_broadcast(&s->cv);
		if (!j->err && s->o.max_snapshots && s->written == s->o.max_snapshots) {
			ilog("--count %lu reached: stopping", s->o.max_snapshots);
			__atomic_store_n(&s->count_reached, 1, __ATOMIC_RELEASE);
			__atomic_store_n(&s->o.final_snapshot, 0, __ATOMIC_RELEASE);
			notify_done(s);
		}
	}
	pthread_mutex_unlock(&s->mu);
	/* writer_stop is only set once the side-band thread is done: the stop is over. */
	if (write(s->finished_fd, &one, sizeof(one)) < 0)
		wlog("cannot notify the end of the stop: %s", strerror(errno));
	return NULL;
}

static void serve_mreq(struct sideband *s);

/*
 * Once the final freeze is taken nothing more is wanted from the events,
 * and a busy sampling event would slow the final write down (-F 100000 on
 * 2 CPUs: 106 s instead of 0.45 s for a 1 MiB ring).
 */
static void stop_events(struct sideband *s)
{
	if (s->events_stopped)
		return;
	recorder__disable(s->r);
	s->events_stopped = 1;
	vlog("events stopped: nothing more is recorded");
}

static int stop_requested(struct sideband *s)
{
	return __atomic_load_n(&s->req, __ATOMIC_ACQUIRE) & REQ_STOP;
}

/*
 * --post: the gates keep recording until freeze_at; sleep until then, but
 * wake for a stop, which ends the window now (the snapshot is still taken).
 * Returns the cut: freeze_at, or the moment the stop cut it short.
 */
static uint64_t wait_post(struct sideband *s, uint64_t freeze_at)
{
	for (;;) {
		uint64_t now = mono_ns(), v;
		struct timespec ts;
		struct pollfd pf = { .fd = s->evfd, .events = POLLIN };

		if (now >= freeze_at)
			return freeze_at;
		if (stop_requested(s)) {
			/* The gates drop what comes after now; the rest of the window is not waited for. */
			bpfctl__cut_at(s->b, now);
			s->st.post_cut_short++;
			ilog("stopping: post window cut short (%s early)",
			     fmt_duration(freeze_at - now, (char[32]){ 0 }, 32));
			return now;
		}
		ts.tv_sec = (freeze_at - now) / 1000000000ull;
		ts.tv_nsec = (freeze_at - now) % 1000000000ull;
		/* Other REQ_* bits stay set for the main loop; only the eventfd's count is read here. */
		if (ppoll(&pf, 1, &ts, NULL) > 0 && read(s->evfd, &v, sizeof(v)) < 0 &&
		    errno != EAGAIN)
			wlog("side-band eventfd: %s", strerror(errno));
		/* A control client's snapshot falls in this trigger's window: say so now, not in an hour. */
		if (__atomic_fetch_and(&s->req, ~REQ_CONTROL, __ATOMIC_ACQ_REL) & REQ_CONTROL)
			serve_mreq(s);
	}
}

/*
 * The critical section: from the trigger to bpfctl__thaw() recording is
 * frozen, so this does nothing but wait for a free buffer set and memcpy.
 * The file is written by the writer thread. Returns the queued job.
 * last: the final snapshot; the events are disabled before it is queued.
 */
/*
 * The trigger's own record is written by perf right after the BPF program
 * that posted the message returns: on a real CPU it is in the ring long
 * before this thread wakes. A virtual CPU descheduled by its host can take
 * longer (seen on 6.1 under qemu TCG), and a pause before the record lands
 * loses it. So wait, briefly and bounded, until it is there; the freeze
 * holds everything else meanwhile. It is there when the trigger's CPU's
 * newest record is stamped at or after the trigger, or, for a uprobe, when
 * another CPU's newest record is the trigger thread's and stamped so: the
 * kernel runs a uprobe's program with only migration disabled and writes
 * the record after it, so the task may have moved (a 6.12 guest under qemu
 * TCG lost a uprobe trigger's record so, however long this waited). The
 * bound grows with how late this thread woke: a machine that took W to run
 * it (loaded, overcommitted, emulated) can be as late running the
 * trigger's CPU, so 20 ms plus twice W, at most a second.
 */
#define TRIGGER_RECORD_WAIT_NS (20 * 1000 * 1000ull)
#define TRIGGER_RECORD_WAIT_MAX_NS (1000 * 1000 * 1000ull)
/*
 * Time stamp and thread of the newest record in main ring i (decoded as the
 * snapshot will); 0, or -ENOENT when there is none or it cannot be read.
 */
static int newest_record(struct sideband *s, int i, uint64_t *time, uint32_t *tid)
{
	/* The identifying fields come first; a tracepoint's common_pid follows a call chain. */
	uint64_t buf[160];

	if (recorder__newest_record(s->r, i, buf, sizeof(buf)) < 0)
		return -ENOENT;
	return snapshot__record_id(s->sc, s->r, (const void *)buf, time, tid);
}

/* Is the trigger's own record in the rings (or is there nothing to wait for)? One pass. */
static int trigger_record_in(struct sideband *s, const struct trigrec_trigger_msg *m)
{
	/* The trigger's CPU has a perf-written ring: without one, nothing to wait for. */
	int own = 0;

	for (int i = 0; i < s->r->nr_rings; i++) {
		const struct rec_ring *ring = &s->r->rings[i];
		uint64_t t;
		uint32_t tid;

		if (ring->tracking || ring->set >= 0)
			continue;
		if (ring->cpu == (int)m->cpu) {
			own = 1;
			if (newest_record(s, i, &t, &tid) || t >= m->time_ns)
				return 1;
		} else if (m->tid && !newest_record(s, i, &t, &tid) && t >= m->time_ns &&
			   tid == m->tid) {
			return 1;
		}
	}
	return !own;
}

static void wait_trigger_record(struct sideband *s, const struct trigrec_trigger_msg *m,
				uint64_t woke)
{
	uint64_t until = 0, bound = TRIGGER_RECORD_WAIT_NS;
	/*
	 * The poll backs off from 20 us to 1 ms: this thread may share the
	 * trigger's CPU with the task that still has to write the record (a
	 * uprobe's BPF program runs preemptible, before its record), and on a
	 * slow machine (TCG) a tight poll starved that task past the bound.
	 */
	long nap = 20000;

	if (woke > m->time_ns)
		bound += 2 * (woke - m->time_ns);
	if (bound > TRIGGER_RECORD_WAIT_MAX_NS)
		bound = TRIGGER_RECORD_WAIT_MAX_NS;
	while (!trigger_record_in(s, m)) {
		uint64_t now = mono_ns();
		struct timespec ts = { 0, nap };

		if (!until)
			until = now + bound;
		if (now >= until) {
			s->st.trigger_record_late++;
			vlog("the trigger's record was not in the rings (trigger on CPU %u) after %llu "
			     "ms: harvesting without it",
			     m->cpu, (unsigned long long)(bound / 1000000));
			return;
		}
		nanosleep(&ts, NULL);
		if (nap < 1000000)
			nap *= 2;
	}
	if (until)
		s->st.trigger_record_waited++;
}

/* Is the trigger's own record written by BPF (rings=bpf)? It is then in the rings already. */
static int bpf_recorded_hook(struct sideband *s, const struct trigrec_trigger_msg *m)
{
	return m->hook < (uint32_t)s->b->nr_hooks &&
	       (s->b->hooks[m->hook].cfg.flags & TRIGREC_HOOK_BPFREC);
}

/*
 * After the copy of a flip: the spare goes back. rings=compact: recording
 * returns to the main rings first, then what the spare took since the cut
 * is copied into the carry (the next snapshots' history from the cut on),
 * then the spare is free for the next cut. Memcpy only.
 */
static void settle(struct sideband *s)
{
	bpfctl__settle(s->b);
	if (bpfctl__compact(s->b)) {
		recorder__carry(s->r);
		bpfctl__spare_back(s->b);
	}
}

/*
 * flipped: recording moved to the spare ring set at the cut (rings=bpf);
 * once copied, the set left is handed back as the spare.
 */
static struct job *take(struct sideband *s, const struct trigrec_trigger_msg_learn *ml,
			uint64_t freeze_at, uint64_t woke, const char *name, const char *text,
			const char *alert, int wait, int last, int flipped)
{
	const struct trigrec_trigger_msg *m = ml ? &ml->m : NULL;
	/* rings=bpf with nothing perf-written: nothing is frozen, nothing waits for a thaw. */
	int nofreeze = !bpfctl__needs_freeze(s->b);
	uint64_t coalesced, gated, skipped;
	struct job *j = NULL;
	struct bpfctl_key_nm keys[BPF_NM_KEYS];
	int err, nk = 0;

	/*
	 * A post window (a trigger's, or a named manual snapshot's): returns at
	 * once without one. With ring sets alone nothing is frozen meanwhile,
	 * and a trigger after the window is another snapshot (fire()).
	 */
	freeze_at = wait_post(s, freeze_at);
	if (m && m->hook_recorded && !bpf_recorded_hook(s, m))
		wait_trigger_record(s, m, woke);
	/* A free buffer set; both busy means two files are being written: wait. */
	pthread_mutex_lock(&s->mu);
	for (;;) {
		for (int i = 0; i < NR_JOBS && !j; i++)
			if (s->jobs[i].state == JOB_FREE)
				j = &s->jobs[i];
		if (j)
			break;
		s->st.waited_for_writer++;
		pthread_cond_wait(&s->cv, &s->mu);
	}
	pthread_mutex_unlock(&s->mu);

	memset(&j->t, 0, sizeof(j->t));
	j->tm = (struct snap_timing){ .woke = woke };
	j->tm.pause = mono_ns();
	err = recorder__harvest(s->r, j->h);
	j->tm.resume = mono_ns();
	if (flipped)
		settle(s);
	if (nofreeze)
		bpfctl__taken(s->b);
	if (last)
		stop_events(s);
	if (!nofreeze)
		bpfctl__thaw(s->b);
	/* Gates only drop while frozen, so the counters can be read after the thaw. */
	sum_counters(s, &coalesced, &gated, &skipped);
	report_suppressed(s);
	if (err)
		wlog("pausing or resuming the rings failed: %s; the snapshot may miss records",
		     strerror(-err));
	/*
	 * Per-key near misses: a walk of the key_nm LRU (up to --max-keys
	 * entries, two syscalls each), so only now, after the thaw and the
	 * spare's hand-back, never while recording waits for it.
	 */
	if (m)
		nk = bpfctl__key_near_miss(s->b, m->trigger_id, keys, 1);

	j->has_msg = !!ml;
	if (ml)
		j->msg = *ml;
	if (nk > 0) {
		memcpy(j->t.keys, keys, sizeof(keys[0]) * (size_t)nk);
		j->t.nr_keys = nk;
	}
	snprintf(j->name, sizeof(j->name), "%s", name);
	snprintf(j->text, sizeof(j->text), "%s", text);
	j->alert = alert;
	j->t.id = -1;
	j->t.freeze_at = freeze_at;
	j->t.coalesced = coalesced - s->coalesced_seen;
	j->t.gated = gated - s->gated_seen;
	j->t.skipped = skipped - s->skipped_seen;
	/* A freeze leaves a hole in what perf wrote; ring sets have none. */
	j->t.floor = nofreeze ? 0 : s->last_resume;
	if (m) {
		j->t.id = m->trigger_id;
		if (m->trigger_id < (uint32_t)s->b->nr_trigs)
			j->t.def = &s->b->trigs[m->trigger_id];
		if (m->hook < (uint32_t)s->b->nr_hooks)
			j->t.fmt = s->b->hooks[m->hook].fmt;
	}
	s->coalesced_seen = coalesced;
	s->gated_seen = gated;
	s->skipped_seen = skipped;
	s->last_resume = j->tm.resume;
	__atomic_add_fetch(&s->st.snapshots, 1, __ATOMIC_RELAXED);

	pthread_mutex_lock(&s->mu);
	j->seq = s->next_seq++;
	j->waited = wait;
	j->done = 0;
	j->state = JOB_QUEUED;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);

	return j;
}

/* --count snapshots taken that have not failed: no more are wanted unless one fails. */
static int count_taken(struct sideband *s)
{
	return s->o.max_snapshots &&
	       s->st.snapshots - __atomic_load_n(&s->write_failed, __ATOMIC_ACQUIRE) >=
		       s->o.max_snapshots;
}

static int on_msg(void *ctx, void *data, size_t len)
{
	struct sideband *s = ctx;
	/* Static: the side-band thread's alone, and too big for a thread's stack frame. */
	static struct trigrec_trigger_msg_learn ml;
	struct trigrec_trigger_msg m;
	uint64_t woke = mono_ns();

	if (len < sizeof(ml) || ((struct trigrec_trigger_msg *)data)->type != TRIGREC_MSG_TRIGGER) {
		wlog("unexpected side-band message (%zu bytes) ignored", len);
		return 0;
	}
	/* Copy out: the ring buffer slot is released when we return. */
	memcpy(&ml, data, sizeof(ml));
	m = ml.m;
	if (m.generation != s->generation) {
		/* Never decode a trigger id against another generation's table. */
		s->stale_msgs++;
		wlog("side-band message of trigger table generation %u ignored (running %u)",
		     m.generation, s->generation);
		return 0;
	}
	if (count_taken(s)) {
		/* --count taken (written or being written): this one is not wanted. */
		if (m.flipped)
			settle(s);
		if (!bpfctl__needs_freeze(s->b))
			bpfctl__taken(s->b);
		bpfctl__thaw(s->b);
		return 0;
	}
	take(s, &ml, m.freeze_at, woke, "trigger", "trigger", NULL, 0, 0, m.flipped);
	return 0;
}

/*
 * A manual snapshot (side-band thread). Returns the job (to wait for when
 * wait is set), or NULL when it was coalesced into a trigger's snapshot in
 * progress.
 */
static struct job *manual(struct sideband *s, const char *name, const char *text, const char *alert,
			  int wait, int budgeted, int *refused)
{
	uint64_t at = mono_ns(), post;
	char def[64];
	int claimed;

	if (budgeted && !bpfctl__budget_spend(s->b, at, 0)) {
		/* The run's budget holds it back, as it would a trigger. */
		*refused = -EDQUOT;
		ilog("%s snapshot not taken: the snapshot budget is spent", name);
		return NULL;
	}

	/* Unnamed (SIGUSR2, `snapshot` alone): the script's first manual trigger, if any. */
	if (!name[0]) {
		const char *d = s->o.manual_default ? s->o.manual_default(s->o.ctx) : NULL;

		snprintf(def, sizeof(def), "%s", d ? d : "manual");
		name = def;
	}
	/* A script's `trigger NAME { manual post 5ms }`: record on until then. */
	post = s->o.manual_post ? s->o.manual_post(s->o.ctx, name) : 0;
	claimed = bpfctl__freeze_now(s->b, at + post);

	if (!claimed) {
		/* A trigger owns the freeze: its snapshot covers this moment too. */
		s->st.manual_coalesced++;
		ilog("%s snapshot coalesced into the trigger snapshot in progress", name);
		return NULL;
	}
	if (budgeted)
		bpfctl__budget_spend(s->b, at, 1);
	return take(s, NULL, at + post, at, name, text, alert, wait, 0, claimed == 2);
}

/* Serve a control client's posted request (side-band thread): take it, never wait for the file. */
static void serve_mreq(struct sideband *s)
{
	char name[64], text[64];
	const char *alert;
	int budgeted, refused = 0;
	struct job *j;

	pthread_mutex_lock(&s->mu);
	if (s->mreq.state != MREQ_POSTED) {
		pthread_mutex_unlock(&s->mu);
		return;
	}
	memcpy(name, s->mreq.name, sizeof(name));
	memcpy(text, s->mreq.text, sizeof(text));
	alert = s->mreq.alert;
	budgeted = s->mreq.budgeted;
	s->mreq.state =
		MREQ_SERVING; /* a post window serves control requests: not this one again */
	pthread_mutex_unlock(&s->mu);
	j = s->stopping ? NULL : manual(s, name, text, alert, 1, budgeted, &refused);
	pthread_mutex_lock(&s->mu);
	s->mreq.job = j;
	s->mreq.result = s->stopping && !j ? -ESHUTDOWN : refused;
	s->mreq.state = j ? MREQ_TAKEN : MREQ_ANSWERED;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

int sideband__snapshot_wait(struct sideband *s, const char *name, const char *text, char *path,
			    size_t pathlen)
{
	return sideband__snapshot_req(s, name, text, NULL, 0, path, pathlen);
}

int sideband__snapshot_req(struct sideband *s, const char *name, const char *text,
			   const char *alert, int budgeted, char *path, size_t pathlen)
{
	int r;

	pthread_mutex_lock(&s->mu);
	while (s->mreq.state != MREQ_IDLE && !s->thread_done)
		pthread_cond_wait(&s->cv, &s->mu);
	if (s->thread_done || __atomic_load_n(&s->stopping, __ATOMIC_ACQUIRE)) {
		pthread_mutex_unlock(&s->mu);
		return -ESHUTDOWN;
	}
	snprintf(s->mreq.name, sizeof(s->mreq.name), "%s", name);
	snprintf(s->mreq.text, sizeof(s->mreq.text), "%s", text);
	s->mreq.alert = alert;
	s->mreq.budgeted = budgeted;
	s->mreq.state = MREQ_POSTED;
	pthread_mutex_unlock(&s->mu);
	{
		uint64_t one = 1;

		__atomic_or_fetch(&s->req, REQ_CONTROL, __ATOMIC_ACQ_REL);
		if (write(s->evfd, &one, sizeof(one)) < 0)
			wlog("cannot wake the side-band thread: %s", strerror(errno));
	}
	pthread_mutex_lock(&s->mu);
	/* The side-band thread answers (or, stopping, fails the request) before it returns. */
	while (s->mreq.state == MREQ_POSTED || s->mreq.state == MREQ_SERVING)
		pthread_cond_wait(&s->cv, &s->mu);
	if (s->mreq.state == MREQ_TAKEN) {
		struct job *j = s->mreq.job;

		/* The writer drains every queued job, even when stopping. */
		while (!j->done)
			pthread_cond_wait(&s->cv, &s->mu);
		r = j->err ? j->err : 1;
		snprintf(path, pathlen, "%s", j->out.path);
		j->waited = 0;
		j->state = JOB_FREE;
	} else {
		r = s->mreq.result;
	}
	s->mreq.state = MREQ_IDLE;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return r;
}

void sideband__stats_line(struct sideband *s, char *reply, size_t len)
{
	uint64_t coalesced, gated, skipped;
	size_t o;

	/* Under mu: a reload swaps s->b under it. */
	pthread_mutex_lock(&s->mu);
	sum_counters(s, &coalesced, &gated, &skipped);
	/* Every counter is since the start; the generation says how many reloads. */
	o = snprintf(reply, len,
		     "snapshots %lu coalesced %llu gated %llu recursion_misses %llu "
		     "generation %u (counters since start)",
		     __atomic_load_n(&s->st.snapshots, __ATOMIC_RELAXED),
		     (unsigned long long)coalesced, (unsigned long long)gated,
		     (unsigned long long)skipped, s->generation);
	for (int i = 0; i < s->b->nr_trigs && o + 200 < len; i++) {
		struct trigrec_stats t;

		if (bpfctl__stats(s->b, i, &t))
			continue;
		o += snprintf(reply + o, len - o,
			      "; %s evaluated %llu matched %llu fired %llu coalesced %llu "
			      "cooldown %llu limit %llu budget %llu stale %llu str_faults %llu",
			      s->b->trigs[i].name, (unsigned long long)t.evaluated,
			      (unsigned long long)t.matched, (unsigned long long)t.fired,
			      (unsigned long long)t.coalesced,
			      (unsigned long long)t.suppressed_cooldown,
			      (unsigned long long)t.suppressed_limit,
			      (unsigned long long)t.suppressed_budget,
			      (unsigned long long)t.stale_starts, (unsigned long long)t.str_faults);
	}
	pthread_mutex_unlock(&s->mu);
	if (o < len)
		snprintf(reply + o, len - o, "\n");
}

void sideband__request_done(struct sideband *s)
{
	notify_done(s);
}

/* No job queued or being written: nothing refers to the old trigger table. */
static void wait_writer_idle(struct sideband *s)
{
	pthread_mutex_lock(&s->mu);
	for (;;) {
		int busy = 0;

		for (int i = 0; i < NR_JOBS; i++)
			busy |= s->jobs[i].state == JOB_QUEUED || s->jobs[i].state == JOB_WRITING;
		if (!busy)
			break;
		pthread_cond_wait(&s->cv, &s->mu);
	}
	pthread_mutex_unlock(&s->mu);
}

/*
 * Swap the BPF object (side-band thread). Triggers already posted are
 * harvested against the table they were posted with: consume, stop the old
 * object's firings (it keeps recording), consume what came meanwhile, let
 * the writer finish, and only then let the session load the new object and
 * hand recording over to it. A firing that got past the stop before the
 * hand-over is read last, still against the old table. The rings are never
 * touched and never unwatched: the recorded history survives, and records
 * go on through the reload.
 */
static void do_reload(struct sideband *s)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 0 };
	struct bpfctl *nb, *old = s->b;
	struct ring_buffer *rb;
	int err = 0, nr_old;
	char(*names)[64];
	uint64_t sup_old[TRIGREC_MAX_TRIGGERS][3];

	ring_buffer__consume(s->rb);
	bpfctl__block(old);
	ring_buffer__consume(s->rb);
	wait_writer_idle(s);
	/* A harvest just now may have re-armed it (bpfctl__thaw). */
	bpfctl__block(old);
	pthread_mutex_lock(&s->mu);
	/* The counters go on by trigger name (bpfctl carries them): so do the suppressions seen. */
	nr_old = s->b->nr_trigs < TRIGREC_MAX_TRIGGERS ? s->b->nr_trigs : TRIGREC_MAX_TRIGGERS;
	names = calloc(nr_old ? nr_old : 1, sizeof(*names));
	for (int i = 0; names && i < nr_old; i++)
		snprintf(names[i], sizeof(names[i]), "%s", s->b->trigs[i].name);
	memcpy(sup_old, s->sup_seen, sizeof(sup_old));
	nb = s->reload.fn(s->reload.ctx, old, &err);
	pthread_mutex_unlock(&s->mu);
	if (nb != old) {
		ring_buffer__consume(s->rb);
		wait_writer_idle(s);
		pthread_mutex_lock(&s->mu);
		rb = ring_buffer__new(bpfctl__sideband_fd(nb), on_msg, s, NULL);
		if (!rb) {
			err = -errno;
			elog("reload: cannot read the new side-band ring buffer: %s",
			     strerror(errno));
		} else {
			epoll_ctl(s->epfd, EPOLL_CTL_DEL, ring_buffer__epoll_fd(s->rb), NULL);
			ring_buffer__free(s->rb);
			s->rb = rb;
			if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, ring_buffer__epoll_fd(rb), &ev))
				elog("reload: cannot watch the side-band ring buffer: %s",
				     strerror(errno));
		}
		s->b = nb;
		s->generation = nb->opts.generation;
		memset(s->sup_seen, 0, sizeof(s->sup_seen));
		for (int i = 0; names && i < nb->nr_trigs && i < TRIGREC_MAX_TRIGGERS; i++)
			for (int j = 0; j < nr_old; j++)
				if (!strcmp(names[j], nb->trigs[i].name))
					memcpy(s->sup_seen[i], sup_old[j], sizeof(sup_old[j]));
		s->last_resume = 0;
		pthread_mutex_unlock(&s->mu);
		bpfctl__free(old);
	}
	free(names);
	pthread_mutex_lock(&s->mu);
	s->reload.err = err;
	s->reload.done = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

static void *thread_main(void *arg)
{
	struct sideband *s = arg;
	struct epoll_event ev[4];
	struct sched_param sp = { .sched_priority = 1 };
	int err;

	/*
	 * The freeze lasts from the trigger until this thread has copied the
	 * rings, and on busy CPUs a normal thread waits milliseconds to run.
	 * The lowest real-time priority makes the wake-up preempt ordinary work;
	 * the thread only ever sleeps, copies and hands off, so it cannot hog.
	 */
	err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (err)
		vlog("side-band thread stays SCHED_OTHER (%s): freezes may last longer on busy CPUs",
		     strerror(err));

	for (;;) {
		int n = epoll_wait(s->epfd, ev, 4, -1);
		unsigned int req;

		if (n < 0 && errno != EINTR) {
			elog("side-band wait failed: %s", strerror(errno));
			break;
		}
		for (int i = 0; i < n; i++) {
			if (ev[i].data.u32 == 0) {
				ring_buffer__consume(s->rb);
			} else {
				uint64_t v;

				if (read(s->evfd, &v, sizeof(v)) < 0 && errno != EAGAIN)
					wlog("side-band eventfd: %s", strerror(errno));
			}
		}
		req = __atomic_exchange_n(&s->req, 0, __ATOMIC_ACQ_REL);
		if (req & REQ_STOP)
			break;
		if ((req & REQ_SNAPSHOT) && !s->stopping)
			manual(s, "", "SIGUSR2", NULL, 0, 0, NULL);
		if (req & REQ_CONTROL)
			serve_mreq(s);
		if (req & REQ_RELOAD)
			do_reload(s);
	}
	/* Triggers already posted come first (a post window is cut short), then the final snapshot. */
	__atomic_store_n(&s->stopping, 1, __ATOMIC_RELEASE);
	serve_mreq(s);
	ring_buffer__consume(s->rb);
	if (__atomic_load_n(&s->o.final_snapshot, __ATOMIC_ACQUIRE)) {
		for (int tries = 0; tries < 100; tries++) {
			uint64_t at = mono_ns();

			int claimed = bpfctl__freeze_now(s->b, at);

			if (claimed) {
				take(s, NULL, at, at, "final", "end of recording", NULL, 0, 1,
				     claimed == 2);
				break;
			}
			ring_buffer__consume(s->rb);
			usleep(1000);
		}
	}
	stop_events(s); /* without a final snapshot: nothing more is wanted either */
	pthread_mutex_lock(&s->mu);
	s->thread_done = 1;
	s->writer_stop = 1; /* the writer finishes what is queued, then exits */
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

struct sideband *sideband__start(struct recorder *r, struct bpfctl *b, struct snapshot_ctx *sc,
				 const struct sideband_opts *o)
{
	struct sideband *s = calloc(1, sizeof(*s));
	struct epoll_event ev = { .events = EPOLLIN };
	sigset_t all, old;
	int err;

	if (!s)
		return NULL;
	s->r = r;
	s->b = b;
	s->sc = sc;
	s->o = *o;
	s->generation = b->opts.generation;
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	s->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	s->finished_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	s->rb = ring_buffer__new(bpfctl__sideband_fd(b), on_msg, s, NULL);
	if (s->epfd < 0 || s->evfd < 0 || s->finished_fd < 0 || !s->rb) {
		elog("cannot set up the side-band thread: %s", strerror(errno));
		goto fail;
	}
	ev.data.u32 = 0;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, ring_buffer__epoll_fd(s->rb), &ev))
		goto fail;
	ev.data.u32 = 1;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->evfd, &ev))
		goto fail;
	sum_counters(s, &s->coalesced_seen, &s->gated_seen, &s->skipped_seen);
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->sync_init = 1;
	for (int i = 0; i < NR_JOBS; i++) {
		s->jobs[i].h = harvest__new(r);
		if (!s->jobs[i].h) {
			elog("cannot allocate snapshot buffers (%d x the ring memory): %s", NR_JOBS,
			     strerror(errno));
			goto fail;
		}
	}
	/* Signals belong to the main thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&s->writer, NULL, writer_main, s);
	if (!err) {
		s->writer_started = 1;
		err = pthread_create(&s->thr, NULL, thread_main, s);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		elog("cannot start the side-band threads: %s", strerror(err));
		goto fail;
	}
	s->started = 1;
	return s;
fail:
	sideband__free(s);
	return NULL;
}

static void poke(struct sideband *s, unsigned int bit)
{
	uint64_t one = 1;

	__atomic_or_fetch(&s->req, bit, __ATOMIC_ACQ_REL);
	if (write(s->evfd, &one, sizeof(one)) < 0)
		wlog("cannot wake the side-band thread: %s", strerror(errno));
}

void sideband__request_snapshot(struct sideband *s)
{
	poke(s, REQ_SNAPSHOT);
}

int sideband__count_reached(struct sideband *s)
{
	return __atomic_load_n(&s->count_reached, __ATOMIC_ACQUIRE);
}

int sideband__reload(struct sideband *s, sideband_swap_fn fn, void *ctx)
{
	int err;

	pthread_mutex_lock(&s->mu);
	if (s->thread_done || __atomic_load_n(&s->stopping, __ATOMIC_ACQUIRE)) {
		pthread_mutex_unlock(&s->mu);
		return -ESHUTDOWN;
	}
	s->reload.fn = fn;
	s->reload.ctx = ctx;
	s->reload.done = 0;
	pthread_mutex_unlock(&s->mu);
	poke(s, REQ_RELOAD);
	pthread_mutex_lock(&s->mu);
	while (!s->reload.done && !s->thread_done)
		pthread_cond_wait(&s->cv, &s->mu);
	err = s->reload.done ? s->reload.err : -ESHUTDOWN;
	pthread_mutex_unlock(&s->mu);
	return err;
}

struct bpfctl *sideband__bpfctl(struct sideband *s)
{
	return s->b;
}

void sideband__no_final(struct sideband *s)
{
	__atomic_store_n(&s->o.final_snapshot, 0, __ATOMIC_RELEASE);
}

void sideband__request_stop(struct sideband *s)
{
	if (s && s->started)
		poke(s, REQ_STOP);
}

int sideband__finished_fd(struct sideband *s)
{
	return s->finished_fd;
}

void sideband__stop(struct sideband *s)
{
	if (!s)
		return;
	if (s->started) {
		poke(s, REQ_STOP);
		pthread_join(s->thr, NULL);
		s->started = 0;
	}
	if (s->writer_started) {
		/* Set by the side-band thread already, unless it never ran. */
		pthread_mutex_lock(&s->mu);
		s->writer_stop = 1;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->writer, NULL);
		s->writer_started = 0;
	}
}

void sideband__stats(struct sideband *s, struct sideband_stats *out)
{
	*out = s->st;
}

void sideband__free(struct sideband *s)
{
	if (!s)
		return;
	sideband__stop(s);
	for (int i = 0; i < NR_JOBS; i++)
		harvest__free(s->jobs[i].h);
	if (s->sync_init) {
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->cv);
	}
	ring_buffer__free(s->rb);
	if (s->epfd >= 0)
		close(s->epfd);
	if (s->evfd >= 0)
		close(s->evfd);
	if (s->finished_fd >= 0)
		close(s->finished_fd);
	free(s);
}
