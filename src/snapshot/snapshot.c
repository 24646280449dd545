// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "util/log.h"
#include "snapshot/perfdata.h"
#include "snapshot/pdhost.h"
#include "snapshot/buildid.h"
#include "capture/ring_reader.h"
#include "snapshot/json.h"
#include "snapshot/outdir.h"
#include "snapshot/snapshot.h"
#include "util/cgroups.h"
#include "snapshot/bpfrec.h"
#include "snapshot/tpsample.h"
#include "show/show.h"
#include "util/util.h"

/*
 * One record of a ring copy, in the writer's index. A ring's records are
 * one run of the index, oldest first; the ring is implied by the run, and
 * the record is the ring copy's bytes at pos. 16 bytes: the index of a full
 * ring is a sixth of the ring or less (records are 72 bytes and more).
 */
struct snap_rec {
	uint64_t time;
	uint32_t pos;	/* offset in the ring copy: larger = older */
	uint16_t event; /* index in r->evs, found once when collecting */
	uint16_t size;	/* the record's size, or SNAP_LOST_SIZE_BIT | size for PERF_RECORD_LOST */
};

/* Flags a PERF_RECORD_LOST in snap_rec.size: records are < 32 KiB (perf's limit is 64 KiB,
 * but nothing trigrec records comes near half of it; larger ones are skipped as bad). */
#define SNAP_LOST_SIZE_BIT 0x8000

/* One ring's run of the index, and the part of it the window keeps. */
struct ring_run {
	size_t begin, end; /* the ring's records: idx[begin, end), oldest first */
	size_t lo, hi;	   /* kept: idx[lo, hi) */
};

/* Tracking-ring records (COMM/FORK/EXIT) name threads; they are not history. */
static inline int is_tracking(const struct recorder *r, int ring)
{
	return r->rings[ring].tracking;
}

/* Tracepoint records: the writer adds the TID and CPU the kernel left out. */
static inline int needs_completion(const struct recorder *r, const struct snap_rec *s)
{
	return r->evs[s->event].kind == REC_EV_TRACEPOINT;
}

static inline const struct perf_event_header *rec_hdr(const struct harvest *h, int ring,
						      const struct snap_rec *s)
{
	return (const struct perf_event_header *)((const char *)h->rings[ring].buf + s->pos);
}

struct ring_stat {
	uint64_t records, bytes, oldest, newest, lost;
};

struct collect {
	struct snapshot_ctx *sc;
	const struct recorder *r;
	struct snap_rec *idx; /* sc->idx */
	size_t n;
	const char *base;
	int stubs; /* the ring's records are compact stubs (bpfrec__expand()) */
	unsigned long bad;
};

/* A tracepoint record completed (tpsample.c) and appended to the file. */
static int write_rewritten(struct pd_writer *w, const struct perf_event_header *hdr, uint64_t st,
			   uint32_t pid, uint32_t tid, uint32_t cpu, uint8_t *buf, size_t cap)
{
	int n = tp_complete(hdr, st, pid, tid, cpu, buf, cap);

	/* Malformed (cannot happen for records the kernel wrote): skip, never corrupt. */
	return n < 0 ? 0 : pd_writer__write(w, buf, n);
}

/*
 * The thread of a record: for a tracepoint sample its common_pid (the
 * kernel's record has no TID field), else the TID its sample fields carry
 * (0 when none). *pid gets the process where the record says it.
 */
static uint32_t rec_thread(const struct snapshot_ctx *sc, const struct recorder *r,
			   const struct perf_event_header *h, int event, uint32_t *pid)
{
	struct pd_rec_info info;

	*pid = 0;
	if (h->type == PERF_RECORD_SAMPLE && r->evs[event].kind == REC_EV_TRACEPOINT) {
		const uint8_t *raw = tp_raw(h, sc->kevs[event].attr.sample_type);
		uint32_t tid = 0;

		if (raw)
			memcpy(&tid, raw + 4 + 4, 4);
		return tid;
	}
	if (pd_rec_decode(sc->idmap, sc->kevs, h, &info))
		return 0;
	*pid = info.pid;
	return info.tid;
}

int snapshot__record_id(const struct snapshot_ctx *sc, const struct recorder *r,
			const struct perf_event_header *rec, uint64_t *time, uint32_t *tid)
{
	struct pd_rec_info info;
	uint32_t pid;

	if (pd_rec_decode(sc->idmap, sc->kevs, rec, &info) || info.event < 0 || !info.has_time)
		return -ENOENT;
	*time = info.time;
	*tid = rec_thread(sc, r, rec, info.event, &pid);
	return 0;
}

/* Grow the index to hold at least n more records (amortized doubling, kept in sc). */
static int idx_reserve(struct collect *c, size_t more)
{
	struct snapshot_ctx *sc = c->sc;
	size_t need = c->n + more, ncap;
	struct snap_rec *ni;

	if (need <= sc->idx_cap)
		return 0;
	ncap = sc->idx_cap ? sc->idx_cap : 65536;
	while (ncap < need)
		ncap *= 2;
	ni = realloc(sc->idx, ncap * sizeof(*ni));
	if (!ni)
		return -ENOMEM;
	sc->idx = c->idx = ni;
	sc->idx_cap = ncap;
	return 0;
}

static int collect_one(const struct perf_event_header *h, void *ctx)
{
	struct collect *c = ctx;
	struct pd_rec_info info;
	struct snap_rec *s;
	int err;

	if (h->type == BPFREC_SKIP_TYPE)
		return 0;
	if (pd_rec_decode(c->sc->idmap, c->sc->kevs, h, &info) || info.event < 0) {
		c->bad++;
		return 0;
	}
	if (c->n == c->sc->idx_cap) {
		err = idx_reserve(c, 1);
		if (err)
			return err;
	}
	if (h->size & SNAP_LOST_SIZE_BIT) {
		c->bad++;
		return 0;
	}
	s = &c->idx[c->n++];
	s->time = info.time;
	s->pos = (const char *)h - c->base;
	s->event = info.event;
	/* a stub: the size of its sample, as the file will hold it */
	s->size = c->stubs ? bpfrec__stub_xsize(h) :
			     h->size | (h->type == PERF_RECORD_LOST ? SNAP_LOST_SIZE_BIT : 0);
	if (c->r->evs[info.event].kind == REC_EV_TRACEPOINT && h->type == PERF_RECORD_SAMPLE &&
	    !tp_raw(h, c->sc->kevs[info.event].attr.sample_type)) {
		/* A tracepoint sample without its common fields: nothing to name it by. */
		c->n--;
		c->bad++;
	}
	return 0;
}

/*
 * Index order within a ring: time, then the older record first: further in
 * the copy, or nearer its start when the copy is oldest first.
 */
static inline int rec_before(const struct snap_rec *x, const struct snap_rec *y, int oldest_first)
{
	if (x->time != y->time)
		return x->time < y->time;
	return oldest_first ? x->pos < y->pos : x->pos > y->pos;
}

/*
 * A ring's run, walked newest first (or oldest first: a compact ring's
 * expansion), into oldest-first order. Records of one ring are in time
 * order but for the few a nested context (an interrupt between perf
 * stamping a record and reserving its space) put out of place: the
 * insertion sort fixes those in time linear in the run plus the
 * displacements.
 */
