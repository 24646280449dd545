// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>
#include "snapshot/tpsample.h"

uint64_t rec_id(const struct perf_event_header *h)
{
	uint64_t id;

	if (h->type == PERF_RECORD_SAMPLE)
		memcpy(&id, h + 1, 8);
	else
		memcpy(&id, (const uint8_t *)h + h->size - 8, 8);
	return id;
}

const uint8_t *tp_raw(const struct perf_event_header *h, uint64_t st)
{
	const uint8_t *p = (const uint8_t *)(h + 1), *end = (const uint8_t *)h + h->size;

	p += 8; /* IDENTIFIER */
	if (st & PERF_SAMPLE_IP)
		p += 8;
	p += 8; /* TIME */
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr;

		if (p + 8 > end)
			return NULL;
		memcpy(&nr, p, 8);
		if (nr > (uint64_t)(end - p) / 8)
			return NULL;
		p += 8 + nr * 8;
	}
	/* RAW size, and at least the common fields (common_pid at +4). */
	if (p + 4 + 8 > end)
		return NULL;
	return p;
}

int tp_complete(const struct perf_event_header *h, uint64_t st, uint32_t pid, uint32_t tid,
		uint32_t cpu, void *out, size_t cap)
{
	const uint8_t *in = (const uint8_t *)h;
	uint8_t *buf = out;
	struct perf_event_header *oh = out;
	uint32_t tidpid[2] = { pid, tid }, cpures[2] = { cpu, 0 };
	size_t o = sizeof(*oh), i = sizeof(*oh), size = h->size;

	if (size + 16 > 0xffff)
		return -EINVAL;
	if (size + 16 > cap)
		return -ENOSPC;
	*oh = *h;
	oh->size += 16;
	if (h->type == PERF_RECORD_SAMPLE) {
		size_t head = 8 + ((st & PERF_SAMPLE_IP) ? 8 : 0);

		if (size < i + head + 8)
			return -EINVAL;
		memcpy(buf + o, in + i, head); /* IDENTIFIER, IP */
		o += head, i += head;
		memcpy(buf + o, tidpid, 8); /* TID */
		o += 8;
		memcpy(buf + o, in + i, 8); /* TIME */
		o += 8, i += 8;
		memcpy(buf + o, cpures, 8); /* CPU */
		o += 8;
		memcpy(buf + o, in + i, size - i); /* CALLCHAIN, RAW */
	} else {
		/* The kernel's trailer is TIME, IDENTIFIER: the last 16 bytes. */
		size_t body;

		if (size < i + 16)
			return -EINVAL;
		body = size - 16;
		memcpy(buf + o, in + i, body - i);
		o += body - i;
		memset(tidpid, 0, sizeof(tidpid));
		memcpy(buf + o, tidpid, 8);
		memcpy(buf + o + 8, in + body, 8); /* TIME */
		memcpy(buf + o + 16, cpures, 8);
		memcpy(buf + o + 24, in + body + 8, 8); /* IDENTIFIER */
	}
	return oh->size;
}
