// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Dynamic probes for the trigger compiler: the one place a script or a
 * `--trigger` creates kernel probes (see events.h).
 */
#include "capture/probes.h"
#include "script/events.h"

static int probe_glob(void *ctx, const char *pattern, struct tp_name **out)
{
	(void)ctx;
	return probes__glob(pattern, out);
}

static int probe_resolve(void *ctx, const char *name, struct tp_name **out, const char **why)
{
	int n;

	(void)ctx;
	n = probes__resolve(name, out);
	*why = n < 0 ? probes__error() : NULL;
	return n;
}

static int read_only;

void script_events_read_only(int on)
{
	read_only = on;
}

const struct trig_events *script_events(void)
{
	static struct trig_events ev;
	const struct trig_events *d = trig_events_default();

	if (d->probes_as_tracepoints || read_only)
		return d;
	ev = *d;
	ev.glob = probe_glob;
	ev.resolve_probe = probe_resolve;
	return &ev;
}
