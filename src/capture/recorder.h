/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The recorder: perf events and their overwritable per-CPU rings.
 *
 * Every recorded event of a CPU writes backward into that CPU's main ring
 * (PERF_EVENT_IOC_SET_OUTPUT to one leader); a dummy tracking event per CPU
 * keeps COMM/FORK/EXIT in a small ring of its own. Rings are mapped read-only,
 * which is what makes the kernel overwrite the oldest records.
 */
#ifndef TRIGREC_RECORDER_H
#define TRIGREC_RECORDER_H
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include "capture/pdevent.h"
#include "capture/recspec.h"
#include "capture/tracefs.h"

struct recorder_opts {
	const struct rec_event_spec *events;
	int nr_events;
	uint64_t mmap_pages;	      /* main ring pages per CPU (power of two) */
	uint64_t track_pages;	      /* tracking ring pages per CPU */
	uint64_t freq;		      /* sampling events: frequency (Hz), used when period == 0 */
	uint64_t period;	      /* sampling events: -c */
	int callgraph;		      /* -g */
	const unsigned char *cpumask; /* CPUs to record; NULL = all online */
	const pid_t *tids; /* task mode: these threads (inherit to children); NULL = system-wide */
	int nr_tids;
	int enable_on_exec; /* -- command: start counting at exec */
	/*
	 * cgroup v2 directory (absolute, or relative to the cgroup2 mount):
	 * record only tasks in it and its descendants, on every selected CPU
	 * (PERF_FLAG_PID_CGROUP, as perf record -G). NULL = no cgroup scope.
	 * Not with tids: a cgroup scope is system-wide.
	 */
	const char *cgroup;
	/*
	 * Set (by a signal handler, see util/cancel.h) to abandon set-up:
	 * recorder__open and harvest__new then stop within milliseconds and
	 * return -EINTR (harvest__new: NULL with errno EINTR). NULL = never.
	 */
	const volatile sig_atomic_t *cancel;
	/*
	 * Who writes tracepoint records: REC_RINGS_BPF (BPF programs, into
	 * TRIGREC_RING_SETS sets of BPF-output rings per CPU, so a snapshot
	 * switches sets instead of freezing and nobody else's perf loses an
	 * event), REC_RINGS_PERF (perf, one ring per CPU, frozen by gates), or
	 * REC_RINGS_AUTO: BPF wherever it can (not under -g, for dynamic probes,
	 * or for a --filter filter_in_bpf refuses: those stay with perf).
	 * Sampling events are always written by perf.
	 */
	int rings;
	/*
	 * May the BPF programs apply this --filter (it compiles as a trigger
	 * condition)? NULL, or 0: the event stays with perf, which applies it.
	 */
	int (*filter_in_bpf)(const char *sys, const char *name, const char *filter);
};

/* Harvest buffer sets in flight (sideband.c's NR_JOBS); the memory check counts them. */
#define RECORDER_HARVEST_SETS 2

enum rec_event_kind { REC_EV_TRACEPOINT, REC_EV_SAMPLING, REC_EV_TRACKING };

/* Software (sampling) events by name or alias ("cpu-clock", "cs"): index, or -1. */
int rec_sw_event_find(const char *name);
/* The software event name closest to a mistyped one, or NULL when none is close. */
const char *rec_sw_event_suggest(const char *bad);

/* Sample fields of tracepoints that the snapshot writer adds (see recorder.c). */
#define REC_TP_FILE_EXTRA (PERF_SAMPLE_TID | PERF_SAMPLE_CPU)

struct rec_event {
	struct pd_event pd; /* attr, name, ids (filled by recorder__open) */
	enum rec_event_kind kind;
	struct tp_format *fmt; /* tracepoints */
	const char *filter;
	int *fds;
	int nr_fds;
	int bpf_rec; /* rings=bpf: written by trigrec.bpf.c into the ring sets, no perf event */
};

struct rec_ring {
	int cpu;
	int fd;	      /* the leader event whose buffer this is */
	int tracking; /* 1 = the tracking ring */
	void *base;   /* mmap: control page + data */
	size_t map_len;
	uint64_t size; /* data area bytes */
	int set;       /* rings=bpf: the ring set (BPF-output event); -1 = written by perf */
	/*
	 * rings=compact: set 0 is the CPU's main byte ring (read from the
	 * cr_rings map, r->cr_mem), set 1 its carry: what its spare held after
	 * the last cut, copied by recorder__carry() into base (ours, malloc).
	 * size: bytes of a copy (two u64 heads, then the ring's segments).
	 */
	int compact;
};

/*
 * rings=compact: a ring copy (and a carry) starts with this: the ring's
 * head read before and after the copy and, in a carry, the spare's
 * episodes. The main ring and the spare number their records each with
 * their own counter; an episode (a cut to its settle) says where the
 * spare's numbers go among the main ring's: main records numbered m or
 * more come after the spare's records below s, spare records from sprev
 * up to s come after main's below m. bpfrec joins them into one count.
 */
#define REC_CR_EPIS 64
struct rec_cr_hdr {
	uint64_t head_before, head_after;
	uint64_t nepis;	 /* episodes ever: the last REC_CR_EPIS are in epis[n % REC_CR_EPIS] */
	uint64_t pend_m; /* the main ring's head at the last harvest (the next episode's m) */
	struct rec_cr_epi {
		uint32_t m, sprev, s, pad;
	} epis[REC_CR_EPIS];
};
#define REC_CR_HDR sizeof(struct rec_cr_hdr)

