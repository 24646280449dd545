// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "util/log.h"
#include "capture/recorder.h"
#include "capture/ring_reader.h"
#include "capture/tracefs.h"
#include "util/util.h"

/*
 * Lean samples: the kernel writes only what cannot be known later. TID comes
 * back from the record's common_pid and CPU from the ring it sits in, so the
 * snapshot writer adds them (REC_TP_FILE_EXTRA) and perf still sees them:
 * ~95 ns less per recorded event, which pays for the gate.
 */
#define TP_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)
#define SW_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
#define TRACK_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			   PERF_SAMPLE_CPU)

static const struct {
	const char *name;
	const char *alias;
	uint64_t config;
} sw_events[] = {
	{ "cpu-clock", NULL, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", NULL, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", "faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", "cs", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", "migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
};

static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

static long perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group, unsigned long fl)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group, fl);
}

static void base_attr(struct perf_event_attr *a, const struct recorder_opts *o)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sample_id_all = 1;
	/* CLOCK_MONOTONIC: the clock of bpf_ktime_get_ns(), so cut times compare. */
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->write_backward = 1;
	a->inherit = o->tids != NULL;
	if (o->enable_on_exec) {
		a->disabled = 1;
		a->enable_on_exec = 1;
	}
	if (o->callgraph)
		a->sample_max_stack = 127;
}

static struct rec_event *add_event(struct recorder *r)
{
	struct rec_event *evs = realloc(r->evs, (r->nr_evs + 1) * sizeof(*evs));

	if (!evs)
		return NULL;
	r->evs = evs;
	memset(&evs[r->nr_evs], 0, sizeof(*evs));
	return &evs[r->nr_evs++];
}

static int have_event(const struct recorder *r, const char *name)
{
	for (int i = 0; i < r->nr_evs; i++)
		if (!strcmp(r->evs[i].pd.name, name))
			return 1;
	return 0;
}

static int add_tracepoint(struct recorder *r, const struct tp_name *tp, const char *filter)
{
	char name[sizeof(tp->sys) + sizeof(tp->name) + 1];
	struct rec_event *e;

	snprintf(name, sizeof(name), "%s:%s", tp->sys, tp->name);
	if (have_event(r, name))
		return 0;
	e = add_event(r);
	if (!e)
		return -ENOMEM;
	e->kind = REC_EV_TRACEPOINT;
	e->fmt = tp_format__load(tp->sys, tp->name);
	if (!e->fmt) {
		elog("cannot read the format of tracepoint %s: %s", name, strerror(errno));
		return -errno;
	}
	copy_str(e->pd.name, sizeof(e->pd.name), name);
	snprintf(e->pd.tp_sys, sizeof(e->pd.tp_sys), "%s", tp->sys);
	snprintf(e->pd.tp_name, sizeof(e->pd.tp_name), "%s", tp->name);
	base_attr(&e->pd.attr, &r->opts);
	e->pd.attr.type = PERF_TYPE_TRACEPOINT;
	e->pd.attr.config = e->fmt->id;
	e->pd.attr.sample_period = 1;
	e->pd.attr.sample_type = TP_SAMPLE_TYPE;
	if (r->opts.callgraph)
		e->pd.attr.sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
	e->filter = filter;
	return 0;
}

static int add_sampling(struct recorder *r, int idx)
{
	struct rec_event *e;

	if (have_event(r, sw_events[idx].name))
		return 0;
	e = add_event(r);
	if (!e)
		return -ENOMEM;
	e->kind = REC_EV_SAMPLING;
	snprintf(e->pd.name, sizeof(e->pd.name), "%s", sw_events[idx].name);
	base_attr(&e->pd.attr, &r->opts);
	e->pd.attr.type = PERF_TYPE_SOFTWARE;
	e->pd.attr.config = sw_events[idx].config;
	if (r->opts.period) {
		e->pd.attr.sample_period = r->opts.period;
	} else {
		e->pd.attr.freq = 1;
		e->pd.attr.sample_freq = r->opts.freq ? r->opts.freq : 4000;
	}
	e->pd.attr.sample_type = SW_SAMPLE_TYPE;
	if (r->opts.callgraph)
		e->pd.attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
	return 0;
}