static void order_run(struct snap_rec *v, size_t n, int oldest_first)
{
	for (size_t i = 0, j = n ? n - 1 : 0; !oldest_first && i < j; i++, j--) {
		struct snap_rec t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
	for (size_t i = 1; i < n; i++) {
		struct snap_rec x = v[i];
		size_t j = i;

		if (!rec_before(&x, &v[i - 1], oldest_first))
			continue;
		while (j > 0 && rec_before(&x, &v[j - 1], oldest_first)) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

/* First index in v[0, n) whose time is >= t (> t when after), or n. */
static size_t run_search(const struct snap_rec *v, size_t n, uint64_t t, int after)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (after ? v[mid].time <= t : v[mid].time < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The time of the trigger's own record, or UINT64_MAX when it is not in
 * the rings. On the trigger's CPU it is the first record at or after the
 * trigger: that CPU's gate dropped everything else. A uprobe's record can be
 * on another CPU: the kernel runs a uprobe's BPF program with only
 * migration disabled and writes the record after it (__uprobe_perf_func),
 * so the task may have moved by then (seen in a 6.12 guest under qemu TCG,
 * where the snapshot then ended before the trigger's record). When the
 * trigger's CPU has nothing at or after the trigger, it is the earliest
 * record of the trigger's thread stamped at or after the trigger in another
 * CPU's perf-written ring: after the freeze those rings' gates dropped that
 * thread's other records, and whatever it did later is later. (Ring sets
 * keep recording after a trigger, and a BPF-written trigger record is
 * always on the trigger's CPU: they are not searched.)
 */
static uint64_t trigger_record_time(const struct snapshot_ctx *sc, const struct recorder *r,
				    const struct harvest *h, const struct snap_rec *idx,
				    const struct ring_run *runs,
				    const struct trigrec_trigger_msg *m)
{
	uint64_t best = UINT64_MAX;

	/* The trigger's CPU first: the other rings are searched only when it has nothing. */
	for (int pass = 0; pass < 2 && best == UINT64_MAX; pass++) {
		for (int i = 0; i < r->nr_rings; i++) {
			const struct snap_rec *v = idx + runs[i].begin;
			size_t n = runs[i].end - runs[i].begin, j;
			int own = r->rings[i].cpu == (int)m->cpu;

			/* Only perf writes a record after its program: ring sets are not searched for it. */
			if (is_tracking(r, i) || own != !pass ||
			    (pass && (r->rings[i].set >= 0 || !m->tid)))
				continue;
			j = run_search(v, n, m->time_ns, 0);
			for (; j < n && v[j].time < best; j++) {
				const struct perf_event_header *hd = rec_hdr(h, i, &v[j]);
				uint32_t pid;

				if (own || (hd->type == PERF_RECORD_SAMPLE &&
					    rec_thread(sc, r, hd, v[j].event, &pid) == m->tid)) {
					best = v[j].time;
					break;
				}
			}
		}
	}
	return best;
}

/*
 * The k-way merge of the rings' kept runs: a binary min-heap of rings keyed
 * by (time of the ring's next record, ring). That is the order a sort of
 * every record by (time, ring, older first) gives, in O(records x log rings)
 * and no memory but the heap.
 */
#define MERGE_PREFETCH 2

/* A heap node: the ring's next record's time, inline, so comparing reads no index. */
struct merge_node {
	uint64_t time;
	int ring;
};

struct merge {
	const struct snap_rec *idx;
	const char **bufs; /* each ring's copy */
	const char **srcs; /* rings=compact: the copy its stubs point into, or NULL */
	struct ring_run *runs;
	struct merge_node *heap;
	int n;
};

static inline int node_before(const struct merge_node *x, const struct merge_node *y)
{
	return x->time != y->time ? x->time < y->time : x->ring < y->ring;
}

static void merge_down(struct merge *m, int i)
{
	struct merge_node x = m->heap[i];

	for (;;) {
		int l = 2 * i + 1, best = l;

		if (l >= m->n)
			break;
		if (l + 1 < m->n && node_before(&m->heap[l + 1], &m->heap[l]))
			best = l + 1;
		if (!node_before(&m->heap[best], &x))
			break;
		m->heap[i] = m->heap[best];
		i = best;
	}
	m->heap[i] = x;
}

static int merge_init(struct merge *m, const struct snap_rec *idx, struct ring_run *runs, int nr,
		      const struct harvest *h, const struct bpfrec_scratch *bs)
{
	m->idx = idx;
	m->runs = runs;
	m->n = 0;
	m->heap = malloc((nr ? nr : 1) * sizeof(*m->heap));
	m->bufs = malloc((nr ? nr : 1) * sizeof(*m->bufs));
	m->srcs = malloc((nr ? nr : 1) * sizeof(*m->srcs));
	if (!m->heap || !m->bufs || !m->srcs)
		return -ENOMEM;
	for (int i = 0; i < nr; i++) {
		m->bufs[i] = h->rings[i].buf;
		m->srcs[i] = bpfrec__copy(bs, i);
		/* The first records of every ring, before the merge wants them. */
		for (size_t j = runs[i].lo; j < runs[i].hi && j < runs[i].lo + MERGE_PREFETCH; j++)
			__builtin_prefetch(m->bufs[i] + idx[j].pos);
		if (runs[i].lo < runs[i].hi)
			m->heap[m->n++] = (struct merge_node){ idx[runs[i].lo].time, i };
	}
	for (int i = m->n / 2 - 1; i >= 0; i--)
		merge_down(m, i);
	return 0;
}

/* The next record in merged order (its ring in *ring), or NULL at the end. */
static const struct snap_rec *merge_next(struct merge *m, int *ring)
{
	const struct snap_rec *s;
	struct ring_run *run;
	int top;

	if (!m->n)
		return NULL;
	top = m->heap[0].ring;
	run = &m->runs[top];
	s = &m->idx[run->lo++];
	*ring = top;
	if (run->lo == run->hi) {
		m->heap[0] = m->heap[--m->n];
	} else {
		m->heap[0].time = m->idx[run->lo].time;
		/*
		 * The write reads each record once, hopping between rings: with
		 * dozens of rings each record, and every fourth index entry of a
		 * ring, would be a cache miss that no hardware prefetcher sees
		 * coming (they follow a few streams, not hundreds). Ask for the
		 * index a few lines on and for the record this ring gives a few
		 * turns ahead (two lines: records straddle them).
		 */
		if (run->lo + 16 < run->hi)
			__builtin_prefetch(&m->idx[run->lo + 16]);
		if (run->lo + MERGE_PREFETCH < run->hi) {
			const char *p = m->bufs[top] + m->idx[run->lo + MERGE_PREFETCH].pos;

			__builtin_prefetch(p);
			__builtin_prefetch(p + 64);
		}
		/*
		 * A compact ring's next record is decoded from its encoding in the
		 * copy: its stub, asked for turns ago, says where that lies.
		 */
		if (m->srcs[top]) {
			uint32_t off;

			memcpy(&off, m->bufs[top] + m->idx[run->lo].pos + BPFREC_STUB_SRC, 4);
			__builtin_prefetch(m->srcs[top] + off);
		}
	}
	if (m->n)
		merge_down(m, 0);
	return s;
}

/*
 * The kernel's text, [_text, _etext), as perf record maps it on a kernel
 * without modules. It must end there: perf 6.1 files a KSYMBOL whose
 * address falls inside an existing kernel map under that map's start
 * (machine__process_ksymbol_register()), so a map reaching ~0 would hide
 * every BPF program's name. 0 and 0 when kallsyms hides the addresses.
 */
static void kernel_text(uint64_t *start, uint64_t *end)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], sym[256], type;
	unsigned long long addr;

	*start = *end = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && !(*start && *end)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) != 3)
			continue;
		if (!strcmp(sym, "_text"))
			*start = addr;
		else if (!strcmp(sym, "_etext"))
			*end = addr;
	}
	fclose(f);
	if (*end <= *start)
		*end = *start ? ~0ull : 0; /* no _etext: to the top, as before */
}

/* ---- failures: a full disk fails every snapshot, and must not flood the log ---- */

static void errs_fmt(const struct snapshot_ctx *sc, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (int i = 0; i < 4 && sc->fail_errs[i].n && o < len; i++) {
		const char *name = strerrorname_np(sc->fail_errs[i].err);

		o += snprintf(buf + o, len - o, "%s%s %lu", i ? ", " : "", name ? name : "?",
			      sc->fail_errs[i].n);
	}
}

/* Report the failures left out so far, if any (after a success, and at the end). */
static void fail_summary(struct snapshot_ctx *sc)
{
	uint64_t span;
	unsigned long n = log_limit__flush(&sc->fail_lim, mono_ns(), &span);
	char errs[128], d[32];

	if (!n)
		return;
	errs_fmt(sc, errs, sizeof(errs));
	elog("%lu more snapshot failure%s (%s) in the last %s", n, n == 1 ? "" : "s", errs,
	     fmt_duration(span, d, sizeof(d)));
	memset(sc->fail_errs, 0, sizeof(sc->fail_errs));
}

static void fail_log(struct snapshot_ctx *sc, const char *stem, const char *name, int err)
{
	unsigned long left_out;
	uint64_t span;
	char more[192] = "", errs[128], d[32], why[512] = "";

	sc->failed++;
	if (!log_limit__hit(&sc->fail_lim, mono_ns(), &left_out, &span)) {
		int i = 0;

		/* Counted by errno (the last slot takes whatever does not fit). */
		while (i < 3 && sc->fail_errs[i].n && sc->fail_errs[i].err != -err)
			i++;
		sc->fail_errs[i].err = -err;
		sc->fail_errs[i].n++;
		return;
	}
	if (left_out) {
		errs_fmt(sc, errs, sizeof(errs));
		snprintf(more, sizeof(more), "; %lu more snapshot failure%s (%s) in the last %s",
			 left_out, left_out == 1 ? "" : "s", errs,
			 fmt_duration(span, d, sizeof(d)));
		memset(sc->fail_errs, 0, sizeof(sc->fail_errs));
	}
	char kv[256] = "event=snapshot_failed";

	if (err == -EFBIG) {
		char x[32], y[32];

		snprintf(why, sizeof(why),
			 " (it alone is %s with its sidecar, over the retention "
			 "byte budget of %s: raise --keep-bytes or the script's `keep SIZE`, or "
			 "make snapshots smaller with a smaller -m ring or fewer events)",
			 fmt_size(outdir__refused_bytes(sc->od), x, sizeof(x)),
			 fmt_size(sc->max_bytes, y, sizeof(y)));
	} else if (err == -ENOSPC) {
		snprintf(why, sizeof(why), " (disk full: free space in the output directory)");
	}
	log_kv_add(kv, sizeof(kv), "trigger", name);
	log_kv_add(kv, sizeof(kv), "error", err == -EFBIG ? "over keep bytes" : strerror(-err));
	log_kv_addu(kv, sizeof(kv), "left_out", left_out);
	log_event(-2, kv, "snapshot %s-%s failed: %s%s; recording continues%s%s", stem, name,
		  err == -EFBIG ? "refused, too big for the output directory's byte budget" :
				  strerror(-err),
		  why, more[0] ? more : "",
		  sc->fail_lim.total == 1 ? " (further failures are summed up every 10 s)" : "");
}

int snapshot_ctx__open_outdir(struct snapshot_ctx *sc)
{
	if (!sc->od)
		sc->od = outdir__open(sc->outdir);
	if (!sc->od)
		return -EINVAL;
	/* Also for an od the caller opened (outdir__open_at()): the period of the failure lines. */
	if (!sc->fail_lim.period_ns)
		sc->fail_lim = (struct log_limit)LOG_LIMIT_INIT(10 * 1000000000ull);
	return 0;
}

/*
 * What the perf.data header says that does not change during the run: the
 * host (pdhost.c), the command line, the build-id cache.
 */
static int snapshot_ctx__init_header(struct snapshot_ctx *sc)
{
	char dir[4096], exe[4096];
	ssize_t n;

	sc->host = calloc(1, sizeof(*sc->host));
	if (!sc->host || pd_host__init(sc->host))
		return -ENOMEM;
	sc->bids = bid_cache__new(sc->no_buildid_cache ? NULL :
							 bid_cache__default_dir(dir, sizeof(dir)));
	if (!sc->bids)
		return -ENOMEM;
	/* perf writes its own path first, then its arguments */
	if (sc->argc > 0) {
		sc->cmdline = calloc(sc->argc + 1, sizeof(*sc->cmdline));
		if (!sc->cmdline)
			return -ENOMEM;
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = 0;
		sc->cmdline[0] = strdup(n > 0 ? exe : sc->argv[0]);
		if (!sc->cmdline[0])
			return -ENOMEM;
		for (int i = 1; i < sc->argc; i++)
			sc->cmdline[i] = sc->argv[i];
	}
	return 0;
}

