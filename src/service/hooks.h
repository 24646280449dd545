/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * on_snapshot: a command run for each finished snapshot (shipping it off the
 * host, indexing it, ...). The writer thread only hands a job over
 * (hooks__submit() never blocks); the runner's own thread starts the
 * commands (posix_spawn, no shell), reads their output, enforces the time
 * limit and reaps them through pidfds, so it never takes the SIGCHLD that
 * the session reads for its workload.
 *
 * The command is an argv. Where its words contain placeholders they are
 * replaced; otherwise the .data and .json paths are appended:
 *   {data}    the perf.data file           {json}  its sidecar
 *   {dir}     the directory holding them   {name}  the .data's name without ".data"
 *   {trigger} the trigger's name (manual, final, or a manual NAME)
 *   {host}    this host's name
 * Anything else in braces ("{data,json}" for rclone's globs) is left as written.
 */
#ifndef TRIGREC_HOOKS_H
#define TRIGREC_HOOKS_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct hooks;

enum hook_result { HOOK_OK, HOOK_FAILED, HOOK_TIMEOUT, HOOK_DROPPED, HOOK_NR_RESULTS };
/* "ok", "failed", "timeout", "dropped": the metrics' result label. */
extern const char *const hook_result_names[HOOK_NR_RESULTS];

/* Called on the runner's thread (or the submitter's, for a drop) once per run. */
typedef void (*hook_done_fn)(void *ctx, enum hook_result r);

/* Pending runs beyond the running ones; more are dropped (and counted). */
#define HOOKS_QUEUE 16
/* SIGTERM at the time limit, SIGKILL this long after. */
#define HOOKS_KILL_GRACE_NS (5ull * 1000000000ull)
/* Output logged per run: lines, and bytes per line (longer ones are cut). */
#define HOOKS_MAX_LINES 50
#define HOOKS_LINE_BYTES 1024

/*
 * on_snapshot_user: who runs the commands. The child sets its groups, gid and
 * uid to the user's (raw syscalls, in a vfork-style child of the runner
 * thread), clears every capability set (ambient, inheritable, permitted,
 * effective; the bounding set too where trigrec holds CAP_SETPCAP) and sets
 * NoNewPrivs, then execs. HOME, USER and LOGNAME become the user's.
 */
#define HOOKS_MAX_GROUPS 64
struct hook_cred {
	uid_t uid;
	gid_t gid;
	int ngroups;
	gid_t groups[HOOKS_MAX_GROUPS]; /* supplementary groups (getgrouplist) */
	char name[64];
	char home[256];
};

/*
 * A user name or numeric uid into its credentials (passwd, group). 0, or
 * -EINVAL with what is wrong and what to do in err (unknown user, a name
 * with characters no user name has).
 */
int hook_user_resolve(const char *user, struct hook_cred *cred, char *err, size_t errlen);
/*
 * Can this process become another user (CAP_SETUID and CAP_SETGID
 * permitted)? 0, or -EPERM with what to do in err.
 */
int hook_can_switch_user(char *err, size_t errlen);
/*
 * The snapshot pair readable by the hook user: path (a regular file we own,
 * never followed if a symlink) gets group gid and mode 0640. 0 or -errno
 * with err.
 */
int hook_share_file(const char *path, gid_t gid, char *err, size_t errlen);
/*
 * The output directory searchable and readable by group gid: nothing to do
 * when everyone may (r-x for others); else, in a directory trigrec owns, r-x
 * for its group (and no write for others) when the group is gid already, or
 * may_chgrp (trigrec created it) lets it become gid. Anything else is
 * -EPERM with what to run in err: trigrec does not regroup a directory it
 * did not make.
 */
int hook_share_dir(const char *dir, gid_t gid, int may_chgrp, char *err, size_t errlen);

struct hooks_opts {
	char *const *argv;	      /* program and arguments, NULL-terminated (copied) */
	const struct hook_cred *user; /* run as this user with no capabilities; NULL = as trigrec */
	uint64_t timeout_ns;	      /* per run */
	unsigned int jobs;	      /* running at once, at least 1 */
	unsigned int queue;	      /* 0 = HOOKS_QUEUE */
	uint64_t kill_grace_ns;	      /* 0 = HOOKS_KILL_GRACE_NS */
	hook_done_fn done;	      /* may be NULL */
	void *ctx;
};

/* One finished snapshot. */
struct hook_snap {
	const char *data;    /* path of the .data file */
	const char *sidecar; /* path of the .json */
	const char *trigger; /* trigger name */
};

/* Starts the runner thread (with every signal blocked). NULL after an elog(). */
struct hooks *hooks__new(const struct hooks_opts *o);
/*
 * Hand one snapshot over; never blocks (a short mutex). 0 = started or
 * queued, -EBUSY = dropped (all jobs busy and the queue full, or stopping).
 */
int hooks__submit(struct hooks *h, const struct hook_snap *s);
/*
 * Begin stopping: runs in progress and queued ones go on, but whatever still
 * runs one time limit from now gets SIGTERM (then SIGKILL), and what has not
 * started by then is dropped. hooks__finished_fd() becomes readable when
 * nothing runs any more. Returns how many were running or queued.
 */
unsigned int hooks__request_stop(struct hooks *h);
int hooks__finished_fd(struct hooks *h);
/* SIGKILL every run now (a second Ctrl-C); does not wait. */
void hooks__kill_all(struct hooks *h);

struct hooks_stats {
	uint64_t runs[HOOK_NR_RESULTS];
	uint64_t started;
	unsigned int max_running; /* the most that ran at once */
};
void hooks__stats(struct hooks *h, struct hooks_stats *out);
/* Kills what still runs, drops the queue, joins the thread. */
void hooks__free(struct hooks *h);

/*
 * The argv of one run: tmpl with its placeholders replaced, or, when it has
 * none, tmpl + data + sidecar. host may be NULL (then gethostname()).
 * NULL-terminated, owned by the caller (free each string, then the array);
 * NULL when out of memory.
 */
char **hook_argv_build(char *const *tmpl, const struct hook_snap *s, const char *host);
/* Does any word of argv hold a placeholder? */
int hook_argv_has_placeholder(char *const *argv);
void hook_argv_free(char **argv);

/*
 * --on-snapshot 'CMD ARG...': split on blanks, no shell. '...' and "..."
 * quote (inside them \" \' \\ are the only escapes, as in scripts), and may
 * join a word ("--x='a b'" is one word --x=a b). 0 and a NULL-terminated
 * owned argv in *out, or -EINVAL with the reason in err (empty, an
 * unterminated quote), -ENOMEM.
 */
int hook_argv_split(const char *line, char ***out, char *err, size_t errlen);

#endif
