// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `trigrec show`'s why section: where the triggering thread's time went over
 * the span a snapshot was taken for (a latency's two ends, or a window before
 * the trigger), from the scheduler's records. One pass over the records in
 * time order follows the thread's state (running on a CPU, runnable, blocked
 * S or D, unknown), then the runnable stretches are laid over the runs of
 * their CPU to say who ran instead. Nothing is guessed: time no record
 * accounts for is unknown, and what the snapshot cannot answer is a warning.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include "show/show.h"
#include "capture/tracefs.h"

enum {
	ST_UNK = WHY_ST_UNKNOWN,
	ST_RUN = WHY_ST_RUNNING,
	ST_RQ = WHY_ST_RUNNABLE,
	ST_S = WHY_ST_S,
	ST_D = WHY_ST_D,
	ST_OTH = WHY_ST_OTHER
};

const char *show_why_state(int st)
{
	static const char *const n[WHY_NR_ST] = { "unknown",   "running",   "runnable",
						  "blocked S", "blocked D", "other" };

	return st >= 0 && st < WHY_NR_ST ? n[st] : "?";
}

void show_why_free(struct show_why *w)
{
	free(w->segs);
	w->segs = NULL;
	w->nr_segs = w->cap_segs = 0;
}

/* [a, b) in state st: appended, or merged into the last stretch when it continues it. */
static void add_seg(struct show_why *w, uint64_t a, uint64_t b, int st, uint32_t cpu)
{
	struct why_seg *l = w->nr_segs ? &w->segs[w->nr_segs - 1] : NULL;

	if (l && l->b == a && l->st == st && l->cpu == cpu) {
		l->b = b;
		return;
	}
	if (w->nr_segs >= WHY_MAX_SEGS) {
		w->segs_cut = 1;
		return;
	}
	if (!w->segs || w->nr_segs >= w->cap_segs) {
		size_t nc = w->segs && w->cap_segs ? w->cap_segs * 2 : 64;
		struct why_seg *n = realloc(w->segs, nc * sizeof(*n));

		if (!n) {
			w->segs_cut = 1;
			return;
		}
		w->segs = n;
		w->cap_segs = nc;
	}
	w->segs[w->nr_segs++] = (struct why_seg){ a, b, st, cpu };
}

/* A stretch the thread waited runnable, on the CPU it then ran on (or was woken to). */
struct rq_span {
	uint64_t a, b;
	uint32_t cpu;
};

/* What the walk reads of each event, looked up once per attr rather than per record. */
enum { SK_NONE, SK_SWITCH, SK_WAKEUP, SK_WAKEUP_NEW, SK_WAKING };
struct sched_ev {
	int kind;
	const struct tp_field *prev_pid, *next_pid, *prev_state, *pid, *target_cpu;
};

struct why_walk {
	const struct show *s;
	const struct sched_ev *ev; /* per attr */
	struct show_why *w;
	uint64_t t0, t1; /* what the records can explain: [max(start, window), end] */
	uint64_t since;	 /* the current state's start */
	int st;
	uint32_t cpu; /* ST_RUN: where; ST_RQ: where it waits */
	uint64_t blocked_at;
	struct rq_span *rq;
	size_t nrq, caprq;
	int last_cpu; /* the CPU it last ran on, -1 */
	int blind;    /* show_scope_note(): switch-ins and others' wake-ups are not recorded */
};

static int ev_is(const struct show *s, int attr, const char *sys, const char *name)
{
	const struct tp_format *f = attr >= 0 ? s->pd->attrs[attr].fmt : NULL;

	return f && !strcmp(f->sys, sys) && !strcmp(f->name, name);
}

static int64_t field(const struct show *s, const struct show_rec *r, const char *name)
{
	int64_t v = -1;

	if (!show_raw(r) ||
	    pdr_field_int(s->pd->attrs[r->attr].fmt, show_raw(r), r->raw_size, name, &v))
		return -1;
	return v;
}

/* Field fl of record r, -1 when it has none (as field()). */
static int64_t fld(const struct show_rec *r, const struct tp_field *fl)
{
	int64_t v = -1;

	if (!show_raw(r) || pdr_fl_int(fl, show_raw(r), r->raw_size, &v))
		return -1;
	return v;
}

/* The scheduler events' kinds and fields, per attr. NULL: out of memory. */
static struct sched_ev *sched_evs(const struct show *s)
{
	struct sched_ev *ev = calloc((size_t)s->pd->nr_attrs + 1, sizeof(*ev));
	static const char *const names[] = { "", "sched_switch", "sched_wakeup", "sched_wakeup_new",
					     "sched_waking" };

	for (int i = 0; ev && i < s->pd->nr_attrs; i++) {
		const struct tp_format *f = s->pd->attrs[i].fmt;

		for (int n = SK_SWITCH; f && n <= SK_WAKING; n++)
			if (ev_is(s, i, "sched", names[n]))
				ev[i].kind = n;
		if (!ev[i].kind)
			continue;
		ev[i].prev_pid = tp_format__field(f, "prev_pid");
		ev[i].next_pid = tp_format__field(f, "next_pid");
		ev[i].prev_state = tp_format__field(f, "prev_state");
		ev[i].pid = tp_format__field(f, "pid");
		ev[i].target_cpu = tp_format__field(f, "target_cpu");
	}
	return ev;
}

static void add_cpu_time(struct show_why *w, uint32_t cpu, uint64_t ns)
{
	for (size_t i = 0; i < w->nr_cpus; i++) {
		if (w->cpus[i].cpu == cpu) {
			w->cpus[i].ns += ns;
			return;
		}
	}
	if (w->nr_cpus < WHY_CPUS)
		w->cpus[w->nr_cpus++] = (struct why_cpu){ cpu, ns };
	else
		w->cpus_other_ns += ns;
}

static int add_rq(struct why_walk *k, uint64_t a, uint64_t b, uint32_t cpu)
{
	if (a < k->t0)
		a = k->t0;
	if (b > k->t1)
		b = k->t1;
	if (b <= a)
		return 0;
	if (k->nrq == k->caprq) {
		size_t nc = k->caprq ? k->caprq * 2 : 64;
		struct rq_span *n = realloc(k->rq, nc * sizeof(*n));

		if (!n)
			return -ENOMEM;
		k->rq = n;
		k->caprq = nc;
	}
	k->rq[k->nrq++] = (struct rq_span){ a, b, cpu };
	return 0;
}

/* The state so far ends at t: its time inside [t0, t1] is counted. */
static void advance(struct why_walk *k, uint64_t t)
{
	uint64_t a = k->since > k->t0 ? k->since : k->t0, b = t < k->t1 ? t : k->t1;
	struct show_why *w = k->w;

	if (b > a) {
		uint64_t d = b - a;

		add_seg(w, a, b, k->st, k->st == ST_RUN || k->st == ST_RQ ? k->cpu : 0);
		switch (k->st) {
		case ST_RUN:
			w->running += d;
			add_cpu_time(w, k->cpu, d);
			break;
		case ST_RQ: w->runnable += d; break;
		case ST_S: w->sleep_s += d; break;
		case ST_D: w->sleep_d += d; break;
		case ST_OTH: w->other += d; break;
		default: w->unknown += d; break;
		}
	}
	k->since = t;
}

