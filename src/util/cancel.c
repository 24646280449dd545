// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "util/cancel.h"

static volatile sig_atomic_t *cancel_flag;

static void on_signal(int sig)
{
	static const char msg[] = "trigrec: interrupted twice: exiting without cleaning up\n";

	if (*cancel_flag) {
		/* Only async-signal-safe calls here. */
		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
			_exit(130);
		_exit(130);
	}
	*cancel_flag = sig;
}

int cancel_guard__begin(struct cancel_guard *g, volatile sig_atomic_t *flag)
{
	struct sigaction sa;
	sigset_t both;

	memset(g, 0, sizeof(*g));
	cancel_flag = flag;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	/* Restart interrupted calls: the loops poll the flag, nothing else should see EINTR. */
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, &g->old_int))
		return -errno;
	if (sigaction(SIGTERM, &sa, &g->old_term)) {
		int err = -errno;

		sigaction(SIGINT, &g->old_int, NULL);
		return err;
	}
	sigemptyset(&both);
	sigaddset(&both, SIGINT);
	sigaddset(&both, SIGTERM);
	/* Signals already pending (blocked for a signalfd) are delivered now. */
	pthread_sigmask(SIG_UNBLOCK, &both, &g->old_mask);
	g->active = 1;
	return 0;
}

void cancel_guard__end(struct cancel_guard *g)
{
	if (!g->active)
		return;
	/* Mask first: a signal arriving in between stays pending, never hits SIG_DFL. */
	pthread_sigmask(SIG_SETMASK, &g->old_mask, NULL);
	sigaction(SIGTERM, &g->old_term, NULL);
	sigaction(SIGINT, &g->old_int, NULL);
	g->active = 0;
}
