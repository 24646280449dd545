// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "capture/recorder.h"
#include "capture/probes.h"
#include "engine/bpfctl.h"
#include "engine/cgsel.h"
#include "engine/features.h"
#include "engine/crwords.h"
#include "util/log.h"
#include "util/util.h"
#include "trigrec.skel.h"

/* The target's system calls by name (generated from <sys/syscall.h>). */
static const struct {
	const char *name;
	int nr;
} syscall_nrs[] = {
#include "syscall_names.h"
};

static int apply_carry(struct bpfctl *b);

static int syscall_nr(const char *name)
{
	for (size_t i = 0; i < sizeof(syscall_nrs) / sizeof(syscall_nrs[0]); i++)
		if (!strcmp(syscall_nrs[i].name, name))
			return syscall_nrs[i].nr;
	return -1;
}

/*
 * The tp_btf fast paths: the event (NULL: every syscalls:sys_{enter,exit}_*,
 * fast_path_for()), the tracepoint its program attaches to, the fields it
 * fills (the format's own, in order; any other list, say a field a newer
 * kernel added, keeps the event on tp_rec) and the arguments it reads from
 * the tracepoint (btf_trace_NAME's, after its data pointer).
 */
static const struct fast_path {
	const char *sys, *name;
	int kind;
	int nargs;
	const char *fields[8];
	const char *tp; /* NULL: the event's own name */
} fast_paths[] = {
	{ "sched",
	  "sched_switch",
	  TRIGREC_FP_SCHED_SWITCH,
	  4,
	  { "prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid",
	    "next_prio" } },
	{ "sched",
	  "sched_wakeup",
	  TRIGREC_FP_SCHED_WAKEUP,
	  1,
	  { "comm", "pid", "prio", "target_cpu" } },
	{ "sched",
	  "sched_wakeup_new",
	  TRIGREC_FP_SCHED_WAKEUP_NEW,
	  1,
	  { "comm", "pid", "prio", "target_cpu" } },
	{ "sched",
	  "sched_waking",
	  TRIGREC_FP_SCHED_WAKING,
	  1,
	  { "comm", "pid", "prio", "target_cpu" } },
	{ "irq", "softirq_entry", TRIGREC_FP_SOFTIRQ_ENTRY, 1, { "vec" } },
	{ "irq", "softirq_exit", TRIGREC_FP_SOFTIRQ_EXIT, 1, { "vec" } },
	{ "irq", "softirq_raise", TRIGREC_FP_SOFTIRQ_RAISE, 1, { "vec" } },
	{ "irq", "irq_handler_exit", TRIGREC_FP_IRQ_HANDLER_EXIT, 3, { "irq", "ret" } },
	{ "signal",
	  "signal_generate",
	  TRIGREC_FP_SIGNAL_GENERATE,
	  5,
	  { "sig", "errno", "code", "comm", "pid", "group", "result" } },
	{ "signal",
	  "signal_deliver",
	  TRIGREC_FP_SIGNAL_DELIVER,
	  3,
	  { "sig", "errno", "code", "sa_handler", "sa_flags" } },
	{ "raw_syscalls", "sys_enter", TRIGREC_FP_RAW_SYS_ENTER, 2, { "id", "args" } },
	{ "raw_syscalls", "sys_exit", TRIGREC_FP_RAW_SYS_EXIT, 2, { "id", "ret" } },
	{ "syscalls", NULL, TRIGREC_FP_SYS_ENTER, 2, { NULL }, "sys_enter" },
	{ "syscalls", NULL, TRIGREC_FP_SYS_EXIT, 2, { NULL }, "sys_exit" },
};

static const struct fast_path *fp_of(int kind)
{
	for (size_t i = 0; i < sizeof(fast_paths) / sizeof(fast_paths[0]); i++)
		if (fast_paths[i].kind == kind)
			return &fast_paths[i];
	return NULL;
}

/* The tracepoint fast path `kind` attaches to. */
static const char *fp_tracepoint(int kind)
{
	const struct fast_path *p = fp_of(kind);

	return !p ? "?" : p->tp ? p->tp : p->name;
}

/*
 * syscalls:sys_{enter,exit}_NAME's record as the fast path builds it:
 * __syscall_nr (int) at 8, then each argument (or ret) in 8 bytes from 16.
 */
static int syscall_layout(const struct tp_format *f, int exit)
{
	int n = 0;

	for (int i = 0; i < f->nr_fields; i++) {
		const struct tp_field *fl = &f->fields[i];

		if (fl->is_common)
			continue;
		if (!n) {
			if (strcmp(fl->name, "__syscall_nr") || fl->offset != 8 || fl->size != 4)
				return 0;
		} else if (fl->offset != 16 + 8 * (uint32_t)(n - 1) || fl->size != 8 ||
			   (fl->kind != TP_FIELD_INT && fl->kind != TP_FIELD_PTR) ||
			   (exit && strcmp(fl->name, "ret"))) {
			return 0;
		}
		n++;
	}
	if (n < 1 || n > 7 || (exit && n != 2))
		return 0;
	return f->fixed_size == 16 + 8 * (uint32_t)(n - 1) || (n == 1 && f->fixed_size == 12);
}

/* Does any field of this format live past the fixed part (__data_loc strings)? */
static int has_dataloc(const struct tp_format *f)
{
	for (int i = 0; i < f->nr_fields; i++)
		if (f->fields[i].kind == TP_FIELD_DATALOC)
			return 1;
	return 0;
}

/* The size-class programs: tp_rec_w1 .. tp_rec_w8, tp_rec_w0h .. tp_rec_w7h (gates.bpf.h). */
#define REC_WORDS 8

/* The size class of a record of format f (the rule of bpfctl__rec_class()), or -1. */
static int size_class(const struct tp_format *f)
{
	uint32_t n;

	if (has_dataloc(f) || f->fixed_size < 12)
		return -1;
	n = f->fixed_size - 8;
	/*
	 * A record of 8 * N + 4 bytes after the common fields ends in a 4-byte
	 * load; other remainders (a trailing u8 or u16) stay on tp_rec rather
	 * than read past the record, which the kernel would refuse at attach.
	 */
	if (n % 8 == 0 && n / 8 <= REC_WORDS)
		return (int)(n / 8) * 2;
	if (n % 8 == 4 && n / 8 < REC_WORDS)
		return (int)(n / 8) * 2 + 1;
	return -1;
}

int bpfctl__rec_class(const struct tp_format *f, uint32_t flags)
{
	if (!(flags & TRIGREC_HOOK_BPFREC) || (flags & TRIGREC_HOOK_RECFILTER))
		return -1;
	return size_class(f);
}

int bpfctl__trig_class(const struct tp_format *f, uint32_t flags)
{
	/* tp_trig_w* never records: a hook BPF records keeps tp_hook's record(). */
	if (flags & TRIGREC_HOOK_BPFREC)
		return -1;
	return size_class(f);
}

/*
 * Size class c's program: tp_rec_w* (trig 0) or tp_trig_w* (trig 1), one
 * table for both, indexed as bpfctl__rec_class() counts (4-byte units).
 */
static struct bpf_program *class_prog(struct bpfctl *b, int c, int trig)
{
	struct bpf_program *const p[][2] = {
		{ NULL, NULL },
		{ b->skel->progs.tp_rec_w0h, b->skel->progs.tp_trig_w0h },
		{ b->skel->progs.tp_rec_w1, b->skel->progs.tp_trig_w1 },
		{ b->skel->progs.tp_rec_w1h, b->skel->progs.tp_trig_w1h },
		{ b->skel->progs.tp_rec_w2, b->skel->progs.tp_trig_w2 },
		{ b->skel->progs.tp_rec_w2h, b->skel->progs.tp_trig_w2h },
		{ b->skel->progs.tp_rec_w3, b->skel->progs.tp_trig_w3 },
		{ b->skel->progs.tp_rec_w3h, b->skel->progs.tp_trig_w3h },
		{ b->skel->progs.tp_rec_w4, b->skel->progs.tp_trig_w4 },
		{ b->skel->progs.tp_rec_w4h, b->skel->progs.tp_trig_w4h },
		{ b->skel->progs.tp_rec_w5, b->skel->progs.tp_trig_w5 },
		{ b->skel->progs.tp_rec_w5h, b->skel->progs.tp_trig_w5h },
		{ b->skel->progs.tp_rec_w6, b->skel->progs.tp_trig_w6 },
		{ b->skel->progs.tp_rec_w6h, b->skel->progs.tp_trig_w6h },
		{ b->skel->progs.tp_rec_w7, b->skel->progs.tp_trig_w7 },
		{ b->skel->progs.tp_rec_w7h, b->skel->progs.tp_trig_w7h },
		{ b->skel->progs.tp_rec_w8, b->skel->progs.tp_trig_w8 },
	};

	return c > 0 && c < (int)(sizeof(p) / sizeof(p[0])) ? p[c][trig] : NULL;
}

struct bpf_program *bpfctl__rec_prog(struct bpfctl *b, int c)
{
	return class_prog(b, c, 0);
}

struct bpf_program *bpfctl__trig_prog(struct bpfctl *b, int c)
{
	return class_prog(b, c, 1);
}

/* The hook's own size-class program, if it records through one (else NULL: tp_rec). */
static struct bpf_program *hook_rec_prog(struct bpfctl *b, const struct bpf_hook *h)
{
	if (h->fp >= 0 || h->cfg.ntrig || h->is_probe)
		return NULL;
	return bpfctl__rec_prog(b, h->rec_class);
}

/* The hook's trigger program by size class, if it has one (else NULL: tp_hook). */
static struct bpf_program *hook_trig_prog(struct bpfctl *b, const struct bpf_hook *h)
{
	if (h->fp >= 0 || !h->cfg.ntrig || h->is_probe)
		return NULL;
	return bpfctl__trig_prog(b, h->trig_class);
}