int snapshot_ctx__init(struct snapshot_ctx *sc, struct recorder *r)
{
	int err;

	err = snapshot_ctx__open_outdir(sc);
	if (err)
		return err;

	/*
	 * The attrs as the kernel writes records (to decode them) and as the file
	 * presents them: tracepoint samples completed with TID and CPU.
	 */
	sc->kevs = calloc(r->nr_evs, sizeof(*sc->kevs));
	sc->fevs = calloc(r->nr_evs, sizeof(*sc->fevs));
	if (!sc->kevs || !sc->fevs)
		return -ENOMEM;
	for (int i = 0; i < r->nr_evs; i++) {
		sc->kevs[i] = sc->fevs[i] = r->evs[i].pd;
		if (r->evs[i].kind == REC_EV_TRACEPOINT)
			sc->fevs[i].attr.sample_type |= REC_TP_FILE_EXTRA;
	}
	sc->idmap = pd_idmap__new(sc->kevs, r->nr_evs);
	if (!sc->idmap)
		return -ENOMEM;
	err = pd_tracing_data(sc->kevs, r->nr_evs, &sc->tracing_data, &sc->tracing_data_len);
	if (err) {
		elog("cannot collect tracepoint formats for perf.data: %s", strerror(-err));
		return err;
	}
	kernel_text(&sc->kernel_start, &sc->kernel_end);
	/* modules.dep is read here, once, not in the first snapshot. */
	if (!kmods__refresh(&sc->kmods) && sc->kmods.hidden)
		wlog("%d kernel modules have their addresses hidden (kernel.kptr_restrict, no "
		     "CAP_SYSLOG): samples in them will be [unknown]",
		     sc->kmods.hidden);
	err = snapshot_ctx__init_header(sc);
	if (err)
		return err;
	/*
	 * The writer's buffer now, and warm, not in the first snapshot (often
	 * the one that matters). On this VM, a guest whose hypervisor shadows
	 * its page tables, fresh memory costs twice: the first store to each
	 * page (a fault, and the hypervisor's fill) took ~14 ms for these 4
	 * MiB, and the kernel's first read of the same pages, in the write(2)
	 * to the file, another 8-14 ms, where later writes take 0.5 ms: the
	 * kernel's accesses go through tables of their own. So the buffer is
	 * stored to here and written once to a memory file that is dropped at
	 * once. On bare metal both cost well under a millisecond.
	 */
	sc->wbuf = malloc(PD_WRITER_BUF_SIZE);
	if (!sc->wbuf)
		return -ENOMEM;
	memset(sc->wbuf, 0, PD_WRITER_BUF_SIZE);
	{
		int fd = memfd_create("trigrec-warm", MFD_CLOEXEC);

		/* Best effort: without it the first snapshot pays, nothing else changes. */
		if (fd >= 0) {
			if (write(fd, sc->wbuf, PD_WRITER_BUF_SIZE) < 0)
				dlog("writer buffer warm-up: %s", strerror(errno));
			close(fd);
		}
	}
	/* Tracepoint fields that name threads (next_pid, pid, child_pid...): they get COMMs too. */
	sc->pid_fields = calloc(r->nr_evs, sizeof(*sc->pid_fields));
	if (!sc->pid_fields)
		return -ENOMEM;
	for (int i = 0; i < r->nr_evs; i++) {
		const struct tp_format *f = r->evs[i].fmt;

		for (int j = 0; f && r->evs[i].kind == REC_EV_TRACEPOINT && j < f->nr_fields; j++) {
			const struct tp_field *fl = &f->fields[j];
			size_t l = strlen(fl->name);

			if (!fl->is_common && fl->size == 4 && l >= 3 &&
			    !strcmp(fl->name + l - 3, "pid") && sc->pid_fields[i].n < 4)
				sc->pid_fields[i].off[sc->pid_fields[i].n++] = fl->offset;
		}
	}
	{
		struct timespec rt, mo;

		clock_gettime(CLOCK_REALTIME, &rt);
		clock_gettime(CLOCK_MONOTONIC, &mo);
		sc->mono_to_real = (int64_t)(rt.tv_sec * 1000000000ll + rt.tv_nsec) -
				   (int64_t)(mo.tv_sec * 1000000000ll + mo.tv_nsec);
	}
	return 0;
}

void snapshot_ctx__fini(struct snapshot_ctx *sc)
{
	if (sc->od) {
		fail_summary(sc);
		outdir__free(sc->od);
		sc->od = NULL;
	}
	pd_idmap__free(sc->idmap);
	free(sc->kevs);
	free(sc->fevs);
	sc->idmap = NULL;
	sc->kevs = sc->fevs = NULL;
	procs__free(&sc->procs);
	free(sc->tracing_data);
	sc->tracing_data = NULL;
	if (sc->host)
		pd_host__fini(sc->host);
	free(sc->host);
	sc->host = NULL;
	bid_cache__free(sc->bids);
	sc->bids = NULL;
	bpf_syms__fini(&sc->bpfsyms);
	if (sc->cmdline)
		free(sc->cmdline[0]);
	free(sc->cmdline);
	sc->cmdline = NULL;
	free(sc->pid_fields);
	sc->pid_fields = NULL;
	free(sc->idx);
	sc->idx = NULL;
	sc->idx_cap = 0;
	bpfrec_scratch__free(&sc->bpfrec);
	kmods__free(&sc->kmods);
	pd_zpool__free(sc->zpool);
	sc->zpool = NULL;
	free(sc->wbuf);
	sc->wbuf = NULL;
}

/* ---- JSON ---- */

static uint64_t rd_uint(const uint8_t *p, uint32_t size)
{
	uint64_t v = 0;

	memcpy(&v, p, size > 8 ? 8 : size);
	return v;
}

static int64_t rd_sint(const uint8_t *p, uint32_t size)
{
	switch (size) {
	case 1: return *(const int8_t *)p;
	case 2: {
		int16_t v;
		memcpy(&v, p, 2);
		return v;
	}
	case 4: {
		int32_t v;
		memcpy(&v, p, 4);
		return v;
	}
	default: {
		int64_t v;
		memcpy(&v, p, 8);
		return v;
	}
	}
}

/* The trigger event's fields, decoded with its tracefs format. */
static void json_fields(FILE *f, const struct tp_format *fmt, const uint8_t *d, uint32_t dlen)
{
	int first = 1;

	fputc('{', f);
	for (int i = 0; fmt && i < fmt->nr_fields; i++) {
		const struct tp_field *fl = &fmt->fields[i];

		if (fl->is_common || fl->offset + fl->size > dlen)
			continue;
		fprintf(f, "%s", first ? "" : ", ");
		first = 0;
		json_str(f, fl->name, sizeof(fl->name));
		fputs(": ", f);
		switch (fl->kind) {
		case TP_FIELD_CHARARRAY: json_str(f, (const char *)d + fl->offset, fl->size); break;
		case TP_FIELD_DATALOC: {
			uint32_t loc = rd_uint(d + fl->offset, 4), off = loc & 0xffff,
				 l = loc >> 16;

			if (off + l <= dlen)
				json_str(f, (const char *)d + off, l);
			else
				fputs("null", f);
			break;
		}
		case TP_FIELD_ARRAY: {
			const char *b = strchr(fl->type, '[');
			uint32_t n = b ? strtoul(b + 1, NULL, 10) : 0, es = n ? fl->size / n : 0;

			fputc('[', f);
			for (uint32_t k = 0; es && k < n; k++)
				fprintf(f, "%s%" PRIu64, k ? ", " : "",
					rd_uint(d + fl->offset + k * es, es));
			fputc(']', f);
			break;
		}
		case TP_FIELD_PTR:
			fprintf(f, "\"0x%" PRIx64 "\"", rd_uint(d + fl->offset, fl->size));
			break;
		default:
			if (fl->is_signed)
				fprintf(f, "%" PRId64, rd_sint(d + fl->offset, fl->size));
			else
				fprintf(f, "%" PRIu64, rd_uint(d + fl->offset, fl->size));
		}
	}
	fputc('}', f);
}

static void fmt_stamp(int64_t real_ns, char *buf, size_t len)
{
	time_t sec = real_ns / 1000000000;
	struct tm tm;

	localtime_r(&sec, &tm);
	snprintf(buf, len, "%04d%02d%02d-%02d%02d%02d.%06lld", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (long long)(real_ns % 1000000000) / 1000);
}

/*
 * Does a window whose oldest record is at first reach back to a span that
 * started at st (the trigger program's clock read)? perf stamps a
 * tracepoint's sample after the BPF programs on it ran, so on perf-written
 * rings the record of the span's own first event trails st by their run
 * time (7 us seen here under load: a false "cannot explain"); records that
 * BPF writes carry the program's own time stamp.
 */
#define PERF_STAMP_LAG_NS (200 * 1000ull)

static int span_covered(const struct recorder *r, uint64_t first, uint64_t st)
{
	return first && first <= st + (r->perf_main ? PERF_STAMP_LAG_NS : 0);
}

struct snap_result {
	uint64_t cut, start, align;
	uint64_t first; /* oldest record kept: where the window really starts */
	size_t kept, kept_bytes;
	struct ring_stat *rs;
	/*
	 * The trigger's own record: 0 none (manual, final), 1 in the rings (its
	 * event is recorded), 2 rebuilt from the side-band message (its event is
	 * not recorded), 3 not kept (not recorded, and the message could not
	 * give it: outside the window, or longer than the message holds).
	 */
	int own;
	struct pd_comp_stats zst; /* level 0: not compressed */
	struct bpfrec_stats bst;  /* rings=bpf */
};

/* What the sidecar says, rendered once the .data's name is known (outdir__publish_pair()). */
struct json_ctx {
	struct snapshot_ctx *sc;
	struct recorder *r;
	const struct harvest *h;
	const struct snap_trigger *t;
	const struct snap_timing *tm;
	const struct snap_result *res;
	int fd;		     /* the .data just written (read back for the why) */
	int why_done;	     /* the why below was made (once, whatever the name) */
	char *why;	     /* the "why" object, as `show --json` prints it; NULL: none */
	char why_skip[480];  /* why not, when not */
	uint64_t why_ns;     /* what making it cost */
	uint64_t why_cpu_ns; /* of it, CPU time of the writer thread */
};