/* One ring as copied by a harvest. */
struct ring_copy {
	void *buf; /* `cap` bytes (the ring's size), mapped and faulted in up front */
	size_t cap;
	size_t len;  /* valid bytes, newest record first */
	int wrapped; /* the ring had overwritten records */
	/*
	 * The records are oldest first instead: a compact ring's expansion,
	 * which snapshot/bpfrec.c lends the writer in the order it decodes.
	 */
	int oldest_first;
};

/*
 * The copies of every ring taken in one freeze. Harvests are double
 * buffered so the next freeze never waits for the previous file write.
 */
struct harvest {
	struct ring_copy *rings; /* r->nr_rings entries, same order as r->rings */
	int nr_rings;
};

struct recorder {
	struct rec_event *evs; /* recorded events; the tracking event is last */
	int nr_evs;
	struct rec_ring *rings; /* main rings then tracking rings */
	int nr_rings;
	int *cpus;
	int nr_cpus;
	int nr_bpf_evs; /* events with bpf_rec (0: no ring sets) */
	int perf_main;	/* some event is written by perf into a main ring (gated) */
	/*
	 * rings=compact: per CPU cr_nseg segments of 2^cr_shift bytes of main
	 * ring and cr_nseg / 8 of spare, each an element of cr_elem bytes of the
	 * BPF map engine/ creates and maps at cr_mem (cr_len bytes, CPU c's
	 * first element at c * (cr_nseg + cr_nseg / 8)).
	 */
	int compact;
	uint32_t cr_shift, cr_nseg;
	size_t cr_elem;
	void *cr_mem;
	size_t cr_len;
	int cr_fd; /* the cr_rings map, for a reload's object to write (-1 until loaded) */
	/*
	 * The BPF objects' shared per-CPU state (trigrec_rec_cpu: record numbers,
	 * the live generation), kept across reloads: engine/ creates and uses
	 * it (bpfctl.c), recorder__free() releases it.
	 */
	int rec_cpu_fd; /* -1 until the first object is loaded */
	void *rec_cpu;	/* its mmap, TRIGREC_MAX_CPUS entries */
	size_t rec_cpu_len;
	int cgroup_fd; /* opts.cgroup opened, or -1 */
	/*
	 * Task scope on perf's rings: the scheduler tracepoints perf writes are
	 * opened per CPU for every task (recorder__open, sched_wide()), so the
	 * switches into the scoped tasks and others' wake-ups of them are
	 * recorded; the sidecar's "sched_scope" says so.
	 */
	int sched_wide;
	char cgroup_path[4096]; /* ... resolved to a full path */
	struct recorder_opts opts;
};

/*
 * Resolve -e specs (globs, names, filters) and check every limit that can be
 * known before opening anything: filter lengths, -F against
 * kernel.perf_event_max_sample_rate, file descriptors, the cgroup, and the
 * memory of rings plus copies (ringmem.h). Cheap: opens no event. NULL after
 * an elog() saying what is wrong and what to do (or, silently, with errno
 * EINTR when opts.cancel was set).
 */
struct recorder *recorder__new(const struct recorder_opts *opts);
/*
 * Open every event on every CPU, map rings, redirect outputs, apply filters.
 * 0 or -errno (-EINTR: opts.cancel was set; nothing logged). Either way
 * recorder__free() undoes what was done. Note that the kernel takes ~25 ms
 * per opened tracepoint to tear down (two RCU grace periods under a global
 * mutex, so closing in parallel does not help).
 */
int recorder__open(struct recorder *r);
/*
 * Buffers for one harvest, faulted in now so a harvest never page-faults.
 * NULL with errno set (EINTR when opts.cancel was set meanwhile).
 */
struct harvest *harvest__new(const struct recorder *r);
void harvest__free(struct harvest *h);
/*
 * Harvest every ring into h: pause, copy, resume. Cheap: memcpy only. The
 * ring sets of rings=bpf are copied live (what moves during the copy is
 * discarded). 0 or -errno.
 */
int recorder__harvest(struct recorder *r, struct harvest *h);
/*
 * rings=compact, after a cut's copy, once recording is back in the main
 * rings: copy each CPU's spare into its carry, which the next harvests
 * copy with the main ring. Memcpy only.
 */
void recorder__carry(struct recorder *r);
/*
 * Copy the start (at most len bytes) of the newest record in r->rings[ring_idx],
 * a perf-written main ring, read in place without pausing it; the copy's
 * header size says how much was copied. Returns that length, or -ENOENT (a
 * tracking ring or a ring set, nothing written yet).
 */
int recorder__newest_record(const struct recorder *r, int ring_idx, void *buf, size_t len);
/*
 * Command mode: attaching BPF to a sampling event enables it (libbpf issues
 * PERF_EVENT_IOC_ENABLE); disable those again so enable_on_exec starts them
 * at exec like every other event.
 */
void recorder__rearm_on_exec(struct recorder *r);
/*
 * Stop every event (PERF_EVENT_IOC_DISABLE on each fd): once the final
 * freeze is taken nothing more is wanted, and a busy sampling event would
 * only slow the final write down. The rings keep what they hold.
 */
void recorder__disable(struct recorder *r);
/* Free everything (closes fds, unmaps). */
void recorder__free(struct recorder *r);

/* Synthetic sample ids of BPF-written events (no perf event has them). */
#define REC_BPF_ID(ev, cpu_idx) \
	(0xb7f0000000000000ull | ((uint64_t)(ev) << 20) | (uint64_t)(cpu_idx))

/* Tracking event, for synthesized records. */
static inline struct rec_event *recorder__tracking(struct recorder *r)
{
	return &r->evs[r->nr_evs - 1];
}

#endif
