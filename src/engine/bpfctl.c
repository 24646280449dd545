// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "engine/bpfctl.h"
#include "engine/features.h"
#include "util/log.h"
#include "trigrec.skel.h"

static int find_hook(struct bpfctl *b, const struct tp_name *tp)
{
	for (int i = 0; i < b->nr_hooks; i++)
		if (!strcmp(b->hooks[i].tp.sys, tp->sys) && !strcmp(b->hooks[i].tp.name, tp->name))
			return i;
	return -1;
}

static int add_hook(struct bpfctl *b, const struct tp_name *tp, int recorded)
{
	struct bpf_hook *h;
	int i = find_hook(b, tp);

	if (i >= 0) {
		b->hooks[i].recorded |= recorded;
		return i;
	}
	if (b->nr_hooks >= TRIGREC_MAX_HOOKS) {
		elog("too many tracepoints: at most %d can be recorded or trigger in one run",
		     TRIGREC_MAX_HOOKS);
		return -E2BIG;
	}
	h = realloc(b->hooks, (b->nr_hooks + 1) * sizeof(*h));
	if (!h)
		return -ENOMEM;
	b->hooks = h;
	h = &h[b->nr_hooks];
	memset(h, 0, sizeof(*h));
	h->tp = *tp;
	h->recorded = recorded;
	h->fmt = tp_format__load(tp->sys, tp->name);
	if (!h->fmt) {
		elog("cannot read the format of %s:%s: %s", tp->sys, tp->name, strerror(errno));
		return -errno;
	}
	return b->nr_hooks++;
}

static int add_link(struct bpfctl *b, struct bpf_link *l)
{
	struct bpf_link **links = realloc(b->links, (b->nr_links + 1) * sizeof(*links));

	if (!links) {
		bpf_link__destroy(l);
		return -ENOMEM;
	}
	b->links = links;
	b->links[b->nr_links++] = l;
	return 0;
}

/* Put one side of trigger `id` on the hooks of its tracepoint(s). */
static int hook_trigger(struct bpfctl *b, const struct trig_def *t, uint32_t id, int role,
			struct trigrec_hook_cfg *cfgs)
{
	const char *ev = t->event[role];
	struct tp_name *tps = NULL;
	int n;

	if (!ev[0])
		return 0;
	n = tracefs_glob(ev, &tps);
	if (n <= 0) {
		char sugg[512] = "";

		if (n == 0 && !strpbrk(ev, "*?["))
			tracefs_suggest(ev, sugg, sizeof(sugg), 3);
		if (sugg[0])
			elog("trigger '%s': no tracepoint %s (did you mean %s?)", t->text, ev, sugg);
		else
			elog("trigger '%s': no tracepoint matches '%s' (see `trigrec list`)", t->text, ev);
		free(tps);
		return n < 0 ? n : -ENOENT;
	}
	for (int i = 0; i < n; i++) {
		int h = add_hook(b, &tps[i], 0);
		struct trigrec_hook_cfg *c;

		if (h < 0) {
			free(tps);
			return h;
		}
		c = &cfgs[h];
		if (c->ntrig >= TRIGREC_MAX_HOOK_TRIGGERS) {
			elog("trigger '%s': more than %d triggers on %s:%s", t->text,
			     TRIGREC_MAX_HOOK_TRIGGERS, tps[i].sys, tps[i].name);
			free(tps);
			return -E2BIG;
		}
		c->trig[c->ntrig++] = TRIGREC_HOOK_TRIG(id, role);
	}
	free(tps);
	return 0;
}

static int is_thread_key(const struct trigrec_keyspec *k)
{
	return k->p[0].src == TRIGREC_SRC_TID && !k->p[1].src;
}

/* Does any field of this format live past the fixed part (__data_loc strings)? */
static int has_dataloc(const struct tp_format *f)
{
	for (int i = 0; i < f->nr_fields; i++)
		if (f->fields[i].kind == TP_FIELD_DATALOC)
			return 1;
	return 0;
}

