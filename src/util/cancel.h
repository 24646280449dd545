/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Ctrl-C during set-up. Opening events, faulting in rings and snapshot
 * buffers and attaching BPF can take seconds; their loops poll a flag
 * (recorder_opts.cancel, bpfctl_opts.cancel) and give up with -EINTR,
 * cleaning up. While a guard is active, SIGINT and SIGTERM only set that
 * flag (to the signal number); a second one exits at once (status 130).
 *
 *	static volatile sig_atomic_t cancel;
 *	struct cancel_guard g;
 *
 *	// SIGINT/SIGTERM already blocked for the signalfd of the run
 *	cancel_guard__begin(&g, &cancel);       // now they set `cancel`
 *	ro.cancel = bo.cancel = &cancel;
 *	... recorder__new/__open, bpfctl__plan/__attach, sideband__start ...
 *	cancel_guard__end(&g);                  // mask and handlers as before
 *	if (cancel) -> "interrupted during set-up", exit 130
 *
 * A signal that arrives after __end() waits in the (blocked) signalfd as
 * before.
 */
#ifndef TRIGREC_CANCEL_H
#define TRIGREC_CANCEL_H
#include <signal.h>

struct cancel_guard {
	struct sigaction old_int, old_term;
	sigset_t old_mask;
	int active;
};

/* 0, or -errno (then nothing changed). */
int cancel_guard__begin(struct cancel_guard *g, volatile sig_atomic_t *flag);
/* Restore the signal mask, then the handlers. Safe to call twice. */
void cancel_guard__end(struct cancel_guard *g);

#endif
