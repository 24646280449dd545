// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <linux/magic.h>
#include "util/log.h"
#include "capture/probes.h"
#include "capture/recorder.h"
#include "trigrec_abi.h"
#include "capture/ring_reader.h"
#include "capture/ringmem.h"
#include "capture/tracefs.h"
#include "util/util.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif
#ifndef PERF_FLAG_PID_CGROUP
#define PERF_FLAG_PID_CGROUP (1UL << 2)
#endif

static int cancelled(const struct recorder_opts *o)
{
	return o->cancel && *o->cancel;
}

/*
 * Lean samples: the kernel writes only what cannot be known later. TID comes
 * back from the record's common_pid and CPU from the ring it sits in, so the
 * snapshot writer adds them (REC_TP_FILE_EXTRA) and perf still sees them:
 * ~95 ns less per recorded event, which pays for the gate.
 */
#define TP_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)
#define SW_SAMPLE_TYPE                                                                  \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
#define TRACK_SAMPLE_TYPE \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

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

static long perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
			    unsigned long fl)
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

const char *rec_rings_name(int mode)
{
	return mode == REC_RINGS_BPF	 ? "bpf" :
	       mode == REC_RINGS_PERF	 ? "perf" :
	       mode == REC_RINGS_COMPACT ? "compact" :
					   "auto";
}

/*
 * Who writes each tracepoint's records (recorder_opts.rings). perf keeps
 * what BPF cannot do as well: -g (perf's call chains), dynamic probes (their
 * programs see registers, not the record) and a --filter that is not a
 * condition trigrec's BPF can test (ftrace's, applied by perf).
 */
