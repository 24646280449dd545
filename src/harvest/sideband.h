/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The side-band thread: sleeps on the BPF ring buffer (epoll, no periodic
 * wake-ups); on a trigger it waits out the post window, pauses and copies
 * the rings into a free buffer set, resumes and re-arms. It only harvests:
 * a writer thread turns each harvest into files, so the next freeze never
 * waits for disk, and control requests are served on the control thread
 * (the session's verb table, harvest/control.h), so no client can delay a
 * freeze.
 */
#ifndef TRIGREC_SIDEBAND_H
#define TRIGREC_SIDEBAND_H
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "engine/bpfctl.h"
#include "capture/recorder.h"
#include "snapshot/snapshot.h"

struct sideband;

/* One finished snapshot, written or failed (for the session's hooks). */
struct snap_report {
	int trigger;			/* trigger id; -1 manual, -2 final */
	const char *name;		/* trigger name, "manual", "final" or a manual NAME */
	int err;			/* 0 = written, else -errno */
	const struct snap_written *out; /* NULL when it failed */
	uint64_t freeze_ns;		/* freeze to resume */
	uint64_t to_file_ns;		/* freeze requested to file published */
};
typedef void (*snap_written_fn)(void *ctx, const struct snap_report *rep);
/*
 * Reload, on the side-band thread with the old programs detached and no
 * snapshot in flight: return the BPF object to use from now on (old if the
 * new one could not be made; *err says why).
 */
typedef struct bpfctl *(*sideband_swap_fn)(void *ctx, struct bpfctl *old, int *err);

struct sideband_opts {
	unsigned long max_snapshots; /* --count: stop after this many (0 = no limit) */
	int final_snapshot;	     /* take one at stop */
	int done_fd;		     /* eventfd written when the recorder wants to stop:
				      * --count reached, or a `stop` control request */
	/*
	 * Called on the writer thread after each snapshot, written or failed
	 * (metrics, retention, on_snapshot). Never on the side-band thread, so it
	 * cannot delay a freeze; it does delay the next file, so keep it short.
	 */
	snap_written_fn written;
	/* Post window of a manual snapshot by this name (side-band thread); NULL = none. */
	uint64_t (*manual_post)(void *ctx, const char *name);
	/*
	 * The name of an unnamed manual snapshot (SIGUSR2, `control snapshot`
	 * alone) on the side-band thread: a script's first manual trigger, or
	 * NULL for "manual".
	 */
	const char *(*manual_default)(void *ctx);
	void *ctx;
};

struct sideband *sideband__start(struct recorder *r, struct bpfctl *b, struct snapshot_ctx *sc,
				 const struct sideband_opts *o);
/* Ask for a manual snapshot (SIGUSR2); returns at once. */
void sideband__request_snapshot(struct sideband *s);
/*
 * Take a manual snapshot named name (text: what asked for it, for the
 * sidecar) and wait until its file is written. For the control thread;
 * never call it on the side-band thread. 1 = written (path set), 0 =
 * coalesced into a trigger's snapshot in progress, -ESHUTDOWN when stopping,
 * other -errno when the file could not be written.
 */
int sideband__snapshot_wait(struct sideband *s, const char *name, const char *text, char *path,
			    size_t pathlen);
/*
 * The same, for POST /snapshot: alert (NULL = none) is a JSON object the
 * sidecar carries as "alert" (the caller's, read until this returns);
 * budgeted: spend the run's snapshot budget, -EDQUOT when it is spent (then
 * nothing is taken).
 */
int sideband__snapshot_req(struct sideband *s, const char *name, const char *text,
			   const char *alert, int budgeted, char *path, size_t pathlen);
/*
 * The control socket's `stats` reply, one line: "snapshots N coalesced N
 * gated N ...; TRIGGER evaluated N ..." (control thread).
 */
void sideband__stats_line(struct sideband *s, char *reply, size_t len);
/* Ask the session to stop, as --count does (writes done_fd); returns at once. */
void sideband__request_done(struct sideband *s);
/*
 * Swap the BPF object for a new trigger table, keeping the rings and what
 * they hold (see do_reload() for the order). Blocks until done; returns
 * the swap function's error (0: swapped), -ESHUTDOWN when stopping.
 */
int sideband__reload(struct sideband *s, sideband_swap_fn fn, void *ctx);
/* Has --count been reached (that many snapshots written)? */
int sideband__count_reached(struct sideband *s);
/* The BPF object in use (changes on reload). */
struct bpfctl *sideband__bpfctl(struct sideband *s);
/* Do not take the final snapshot at stop. */
void sideband__no_final(struct sideband *s);
/*
 * Begin stopping and return at once: a post window in progress is cut
 * short (its snapshot is still taken, ending now), triggers already posted
 * are harvested, then the final snapshot (if enabled); the events are then
 * disabled and the writer finishes every file. sideband__finished_fd()
 * becomes readable when all of that is done. Safe to call more than once.
 */
void sideband__request_stop(struct sideband *s);
/* Readable (POLLIN, not consumed) once a stop has finished: sideband__stop() then returns at once. */
int sideband__finished_fd(struct sideband *s);
/* Stop (sideband__request_stop()) and wait for the end: final snapshot written, threads joined. */
void sideband__stop(struct sideband *s);
/* Counters for the exit summary. */
struct sideband_stats {
	unsigned long snapshots;	     /* harvests taken */
	unsigned long manual_coalesced;	     /* manual requests folded into a trigger's snapshot */
	unsigned long waited_for_writer;     /* harvests that waited for a free buffer set */
	unsigned long post_cut_short;	     /* post windows ended early by a stop */
	unsigned long trigger_record_waited; /* harvests that waited for the trigger's own record */
	unsigned long trigger_record_late;   /* ... and gave up after TRIGGER_RECORD_WAIT_NS */
};
void sideband__stats(struct sideband *s, struct sideband_stats *out);
void sideband__free(struct sideband *s);

#endif