/* `, "key_text": "..."` when the key has a str(FIELD) part: the text it hashed. */
static void key_text(FILE *f, const struct trigrec_keyspec *k, const struct trigrec_trigger_msg *m)
{
	for (int i = 0; i < TRIGREC_MAX_KEY_PARTS; i++) {
		if (k->p[i].src == TRIGREC_SRC_USTR || k->p[i].src == TRIGREC_SRC_KSTR) {
			fputs(", \"key_text\": ", f);
			json_str(f, m->key_text, sizeof(m->key_text));
			return;
		}
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * `"cgroups": [...], "tasks": [...]`: each process with a thread named in
 * the snapshot (procs' used bit 0), its cgroup v2 path read now and what the
 * path shows of its container (util/cgroups.h). A process gone by now
 * is left out. Writer thread: after the file, never in the freeze.
 */
static void render_tasks(FILE *f, struct procs *p)
{
	uint32_t *pids = calloc(p->n ? p->n : 1, sizeof(*pids)), np = 0;
	char **paths = NULL, path[4096];
	int npaths = 0, first = 1;

	fprintf(f, "  \"tasks\": [");
	if (!pids) {
		fprintf(f, "],\n  \"cgroups\": [],\n");
		return;
	}
	for (uint32_t i = 0; i < p->cap; i++)
		if (p->tab[i].tid && p->tab[i].pid && (p->tab[i].used & 1) && np < p->n)
			pids[np++] = p->tab[i].pid;
	qsort(pids, np, sizeof(*pids), cmp_u32);
	for (uint32_t i = 0; i < np; i++) {
		struct proc_ent *pe;
		int k;

		if ((i && pids[i] == pids[i - 1]) || cg_of_pid(pids[i], path, sizeof(path)))
			continue;
		for (k = 0; k < npaths && strcmp(paths[k], path); k++)
			;
		if (k == npaths) {
			char **np2 = realloc(paths, (npaths + 1) * sizeof(*paths));

			if (!np2 || !(np2[npaths] = strdup(path))) {
				paths = np2 ? np2 : paths;
				break;
			}
			paths = np2;
			npaths++;
		}
		pe = procs__get(p, pids[i]);
		fprintf(f, "%s\n    {\"pid\": %u, \"comm\": ", first ? "" : ",", pids[i]);
		json_str(f, pe ? pe->comm : "", 16);
		fprintf(f, ", \"cgroup\": %d}", k);
		first = 0;
	}
	fprintf(f, "%s],\n  \"cgroups\": [", first ? "" : "\n  ");
	for (int k = 0; k < npaths; k++) {
		struct cg_info c;

		cg_classify(paths[k], &c);
		fprintf(f, "%s\n    {\"path\": ", k ? "," : "");
		json_str(f, paths[k], 4096);
		fputs(", \"runtime\": ", f);
		json_str(f, c.runtime, sizeof(c.runtime));
		fputs(", \"id\": ", f);
		json_str(f, c.id, sizeof(c.id));
		fputs(", \"pod_uid\": ", f);
		json_str(f, c.pod_uid, sizeof(c.pod_uid));
		fputs(", \"qos\": ", f);
		json_str(f, c.qos, sizeof(c.qos));
		fputc('}', f);
		free(paths[k]);
	}
	fprintf(f, "%s],\n", npaths ? "\n  " : "");
	free(paths);
	free(pids);
}

/*
 * The trigger's near misses at the firing (largest first, in its unit: ns
 * or events): since its previous snapshot, and since the start.
 */
static void nm_array(FILE *f, const char *name, const __u64 *a)
{
	fprintf(f, "\"%s\": [", name);
	for (int i = 0; i < TRIGREC_NEAR_MISS && a[i]; i++)
		fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)a[i]);
	fputc(']', f);
}

/*
 * ... and a keyed trigger's (`by KEY`) per key: the keys with the largest
 * since the start (t->keys, at most BPF_NM_KEYS), the same two lists each.
 */
static void near_miss_json(FILE *f, const struct trigrec_trigger_msg *m,
			   const struct snap_trigger *t)
{
	fputs(", \"near_miss\": {", f);
	nm_array(f, "since_snapshot", m->nm_last);
	fputs(", ", f);
	nm_array(f, "since_start", m->nm_all);
	if (t->def && bpfctl__keyed_nm(&t->def->cfg)) {
		fputs(", \"keys\": [", f);
		for (int i = 0; i < t->nr_keys && i < BPF_NM_KEYS; i++) {
			char k[64];

			fputs(i ? ", {\"key\": " : "{\"key\": ", f);
			bpfctl__key_nm_text(&t->def->cfg, t->keys[i].key, k, sizeof(k));
			json_str(f, k, sizeof(k));
			fprintf(f, ", \"key_values\": [%llu, %llu], ",
				(unsigned long long)t->keys[i].key[0],
				(unsigned long long)t->keys[i].key[1]);
			nm_array(f, "since_snapshot", t->keys[i].last);
			fputs(", ", f);
			nm_array(f, "since_start", t->keys[i].all);
			fputc('}', f);
		}
		fputc(']', f);
	}
	fputc('}', f);
}

/* A histogram's buckets that hold a count, as [lower bound ns, count] (trigrec_hist.h). */
static void hist_json(FILE *f, const __u32 *counts)
{
	int first = 1;

	fputc('[', f);
	for (uint32_t b = 0; b < TRIGREC_HIST_BUCKETS; b++) {
		if (!counts[b])
			continue;
		fprintf(f, "%s[%llu, %u]", first ? "" : ", ",
			(unsigned long long)trigrec_hist_lower(b), counts[b]);
		first = 0;
	}
	fputc(']', f);
}

/*
 * A learned threshold at the firing: what the key had learned before this
 * span (its percentile, the threshold, its spans) and its histogram; with
 * `by`, the same of all the trigger's keys (`all_keys`), which did not
 * judge the span.
 */
static void learned_json(FILE *f, const struct trig_def *d,
			 const struct trigrec_trigger_msg_learn *l)
{
	fprintf(f,
		", \"learned\": {\"percentile\": %u.%03u, \"multiplier\": %u.%02u"
		", \"per_key\": %s, \"after_samples\": %llu, \"percentile_ns\": %llu"
		", \"threshold_ns\": %llu, \"samples\": %llu, \"histogram_total\": %llu"
		", \"bucket_width_max\": %.4f, \"histogram\": ",
		d->cfg.learn_pct / 1000, d->cfg.learn_pct % 1000, d->cfg.learn_mult / 100,
		d->cfg.learn_mult % 100, d->cfg.flags & TRIGREC_TF_LEARN_ALL ? "false" : "true",
		(unsigned long long)d->cfg.learn_after, (unsigned long long)l->pct_ns,
		(unsigned long long)l->threshold_ns, (unsigned long long)l->samples,
		(unsigned long long)l->total, 1.0 / TRIGREC_HIST_SUB);
	hist_json(f, l->counts);
	if (!(d->cfg.flags & TRIGREC_TF_LEARN_ALL) && l->all_samples) {
		fprintf(f,
			", \"all_keys\": {\"percentile_ns\": %llu, \"threshold_ns\": %llu"
			", \"samples\": %llu, \"histogram_total\": %llu, \"histogram\": ",
			(unsigned long long)l->all_pct_ns, (unsigned long long)l->all_threshold_ns,
			(unsigned long long)l->all_samples, (unsigned long long)l->all_total);
		hist_json(f, l->all_counts);
		fputc('}', f);
	}
	fputc('}', f);
}

/*
 * A rate baseline at the firing: the key's EWMA of its count per window (in
 * events, three decimals), the windows it was learned over, the count the
 * window had to exceed.
 */
static void baseline_json(FILE *f, const struct trig_def *d,
			  const struct trigrec_trigger_msg_learn *l)
{
	uint64_t b = l->pct_ns, one = 1ull << TRIGREC_RATE_FP_SHIFT;
	uint64_t milli = (b % one * 1000 + one / 2) / one, whole = b / one;

	if (milli == 1000) {
		whole++;
		milli = 0;
	}
	fprintf(f,
		", \"learned\": {\"multiplier\": %u.%02u, \"per_key\": %s"
		", \"after_windows\": %llu, \"baseline\": %llu.%03llu, \"windows\": %llu"
		", \"threshold\": %llu}",
		d->cfg.learn_mult / 100, d->cfg.learn_mult % 100,
		d->cfg.side[TRIGREC_ROLE_EVENT].key.p[0].src ? "true" : "false",
		(unsigned long long)d->cfg.learn_after, (unsigned long long)whole,
		(unsigned long long)milli, (unsigned long long)l->samples,
		(unsigned long long)l->threshold_ns);
}

static int render_json(void *ctx, const char *datapath, char **out, size_t *outlen)
{
	const struct json_ctx *c = ctx;
	struct snapshot_ctx *sc = c->sc;
	struct recorder *r = c->r;
	const struct harvest *h = c->h;
	const struct snap_trigger *t = c->t;
	const struct snap_timing *tm = c->tm;
	const struct snap_result *res = c->res;
	const struct trigrec_trigger_msg *m = t->msg;
	uint64_t t0 = m ? m->time_ns : t->freeze_at;
	FILE *f = open_memstream(out, outlen);

	if (!f)
		return -errno;
	/* First, at a fixed place: retention reads it back (retention_sidecar_instance()). */
	fprintf(f, "{\n");
	if (sc->instance)
		fprintf(f, "  \"instance\": \"%s\",\n", sc->instance);
	fprintf(f, "  \"file\": ");
	json_str(f, datapath, 4096);
	fprintf(f, ",\n  \"trigger\": {\"name\": ");
	json_str(f, t->name, 256);
	fprintf(f, ", \"text\": ");
	json_str(f, t->text, 4096);
	fprintf(f, ", \"id\": %d, \"time_ns\": %" PRIu64 ", \"wall_time_ns\": %" PRId64, t->id, t0,
		(int64_t)t0 + sc->mono_to_real);
	if (m) {
		fprintf(f, ", \"cpu\": %u, \"pid\": %u, \"tid\": %u, \"comm\": ", m->cpu, m->pid,
			m->tid);
		json_str(f, m->comm, sizeof(m->comm));
		if (t->fmt) {
			fprintf(f, ", \"event\": \"%s:%s\", \"fields\": ", t->fmt->sys,
				t->fmt->name);
			json_fields(f, t->fmt, m->data, m->data_size);
		}
		fprintf(f, ", \"record\": \"%s\"",
			res->own == 1 ? "recorded" :
			res->own == 2 ? "from_message" :
					"not_kept");
	}
	if (m && t->def) {
		static const char *kinds[] = { "?", "event", "latency", "rate" };
		const struct trig_def *d = t->def;

		fprintf(f, ", \"kind\": \"%s\"", kinds[d->kind <= 3 ? d->kind : 0]);
		if (d->kind == TRIGREC_TRIG_LATENCY) {
			fprintf(f,
				", \"latency\": {\"duration_ns\": %" PRIu64
				", \"threshold_ns\": %" PRIu64 ", \"start\": {\"event\": ",
				(uint64_t)m->latency_ns,
				d->cfg.learn_pct && t->learn ? (uint64_t)t->learn->threshold_ns :
							       (uint64_t)d->cfg.threshold);
			json_str(f, d->event[TRIGREC_ROLE_START], sizeof(d->event[0]));
			fprintf(f,
				", \"time_ns\": %" PRIu64 ", \"tid\": %u, \"cpu\": %u, \"key\": ",
				(uint64_t)m->start_ns, m->start_tid, m->start_cpu);
			json_str(f, d->key_desc[TRIGREC_ROLE_START], sizeof(d->key_desc[0]));
			fprintf(f, "}, \"end\": {\"event\": ");
			json_str(f, d->event[TRIGREC_ROLE_EVENT], sizeof(d->event[0]));
			fprintf(f,
				", \"time_ns\": %" PRIu64 ", \"tid\": %u, \"cpu\": %u, \"key\": ",
				(uint64_t)m->time_ns, m->tid, m->cpu);
			json_str(f, d->key_desc[TRIGREC_ROLE_EVENT], sizeof(d->key_desc[0]));
			fprintf(f, "}, \"key_values\": [%" PRIu64 ", %" PRIu64 "]",
				(uint64_t)m->key[0], (uint64_t)m->key[1]);
			key_text(f, &d->cfg.side[TRIGREC_ROLE_EVENT].key, m);
			near_miss_json(f, m, t);
			if (d->cfg.learn_pct && t->learn)
				learned_json(f, d, t->learn);
			fputs("}", f);
		} else if (d->kind == TRIGREC_TRIG_RATE) {
			fprintf(f,
				", \"rate\": {\"count\": %" PRIu64 ", \"threshold\": %" PRIu64
				", \"window_ns\": %" PRIu64 ", \"window_start_ns\": %" PRIu64
				", \"key\": ",
				(uint64_t)m->count,
				(d->cfg.flags & TRIGREC_TF_RATE_BASELINE) && t->learn ?
					(uint64_t)t->learn->threshold_ns :
					(uint64_t)d->cfg.threshold,
				(uint64_t)m->window_ns, (uint64_t)m->start_ns);
			json_str(f, d->key_desc[TRIGREC_ROLE_EVENT], sizeof(d->key_desc[0]));
			fprintf(f, ", \"key_values\": [%" PRIu64 ", %" PRIu64 "]",
				(uint64_t)m->key[0], (uint64_t)m->key[1]);
			key_text(f, &d->cfg.side[TRIGREC_ROLE_EVENT].key, m);
			near_miss_json(f, m, t);
			if ((d->cfg.flags & TRIGREC_TF_RATE_BASELINE) && t->learn)
				baseline_json(f, d, t->learn);
			fputs("}", f);
		} else {
			fprintf(f, ", \"matches\": %" PRIu64, (uint64_t)m->count);
			/* `if FIELD > N`: the largest values of FIELD that failed only that. */
			if (d->cfg.nm_clause1) {
				fprintf(f, ", \"condition\": {\"comparison\": ");
				json_str(f, d->nm_desc, sizeof(d->nm_desc));
				near_miss_json(f, m, t);
				fputs("}", f);
			}
		}
	}
	fprintf(f, "},\n");
	if (t->alert) /* rendered by service/webhook.c: well-formed JSON, never the request's text */
		fprintf(f, "  \"alert\": %s,\n", t->alert);
	fprintf(f, "  \"coalesced_triggers\": %" PRIu64 ",\n", t->coalesced);
	fprintf(f,
		"  \"window\": {\"start_ns\": %" PRIu64 ", \"end_ns\": %" PRIu64
		", \"duration_ns\": %" PRIu64 ", \"post_ns\": %" PRIu64 ", \"aligned\": %s},\n",
		res->first, res->cut, res->first ? res->cut - res->first : 0,
		m && t->freeze_at > m->time_ns ? (uint64_t)(t->freeze_at - m->time_ns) :
						 (uint64_t)0,
		sc->no_align ? "false" : "true");
	if (m && t->def &&
	    (t->def->kind == TRIGREC_TRIG_LATENCY || t->def->kind == TRIGREC_TRIG_RATE)) {
		const char *what = t->def->kind == TRIGREC_TRIG_LATENCY ? "latency" : "rate";
		uint64_t st = m->start_ns, first = res->first;
		int covers = span_covered(c->r, first, st);

		fprintf(f,
			"  \"coverage\": {\"span\": \"%s\", \"span_start_ns\": %" PRIu64
			", \"covers_span\": %s, \"missing_ns\": %" PRIu64,
			what, st, covers ? "true" : "false",
			covers	? (uint64_t)0 :
			first	? first - st :
			t0 > st ? t0 - st :
				  (uint64_t)0);
		if (!covers)
			fprintf(f,
				", \"advice\": \"the window does not reach back to the %s's start: "
				"a bigger ring (-m), fewer events (-e) or, when one CPU's wrapped "
				"ring shortened every CPU's window, --no-align\"",
				what);
		fputs("},\n", f);
	}
	fprintf(f, "  \"records\": %zu, \"bytes\": %zu,\n", res->kept, res->kept_bytes);
	if (res->zst.level)
		fprintf(f,
			"  \"compression\": {\"method\": \"zstd\", \"level\": %d, \"bytes_in\": %" PRIu64
			", \"bytes_out\": %" PRIu64 ", \"ratio\": %.3f, \"records\": %" PRIu64
			", \"time_ns\": %" PRIu64 ", \"workers\": %d},\n",
			res->zst.level, res->zst.bytes_in, res->zst.bytes_out,
			res->zst.bytes_out ? (double)res->zst.bytes_in / res->zst.bytes_out : 0.0,
			res->zst.records, res->zst.ns, res->zst.workers);
	fprintf(f, "  \"lost_while_frozen\": %" PRIu64 ",\n", t->gated);
	fprintf(f, "  \"lost_to_bpf_recursion\": %" PRIu64 ",\n", t->skipped);
	fprintf(f,
		"  \"rings\": \"%s\", \"scope\": \"%s\",%s \"ring_sets\": {\"records\": %" PRIu64
		", \"older_than_a_gap\": %" PRIu64 ", \"cpus_truncated\": %u},\n  \"cpus\": [",
		r->nr_bpf_evs ? (r->compact ? "compact" : "bpf") : "perf",
		r->opts.tids   ? "tasks" :
		r->opts.cgroup ? "cgroup" :
				 "system",
		r->sched_wide ? " \"sched_scope\": \"system\"," : "", res->bst.records,
		res->bst.dropped, res->bst.truncated_cpus);
	for (int i = 0; i < r->nr_rings; i++) {
		const struct rec_ring *ring = &r->rings[i];
		const struct ring_stat *s = &res->rs[i];

		fprintf(f,
			"%s\n    {\"cpu\": %d, \"ring\": \"%s\", \"ring_bytes\": %" PRIu64
			", \"wrapped\": %s, \"oldest_ns\": %" PRIu64 ", \"records\": %" PRIu64
			", \"bytes\": %" PRIu64 ", \"lost\": %" PRIu64 "}",
			i ? "," : "", ring->cpu,
			ring->tracking ? "tracking" :
			ring->set < 0  ? "main" :
			ring->compact  ? (ring->set ? "carry" : "compact") :
			ring->set      ? "set1" :
					 "set0",
			ring->compact ? (uint64_t)(ring->set ? r->cr_nseg / TRIGREC_CR_SPARE_DIV :
							       r->cr_nseg)
						<< r->cr_shift :
					ring->size,
			h->rings[i].wrapped ? "true" : "false", s->oldest, s->records, s->bytes,
			s->lost);
	}
	fprintf(f, "\n  ],\n");
	render_tasks(f, &sc->procs);
	if (c->why) { /* made by show/why.c from this file: well-formed JSON */
		fprintf(f, "  \"why\": %s,\n", c->why);
	} else if (c->why_skip[0]) {
		fprintf(f, "  \"why_skipped\": ");
		json_str(f, c->why_skip, sizeof(c->why_skip));
		fprintf(f, ",\n");
	}
	fprintf(f,
		"  \"timing\": {\"trigger_to_wake_ns\": %" PRIu64
		", \"freeze_to_resume_ns\": %" PRIu64 ", \"pause_to_resume_ns\": %" PRIu64
		", \"resume_to_file_ns\": %" PRIu64 ", \"why_ns\": %" PRIu64 "}\n}\n",
		tm->woke > t0 ? tm->woke - t0 : (uint64_t)0,
		tm->resume > t->freeze_at ? tm->resume - t->freeze_at : (uint64_t)0,
		tm->resume - tm->pause, mono_ns() - tm->resume, c->why_ns);
	if (fclose(f)) {
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * The why section (src/show/why.c) of the file just written, from its own
 * records and the sidecar as rendered so far (json): what `trigrec show
 * --json` prints as "why" for the same pair, so an on_snapshot hook reads
 * it without reading the .data. Bounded: a snapshot of more than
 * SNAP_WHY_MAX_RECORDS records is not analysed here (why_skip says so).
 */
#define SNAP_WHY_MAX_RECORDS 250000u
static void snap_why(struct json_ctx *c, const char *datapath, const char *json, size_t jlen)
{
	uint64_t t0 = mono_ns(), c0 = thread_cpu_ns();
	struct show *s = NULL;
	struct show_why *w = NULL;
	void *map = MAP_FAILED;
	char err[400];
	struct stat st;
	size_t len = 0;
	FILE *f;

	size_t max = c->sc->why_max_records ? c->sc->why_max_records : SNAP_WHY_MAX_RECORDS;

	c->why_done = 1;
	if (c->res->kept > max) {
		snprintf(c->why_skip, sizeof(c->why_skip),
			 "%zu records, more than the %zu the writer analyses: trigrec show --json "
			 "FILE prints the why of this snapshot",
			 c->res->kept, max);
		goto out;
	}
	if (!c->t->msg) {
		/* No triggering thread (manual, final): the why says so without the records. */
		s = calloc(1, sizeof(*s));
		w = s ? malloc(sizeof(*w)) : NULL;
		if (w && !show_why(s, 0, w))
			goto render;
		snprintf(c->why_skip, sizeof(c->why_skip), "the analysis failed: out of memory");
		goto out;
	}
	if (fstat(c->fd, &st) || st.st_size <= 0 ||
	    (map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, c->fd, 0)) == MAP_FAILED) {
		snprintf(c->why_skip, sizeof(c->why_skip),
			 "the written .data could not be read back: %s; trigrec show --json FILE "
			 "prints the why of this snapshot",
			 strerror(errno ? errno : EIO));
		goto out;
	}
	s = show__open_mem(map, st.st_size, json, jlen, datapath, err, sizeof(err));
	w = s ? malloc(sizeof(*w)) : NULL;
	if (!s || !w || show_why(s, 0, w)) {
		snprintf(c->why_skip, sizeof(c->why_skip), "the analysis failed: %s",
			 !s ? err : "out of memory");
		if (w && s)
			show_why_free(w);
		goto out;
	}
render:
	f = open_memstream(&c->why, &len);
	if (f) {
		show_why_json_obj(w, f);
		if (fclose(f)) {
			free(c->why);
			c->why = NULL;
		}
	}
	if (!c->why)
		snprintf(c->why_skip, sizeof(c->why_skip), "the analysis failed: out of memory");
	show_why_free(w);
out:
	free(w);
	show__free(s);
	if (map != MAP_FAILED)
		munmap(map, st.st_size);
	c->why_ns = mono_ns() - t0;
	c->why_cpu_ns = thread_cpu_ns() - c0;
}

/* The sidecar with its "why": rendered once without, analysed, then again with it. */
static int render_json_why(void *ctx, const char *datapath, char **out, size_t *outlen)
{
	struct json_ctx *c = ctx;
	char *first = NULL;
	size_t flen = 0;
	int err;

	if (!c->why_done) {
		err = render_json(ctx, datapath, &first, &flen);
		if (err)
			return err;
		snap_why(c, datapath, first, flen);
		free(first);
	}
	return render_json(ctx, datapath, out, outlen);
}

static int write_synth(struct pd_writer *w, const void *buf, int len)
{
	return len < 0 ? len : pd_writer__write(w, buf, len);
}

/* User mappings of a process, for -g stacks; their files' build-ids go into bs. */
static int synth_maps(struct pd_writer *w, const struct rec_event *tev, uint32_t pid,
		      struct bid_set *bs)
{
	char path[64], line[4608], buf[4608 + 256];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!err && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, ino;
		unsigned int maj, min;
		char perms[8], name[4096] = "";
		uint32_t prot = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms,
			   &off, &maj, &min, &ino, name) < 7)
			continue;
		if (perms[2] != 'x')
			continue;
		{
			char *n = name;

			while (*n == ' ')
				n++;
			memmove(name, n, strlen(n) + 1);
		}
		if (!name[0])
			snprintf(name, sizeof(name), "//anon");
		prot = (perms[0] == 'r' ? 1 : 0) | (perms[1] == 'w' ? 2 : 0) | 4;
		err = write_synth(w, buf,
				  pd_synth_mmap2(buf, sizeof(buf), &tev->pd.attr, tev->pd.ids[0],
						 pid, pid, start, end - start, off, maj, min, ino,
						 prot, perms[3] == 's' ? 1 : 2, name));
		if (!err)
			err = bid_set__map(bs, pid, start, end - start, ino, name);
	}
	fclose(f);
	return err;
}

