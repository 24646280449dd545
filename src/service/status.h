/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `trigrec status SOCK` (the control socket's `status` request): what an
 * operator asks of a running recorder. What it ran (script, pid, version),
 * since when, each trigger's counters, the last snapshot, the output
 * directory's disk use.
 *
 * The session feeds it: status__observe() on the writer thread after each
 * snapshot, status__render() on the control thread. Kernel counters are read
 * by the caller when asked, so an idle recorder does no work for it.
 *
 * The text is one "key: value" line per fact, keys in a fixed order, so that
 * `grep '^last snapshot:'` keeps working; `status json` is the same as one
 * JSON object on one line.
 */
#ifndef TRIGREC_STATUS_H
#define TRIGREC_STATUS_H
#include <stdint.h>
#include <stdio.h>
#include "engine/bpfctl.h"
#include "trigrec_abi.h"

struct status;
struct snap_report;

/* The run as configured (its script, or NULL; its output directory, NULL: "."); started = now. */
struct status *status__new(const char *script_path, const char *outdir);
void status__free(struct status *st);

/* One finished snapshot, written or failed (writer thread). */
void status__observe(struct status *st, const struct snap_report *rep);

/*
 * A trigger as it is now: its name and kernel counters (have = 0:
 * unreadable), its definition (NULL: unknown) and near misses (have_nm).
 */
struct trig_def;
struct status_trigger {
	const char *name;
	struct trigrec_stats stats;
	int have;
	const struct trig_def *def;
	struct trigrec_near_miss nm;
	int have_nm;
	/* A keyed trigger's keys with the largest near misses (bpfctl__key_near_miss()). */
	struct bpfctl_key_nm keys[BPF_NM_KEYS];
	int nr_keys;
	struct trigrec_learn_stat ls; /* a learned threshold's keys and spans (have_ls) */
	int have_ls;
	/* A learned latency trigger's histogram of all its keys (have_la): its figures. */
	uint64_t la_pct_ns, la_samples, la_total;
	int have_la;
};

/*
 * "p90 x 3 of all keys: 29.4 ms (p90 9.8 ms over 122 spans)", or "... not
 * learned yet (12 spans)", for a learned latency trigger t (have_la). Returns out.
 */
const char *status__all_keys_text(const struct status_trigger *t, char *out, size_t len);

/*
 * "max 19.6 ms against a threshold of 20 ms" for a latency or rate trigger
 * from its near misses top[] (largest first); "" for other kinds. Returns out.
 */
/* A learned threshold as said: "p99.9", "p99 x 2". Returns out. */
const char *status__learned_text(const struct trig_def *d, char *out, size_t len);

/* A rate baseline as said: "5x baseline per 1s", "2.5x baseline per 200ms". Returns out. */
const char *status__baseline_text(const struct trig_def *d, char *out, size_t len);

const char *status__near_miss_text(const struct trig_def *d, const __u64 *top, char *out,
				   size_t len);

/*
 * Write the status to out: text (json = 0) or one JSON line. trigs: the
 * triggers of the running recorder. Reads the output directory (trigrec's
 * own files: *.data and *.json). 0, or -errno when out failed.
 */
int status__render(struct status *st, const struct status_trigger *trigs, int nr_trigs, int json,
		   FILE *out);

/* The trigger table's generation after a reload (counters stay since the start). */
void status__set_generation(struct status *st, unsigned generation);

/* What `status` counts as trigrec's files in the output directory. */
int status__is_snapshot_file(const char *name);

#endif