struct bpfctl *bpfctl__new(struct recorder *r, const struct trig_def *trigs, int nr_trigs,
			   pid_t scope_tgid, const struct bpfctl_opts *opts)
{
	struct trigrec_hook_cfg *cfgs = calloc(TRIGREC_MAX_HOOKS, sizeof(*cfgs));
	struct bpfctl *b = calloc(1, sizeof(*b));
	int err;

	if (!b || !cfgs)
		goto fail;
	if (nr_trigs > TRIGREC_MAX_TRIGGERS) {
		elog("too many triggers: %d given, at most %d", nr_trigs, TRIGREC_MAX_TRIGGERS);
		goto fail;
	}
	b->trigs = trigs;
	b->nr_trigs = nr_trigs;
	for (int i = 0; i < r->nr_evs; i++) {
		struct rec_event *e = &r->evs[i];
		struct tp_name tp;

		if (e->kind != REC_EV_TRACEPOINT)
			continue;
		snprintf(tp.sys, sizeof(tp.sys), "%s", e->pd.tp_sys);
		snprintf(tp.name, sizeof(tp.name), "%s", e->pd.tp_name);
		if (add_hook(b, &tp, 1) < 0)
			goto fail;
	}
	/*
	 * Ends before starts on every hook: an event that both ends and starts
	 * latencies (sched_switch) must not match the start it just recorded.
	 */
	for (int i = 0; i < nr_trigs; i++)
		if (hook_trigger(b, &trigs[i], i, TRIGREC_ROLE_EVENT, cfgs))
			goto fail;
	for (int i = 0; i < nr_trigs; i++)
		if (hook_trigger(b, &trigs[i], i, TRIGREC_ROLE_START, cfgs))
			goto fail;

	/* Name what an old kernel lacks rather than show a verifier log. */
	if (features__check())
		goto fail;
	b->skel = trigrec_bpf__open();
	if (!b->skel) {
		elog("cannot open the BPF object: %s", strerror(errno));
		goto fail;
	}
	b->skel->rodata->scope_tgid = scope_tgid;
	/* Task mode: our per-task events only ever see the scope's records. */
	b->skel->rodata->scope_gates = scope_tgid && r->opts.tids;
	if (r->opts.cpumask) {
		b->skel->rodata->cpu_limited = 1;
		for (int c = 0; c < r->nr_cpus; c++)
			if (r->cpus[c] < TRIGREC_MAX_CPUS)
				b->skel->rodata->cpu_recorded[r->cpus[c]] = 1;
	}
	if (opts && opts->lat_starts)
		bpf_map__set_max_entries(b->skel->maps.lat_starts, opts->lat_starts);
	if (opts && opts->keys) {
		bpf_map__set_max_entries(b->skel->maps.rate_buckets, opts->keys);
		bpf_map__set_max_entries(b->skel->maps.key_cooldown, opts->keys);
	}
	err = trigrec_bpf__load(b->skel);
	if (err) {
		if (err == -EPERM || err == -EACCES)
			elog("cannot load BPF programs: permission denied; run as root or grant "
			     "CAP_BPF and CAP_PERFMON");
		else
			elog("cannot load BPF programs: %s (rerun with -vv for the verifier log)",
			     strerror(-err));
		goto fail;
	}
	for (int i = 0, task_keyed = 0; i < nr_trigs; i++) {
		struct trigrec_trigger_cfg tcv = trigs[i].cfg, *tc = &tcv;
		uint32_t key = i;

		/* Spans keyed by the current thread on both sides use task storage. */
		if (tc->kind == TRIGREC_TRIG_LATENCY && task_keyed < TRIGREC_TASK_SLOTS &&
		    is_thread_key(&tc->side[0].key) && is_thread_key(&tc->side[1].key)) {
			tc->flags |= TRIGREC_TF_TASK_KEY;
			task_keyed++;
		}

		if (bpf_map__update_elem(b->skel->maps.triggers, &key, sizeof(key), tc, sizeof(*tc), 0))
			goto map_fail;
	}
	for (int i = 0; i < b->nr_hooks; i++) {
		uint32_t key = i;

		cfgs[i].flags = b->hooks[i].recorded ? TRIGREC_HOOK_RECORDED : 0;
		if (b->hooks[i].recorded && !(opts && opts->no_gates))
			cfgs[i].flags |= TRIGREC_HOOK_GATED;
		/* What filters and the message may read: the fixed part, plus strings. */
		cfgs[i].data_size = b->hooks[i].fmt->fixed_size +
				    (has_dataloc(b->hooks[i].fmt) ? 256 : 0);
		if (cfgs[i].data_size > 512)
			cfgs[i].data_size = 512;
		if (bpf_map__update_elem(b->skel->maps.hooks, &key, sizeof(key), &cfgs[i],
					 sizeof(cfgs[i]), 0))
			goto map_fail;
	}
	/* Attach: every hook carries its index as cookie, so one program serves all. */
	for (int i = 0; i < b->nr_hooks; i++) {
		LIBBPF_OPTS(bpf_tracepoint_opts, o, .bpf_cookie = i);
		struct bpf_program *prog = cfgs[i].ntrig ? b->skel->progs.tp_hook :
							   b->skel->progs.tp_gate;
		struct bpf_link *l;

		if (!cfgs[i].ntrig && opts && opts->no_gates)
			continue;
		l = bpf_program__attach_tracepoint_opts(prog, b->hooks[i].tp.sys,
							b->hooks[i].tp.name, &o);

		if (!l) {
			elog("cannot attach to %s:%s: %s", b->hooks[i].tp.sys, b->hooks[i].tp.name,
			     strerror(errno));
			goto fail;
		}
		if (add_link(b, l))
			goto fail;
	}
	for (int i = 0; i < r->nr_evs; i++) {
		struct rec_event *e = &r->evs[i];

		if (e->kind != REC_EV_SAMPLING || (opts && opts->no_gates))
			continue;
		for (int k = 0; k < e->nr_fds; k++) {
			struct bpf_link *l = bpf_program__attach_perf_event(b->skel->progs.pe_gate,
									    e->fds[k]);

			if (!l) {
				/* Still exact: the snapshot trims this event by timestamp. */
				wlog("cannot gate %s (%s): records after a trigger may overwrite "
				     "history; the snapshot is still trimmed at the cut", e->pd.name,
				     strerror(errno));
				continue;
			}
			if (add_link(b, l))
				goto fail;
		}
	}
	free(cfgs);
	return b;
map_fail:
	elog("cannot configure BPF maps: %s", strerror(errno));
fail:
	free(cfgs);
	bpfctl__free(b);
	return NULL;
}

void bpfctl__free(struct bpfctl *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->nr_links; i++)
		bpf_link__destroy(b->links[i]);
	free(b->links);
	for (int i = 0; i < b->nr_hooks; i++)
		tp_format__free(b->hooks[i].fmt);
	free(b->hooks);
	trigrec_bpf__destroy(b->skel);
	free(b);
}

int bpfctl__freeze_now(struct bpfctl *b, uint64_t at)
{
	__u64 one = 1;

	/* The same compare-and-swap the BPF side uses: one owner per snapshot. */
	if (!__atomic_compare_exchange_n(&b->skel->bss->armed, &one, 0, 0, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		return 0;
	__atomic_store_n(&b->skel->bss->freeze_at, at, __ATOMIC_SEQ_CST);
	return 1;
}

void bpfctl__thaw(struct bpfctl *b)
{
	__atomic_store_n(&b->skel->bss->freeze_at, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&b->skel->bss->armed, 1, __ATOMIC_SEQ_CST);
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
	}
	free(v);
	return err;
}

int bpfctl__sideband_fd(struct bpfctl *b)
{
	return bpf_map__fd(b->skel->maps.sideband);
}
