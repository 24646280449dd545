/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Turning a harvest (the ring copies taken inside the freeze) into a
 * perf.data file and its JSON sidecar. Runs after the rings are resumed:
 * no disk I/O ever happens while recording is frozen.
 */
#ifndef TRIGREC_SNAPSHOT_H
#define TRIGREC_SNAPSHOT_H
#include <stdint.h>
#include "snapshot/bpfrec.h"
#include "snapshot/bpfsyms.h"
#include "snapshot/kmods.h"
#include "snapshot/perfdata.h"
#include "snapshot/procs.h"
#include "capture/recorder.h"
#include "capture/tracefs.h"
#include "engine/bpfctl.h"
#include "lang/trigger_lang.h"
#include "util/log.h"
#include "trigrec_abi.h"

/* What started a snapshot. */
struct snap_trigger {
	const char *name;  /* file-name part: trigger name, "manual" or "final" */
	const char *text;  /* the trigger as written, or a description */
	const char *alert; /* POST /snapshot: the sidecar's "alert" object (JSON), or NULL */
	int id;		   /* trigger id, -1 for manual and final */
	const struct trigrec_trigger_msg *msg; /* NULL for manual and final */
	/* The whole message: with msg, what a learned threshold's key had learned. */
	const struct trigrec_trigger_msg_learn *learn;
	const struct tp_format *fmt; /* format of msg->hook's tracepoint */
	const struct trig_def *def;  /* the trigger (NULL for manual and final) */
	uint64_t freeze_at;	     /* cut requested (monotonic ns) */
	uint64_t coalesced;	     /* triggers that fired while this one was being taken */
	uint64_t gated;		     /* records the gates dropped while frozen */
	uint64_t skipped; /* records the kernel's BPF recursion guard dropped since the last snapshot */
	uint64_t floor; /* previous snapshot's resume: windows never reach past a freeze */
	/* A keyed trigger's keys with the largest near misses, read when its message came. */
	struct bpfctl_key_nm keys[BPF_NM_KEYS];
	int nr_keys;
};

struct snap_timing {
	uint64_t woke;	 /* side-band thread woke up (monotonic ns) */
	uint64_t pause;	 /* rings paused */
	uint64_t resume; /* rings resumed, gates open again */
};

struct snapshot_ctx {
	const char *outdir;
	int argc;
	char **argv;
	struct procs procs;
	int no_align;
	int callgraph;
	int zstd_level;		/* compress the data section (perf record -z); 0 = off */
	int64_t mono_to_real;	/* realtime ns - monotonic ns */
	struct pd_event *kevs;	/* attrs as the kernel writes records: for decoding */
	struct pd_event *fevs;	/* attrs as the file presents them (tracepoints + TID, CPU) */
	struct pd_idmap *idmap; /* record id -> index in kevs */
	void *tracing_data;	/* TRACING_DATA payload, built once */
	size_t tracing_data_len;
	uint64_t kernel_start, kernel_end; /* _text, _etext */
	struct kmods kmods;		   /* loaded modules, read again for each snapshot */
	/* perf.data header: the host, once per run; build-ids cached for the run */
	struct pd_host *host;
	struct bid_cache *bids;
	struct bpf_syms bpfsyms; /* JITed BPF functions, for KSYMBOL records (bpfsyms.h) */
	int no_buildid_cache;	 /* set before init: do not fill perf's ~/.debug */
	const char *name_prefix; /* `name PREFIX`: file names start with "PREFIX-" (NULL = none) */
	const char *instance;	 /* the recorder's instance ID, the sidecar's first key (NULL:
				  * none; service/retention.h) */
	uint64_t max_bytes;	 /* retention byte budget: a bigger snapshot (.data + .json)
				  * is refused (-EFBIG) before it gets a name; 0 = none */
	char **cmdline;		 /* CMDLINE: this executable's path, then argv[1..] */
	/*
	 * The sidecar's "why" (show/why.c on the written file) only for
	 * snapshots of at most this many records; 0: SNAP_WHY_MAX_RECORDS.
	 */
	size_t why_max_records;
	struct {
		uint16_t off[4];
		int n;
	} * pid_fields; /* per event: 4-byte "*pid" fields */
	/*
	 * The writer's index of records (snapshot.c's struct snap_rec, 16 bytes
	 * each), kept from one snapshot to the next so that a snapshot the size
	 * of the last one allocates and faults in nothing.
	 */
	void *idx;
	size_t idx_cap;
	void *wbuf; /* the perf.data writer's buffer (PD_WRITER_BUF_SIZE), same reason */
	struct bpfrec_scratch bpfrec; /* rings=bpf: bpfrec__convert()'s record list, same reason */
	struct pd_zpool *zpool;	      /* zstd's workers (compress on), same reason */
	unsigned long written;	      /* snapshots written */
	unsigned long failed;	      /* snapshots that could not be written */
	/* Set up by snapshot_ctx__init(); used by the writer thread only. */
	struct outdir *od;	   /* outdir, opened once (snapshot/outdir.h) */
	struct log_limit fail_lim; /* one failure line per period, not one per snapshot */
	struct {
		int err;
		unsigned long n;
	} fail_errs[4]; /* failures left out, by errno */
};

