/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Thread names for synthesized COMM records. Threads that exit before a
 * snapshot keep the name seen by an earlier scan of /proc; threads born and
 * renamed later are covered by the tracking ring's own COMM records.
 */
#ifndef TRIGREC_PROCS_H
#define TRIGREC_PROCS_H
#include <stdint.h>

struct proc_ent {
	uint32_t tid, pid; /* pid 0: the thread was gone when looked up */
	char comm[16];
	int used; /* scratch: seen in the snapshot being written */
};

struct procs {
	struct proc_ent *tab; /* open addressing, key tid (0 = empty) */
	uint32_t cap, n;
};

int procs__scan(struct procs *p);			    /* add/refresh every live thread */
struct proc_ent *procs__get(struct procs *p, uint32_t tid); /* cached, else read /proc now */
/* Remember tid -> pid from a FORK/COMM/EXIT record (name unknown) when not known yet. */
void procs__note(struct procs *p, uint32_t pid, uint32_t tid);
/* Thread tid (of process pid; tid, tid works too) as /proc names it now, NUL-terminated: 0 or -errno. */
int procs__read_comm(uint32_t pid, uint32_t tid, char *comm);
void procs__clear_used(struct procs *p);
void procs__free(struct procs *p);

#endif
