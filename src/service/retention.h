/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Retention of one output directory: at most N snapshots, N bytes, and none
 * older than T (script `keep 50 files, 2G, 7d`; --keep-files, --keep-bytes,
 * --keep-age). Only this recorder's own snapshots count and are ever removed:
 * a pair STAMP-NAME.data + STAMP-NAME.json (names as snapshot/outdir.h makes
 * them), both regular files owned by us, the sidecar naming our instance
 * (below). Anything else in the directory
 * (a lone .data, the operator's notes, symlinks) is neither counted nor
 * touched. Oldest first, by the time stamp in the name (the trigger's wall
 * time), or the .data's mtime when the stamp cannot be read.
 *
 * The directory is rescanned each time rather than tracked: a shipping tool
 * or an operator may delete snapshots behind our back, and a stale count
 * would then remove snapshots that should have been kept. (Cost measured in
 * docs/operations.md, "Retention and disk use".) A snapshot too big for the
 * byte budget on its own is refused before it gets a name
 * (outdir__set_max_pair()), never published and then deleted.
 *
 * One thread at a time: the session enforces at start-up, then only the
 * writer thread, after each published snapshot.
 */
#ifndef TRIGREC_RETENTION_H
#define TRIGREC_RETENTION_H
#include <stddef.h>
#include <stdint.h>
#include "snapshot/outdir.h"

struct retention_limits {
	uint64_t files;	 /* snapshots (each a .data and its .json); 0 = no limit */
	uint64_t bytes;	 /* .data + .json sizes; 0 = no limit */
	uint64_t age_ns; /* 0 = no limit */
};

/* Why a snapshot is removed (bits of ret_snap.del). */
enum {
	RET_OVER_FILES = 1,
	RET_OVER_BYTES = 2,
	RET_OVER_AGE = 4,
};

/* One snapshot found in the directory. */
struct ret_snap {
	char base[OUTDIR_NAME_MAX + 1]; /* the name without ".data" */
	int64_t time_ns; /* realtime ns: the stamp in the name, else the .data's mtime */
	uint64_t bytes;	 /* .data + .json */
	int del;	 /* set by retention_choose(): RET_OVER_* bits, 0 = kept */
};

/*
 * The choice, without touching anything: sorts snaps oldest first (time,
 * then name) and marks the oldest for removal until the rest fit every
 * limit at now_ns. protect (a base name, or NULL) is never removed but
 * still counts: the snapshot just published. Returns how many are marked.
 */
size_t retention_choose(struct ret_snap *snaps, size_t n, const struct retention_limits *l,
			int64_t now_ns, const char *protect);

/*
 * If name is a snapshot's .data name (STAMP-NAME[-N].data, STAMP as
 * YYYYmmdd-HHMMSS.uuuuuu in local time), its length without ".data" and the
 * stamp in realtime ns (*time_ns = -1 when the stamp is not a valid date);
 * else 0.
 */
size_t retention_data_name(const char *name, int64_t *time_ns);

/*
 * Whose snapshots these are. Every sidecar starts with the instance ID of
 * the recorder that wrote it ({ then "instance": "ID", on the next line,
 * snapshot.c); retention counts and removes only pairs whose sidecar names
 * its own ID, so recorders sharing a directory never remove each other's
 * snapshots. The ID is --instance (the units pass their name, so a restart
 * keeps its snapshots), else random per run.
 */
#define RETENTION_INSTANCE_MAX 63
/* 1 if id is 1-63 of A-Z a-z 0-9 _ . - */
int retention_instance_ok(const char *id);
/* A random ID (16 hex digits) into out (at least 17 bytes). */
void retention_instance_random(char *out);
/*
 * The instance ID at the start of a sidecar (the first len bytes of it) into
 * out (at least RETENTION_INSTANCE_MAX + 1 bytes): its length, or -1 when
 * the sidecar does not start as trigrec writes it.
 */
int retention_sidecar_instance(const char *buf, size_t len, char *out);

struct retention;

/*
 * For the output directory dirfd (duplicated: every scan and removal is
 * relative to it; path names it in messages), or with dirfd -1 the existing
 * directory path; instance: the ID of this recorder (only its pairs are
 * counted and removed); limits all 0 only keeps account of the bytes (for
 * metrics). NULL after an elog().
 */
struct retention *retention__new(int dirfd, const char *path, const char *instance,
				 const struct retention_limits *l);
/* Logs what the periodic summary left out, then frees. */
void retention__free(struct retention *r);

/*
 * Scan, choose and remove (the .data first, so a crash in between leaves a
 * sidecar alone, which the next start removes). just_published: the .data
 * path of the snapshot that triggered this (never removed), or NULL at
 * start-up. Logs each removal at -v; otherwise one line at start-up, and
 * after snapshots at most one line per 10 s with counts. Without limits it
 * only adds just_published's bytes to the account (no scan). Returns the
 * number of snapshots removed, or -errno when the directory cannot be read.
 */
int retention__enforce(struct retention *r, const char *just_published, uint64_t published_bytes);

struct retention_stats {
	uint64_t removed; /* snapshots removed since start */
	uint64_t removed_bytes;
	uint64_t failed;  /* removals that failed (unlink errors) */
	uint64_t files;	  /* snapshots in the directory after the last enforcement */
	uint64_t bytes;	  /* their bytes */
	uint64_t last_ns; /* time the last scan + removals took (monotonic ns) */
};
void retention__stats(const struct retention *r, struct retention_stats *out);

/* "50 files, 2 GiB, 7d" (or "none"), for messages. */
const char *retention_limits_fmt(const struct retention_limits *l, char *buf, size_t len);

#endif