static void to_run(struct why_walk *k, uint64_t t, uint32_t cpu)
{
	advance(k, t);
	if (k->last_cpu >= 0 && (uint32_t)k->last_cpu != cpu && t >= k->t0 && t <= k->t1)
		k->w->migrations++;
	k->last_cpu = (int)cpu;
	k->st = ST_RUN;
	k->cpu = cpu;
}

/*
 * A record of the thread's own at t: it was running. Where the scope does
 * not record its switch-ins and others' wake-ups (blind), a blocked or
 * runnable stretch that only this record ends did not end here but at
 * some moment the records do not hold: its time is unknown, not blocked or
 * runnable, and no task is said to have run instead.
 */
static void own_record(struct why_walk *k, uint64_t t, uint32_t cpu)
{
	if (k->blind && k->st != ST_RUN)
		k->st = ST_UNK;
	to_run(k, t, cpu);
}

/* Who woke tid: one level back, what the waker itself was doing before it woke tid. */
static void waker_before(const struct why_walk *k, size_t idx, uint32_t waker, struct why_wake *wk)
{
	const struct show *s = k->s;

	/*
	 * Backwards: the wake-up that ended its last wait, then the switch-out
	 * that began it (preemptions skipped: it was runnable then, not waiting).
	 */
	for (size_t i = idx; i-- > 0;) {
		const struct show_rec *r = &s->recs[i];

		const struct sched_ev *e = r->attr >= 0 ? &k->ev[r->attr] : NULL;

		if (!e || e->kind == SK_NONE)
			continue;
		if (e->kind == SK_SWITCH && fld(r, e->prev_pid) == (int64_t)waker) {
			int64_t ps = fld(r, e->prev_state);

			if (ps < 0 || !(ps & 0xff))
				continue;
			wk->w_blocked_at = r->time;
			wk->w_state = ps & 1 ? 'S' : ps & 2 ? 'D' : '?';
			return;
		}
		if ((e->kind == SK_WAKEUP || e->kind == SK_WAKING) &&
		    fld(r, e->pid) == (int64_t)waker) {
			/* the earliest of sched_waking and sched_wakeup of that wake-up */
			wk->w_woken_at = r->time;
			wk->w_woken_by = r->tid;
			wk->w_woken_cpu = r->cpu;
			snprintf(wk->w_woken_comm, sizeof(wk->w_woken_comm), "%s",
				 r->tid ? r->comm : "<idle>");
		}
	}
	wk->w_woken_at = 0; /* no wait found: a wake-up alone says nothing */
}

static int why_walk(struct why_walk *k)
{
	const struct show *s = k->s;
	struct show_why *w = k->w;
	uint32_t tid = w->tid;

	for (size_t i = 0; i < s->nr; i++) {
		const struct show_rec *r = &s->recs[i];

		if (r->time > k->t1)
			break;
		const struct sched_ev *e = r->attr >= 0 ? &k->ev[r->attr] : NULL;

		if (e && e->kind == SK_SWITCH) {
			int64_t prev = fld(r, e->prev_pid), next = fld(r, e->next_pid);

			if (prev == (int64_t)tid) {
				int64_t ps = fld(r, e->prev_state);

				advance(k, r->time);
				k->last_cpu = (int)r->cpu;
				if (ps >= 0 && !(ps & 0xff)) {
					k->st = ST_RQ; /* preempted: runnable where it was */
					k->cpu = r->cpu;
				} else {
					k->st = ps < 0 ? ST_UNK :
						ps & 1 ? ST_S :
						ps & 2 ? ST_D :
							 ST_OTH;
					k->blocked_at = r->time;
				}
			} else if (next == (int64_t)tid) {
				if (k->st == ST_RQ && add_rq(k, k->since, r->time, r->cpu))
					return -ENOMEM;
				to_run(k, r->time, r->cpu);
			}
			continue;
		}
		if (e && e->kind != SK_NONE) {
			int64_t cpu;

			if (fld(r, e->pid) != (int64_t)tid) {
				if (r->tid == tid && k->st != ST_RUN)
					own_record(k, r->time,
						   r->cpu); /* it woke another: it runs */
				continue;
			}
			if (k->st == ST_RUN || k->st == ST_RQ)
				continue; /* sched_waking then sched_wakeup: the first counts */
			if ((k->st == ST_S || k->st == ST_D || k->st == ST_OTH) &&
			    r->time >= k->t0 && r->time <= k->t1) {
				struct why_wake *wk =
					w->nr_wakes < WHY_WAKES ? &w->wakes[w->nr_wakes] : NULL;

				w->total_wakes++;
				if (wk) {
					memset(wk, 0, sizeof(*wk));
					wk->blocked_at = k->blocked_at;
					wk->time = r->time;
					wk->state = k->st == ST_S ? 'S' : k->st == ST_D ? 'D' : '?';
					wk->cpu = r->cpu;
					wk->waker = r->tid;
					wk->waking = e->kind == SK_WAKING;
					snprintf(wk->comm, sizeof(wk->comm), "%s",
						 r->tid ? r->comm : "<idle>");
					if (r->tid)
						waker_before(k, i, r->tid, wk);
					w->nr_wakes++;
				}
			}
			advance(k, r->time);
			cpu = fld(r, e->target_cpu);
			k->st = ST_RQ;
			k->cpu = cpu >= 0 ? (uint32_t)cpu : r->cpu;
			continue;
		}
		/* Any other record of the thread's own: it was running, there and then. */
		if (r->tid == tid && k->st != ST_RUN)
			own_record(k, r->time, r->cpu);
	}
	/* still runnable at the span's end: who ran instead to there (since, before advance) */
	if (k->st == ST_RQ && add_rq(k, k->since, k->t1, k->cpu))
		return -ENOMEM;
	advance(k, k->t1);
	return 0;
}

static int inst_cmp(const void *a, const void *b)
{
	const struct why_task *x = a, *y = b;

	return x->ns != y->ns ? (x->ns < y->ns ? 1 : -1) : (x->tid > y->tid) - (x->tid < y->tid);
}