/*
 * The threads a tracepoint record names in its pid fields (sched_switch's
 * next_pid, sched_wakeup's pid...): perf record names every thread, and perf
 * sched and perf timechart name tasks through these. Up to 4 into out.
 */
static int pid_field_tids(const struct snapshot_ctx *sc, const struct perf_event_header *hdr,
			  const struct snap_rec *s, uint32_t *out)
{
	const uint8_t *raw = tp_raw(hdr, sc->kevs[s->event].attr.sample_type);
	uint32_t size;
	int n = 0;

	if (!raw)
		return 0;
	memcpy(&size, raw, 4);
	for (int i = 0; i < sc->pid_fields[s->event].n; i++) {
		uint16_t off = sc->pid_fields[s->event].off[i];

		if (off + 4u <= size)
			memcpy(&out[n++], raw + 4 + off, 4);
	}
	return n;
}

/*
 * A trigger on an event nothing records: its own record comes from the
 * side-band message (the firing program copied it there), as one more
 * tracepoint attr of this file (TP_MSG_SAMPLE_TYPE; its format joins the
 * TRACING_DATA) with an id no other attr of the file has. The event is not
 * recorded otherwise: only the firing record is kept. 0 with own->len 0
 * when there is nothing to add (the writer then uses sc's attrs as they are).
 */