int rec_sw_event_find(const char *name)
{
	for (size_t i = 0; i < sizeof(sw_events) / sizeof(sw_events[0]); i++)
		if (!strcmp(name, sw_events[i].name) ||
		    (sw_events[i].alias && !strcmp(name, sw_events[i].alias)))
			return (int)i;
	return -1;
}

const char *rec_sw_event_suggest(const char *bad)
{
	int best = -1, bestd = 4;

	for (size_t i = 0; i < sizeof(sw_events) / sizeof(sw_events[0]); i++) {
		int d = edit_distance(bad, sw_events[i].name);

		if (d < bestd) {
			bestd = d;
			best = i;
		}
	}
	return best >= 0 ? sw_events[best].name : NULL;
}

static void suggest_event(const char *bad)
{
	const char *sw = rec_sw_event_suggest(bad);
	char tp[512] = "";

	if (sw) {
		elog("unknown event '%s' (did you mean %s?)", bad, sw);
		return;
	}
	tracefs_suggest(bad, tp, sizeof(tp), 3);
	if (tp[0])
		elog("unknown event '%s' (did you mean %s?)", bad, tp);
	else
		elog("unknown event '%s': use a tracepoint as SYSTEM:NAME (see `trigrec list`) "
		     "or one of cpu-clock, task-clock, page-faults, context-switches, "
		     "cpu-migrations, minor-faults, major-faults", bad);
}

static int add_spec_item(struct recorder *r, const char *item, const char *filter)
{
	struct tp_name *tps = NULL;
	int n, err = 0, sw = rec_sw_event_find(item);

	if (sw >= 0) {
		if (filter) {
			elog("--filter '%s' follows -e %s, a sampling event: filters apply "
			     "to tracepoints only", filter, item);
			return -EINVAL;
		}
		return add_sampling(r, sw);
	}
	if (!strchr(item, ':') && !strchr(item, '/')) {
		suggest_event(item);
		return -ENOENT;
	}
	if (!tracefs_root())
		return -ENOENT;
	n = tracefs_glob(item, &tps);
	if (n < 0) {
		elog("cannot list tracepoints for '%s': %s", item, strerror(-n));
		return n;
	}
	if (n == 0) {
		if (strpbrk(item, "*?["))
			elog("no tracepoint matches '%s' (see `trigrec list`)", item);
		else
			suggest_event(item);
		free(tps);
		return -ENOENT;
	}
	for (int i = 0; i < n && !err; i++)
		err = add_tracepoint(r, &tps[i], filter);
	free(tps);
	return err;
}

struct recorder *recorder__new(const struct recorder_opts *opts)
{
	struct recorder *r = calloc(1, sizeof(*r));
	struct rec_event *t;
	int max_cpus = cpus_possible();