/* Who ran on the CPU of each runnable stretch: s->runs are in order of their ends. */
static int instead(struct why_walk *k)
{
	const struct show *s = k->s;
	struct why_task *t = NULL;
	size_t nt = 0, cap = 0;

	for (size_t q = 0; q < k->nrq; q++) {
		const struct rq_span *p = &k->rq[q];
		size_t lo = 0, hi = s->nr_runs;
		uint64_t covered = 0;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (s->runs[mid].end <= p->a)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t i = lo; i < s->nr_runs; i++) {
			const struct show_run *r = &s->runs[i];
			uint64_t a, b;
			size_t j;

			if (r->cpu != p->cpu)
				continue;
			a = r->start > p->a ? r->start : p->a;
			b = r->end < p->b ? r->end : p->b;
			if (b > a && r->tid != k->w->tid) {
				for (j = 0; j < nt && t[j].tid != r->tid; j++)
					;
				if (j == nt) {
					if (nt == cap) {
						size_t nc = cap ? cap * 2 : 16;
						struct why_task *n = realloc(t, nc * sizeof(*n));

						if (!n) {
							free(t);
							return -ENOMEM;
						}
						t = n;
						cap = nc;
					}
					t[nt] = (struct why_task){ r->tid, 0, "" };
					snprintf(t[nt].comm, sizeof(t[nt].comm), "%s", r->comm);
					nt++;
				}
				t[j].ns += b - a;
				covered += b - a;
			}
			if (r->end >= p->b)
				break; /* the run of this CPU that reaches past the stretch */
		}
		k->w->runnable_unexplained += p->b - p->a > covered ? p->b - p->a - covered : 0;
	}
	if (nt)
		qsort(t, nt, sizeof(*t), inst_cmp);
	for (size_t i = 0; i < nt && i < WHY_TOP; i++)
		k->w->instead[k->w->nr_instead++] = t[i];
	k->w->nr_instead_all = nt;
	free(t);
	return 0;
}

size_t show_why_ran_on(const struct show *s, uint32_t cpu, uint64_t a, uint64_t b, uint32_t skip,
		       struct why_task *top, size_t max, uint64_t *none)
{
	struct why_task t[64];
	size_t nt = 0, lo = 0, hi = s->nr_runs;
	uint64_t covered = 0;

