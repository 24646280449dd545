/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Tracepoint samples as the kernel writes them for trigrec (IDENTIFIER |
 * [IP] | TIME | [CALLCHAIN] | RAW) and as the file presents them, with the
 * TID and CPU the kernel was spared (REC_TP_FILE_EXTRA): ~95 ns less per
 * recorded event, completed off the hot path by the snapshot writer.
 */
#ifndef TRIGREC_TPSAMPLE_H
#define TRIGREC_TPSAMPLE_H
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include "capture/tracefs.h"
#include "trigrec_abi.h"

/* The IDENTIFIER of a record: first u64 of a sample, last of any other record. */
uint64_t rec_id(const struct perf_event_header *h);

/* Where RAW (u32 size, then the trace entry) starts in a kernel sample, or NULL. */
const uint8_t *tp_raw(const struct perf_event_header *h, uint64_t sample_type);

/*
 * Write the file form of record h (kernel sample_type st, which must be
 * IDENTIFIER|TIME|RAW plus optionally IP and CALLCHAIN) into out: samples
 * get TID {pid, tid} after IP and CPU {cpu, 0} after TIME; other records
 * (LOST) get the trailer TID {0, 0}, TIME, CPU, IDENTIFIER in place of the
 * kernel's TIME, IDENTIFIER. Returns the new size, -ENOSPC when cap is too
 * small, -EINVAL for a malformed record.
 */
int tp_complete(const struct perf_event_header *h, uint64_t st, uint32_t pid, uint32_t tid,
		uint32_t cpu, void *out, size_t cap);

/* The sample type of a trigger's own record rebuilt from its message, as the file presents it. */
#define TP_MSG_SAMPLE_TYPE                                                               \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
	 PERF_SAMPLE_RAW)

/*
 * A trigger on an event nothing records: its own record, rebuilt from the
 * side-band message, in the file form of TP_MSG_SAMPLE_TYPE: IDENTIFIER id,
 * TID {m->pid, m->tid}, TIME m->time_ns (the firing), CPU {m->cpu, 0},
 * RAW (the record of format fmt: its fixed part, then its __data_loc
 * strings as far as the message holds them; a string the message cut
 * keeps what it holds and ends in NUL). The RAW size is padded as the
 * kernel pads it. Returns the size written to out, -E2BIG when the message
 * does not hold the record's fixed part, -EINVAL for a format that is not
 * a tracepoint record's, -ENOSPC when cap is too small.
 */
int tp_msg_sample(const struct tp_format *fmt, const struct trigrec_trigger_msg *m, uint64_t id,
		  void *out, size_t cap);

#endif
