/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One recorded event as a perf.data file describes it (struct pd_event):
 * recorder__open() fills it for each event it opens, snapshot/perfdata.c
 * writes it into each file's attrs and decodes records by it.
 */
#ifndef TRIGREC_PDEVENT_H
#define TRIGREC_PDEVENT_H
#include <stdint.h>
#include <linux/perf_event.h>

/* An attr as it will appear in the file, with the kernel ids of its fds. */
struct pd_event {
	struct perf_event_attr attr; /* attr.size is forced to 128 when written */
	char name[160];		     /* "sched:sched_switch", "cpu-clock", "dummy:tracking" */
	uint64_t *ids;		     /* PERF_EVENT_IOC_ID of every fd of this event */
	uint32_t nr_ids;
	/* For tracepoints: system and name, to put their format in TRACING_DATA. */
	char tp_sys[64];
	char tp_name[128];
};

#endif
