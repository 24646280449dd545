/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One run of trigrec, as data. Every front end (`trigrec record` options, a
 * trigger script for `trigrec run`/`check`, the service) only fills a
 * struct trigrec_config; the session (session/session.h) is the one thing
 * that turns it into a running recorder. Most fields are a row of the
 * settings table (session/settings.h), which holds their defaults, flags,
 * statements and printers; config__init() applies the defaults.
 *
 * The config owns everything it points to (strings are copies), so a script
 * buffer or argv may go away once it is filled.
 */
#ifndef TRIGREC_CONFIG_H
#define TRIGREC_CONFIG_H
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "capture/recspec.h"
#include "engine/bpfctl.h"
#include "lang/trigger_lang.h"

/* Where a setting came from, for errors that point back at it. */
struct cfg_origin {
	const char *file; /* script path, "-" for stdin, NULL for the command line */
	int line, col;	  /* 1-based; 0 when not from a script */
};

/* A named snapshot that only `trigrec control SOCK snapshot NAME` (or SIGUSR2) takes. */
struct cfg_manual {
	char name[64];
	uint64_t post_ns; /* 0 = the run's post_ns */
};

struct trigrec_config {
	/* What to record: -e/--filter pairs (spec and filter are owned strings). */
	struct rec_event_spec *events;
	int nr_events;
	uint64_t mmap_pages;  /* main ring pages per CPU (power of two) */
	uint64_t track_pages; /* tracking ring pages per CPU */
	uint64_t freq;	      /* -F (0 = default for sampling events) */
	uint64_t period;      /* -c */
	int callgraph;	      /* -g */
	int rings; /* --rings / `rings`: REC_RINGS_AUTO, _BPF, _PERF (capture/recspec.h) */

	/* Scope. Default: system-wide unless a command or -p is given. */
	int all_cpus;		/* -a */
	unsigned char *cpumask; /* -C: nr_cpumask entries, 1 = record; NULL = all */
	int nr_cpumask;
	pid_t pid;    /* -p */
	char *cgroup; /* cgroup path (v2), NULL = none */
	char **cmd;   /* -- command [args], NULL-terminated, owned */

	/* Triggers (compiled) and their defaults. */
	struct trig_def *trigs;
	int nr_trigs;
	struct cfg_origin *trig_origin; /* nr_trigs entries: where each was written */
	struct cfg_manual *manual;	/* script `trigger NAME { manual }` */
	int nr_manual;
	uint64_t post_ns;	/* --post: for triggers that do not say `post` */
	struct bpfctl_opts bpf; /* --max-starts, --max-keys, --no-gates */

	/* Snapshots. */
	char *outdir;	      /* -o (default ".") */
	char *name_prefix;    /* script `name PREFIX`: file names start with it (NULL = none) */
	char *instance;	      /* --instance ID: whose snapshots retention may remove (NULL =
			       * a random ID per run, service/retention.h) */
	unsigned long count;  /* --count: stop after N snapshots written (0 = no limit) */
	int count_kill;	      /* --count-kill: signal for the command at --count (0 = none) */
	int no_final;	      /* --no-final-snapshot */
	int no_align;	      /* --no-align */
	char *control;	      /* --control PATH, NULL = none */
	int zstd_level;	      /* -z/--compression-level, script `compress zstd N`: 0 = off */
	int no_buildid_cache; /* --no-buildid-cache, script `buildid_cache off`: leave
	                              * perf's ~/.debug alone (build-ids are still written) */

	/* Retention (validated here; enforced by the service). 0 = no limit. */
	uint64_t keep_files;
	uint64_t keep_bytes;
	uint64_t keep_age_ns;

	/* Observability: Prometheus endpoint (--metrics) and textfile (--metrics-file). */
	char *metrics_addr;
	char *metrics_file;
	/* POST /snapshot on the metrics listener: its bearer token's file (NULL = off). */
	char *http_token_file;

	/*
	 * Command run on each finished snapshot (argv, no shell; placeholders in
	 * service/hooks.h); NULL = none. At most on_snapshot_jobs at once, each
	 * stopped after on_snapshot_timeout_ns (SIGTERM, then SIGKILL).
	 */
	char **on_snapshot;
	uint64_t on_snapshot_timeout_ns;
	unsigned int on_snapshot_jobs;
	/*
	 * on_snapshot_user: the command runs as this user (a name or uid) with
	 * no capabilities; NULL = as trigrec itself. The default is
	 * $TRIGREC_ON_SNAPSHOT_USER (the systemd units set it to trigrec).
	 */
	char *on_snapshot_user;

