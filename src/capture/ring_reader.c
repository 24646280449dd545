// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reading overwritable (write_backward) perf rings.
 *
 * The kernel writes such a ring downward: data_head starts at 0 and
 * decreases by each record's size, the record lands at
 * [new_head, new_head + size) modulo the ring size, and -data_head is the
 * number of bytes ever written. So from data_head upward we meet the newest
 * record first and older ones after it. Positions are free-running u64s:
 * only their differences mean anything.
 */
#include <string.h>
#include "capture/ring_reader.h"

size_t ring_copy_range(const void *data, uint64_t size, uint64_t head, uint64_t prev, void *out)
{
	const unsigned char *src = data;
	unsigned char *dst = out;
	uint64_t avail = prev - head; /* bytes written since prev, wraps safely */
	uint64_t off, first;

	if (!size || (size & (size - 1)))
		return 0;
	if (avail > size)
		avail = size;
	if (!avail)
		return 0;
	off = head & (size - 1);
	/* The newest record may start near the end and continue at offset 0. */
	first = size - off;
	if (first > avail)
		first = avail;
	memcpy(dst, src + off, first);
	if (avail > first)
		memcpy(dst + first, src, avail - first);
	return avail;
}

size_t ring_copy_linear(const void *data, uint64_t size, uint64_t head, void *out)
{
	return ring_copy_range(data, size, head, 0, out);
}

size_t ring_discard_moved(size_t len, uint64_t size, uint64_t head_before, uint64_t head_after)
{
	uint64_t moved = head_before - head_after;

	/*
	 * The writer went on downward, so what it wrote since the copy covers
	 * the last `moved` bytes of the ring as seen from head_before: the
	 * oldest end of our copy.
	 */
	if (!moved)
		return len;
	if (moved >= size)
		return 0;
	if (len > size - moved)
		len = size - moved;
	return len;
}

int ring_walk(const void *buf, size_t len, ring_record_fn fn, void *ctx, size_t *used)
{
	const unsigned char *p = buf;
	size_t pos = 0;
	int ret = 0;

	while (len - pos >= sizeof(struct perf_event_header)) {
		const struct perf_event_header *h = (const void *)(p + pos);

		/* size 0: never written (ring not full); odd sizes: torn bytes */
		if (h->size < sizeof(*h) || (h->size & 7))
			break;
		if (h->size > len - pos)
			break; /* the oldest record, partly overwritten */
		ret = fn(h, ctx);
		if (ret)
			break;
		pos += h->size;
	}
	if (used)
		*used = pos;
	return ret;
}
