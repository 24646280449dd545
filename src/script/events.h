/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The event lookup scripts and `--trigger` compile with: lang/'s default
 * (tracefs, or the formats of trig_set_formats()) plus dynamic probes,
 * created here, explicitly. lang/ only reads; this is where a trigger or a
 * `record` line naming kprobe:, uprobe: or usdt: writes
 * kprobe_events/uprobe_events (capture/probes.c's probes__resolve()).
 */
#ifndef TRIGREC_SCRIPT_EVENTS_H
#define TRIGREC_SCRIPT_EVENTS_H
#include "lang/trigger_lang.h"

/*
 * The default's lookups, with resolve_probe and a glob that resolves probe
 * names; the default itself while it is a recording's formats
 * (probes_as_tracepoints: no kernel to create probes on). Valid until the
 * next call; not thread-safe, as trig_set_formats().
 */
const struct trig_events *script_events(void);

/*
 * 1: script_events() creates no probe either (lang/'s default alone: a
 * probe name is an error). `trigrec test` checks a script against this
 * host's tracepoints that way, to name an event its files did not record,
 * without writing uprobe_events from a command that only reads files.
 */
void script_events_read_only(int on);

#endif