	if (!r)
		return NULL;
	r->opts = *opts;
	for (int i = 0; i < opts->nr_events; i++) {
		char *dup = strdup(opts->events[i].spec), *save = NULL, *item;

		if (!dup)
			goto fail;
		for (item = strtok_r(dup, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
			if (add_spec_item(r, item, opts->events[i].filter)) {
				free(dup);
				goto fail;
			}
		}
		free(dup);
	}
	if (!r->nr_evs) {
		elog("nothing to record: give at least one -e EVENT");
		goto fail;
	}
	t = add_event(r);
	if (!t)
		goto fail;
	t->kind = REC_EV_TRACKING;
	snprintf(t->pd.name, sizeof(t->pd.name), "dummy:u");
	base_attr(&t->pd.attr, &r->opts);
	t->pd.attr.type = PERF_TYPE_SOFTWARE;
	t->pd.attr.config = PERF_COUNT_SW_DUMMY;
	t->pd.attr.comm = 1;
	t->pd.attr.comm_exec = 1;
	t->pd.attr.task = 1;
	t->pd.attr.sample_period = 1;
	t->pd.attr.sample_type = TRACK_SAMPLE_TYPE;
	if (opts->callgraph) {
		t->pd.attr.mmap = 1;
		t->pd.attr.mmap2 = 1;
	}

	if (max_cpus <= 0)
		max_cpus = 1;
	{
		unsigned char *online = calloc(max_cpus, 1);

		if (!online)
			goto fail;
		cpus_online_mask(online, max_cpus);
		r->cpus = calloc(max_cpus, sizeof(int));
		if (!r->cpus) {
			free(online);
			goto fail;
		}
		for (int c = 0; c < max_cpus; c++) {
			if (!online[c])
				continue;
			if (opts->cpumask && !opts->cpumask[c])
				continue;
			r->cpus[r->nr_cpus++] = c;
		}
		free(online);
	}
	if (!r->nr_cpus) {
		elog("no online CPU selected by -C: check the list against /sys/devices/system/cpu/online");
		goto fail;
	}
	return r;
fail:
	recorder__free(r);
	return NULL;
}

/* The kernel's own words for a rejected filter, via a private ftrace instance. */
static void explain_filter(const struct rec_event *e)
{
	char inst[64], path[512], buf[1024];
	const char *root = tracefs_root();
	FILE *f;
	size_t n;

	if (!root)
		return;
	snprintf(inst, sizeof(inst), "%s/instances/trigrec-%d", root, (int)getpid());
	if (mkdir(inst, 0700))
		return;
	snprintf(path, sizeof(path), "%s/events/%s/%s/filter", inst, e->pd.tp_sys, e->pd.tp_name);
	f = fopen(path, "w");
	if (f) {
		fputs(e->filter, f);
		fclose(f);
		f = fopen(path, "r");
		if (f) {
			n = fread(buf, 1, sizeof(buf) - 1, f);
			buf[n] = 0;
			fclose(f);
			/* On error the file holds the filter, a caret line and "parse_error: ..." */
			if (strstr(buf, "error"))
				elog("kernel says:\n%s", buf);
		}
	}
	rmdir(inst);
}

static void list_fields(const struct rec_event *e, char *out, size_t len)
{
	size_t o = 0;

	out[0] = 0;
	for (int i = 0; i < e->fmt->nr_fields && o + 2 < len; i++) {
		if (e->fmt->fields[i].is_common)
			continue;
		o += snprintf(out + o, len - o, "%s%s", o ? ", " : "", e->fmt->fields[i].name);
	}
}

static int open_error(const struct rec_event *e, int cpu, int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		elog("permission denied opening %s on CPU %d: run as root, or grant "
		     "CAP_PERFMON and CAP_BPF (setcap cap_perfmon,cap_bpf+ep trigrec)", e->pd.name, cpu);
		break;
	case EMFILE:
	case ENFILE:
		elog("too many open files opening %s on CPU %d: raise the limit (ulimit -n) "
		     "or record fewer events", e->pd.name, cpu);
		break;
	case ESRCH:
		elog("cannot open %s: the target process is gone", e->pd.name);
		break;
	case EINVAL:
		elog("the kernel rejected %s on CPU %d (EINVAL): it may lack write_backward "
		     "rings or use_clockid (Linux 4.7+ needed)", e->pd.name, cpu);
		break;
	default:
		elog("cannot open %s on CPU %d: %s", e->pd.name, cpu, strerror(err));
	}
	return -err;
}

