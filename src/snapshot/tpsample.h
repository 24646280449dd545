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

#endif