/*
 * Which fast path serves hook h, if one can: a tracepoint recorded on ring
 * sets (without a --filter: tp_rec runs that on the kernel's record), or
 * one only triggers test, whose format is exactly what the program builds.
 * Never one perf records: its hook's return value is the freeze gate, and
 * a tp_btf program's is ignored. -1: none.
 */
static int fast_path_for(struct bpf_hook *h)
{
	const struct tp_format *f = h->fmt;
	uint32_t fl = h->cfg.flags;
	int k = 0;

	if (fl & TRIGREC_HOOK_BPFREC) {
		if (fl & TRIGREC_HOOK_RECFILTER)
			return -1;
	} else if ((fl & TRIGREC_HOOK_RECORDED) || !h->cfg.ntrig) {
		return -1;
	}
	if (h->is_probe || has_dataloc(f) || f->fixed_size > TRIGREC_FP_MAX_RECORD)
		return -1;
	if (!strcmp(h->tp.sys, "syscalls")) {
		int exit = !strncmp(h->tp.name, "sys_exit_", 9);
		const char *call = h->tp.name + (exit ? 9 : 10);

		if (!exit && strncmp(h->tp.name, "sys_enter_", 10))
			return -1;
		h->sys_nr = syscall_nr(call);
		if (h->sys_nr < 0 || h->sys_nr >= TRIGREC_FP_SYSCALLS || !syscall_layout(f, exit))
			return -1;
		return exit ? TRIGREC_FP_SYS_EXIT : TRIGREC_FP_SYS_ENTER;
	}
	for (size_t i = 0; i < sizeof(fast_paths) / sizeof(fast_paths[0]); i++) {
		const struct fast_path *p = &fast_paths[i];

		if (!p->name || strcmp(p->sys, h->tp.sys) || strcmp(p->name, h->tp.name))
			continue;
		for (int j = 0; j < f->nr_fields; j++) {
			if (f->fields[j].is_common)
				continue;
			if (k >= 8 || !p->fields[k] || strcmp(p->fields[k], f->fields[j].name))
				return -1;
			k++;
		}
		return k < 8 && p->fields[k] ? -1 : p->kind;
	}
	return -1;
}

static int cancelled(const struct bpfctl *b)
{
	return b->opts.cancel && *b->opts.cancel;
}

static int find_hook(const struct bpfctl *b, const struct tp_name *tp)
{
	for (int i = 0; i < b->nr_hooks; i++)
		if (!strcmp(b->hooks[i].tp.sys, tp->sys) && !strcmp(b->hooks[i].tp.name, tp->name))
			return i;
	return -1;
}

/* The recorder's event for a tracepoint, or NULL when it is not recorded. */
static const struct rec_event *recorded_event(const struct recorder *r, const struct tp_name *tp)
{
	for (int i = 0; i < r->nr_evs; i++)
		if (r->evs[i].kind == REC_EV_TRACEPOINT && !strcmp(r->evs[i].pd.tp_sys, tp->sys) &&
		    !strcmp(r->evs[i].pd.tp_name, tp->name))
			return &r->evs[i];
	return NULL;
}

/* The hook of a tracepoint, added if new. Formats are read once counting is done. */
static int add_hook(struct bpfctl *b, const struct recorder *r, const struct tp_name *tp)
{
	struct bpf_hook *h;
	int i = find_hook(b, tp);

	if (i >= 0)
		return i;
	h = realloc(b->hooks, (b->nr_hooks + 1) * sizeof(*h));
	if (!h)
		return -ENOMEM;
	b->hooks = h;
	h = &h[b->nr_hooks];
	memset(h, 0, sizeof(*h));
	h->tp = *tp;
	h->recorded = recorded_event(r, tp) != NULL;
	h->fp = -1;
	h->sys_nr = -1;
	return b->nr_hooks++;
}

/* Put one side of trigger `id` on the hooks of its tracepoint(s). */
static int hook_trigger(struct bpfctl *b, const struct recorder *r, const struct trig_def *t,
			uint32_t id, int role)
{
	const char *ev = t->event[role];
	struct tp_name *tps = NULL;
	int n;

	if (!ev[0])
		return 0;
	n = probes__glob(ev, &tps);
	if (n <= 0) {
		char sugg[512] = "";

		if (n == 0 && !strpbrk(ev, "*?["))
			tracefs_suggest(ev, sugg, sizeof(sugg), 3);
		if (sugg[0])
			elog("trigger '%s': no tracepoint %s (did you mean %s?)", SHORT(t->text),
			     SHORT(ev), sugg);
		else
			elog("trigger '%s': no tracepoint matches '%s' (see `trigrec list`)",
			     SHORT(t->text), SHORT(ev));
		free(tps);
		return n < 0 ? n : -ENOENT;
	}
	for (int i = 0; i < n; i++) {
		int h = add_hook(b, r, &tps[i]);
		struct trigrec_hook_cfg *c;

		if (h < 0) {
			free(tps);
			return h;
		}
		c = &b->hooks[h].cfg;
		if (c->ntrig >= TRIGREC_MAX_HOOK_TRIGGERS) {
			elog("trigger '%s': more than %d triggers on %s:%s (at most %d per tracepoint); "
			     "merge some of them with || in one filter",
			     SHORT(t->text), TRIGREC_MAX_HOOK_TRIGGERS, tps[i].sys, tps[i].name,
			     TRIGREC_MAX_HOOK_TRIGGERS);
			free(tps);
			return -E2BIG;
		}
		c->trig[c->ntrig++] = TRIGREC_HOOK_TRIG(id, role);
	}
	free(tps);
	return 0;
}

/* The -e items that matched most tracepoints, for the too-many message. */
static void top_globs(const struct recorder *r, char *out, size_t len)
{
	struct {
		const char *spec;
		size_t len;
		int n;
	} top[3] = { { 0 } };
	size_t o = 0;

	out[0] = '\0';
	for (int i = 0; i < r->opts.nr_events; i++) {
		const char *p = r->opts.events[i].spec;

		while (p && *p) {
			size_t l = strcspn(p, ",");
			char item[512];
			struct tp_name *tps = NULL;
			int n = 0;

			if (l < sizeof(item) && memchr(p, ':', l)) {
				memcpy(item, p, l);
				item[l] = '\0';
				n = probes__glob(item, &tps);
				free(tps);
			}
			for (int k = 0; k < 3; k++) {
				if (n > top[k].n) {
					memmove(&top[k + 1], &top[k], (2 - k) * sizeof(top[0]));
					top[k].spec = p;
					top[k].len = l;
					top[k].n = n;
					break;
				}
			}
			p += l + (p[l] == ',');
		}
	}
	for (int k = 0; k < 3 && top[k].n > 1 && o < len; k++) {
		int w = snprintf(out + o, len - o, "%s-e '%.*s' matches %d", k ? ", " : "",
				 (int)(top[k].len > 100 ? 100 : top[k].len), top[k].spec, top[k].n);

		if (w > 0)
			o += (size_t)w;
	}
}

/*
 * A dynamic probe's hook (probes.c): the kernel takes only kprobe programs
 * on it, which rebuild the record from registers with its recipe. A probe
 * whose fields cannot be rebuilt may still be recorded, not tested.
 */
static int plan_probe(struct bpf_hook *h)
{
	char why[512] = "";
	const char *spec;
	int r = probes__recipe(h->tp.sys, h->tp.name, h->fmt, &h->probe, why, sizeof(why));
	uint32_t size;

	if (r == 0)
		return 0;
	h->is_probe = 1;
	if (r < 0 && h->cfg.ntrig) {
		spec = probes__spec_of(h->tp.sys, h->tp.name, NULL);
		elog("a trigger cannot test %s: %s", spec ? SHORT(spec) : h->tp.name, why);
		return -EINVAL;
	}
	if (r < 0)
		memset(&h->probe, 0, sizeof(h->probe));
	size = h->probe.dyn_off;
	for (uint32_t k = 0; k < h->probe.nfetch; k++)
		if (h->probe.f[k].op == TRIGREC_PF_STR || h->probe.f[k].op == TRIGREC_PF_COMM)
			size += TRIGREC_PROBE_STR_LEN;
	if (size < h->fmt->fixed_size)
		size = h->fmt->fixed_size;
	h->cfg.data_size = size > 512 ? 512 : size;
	return 0;
}

