// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `trigrec test`: snapshots read back (show/pdread.c), their tracepoint
 * records merged in time order across files, each evaluated by the
 * engine's own code (engine_host.c) as tp_hook would evaluate it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/bpfctl.h"
#include "replay/replay.h"

static int fmt_index(const struct replay *rp, const char *sys, const char *name)
{
	for (int i = 0; i < rp->nr_fmts; i++)
		if (!strcmp(rp->fmts[i]->sys, sys) && !strcmp(rp->fmts[i]->name, name))
			return i;
	return -1;
}

struct replay *replay_new(void)
{
	return calloc(1, sizeof(struct replay));
}

int replay_add(struct replay *rp, struct pdr_file *f, const char *name)
{
	struct pdr_file **files =
		realloc(rp->files, (rp->nr_files + 1) * sizeof(struct pdr_file *));
	const char **paths;

	if (files)
		rp->files = files;
	paths = files ? realloc(rp->paths, (rp->nr_files + 1) * sizeof(const char *)) : NULL;
	if (!paths) {
		pdr_close(f);
		return -ENOMEM;
	}
	rp->paths = paths;
	rp->files[rp->nr_files] = f;
	rp->paths[rp->nr_files++] = name;
	for (int a = 0; a < f->nr_attrs; a++) {
		const struct tp_format *fmt = f->attrs[a].fmt;
		const struct tp_format **nf;

		if (!fmt || fmt_index(rp, fmt->sys, fmt->name) >= 0)
			continue;
		nf = realloc(rp->fmts, (rp->nr_fmts + 1) * sizeof(const struct tp_format *));
		if (!nf)
			return -ENOMEM;
		rp->fmts = nf;
		rp->fmts[rp->nr_fmts++] = fmt;
	}
	return 0;
}

struct replay *replay_open(const char *const *paths, int n, char *err, size_t errlen)
{
	struct replay *rp = replay_new();

	if (!rp) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		/* headers, formats and names now; the records once, as replay_run() walks them */
		struct pdr_file *f = pdr_open_flags(paths[i], PDR_STREAM, err, errlen);

		if (!f) {
			replay_close(rp);
			return NULL;
		}
		if (replay_add(rp, f, paths[i])) {
			snprintf(err, errlen, "out of memory");
			replay_close(rp);
			return NULL;
		}
	}
	return rp;
}

void replay_close(struct replay *rp)
{
	if (!rp)
		return;
	for (int i = 0; i < rp->nr_files; i++)
		pdr_close(rp->files[i]);
	free(rp->files);
	free(rp->paths);
	free(rp->fmts);
	free(rp);
}

/* What a record cannot give the replay: the text behind a pointer, the cgroup. */
static const char *unreplayable(__u8 src)
{
	switch (src) {
	case TRIGREC_SRC_USTR:
	case TRIGREC_SRC_KSTR:
		return "reads the text behind a pointer (str()), which a recording does not hold";
	case TRIGREC_SRC_CGROUP:
	case TRIGREC_SRC_CGSET:
		return "tests the task's cgroup, which trigrec's records do not carry";
	}
	return NULL;
}

static void where(const struct cfg_origin *o, char *buf, size_t len)
{
	if (o && o->file && o->line)
		snprintf(buf, len, " (%s:%d)", o->file, o->line);
	else
		buf[0] = 0;
}

int replay_check(const struct replay *rp, const struct trig_def *trigs, int n,
		 const struct cfg_origin *origins, char *err, size_t errlen)
{
	for (int i = 0; i < n; i++) {
		const struct trig_def *t = &trigs[i];
		char at[300];

		where(origins ? &origins[i] : NULL, at, sizeof(at));
		for (int role = 0; role < 2; role++) {
			const struct trigrec_side *sd = &t->cfg.side[role];
			const char *why = NULL;
			struct tp_name *tps = NULL;
			int m;

			for (int k = 0; k < TRIGREC_MAX_CLAUSES && (__u32)k < sd->filter.n && !why;
			     k++)
				why = unreplayable(sd->filter.c[k].src);
			for (int k = 0; k < TRIGREC_MAX_KEY_PARTS && !why; k++)
				why = unreplayable(sd->key.p[k].src);
			if (why) {
				snprintf(
					err, errlen,
					"trigger %s%s %s: it cannot be replayed on a file; test it "
					"live (trigrec run), or leave that part out to test the rest",
					t->name, at, why);
				return -EINVAL;
			}
			if (!t->event[role][0])
				continue;
			m = trig_event_glob(t->event[role], &tps);
			free(tps);
			if (m <= 0) {
				char which[300];

				if (rp->nr_files == 1)
					snprintf(which, sizeof(which), "%s did not record",
						 rp->paths[0]);
				else
					snprintf(which, sizeof(which),
						 "none of the %d files recorded", rp->nr_files);
				snprintf(err, errlen,
					 "trigger %s%s needs %s, which %s: record it too (-e %s, "
					 "or `record EVENT` in the script) and test a snapshot of "
					 "that run",
					 t->name, at, t->event[role], which, t->event[role]);
				return -EINVAL;
			}
		}
	}
	return 0;
}

