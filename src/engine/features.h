/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What trigrec's BPF side needs from the running kernel, probed before the
 * object is loaded, so that an old kernel is refused with the names of the
 * missing features and the first Linux release that has each, instead of a
 * verifier log.
 */
#ifndef TRIGREC_FEATURES_H
#define TRIGREC_FEATURES_H
#include <stddef.h>

enum feature_state { FEATURE_MISSING = 0, FEATURE_PRESENT = 1, FEATURE_UNKNOWN = -1 };

struct feature {
	const char *name;   /* what is missing, as the message says it */
	const char *since;  /* first mainline release that has it, "5.17" */
	const char *why;    /* what trigrec uses it for */
	int (*probe)(void); /* FEATURE_* */
};

/* The table, in the order the probes run (oldest first); *n gets its length. */
const struct feature *features__table(int *n);

/*
 * Probe every feature. 0 when all are there (or could not be told: the load
 * then reports what failed); -ENOTSUP after an elog() that names each missing
 * feature with its first release, the running kernel's release, and what to
 * do. -v logs each result.
 */
int features__check(void);

#endif