static int map_ring(struct recorder *r, int cpu, int fd, uint64_t pages, int tracking)
{
	long psz = sysconf(_SC_PAGESIZE);
	struct rec_ring *ring;
	struct rec_ring *rings = realloc(r->rings, (r->nr_rings + 1) * sizeof(*rings));
	size_t len = (pages + 1) * psz;
	void *base;

	if (!rings)
		return -ENOMEM;
	r->rings = rings;
	/* PROT_READ only: overwrite mode, the kernel ignores data_tail. */
	base = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		int err = errno;

		elog("cannot map the %s ring of CPU %d (%zu KiB): %s%s", tracking ? "tracking" : "main",
		     cpu, len / 1024, strerror(err),
		     err == EPERM || err == ENOMEM ? " (lower -m, or raise kernel.perf_event_mlock_kb)" : "");
		return -err;
	}
	/*
	 * Touch every page now: perf maps ring pages into our page tables on
	 * first access, and a fault per page inside the freeze window made the
	 * first snapshot's copy ~3x slower (MAP_POPULATE does not help here).
	 */
	for (size_t off = 0; off < len; off += psz)
		(void)*(volatile const char *)((const char *)base + off);
	ring = &rings[r->nr_rings++];
	memset(ring, 0, sizeof(*ring));
	ring->cpu = cpu;
	ring->fd = fd;
	ring->tracking = tracking;
	ring->base = base;
	ring->map_len = len;
	ring->size = pages * psz;
	return 0;
}

static int open_one(struct recorder *r, struct rec_event *e, pid_t pid, int cpu, int *leader,
		    uint64_t pages)
{
	int *fds = realloc(e->fds, (e->nr_fds + 1) * sizeof(int));
	int fd, err;

	if (!fds)
		return -ENOMEM;
	e->fds = fds;
	fd = perf_event_open(&e->pd.attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return open_error(e, cpu, errno);
	e->fds[e->nr_fds++] = fd;
	if (*leader < 0) {
		err = map_ring(r, cpu, fd, pages, e->kind == REC_EV_TRACKING);
		if (err)
			return err;
		*leader = fd;
	} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, *leader)) {
		err = errno;
		elog("cannot redirect %s on CPU %d into the CPU's ring: %s", e->pd.name, cpu, strerror(err));
		return -err;
	}
	if (e->filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, e->filter)) {
		char fields[1024];

		err = errno;
		list_fields(e, fields, sizeof(fields));
		elog("bad --filter '%s' for %s: the kernel rejected it (%s). Filters use ftrace "
		     "syntax over the event's fields: %s", e->filter, e->pd.name, strerror(err), fields);
		explain_filter(e);
		return -EINVAL;
	}
	return 0;
}

static void raise_nofile(size_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need + 64)
		return;
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

int recorder__open(struct recorder *r)
{
	int ntasks = r->opts.tids ? r->opts.nr_tids : 1;
	int err;

	raise_nofile((size_t)r->nr_evs * r->nr_cpus * ntasks);
	for (int c = 0; c < r->nr_cpus; c++) {
		int cpu = r->cpus[c], leader = -1, tleader = -1;

		for (int t = 0; t < ntasks; t++) {
			pid_t pid = r->opts.tids ? r->opts.tids[t] : -1;

			for (int i = 0; i < r->nr_evs; i++) {
				struct rec_event *e = &r->evs[i];
				int tracking = e->kind == REC_EV_TRACKING;

				err = open_one(r, e, pid, cpu, tracking ? &tleader : &leader,
					       tracking ? r->opts.track_pages : r->opts.mmap_pages);
				if (err)
					return err;
			}
		}
	}
	/* Ids let perf map every record back to its attr. */
	for (int i = 0; i < r->nr_evs; i++) {
		struct rec_event *e = &r->evs[i];

		e->pd.ids = calloc(e->nr_fds, sizeof(uint64_t));
		if (!e->pd.ids)
			return -ENOMEM;
		for (int k = 0; k < e->nr_fds; k++) {
			if (ioctl(e->fds[k], PERF_EVENT_IOC_ID, &e->pd.ids[k])) {
				elog("PERF_EVENT_IOC_ID failed for %s: %s", e->pd.name, strerror(errno));
				return -errno;
			}
		}
		e->pd.nr_ids = e->nr_fds;
	}
	return 0;
}