struct own_rec {
	struct pd_event *evs; /* sc->fevs, then the trigger's event */
	uint64_t id;
	void *tracing_data;
	size_t tracing_data_len;
	int len;
	uint8_t buf[512];
};

static int own_rec_build(const struct snapshot_ctx *sc, struct recorder *r,
			 const struct snap_trigger *t, struct snap_result *res, struct own_rec *o)
{
	const struct trigrec_trigger_msg *m = t->msg;
	struct pd_event *x;
	int n;

	if (!m)
		return 0;
	res->own = m->hook_recorded ? 1 : 3;
	if (m->hook_recorded || !t->fmt || m->time_ns < res->start || m->time_ns > res->cut)
		return 0;
	o->id = 0;
	for (int i = 0; i < r->nr_evs; i++)
		for (uint32_t j = 0; j < sc->fevs[i].nr_ids; j++)
			if (sc->fevs[i].ids[j] > o->id)
				o->id = sc->fevs[i].ids[j];
	o->id++;
	n = tp_msg_sample(t->fmt, m, o->id, o->buf, sizeof(o->buf));
	if (n < 0) {
		vlog("trigger %s: its record of %s:%s not kept: %s", t->name, t->fmt->sys,
		     t->fmt->name,
		     n == -E2BIG ? "longer than the side-band message holds" : strerror(-n));
		return 0;
	}
	o->evs = calloc(r->nr_evs + 1, sizeof(*o->evs));
	if (!o->evs)
		return -ENOMEM;
	memcpy(o->evs, sc->fevs, r->nr_evs * sizeof(*o->evs));
	x = &o->evs[r->nr_evs];
	x->attr = recorder__tracking(r)->pd.attr;
	x->attr.type = PERF_TYPE_TRACEPOINT;
	x->attr.config = (uint64_t)t->fmt->id;
	x->attr.sample_period = 1;
	x->attr.freq = 0;
	x->attr.sample_type = TP_MSG_SAMPLE_TYPE;
	x->attr.mmap = x->attr.mmap2 = x->attr.mmap_data = x->attr.comm = x->attr.comm_exec = 0;
	x->attr.task = x->attr.ksymbol = x->attr.bpf_event = x->attr.context_switch = 0;
	x->attr.build_id = 0;
	x->attr.sample_max_stack = 0;
	x->attr.exclude_callchain_user = x->attr.exclude_callchain_kernel = 0;
	snprintf(x->name, sizeof(x->name), "%.63s:%.95s", t->fmt->sys, t->fmt->name);
	snprintf(x->tp_sys, sizeof(x->tp_sys), "%s", t->fmt->sys);
	snprintf(x->tp_name, sizeof(x->tp_name), "%s", t->fmt->name);
	x->ids = &o->id;
	x->nr_ids = 1;
	/* Its format read again from tracefs: without it, the snapshot without the record. */
	n = pd_tracing_data(o->evs, r->nr_evs + 1, &o->tracing_data, &o->tracing_data_len);
	if (n) {
		wlog("trigger %s: its record of %s:%s not kept: cannot read its format: %s",
		     t->name, t->fmt->sys, t->fmt->name, strerror(-n));
		free(o->evs);
		o->evs = NULL;
		return n == -ENOMEM ? n : 0;
	}
	o->len = tp_msg_sample(t->fmt, m, o->id, o->buf, sizeof(o->buf));
	res->own = 2; /* not among `records`: they count what the rings held */
	if (!res->first || m->time_ns < res->first)
		res->first = m->time_ns;
	return 0;
}

/*
 * One snapshot being written, shared by the phases of snapshot__write():
 * index the rings, find the cut and the window, name the threads, write
 * the maps and names, merge the records in, finish, publish, warn.
 */
struct snap_job {
	struct snapshot_ctx *sc;
	struct recorder *r;
	struct harvest *h;
	const struct snap_trigger *t;
	const struct trigrec_trigger_msg *m; /* NULL: manual or final */
	struct rec_event *tev;		     /* tracking event: synthesized records' attr */
	struct collect c;		     /* the index being built */
	struct snap_result res;
	struct ring_run *runs; /* per ring: its run of the index, and the window in it */
	struct own_rec *own;   /* the trigger's record rebuilt from its message */
	struct pd_writer *w;
	struct bid_set *bs;
	struct merge mg;
	char buf[8192]; /* one synthesized record */
};

/*
 * Phase 1: every ring into the index, one run per ring, oldest first (the
 * ring sets are first rewritten into samples, the compact rings decoded
 * into stubs that the write expands one at a time). A ring
 * holds at least 24 bytes per record, so reserving len / 64 up front makes
 * the growth inside the walk rare.
 */
static int job_index(struct snap_job *j)
{
	struct recorder *r = j->r;
	struct harvest *h = j->h;
	struct collect *c = &j->c;
	int err;

	if (r->nr_bpf_evs) {
		err = bpfrec__convert(r, h, &j->sc->bpfrec, &j->res.bst);
		if (err)
			return err;
		if (j->res.bst.dropped)
			vlog("ring sets: %" PRIu64
			     " records older than a gap in their CPU's record "
			     "numbers left out",
			     j->res.bst.dropped);
	}
	/* The index exists from here on, even for a snapshot of nothing. */
	err = idx_reserve(c, 1);
	if (err)
		return err;
	for (int i = 0; i < r->nr_rings; i++) {
		j->runs[i].begin = c->n;
		if (h->rings[i].len) {
			c->base = h->rings[i].buf;
			c->stubs = r->rings[i].compact;
			err = idx_reserve(c, h->rings[i].len / 64);
			if (!err)
				err = ring_walk(h->rings[i].buf, h->rings[i].len, collect_one, c,
						NULL);
			if (err)
				return err;
		}
		j->runs[i].end = c->n;
		order_run((struct snap_rec *)j->sc->idx + j->runs[i].begin,
			  j->runs[i].end - j->runs[i].begin, h->rings[i].oldest_first);
	}
	c->idx = j->sc->idx;
	if (c->bad)
		wlog("%lu records with unknown ids skipped", c->bad);
	return 0;
}