/*
 * Open the output directory (outdir must exist: the caller creates it) and
 * check it can hold snapshot names (PATH_MAX), remove what killed earlier
 * runs left there (unnamed temporaries, a sidecar without its .data), and
 * build what every snapshot shares. Call before recording starts: an error
 * here is an elog() and -errno, and nothing is recorded.
 */
int snapshot_ctx__init(struct snapshot_ctx *sc, struct recorder *r);
/* Logs the count of failures not yet reported, then frees. */
void snapshot_ctx__fini(struct snapshot_ctx *sc);
/*
 * Only the output directory part of snapshot_ctx__init() (no recorder
 * needed): for front ends that want to refuse a bad -o before loading
 * anything. snapshot_ctx__init() calls it too. An od set by the caller
 * (outdir__open_at() on the fd it checked) is used as it is.
 */
int snapshot_ctx__open_outdir(struct snapshot_ctx *sc);

/* What a written snapshot came to (for logs, metrics, retention, hooks). */
struct snap_written {
	char path[4096];     /* the perf.data file */
	char sidecar[4096];  /* its JSON sidecar */
	uint64_t data_bytes; /* size of the perf.data file */
	uint64_t sidecar_bytes;
	uint64_t records;    /* records kept in the window */
	uint64_t lost;	     /* PERF_RECORD_LOST counts in the window */
	uint64_t why_ns;     /* the sidecar's why: what making it cost (timing.why_ns) */
	uint64_t why_cpu_ns; /* and of it, the writer thread's CPU time */
};

/*
 * The time stamp and thread of a main-ring record, decoded as the snapshot
 * will: a tracepoint sample's common_pid (the kernel's record has no TID),
 * else the TID its sample fields carry (0 when none). rec may be cut short
 * after its identifying fields and the start of its raw data. 0, or
 * -ENOENT when its id is unknown or it has no time stamp.
 */
int snapshot__record_id(const struct snapshot_ctx *sc, const struct recorder *r,
			const struct perf_event_header *rec, uint64_t *time, uint32_t *tid);

/*
 * Write the snapshot of harvest h (taken from r). Returns 0 and what was
 * written in out, or -errno (the temporary files are removed; the recorder is
 * unaffected). Failures are logged, at most one line per 10 s: the next
 * line says how many were left out (sc->failed counts every one).
 */
int snapshot__write(struct snapshot_ctx *sc, struct recorder *r, struct harvest *h,
		    const struct snap_trigger *t, const struct snap_timing *tm,
		    struct snap_written *out);

#endif