struct bpfctl *bpfctl__plan(const struct recorder *r, const struct trig_def *trigs, int nr_trigs,
			    const struct bpfctl_opts *opts)
{
	struct bpfctl *b = calloc(1, sizeof(*b));
	int nrec = 0, nonly = 0;

	if (!b)
		return NULL;
	if (opts)
		b->opts = *opts;
	if (nr_trigs > TRIGREC_MAX_TRIGGERS) {
		elog("too many triggers: %d given, at most %d (TRIGREC_MAX_TRIGGERS) in one run",
		     nr_trigs, TRIGREC_MAX_TRIGGERS);
		goto fail;
	}
	b->trigs = trigs;
	b->nr_trigs = nr_trigs;
	/* Without gates, a tracepoint that is only recorded needs no program at all. */
	for (int i = 0; i < r->nr_evs && !b->opts.no_gates; i++) {
		const struct rec_event *e = &r->evs[i];
		struct tp_name tp;

		if (e->kind != REC_EV_TRACEPOINT)
			continue;
		snprintf(tp.sys, sizeof(tp.sys), "%s", e->pd.tp_sys);
		snprintf(tp.name, sizeof(tp.name), "%s", e->pd.tp_name);
		if (add_hook(b, r, &tp) < 0)
			goto fail;
	}
	/*
	 * Ends before starts on every hook: an event that both ends and starts
	 * latencies (sched_switch) must not match the start it just recorded.
	 */
	for (int i = 0; i < nr_trigs; i++)
		if (hook_trigger(b, r, &trigs[i], i, TRIGREC_ROLE_EVENT))
			goto fail;
	for (int i = 0; i < nr_trigs; i++)
		if (hook_trigger(b, r, &trigs[i], i, TRIGREC_ROLE_START))
			goto fail;
	for (int i = 0; i < b->nr_hooks; i++) {
		if (b->hooks[i].recorded && !b->opts.no_gates)
			nrec++;
		else
			nonly++;
	}
	if (b->nr_hooks > TRIGREC_MAX_HOOKS) {
		char globs[512];

		top_globs(r, globs, sizeof(globs));
		elog("too many tracepoints: %d would carry trigrec's BPF program (%d recorded, each "
		     "with its freeze gate, and %d only for triggers), at most %d "
		     "(TRIGREC_MAX_HOOKS) in one run. Narrow the globs%s%s (`trigrec list GLOB` shows "
		     "what one matches)%s",
		     b->nr_hooks, nrec, nonly, TRIGREC_MAX_HOOKS, globs[0] ? ": " : "", globs,
		     nrec > TRIGREC_MAX_HOOKS / 2 ? ", or add --no-gates so that recorded "
						    "tracepoints need no program" :
						    "");
		goto fail;
	}
	/* Reading formats costs ~0.1 ms each: done once the count is known to fit. */
	for (int i = 0; i < b->nr_hooks; i++) {
		struct bpf_hook *h = &b->hooks[i];
		const struct rec_event *ev;

		h->fmt = tp_format__load(h->tp.sys, h->tp.name);
		if (!h->fmt) {
			elog("cannot read the format of %s:%s: %s", h->tp.sys, h->tp.name,
			     strerror(errno));
			goto fail;
		}
		h->cfg.flags = h->recorded ? TRIGREC_HOOK_RECORDED : 0;
		h->cfg.tp_id = (uint16_t)h->fmt->id;
		ev = h->recorded ? recorded_event(r, &h->tp) : NULL;
		if (ev && ev->bpf_rec) {
			int nd = 0;

			h->cfg.flags |= TRIGREC_HOOK_BPFREC;
			h->cfg.rec_ev = (uint16_t)(ev - r->evs);
			h->cfg.rec_size = (uint16_t)h->fmt->fixed_size;
			h->cfg.cr_skip = r->compact ? cr_skip_words(h->fmt) : 0;
			h->cfg.cr_zz = r->compact ? cr_zz_words(h->fmt) : 0;
			for (int f = 0; f < h->fmt->nr_fields && nd < TRIGREC_MAX_DLOC; f++)
				if (h->fmt->fields[f].kind == TP_FIELD_DATALOC)
					h->cfg.dloc[nd++] = (uint16_t)h->fmt->fields[f].offset;
			if (ev->filter) {
				if (bpfctl__compile_filter(h->tp.sys, h->tp.name, ev->filter,
							   &h->recf)) {
					elog("--filter '%s' for %s:%s no longer compiles",
					     ev->filter, h->tp.sys, h->tp.name);
					goto fail;
				}
				h->cfg.flags |= TRIGREC_HOOK_RECFILTER;
			}
		} else if (h->recorded && !b->opts.no_gates) {
			h->cfg.flags |= TRIGREC_HOOK_GATED;
		}
		/* What filters and the message may read: the fixed part, plus strings. */
		h->cfg.data_size = h->fmt->fixed_size + (has_dataloc(h->fmt) ? 256 : 0);
		if (h->cfg.data_size > 512)
			h->cfg.data_size = 512;
		if (plan_probe(h))
			goto fail;
		h->fp = b->opts.no_fast_paths ? -1 : fast_path_for(h);
		h->rec_class = bpfctl__rec_class(h->fmt, h->cfg.flags);
		h->trig_class = bpfctl__trig_class(h->fmt, h->cfg.flags);
	}
	return b;
fail:
	bpfctl__free(b);
	return NULL;
}

int bpfctl__compile_filter(const char *sys, const char *name, const char *filter,
			   struct trigrec_filter *out)
{
	struct trig_def d;
	struct tl_error e;
	char *text;
	int ret;

	if (asprintf(&text, "%s:%s if %s", sys, name, filter) < 0)
		return -ENOMEM;
	ret = trig_from_text(text, &d, &e);
	free(text);
	/* cgroup paths resolve per trigger, not per recorded event: perf then tests it. */
	if (ret || d.kind != TRIGREC_TRIG_EVENT || d.nr_cg)
		return -EINVAL;
	*out = d.cfg.side[TRIGREC_ROLE_EVENT].filter;
	return 0;
}

static int is_thread_key(const struct trigrec_keyspec *k)
{
	return k->p[0].src == TRIGREC_SRC_TID && !k->p[1].src;
}

int bpfctl__task_keyed(const struct trigrec_trigger_cfg *tc)
{
	return tc->kind == TRIGREC_TRIG_LATENCY && is_thread_key(&tc->side[0].key) &&
	       is_thread_key(&tc->side[1].key);
}

static int add_link(struct bpfctl *b, struct bpf_link *l)
{
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers, sized as such */
	struct bpf_link **links = realloc(b->links, (b->nr_links + 1) * sizeof(*links));

	if (!links) {
		bpf_link__destroy(l);
		return -ENOMEM;
	}
	b->links = links;
	b->links[b->nr_links++] = l;
	return 0;
}

/* The tp_btf program of fast path kind k. */
static struct bpf_program *fp_prog(struct bpfctl *b, int k)
{
	switch (k) {
	case TRIGREC_FP_SCHED_SWITCH: return b->skel->progs.fp_sched_switch;
	case TRIGREC_FP_SCHED_WAKEUP: return b->skel->progs.fp_sched_wakeup;
	case TRIGREC_FP_SCHED_WAKEUP_NEW: return b->skel->progs.fp_sched_wakeup_new;
	case TRIGREC_FP_SCHED_WAKING: return b->skel->progs.fp_sched_waking;
	case TRIGREC_FP_SOFTIRQ_ENTRY: return b->skel->progs.fp_softirq_entry;
	case TRIGREC_FP_SOFTIRQ_EXIT: return b->skel->progs.fp_softirq_exit;
	case TRIGREC_FP_SOFTIRQ_RAISE: return b->skel->progs.fp_softirq_raise;
	case TRIGREC_FP_IRQ_HANDLER_EXIT: return b->skel->progs.fp_irq_handler_exit;
	case TRIGREC_FP_SIGNAL_GENERATE: return b->skel->progs.fp_signal_generate;
	case TRIGREC_FP_SIGNAL_DELIVER: return b->skel->progs.fp_signal_deliver;
	case TRIGREC_FP_RAW_SYS_ENTER:
	case TRIGREC_FP_SYS_ENTER: return b->skel->progs.fp_sys_enter;
	default: return b->skel->progs.fp_sys_exit;
	}
}

/*
 * Does the kernel's tracepoint pass what fast path k reads? Its BTF names
 * each tracepoint's arguments (btf_trace_NAME: a pointer to a function
 * taking the probe's data pointer, then the arguments); sched_switch gained
 * prev_state in Linux 5.18.
 */
static int fp_kernel_has(const struct btf *vmlinux, int k)
{
	const struct btf_type *t;
	char name[64];
	int id;

	if (!vmlinux)
		return 0;
	snprintf(name, sizeof(name), "btf_trace_%s", fp_tracepoint(k));
	id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return 0;
	t = btf__type_by_id(vmlinux, id);
	t = t ? btf__type_by_id(vmlinux, t->type) : NULL;
	t = t && btf_is_ptr(t) ? btf__type_by_id(vmlinux, t->type) : NULL;
	return t && btf_is_func_proto(t) && fp_of(k) && btf_vlen(t) == fp_of(k)->nargs + 1;
}

/* The classic program that serves hook h off its fast path, as -v names it. */
static const char *classic_prog_name(const struct bpf_hook *h, char *buf, size_t n)
{
	int c = h->cfg.ntrig ? h->trig_class : h->rec_class;

	if (c <= 0)
		return h->cfg.ntrig ? "tp_hook" : "tp_rec";
	snprintf(buf, n, "%s_w%d%s", h->cfg.ntrig ? "tp_trig" : "tp_rec", c / 2, c % 2 ? "h" : "");
	return buf;
}

/*
 * A syscalls:sys_{enter,exit}_NAME event keeps its fast path only when the
 * direction's tp_btf program runs anyway (raw_syscalls:sys_enter/sys_exit
 * on its fast path). That program runs on every system call of the host;
 * the classic per-call tracepoint costs the others one bit test in the
 * kernel (perf_syscall_enter()'s enabled_perf_enter_syscalls). Measured
 * (bench row 4, "a system call the trigger does not name"): a trigger on
 * getppid added 173 ns to each getpgid call on its fast path, 22 ns
 * through tp_hook, while the fast path saved ~90 ns on getppid itself and
 * nothing measurable when recording (row 3): a loss unless the named call
 * is most of the host's calls.
 */
static void fp_keep_syscall_filter(struct bpfctl *b)
{
	int raw_enter = b->opts.syscall_fast_paths, raw_exit = raw_enter;
	char name[32];

	for (int i = 0; i < b->nr_hooks; i++) {
		raw_enter |= b->hooks[i].fp == TRIGREC_FP_RAW_SYS_ENTER;
		raw_exit |= b->hooks[i].fp == TRIGREC_FP_RAW_SYS_EXIT;
	}
	for (int i = 0; i < b->nr_hooks; i++) {
		struct bpf_hook *h = &b->hooks[i];
		int keep = h->fp == TRIGREC_FP_SYS_ENTER ? raw_enter :
			   h->fp == TRIGREC_FP_SYS_EXIT	 ? raw_exit :
							   1;

		if (keep)
			continue;
		vlog("%s:%s: through %s, not tp_btf/%s: that program would run on every system "
		     "call of the host (it does when raw_syscalls:%s is recorded or tested too, "
		     "or with --syscall-fast-paths)",
		     h->tp.sys, h->tp.name, classic_prog_name(h, name, sizeof(name)),
		     fp_tracepoint(h->fp), fp_tracepoint(h->fp));
		h->fp = -1;
	}
}

