/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Reading overwritable (write_backward) perf rings.
 *
 * Inside the freeze window we only memcpy: ring_copy_linear() lays the valid
 * bytes of a ring out newest-first in a flat buffer. Outside it,
 * ring_walk() splits that buffer into records.
 */
#ifndef TRIGREC_RING_READER_H
#define TRIGREC_RING_READER_H
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/*
 * Copy the valid part of a backward ring into out (capacity >= size).
 *   data:  the ring's data area (base + pc->data_offset), size bytes (power of two)
 *   head:  data_head as loaded (acquire) after PAUSE_OUTPUT
 * The bytes at out[0..ret) are the ring from head onward (newest record first),
 * unwrapped: min(bytes ever written (= -head), size) bytes. Returns that length.
 */
size_t ring_copy_linear(const void *data, uint64_t size, uint64_t head, void *out);

/*
 * Same, but only the bytes written since an earlier harvest whose head was
 * prev (ring_copy_linear() is prev = 0): min(prev - head, size) bytes.
 * Lets a later snapshot skip records an earlier one already took.
 */
size_t ring_copy_range(const void *data, uint64_t size, uint64_t head, uint64_t prev, void *out);

/*
 * After copying, a writer on another CPU may still have moved head (pause does
 * not wait for a write in flight). Given the head re-read after the copy,
 * shrink len so that bytes the writer may have overwritten (the oldest end of
 * the copy) are discarded. Returns the new length.
 */
size_t ring_discard_moved(size_t len, uint64_t size, uint64_t head_before, uint64_t head_after);

/*
 * Walk the records of a linear copy newest to oldest. Stops at a header with
 * size 0 (never written), a size < 8 or not a multiple of 8 (torn), or a record
 * that would cross len (oldest, partly overwritten). fn returns 0 to continue,
 * non-zero to stop (returned). Returns 0 when the walk ends normally.
 * *used (optional) receives the bytes covered by whole records.
 */
typedef int (*ring_record_fn)(const struct perf_event_header *rec, void *ctx);
int ring_walk(const void *buf, size_t len, ring_record_fn fn, void *ctx, size_t *used);

#endif