/* One ring of a set: a BPF-output event written backward on cpu (fd, or -1 and errno). */
static int open_bpf_output(int cpu)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW,
		.write_backward = 1,
	};

	return perf_event_open(&a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/*
 * Can this kernel and this machine take ring sets? NULL if so, else why not.
 * Asked once, before anything is opened: the kernel must open a BPF-output
 * perf event written backward (every kernel trigrec runs on does; the probe
 * keeps auto honest where one does not), and the BPF side knows at most
 * TRIGREC_MAX_CPUS CPUs individually.
 */
static const char *ring_sets_unsupported(const struct recorder *r, char *buf, size_t len)
{
	int n = cpus_possible(), fd;

	if (getenv("TRIGREC_TEST_NO_RING_SETS")) { /* tests: a kernel without them */
		snprintf(buf, len, "TRIGREC_TEST_NO_RING_SETS is set");
		return buf;
	}
	if (n > TRIGREC_MAX_CPUS) {
		snprintf(buf, len, "%d possible CPUs, ring sets know at most %d", n,
			 TRIGREC_MAX_CPUS);
		return buf;
	}
	fd = open_bpf_output(r->cpus[0]);
	if (fd >= 0) {
		close(fd);
		return NULL;
	}
	/* Only what says "this kernel cannot": a refusal (EACCES...) is reported when opening. */
	if (errno != EINVAL && errno != EOPNOTSUPP && errno != ENOENT && errno != ENOSYS)
		return NULL;
	snprintf(buf, len, "the kernel refuses a BPF-output perf event written backward (%s)",
		 strerror(errno));
	return buf;
}

/*
 * rings=compact: the main ring of a CPU is -m's bytes, in 8 or more
 * segments of at most TRIGREC_CR_MAX_SEG (one BPF map element each: an
 * element is at most what kmalloc gives, 4 MiB); the spare is 1/8 of it.
 * NULL if that layout fits here, else why not (into buf).
 */
static const char *compact_unsupported(const struct recorder *r, char *buf, size_t len)
{
	uint64_t bytes = r->opts.mmap_pages * (uint64_t)sysconf(_SC_PAGESIZE);
	int n = cpus_possible();

	if (getenv("TRIGREC_TEST_NO_COMPACT")) { /* tests: a machine where it does not fit */
		snprintf(buf, len, "TRIGREC_TEST_NO_COMPACT is set");
		return buf;
	}
	if (n > TRIGREC_MAX_CPUS) {
		snprintf(buf, len, "%d possible CPUs, the compact rings know at most %d", n,
			 TRIGREC_MAX_CPUS);
		return buf;
	}
	if (bytes < 8 * TRIGREC_CR_BLOCK || (bytes & (bytes - 1))) {
		snprintf(buf, len,
			 "-m %" PRIu64 " pages is %" PRIu64 " bytes per CPU; the compact rings "
			 "need a power of two of at least 32 KiB (-m 8 or more)",
			 (uint64_t)r->opts.mmap_pages, bytes);
		return buf;
	}
#if !defined(__x86_64__)
	/*
	 * The length byte is ordered after the record by a compiler barrier
	 * only: a live copy on a CPU that reorders stores (arm64) could read a
	 * record before its bytes (docs/design.md, "Limits, this version").
	 * auto keeps such machines on the ring sets; --rings compact may insist.
	 */
	if (r->opts.rings == REC_RINGS_AUTO) {
		snprintf(buf, len, "their live copy relies on x86's store order");
		return buf;
	}
#endif
	if (r->nr_bpf_evs > TRIGREC_CR_MAX_EVS) {
		snprintf(buf, len,
			 "%d tracepoints written by BPF, the compact encoding numbers at most %d "
			 "(narrow the -e globs)",
			 r->nr_bpf_evs, TRIGREC_CR_MAX_EVS);
		return buf;
	}
	return NULL;
}

static void compact_layout(struct recorder *r)
{
	uint64_t bytes = r->opts.mmap_pages * (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t seg = bytes / TRIGREC_CR_SPARE_DIV;

	if (seg > TRIGREC_CR_MAX_SEG)
		seg = TRIGREC_CR_MAX_SEG;
	r->cr_shift = (uint32_t)__builtin_ctzll(seg);
	r->cr_nseg = (uint32_t)(bytes / seg);
	r->cr_elem = TRIGREC_CR_ELEM(seg);
	r->compact = 1;
}

/*
 * auto (the default) and compact: the compact rings where they fit (-m,
 * the number of events, the CPUs); auto then falls back to the ring sets,
 * and from there to perf's rings, saying why under -v. --rings compact
 * refuses with the reason instead.
 */
static int choose_rings(struct recorder *r)
{
	const char *why = NULL, *no;
	int mode = r->opts.rings;
	char nosets[160], nocompact[200];

	if (mode != REC_RINGS_PERF && mode != REC_RINGS_COMPACT) {
		no = ring_sets_unsupported(r, nosets, sizeof(nosets));
		if (no && mode == REC_RINGS_BPF) {
			elog("--rings bpf: %s: use --rings perf (or auto, which falls back by itself)",
			     no);
			return -EOPNOTSUPP;
		}
		if (no) {
			ilog("recording through perf's rings: %s (--rings perf; snapshots freeze "
			     "the gates instead of switching ring sets)",
			     no);
			mode = r->opts.rings = REC_RINGS_PERF;
		}
	}

	for (int i = 0; i < r->nr_evs; i++) {
		struct rec_event *e = &r->evs[i];

		if (e->kind == REC_EV_SAMPLING)
			r->perf_main = 1;
		if (e->kind != REC_EV_TRACEPOINT)
			continue;
		if (mode == REC_RINGS_PERF) {
			r->perf_main = 1;
			continue;
		}
		if (probes__spec_of(e->pd.tp_sys, e->pd.tp_name, NULL))
			why = "a dynamic probe: its BPF programs see registers, not its record";
		else if (r->opts.callgraph)
			why = "-g: perf writes the call chains";
		else if (e->filter &&
			 !(r->opts.filter_in_bpf &&
			   r->opts.filter_in_bpf(e->pd.tp_sys, e->pd.tp_name, e->filter)))
			why = "--filter: it is not a condition trigrec's BPF can test; perf applies it";
		else {
			e->bpf_rec = 1;
			r->nr_bpf_evs++;
			continue;
		}
		r->perf_main = 1;
		if (mode == REC_RINGS_BPF || mode == REC_RINGS_COMPACT)
			wlog("--rings %s: %s is written by perf (%s)", rec_rings_name(mode),
			     e->pd.name, why);
		else
			vlog("rings: %s is written by perf (%s)", e->pd.name, why);
	}
	/*
	 * Nothing BPF-written (only sampling events, all under -g): no compact
	 * rings to lay out, also when asked for; the object then keeps its
	 * placeholder ring map (engine/bpfctl.c open_load()), which 6.1's
	 * verifier needs.
	 */
	if ((mode == REC_RINGS_COMPACT || mode == REC_RINGS_AUTO) && r->nr_bpf_evs) {
		no = compact_unsupported(r, nocompact, sizeof(nocompact));
		if (no && mode == REC_RINGS_COMPACT) {
			elog("--rings compact: %s: use --rings bpf (or auto, which falls back by "
			     "itself)",
			     no);
			return -EINVAL;
		}
		if (no)
			vlog("rings: not the compact rings: %s; the ring sets instead", no);
		else
			compact_layout(r);
	}
	if (r->compact) {
		vlog("rings: %d tracepoint%s written by BPF into compact byte rings (%u x %u KiB "
		     "per CPU, spare %u x %u KiB)%s",
		     r->nr_bpf_evs, r->nr_bpf_evs == 1 ? "" : "s", r->cr_nseg,
		     (1u << r->cr_shift) >> 10, r->cr_nseg / TRIGREC_CR_SPARE_DIV,
		     (1u << r->cr_shift) >> 10,
		     r->perf_main ? ", the rest by perf into one ring per CPU" : "");
		return 0;
	}
	vlog("rings: %d tracepoint%s written by BPF into %d ring sets per CPU%s", r->nr_bpf_evs,
	     r->nr_bpf_evs == 1 ? "" : "s", r->nr_bpf_evs ? TRIGREC_RING_SETS : 0,
	     r->perf_main ? ", the rest by perf into one ring per CPU" : "");
	return 0;
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
		elog("unknown event '%s' (did you mean %s?)", SHORT(bad), sw);
		return;
	}
	tracefs_suggest(bad, tp, sizeof(tp), 3);
	if (tp[0])
		elog("unknown event '%s' (did you mean %s?)", SHORT(bad), tp);
	else
		elog("unknown event '%s': use a tracepoint as SYSTEM:NAME (see `trigrec list`) "
		     "or one of cpu-clock, task-clock, page-faults, context-switches, "
		     "cpu-migrations, minor-faults, major-faults",
		     SHORT(bad));
}

static int add_spec_item(struct recorder *r, const char *item, const char *filter)
{
	struct tp_name *tps = NULL;
	int n, err = 0, sw = rec_sw_event_find(item);

	if (sw >= 0) {
		if (filter) {
			elog("--filter '%s' follows -e %s, a sampling event: filters apply "
			     "to tracepoints only",
			     SHORT(filter), item);
			return -EINVAL;
		}
		return add_sampling(r, sw);
	}
	if (!strchr(item, ':') && !strchr(item, '/')) {
		suggest_event(item);
		return -ENOENT;
	}
	if (filter && strlen(filter) >= (size_t)sysconf(_SC_PAGESIZE)) {
		/* The kernel copies a filter with strndup_user(PAGE_SIZE) and says only EINVAL. */
		elog("--filter for -e %s is %zu bytes: the kernel takes at most %ld; shorten it "
		     "(ranges such as 'id >= 10 && id <= 20' instead of long || lists)",
		     SHORT(item), strlen(filter), sysconf(_SC_PAGESIZE) - 1);
		return -E2BIG;
	}
	if (!tracefs_root())
		return -ENOENT;
	n = probes__glob(item, &tps);
	if (n < 0 && probe_kind_of(item)) {
		elog("-e %s: %s", SHORT(item), probes__error());
		return n;
	}
	if (n == -EINVAL) {
		elog("no tracepoint matches '%s': that is not SYSTEM:NAME with a system name "
		     "under %zu bytes and an event name under %zu (see `trigrec list`)",
		     SHORT(item), sizeof(tps->sys), sizeof(tps->name));
		return n;
	}
	if (n < 0) {
		elog("cannot list tracepoints for '%s': %s", SHORT(item), strerror(-n));
		return n;
	}
	if (n == 0) {
		if (strpbrk(item, "*?["))
			elog("no tracepoint matches '%s' (see `trigrec list`)", SHORT(item));
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

/* A number from a sysctl file; def when unreadable. */
static long long read_sysctl(const char *name, long long def)
{
	char path[128];
	long long v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	f = fopen(path, "r");
	if (!f)
		return def;
	if (fscanf(f, "%lld", &v) != 1)
		v = def;
	fclose(f);
	return v;
}

/* -F against what the kernel allows now (it lowers the limit itself when sampling is slow). */
static int check_freq(const struct recorder *r)
{
	long long max;

	for (int i = 0; i < r->nr_evs; i++) {
		const struct perf_event_attr *a = &r->evs[i].pd.attr;

		if (r->evs[i].kind != REC_EV_SAMPLING || !a->freq)
			continue;
		max = read_sysctl("perf_event_max_sample_rate", -1);
		if (max >= 0 && a->sample_freq > (unsigned long long)max) {
			elog("-F %llu%s is above kernel.perf_event_max_sample_rate (%lld), so the kernel "
			     "would refuse %s: lower -F to %lld or less, sample by period instead (-c), "
			     "or raise the limit (sysctl -w kernel.perf_event_max_sample_rate=%llu; the "
			     "kernel lowers it again by itself when sampling interrupts take too long, "
			     "see dmesg)",
			     (unsigned long long)a->sample_freq,
			     r->opts.freq ? "" : " (the default)", max, r->evs[i].pd.name, max,
			     (unsigned long long)a->sample_freq);
			return -EINVAL;
		}
		return 0;
	}
	return 0;
}

/* Every event on every CPU (per thread in task mode) is one descriptor. */
static int check_nofile(const struct recorder *r)
{
	uint64_t ntasks = r->opts.tids ? (uint64_t)r->opts.nr_tids : 1;
	uint64_t need = (uint64_t)r->nr_evs * r->nr_cpus * ntasks + 64;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need)
		return 0;
	elog("recording %d events on %d CPUs%s needs %llu file descriptors, but the hard limit "
	     "(ulimit -Hn) is %llu: raise it (LimitNOFILE= in a systemd unit, nofile in "
	     "limits.conf), or record fewer events (narrow the -e globs) or CPUs (-C)",
	     r->nr_evs - 1, r->nr_cpus, r->opts.tids ? " for every thread" : "",
	     (unsigned long long)need, (unsigned long long)rl.rlim_max);
	return -EMFILE;
}

static int check_memory(const struct recorder *r)
{
	struct ringmem_need n = {
		.page_size = (uint64_t)sysconf(_SC_PAGESIZE),
		.main_pages = r->opts.mmap_pages,
		.track_pages = r->opts.track_pages,
		.nr_cpus = r->nr_cpus,
		.copies = RECORDER_HARVEST_SETS,
		.main_rings = (r->perf_main ? 1 : 0) +
			      (r->nr_bpf_evs && !r->compact ? TRIGREC_RING_SETS : 0),
		.compact = r->compact,
		.compact_cpus = r->compact ? cpus_possible() : 0,
	};
	struct ringmem_have h;
	char msg[1024];
	int ret;

	ringmem_probe(&h);
	ret = ringmem_check(&n, &h, msg, sizeof(msg));
	if (ret < 0)
		elog("%s", msg);
	else if (ret > 0)
		wlog("%s", msg);
	return ret < 0 ? ret : 0;
}

/* perf_event on a v1 hierarchy? PERF_FLAG_PID_CGROUP then only takes v1 directories. */
static int perf_event_on_v1(void)
{
	char line[256], name[64];
	int hier = 0, found = 0;
	FILE *f = fopen("/proc/cgroups", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%63s %d", name, &hier) == 2 && !strcmp(name, "perf_event");
	if (f)
		fclose(f);
	return found && hier != 0;
}

static int open_cgroup(struct recorder *r)
{
	const char *cg = r->opts.cgroup;
	char mnt[4096];
	int n;
	struct statfs sf;

	if (!*cg) {
		elog("--cgroup: empty path; give a cgroup v2 directory (/sys/fs/cgroup/NAME, or NAME "
		     "relative to the cgroup2 mount)");
		return -EINVAL;
	}
	if (r->opts.tids) {
		elog("--cgroup records every task of the cgroup on every CPU: it cannot be combined "
		     "with -p or with a command recorded on its own; add -a to record the cgroup "
		     "while the command runs");
		return -EINVAL;
	}
	cgroup_mount(1, NULL, mnt, sizeof(mnt));
	/* A path (absolute or ./, ../) as given; a bare name under the cgroup2 mount. */
	if (cg[0] != '/' && !(cg[0] == '.' && (cg[1] == '/' || (cg[1] == '.' && cg[2] == '/'))) &&
	    mnt[0])
		n = snprintf(r->cgroup_path, sizeof(r->cgroup_path), "%s/%s", mnt, cg);
	else
		n = snprintf(r->cgroup_path, sizeof(r->cgroup_path), "%s", cg);
	if (n < 0 || (size_t)n >= sizeof(r->cgroup_path)) {
		elog("--cgroup %s: the path is longer than %zu bytes", cg,
		     sizeof(r->cgroup_path) - 1);
		return -ENAMETOOLONG;
	}
	r->cgroup_fd = open(r->cgroup_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->cgroup_fd < 0) {
		int err = errno;

		elog("--cgroup %s: cannot open %s: %s (give a cgroup v2 directory%s%s)", SHORT(cg),
		     SHORT(r->cgroup_path), strerror(err),
		     mnt[0] ? "; cgroup v2 is mounted at " : "",
		     mnt[0] ? mnt :
			      "; cgroup v2 is not mounted: mount -t cgroup2 none /sys/fs/cgroup");
		return -err;
	}
	if (fstatfs(r->cgroup_fd, &sf) || sf.f_type != CGROUP2_SUPER_MAGIC) {
		if (mnt[0])
			elog("--cgroup %s: %s is not a cgroup v2 directory; give one under %s",
			     SHORT(cg), SHORT(r->cgroup_path), mnt);
		else
			elog("--cgroup %s: %s is not a cgroup v2 directory, and cgroup v2 is not "
			     "mounted (mount -t cgroup2 none /sys/fs/cgroup)",
			     SHORT(cg), SHORT(r->cgroup_path));
		return -EINVAL;
	}
	if (perf_event_on_v1()) {
		elog("--cgroup %s: the perf_event controller is mounted on a cgroup v1 hierarchy, so "
		     "perf cannot follow v2 cgroups; unmount it (see /proc/cgroups and /proc/mounts) "
		     "or boot with cgroup_no_v1=perf_event",
		     SHORT(cg));
		return -EINVAL;
	}
	return 0;
}

struct recorder *recorder__new(const struct recorder_opts *opts)
{
	struct recorder *r = calloc(1, sizeof(*r));
	struct rec_event *t;
	int max_cpus = cpus_possible();

	if (!r)
		return NULL;
	r->opts = *opts;
	r->cgroup_fd = -1;
	r->rec_cpu_fd = -1;
	r->cr_fd = -1;
	for (int i = 0; i < opts->nr_events; i++) {
		/* An item is never longer than the whole -e argument: a 10 KB name is reported, not dropped. */
		size_t len = strlen(opts->events[i].spec) + 1;
		char *dup = strdup(opts->events[i].spec), *item_buf = malloc(len);

		if (!dup || !item_buf) {
			free(dup);
			free(item_buf);
			goto fail;
		}
		if (cancelled(opts)) {
			free(dup);
			free(item_buf);
			goto cancel;
		}
		/* Commas inside a probe's "(field, ...)" do not split the list. */
		for (const char *p = dup; probe_list_next(&p, item_buf, len) > 0;) {
			if (add_spec_item(r, item_buf, opts->events[i].filter)) {
				free(dup);
				free(item_buf);
				goto fail;
			}
		}
		free(dup);
		free(item_buf);
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
	/* Everything below is known now: say it before opening anything. */
	if (choose_rings(r) || check_freq(r) || check_nofile(r) ||
	    (opts->cgroup && open_cgroup(r)) || check_memory(r))
		goto fail;
	return r;
fail:
	recorder__free(r);
	return NULL;
cancel:
	recorder__free(r);
	errno = EINTR;
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

/* Does the kernel take this attr once `what` is cleared? Names the feature it lacks. */
static int opens_without(const struct rec_event *e, int cpu, const char *what)
{
	struct perf_event_attr a = e->pd.attr;
	int fd;

	if (!strcmp(what, "write_backward"))
		a.write_backward = 0;
	else if (!strcmp(what, "use_clockid"))
		a.use_clockid = 0, a.clockid = 0;
	a.disabled = 1;
	a.enable_on_exec = 0;
	fd = perf_event_open(&a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static int open_error(const struct recorder *r, const struct rec_event *e, int cpu, int err)
{
	const struct perf_event_attr *a = &e->pd.attr;
	char why[1024];
	long long v;

	switch (err) {
	case EACCES:
	case EPERM:
		explain_denied(0, why, sizeof(why));
		elog("permission denied opening %s on CPU %d%s: %s", e->pd.name, cpu,
		     geteuid() == 0 ? " although trigrec runs as root" : "", why);
		break;
	case EMFILE:
	case ENFILE:
		elog("too many open files opening %s on CPU %d: raise the limit (ulimit -n) "
		     "or record fewer events",
		     e->pd.name, cpu);
		break;
	case ESRCH: elog("cannot open %s: the target process is gone", e->pd.name); break;
	case EOVERFLOW:
		elog("cannot open %s with -g: call chains of up to %u frames are above "
		     "kernel.perf_event_max_stack (%lld); raise it (sysctl -w "
		     "kernel.perf_event_max_stack=%u)",
		     e->pd.name, a->sample_max_stack, read_sysctl("perf_event_max_stack", -1),
		     a->sample_max_stack);
		break;
	case ENOENT:
	case ENODEV:
		if (e->kind == REC_EV_TRACEPOINT)
			elog("cannot open %s on CPU %d: the tracepoint is gone (was its module "
			     "unloaded?): %s",
			     e->pd.name, cpu, strerror(err));
		else
			elog("cannot open %s on CPU %d: this kernel does not have it (%s)",
			     e->pd.name, cpu, strerror(err));
		break;
	case EBUSY:
		elog("cannot open %s on CPU %d: in exclusive use by another program (%s)",
		     e->pd.name, cpu, strerror(err));
		break;
	case EBADF:
		if (r->cgroup_fd >= 0) {
			elog("cannot open %s on CPU %d for --cgroup %s: the kernel does not take that "
			     "directory as a perf_event cgroup (EBADF)",
			     e->pd.name, cpu, r->cgroup_path);
			break;
		}
		/* fall through */
	case EINVAL:
		/* Find the cause rather than list every possible one. */
		v = read_sysctl("perf_event_max_sample_rate", -1);
		if (a->freq && v >= 0 && a->sample_freq > (unsigned long long)v) {
			elog("cannot open %s: -F %llu is above kernel.perf_event_max_sample_rate, "
			     "which the kernel has lowered to %lld since trigrec started (sampling "
			     "interrupts took too long; see dmesg): lower -F",
			     e->pd.name, (unsigned long long)a->sample_freq, v);
		} else if (opens_without(e, cpu, "write_backward")) {
			elog("cannot open %s: this kernel has no backward-writing perf rings "
			     "(write_backward, Linux 4.7+), which trigrec's overwritable rings need",
			     e->pd.name);
		} else if (opens_without(e, cpu, "use_clockid")) {
			elog("cannot open %s: this kernel cannot stamp perf records with "
			     "CLOCK_MONOTONIC (use_clockid, Linux 4.1+), which trigrec's cut needs",
			     e->pd.name);
		} else {
			elog("the kernel rejected %s on CPU %d (%s) for a reason trigrec cannot tell "
			     "from here: check dmesg, and rerun with -vv",
			     e->pd.name, cpu, strerror(err));
		}
		break;
	default: elog("cannot open %s on CPU %d: %s", e->pd.name, cpu, strerror(err));
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
		char sz[32];

		elog("cannot map the %s ring of CPU %d (%s): %s%s", tracking ? "tracking" : "main",
		     cpu, fmt_size(len, sz, sizeof(sz)), strerror(err),
		     err == EPERM  ? " (over the locked-memory limit: lower -m, or raise "
				     "kernel.perf_event_mlock_kb)" :
		     err == ENOMEM ? " (lower -m)" :
				     "");
		return -err;
	}
	ring = &rings[r->nr_rings++];
	memset(ring, 0, sizeof(*ring));
	ring->cpu = cpu;
	ring->fd = fd;
	ring->tracking = tracking;
	ring->base = base;
	ring->set = -1;
	ring->map_len = len;
	ring->size = pages * psz;
	/*
	 * Touch every page now: perf maps ring pages into our page tables on
	 * first access, and a fault per page inside the freeze window made the
	 * first snapshot's copy ~3x slower (MAP_POPULATE does not help here).
	 */
	for (size_t off = 0; off < len; off += psz) {
		/* 1 GiB takes ~0.3 s here: look at Ctrl-C every 16 MiB. */
		if (!(off & ((16 << 20) - 1)) && cancelled(&r->opts))
			return -EINTR;
		(void)*(volatile const char *)((const char *)base + off);
	}
	return 0;
}

static int open_one(struct recorder *r, struct rec_event *e, pid_t pid, int cpu, int *leader,
		    uint64_t pages)
{
	int *fds = realloc(e->fds, (e->nr_fds + 1) * sizeof(int));
	unsigned long flags = PERF_FLAG_FD_CLOEXEC;
	int fd, err, late;

	if (!fds)
		return -ENOMEM;
	e->fds = fds;
	/* The tracking event stays system-wide: names of every task, cheap, always complete. */
	if (r->cgroup_fd >= 0 && e->kind != REC_EV_TRACKING) {
		pid = r->cgroup_fd;
		flags |= PERF_FLAG_PID_CGROUP;
	}
	/* A filtered event opens disabled and is enabled once its filter is set:
	 * opened enabled, it would put unfiltered records in the ring meanwhile. */
	late = e->filter && !e->pd.attr.disabled;
	e->pd.attr.disabled |= late;
	fd = perf_event_open(&e->pd.attr, pid, cpu, -1, flags);
	e->pd.attr.disabled &= !late;
	if (fd < 0)
		return open_error(r, e, cpu, errno);
	e->fds[e->nr_fds++] = fd;
	if (*leader < 0) {
		err = map_ring(r, cpu, fd, pages, e->kind == REC_EV_TRACKING);
		if (err)
			return err;
		*leader = fd;
	} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, *leader)) {
		err = errno;
		elog("cannot redirect %s on CPU %d into the CPU's ring: %s", e->pd.name, cpu,
		     strerror(err));
		return -err;
	}
	if (e->filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, e->filter)) {
		char fields[1024];

		err = errno;
		list_fields(e, fields, sizeof(fields));
		elog("bad --filter '%s' for %s: the kernel rejected it (%s). Filters use ftrace "
		     "syntax over the event's fields: %s",
		     SHORT(e->filter), e->pd.name, strerror(err), fields);
		explain_filter(e);
		return -EINVAL;
	}
	if (late && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = errno;
		elog("cannot enable %s on CPU %d after setting its filter: %s", e->pd.name, cpu,
		     strerror(err));
		return -err;
	}
	return 0;
}

/*
 * One ring of a set (rings=bpf): a BPF-output event that only trigrec.bpf.c
 * writes (bpf_perf_event_output), backward, mapped read-only so that the
 * kernel overwrites its oldest records.
 */
static int open_set(struct recorder *r, int cpu, int set)
{
	int fd = open_bpf_output(cpu), err;

	if (fd < 0) {
		err = errno;
		elog("cannot open ring set %d on CPU %d (a BPF-output perf event): %s; "
		     "--rings perf records without ring sets",
		     set, cpu, strerror(err));
		return -err;
	}
	err = map_ring(r, cpu, fd, r->opts.mmap_pages, 0);
	if (err) {
		close(fd);
		return err;
	}
	r->rings[r->nr_rings - 1].set = set;
	return 0;
}

/*
 * rings=compact: a CPU's main ring (set 0, read from the BPF map once engine/
 * has mapped it) or its carry (set 1, a buffer of ours): only the copies'
 * sizes are known here.
 */
static int add_compact(struct recorder *r, int cpu, int set)
{
	struct rec_ring *rings = realloc(r->rings, (r->nr_rings + 1) * sizeof(*rings)), *ring;
	uint32_t nseg = set ? r->cr_nseg / TRIGREC_CR_SPARE_DIV : r->cr_nseg;

	if (!rings)
		return -ENOMEM;
	r->rings = rings;
	ring = &rings[r->nr_rings++];
	memset(ring, 0, sizeof(*ring));
	ring->cpu = cpu;
	ring->fd = -1;
	ring->set = set;
	ring->compact = 1;
	ring->size = REC_CR_HDR + nseg * r->cr_elem;
	if (set) {
		ring->base = calloc(1, ring->size);
		if (!ring->base)
			return -ENOMEM;
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

/*
 * A scheduler tracepoint that perf writes in task scope. perf writes an
 * event of a task only in that task's context, and a switch into a task
 * happens in the context of the task switched out (a wake-up, in the
 * waker's, an interrupt's or idle's): opened per task, the records that end
 * a scoped task's off-CPU stretches would never be written. These open per
 * CPU for every task instead (as the ring sets record both sides of them
 * in task scope), at the price of other tasks' switches in the ring.
 */
static int sched_wide(const struct recorder *r, const struct rec_event *e)
{
	static const char *const wide[] = { "sched_switch", "sched_wakeup", "sched_wakeup_new",
					    "sched_waking" };

	if (!r->opts.tids || e->kind != REC_EV_TRACEPOINT || e->bpf_rec ||
	    strcmp(e->pd.tp_sys, "sched"))
		return 0;
	for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
		if (!strcmp(e->pd.tp_name, wide[i]))
			return 1;
	return 0;
}

int recorder__open(struct recorder *r)
{
	int ntasks = r->opts.tids ? r->opts.nr_tids : 1;
	int err;

	raise_nofile((size_t)r->nr_evs * r->nr_cpus * ntasks);
	for (int i = 0; i < r->nr_evs; i++) {
		struct rec_event *e = &r->evs[i];

		if (!sched_wide(r, e))
			continue;
		/* Per CPU, no task: nothing to inherit, no exec to wait for (enabled now). */
		e->pd.attr.inherit = 0;
		e->pd.attr.enable_on_exec = 0;
		e->pd.attr.disabled = 0;
		r->sched_wide = 1;
	}
	for (int c = 0; c < r->nr_cpus; c++) {
		int cpu = r->cpus[c], leader = -1, tleader = -1;

		for (int t = 0; t < ntasks; t++) {
			pid_t pid = r->opts.tids ? r->opts.tids[t] : -1;

			for (int i = 0; i < r->nr_evs; i++) {
				struct rec_event *e = &r->evs[i];
				int tracking = e->kind == REC_EV_TRACKING;

				if (cancelled(&r->opts))
					return -EINTR;
				if (e->bpf_rec || (t > 0 && sched_wide(r, e)))
					continue;
				err = open_one(r, e, sched_wide(r, e) ? -1 : pid, cpu,
					       tracking ? &tleader : &leader,
					       tracking ? r->opts.track_pages : r->opts.mmap_pages);
				if (err)
					return err;
			}
		}
	}
	for (int c = 0; r->nr_bpf_evs && c < r->nr_cpus; c++) {
		for (int set = 0; set < TRIGREC_RING_SETS; set++) {
			err = r->compact ? add_compact(r, r->cpus[c], set) :
					   open_set(r, r->cpus[c], set);
			if (err)
				return err;
		}
	}
	/* Ids let perf map every record back to its attr. */
	for (int i = 0; i < r->nr_evs; i++) {
		struct rec_event *e = &r->evs[i];

		if (e->bpf_rec) {
			/* No perf event: ids of our own, one per CPU, that the writer stamps. */
			e->pd.ids = calloc(r->nr_cpus, sizeof(uint64_t));
			if (!e->pd.ids)
				return -ENOMEM;
			for (int c = 0; c < r->nr_cpus; c++)
				e->pd.ids[c] = REC_BPF_ID(i, c);
			e->pd.nr_ids = r->nr_cpus;
			continue;
		}

		e->pd.ids = calloc(e->nr_fds, sizeof(uint64_t));
		if (!e->pd.ids)
			return -ENOMEM;
		for (int k = 0; k < e->nr_fds; k++) {
			if (ioctl(e->fds[k], PERF_EVENT_IOC_ID, &e->pd.ids[k])) {
				elog("PERF_EVENT_IOC_ID failed for %s: %s", e->pd.name,
				     strerror(errno));
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

/*
 * Fault a fresh buffer in, not inside the freeze window. MADV_POPULATE_WRITE
 * does it in the kernel: 1 GiB in ~0.5 s here where a store per page took
 * ~8 s (a trap per page). It is not enough on a guest whose hypervisor
 * shadows its page tables (this VM, a PVM guest): the guest's entries exist,
 * the hypervisor's are made on the first access to each page, ~2-8 us each
 * and invisible to the guest's own profilers. The first harvest copied into
 * a populated 16 MiB buffer in 30-54 ms against ~1 ms on the next one, all
 * of it inside the freeze. So each page is read once here as well (on bare
 * metal that costs a TLB fill per page). Chunks of 64 MiB keep Ctrl-C prompt.
 */
static int prefault(void *buf, size_t len, const struct recorder_opts *o)
{
	long psz = sysconf(_SC_PAGESIZE);
	const size_t chunk = 64 << 20;
	int populate = 1;

	for (size_t off = 0; off < len; off += chunk) {
		size_t n = len - off < chunk ? len - off : chunk;

		if (cancelled(o))
			return -EINTR;
		if (populate && !madvise((char *)buf + off, n, MADV_POPULATE_WRITE)) {
			for (size_t p = 0; p < n; p += psz)
				(void)((volatile const char *)buf)[off + p];
			continue;
		}
		/* Before Linux 5.14: one store per page (volatile, or it becomes a no-op). */
		populate = 0;
		for (size_t p = 0; p < n; p += psz)
			((volatile char *)buf)[off + p] = 1;
	}
	return 0;
}

struct harvest *harvest__new(const struct recorder *r)
{
	struct harvest *h = calloc(1, sizeof(*h));
	int err = ENOMEM;

	if (!h)
		return NULL;
	h->rings = calloc(r->nr_rings, sizeof(*h->rings));
	if (!h->rings)
		goto fail;
	h->nr_rings = r->nr_rings;
	for (int i = 0; i < r->nr_rings; i++) {
		void *buf = mmap(NULL, r->rings[i].size, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int ret;

		if (buf == MAP_FAILED) {
			err = errno;
			goto fail;
		}
		h->rings[i].buf = buf;
		h->rings[i].cap = r->rings[i].size;
		ret = prefault(buf, r->rings[i].size, &r->opts);
		if (ret) {
			err = -ret;
			goto fail;
		}
	}
	return h;
fail:
	harvest__free(h);
	errno = err;
	return NULL;
}

void harvest__free(struct harvest *h)
{
	if (!h)
		return;
	for (int i = 0; h->rings && i < h->nr_rings; i++)
		if (h->rings[i].buf)
			munmap(h->rings[i].buf, h->rings[i].cap);
	free(h->rings);
	free(h);
}

int recorder__newest_record(const struct recorder *r, int ring_idx, void *buf, size_t len)
{
	const struct rec_ring *ring = &r->rings[ring_idx];
	struct perf_event_header *hdr = buf;
	uint64_t head;

	if (ring->tracking || ring->set >= 0 || ring->compact)
		return -ENOENT;
	/* Written backward: the newest record starts at data_head (0 = none yet). */
	head = ring_head(ring);
	if (!head || len < sizeof(*hdr))
		return -ENOENT;
	ring_copy_range(ring_data(ring), ring->size, head, head + sizeof(*hdr), hdr);
	if (hdr->size < sizeof(*hdr) || hdr->size > ring->size)
		return -ENOENT;
	if (hdr->size < len)
		len = hdr->size;
	len &= ~(size_t)7; /* records are 8-byte multiples: so is their start */
	ring_copy_range(ring_data(ring), ring->size, head, head + len, buf);
	hdr->size = len;
	return (int)len;
}

/* rings=compact: CPU cpu's main ring (spare: its spare) in the map, and its head. */
static const uint8_t *cr_ring(const struct recorder *r, int cpu, int spare, uint64_t **head)
{
	struct trigrec_rec_cpu *rc = r->rec_cpu;
	size_t per_cpu = r->cr_nseg + r->cr_nseg / TRIGREC_CR_SPARE_DIV;

	*head = (uint64_t *)&rc[cpu].cr_head[spare];
	return (const uint8_t *)r->cr_mem +
	       ((size_t)cpu * per_cpu + (spare ? r->cr_nseg : 0)) * r->cr_elem;
}

/*
 * One compact ring into its copy: the head before, the bytes, the head
 * after (the decoder leaves out what may have been overwritten meanwhile).
 */
static void copy_compact(const struct recorder *r, const struct rec_ring *ring, struct ring_copy *c)
{
	uint64_t *head, hb, ha;
	const uint8_t *src;

	c->wrapped = 0;
	c->len = 0;
	if (ring->set) {
		memcpy(c->buf, ring->base, ring->size);
		c->len = ring->size;
		return;
	}
	if (!r->cr_mem || !r->rec_cpu)
		return;
	src = cr_ring(r, ring->cpu, 0, &head);
	hb = __atomic_load_n(head, __ATOMIC_ACQUIRE);
	memcpy((uint8_t *)c->buf + REC_CR_HDR, src, ring->size - REC_CR_HDR);
	ha = __atomic_load_n(head, __ATOMIC_ACQUIRE);
	memset(c->buf, 0, REC_CR_HDR);
	memcpy(c->buf, &hb, 8);
	memcpy((uint8_t *)c->buf + 8, &ha, 8);
	c->len = ring->size;
	/* The next ring is this CPU's carry: a cut's episode starts at this count. */
	((struct rec_cr_hdr *)ring[1].base)->pend_m = hb >> TRIGREC_CR_POS_BITS;
}

void recorder__carry(struct recorder *r)
{
	for (int i = 0; r->compact && r->cr_mem && i < r->nr_rings; i++) {
		struct rec_ring *ring = &r->rings[i];
		const uint8_t *src;
		uint64_t *head, hb, ha;

		if (!ring->compact || ring->set != 1)
			continue;
		struct rec_cr_hdr *ch = ring->base;
		struct rec_cr_epi *e;

		src = cr_ring(r, ring->cpu, 1, &head);
		hb = __atomic_load_n(head, __ATOMIC_ACQUIRE);
		memcpy((uint8_t *)ring->base + REC_CR_HDR, src, ring->size - REC_CR_HDR);
		ha = __atomic_load_n(head, __ATOMIC_ACQUIRE);
		ch->head_before = hb;
		ch->head_after = ha;
		e = &ch->epis[ch->nepis % REC_CR_EPIS];
		e->sprev = ch->nepis ? ch->epis[(ch->nepis - 1) % REC_CR_EPIS].s : 0;
		e->s = (uint32_t)(ha >> TRIGREC_CR_POS_BITS);
		e->m = (uint32_t)ch->pend_m;
		ch->nepis++;
	}
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
		if (!r->rings[i].tracking && r->rings[i].set < 0 &&
		    ioctl(r->rings[i].fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1) && !err)
			err = -errno;
	for (int i = 0; i < r->nr_rings; i++) {
		struct rec_ring *ring = &r->rings[i];
		struct ring_copy *c = &h->rings[i];
		uint64_t head, after;
		size_t len;

		if (ring->compact) {
			copy_compact(r, ring, c);
			continue;
		}
		head = ring_head(ring);
		len = ring_copy_linear(ring_data(ring), ring->size, head, c->buf);

		after = ring_head(ring);
		c->len = ring_discard_moved(len, ring->size, head, after);
		c->wrapped = (uint64_t)-after > ring->size;
	}
	for (int i = 0; i < r->nr_rings; i++)
		if (!r->rings[i].tracking && r->rings[i].set < 0 &&
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

void recorder__disable(struct recorder *r)
{
	for (int i = 0; i < r->nr_evs; i++)
		for (int k = 0; k < r->evs[i].nr_fds; k++)
			ioctl(r->evs[i].fds[k], PERF_EVENT_IOC_DISABLE, 0);
}

void recorder__free(struct recorder *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->nr_rings; i++) {
		if (r->rings[i].compact) {
			free(r->rings[i].set ? r->rings[i].base : NULL);
			continue;
		}
		munmap(r->rings[i].base, r->rings[i].map_len);
		if (r->rings[i].set >= 0)
			close(r->rings[i].fd);
	}
	if (r->cr_mem)
		munmap(r->cr_mem, r->cr_len);
	if (r->cr_fd >= 0)
		close(r->cr_fd);
	if (r->rec_cpu)
		munmap(r->rec_cpu, r->rec_cpu_len);
	if (r->rec_cpu_fd >= 0)
		close(r->rec_cpu_fd);
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
	if (r->cgroup_fd >= 0)
		close(r->cgroup_fd);
	free(r);
}