/* Keep a fast path only where the kernel's tracepoint has its arguments. */
static void fp_check_kernel(struct bpfctl *b)
{
	int has[TRIGREC_FP_NR], any = 0;
	struct btf *vmlinux;
	char name[32];

	for (int i = 0; i < b->nr_hooks; i++)
		any |= b->hooks[i].fp >= 0;
	if (!any)
		return;
	vmlinux = btf__load_vmlinux_btf();
	for (int k = 0; k < TRIGREC_FP_NR; k++)
		has[k] = fp_kernel_has(libbpf_get_error(vmlinux) ? NULL : vmlinux, k);
	for (int i = 0; i < b->nr_hooks; i++) {
		struct bpf_hook *h = &b->hooks[i];

		if (h->fp < 0)
			continue;
		if (!has[h->fp]) {
			vlog("%s:%s: the kernel's %s tracepoint lacks what the tp_btf fast path "
			     "reads: through %s",
			     h->tp.sys, h->tp.name, fp_tracepoint(h->fp),
			     classic_prog_name(h, name, sizeof(name)));
			h->fp = -1;
		} else {
			vlog("%s:%s: %s through the tp_btf fast path (tp_btf/%s)", h->tp.sys,
			     h->tp.name,
			     !(h->cfg.flags & TRIGREC_HOOK_BPFREC) ? "tested" :
			     h->cfg.ntrig			   ? "recorded and tested" :
								     "recorded",
			     fp_tracepoint(h->fp));
		}
	}
	btf__free(libbpf_get_error(vmlinux) ? NULL : vmlinux);
}

/*
 * The first object of a run: keep its rec_cpu map (record numbers, live
 * generation) for the objects reloads bring, mapped to move `live`, and
 * make this object the live one on every CPU before anything is attached.
 */
static int share_rec_cpu(struct bpfctl *b, struct recorder *r)
{
	uint32_t n = bpf_map__max_entries(b->skel->maps.rec_cpu);
	size_t len = (size_t)n * sizeof(struct trigrec_rec_cpu);
	int fd = fcntl(bpf_map__fd(b->skel->maps.rec_cpu), F_DUPFD_CLOEXEC, 3);
	struct trigrec_rec_cpu *rc;

	if (fd < 0)
		goto fail;
	rc = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (rc == MAP_FAILED) {
		close(fd);
		goto fail;
	}
	for (uint32_t c = 0; c < n; c++)
		__atomic_store_n(&rc[c].live, b->opts.generation, __ATOMIC_SEQ_CST);
	r->rec_cpu_fd = fd;
	r->rec_cpu = rc;
	r->rec_cpu_len = len;
	return 0;
fail:
	fd = -errno;
	elog("cannot map the per-CPU record numbers: %s", strerror(-fd));
	return fd;
}

/*
 * A PREEMPT_RT kernel runs BPF programs preemptible: a record of another
 * task can land between two of one task's, so every record keeps its pid.
 */
static int preempt_rt(void)
{
	FILE *f = fopen("/sys/kernel/realtime", "r");
	int c = f ? fgetc(f) : EOF;

	if (f)
		fclose(f);
	return c == '1';
}