	while (lo < hi) { /* the first run that ends after a: runs are in order of their ends */
		size_t mid = (lo + hi) / 2;

		if (s->runs[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < s->nr_runs; i++) {
		const struct show_run *r = &s->runs[i];
		uint64_t x, y;
		size_t j;

		if (r->cpu != cpu)
			continue;
		x = r->start > a ? r->start : a;
		y = r->end < b ? r->end : b;
		if (y > x && r->tid != skip) {
			covered += y - x;
			for (j = 0; j < nt && t[j].tid != r->tid; j++)
				;
			if (j == nt && nt < sizeof(t) / sizeof(t[0])) { /* past 64: not named */
				t[nt] = (struct why_task){ r->tid, 0, "" };
				snprintf(t[nt].comm, sizeof(t[nt].comm), "%s", r->comm);
				nt++;
			}
			if (j < nt)
				t[j].ns += y - x;
		}
		if (r->end >= b)
			break;
	}
	if (nt)
		qsort(t, nt, sizeof(*t), inst_cmp);
	for (size_t i = 0; i < nt && i < max; i++)
		top[i] = t[i];
	if (none)
		*none = b - a > covered ? b - a - covered : 0;
	return nt;
}

/* ---- system calls, irqs and softirqs in the span ---- */

/* The build's system calls by name (generated from <sys/syscall.h>): for raw_syscalls' ids. */
static const struct {
	const char *name;
	int nr;
} sys_nrs[] = {
#include "syscall_names.h"
};
#if defined(__x86_64__)
#define BUILD_ARCH "x86_64"
#elif defined(__aarch64__)
#define BUILD_ARCH "aarch64"
#else
#define BUILD_ARCH "-"
#endif

static const char *const softirq_names[] = { "HI",	 "TIMER",   "NET_TX", "NET_RX",	 "BLOCK",
					     "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU" };

enum {
	EK_NONE,
	EK_RAW_IN,
	EK_RAW_OUT,
	EK_SC_IN,
	EK_SC_OUT,
	EK_IRQ_IN,
	EK_IRQ_OUT,
	EK_SI_IN,
	EK_SI_OUT
};

struct ins_acc {
	struct why_in *v;
	size_t n, cap;
};

static int ins_add(struct ins_acc *a, struct why_ins *tot, int64_t nr, const char *name,
		   uint64_t ns, uint64_t cpu_ns)
{
	size_t j;

	for (j = 0; j < a->n && a->v[j].nr != nr; j++)
		;
	if (j == a->n) {
		if (a->n == a->cap) {
			size_t nc = a->cap ? a->cap * 2 : 16;
			struct why_in *n = realloc(a->v, nc * sizeof(*n));

			if (!n)
				return -ENOMEM;
			a->v = n;
			a->cap = nc;
		}
		a->v[j] = (struct why_in){ .nr = nr };
		snprintf(a->v[j].name, sizeof(a->v[j].name), "%s", name);
		pdr_clean_text(a->v[j].name); /* an irq handler's name is the file's text */
		a->n++;
	}
	a->v[j].count++;
	a->v[j].ns += ns;
	a->v[j].cpu_ns += cpu_ns;
	tot->count++;
	tot->ns += ns;
	tot->cpu_ns += cpu_ns;
	return 0;
}

static int in_cmp(const void *a, const void *b)
{
	const struct why_in *x = a, *y = b;

	return x->ns != y->ns ? (x->ns < y->ns ? 1 : -1) : (x->nr > y->nr) - (x->nr < y->nr);
}

static void ins_top(struct ins_acc *a, struct why_ins *tot)
{
	if (a->n)
		qsort(a->v, a->n, sizeof(*a->v), in_cmp);
	for (size_t i = 0; i < a->n && i < WHY_TOP; i++)
		tot->top[tot->nr_top++] = a->v[i];
	tot->nr_all = a->n;
	free(a->v);
}

/* The running time of the thread inside [a, b), from its stretches (in time order). */
static uint64_t running_in(const struct show_why *w, uint64_t a, uint64_t b)
{
	size_t lo = 0, hi = w->nr_segs;
	uint64_t ns = 0;

	while (lo < hi) {
		size_t m = (lo + hi) / 2;

		if (w->segs[m].b <= a)
			lo = m + 1;
		else
			hi = m;
	}
	for (size_t i = lo; i < w->nr_segs && w->segs[i].a < b; i++) {
		uint64_t x = w->segs[i].a > a ? w->segs[i].a : a,
			 y = w->segs[i].b < b ? w->segs[i].b : b;

		if (w->segs[i].st == ST_RUN && y > x)
			ns += y - x;
	}
	return ns;
}

static const char *sys_name(const struct show *s, int64_t nr, char *buf, size_t len)
{
	if (!strcmp(s->pd->arch, BUILD_ARCH))
		for (size_t i = 0; i < sizeof(sys_nrs) / sizeof(sys_nrs[0]); i++)
			if (sys_nrs[i].nr == nr)
				return sys_nrs[i].name;
	snprintf(buf, len, "syscall %" PRId64, nr);
	return buf;
}

/* The kind of each event (EK_*); raw_syscalls win over syscalls:* when both are recorded. */
static int *ins_kinds(const struct show *s, struct show_why *w)
{
	int *kind = calloc((size_t)s->pd->nr_attrs + 1, sizeof(*kind));
	int raw = 0;

	if (!kind)
		return NULL;
	for (int i = 0; i < s->pd->nr_attrs; i++) {
		const struct tp_format *f = s->pd->attrs[i].fmt;

		if (!f)
			continue;
		if (!strcmp(f->sys, "raw_syscalls"))
			kind[i] = !strcmp(f->name, "sys_enter") ? EK_RAW_IN :
				  !strcmp(f->name, "sys_exit")	? EK_RAW_OUT :
								  EK_NONE;
		else if (!strcmp(f->sys, "syscalls"))
			kind[i] = !strncmp(f->name, "sys_enter_", 10) ? EK_SC_IN :
				  !strncmp(f->name, "sys_exit_", 9)   ? EK_SC_OUT :
									EK_NONE;
		else if (!strcmp(f->sys, "irq"))
			kind[i] = !strcmp(f->name, "irq_handler_entry") ? EK_IRQ_IN :
				  !strcmp(f->name, "irq_handler_exit")	? EK_IRQ_OUT :
				  !strcmp(f->name, "softirq_entry")	? EK_SI_IN :
				  !strcmp(f->name, "softirq_exit")	? EK_SI_OUT :
									  EK_NONE;
		raw |= kind[i] == EK_RAW_IN || kind[i] == EK_RAW_OUT;
	}
	for (int i = 0; i < s->pd->nr_attrs; i++) {
		if (raw && (kind[i] == EK_SC_IN || kind[i] == EK_SC_OUT))
			kind[i] = EK_NONE;
		w->sys.has |= kind[i] == EK_RAW_OUT || kind[i] == EK_SC_OUT;
		w->irq.has |= kind[i] == EK_IRQ_IN;
		w->softirq.has |= kind[i] == EK_SI_IN;
	}
	return kind;
}

/* An open system call, irq or softirq of the thread: since when, which, where. */
struct ins_open {
	int open;
	uint64_t t;
	int64_t nr;
	uint32_t cpu;
	char name[32];
};

/*
 * Second pass, after the walk (its running stretches are known): the
 * thread's system calls (entry to exit, cut to the span; a call already in
 * progress at the records' start counts from there), and the irqs and
 * softirqs whose entry record ran in its context, each closed by the exit
 * record on the same CPU.
 */
static int why_ins_pass(struct why_walk *k)
{
	const struct show *s = k->s;
	struct show_why *w = k->w;
	struct ins_acc asys = { 0 }, airq = { 0 }, asi = { 0 };
	struct ins_open sc = { 0 }, iq = { 0 }, si = { 0 };
	int *kind = ins_kinds(s, w), seen_enter = 0, err = 0;
	char nb[32];

	if (!kind)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr && !err; i++) {
		const struct show_rec *r = &s->recs[i];
		int ek = r->attr >= 0 ? kind[r->attr] : EK_NONE;
		uint64_t a, b;

		if (ek == EK_NONE)
			continue;
		if (r->time > k->t1)
			break;
		if (ek == EK_RAW_IN || ek == EK_SC_IN) {
			if (r->tid != w->tid)
				continue;
			sc = (struct ins_open){
				1, r->time, field(s, r, ek == EK_RAW_IN ? "id" : "__syscall_nr"),
				r->cpu, ""
			};
			if (ek == EK_SC_IN)
				snprintf(sc.name, sizeof(sc.name), "%s",
					 s->pd->attrs[r->attr].fmt->name + 10);
			seen_enter = 1;
		} else if (ek == EK_RAW_OUT || ek == EK_SC_OUT) {
			int64_t nr = field(s, r, ek == EK_RAW_OUT ? "id" : "__syscall_nr");

			if (r->tid != w->tid)
				continue;
			if (sc.open && sc.nr == nr)
				a = sc.t;
			else if (!seen_enter)
				a = k->t0; /* entered before the records */
			else
				a = r->time; /* its entry was not recorded: not counted */
			if (!sc.open || sc.nr != nr) {
				if (ek == EK_SC_OUT)
					snprintf(sc.name, sizeof(sc.name), "%s",
						 s->pd->attrs[r->attr].fmt->name + 9);
				else
					sc.name[0] = 0;
			}
			sc.open = 0;
			seen_enter = 1;
			a = a > k->t0 ? a : k->t0;
			b = r->time;
			if (b > a || (b == a && b >= k->t0))
				err = ins_add(&asys, &w->sys, nr,
					      sc.name[0] ? sc.name :
							   sys_name(s, nr, nb, sizeof(nb)),
					      b - a, running_in(w, a, b));
		} else if (ek == EK_IRQ_IN || ek == EK_SI_IN) {
			struct ins_open *o = ek == EK_IRQ_IN ? &iq : &si;

			if (r->tid != w->tid) {
				if (o->open && o->cpu == r->cpu)
					o->open =
						0; /* another context on that CPU: ours ended unseen */
				continue;
			}
			*o = (struct ins_open){ 1, r->time,
						field(s, r, ek == EK_IRQ_IN ? "irq" : "vec"),
						r->cpu, "" };
			if (ek == EK_IRQ_IN) {
				const struct tp_field *fl =
					tp_format__field(s->pd->attrs[r->attr].fmt, "name");

				if (fl && show_raw(r))
					pdr_field_str(fl, show_raw(r), r->raw_size, o->name,
						      sizeof(o->name));
			} else if (o->nr >= 0 && o->nr < 10) {
				snprintf(o->name, sizeof(o->name), "%s", softirq_names[o->nr]);
			}
		} else {
			struct ins_open *o = ek == EK_IRQ_OUT ? &iq : &si;

			if (!o->open || o->cpu != r->cpu)
				continue;
			o->open = 0;
			a = o->t > k->t0 ? o->t : k->t0;
			b = r->time;
			if (b >= a && b >= k->t0)
				err = ins_add(ek == EK_IRQ_OUT ? &airq : &asi,
					      ek == EK_IRQ_OUT ? &w->irq : &w->softirq, o->nr,
					      o->name, b - a, b - a);
		}
	}
	/* still in a system call at the span's end */
	if (!err && sc.open && k->t1 > sc.t)
		err = ins_add(&asys, &w->sys, sc.nr,
			      sc.name[0] ? sc.name : sys_name(s, sc.nr, nb, sizeof(nb)),
			      k->t1 - (sc.t > k->t0 ? sc.t : k->t0),
			      running_in(w, sc.t > k->t0 ? sc.t : k->t0, k->t1));
	ins_top(&asys, &w->sys);
	ins_top(&airq, &w->irq);
	ins_top(&asi, &w->softirq);
	free(kind);
	return err;
}

/* ---- a rate trigger's contributors ---- */

struct rk {
	char key[64];
	uint32_t tid;
	char comm[16];
};

static int rk_key_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rk *)a)->key, ((const struct rk *)b)->key);
}