static int has_dataloc(const struct tp_format *f)
{
	for (int i = 0; i < f->nr_fields; i++)
		if (f->fields[i].kind == TP_FIELD_DATALOC)
			return 1;
	return 0;
}

int replay_plan(const struct tp_format *const *fmts, int nr_fmts, const struct trig_def *trigs,
		int n, struct trigrec_hook_cfg *hooks)
{
	memset(hooks, 0, nr_fmts * sizeof(*hooks));
	for (int h = 0; h < nr_fmts; h++) {
		hooks[h].flags = TRIGREC_HOOK_RECORDED;
		hooks[h].tp_id = (__u16)fmts[h]->id;
		/* What filters and the message may read: the fixed part, plus strings. */
		hooks[h].data_size = fmts[h]->fixed_size + (has_dataloc(fmts[h]) ? 256 : 0);
		if (hooks[h].data_size > 512)
			hooks[h].data_size = 512;
	}
	/* Ends before starts on every hook, as bpfctl__plan() puts them. */
	for (int role = TRIGREC_ROLE_EVENT; role <= TRIGREC_ROLE_START; role++)
		for (int i = 0; i < n; i++) {
			struct tp_name *tps = NULL;
			int m;

			if (!trigs[i].event[role][0])
				continue;
			m = trig_event_glob(trigs[i].event[role], &tps);
			for (int k = 0; k < m; k++)
				for (int h = 0; h < nr_fmts; h++) {
					struct trigrec_hook_cfg *c = &hooks[h];

					if (strcmp(fmts[h]->sys, tps[k].sys) ||
					    strcmp(fmts[h]->name, tps[k].name))
						continue;
					if (c->ntrig >= TRIGREC_MAX_HOOK_TRIGGERS) {
						free(tps);
						return -E2BIG;
					}
					c->trig[c->ntrig++] = TRIGREC_HOOK_TRIG(i, role);
				}
			free(tps);
			if (m < 0)
				return m;
		}
	return 0;
}

/* Thread names as COMM and FORK records give them, in time order. */
struct comm_ent {
	uint32_t tid; /* 0: free (tid 0 is the idle task: "swapper") */
	char comm[TRIGREC_COMM_LEN];
};

struct comms {
	struct comm_ent *e;
	uint32_t cap, n;
};

static struct comm_ent *comm_slot(struct comms *c, uint32_t tid, int add)
{
	uint32_t i;

	if (!c->cap || (add && c->n * 2 >= c->cap)) {
		struct comms g = { .cap = c->cap ? c->cap * 2 : 1024 };

		if (!add && !c->cap)
			return NULL;
		g.e = calloc(g.cap, sizeof(*g.e));
		if (!g.e)
			return NULL;
		for (uint32_t k = 0; k < c->cap; k++)
			if (c->e[k].tid) {
				uint32_t j = (c->e[k].tid * 2654435761u) & (g.cap - 1);

				while (g.e[j].tid)
					j = (j + 1) & (g.cap - 1);
				g.e[j] = c->e[k];
				g.n++;
			}
		free(c->e);
		*c = g;
	}
	for (i = (tid * 2654435761u) & (c->cap - 1); c->e[i].tid; i = (i + 1) & (c->cap - 1))
		if (c->e[i].tid == tid)
			return &c->e[i];
	if (!add)
		return NULL;
	c->e[i].tid = tid;
	c->n++;
	return &c->e[i];
}