/*
 * Phase 2: the cut and the window, and what the window keeps per ring.
 *
 * The cut. A trigger's own record is stamped by perf a little after the
 * BPF program ran, so when that record is in the rings the cut is its
 * time: the first record at or after the trigger on the trigger's CPU
 * (its gate dropped everything else there). With a post window, or for
 * manual snapshots, the cut is the freeze time itself.
 *
 * The window start. Nothing before the previous resume (that history was
 * the previous snapshot's, and the freeze left a hole after it). Where a
 * ring has overwritten records, start no earlier than its oldest kept one,
 * so that no CPU has a gap the others do not: the window is complete.
 */
static void job_window(struct snap_job *j)
{
	struct recorder *r = j->r;
	struct snap_result *res = &j->res;
	const struct snap_rec *idx = j->c.idx;
	const struct trigrec_trigger_msg *m = j->m;
	struct ring_run *runs = j->runs;

	res->cut = j->t->freeze_at;
	if (m && m->freeze_at == m->time_ns && m->hook_recorded) {
		uint64_t best = trigger_record_time(j->sc, r, j->h, idx, runs, m);

		if (best != UINT64_MAX)
			res->cut = best;
	}
	for (int i = 0; i < r->nr_rings; i++) {
		const struct snap_rec *v = idx + runs[i].begin;

		runs[i].hi =
			runs[i].begin + run_search(v, runs[i].end - runs[i].begin, res->cut, 1);
		if (runs[i].hi > runs[i].begin)
			res->rs[i].oldest = v[0].time;
		if (!is_tracking(r, i) && j->h->rings[i].wrapped && res->rs[i].oldest > res->align)
			res->align = res->rs[i].oldest;
	}
	res->start = j->t->floor;
	if (!j->sc->no_align && res->align > res->start)
		res->start = res->align;
	for (int i = 0; i < r->nr_rings; i++) {
		const struct snap_rec *v = idx + runs[i].begin;
		struct ring_stat *rs = &res->rs[i];

		/* Tracking records older than the window still name threads: keep them. */
		runs[i].lo = runs[i].begin;
		if (!is_tracking(r, i)) {
			runs[i].lo += run_search(v, runs[i].hi - runs[i].begin, res->start, 0);
			if (runs[i].lo < runs[i].hi &&
			    (!res->first || idx[runs[i].lo].time < res->first))
				res->first = idx[runs[i].lo].time;
		}
		/* From the index: the records themselves are read once more, by the write. */
		for (size_t x = runs[i].lo; x < runs[i].hi; x++) {
			uint16_t sz = idx[x].size;

			rs->bytes += sz & ~SNAP_LOST_SIZE_BIT;
			if (sz & SNAP_LOST_SIZE_BIT)
				rs->lost += ((const uint64_t *)(rec_hdr(j->h, i, &idx[x]) + 1))[1];
		}
		rs->records = runs[i].hi - runs[i].lo;
		res->kept += rs->records;
		res->kept_bytes += rs->bytes;
	}
}

/*
 * Phase 3: thread -> process for the TIDs the writer adds: tracking
 * records first, then /proc. Threads seen at start-up are cached; newer
 * ones are read on demand.
 */
static void job_note_threads(struct snap_job *j)
{
	struct snapshot_ctx *sc = j->sc;

	procs__clear_used(&sc->procs);
	for (int i = 0; i < j->r->nr_rings; i++) {
		if (!is_tracking(j->r, i))
			continue;
		for (size_t x = j->runs[i].lo; x < j->runs[i].hi; x++) {
			const struct perf_event_header *hd = rec_hdr(j->h, i, &j->c.idx[x]);
			const uint32_t *f = (const uint32_t *)(hd + 1);

			if (hd->type == PERF_RECORD_COMM)
				procs__note(&sc->procs, f[0], f[1]);
			else if (hd->type == PERF_RECORD_FORK || hd->type == PERF_RECORD_EXIT)
				procs__note(&sc->procs, f[0], f[2]);
		}
	}
}

/* Phase 4: the writer on the new file (zstd off the side-band thread), its header begun. */
static int job_open(struct snap_job *j, int fd)
{
	struct snapshot_ctx *sc = j->sc;
	int err;

	if (!sc->wbuf && !(sc->wbuf = malloc(PD_WRITER_BUF_SIZE)))
		return -ENOMEM;
	j->w = j->own->len ? pd_writer__new_buf(fd, j->own->evs, j->r->nr_evs + 1, sc->wbuf) :
			     pd_writer__new_buf(fd, sc->fevs, j->r->nr_evs, sc->wbuf);
	if (!j->w)
		return -ENOMEM;
	if (sc->zstd_level) {
		/* Off the side-band thread: recording runs again while zstd works. */
		if (pd_zpool__level(sc->zpool) != sc->zstd_level) {
			pd_zpool__free(sc->zpool);
			sc->zpool = pd_zpool__new(sc->zstd_level, 0);
		}
		err = sc->zpool ? pd_writer__use_zpool(j->w, sc->zpool) : -ENOMEM;
		if (err)
			return err;
	}
	return pd_writer__begin(j->w);
}

/*
 * Phase 5: the maps at time 0, before everything: the kernel's, then its
 * modules', then the BPF programs'; build-ids start with the kernel's.
 */
static int job_write_maps(struct snap_job *j)
{
	struct snapshot_ctx *sc = j->sc;
	const struct rec_event *tev = j->tev;
	int err;

	j->bs = bid_set__new(sc->bids);
	if (!j->bs)
		return -ENOMEM;
	err = bid_set__kernel(j->bs);
	if (err)
		return err;
	err = write_synth(j->w, j->buf,
			  pd_synth_kernel_mmap(j->buf, sizeof(j->buf), &tev->pd.attr,
					       tev->pd.ids[0], sc->kernel_start,
					       sc->kernel_end - sc->kernel_start));
	/*
	 * The modules loaded now, after the kernel's map (which ends at _etext):
	 * a frame in a driver or a modular file system resolves to its symbol
	 * in [module], not [unknown]. A failed read costs the maps, not the
	 * snapshot.
	 */
	if (!err && !kmods__refresh(&sc->kmods)) {
		for (int i = 0; i < sc->kmods.n && !err; i++) {
			const struct kmod *k = &sc->kmods.v[i];
			char nb[80];

			err = write_synth(j->w, j->buf,
					  pd_synth_module_mmap(j->buf, sizeof(j->buf),
							       &tev->pd.attr, tev->pd.ids[0],
							       k->start, k->len,
							       kmods__filename(k, nb, sizeof(nb))));
		}
	}
	/*
	 * The BPF programs loaded now, as perf record names them: a sample or a
	 * call chain inside one (a tracer's program on a syscall, trigrec's
	 * own) resolves to bpf_prog_<tag>_<name>, not [unknown]. A failed
	 * refresh writes the last list; it costs names, not the snapshot.
	 */
	if (!err) {
		int e = bpf_syms__refresh(&sc->bpfsyms);

		if (e)
			dlog("BPF program names: %s (using the last list)", strerror(-e));
	}
	for (size_t i = 0; i < sc->bpfsyms.nsyms && !err; i++) {
		const struct bpf_ksym *k = &sc->bpfsyms.syms[i];

		err = write_synth(j->w, j->buf,
				  pd_synth_ksymbol_bpf(j->buf, sizeof(j->buf), &tev->pd.attr,
						       tev->pd.ids[0], k->addr, k->len, k->name));
	}
	return err;
}

/*
 * rings=compact: the one record bpfrec__expand() rebuilds at a time, for
 * the COMM pass and the write alike (one after the other, on this thread).
 */
static __thread uint8_t xbuf[BPFREC_EXPAND_MAX];

/*
 * Phase 6: a COMM for every thread the kept records name, ring by ring
 * (COMMs are at time 0: any order), with its maps under -g; then the
 * thread of the trigger's own record from its message.
 */
static int job_write_comms(struct snap_job *j)
{
	struct snapshot_ctx *sc = j->sc;
	const struct rec_event *tev = j->tev;
	const struct trigrec_trigger_msg *m = j->m;
	int err = 0;

	for (int i = 0; i < j->r->nr_rings && !err; i++) {
		for (size_t x = j->runs[i].lo; x < j->runs[i].hi && !err; x++) {
			const struct snap_rec *s = &j->c.idx[x];
			const struct perf_event_header *hd = rec_hdr(j->h, i, s);
			uint32_t tids[5], pid;
			int nt = 1;

			/*
			 * A stub has the record's common_pid, which rec_thread() reads; its
			 * pid fields need the record, but not the names it leaves out.
			 */
			if (j->r->rings[i].compact && hd->type == PERF_RECORD_SAMPLE &&
			    needs_completion(j->r, s) && sc->pid_fields[s->event].n) {
				err = bpfrec__expand(j->r, &sc->bpfrec, i, hd, 0, xbuf,
						     sizeof(xbuf), &hd);
				if (err)
					break;
			}

			if (hd->type == PERF_RECORD_FORK) {
				/* perf names a child after its parent: the parent needs a COMM too. */
				const uint32_t *f =
					(const uint32_t *)(hd + 1); /* pid ppid tid ptid */

				tids[0] = f[3];
			} else if (hd->type != PERF_RECORD_SAMPLE) {
				continue;
			} else {
				tids[0] = rec_thread(sc, j->r, hd, s->event, &pid);
				if (needs_completion(j->r, s))
					nt += pid_field_tids(sc, hd, s, tids + 1);
			}
			/* used: bit 0 = COMM written, bit 1 = maps written (the record's own thread only) */
			for (int k = 0; k < nt && !err; k++) {
				struct proc_ent *pe =
					tids[k] ? procs__get(&sc->procs, tids[k]) : NULL;

				if (!pe || !pe->comm[0])
					continue;
				if (!(pe->used & 1)) {
					pe->used |= 1;
					err = write_synth(
						j->w, j->buf,
						pd_synth_comm(j->buf, sizeof(j->buf), &tev->pd.attr,
							      tev->pd.ids[0], pe->pid, pe->tid,
							      pe->comm, 0, 0, 0));
				}
				if (!err && k == 0 && !(pe->used & 2) && sc->callgraph &&
				    pe->pid == pe->tid) {
					pe->used |= 2;
					err = synth_maps(j->w, tev, pe->pid, j->bs);
				}
			}
		}
	}
	if (!err && j->own->len) {
		struct proc_ent *pe = m->tid ? procs__get(&sc->procs, m->tid) : NULL;
		char comm[TRIGREC_COMM_LEN + 1];

		snprintf(comm, sizeof(comm), "%.*s", TRIGREC_COMM_LEN, m->comm);
		if (!pe || !(pe->used & 1)) {
			if (pe)
				pe->used |= 1;
			err = write_synth(j->w, j->buf,
					  pd_synth_comm(j->buf, sizeof(j->buf), &tev->pd.attr,
							tev->pd.ids[0], pe ? pe->pid : m->pid,
							m->tid, pe && pe->comm[0] ? pe->comm : comm,
							0, 0, 0));
		}
	}
	return err;
}

