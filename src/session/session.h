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
 * The session borrows the config: it must outlive the session.
 */
#ifndef TRIGREC_SESSION_H
#define TRIGREC_SESSION_H
#include "session/config.h"

struct session;

/*
 * Check what can be checked before anything is opened: capabilities, the
 * command, the output directory, tracefs. NULL after an elog() saying what
 * is wrong. argc/argv are recorded in each perf.data as its command line.
 */
struct session *session__new(const struct trigrec_config *c, int argc, char **argv);
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