	/* The script this config came from (NULL for `record`). */
	char *script_path;

	/*
	 * Set by config__finalize() when neither -e nor a `record` line chose the
	 * events: the default set (config__default_events()) was put in events[].
	 * default_missing lists, ", "-joined, the default events this kernel lacks.
	 */
	int default_set;
	char *default_missing;
};

/*
 * What a run records when nothing chose its events: the triggers' own events,
 * then these (a NULL-terminated list; those missing on this kernel are skipped).
 */
const char *const *config__default_events(void);

/* on_snapshot's limits and defaults (script, --on-snapshot-timeout, --on-snapshot-jobs). */
#define ON_SNAPSHOT_TIMEOUT_DEFAULT_NS (60ull * 1000000000ull)
#define ON_SNAPSHOT_TIMEOUT_MIN_NS (100ull * 1000000ull)
#define ON_SNAPSHOT_TIMEOUT_MAX_NS (86400ull * 1000000000ull)
#define ON_SNAPSHOT_JOBS_DEFAULT 2
#define ON_SNAPSHOT_JOBS_MAX 64
/* Parse a value for them; 0, or -EINVAL with the reason (range included) in err. */
int config__parse_on_snapshot_timeout(const char *s, uint64_t *ns, char *err, size_t errlen);
/* --rings / `rings`: bpf, perf or auto into *mode (REC_RINGS_*). err may be NULL. */
int config__parse_rings(const char *s, int *mode, char *err, size_t errlen);
/*
 * --count-kill: a signal by name (TERM, SIGTERM, kill) or number (1-31), or
 * none (0: leave the command running). 0, or -EINVAL with err filled.
 */
int config__parse_count_kill(const char *s, int *sig, char *err, size_t errlen);
int config__parse_on_snapshot_jobs(const char *s, unsigned int *jobs, char *err, size_t errlen);
/* on_snapshot_user's spelling (its existence is checked where it is used); 0 or -EINVAL. */
int config__parse_on_snapshot_user(const char *s, char *err, size_t errlen);

/* Every default: zero, or the settings table's (session/settings.c). */
void config__init(struct trigrec_config *c);
/* Free what the config owns and leave it as config__init() left it. */
void config__fini(struct trigrec_config *c);

/*
 * Builders used by both the options table and the script parser; 0 or -errno.
 * config__add_trigger() puts a `manual` trigger (t->manual) into manual[].
 */
int config__add_event(struct trigrec_config *c, const char *spec, const char *filter);
int config__add_trigger(struct trigrec_config *c, const struct trig_def *t,
			const struct cfg_origin *where);
int config__set_str(char **dst, const char *val);
#define CONFIG_ZSTD_LEVEL_MAX 22 /* ZSTD_maxCLevel(), perf record's comp_level_max */
/* A zstd level as -z and `compress zstd` take it: 0 (off) to 22; -EINVAL and why in err. */
int config__parse_zstd_level(const char *s, int *level, char *err, size_t errlen);
char **config__argv_dup(char *const *argv, int n); /* n < 0: NULL-terminated */

/*
 * Cross-setting checks and derived values (e.g. --post applied to triggers
 * without their own `post`, the default set when no event was chosen).
 * Writes what is wrong to err and returns -EINVAL. Touches nothing outside
 * the config but one read: whether each default event exists, through
 * trig_event_glob() (tracefs, or the formats a test gave trig_set_formats()).
 */
int config__finalize(struct trigrec_config *c, char *err, size_t errlen);

/*
 * The K-th (from 0) trigger side whose event no recorded event names nor
 * matches as a glob, said in buf as one sentence: a trigger's firing record
 * of such an event is still kept in its snapshots (the snapshot writer
 * rebuilds it from the side-band message), the event's other occurrences
 * are not, and a latency's start of one leaves no record. 1 when there is
 * a K-th, else 0. Call after config__finalize().
 */
int config__unrecorded(const struct trigrec_config *c, int k, char *buf, size_t len);

/* The script that says the same as this config (`trigrec record --dump-script`). */
int config__dump_script(const struct trigrec_config *c, FILE *out);

#endif