static int rk_tid_cmp(const void *a, const void *b)
{
	const struct rk *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int wk_cmp(const void *a, const void *b)
{
	const struct why_key *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->tid != y->tid ? (x->tid > y->tid) - (x->tid < y->tid) : strcmp(x->key, y->key);
}

/* Runs of equal keys (tids) of sorted v into the top WHY_TOP of out; the number of runs. */
static size_t rk_count(struct rk *v, size_t n, int by_tid, struct why_key *out, size_t *nout)
{
	struct why_key top[WHY_TOP + 1];
	size_t nt = 0, runs = 0;

	qsort(v, n, sizeof(*v), by_tid ? rk_tid_cmp : rk_key_cmp);
	for (size_t i = 0, j; i < n; i = j) {
		struct why_key k = { .tid = v[i].tid };

		for (j = i; j < n && (by_tid ? v[j].tid == v[i].tid : !strcmp(v[j].key, v[i].key));
		     j++)
			;
		runs++;
		k.count = (unsigned)(j - i);
		if (!by_tid)
			snprintf(k.key, sizeof(k.key), "%s", v[i].key);
		snprintf(k.comm, sizeof(k.comm), "%s", v[j - 1].comm); /* its latest name */
		/* keep the top WHY_TOP: insert, sort, drop the last */
		top[nt++] = k;
		qsort(top, nt, sizeof(top[0]), wk_cmp);
		if (nt > WHY_TOP)
			nt = WHY_TOP;
	}
	memcpy(out, top, nt * sizeof(top[0]));
	*nout = nt;
	return runs;
}

/* The value of the rate's key in record r as text: tid, pid, comm, cpu or a field (str(F) too). */
static int rate_key_of(const struct show *s, const struct show_rec *r, const char *key, char *buf,
		       size_t len)
{
	char f[64];
	size_t n = strlen(key);
	const struct tp_field *fl;

	if (!strcmp(key, "tid") || !strcmp(key, "pid") || !strcmp(key, "cpu")) {
		snprintf(buf, len, "%u", key[0] == 't' ? r->tid : key[0] == 'p' ? r->pid : r->cpu);
		return 0;
	}
	if (!strcmp(key, "comm")) {
		snprintf(buf, len, "%s", r->comm);
		return 0;
	}
	if (n > 5 && !strncmp(key, "str(", 4) && key[n - 1] == ')' && n - 5 < sizeof(f)) {
		memcpy(f, key + 4, n - 5);
		f[n - 5] = 0;
	} else if (n < sizeof(f)) {
		memcpy(f, key, n + 1);
	} else {
		return -1;
	}
	fl = s->pd->attrs[r->attr].fmt ? tp_format__field(s->pd->attrs[r->attr].fmt, f) : NULL;
	if (!fl || !show_raw(r))
		return -1;
	pdr_field_str(fl, show_raw(r), r->raw_size, buf, len);
	pdr_clean_text(buf);
	return 0;
}

static int why_rate(const struct show *s, struct why_rate *rt)
{
	uint64_t ws = jv_u64(s->sc, "trigger.rate.window_start_ns", 0);
	struct rk *v = NULL, *vt = NULL;
	size_t n = 0, cap = 0;
	int *is_ev, any = 0;

	snprintf(rt->event, sizeof(rt->event), "%s", jv_str(s->sc, "trigger.event", ""));
	snprintf(rt->key, sizeof(rt->key), "%s", jv_str(s->sc, "trigger.rate.key", ""));
	pdr_clean_text(rt->event);
	pdr_clean_text(rt->key);
	rt->window_ns = jv_u64(s->sc, "trigger.rate.window_ns", 0);
	rt->end = s->trig_time;
	rt->start = ws && ws <= rt->end	    ? ws :
		    rt->end > rt->window_ns ? rt->end - rt->window_ns :
					      0;
	is_ev = calloc((size_t)s->pd->nr_attrs + 1, sizeof(*is_ev));
	if (!is_ev)
		return -ENOMEM;
	for (int i = 0; i < s->pd->nr_attrs; i++)
		any |= is_ev[i] = rt->event[0] && !strcmp(s->pd->attrs[i].name, rt->event);
	if (!any) {
		snprintf(rt->note, sizeof(rt->note),
			 "the trigger's event %s is not recorded in this snapshot: its "
			 "contributors cannot be told (record it with -e %s)",
			 rt->event[0] ? rt->event : "?", rt->event[0] ? rt->event : "EVENT");
		free(is_ev);
		return 0;
	}
	rt->done = 1;
	rt->by_key = 1;
	rt->before_end = rt->start > s->win_start ? rt->start : s->win_start;
	rt->before_start = rt->start > rt->window_ns ? rt->start - rt->window_ns : 0;
	if (rt->before_start < s->win_start)
		rt->before_start = s->win_start;
	if (rt->before_start > rt->before_end)
		rt->before_start = rt->before_end;
	for (size_t i = 0; i < s->nr; i++) {
		const struct show_rec *r = &s->recs[i];

		if (r->time > rt->end)
			break;
		if (r->attr < 0 || !is_ev[r->attr])
			continue;
		if (r->time >= rt->before_start && r->time < rt->before_end)
			rt->before++;
		if (r->time < rt->start)
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 256;
			struct rk *nv = realloc(v, nc * sizeof(*nv));

			if (!nv) {
				free(v);
				free(is_ev);
				return -ENOMEM;
			}
			v = nv;
			cap = nc;
		}
		v[n] = (struct rk){ .tid = r->tid };
		snprintf(v[n].comm, sizeof(v[n].comm), "%s", r->tid ? r->comm : "<idle>");
		if (!rt->key[0] || rate_key_of(s, r, rt->key, v[n].key, sizeof(v[n].key)))
			rt->by_key = 0;
		n++;
	}
	free(is_ev);
	rt->records = (unsigned)n;
	if (!rt->key[0])
		snprintf(rt->note, sizeof(rt->note), "the trigger has no key (by): one count");
	else if (!rt->by_key)
		snprintf(rt->note, sizeof(rt->note),
			 "the key %s is not one value of the records (tid, pid, comm, cpu or one "
			 "field): by task only",
			 rt->key);
	else if (s->win_start > rt->start)
		snprintf(rt->note, sizeof(rt->note),
			 "the window starts after the rate window opened: the records hold only "
			 "part of the count");
	if (n) {
		vt = malloc(n * sizeof(*vt));
		if (!vt) {
			free(v);
			return -ENOMEM;
		}
		memcpy(vt, v, n * sizeof(*vt));
		if (rt->by_key)
			rt->nr_keys_all = rk_count(v, n, 0, rt->keys, &rt->nr_keys);
		rt->nr_tasks_all = rk_count(vt, n, 1, rt->tasks, &rt->nr_tasks);
	}
	free(v);
	free(vt);
	return 0;
}

static void warn(struct show_why *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct show_why *w, const char *fmt, ...)
{
	va_list ap;

	if (w->nr_warn >= WHY_WARNS)
		return;
	va_start(ap, fmt);
	vsnprintf(w->warn[w->nr_warn++], sizeof(w->warn[0]), fmt, ap);
	va_end(ap);
}

static int has_event(const struct show *s, const char *sys, const char *name)
{
	for (int i = 0; i < s->pd->nr_attrs; i++)
		if (ev_is(s, i, sys, name))
			return 1;
	return 0;
}

