/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A session turns one struct trigrec_config into a running recorder and
 * runs it until it is stopped. Every front end (`trigrec record`,
 * `trigrec run SCRIPT`, the service) is a thin layer over it:
 *
 *   s = session__new(&cfg, argc, argv);   checks that need no kernel objects
 *   session__start(s);                    rings, BPF, side-band thread, armed
 *   status = session__run(s);             signals, command/-p exit, --count; stop + summary
 *   session__free(s);
 *
 * The session borrows the config: it must outlive the session. A reload
 * replaces the config's triggers in place (session__reload()).
 */
#ifndef TRIGREC_SESSION_H
#define TRIGREC_SESSION_H
#include "session/config.h"

struct session;
struct control_verb;

/*
 * Check what can be checked before anything is opened: capabilities, the
 * command, the output directory, tracefs. NULL after an elog() saying what
 * is wrong. argc/argv are recorded in each perf.data as its command line.
 */
struct session *session__new(struct trigrec_config *c, int argc, char **argv);
/*
 * How the front end re-reads its configuration for a reload (the script):
 * fill out (config__init()ed by the caller) and return 0, or return -errno
 * with what is wrong in err (script errors as FILE:LINE:COL: message lines).
 */
typedef int (*session_reload_fn)(void *ctx, struct trigrec_config *out, char *err, size_t len);
/* Enable reloads (SIGHUP, control `reload`); without it SIGHUP stops the session. */
void session__set_reload(struct session *s, session_reload_fn fn, void *ctx);
/*
 * Re-read the configuration and swap the triggers (SIGHUP and the control
 * socket's `reload` come here). The rings and what they hold are kept;
 * settings other than triggers are not applied until a restart (the reply
 * says which changed). A configuration that does not check keeps the old
 * one running. 0 with a one-line summary in msg, or -errno with why.
 */
int session__reload(struct session *s, char *msg, size_t len);
/*
 * The control socket's verbs (harvest/control.h's struct control_verb):
 * snapshot, stats, status, reload, stop, as CONTROL_VERBS lists them.
 * `trigrec control` reads its timeouts and help from it.
 */
const struct control_verb *session__control_verbs(int *n);
/*
 * Open the rings, load and attach BPF, start the side-band thread, start the
 * command, arm the triggers. Ctrl-C during set-up ends it. 0, or -errno after
 * an elog().
 */
int session__start(struct session *s);
/*
 * Run until Ctrl-C/SIGTERM, the command (or -p process) exits, or --count
 * snapshots; then stop with a final snapshot (unless disabled) and print
 * the summary. Returns the process exit status.
 */
int session__run(struct session *s);
void session__free(struct session *s);

#endif