/* rings=compact: map the byte rings the programs write, for the harvests to copy. */
static int map_compact(struct bpfctl *b, struct recorder *r)
{
	const struct bpf_map *m = b->skel->maps.cr_rings;
	size_t len = (size_t)bpf_map__value_size(m) * bpf_map__max_entries(m);
	long psz = sysconf(_SC_PAGESIZE);
	void *mem;

	len = (len + psz - 1) / psz * psz;
	int fd = fcntl(bpf_map__fd(m), F_DUPFD_CLOEXEC, 3);

	mem = fd < 0 ? MAP_FAILED : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED) {
		int err = -errno;

		elog("--rings compact: cannot map the byte rings (%zu bytes): %s", len,
		     strerror(-err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	/* Kept for the objects reloads bring: they write the same rings. */
	r->cr_fd = fd;
	r->cr_mem = mem;
	r->cr_len = len;
	return 0;
}

/* Open the object, configure it and load it; quiet: say nothing on a failed load. */
static int open_load(struct bpfctl *b, struct recorder *r, pid_t scope_tgid, int quiet)
{
	int err;

	b->skel = trigrec_bpf__open();
	if (!b->skel) {
		err = -errno;
		elog("cannot open the BPF object: %s", strerror(errno));
		return err;
	}
	b->skel->rodata->scope_tgid = scope_tgid;
	/* Task mode: our per-task events only ever see the scope's records. */
	b->skel->rodata->scope_gates = scope_tgid && r->opts.tids;
	b->skel->rodata->scope_cgroup = r->cgroup_fd >= 0;
	b->skel->rodata->generation = b->opts.generation;
	b->skel->rodata->self_tgid = getpid();
	b->skel->rodata->exclude_self = !b->opts.include_self;
	b->skel->rodata->self_kids = b->opts.self_kids;
	/*
	 * One rec_cpu entry per possible CPU, not TRIGREC_MAX_CPUS of them
	 * (64 KiB of mapped kernel memory, 32 KiB per CPU on two). A reload's
	 * object takes the size of the map it reuses.
	 */
	{
		int ncpu = libbpf_num_possible_cpus();

		if (ncpu > 0 && ncpu < TRIGREC_MAX_CPUS &&
		    bpf_map__set_max_entries(b->skel->maps.rec_cpu, (__u32)ncpu)) {
			elog("cannot size the per-CPU record numbers: %s", strerror(errno));
			return -EINVAL;
		}
	}
	/* A reload: numbering and the live generation go on in the first object's map. */
	if (r->rec_cpu_fd >= 0 && bpf_map__reuse_fd(b->skel->maps.rec_cpu, r->rec_cpu_fd)) {
		err = -errno;
		elog("reload: cannot share the record numbers with the running object: %s",
		     strerror(errno));
		return err;
	}
	/*
	 * Without --rings compact the encoder is never run, but a verifier
	 * that does not prune it by the rodata switch (6.1's) checks its
	 * stores against this map: give it one element of the smallest
	 * segment (cr_shift's default), as the compact path would.
	 */
	if (!r->compact &&
	    bpf_map__set_value_size(b->skel->maps.cr_rings, TRIGREC_CR_ELEM(1u << 12))) {
		elog("cannot size the compact ring map: %s", strerror(errno));
		return -EINVAL;
	}
	if (r->nr_bpf_evs) {
		int slots = libbpf_num_possible_cpus();

		if (slots <= 0 || slots > TRIGREC_MAX_CPUS) {
			elog("rings=bpf: %d possible CPUs, at most %d: use --rings perf", slots,
			     TRIGREC_MAX_CPUS);
			return -E2BIG;
		}
		b->skel->rodata->ring_mode = 1;
		b->skel->rodata->need_freeze = r->perf_main;
		b->skel->rodata->rec_slots = slots;
		bpf_map__set_max_entries(b->skel->maps.rec_rings, TRIGREC_RING_SETS * slots);
		if (r->compact) {
			uint32_t per_cpu = r->cr_nseg + r->cr_nseg / TRIGREC_CR_SPARE_DIV;

			b->skel->rodata->compact = 1;
			b->skel->rodata->cr_shift = r->cr_shift;
			b->skel->rodata->cr_nseg = r->cr_nseg;
			b->skel->rodata->cr_same_pid = !preempt_rt();
			if (bpf_map__set_value_size(b->skel->maps.cr_rings, (__u32)r->cr_elem) ||
			    bpf_map__set_max_entries(b->skel->maps.cr_rings, per_cpu * slots)) {
				elog("--rings compact: cannot size the ring map");
				return -EINVAL;
			}
			/*
			 * A reload: the first object's rings (the recorder's map of
			 * them stays valid), heads, times and pids in rec_cpu.
			 */
			if (r->cr_fd >= 0 && bpf_map__reuse_fd(b->skel->maps.cr_rings, r->cr_fd)) {
				err = -errno;
				elog("reload: cannot share the compact rings with the running "
				     "object: %s",
				     strerror(errno));
				return err;
			}
		}
	}
	for (int i = 0; i < 2; i++) {
		b->skel->rodata->budget_n[i] = b->opts.budget_n[i];
		b->skel->rodata->budget_period_ns[i] = b->opts.budget_period_ns[i];
	}
	if (r->opts.cpumask) {
		b->skel->rodata->cpu_limited = 1;
		for (int c = 0; c < r->nr_cpus; c++)
			if (r->cpus[c] < TRIGREC_MAX_CPUS)
				b->skel->rodata->cpu_recorded[r->cpus[c]] = 1;
	}
	if (b->opts.lat_starts)
		bpf_map__set_max_entries(b->skel->maps.lat_starts, b->opts.lat_starts);
	if (b->opts.keys) {
		bpf_map__set_max_entries(b->skel->maps.rate_buckets, b->opts.keys);
		bpf_map__set_max_entries(b->skel->maps.key_cooldown, b->opts.keys);
	}
	/*
	 * Learned thresholds' histograms (4.6 KiB each): per key only for a
	 * trigger with `by`; all keys' (learn_all, by trigger id) for every
	 * learned latency trigger. One entry each when none learns.
	 */
	bpf_map__set_max_entries(b->skel->maps.learn_hist, 1);
	bpf_map__set_max_entries(b->skel->maps.learn_all, 1);
	/* Per-key near misses: as many keys as a rate's buckets, one entry when nothing is keyed. */
	bpf_map__set_max_entries(b->skel->maps.key_nm, 1);
	for (int i = 0; i < b->nr_trigs; i++)
		if (bpfctl__keyed_nm(&b->trigs[i].cfg))
			bpf_map__set_max_entries(b->skel->maps.key_nm,
						 b->opts.keys ? b->opts.keys : 16384);
	for (int i = 0; i < b->nr_trigs; i++) {
		if (!b->trigs[i].cfg.learn_pct)
			continue;
		bpf_map__set_max_entries(b->skel->maps.learn_all, (uint32_t)b->nr_trigs);
		if (!(b->trigs[i].cfg.flags & TRIGREC_TF_LEARN_ALL))
			bpf_map__set_max_entries(b->skel->maps.learn_hist, TRIGREC_LEARN_KEYS);
	}
	for (int i = 0; i < b->nr_hooks; i++)
		if (b->hooks[i].fp >= 0)
			bpf_program__set_autoload(fp_prog(b, b->hooks[i].fp), true);
	/* Only the size classes in use: each costs load time and verifier work. */
	for (int i = 0; i < b->nr_hooks; i++) {
		struct bpf_program *cls = hook_rec_prog(b, &b->hooks[i]);
		struct bpf_program *tcls = hook_trig_prog(b, &b->hooks[i]);

		if (cls)
			bpf_program__set_autoload(cls, true);
		if (tcls)
			bpf_program__set_autoload(tcls, true);
	}
	err = trigrec_bpf__load(b->skel);
	if (err && quiet)
		return err;
	if (err) {
		if (err == -EPERM || err == -EACCES) {
			char why[1024];

			explain_denied(1, why, sizeof(why));
			elog("cannot load BPF programs: permission denied%s: %s",
			     geteuid() == 0 ? " although trigrec runs as root" : "", why);
		} else {
			elog("cannot load BPF programs: %s (the kernel needs BTF, BPF ring buffers "
			     "and BPF cookies: Linux 5.15+; rerun with -vv for the verifier log)",
			     strerror(-err));
		}
		return err;
	}
	return 0;
}

int bpfctl__attach(struct bpfctl *b, struct recorder *r, pid_t scope_tgid)
{
	const struct trig_def *trigs = b->trigs;
	int err, had_fp = 0, fp_used[TRIGREC_FP_NR] = { 0 };

	if (cancelled(b))
		return -EINTR;
	/* Name what an old kernel lacks rather than show a verifier log. */
	if (features__check())
		return -ENOTSUP;
	fp_keep_syscall_filter(b);
	fp_check_kernel(b);
	for (int i = 0; i < b->nr_hooks; i++)
		had_fp |= b->hooks[i].fp >= 0;
	/*
	 * A kernel that refuses a fast path still records: its verifier says
	 * EACCES (as a missing capability would) or EINVAL, so any failure is
	 * tried once more without them (6.1-rt refused them so).
	 */
	err = open_load(b, r, scope_tgid, had_fp);
	if (err && had_fp && err != -E2BIG) {
		for (int i = 0; i < b->nr_hooks; i++)
			b->hooks[i].fp = -1;
		trigrec_bpf__destroy(b->skel);
		b->skel = NULL;
		wlog("the kernel refused the tp_btf fast paths (%s; -vv shows the verifier's log): "
		     "recording every event through tp_rec, which costs more per event",
		     strerror(-err));
		err = open_load(b, r, scope_tgid, 0);
	}
	if (err)
		return err;
	if (r->compact && !r->cr_mem && (err = map_compact(b, r)))
		return err;
	for (int i = 0; i < r->nr_rings; i++) {
		uint32_t key, fd = r->rings[i].fd;

		if (r->rings[i].set < 0 || r->rings[i].compact)
			continue;
		key = r->rings[i].set * b->skel->rodata->rec_slots + r->rings[i].cpu;
		if (bpf_map__update_elem(b->skel->maps.rec_rings, &key, sizeof(key), &fd,
					 sizeof(fd), 0))
			goto map_fail;
	}
	for (int i = 0; i < b->nr_hooks; i++) {
		uint32_t key = i;

		if ((b->hooks[i].cfg.flags & TRIGREC_HOOK_RECFILTER) &&
		    bpf_map__update_elem(b->skel->maps.rec_filters, &key, sizeof(key),
					 &b->hooks[i].recf, sizeof(b->hooks[i].recf), 0))
			goto map_fail;
	}
	if (r->rec_cpu_fd < 0 && (err = share_rec_cpu(b, r)))
		return err;
	if (r->cgroup_fd >= 0) {
		uint32_t key = 0, fd = r->cgroup_fd;

		if (bpf_map__update_elem(b->skel->maps.cgroup_scope, &key, sizeof(key), &fd,
					 sizeof(fd), 0)) {
			err = -errno;
			elog("cannot scope triggers to cgroup %s: %s", r->cgroup_path,
			     strerror(errno));
			return err;
		}
	}
	if (cgsel_count(trigs, b->nr_trigs) && !b->opts.cg) {
		elog("internal error: cgroup path conditions were not resolved");
		return -EINVAL;
	}
	for (int i = 0; b->opts.cg && i < b->opts.cg->n; i++) {
		const struct cgsel_ent *e = &b->opts.cg->ent[i];

		if (bpf_map__update_elem(b->skel->maps.cg_sets, &e->id, sizeof(e->id), &e->mask,
					 sizeof(e->mask), 0)) {
			err = -errno;
			elog("cannot fill the cgroup sets (cgroup %llu): %s",
			     (unsigned long long)e->id, strerror(errno));
			return err;
		}
	}
	b->opts.cg = NULL; /* the caller's: read here only */
	for (int i = 0, task_keyed = 0; i < b->nr_trigs; i++) {
		struct trigrec_trigger_cfg tcv = trigs[i].cfg, *tc = &tcv;
		uint32_t key = i;

		/* A cgroup path condition tests its bit of the run's conditions. */
		for (int sd = 0; sd < 2; sd++)
			for (int k = 0; k < TRIGREC_MAX_CLAUSES; k++) {
				struct trigrec_clause *c = &tc->side[sd].filter.c[k];

				if (c->src == TRIGREC_SRC_CGSET)
					c->offset = (uint16_t)cgsel_bit(trigs, i, c->offset);
			}

		/* Spans keyed by the current thread on both sides use task storage. */
		if (task_keyed < TRIGREC_TASK_SLOTS && bpfctl__task_keyed(tc)) {
			tc->flags |= TRIGREC_TF_TASK_KEY;
			task_keyed++;
		}

		if (bpf_map__update_elem(b->skel->maps.triggers, &key, sizeof(key), tc, sizeof(*tc),
					 0))
			goto map_fail;
	}
	for (int i = 0; i < b->nr_hooks; i++) {
		const struct bpf_hook *h = &b->hooks[i];
		uint32_t key = i;

		if (bpf_map__update_elem(b->skel->maps.hooks, &key, sizeof(key), &b->hooks[i].cfg,
					 sizeof(b->hooks[i].cfg), 0))
			goto map_fail;
		if (h->fp == TRIGREC_FP_SYS_ENTER || h->fp == TRIGREC_FP_SYS_EXIT) {
			uint32_t nr = h->sys_nr;
			struct trigrec_fp_syscall fs;

			if (bpf_map__lookup_elem(b->skel->maps.fp_syscalls, &nr, sizeof(nr), &fs,
						 sizeof(fs), 0))
				goto map_fail;
			if (h->fp == TRIGREC_FP_SYS_ENTER)
				fs.enter = i + 1;
			else
				fs.exit = i + 1;
			if (bpf_map__update_elem(b->skel->maps.fp_syscalls, &nr, sizeof(nr), &fs,
						 sizeof(fs), 0))
				goto map_fail;
		} else if (h->fp >= 0) {
			b->skel->bss->fp_hook[h->fp] = i + 1;
		}
		if (h->fp >= 0)
			fp_used[h->fp] = 1;
		if (b->hooks[i].is_probe &&
		    bpf_map__update_elem(b->skel->maps.probe_cfgs, &key, sizeof(key),
					 &b->hooks[i].probe, sizeof(b->hooks[i].probe), 0))
			goto map_fail;
	}
	/* A reload: the previous object's counters and policy state, before anything runs. */
	if (apply_carry(b))
		goto map_fail;
	/* Attach: every hook carries its index as cookie, so one program serves all. */
	for (int i = 0; i < b->nr_hooks; i++) {
		LIBBPF_OPTS(bpf_tracepoint_opts, o, .bpf_cookie = i);
		int probe = b->hooks[i].is_probe;
		int bpfrec = b->hooks[i].cfg.flags & TRIGREC_HOOK_BPFREC;
		struct bpf_program *cls = hook_rec_prog(b, &b->hooks[i]);
		struct bpf_program *tcls = hook_trig_prog(b, &b->hooks[i]);
		struct bpf_program *trig = probe ? b->skel->progs.probe_hook :
					   tcls	 ? tcls :
						   b->skel->progs.tp_hook;
		struct bpf_program *prog = b->hooks[i].cfg.ntrig ? trig :
					   probe		 ? b->skel->progs.probe_gate :
					   cls			 ? cls :
					   bpfrec		 ? b->skel->progs.tp_rec :
								   b->skel->progs.tp_gate;
		struct bpf_link *l;

		if (cancelled(b))
			return -EINTR;
		if (!b->hooks[i].cfg.ntrig && !bpfrec && b->opts.no_gates)
			continue;
		if (b->hooks[i].fp >= 0)
			continue; /* its tp_btf program, attached once below */
		if (cls || tcls)
			vlog("%s:%s: %s through %s (its %u-byte record read from ctx)",
			     b->hooks[i].tp.sys, b->hooks[i].tp.name, cls ? "recorded" : "tested",
			     bpf_program__name(prog), b->hooks[i].fmt->fixed_size);
		l = bpf_program__attach_tracepoint_opts(prog, b->hooks[i].tp.sys,
							b->hooks[i].tp.name, &o);

		if (!l) {
			err = -errno;
			elog("cannot attach to %s:%s: %s", b->hooks[i].tp.sys, b->hooks[i].tp.name,
			     strerror(errno));
			return err;
		}
		if (add_link(b, l))
			return -ENOMEM;
	}
	for (int k = 0; k < TRIGREC_FP_NR; k++) {
		struct bpf_program *prog = fp_prog(b, k);
		struct bpf_link *l;

		/* sys_enter serves raw_syscalls:sys_enter and syscalls:sys_enter_*: one link. */
		if (!fp_used[k] ||
		    (k == TRIGREC_FP_SYS_ENTER && fp_used[TRIGREC_FP_RAW_SYS_ENTER]) ||
		    (k == TRIGREC_FP_SYS_EXIT && fp_used[TRIGREC_FP_RAW_SYS_EXIT]))
			continue;
		if (cancelled(b))
			return -EINTR;
		l = bpf_program__attach(prog);
		if (!l) {
			err = -errno;
			elog("cannot attach the tp_btf fast path %s: %s (--no-fast-paths records "
			     "through tp_rec instead)",
			     bpf_program__name(prog), strerror(errno));
			return err;
		}
		if (add_link(b, l))
			return -ENOMEM;
	}
	for (int i = 0; i < r->nr_evs; i++) {
		struct rec_event *e = &r->evs[i];

		if (e->kind != REC_EV_SAMPLING || b->opts.no_gates)
			continue;
		for (int k = 0; k < e->nr_fds; k++) {
			struct bpf_link *l;

			if (cancelled(b))
				return -EINTR;
			l = bpf_program__attach_perf_event(b->skel->progs.pe_gate, e->fds[k]);
			if (!l) {
				/* Still exact: the snapshot trims this event by timestamp. */
				wlog("cannot gate %s (%s): records after a trigger may overwrite "
				     "history; the snapshot is still trimmed at the cut",
				     e->pd.name, strerror(errno));
				continue;
			}
			if (add_link(b, l))
				return -ENOMEM;
		}
	}
	return 0;
map_fail:
	err = -errno;
	elog("cannot configure BPF maps: %s", strerror(errno));
	return err;
}

struct bpfctl *bpfctl__new(struct recorder *r, const struct trig_def *trigs, int nr_trigs,
			   pid_t scope_tgid, const struct bpfctl_opts *opts)
{
	struct bpfctl *b = bpfctl__plan(r, trigs, nr_trigs, opts);

	if (b && bpfctl__attach(b, r, scope_tgid)) {
		bpfctl__free(b);
		return NULL;
	}
	return b;
}

void bpfctl__detach(struct bpfctl *b)
{
	for (int i = 0; i < b->nr_links; i++)
		bpf_link__destroy(b->links[i]);
	b->nr_links = 0;
}

void bpfctl__free(struct bpfctl *b)
{
	if (!b)
		return;
	bpfctl__detach(b);
	free(b->links);
	for (int i = 0; i < b->nr_hooks; i++)
		tp_format__free(b->hooks[i].fmt);
	free(b->hooks);
	free(b->base);
	trigrec_bpf__destroy(b->skel);
	free(b);
}

int bpfctl__freeze_now(struct bpfctl *b, uint64_t at)
{
	__u64 one = 1;

	if (!bpfctl__needs_freeze(b)) {
		/* As fire() does: a moment inside the window in flight is part of it. */
		__u64 we = __atomic_load_n(&b->skel->bss->window_end, __ATOMIC_SEQ_CST);

		if (!__atomic_load_n(&b->skel->bss->armed, __ATOMIC_SEQ_CST) || at <= we ||
		    __atomic_load_n(&b->skel->bss->inflight, __ATOMIC_SEQ_CST) >=
			    TRIGREC_MAX_INFLIGHT ||
		    !__atomic_compare_exchange_n(&b->skel->bss->window_end, &we, at, 0,
						 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return 0;
		__atomic_add_fetch(&b->skel->bss->inflight, 1, __ATOMIC_SEQ_CST);
		return 1 + bpfctl__flip_now(b, at);
	}
	/* The same compare-and-swap the BPF side uses: one owner per snapshot. */
	if (!__atomic_compare_exchange_n(&b->skel->bss->armed, &one, 0, 0, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		return 0;
	if (bpfctl__needs_freeze(b))
		__atomic_store_n(&b->skel->bss->freeze_at, at, __ATOMIC_SEQ_CST);
	return 1 + bpfctl__flip_now(b, at);
}

int bpfctl__budget_spend(struct bpfctl *b, uint64_t at, int spend)
{
	for (int i = 0; i < 2; i++) {
		uint64_t n = b->opts.budget_n[i], per = b->opts.budget_period_ns[i], interval, tat;

		if (!n)
			continue;
		interval = per / n;
		tat = __atomic_load_n(&b->skel->bss->budget_tat[i], __ATOMIC_SEQ_CST);
		/* fire()'s test: the bucket is full when its theoretical arrival time is a period - 1 ahead. */
		if (tat > at && tat - at > per - interval)
			return 0;
	}
	for (int i = 0; spend && i < 2; i++) {
		uint64_t n = b->opts.budget_n[i], per = b->opts.budget_period_ns[i];
		__u64 tat;

		if (!n)
			continue;
		/* The snapshot's owner spends, as fire() does: a CAS in case a firing after its window spends too. */
		tat = __atomic_load_n(&b->skel->bss->budget_tat[i], __ATOMIC_SEQ_CST);
		while (!__atomic_compare_exchange_n(&b->skel->bss->budget_tat[i], &tat,
						    (tat > at ? tat : at) + per / n, 0,
						    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			;
	}
	return 1;
}

void bpfctl__cut_at(struct bpfctl *b, uint64_t at)
{
	__u64 fa = __atomic_load_n(&b->skel->bss->flip_at, __ATOMIC_SEQ_CST);

	if (!bpfctl__needs_freeze(b))
		__atomic_store_n(&b->skel->bss->window_end, at, __ATOMIC_SEQ_CST);
	/* The window's flip too, so the set it leaves is not written past the new cut. */
	if (fa > at)
		__atomic_compare_exchange_n(&b->skel->bss->flip_at, &fa, at, 0, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
	__atomic_store_n(&b->skel->bss->freeze_at, at, __ATOMIC_SEQ_CST);
}

void bpfctl__block(struct bpfctl *b)
{
	__atomic_store_n(&b->skel->bss->armed, 0, __ATOMIC_SEQ_CST);
}

/*
 * rings=compact: both objects write one set of rings, and a record goes to
 * the spare when its object's flip_at says so. A snapshot of the old object
 * may still be on its way (a firing after the reload's last read of its
 * messages: it is harvested after the hand-over, against the old table):
 * its cut (flip_at), its claim of the spare (spare_free 0, until the spare
 * is copied into the carry) and its window go on in the new object, which
 * is live nowhere yet, so it sends what comes after that cut to the spare
 * as the old one does, and its firings inside that window are part of that
 * snapshot. That snapshot's settle and spare_back then act on the heir.
 */
static void hand_cut(struct bpfctl *nb, struct bpfctl *old)
{
	__u64 fa = __atomic_load_n(&old->skel->bss->flip_at, __ATOMIC_SEQ_CST);
	__u64 we = __atomic_load_n(&old->skel->bss->window_end, __ATOMIC_SEQ_CST);
	__u32 sf = __atomic_load_n(&old->skel->data->spare_free, __ATOMIC_SEQ_CST);

	__atomic_store_n(&nb->skel->bss->window_end, we, __ATOMIC_SEQ_CST);
	__atomic_store_n(&nb->skel->data->spare_free, sf, __ATOMIC_SEQ_CST);
	__atomic_store_n(&nb->skel->bss->flip_at, fa, __ATOMIC_SEQ_CST);
	old->heir = nb;
	if (!sf)
		vlog("reload: a snapshot of generation %u holds the compact spare (cut at %llu); "
		     "generation %u goes on from it",
		     old->opts.generation, (unsigned long long)fa, nb->opts.generation);
}

void bpfctl__take_over(struct bpfctl *nb, struct bpfctl *old, struct recorder *r)
{
	struct trigrec_rec_cpu *rc = r->rec_cpu;
	int ncpu = libbpf_num_possible_cpus(), moved = 0;
	uint32_t gen = nb->opts.generation;
	cpu_set_t mask, one;

	/*
	 * Nothing is in flight (the caller harvested what was posted): go on
	 * in the set the old object was writing, so a reload does not start
	 * overwriting the spare's older history.
	 */
	if (bpfctl__rings(old) && bpfctl__rings(nb) && old->skel->data->spare_free) {
		nb->skel->bss->set_before = old->skel->bss->set_before;
		nb->skel->data->set_after = old->skel->data->set_after;
	}
	if (bpfctl__compact(old) && bpfctl__compact(nb))
		hand_cut(nb, old);
	if (sched_getaffinity(0, sizeof(mask), &mask))
		CPU_ZERO(&mask);
	for (int c = 0; c < ncpu && c < TRIGREC_MAX_CPUS; c++) {
		/*
		 * Made on CPU c, the store falls between two events of that CPU,
		 * never inside one (a tracepoint runs its programs with preemption
		 * off): the old object's program and the new one's see the same
		 * generation, and the event is recorded once. From another CPU, an
		 * event at that instant could be recorded twice or not at all.
		 */
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		if (!sched_setaffinity(0, sizeof(one), &one) && sched_getcpu() == c)
			moved++;
		__atomic_store_n(&rc[c].live, gen, __ATOMIC_SEQ_CST);
	}
	if (CPU_COUNT(&mask))
		sched_setaffinity(0, sizeof(mask), &mask);
	vlog("reload: generation %u records and fires (switched on %d of %d CPUs from the CPU "
	     "itself; the others are not allowed here)",
	     gen, moved, ncpu);
	bpfctl__detach(old);
}

int bpfctl__rings(const struct bpfctl *b)
{
	return b->skel && b->skel->rodata->ring_mode;
}

int bpfctl__needs_freeze(const struct bpfctl *b)
{
	return !bpfctl__rings(b) || b->skel->rodata->need_freeze;
}

void bpfctl__taken(struct bpfctl *b)
{
	__u64 v = __atomic_load_n(&b->skel->bss->inflight, __ATOMIC_SEQ_CST);

	/* Never below 0: a message of an older object (reload) was never counted here. */
	while (v && !__atomic_compare_exchange_n(&b->skel->bss->inflight, &v, v - 1, 0,
						 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
}

int bpfctl__flip_now(struct bpfctl *b, uint64_t at)
{
	uint32_t one = 1;

	if (!bpfctl__rings(b) ||
	    !__atomic_compare_exchange_n(&b->skel->data->spare_free, &one, 0, 0, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		return 0;
	__atomic_store_n(&b->skel->bss->flip_at, at, __ATOMIC_SEQ_CST);
	return 1;
}

void bpfctl__settle(struct bpfctl *b)
{
	struct trigrec_bpf__bss *v = b->skel->bss;
	struct trigrec_bpf__data *d = b->skel->data; /* the two that start at 1 */
	uint32_t now_set = __atomic_load_n(&d->set_after, __ATOMIC_SEQ_CST);

	if (b->skel->rodata->compact) {
		/* Back to the main rings; the spare stays taken until its carry is copied. */
		__atomic_store_n(&v->flip_at, 0, __ATOMIC_SEQ_CST);
		if (b->heir)
			bpfctl__settle(b->heir);
		return;
	}
	/* In this order: a program between two stores still picks a set safe to write. */
	__atomic_store_n(&v->set_before, now_set, __ATOMIC_SEQ_CST);
	__atomic_store_n(&v->flip_at, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&d->set_after, (now_set + 1) % TRIGREC_RING_SETS, __ATOMIC_SEQ_CST);
	__atomic_store_n(&d->spare_free, 1, __ATOMIC_SEQ_CST);
}

int bpfctl__compact(const struct bpfctl *b)
{
	return b->skel && b->skel->rodata->compact;
}

void bpfctl__spare_back(struct bpfctl *b)
{
	__atomic_store_n(&b->skel->data->spare_free, 1, __ATOMIC_SEQ_CST);
	if (b->heir)
		bpfctl__spare_back(b->heir);
}

void bpfctl__thaw(struct bpfctl *b)
{
	__atomic_store_n(&b->skel->bss->freeze_at, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&b->skel->bss->armed, 1, __ATOMIC_SEQ_CST);
}

uint64_t bpfctl__recursion_misses(struct bpfctl *b)
{
	struct bpf_program *p;
	uint64_t sum = 0;

	if (!b || !b->skel) /* nothing loaded (a reload that could load nothing) */
		return 0;
	bpf_object__for_each_program(p, b->skel->obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(p);

		memset(&info, 0, sizeof(info));
		/* An unloaded program (autoload off) has no fd and no misses. */
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			sum += info.recursion_misses;
	}
	return sum;
}

static void stats_add(struct trigrec_stats *a, const struct trigrec_stats *b)
{
	uint64_t *x = (uint64_t *)a;
	const uint64_t *y = (const uint64_t *)b;

	for (size_t i = 0; i < sizeof(*a) / sizeof(uint64_t); i++)
		x[i] += y[i];
}

int bpfctl__stats(struct bpfctl *b, uint32_t id, struct trigrec_stats *out)
{
	int ncpu = libbpf_num_possible_cpus();
	struct trigrec_stats *v;
	int err;

	if (ncpu <= 0)
		return ncpu;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	err = bpf_map__lookup_elem(b->skel->maps.stats, &id, sizeof(id), v, ncpu * sizeof(*v), 0);
	memset(out, 0, sizeof(*out));
	for (int c = 0; !err && c < ncpu; c++) {
		out->fired += v[c].fired;
		out->coalesced += v[c].coalesced;
		out->rb_dropped += v[c].rb_dropped;
		out->gated += v[c].gated;
		out->evaluated += v[c].evaluated;
		out->matched += v[c].matched;
		out->suppressed_cooldown += v[c].suppressed_cooldown;
		out->suppressed_limit += v[c].suppressed_limit;
		out->stale_starts += v[c].stale_starts;
		out->suppressed_budget += v[c].suppressed_budget;
		out->str_faults += v[c].str_faults;
		out->rec_truncated += v[c].rec_truncated;
		out->rec_failed += v[c].rec_failed;
	}
	free(v);
	if (!err && b->base && (id < (uint32_t)b->nr_trigs || id == TRIGREC_MAX_TRIGGERS))
		stats_add(out, &b->base[id == TRIGREC_MAX_TRIGGERS ? b->nr_trigs : (int)id]);
	return err;
}

int bpfctl__learn_stat(struct bpfctl *b, uint32_t id, struct trigrec_learn_stat *out)
{
	memset(out, 0, sizeof(*out));
	if (!b || !b->skel || id >= TRIGREC_MAX_TRIGGERS)
		return -EINVAL;
	return bpf_map__lookup_elem(b->skel->maps.learn_stat, &id, sizeof(id), out, sizeof(*out),
				    0);
}

int bpfctl__learn_all(struct bpfctl *b, uint32_t id, struct trigrec_learn *out)
{
	memset(out, 0, sizeof(*out));
	if (!b || !b->skel || id >= (uint32_t)b->nr_trigs || !b->trigs[id].cfg.learn_pct)
		return -EINVAL;
	return bpf_map__lookup_elem(b->skel->maps.learn_all, &id, sizeof(id), out, sizeof(*out), 0);
}

int bpfctl__near_miss(struct bpfctl *b, uint32_t id, struct trigrec_near_miss *out)
{
	memset(out, 0, sizeof(*out));
	if (!b || !b->skel || id >= TRIGREC_MAX_TRIGGERS)
		return -EINVAL;
	return bpf_map__lookup_elem(b->skel->maps.near_miss, &id, sizeof(id), out, sizeof(*out), 0);
}

int bpfctl__keyed_nm(const struct trigrec_trigger_cfg *tc)
{
	return (tc->kind == TRIGREC_TRIG_LATENCY || tc->kind == TRIGREC_TRIG_RATE) &&
	       tc->side[TRIGREC_ROLE_EVENT].key.p[0].src;
}

const char *bpfctl__key_nm_text(const struct trigrec_trigger_cfg *tc, const uint64_t *key,
				char *out, size_t len)
{
	size_t o = 0;

	out[0] = 0;
	for (int i = 0; i < TRIGREC_MAX_KEY_PARTS && o < len; i++) {
		const struct trigrec_key_part *p = &tc->side[TRIGREC_ROLE_EVENT].key.p[i];
		int str = p->src == TRIGREC_SRC_USTR || p->src == TRIGREC_SRC_KSTR;
		int w;

		if (i && !p->src)
			break;
		w = snprintf(out + o, len - o, str ? "%s0x%llx" : "%s%llu", i ? "/" : "",
			     (unsigned long long)key[i]);
		if (w < 0)
			break;
		o += (size_t)w;
	}
	return out;
}

void bpfctl__key_nm_add(struct bpfctl_key_nm *top, int *n, const uint64_t *key,
			const struct trigrec_key_nm *e, uint64_t fired_total)
{
	int i = *n;

	if (!e->all[0] || (i == BPF_NM_KEYS && e->all[0] <= top[BPF_NM_KEYS - 1].all[0]))
		return;
	if (i == BPF_NM_KEYS)
		i--;
	else
		(*n)++;
	for (; i > 0 && top[i - 1].all[0] < e->all[0]; i--)
		top[i] = top[i - 1];
	memcpy(top[i].key, key, sizeof(top[i].key));
	memcpy(top[i].all, e->all, sizeof(top[i].all));
	if (e->epoch == fired_total)
		memcpy(top[i].last, e->last, sizeof(top[i].last));
	else
		memset(top[i].last, 0, sizeof(top[i].last));
}

/* The key of key_nm (struct tkey in state.bpf.h, kind 6). */
struct nm_tkey {
	uint32_t trig;
	uint32_t kind;
	uint64_t k[TRIGREC_MAX_KEY_PARTS];
};

int bpfctl__key_near_miss(struct bpfctl *b, uint32_t id, struct bpfctl_key_nm *top, int at_firing)
{
	struct trigrec_trig_state ts;
	struct nm_tkey k, next;
	struct bpf_map *map;
	int n = 0, err;

	if (!b || !b->skel || id >= (uint32_t)b->nr_trigs)
		return -EINVAL;
	if (!bpfctl__keyed_nm(&b->trigs[id].cfg))
		return 0;
	err = bpf_map__lookup_elem(b->skel->maps.trig_state, &id, sizeof(id), &ts, sizeof(ts), 0);
	if (err)
		return err;
	map = b->skel->maps.key_nm;
	/* A walk of the whole LRU (--max-keys entries at most), under no lock: a statistic. */
	for (err = bpf_map__get_next_key(map, NULL, &next, sizeof(next)); !err;
	     err = bpf_map__get_next_key(map, &k, &next, sizeof(next))) {
		struct trigrec_key_nm e;

		k = next;
		if (k.trig != id || k.kind != 6 ||
		    bpf_map__lookup_elem(map, &k, sizeof(k), &e, sizeof(e), 0))
			continue;
		bpfctl__key_nm_add(top, &n, k.k, &e,
				   at_firing && ts.fired_total ? ts.fired_total - 1 :
								 ts.fired_total);
	}
	return n;
}

void bpfctl__stats_retired(const struct bpfctl *b, struct trigrec_stats *out)
{
	if (b)
		*out = b->retired;
	else
		memset(out, 0, sizeof(*out));
}

uint64_t bpfctl__recursion_total(struct bpfctl *b)
{
	return b ? b->recursion_base + bpfctl__recursion_misses(b) : 0;
}

/* The key of rate_buckets and key_cooldown (struct tkey in trigrec.bpf.c). */
struct carry_tkey {
	uint32_t trig;
	uint32_t kind;
	uint64_t k[TRIGREC_MAX_KEY_PARTS];
};

struct carry_trig {
	char name[64];
	struct trigrec_trigger_cfg cfg;
	/* Its cgroup path conditions: cfg holds only their numbers, not the paths. */
	struct trig_cgcond cg[TL_MAX_CG_PER_TRIG];
	int nr_cg;
	struct trigrec_trig_state st;
	struct trigrec_stats total; /* since the start */
	int have_st;
};

struct carry_keys {
	struct carry_tkey *k;
	uint64_t *v; /* value_size / 8 words each */
	int n, words;
};

struct bpfctl_carry {
	uint64_t now; /* CLOCK_MONOTONIC when taken, as bpf_ktime_get_ns() */
	int nr;
	struct carry_trig *t;
	struct trigrec_stats global, retired;
	uint64_t recursion;
	int have_budget;
	uint64_t budget_tat[2], budget_n[2], budget_period_ns[2];
	struct carry_keys keys[2]; /* rate_buckets, key_cooldown */
};

/* Every entry of an LRU hash map of struct tkey (a reload: nothing writes it any more). */
static int carry_keys(struct bpf_map *m, struct carry_keys *ck)
{
	int fd = bpf_map__fd(m), cap = 0;
	struct carry_tkey k, *prev = NULL;

	if (bpf_map__key_size(m) != sizeof(k) || bpf_map__value_size(m) % 8)
		return 0; /* the layout changed: nothing carried rather than garbage */
	ck->words = bpf_map__value_size(m) / 8;
	while (!bpf_map_get_next_key(fd, prev, &k)) {
		if (ck->n == cap) {
			int nc = cap ? cap * 2 : 256;
			struct carry_tkey *nk = realloc(ck->k, nc * sizeof(*nk));
			uint64_t *nv = nk ? realloc(ck->v, nc * ck->words * sizeof(*nv)) : NULL;

			if (nk)
				ck->k = nk;
			if (!nv)
				return -ENOMEM;
			ck->v = nv;
			cap = nc;
		}
		if (bpf_map_lookup_elem(fd, &k, ck->v + ck->n * ck->words))
			continue; /* gone meanwhile */
		ck->k[ck->n] = k;
		prev = &ck->k[ck->n++];
	}
	return 0;
}

struct bpfctl_carry *bpfctl__carry_take(struct bpfctl *old)
{
	struct bpfctl_carry *c = calloc(1, sizeof(*c));

	if (!c || !old || !old->skel) {
		if (!c)
			elog("reload: out of memory: counters and policy state start again");
		return c;
	}
	c->now = mono_ns();
	c->t = calloc(old->nr_trigs ? old->nr_trigs : 1, sizeof(*c->t));
	if (!c->t)
		goto nomem;
	c->nr = old->nr_trigs;
	for (int i = 0; i < old->nr_trigs; i++) {
		struct carry_trig *t = &c->t[i];
		uint32_t key = i;

		snprintf(t->name, sizeof(t->name), "%s", old->trigs[i].name);
		t->cfg = old->trigs[i].cfg;
		t->nr_cg = old->trigs[i].nr_cg;
		memcpy(t->cg, old->trigs[i].cg, sizeof(t->cg));
		bpfctl__stats(old, i, &t->total);
		t->have_st = !bpf_map__lookup_elem(old->skel->maps.trig_state, &key, sizeof(key),
						   &t->st, sizeof(t->st), 0);
	}
	bpfctl__stats(old, TRIGREC_MAX_TRIGGERS, &c->global);
	c->retired = old->retired;
	c->recursion = bpfctl__recursion_total(old);
	c->have_budget = 1;
	for (int i = 0; i < 2; i++) {
		c->budget_tat[i] = old->skel->bss->budget_tat[i];
		c->budget_n[i] = old->opts.budget_n[i];
		c->budget_period_ns[i] = old->opts.budget_period_ns[i];
	}
	if (carry_keys(old->skel->maps.rate_buckets, &c->keys[0]) ||
	    carry_keys(old->skel->maps.key_cooldown, &c->keys[1]))
		goto nomem;
	return c;
nomem:
	elog("reload: out of memory: counters and policy state start again");
	bpfctl__carry_free(c);
	return calloc(1, sizeof(struct bpfctl_carry));
}

void bpfctl__set_carry(struct bpfctl *b, const struct bpfctl_carry *c)
{
	b->carry = c;
}

void bpfctl__carry_free(struct bpfctl_carry *c)
{
	if (!c)
		return;
	free(c->t);
	for (int i = 0; i < 2; i++) {
		free(c->keys[i].k);
		free(c->keys[i].v);
	}
	free(c);
}

/*
 * A GCRA bucket (tat: when it is full again) of one token per old_int,
 * moved to one token per new_int with the tokens already spent kept: the
 * debt tat - now is rescaled, at most a whole new period. 0 = full.
 */
static uint64_t rescale_tat(uint64_t tat, uint64_t now, uint64_t old_int, uint64_t new_int,
			    uint64_t new_period)
{
	unsigned __int128 debt;

	if (!tat || !old_int || !new_int || tat <= now)
		return tat && old_int == new_int ? tat : 0;
	if (old_int == new_int)
		return tat;
	debt = (unsigned __int128)(tat - now) * new_int / old_int;
	if (debt > new_period)
		debt = new_period;
	return now + (uint64_t)debt;
}

/*
 * The same condition: everything but the policies (post, cooldowns, limit,
 * max), and the same cgroup paths (the clauses name a condition by its
 * number in the run, so `cgroup ~ "/a/..."` and `cgroup ~ "/b/..."` compile
 * alike).
 */
static int same_condition(const struct carry_trig *o, const struct trig_def *n)
{
	struct trigrec_trigger_cfg x = o->cfg, y = n->cfg;

	if (o->nr_cg != n->nr_cg)
		return 0;
	for (int i = 0; i < o->nr_cg; i++)
		if (o->cg[i].form != n->cg[i].form || strcmp(o->cg[i].lit, n->cg[i].lit))
			return 0;

	x.post_ns = y.post_ns = 0;
	x.cooldown_ns = y.cooldown_ns = 0;
	x.key_cooldown_ns = y.key_cooldown_ns = 0;
	x.limit = y.limit = 0;
	x.limit_period_ns = y.limit_period_ns = 0;
	x.max_total = y.max_total = 0;
	return !memcmp(&x, &y, sizeof(x));
}

/* After load, before anything is attached: nothing runs yet to race with these writes. */
static int apply_carry(struct bpfctl *b)
{
	const struct bpfctl_carry *c = b->carry;
	int *to_new;

	if (!c || !c->now)
		return 0;
	b->base = calloc(b->nr_trigs + 1, sizeof(*b->base));
	to_new = calloc(c->nr ? c->nr : 1, sizeof(*to_new));
	if (!b->base || !to_new) {
		free(to_new);
		return -ENOMEM;
	}
	b->base[b->nr_trigs] = c->global;
	b->retired = c->retired;
	b->recursion_base = c->recursion;
	for (int j = 0; j < c->nr; j++) {
		const struct carry_trig *o = &c->t[j];
		int i = 0;

		while (i < b->nr_trigs && strcmp(b->trigs[i].name, o->name))
			i++;
		to_new[j] = -1;
		if (i == b->nr_trigs) {
			/* Removed: its counts stay in the totals. */
			stats_add(&b->retired, &o->total);
			continue;
		}
		b->base[i] = o->total;
		if (o->have_st) {
			const struct trigrec_trigger_cfg *n = &b->trigs[i].cfg;
			struct trigrec_trig_state st = { 0 };
			uint32_t key = i;
			int same = same_condition(o, &b->trigs[i]);

			st.fired_total = o->st.fired_total;
			st.last_fire_ns = o->st.last_fire_ns;
			if (o->cfg.limit && n->limit)
				st.limit_tat_ns = rescale_tat(o->st.limit_tat_ns, c->now,
							      o->cfg.limit_period_ns / o->cfg.limit,
							      n->limit_period_ns / n->limit,
							      n->limit_period_ns);
			if (same)
				st.matches = o->st.matches;
			if (bpf_map__update_elem(b->skel->maps.trig_state, &key, sizeof(key), &st,
						 sizeof(st), 0))
				goto fail;
			to_new[j] = same ? i : -1;
		}
	}
	for (int k = 0; k < 2 && c->have_budget; k++) {
		uint64_t on = c->budget_n[k], nn = b->opts.budget_n[k];

		if (on && nn)
			b->skel->bss->budget_tat[k] = rescale_tat(
				c->budget_tat[k], c->now, c->budget_period_ns[k] / on,
				b->opts.budget_period_ns[k] / nn, b->opts.budget_period_ns[k]);
	}
	/* Keyed state only where the condition (and so the key) is the same. */
	for (int m = 0; m < 2; m++) {
		const struct carry_keys *ck = &c->keys[m];
		struct bpf_map *map = m ? b->skel->maps.key_cooldown : b->skel->maps.rate_buckets;

		if (bpf_map__value_size(map) != ck->words * 8u)
			continue;
		for (int e = 0; e < ck->n; e++) {
			struct carry_tkey k = ck->k[e];

			if (k.trig >= (uint32_t)c->nr || to_new[k.trig] < 0)
				continue;
			k.trig = to_new[k.trig];
			/* An LRU map makes room by itself; a full one is no reason to fail. */
			bpf_map_update_elem(bpf_map__fd(map), &k, ck->v + e * ck->words, BPF_ANY);
		}
	}
	free(to_new);
	return 0;
fail:
	free(to_new);
	return -errno;
}

int bpfctl__sideband_fd(struct bpfctl *b)
{
	return bpf_map__fd(b->skel->maps.sideband);
}