int show_why(const struct show *s, uint64_t span_ns, struct show_why *w)
{
	struct why_walk k = { .s = s, .w = w, .last_cpu = -1 };
	char a[48], b[48];
	int err;

	memset(w, 0, sizeof(*w));
	if (s->has_trigger && jv_get(s->sc, "trigger.rate")) {
		err = why_rate(s, &w->rate);
		if (err)
			return err;
	}
	if (!s->has_trigger || !s->trig_tid) {
		snprintf(w->reason, sizeof(w->reason),
			 "no triggering thread (a snapshot taken on demand or at the end of the "
			 "run): nothing to explain");
		return 0;
	}
	w->tid = s->trig_tid;
	w->pid = s->trig_pid;
	snprintf(w->comm, sizeof(w->comm), "%s", jv_str(s->sc, "trigger.comm", ""));
	if (jv_get(s->sc, "trigger.latency")) {
		w->basis = "latency";
		w->start = jv_u64(s->sc, "trigger.latency.start.time_ns", 0);
		w->end = jv_u64(s->sc, "trigger.latency.end.time_ns", s->trig_time);
		if (jv_u64(s->sc, "trigger.latency.start.tid", w->tid) != w->tid)
			warn(w,
			     "the latency started in tid %" PRIu64 " and ended in tid %u (key %s): "
			     "the breakdown follows the ending thread; key the trigger by tid to "
			     "follow one thread",
			     jv_u64(s->sc, "trigger.latency.start.tid", 0), w->tid,
			     jv_str(s->sc, "trigger.latency.end.key", "?"));
	} else {
		w->basis = span_ns ? "span" : "default span";
		w->end = s->trig_time;
		if (!span_ns)
			span_ns = WHY_DEFAULT_SPAN;
		w->start = w->end > span_ns ? w->end - span_ns : 0;
	}
	if (w->end < w->start)
		w->end = w->start;
	if (!has_event(s, "sched", "sched_switch")) {
		snprintf(
			w->reason, sizeof(w->reason),
			"no sched:sched_switch in this snapshot: running, runnable and blocked time "
			"cannot be told. Record sched:sched_switch and sched:sched_wakeup (the "
			"default set has both; with -e add -e sched:sched_switch,sched:sched_wakeup"
			",sched:sched_waking)");
		return 0;
	}
	w->done = 1;
	if (show_scope_note(s)) {
		k.blind = 1;
		warn(w, "%s", show_scope_note(s));
	}
	k.t0 = w->start > s->win_start ? w->start : s->win_start;
	k.t1 = w->end;
	if (k.t0 > k.t1)
		k.t0 = k.t1;
	k.since = 0;
	w->from = k.t0;
	if (s->win_start > w->start) {
		char c[48], d[48];

		w->cut_short = 1;
		warn(w,
		     "the window starts %s after the %s's start (window from %s, %s from %s): "
		     "the records explain only its last %s; a bigger ring (-m), fewer events "
		     "(-e) or, when another CPU's ring wrapped first, --no-align reach further "
		     "back",
		     show_fmt_dur(s->win_start - w->start, a, sizeof(a)), w->basis,
		     show_fmt_time(s->win_start, b, sizeof(b)), w->basis,
		     show_fmt_time(w->start, c, sizeof(c)),
		     show_fmt_dur(k.t1 - k.t0, d, sizeof(d)));
	}
	if (s->win_start > w->start && jv_bool(s->sc, "window.aligned", 0)) {
		/* aligned: the newest oldest record of a wrapped ring set every CPU's start */
		const struct jv *cpus = jv_get(s->sc, "cpus");
		int64_t cpu = -1;
		uint64_t old = 0;

		for (int i = 0; cpus && cpus->type == JV_ARR && i < cpus->n; i++) {
			const struct jv *c = &cpus->kids[i];
			uint64_t o = jv_u64(c, "oldest_ns", 0);

			if (jv_bool(c, "wrapped", 0) && o >= old &&
			    strcmp(jv_str(c, "ring", ""), "tracking")) {
				old = o;
				cpu = jv_i64(c, "cpu", -1);
			}
		}
		if (cpu >= 0 && old >= s->win_start)
			warn(w,
			     "CPU %" PRId64 "'s ring wrapped first (its oldest record at %s) and "
			     "aligned every CPU's window to it: --no-align keeps the other CPUs' "
			     "older records, a bigger -m keeps more of CPU %" PRId64 "'s",
			     cpu, show_fmt_time(old, a, sizeof(a)), cpu);
	}
	if (!has_event(s, "sched", "sched_wakeup") && !has_event(s, "sched", "sched_waking"))
		warn(w, "no sched:sched_wakeup or sched:sched_waking recorded: who woke the thread "
			"cannot be told (add -e sched:sched_wakeup)");
	/* before the window no record says anything: unknown */
	w->unknown = k.t0 - w->start;
	if (k.t0 > w->start)
		add_seg(w, w->start, k.t0, ST_UNK, 0);
	k.ev = sched_evs(s);
	err = k.ev ? why_walk(&k) : -ENOMEM;
	if (!err)
		err = instead(&k);
	if (!err)
		err = why_ins_pass(&k);
	free(k.rq);
	free((void *)k.ev);
	if (err)
		return err;
	if (w->end > w->start && w->unknown * 10 > w->end - w->start)
		warn(w,
		     "%s of the span (%.1f%%) no record explains: the thread's state there is "
		     "unknown%s",
		     show_fmt_dur(w->unknown, a, sizeof(a)),
		     100.0 * w->unknown / (w->end - w->start),
		     s->win_start > w->start ? " (before the window)" : "");
	return 0;
}

static void line(FILE *out, const char *name, uint64_t ns, uint64_t span, const char *tail)
{
	char a[48];

	fprintf(out, "  %-10s %12s %6.1f%%%s%s\n", name, show_fmt_dur(ns, a, sizeof(a)),
		span ? 100.0 * ns / span : 0.0, tail && *tail ? "  " : "", tail ? tail : "");
}

/* System calls (share of the span) or irqs, softirqs (share of the running time). */
static void print_ins(FILE *out, const char *name, const struct why_ins *v, uint64_t base,
		      const struct show_why *w)
{
	char a[48], b[48], tail[160];
	int sys = v == &w->sys;

	if (!v->has)
		return;
	if (sys)
		snprintf(tail, sizeof(tail), "%u call%s, %s of it running%s", v->count,
			 v->count == 1 ? "" : "s", show_fmt_dur(v->cpu_ns, a, sizeof(a)),
			 v->nr_top ? "; by time:" : "");
	else
		snprintf(tail, sizeof(tail), "of the running time, %u %s%s", v->count,
			 v == &w->irq ? "irq handler run(s)" : "softirq run(s)",
			 v->nr_top ? "; by time:" : "");
	line(out, name, v->ns, base, tail);
	for (size_t i = 0; i < v->nr_top; i++) {
		const struct why_in *t = &v->top[i];

		if (sys)
			fprintf(out, "  %23s %s x%u (running %s)\n",
				show_fmt_dur(t->ns, a, sizeof(a)), t->name, t->count,
				show_fmt_dur(t->cpu_ns, b, sizeof(b)));
		else if (v == &w->irq)
			fprintf(out, "  %23s irq %" PRId64 " %s x%u\n",
				show_fmt_dur(t->ns, a, sizeof(a)), t->nr, t->name, t->count);
		else
			fprintf(out, "  %23s %s x%u\n", show_fmt_dur(t->ns, a, sizeof(a)), t->name,
				t->count);
	}
	if (v->nr_all > v->nr_top)
		fprintf(out, "  %23s (%zu more)\n", "", v->nr_all - v->nr_top);
}