static void comm_note(struct comms *c, const struct pdr_rec *r)
{
	const struct perf_event_header *h = r->hdr;
	const uint32_t *f = (const uint32_t *)(h + 1);
	struct comm_ent *e;

	if (h->type == PERF_RECORD_COMM) {
		/* pdr_open checked the sizes: COMM 16 bytes at least, FORK 24 */
		size_t room = h->size - sizeof(*h) - 8;

		if (!f[1] || !(e = comm_slot(c, f[1], 1)))
			return;
		memset(e->comm, 0, sizeof(e->comm));
		memcpy(e->comm, f + 2, strnlen((const char *)(f + 2), room < 15 ? room : 15));
	} else if (h->type == PERF_RECORD_FORK && f[2]) {
		/* pid ppid tid ptid: named after the parent until its COMM */
		struct comm_ent *p = comm_slot(c, f[3], 0);
		char name[TRIGREC_COMM_LEN];

		if (!p)
			return;
		memcpy(name, p->comm, sizeof(name));
		if ((e = comm_slot(c, f[2], 1)))
			memcpy(e->comm, name, sizeof(name));
	}
}

struct run_ctx {
	struct replay *rp;
	void (*on_fire)(const struct replay_fire *f, void *arg);
	void *arg;
	int file;
	const struct pdr_rec *rec;
	const char *comm;
};

static void run_fire(const struct trigrec_trigger_msg_learn *m, void *arg)
{
	struct run_ctx *x = arg;
	const struct pdr_attr *a = &x->rp->files[x->file]->attrs[x->rec->attr];
	struct replay_fire f = {
		.file = x->file, .rec = x->rec, .event = a->name, .comm = x->comm, .m = m
	};

	x->on_fire(&f, x->arg);
}

/* The same record in two files (snapshots of one run overlap): same time, CPU, event, bytes. */
static int same_rec(const struct replay *rp, int fa, const struct pdr_rec *a, int fb,
		    const struct pdr_rec *b)
{
	return a->time == b->time && a->cpu == b->cpu && a->tid == b->tid &&
	       a->raw_size == b->raw_size &&
	       !strcmp(rp->files[fa]->attrs[a->attr].name, rp->files[fb]->attrs[b->attr].name) &&
	       !memcmp(a->raw, b->raw, a->raw_size);
}

/* Each file's next record, read as the merge needs it. */
struct head {
	struct pdr_rec r;
	size_t off;
	int live; /* r holds a record not yet merged */
};

/* The next record of file fi into its head; 0 (at the end: not live) or -errno with rp->err. */
static int advance(struct replay *rp, struct head *hd, int fi)
{
	char why[400];
	int rc = pdr_next(rp->files[fi], &hd->off, &hd->r, why, sizeof(why));

	hd->live = rc > 0;
	if (rc < 0)
		snprintf(rp->err, sizeof(rp->err), "%s: %s", rp->paths[fi], why);
	return rc < 0 ? rc : 0;
}

