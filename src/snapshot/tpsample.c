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

int tp_msg_sample(const struct tp_format *fmt, const struct trigrec_trigger_msg *m, uint64_t id,
		  void *out, size_t cap)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE,
				       .misc = PERF_RECORD_MISC_KERNEL };
	uint8_t rec[TRIGREC_TRIGGER_DATA + 8] = { 0 };
	uint32_t have = m->data_size < TRIGREC_TRIGGER_DATA ? m->data_size : TRIGREC_TRIGGER_DATA;
	uint32_t len, raw, tidpid[2] = { m->pid, m->tid }, cpures[2] = { m->cpu, 0 };
	uint64_t time = m->time_ns;
	uint8_t *b = out;
	size_t o = sizeof(h), size;

	if (!fmt || fmt->fixed_size < 8)
		return -EINVAL;
	len = fmt->fixed_size;
	if (len > have)
		return -E2BIG;
	memcpy(rec, m->data, have);
	/* The strings: each ends where its __data_loc says, within what the message holds. */
	for (int i = 0; i < fmt->nr_fields; i++) {
		const struct tp_field *fl = &fmt->fields[i];
		uint32_t loc, off, l;

		if (fl->kind != TP_FIELD_DATALOC || fl->size != 4 || fl->offset + 4 > len)
			continue;
		memcpy(&loc, rec + fl->offset, 4);
		off = loc & 0xffff;
		l = loc >> 16;
		if (off > have)
			off = have;
		if (l > have - off) {
			l = have - off;
			if (l)
				rec[off + l - 1] = 0;
		}
		loc = l << 16 | off;
		memcpy(rec + fl->offset, &loc, 4);
		if (l && off + l > len)
			len = off + l;
	}
	/* As perf_prepare_sample(): the size word and the record end on 8 bytes. */
	raw = ((len + 4 + 7) & ~7u) - 4;
	size = sizeof(h) + 8 * 4 + 4 + raw;
	if (size > cap)
		return -ENOSPC;
	h.size = (uint16_t)size;
	memcpy(b, &h, sizeof(h));
	memcpy(b + o, &id, 8);
	memcpy(b + o + 8, tidpid, 8);
	memcpy(b + o + 16, &time, 8);
	memcpy(b + o + 24, cpures, 8);
	memcpy(b + o + 32, &raw, 4);
	memset(b + o + 36, 0, raw);
	memcpy(b + o + 36, rec, len);
	return (int)size;
}
