/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The side-band thread: sleeps on the BPF ring buffer (epoll, no periodic
 * wake-ups); on a trigger it waits out the post window, pauses and copies
 * the rings into a free buffer set, resumes and re-arms. A writer thread
 * turns each harvest into files, so the next freeze never waits for disk.
 */
#ifndef TRIGREC_SIDEBAND_H
#define TRIGREC_SIDEBAND_H
#include <pthread.h>
#include <stdint.h>
#include "engine/bpfctl.h"
#include "capture/recorder.h"
#include "snapshot/snapshot.h"

struct sideband;

struct sideband_opts {
	unsigned long max_snapshots; /* --count: stop after this many (0 = no limit) */
	int final_snapshot;          /* take one at stop */
	int done_fd;                 /* eventfd written when the thread decides to stop */
	int control_fd;              /* listening control socket, or -1 */
};

struct sideband *sideband__start(struct recorder *r, struct bpfctl *b, struct snapshot_ctx *sc,
				 const struct sideband_opts *o);
/* Ask for a manual snapshot (async-signal-unsafe: call from the main thread). */
void sideband__request_snapshot(struct sideband *s);
/* Do not take the final snapshot at stop. */
void sideband__no_final(struct sideband *s);
/* Stop: final snapshot (if enabled), drain, join. */
void sideband__stop(struct sideband *s);
/* Counters for the exit summary. */
struct sideband_stats {
	unsigned long snapshots;         /* harvests taken */
	unsigned long manual_coalesced;  /* manual requests folded into a trigger's snapshot */
	unsigned long waited_for_writer; /* harvests that waited for a free buffer set */
};
void sideband__stats(struct sideband *s, struct sideband_stats *out);
void sideband__free(struct sideband *s);

#endif