int replay_run(struct replay *rp, const struct trig_def *trigs, int n, const struct eh_opts *opts,
	       void (*on_fire)(const struct replay_fire *f, void *arg), void *arg)
{
	struct trigrec_trigger_cfg cfgs[TRIGREC_MAX_TRIGGERS];
	struct trigrec_hook_cfg *hooks = calloc(rp->nr_fmts + 1, sizeof(*hooks));
	int **hook_of = calloc(rp->nr_files, sizeof(*hook_of));
	struct head *heads = calloc(rp->nr_files, sizeof(*heads));
	struct run_ctx x = { .rp = rp, .on_fire = on_fire, .arg = arg };
	struct eh_opts o = *opts;
	/* Records already evaluated at the current time, for the duplicate test. */
	struct {
		int file;
		struct pdr_rec rec;
	} *same = NULL;
	size_t nsame = 0, capsame = 0;
	uint64_t same_time = 0;
	struct comms cm = { 0 };
	int ret = -ENOMEM, task_keyed = 0;

	rp->err[0] = 0;
	if (n > TRIGREC_MAX_TRIGGERS || rp->nr_files < 1) {
		ret = -EINVAL;
		goto out;
	}
	if (!hooks || !hook_of || !heads)
		goto out;
	for (int i = 0; i < n; i++) {
		cfgs[i] = trigs[i].cfg;
		if (task_keyed < TRIGREC_TASK_SLOTS && bpfctl__task_keyed(&cfgs[i])) {
			cfgs[i].flags |= TRIGREC_TF_TASK_KEY;
			task_keyed++;
		}
	}
	ret = replay_plan(rp->fmts, rp->nr_fmts, trigs, n, hooks);
	if (ret)
		goto out;
	ret = -ENOMEM;
	/* Each file's attrs to a hook: -1 for what is not a tracepoint or carries no trigger. */
	for (int fi = 0; fi < rp->nr_files; fi++) {
		const struct pdr_file *f = rp->files[fi];

		hook_of[fi] = malloc((f->nr_attrs + 1) * sizeof(int));
		if (!hook_of[fi])
			goto out;
		for (int a = 0; a < f->nr_attrs; a++) {
			const struct tp_format *fmt = f->attrs[a].fmt;
			int h = fmt ? fmt_index(rp, fmt->sys, fmt->name) : -1;

			hook_of[fi][a] = h >= 0 && hooks[h].ntrig ? h : -1;
		}
	}
	o.on_fire = run_fire;
	o.arg = &x;
	ret = eh_reset(cfgs, n, &o);
	if (ret)
		goto out;
	/*
	 * A k-way merge of the files' records, read in one pass each (no index:
	 * pdr_next() decodes the next record as it is needed). Each file is in
	 * time order already (trigrec writes it sorted); the earliest head
	 * goes first, on a tie the earlier file's.
	 */
	for (int fi = 0; fi < rp->nr_files; fi++) {
		ret = advance(rp, &heads[fi], fi);
		if (ret)
			goto out;
	}
	for (;;) {
		const struct pdr_rec *r = NULL;
		struct eh_task t;
		struct comm_ent *ce;
		int fi = -1, h, dup = 0;

		for (int k = 0; k < rp->nr_files; k++)
			if (heads[k].live && (!r || heads[k].r.time < r->time)) {
				r = &heads[k].r;
				fi = k;
			}
		if (!r)
			break;
		/* Only samples have raw data: the others' headers are read for names only. */
		if (!r->raw) {
			if (r->hdr->type == PERF_RECORD_COMM || r->hdr->type == PERF_RECORD_FORK)
				comm_note(&cm, r);
			goto next;
		}
		if (r->attr < 0)
			goto next;
		h = hook_of[fi] ? hook_of[fi][r->attr] : -1;
		if (h < 0)
			goto next;
		if (rp->nr_files > 1) {
			if (r->time != same_time) {
				nsame = 0;
				same_time = r->time;
			}
			for (size_t k = 0; k < nsame && !dup; k++)
				dup = same[k].file != fi &&
				      same_rec(rp, fi, r, same[k].file, &same[k].rec);
			if (dup) {
				rp->duplicates++;
				goto next;
			}
			if (nsame == capsame) {
				void *g = realloc(same, (capsame = capsame ? capsame * 2 : 16) *
								sizeof(*same));

				ret = -ENOMEM;
				if (!g)
					goto out;
				same = g;
			}
			same[nsame].file = fi;
			same[nsame++].rec = *r;
		}
		memset(&t, 0, sizeof(t));
		t.time = r->time;
		t.pid = r->pid;
		t.tid = r->tid;
		t.cpu = r->cpu;
		ce = comm_slot(&cm, r->tid, 0);
		if (ce)
			memcpy(t.comm, ce->comm, sizeof(t.comm));
		x.file = fi;
		x.rec = r;
		x.comm = ce ? ce->comm : "";
		rp->evaluated++;
		eh_record(&hooks[h], (uint32_t)h, &t, r->raw, r->raw_size);
next:
		ret = advance(rp, &heads[fi], fi);
		if (ret)
			goto out;
	}
	ret = 0;
out:
	if (ret == -ENOMEM && !rp->err[0])
		snprintf(rp->err, sizeof(rp->err), "out of memory");
	if (hook_of)
		for (int fi = 0; fi < rp->nr_files; fi++)
			free(hook_of[fi]);
	free(hook_of);
	free(hooks);
	free(heads);
	free(same);
	free(cm.e);
	return ret;
}