static inline uint64_t ring_head(const struct rec_ring *ring)
{
	const struct perf_event_mmap_page *pc = ring->base;

	return __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
}

static inline const void *ring_data(const struct rec_ring *ring)
{
	const struct perf_event_mmap_page *pc = ring->base;

	return (const char *)ring->base + pc->data_offset;
}

struct harvest *harvest__new(const struct recorder *r)
{
	struct harvest *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->rings = calloc(r->nr_rings, sizeof(*h->rings));
	if (!h->rings)
		goto fail;
	h->nr_rings = r->nr_rings;
	for (int i = 0; i < r->nr_rings; i++) {
		long psz = sysconf(_SC_PAGESIZE);

		h->rings[i].buf = malloc(r->rings[i].size);
		if (!h->rings[i].buf)
			goto fail;
		/*
		 * Fault it in now, not inside the freeze window. Volatile stores: a
		 * memset(0) after malloc becomes calloc, which leaves fresh mmap
		 * pages untouched (that cost ~10 us per page in the first harvest).
		 */
		for (uint64_t off = 0; off < r->rings[i].size; off += psz)
			((volatile char *)h->rings[i].buf)[off] = 1;
	}
	return h;
fail:
	harvest__free(h);
	return NULL;
}

void harvest__free(struct harvest *h)
{
	if (!h)
		return;
	for (int i = 0; h->rings && i < h->nr_rings; i++)
		free(h->rings[i].buf);
	free(h->rings);
	free(h);
}

int recorder__harvest(struct recorder *r, struct harvest *h)
{
	int err = 0;

	/*
	 * Pause the main rings so the copies describe one moment. Tracking rings
	 * keep running: a FORK or COMM dropped while paused would leave a thread
	 * unnamed later; what moves during their copy is discarded below.
	 */
	for (int i = 0; i < r->nr_rings; i++)
		if (!r->rings[i].tracking &&
		    ioctl(r->rings[i].fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1) && !err)
			err = -errno;
	for (int i = 0; i < r->nr_rings; i++) {
		struct rec_ring *ring = &r->rings[i];
		struct ring_copy *c = &h->rings[i];
		uint64_t head = ring_head(ring), after;
		size_t len = ring_copy_linear(ring_data(ring), ring->size, head, c->buf);

		after = ring_head(ring);
		c->len = ring_discard_moved(len, ring->size, head, after);
		c->wrapped = (uint64_t)-after > ring->size;
	}
	for (int i = 0; i < r->nr_rings; i++)
		if (!r->rings[i].tracking &&
		    ioctl(r->rings[i].fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0) && !err)
			err = -errno;
	return err;
}

void recorder__rearm_on_exec(struct recorder *r)
{
	if (!r->opts.enable_on_exec)
		return;
	for (int i = 0; i < r->nr_evs; i++)
		for (int k = 0; r->evs[i].kind == REC_EV_SAMPLING && k < r->evs[i].nr_fds; k++)
			ioctl(r->evs[i].fds[k], PERF_EVENT_IOC_DISABLE, 0);
}

void recorder__free(struct recorder *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->nr_rings; i++) {
		munmap(r->rings[i].base, r->rings[i].map_len);
	}
	for (int i = 0; i < r->nr_evs; i++) {
		for (int k = 0; k < r->evs[i].nr_fds; k++)
			close(r->evs[i].fds[k]);
		free(r->evs[i].fds);
		free(r->evs[i].pd.ids);
		tp_format__free(r->evs[i].fmt);
	}
	free(r->evs);
	free(r->rings);
	free(r->cpus);
	free(r);
}
