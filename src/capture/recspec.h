/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What a run asks the recorder for, as the config holds it: the -e/--filter
 * pairs and who writes the rings. Apart from recorder.h so that the config
 * (session/config.h) names them without pulling in the recorder and the
 * perf.data writer behind it.
 */
#ifndef TRIGREC_RECSPEC_H
#define TRIGREC_RECSPEC_H

struct rec_event_spec {
	const char *spec;   /* one -e argument (comma list allowed) */
	const char *filter; /* --filter that followed it, or NULL */
};

/* --rings / `rings` (recorder_opts.rings says what each means). */
enum { REC_RINGS_AUTO = 0, REC_RINGS_BPF, REC_RINGS_PERF, REC_RINGS_COMPACT };
const char *rec_rings_name(int mode);

#endif
