/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `trigrec test SCRIPT FILE.data...`: a script's triggers on recorded
 * snapshots, through the engine's own code (engine_host.h). The files'
 * tracepoint records are merged in time order (a record two snapshots both
 * hold counts once) and each is evaluated as tp_hook would, with the
 * per-record pid, tid, cpu, comm and time the file holds.
 *
 *	rp = replay_open(paths, n, err, sizeof(err));      open every file
 *	trig_set_formats(rp->fmts, rp->nr_fmts);          compile against them
 *	replay_check(rp, trigs, n, origins, err, ...);     what can be replayed
 *	replay_run(rp, trigs, n, &opts, on_fire, arg);     every record, in order, read once
 *	replay_close(rp);
 */
#ifndef TRIGREC_REPLAY_H
#define TRIGREC_REPLAY_H
#include <stddef.h>
#include <stdint.h>
#include "lang/trigger_lang.h"
#include "replay/engine_host.h"
#include "session/config.h"
#include "show/pdread.h"

struct replay {
	struct pdr_file **files;
	const char **paths;
	int nr_files;
	/* The tracepoints the files recorded, one format per name (the first file's). */
	const struct tp_format **fmts;
	int nr_fmts;
	uint64_t evaluated;  /* records handed to the engine by replay_run() */
	uint64_t duplicates; /* records left out: another file held them already */
	char err[512];	     /* why replay_run() failed: "PATH: what is wrong and where" */
};

/* The record that fired, with where it came from. */
struct replay_fire {
	int file;		   /* index in paths */
	const struct pdr_rec *rec; /* the record being evaluated (valid during the call only) */
	const char *event;	   /* "sys:name" */
	const char *comm;	   /* the thread's name at that time, "" if unknown */
	const struct trigrec_trigger_msg_learn *m;
};

/*
 * Open every file: headers, attrs, formats and names (the records are read
 * by replay_run(), once). NULL after writing "PATH: what is wrong" into err.
 */
struct replay *replay_open(const char *const *paths, int n, char *err, size_t errlen);
/*
 * An empty replay, and one more file (read by the caller: pdr_open_mem for
 * the fuzzer), named name (kept, not copied); f is the replay's. 0 or -ENOMEM.
 */
struct replay *replay_new(void);
int replay_add(struct replay *rp, struct pdr_file *f, const char *name);
void replay_close(struct replay *rp);

/*
 * Can these triggers be replayed on these files? Each side's event must be
 * a tracepoint the files recorded, and no condition or key may read what
 * a recording does not hold (text behind a pointer: str(); cgroups). 0, or
 * -EINVAL with one sentence in err naming the trigger, its line (origins:
 * NULL or n entries) and what to do.
 */
int replay_check(const struct replay *rp, const struct trig_def *trigs, int n,
		 const struct cfg_origin *origins, char *err, size_t errlen);

/*
 * The hooks the BPF side would have (bpfctl__plan()): one per tracepoint
 * of fmts, each with its (trigger, role) entries, ends before starts.
 * hooks has nr_fmts entries. 0 or -errno.
 */
int replay_plan(const struct tp_format *const *fmts, int nr_fmts, const struct trig_def *trigs,
		int n, struct trigrec_hook_cfg *hooks);

/*
 * Evaluate every tracepoint record of the files, in time order: one pass
 * over each file's data section (pdr_next()), a k-way merge across files;
 * on_fire for each firing. opts: the recording path and budget (its
 * on_fire is replay_run's). 0, or -errno with rp->err: a record found
 * damaged on the way ends the run there (the firings before it were
 * reported, once each; nothing after it is evaluated).
 */
int replay_run(struct replay *rp, const struct trig_def *trigs, int n, const struct eh_opts *opts,
	       void (*on_fire)(const struct replay_fire *f, void *arg), void *arg);

#endif