/*
 * Phase 7: every kept record, in time order (the k-way merge of the
 * rings' runs), ring-set records completed with their pid and CPU; the
 * trigger's rebuilt record goes in as the last one at its time.
 */
static int job_write_records(struct snap_job *j)
{
	static __thread uint8_t rbuf[65536 + 16];
	struct recorder *r = j->r;
	const struct trigrec_trigger_msg *m = j->m;
	struct own_rec *own = j->own;
	uint32_t last_tid = 0, last_pid = 0;
	const struct snap_rec *s;
	int ring, err = merge_init(&j->mg, j->c.idx, j->runs, r->nr_rings, j->h, &j->sc->bpfrec);

	while (!err && (s = merge_next(&j->mg, &ring))) {
		const struct perf_event_header *hd = rec_hdr(j->h, ring, s);

		/* A compact ring's record, decoded again into one buffer as it is written. */
		if (r->rings[ring].compact) {
			err = bpfrec__expand(r, &j->sc->bpfrec, ring, hd, 1, xbuf, sizeof(xbuf),
					     &hd);
			if (err)
				break;
		}

		/* The trigger's own record: the last one at its time. */
		if (own->len && s->time > m->time_ns) {
			err = pd_writer__write(j->w, own->buf, own->len);
			own->len = 0;
			if (err)
				break;
		}

		if (needs_completion(r, s)) {
			uint32_t tid = 0, pid;
			const uint8_t *raw;

			if (hd->type == PERF_RECORD_SAMPLE) {
				raw = tp_raw(hd, r->evs[s->event].pd.attr.sample_type);
				memcpy(&tid, raw + 4 + 4, 4);
			}
			if (tid && tid == last_tid) {
				pid = last_pid;
			} else {
				struct proc_ent *pe = tid ? procs__get(&j->sc->procs, tid) : NULL;

				pid = pe ? pe->pid : tid;
				last_tid = tid;
				last_pid = pid;
			}
			err = write_rewritten(j->w, hd, r->evs[s->event].pd.attr.sample_type, pid,
					      tid, r->rings[ring].cpu, rbuf, sizeof(rbuf));
		} else {
			err = pd_writer__write(j->w, hd, hd->size);
			if (!err && hd->type == PERF_RECORD_MMAP2)
				err = bid_set__mmap2(j->bs, hd);
		}
	}
	if (!err && own->len)
		err = pd_writer__write(j->w, own->buf, own->len);
	return err;
}

/* Phase 8: the header's features (host, build-ids, clocks, tracing data) and the index. */
static int job_finish(struct snap_job *j)
{
	struct snapshot_ctx *sc = j->sc;
	struct own_rec *own = j->own;
	struct pd_meta meta = {
		.version = "trigrec " TRIGREC_VERSION,
		.argc = sc->cmdline ? sc->argc : 0,
		.argv = sc->cmdline,
		.first_time = j->res.first,
		.last_time = j->res.cut,
		.clockid = CLOCK_MONOTONIC,
		.clock_res_ns = 1,
		.tracing_data = own->tracing_data ? own->tracing_data : sc->tracing_data,
		.tracing_data_len =
			own->tracing_data ? own->tracing_data_len : sc->tracing_data_len,
	};
	struct timespec rt, mo;
	int err;

	pd_host__meta(sc->host, &meta);
	meta.build_ids = bid_set__entries(j->bs, &meta.nr_build_ids);
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mo);
	meta.tod_ns = rt.tv_sec * 1000000000ull + rt.tv_nsec;
	meta.clockid_ns = mo.tv_sec * 1000000000ull + mo.tv_nsec;
	err = pd_writer__finish(j->w, &meta);
	pd_writer__comp_stats(j->w, &j->res.zst);
	return err;
}

/*
 * Phase 9: the data on disk before it gets a name (crash safety), then
 * the pair published under base (the sidecar rendered with its name).
 */
static int job_publish(struct snap_job *j, struct out_file *data, const char *base,
		       const struct snap_timing *tm, struct snap_written *out)
{
	struct snapshot_ctx *sc = j->sc;
	struct json_ctx jc = { sc, j->r, j->h, j->t, tm, &j->res, data->fd, 0, NULL, "", 0, 0 };
	struct stat st;
	size_t n;
	int err;

	if (fsync(data->fd))
		return -errno;
	memset(out, 0, sizeof(*out));
	if (!fstat(data->fd, &st))
		out->data_bytes = st.st_size;
	outdir__set_max_pair(sc->od, sc->max_bytes);
	err = outdir__publish_pair(sc->od, data, base, render_json_why, &jc, out->path,
				   sizeof(out->path));
	free(jc.why);
	if (err)
		return err;
	out->why_ns = jc.why_ns;
	out->why_cpu_ns = jc.why_cpu_ns;
	out->records = j->res.kept;
	for (int i = 0; i < j->r->nr_rings; i++)
		out->lost += j->res.rs[i].lost;
	/* The sidecar is the data path with .json for .data (outdir__publish_pair). */
	n = strlen(out->path);
	memcpy(out->sidecar, out->path, n + 1);
	if (n > 5 && !strcmp(out->sidecar + n - 5, ".data"))
		memcpy(out->sidecar + n - 5, ".json", 6);
	if (!stat(out->sidecar, &st))
		out->sidecar_bytes = st.st_size;
	return 0;
}

/* A latency or rate window whose start the snapshot's window misses: say so, and what to change. */
static void job_warn_coverage(const struct snap_job *j, const char *path)
{
	const struct trigrec_trigger_msg *m = j->m;
	const struct snap_result *res = &j->res;
	const char *what;

	if (!m || !j->t->def ||
	    (j->t->def->kind != TRIGREC_TRIG_LATENCY && j->t->def->kind != TRIGREC_TRIG_RATE) ||
	    span_covered(j->r, res->first, m->start_ns))
		return;
	what = j->t->def->kind == TRIGREC_TRIG_LATENCY ? "latency" : "rate window";
	wlog("snapshot %s: its window starts %.3f ms after the %s's start (window from "
	     "%" PRIu64 " ns, %s from %" PRIu64 " ns): the records cannot explain all of "
	     "it; give a bigger ring (-m), fewer events (-e) or, when one CPU's wrapped "
	     "ring shortened every CPU's window, --no-align",
	     path,
	     res->first ? (res->first - m->start_ns) / 1e6 :
			  (res->cut > m->start_ns ? (res->cut - m->start_ns) / 1e6 : 0.0),
	     what, res->first, what, (uint64_t)m->start_ns);
}

int snapshot__write(struct snapshot_ctx *sc, struct recorder *r, struct harvest *h,
		    const struct snap_trigger *t, const struct snap_timing *tm,
		    struct snap_written *out)
{
	struct snap_job j = { .sc = sc, .r = r, .h = h, .t = t, .m = t->msg };
	struct out_file data = { .fd = -1 };
	char stem[96] = "", base[OUTDIR_BASE_MAX + 1];
	int err;

	j.c = (struct collect){ .sc = sc, .r = r, .idx = sc->idx };
	j.tev = recorder__tracking(r);
	j.res.rs = calloc(r->nr_rings, sizeof(*j.res.rs));
	j.runs = calloc(r->nr_rings ? r->nr_rings : 1, sizeof(*j.runs));
	j.own = calloc(1, sizeof(*j.own));
	if (!j.res.rs || !j.runs || !j.own) {
		err = -ENOMEM;
		goto out;
	}
	err = job_index(&j);
	if (err)
		goto out;
	job_window(&j);
	err = own_rec_build(sc, r, t, &j.res, j.own);
	if (err)
		goto out;
	job_note_threads(&j);

	fmt_stamp((int64_t)(j.m ? j.m->time_ns : t->freeze_at) + sc->mono_to_real, stem,
		  sizeof(stem));
	if (sc->name_prefix)
		snprintf(base, sizeof(base), "%s-%s-%s", sc->name_prefix, stem, t->name);
	else
		snprintf(base, sizeof(base), "%s-%s", stem, t->name);
	err = outdir__create(sc->od, &data);
	if (!err)
		err = job_open(&j, data.fd);
	if (!err)
		err = job_write_maps(&j);
	if (!err)
		err = job_write_comms(&j);
	if (!err)
		err = job_write_records(&j);
	if (!err)
		err = job_finish(&j);
	if (!err)
		err = job_publish(&j, &data, base, tm, out);
	if (err)
		goto out;
	sc->written++;
	fail_summary(sc);
	job_warn_coverage(&j, out->path);
out:
	if (err)
		fail_log(sc, stem, t->name, err);
	outdir__discard(sc->od, &data);
	pd_writer__free(j.w);
	bid_set__free(j.bs);
	free(j.mg.heap);
	free(j.mg.bufs);
	free(j.mg.srcs);
	if (j.own) {
		free(j.own->evs);
		free(j.own->tracing_data);
		free(j.own);
	}
	free(j.runs);
	free(j.res.rs);
	if (r->compact)
		bpfrec__restore(h, &sc->bpfrec);
	return err;
}