static void print_rate(const struct why_rate *rt, FILE *out)
{
	char a[48], b[48], c[48];

	if (!rt->done) {
		if (rt->note[0])
			fprintf(out, "  rate     %s\n", rt->note);
		return;
	}
	fprintf(out, "  rate     %u records of %s in the rate window %s .. %s (%s)\n", rt->records,
		rt->event, show_fmt_time(rt->start, a, sizeof(a)),
		show_fmt_time(rt->end, b, sizeof(b)),
		show_fmt_dur(rt->end - rt->start, c, sizeof(c)));
	if (rt->by_key && rt->nr_keys) {
		fprintf(out, "           by key %s (%zu value%s):\n", rt->key, rt->nr_keys_all,
			rt->nr_keys_all == 1 ? "" : "s");
		for (size_t i = 0; i < rt->nr_keys; i++)
			fprintf(out, "  %14u  %s\n", rt->keys[i].count, rt->keys[i].key);
	}
	if (rt->nr_tasks) {
		fprintf(out, "           by task (%zu):\n", rt->nr_tasks_all);
		for (size_t i = 0; i < rt->nr_tasks; i++)
			fprintf(out, "  %14u  %s tid %u\n", rt->tasks[i].count, rt->tasks[i].comm,
				rt->tasks[i].tid);
	}
	if (rt->before_end > rt->before_start)
		fprintf(out, "           before it: %u in the %s from %s\n", rt->before,
			show_fmt_dur(rt->before_end - rt->before_start, a, sizeof(a)),
			show_fmt_time(rt->before_start, b, sizeof(b)));
	else
		fprintf(out,
			"           before it: not in the records (the window starts at the rate "
			"window's opening or later)\n");
	if (rt->note[0])
		fprintf(out, "           note: %s\n", rt->note);
}

void show_why_print(const struct show_why *w, FILE *out)
{
	uint64_t span = w->end - w->start;
	char a[48], b[48], c[48], tail[512];
	size_t n;

	fprintf(out, "why:\n");
	print_rate(&w->rate, out);
	if (!w->done) {
		fprintf(out, "  %s\n", w->reason);
		return;
	}
	fprintf(out, "  thread  %s pid %u tid %u, over the %s %s .. %s (%s)\n", w->comm, w->pid,
		w->tid, w->basis, show_fmt_time(w->start, a, sizeof(a)),
		show_fmt_time(w->end, b, sizeof(b)), show_fmt_dur(span, c, sizeof(c)));
	n = 0;
	tail[0] = 0;
	for (size_t i = 0; i < w->nr_cpus; i++)
		n += snprintf(tail + n, n < sizeof(tail) ? sizeof(tail) - n : 0, "%sCPU %u %s",
			      i ? ", " : "on ", w->cpus[i].cpu,
			      show_fmt_dur(w->cpus[i].ns, a, sizeof(a)));
	line(out, "running", w->running, span, tail);
	line(out, "runnable", w->runnable, span, w->nr_instead ? "ran instead:" : "");
	for (size_t i = 0; i < w->nr_instead; i++)
		fprintf(out, "  %23s %s tid %u\n", show_fmt_dur(w->instead[i].ns, a, sizeof(a)),
			w->instead[i].comm, w->instead[i].tid);
	if (w->runnable_unexplained)
		fprintf(out, "  %23s no recorded task (idle, or not recorded)\n",
			show_fmt_dur(w->runnable_unexplained, a, sizeof(a)));
	line(out, "blocked S", w->sleep_s, span, "(interruptible)");
	line(out, "blocked D", w->sleep_d, span, "(uninterruptible)");
	if (w->other)
		line(out, "other", w->other, span, "(stopped, traced, dead or idle)");
	line(out, "unknown", w->unknown, span, "(no record says)");
	fprintf(out, "  coverage %.1f%% of the span explained by the records",
		span ? 100.0 * (span - w->unknown) / span : 100.0);
	if (w->migrations)
		fprintf(out, "; %u migration%s", w->migrations, w->migrations == 1 ? "" : "s");
	fputc('\n', out);
	/* not parts of the span: where recorded, what its time held */
	print_ins(out, "syscalls", &w->sys, span, w);
	print_ins(out, "in irq", &w->irq, w->running, w);
	print_ins(out, "in softirq", &w->softirq, w->running, w);
	for (size_t i = 0; i < w->nr_wakes; i++) {
		const struct why_wake *k = &w->wakes[i];

		fprintf(out,
			"  woken   at %s after %s blocked (%c), in the context of %s tid %u on CPU "
			"%u%s\n",
			show_fmt_time(k->time, a, sizeof(a)),
			k->blocked_at ? show_fmt_dur(k->time - k->blocked_at, b, sizeof(b)) : "?",
			k->state, k->comm, k->waker, k->cpu,
			k->waker ? "" :
				   " (from idle or an interrupt there: record sched:sched_waking "
				   "to name the waker)");
		if (k->w_blocked_at && k->w_woken_at)
			fprintf(out,
				"          %s itself was blocked (%c) from %s until woken at %s in "
				"the context of %s tid %u on CPU %u\n",
				k->comm, k->w_state, show_fmt_time(k->w_blocked_at, a, sizeof(a)),
				show_fmt_time(k->w_woken_at, b, sizeof(b)), k->w_woken_comm,
				k->w_woken_by, k->w_woken_cpu);
		else if (k->w_blocked_at)
			fprintf(out,
				"          %s itself was blocked (%c) from %s; its wake-up is not in "
				"the records\n",
				k->comm, k->w_state, show_fmt_time(k->w_blocked_at, a, sizeof(a)));
		else if (k->waker)
			fprintf(out,
				"          (no earlier wait of %s in the records: the chain leaves the "
				"snapshot here)\n",
				k->comm);
	}
	if (w->total_wakes > w->nr_wakes)
		fprintf(out, "  (%u more wake-ups)\n", w->total_wakes - (unsigned)w->nr_wakes);
	for (int i = 0; i < w->nr_warn; i++)
		fprintf(out, "  warning: %s\n", w->warn[i]);
}

/* "syscalls", "irq", "softirq": only when the snapshot has the events. */
static void json_ins(FILE *out, const char *key, const char *nrkey, const struct why_ins *v,
		     int sys)
{
	if (!v->has)
		return;
	fprintf(out, ",\"%s\":{\"ns\":%" PRIu64 ",\"count\":%u", key, v->ns, v->count);
	if (sys)
		fprintf(out, ",\"running_ns\":%" PRIu64, v->cpu_ns);
	fprintf(out, ",\"kinds\":%zu,\"top\":[", v->nr_all);
	for (size_t i = 0; i < v->nr_top; i++) {
		const struct why_in *t = &v->top[i];

		fprintf(out, "%s{\"%s\":%" PRId64 ",\"name\":", i ? "," : "", nrkey, t->nr);
		show_json_str(out, t->name);
		fprintf(out, ",\"count\":%u,\"ns\":%" PRIu64, t->count, t->ns);
		if (sys)
			fprintf(out, ",\"running_ns\":%" PRIu64, t->cpu_ns);
		fputc('}', out);
	}
	fputs("]}", out);
}

static void json_keys(FILE *out, const struct why_key *k, size_t n, int task)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s{\"count\":%u,", i ? "," : "", k[i].count);
		if (task) {
			fprintf(out, "\"tid\":%u,\"comm\":", k[i].tid);
			show_json_str(out, k[i].comm);
		} else {
			fputs("\"key\":", out);
			show_json_str(out, k[i].key);
		}
		fputc('}', out);
	}
}

/* "rate": a rate trigger's contributors (docs/show.md). */
static void json_rate(FILE *out, const struct why_rate *rt)
{
	fputs("\"rate\":{\"event\":", out);
	show_json_str(out, rt->event);
	fprintf(out, ",\"told\":%s", rt->done ? "true" : "false");
	if (rt->done) {
		fputs(",\"key\":", out);
		show_json_str(out, rt->key);
		fprintf(out,
			",\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 ",\"records\":%u,"
			"\"keys_total\":%zu,\"top_keys\":[",
			rt->start, rt->end, rt->records, rt->by_key ? rt->nr_keys_all : 0);
		if (rt->by_key)
			json_keys(out, rt->keys, rt->nr_keys, 0);
		fprintf(out, "],\"tasks_total\":%zu,\"top_tasks\":[", rt->nr_tasks_all);
		json_keys(out, rt->tasks, rt->nr_tasks, 1);
		fprintf(out,
			"],\"before\":{\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64
			",\"records\":%u}",
			rt->before_start, rt->before_end, rt->before);
	}
	if (rt->note[0]) {
		fputs(",\"note\":", out);
		show_json_str(out, rt->note);
	}
	fputs("},", out);
}

static void show_why_json_body(const struct show_why *w, FILE *out);

void show_why_json(const struct show *s, const struct show_why *w, FILE *out)
{
	fprintf(out, "{\"snapshot\":");
	show_json_str(out, s->data_path);
	fprintf(out, ",\"trigger\":{\"name\":");
	show_json_str(out, jv_str(s->sc, "trigger.name", ""));
	fprintf(out, ",\"kind\":");
	show_json_str(out, jv_str(s->sc, "trigger.kind", ""));
	fprintf(out,
		",\"time_ns\":%" PRIu64 ",\"cpu\":%u,\"pid\":%u,\"tid\":%u},"
		"\"window\":{\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 "},\"why\":{",
		s->trig_time, s->trig_cpu, s->trig_pid, s->trig_tid, s->win_start, s->win_end);
	show_why_json_body(w, out);
	fprintf(out, "}\n");
}

void show_why_json_obj(const struct show_why *w, FILE *out)
{
	fputc('{', out);
	show_why_json_body(w, out);
}

/* The members of the "why" object and its closing brace. */
static void show_why_json_body(const struct show_why *w, FILE *out)
{
	if (w->rate.done || w->rate.note[0])
		json_rate(out, &w->rate);
	if (!w->done) {
		fprintf(out, "\"reason\":");
		show_json_str(out, w->reason);
		fprintf(out, "}");
		return;
	}
	fprintf(out, "\"tid\":%u,\"pid\":%u,\"comm\":", w->tid, w->pid);
	show_json_str(out, w->comm);
	fprintf(out,
		",\"basis\":\"%s\",\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64
		",\"explained_from_ns\":%" PRIu64 ",\"span_ns\":%" PRIu64 ",\"running_ns\":%" PRIu64
		",\"runnable_ns\":%" PRIu64 ",\"blocked_s_ns\":%" PRIu64
		",\"blocked_d_ns\":%" PRIu64 ",\"other_ns\":%" PRIu64 ",\"unknown_ns\":%" PRIu64
		",\"migrations\":%u,"
		"\"window_covers_span\":%s,\"running_cpus\":[",
		w->basis, w->start, w->end, w->from, w->end - w->start, w->running, w->runnable,
		w->sleep_s, w->sleep_d, w->other, w->unknown, w->migrations,
		w->cut_short ? "false" : "true");
	for (size_t i = 0; i < w->nr_cpus; i++)
		fprintf(out, "%s{\"cpu\":%u,\"ns\":%" PRIu64 "}", i ? "," : "", w->cpus[i].cpu,
			w->cpus[i].ns);
	fprintf(out, "],\"ran_instead\":[");
	for (size_t i = 0; i < w->nr_instead; i++) {
		fprintf(out, "%s{\"tid\":%u,\"comm\":", i ? "," : "", w->instead[i].tid);
		show_json_str(out, w->instead[i].comm);
		fprintf(out, ",\"ns\":%" PRIu64 "}", w->instead[i].ns);
	}
	fprintf(out, "],\"runnable_no_task_ns\":%" PRIu64 ",\"wakeups\":[",
		w->runnable_unexplained);
	for (size_t i = 0; i < w->nr_wakes; i++) {
		const struct why_wake *k = &w->wakes[i];

		fprintf(out,
			"%s{\"time_ns\":%" PRIu64 ",\"blocked_at_ns\":%" PRIu64
			",\"state\":\"%c\",\"waker_tid\":%u,\"cpu\":%u,\"event\":\"%s\",\"waker_comm\":",
			i ? "," : "", k->time, k->blocked_at, k->state, k->waker, k->cpu,
			k->waking ? "sched_waking" : "sched_wakeup");
		show_json_str(out, k->comm);
		if (k->w_blocked_at) {
			fprintf(out, ",\"waker_blocked\":{\"state\":\"%c\",\"at_ns\":%" PRIu64,
				k->w_state, k->w_blocked_at);
			if (k->w_woken_at) {
				fprintf(out,
					",\"woken_at_ns\":%" PRIu64
					",\"woken_by_tid\":%u,\"cpu\":%u,\"woken_by_comm\":",
					k->w_woken_at, k->w_woken_by, k->w_woken_cpu);
				show_json_str(out, k->w_woken_comm);
			}
			fputc('}', out);
		}
		fputc('}', out);
	}
	fprintf(out, "],\"wakeups_total\":%u", w->total_wakes);
	json_ins(out, "syscalls", "nr", &w->sys, 1);
	json_ins(out, "irq", "irq", &w->irq, 0);
	json_ins(out, "softirq", "vec", &w->softirq, 0);
	fprintf(out, ",\"warnings\":[");
	for (int i = 0; i < w->nr_warn; i++) {
		if (i)
			fputc(',', out);
		show_json_str(out, w->warn[i]);
	}
	fprintf(out, "]}");
}
