// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rings=compact: decoding the byte rings BPF programs write themselves
 * (encoding in include/trigrec_abi.h), and a reference encoder that writes
 * what bpf/records.bpf.h's cr_body() writes.
 *
 * Reading a ring: positions run from 0 up (the low 40 bits of its head);
 * position p lives in segment (p >> seg_shift) % nseg at p % 2^seg_shift,
 * and a record that starts before a segment's end runs on into the
 * segment's slack. The copy holds positions [head - ring size, head); the
 * decoder starts at each whole block whose header names that block's
 * position (the crossing record wrote it: where its first record starts,
 * its number and the time the next record's time is relative to) and
 * walks records to the end of the block. A record still being written
 * (length 0) ends its block; the next block starts again from its header.
 */
#include <errno.h>
#include <string.h>
#include "snapshot/compact.h"
#include "trigrec_abi.h"

#define CR_TAIL_MAX (TRIGREC_CR_SLACK - 160) /* header, tags, size, time, pid, words: < 160 */

size_t cr_elem_size(uint32_t seg_shift)
{
	return TRIGREC_CR_ELEM((size_t)1 << seg_shift);
}

struct cr_layout cr_layout_of(uint32_t seg_shift, uint32_t nseg)
{
	struct cr_layout l = { .seg_shift = seg_shift,
			       .nseg = nseg,
			       .elem = cr_elem_size(seg_shift) };

	return l;
}

static inline uint8_t *at(const void *ring, const struct cr_layout *l, uint64_t pos)
{
	uint64_t seg = (pos >> l->seg_shift) & (l->nseg - 1);

	return (uint8_t *)ring + seg * l->elem + (pos & (((uint64_t)1 << l->seg_shift) - 1));
}

static inline struct trigrec_cblk *blk_at(const void *ring, const struct cr_layout *l, uint64_t pos)
{
	uint64_t seg = (pos >> l->seg_shift) & (l->nseg - 1), s = (uint64_t)1 << l->seg_shift;

	return (struct trigrec_cblk *)((uint8_t *)ring + seg * l->elem + s + TRIGREC_CR_SLACK +
				       TRIGREC_CR_GUARD +
				       ((pos & (s - 1)) / TRIGREC_CR_BLOCK) *
					       sizeof(struct trigrec_cblk));
}

/*
 * Width code of a word: 0, 1, 3 or 8 bytes (0-3), as cr_body() computes it
 * without a branch. 0 costs nothing (padding, flags, a return of 0), and
 * 3 bytes hold a pid, a size or a number up to 2^24.
 */
static inline uint32_t wcode(uint64_t v)
{
	return !!v + !!(v >> 8) + !!(v >> 24);
}

static const uint8_t ww[4] = { 0, 1, 3, 8 };

/* Width code of a pid: 1, 2 or 4 bytes (0-2); 3 is TRIGREC_CR_SAME_PID. */
static inline uint32_t pcode(uint64_t v)
{
	return !!(v >> 8) + !!(v >> 16) + !!(v >> 32);
}

static const uint8_t tw[4] = { 3, 4, 5, 8 };

/* A signed word, zigzagged: 0, -1, 1, -2 ... as 0, 1, 2, 3 ... */
static inline uint64_t zig(uint64_t v)
{
	return (v << 1) ^ (uint64_t)((int64_t)v >> 63);
}

static inline uint64_t unzig(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

static inline uint32_t tcode(uint64_t now, uint64_t last)
{
	uint64_t ad = now > last ? now - last : last - now;

	if (!last)
		return 3;
	return ad < (1ull << 22) ? 0 : ad < (1ull << 30) ? 1 : ad < (1ull << 38) ? 2 : 3;
}

static inline uint64_t get_le(const uint8_t *p, uint32_t n)
{
	uint64_t v = 0;

	for (uint32_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static inline void put_le(uint8_t *p, uint64_t v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t nwords(uint32_t size)
{
	uint32_t n = size > 8 ? (size - 8 + 7) / 8 : 0;

	return n < TRIGREC_CR_WORDS ? n : TRIGREC_CR_WORDS;
}

uint32_t cr_put(void *ring, const struct cr_layout *l, struct cr_writer *wr, uint32_t ev,
		const uint8_t *rec, uint32_t size, const struct cr_event *ce, uint64_t now)
{
	uint8_t codes[2 + TRIGREC_CR_WORDS], *d;
	uint64_t w[TRIGREC_CR_WORDS], pid, old, pos, e;
	uint32_t nw, tail, len, ntag, o, seq, fixed = ce->fixed;
	int longf, sized, same;

	if (size < 8 || ev >= TRIGREC_CR_MAX_EVS)
		return 0;
	nw = nwords(size);
	tail = size > 8 + 8 * nw ? size - 8 - 8 * nw : 0;
	if (tail > CR_TAIL_MAX) {
		size -= tail - CR_TAIL_MAX;
		tail = CR_TAIL_MAX;
	}
	sized = size != fixed;
	pid = get_le(rec + 4, 4);
	same = !wr->keep_pid && wr->pid == pid + 1 &&
	       pid < (1u << 24); /* the block header's 24 bits */
	codes[0] = (uint8_t)tcode(now, wr->last);
	codes[1] = (uint8_t)(same ? TRIGREC_CR_SAME_PID : pcode(pid));
	len = 2 + (sized ? 2 : 0) + tw[codes[0]] + (same ? 0 : 1u << codes[1]) + tail;
	for (uint32_t i = 0; i < nw; i++) {
		uint32_t n = size - 8 - 8 * i;

		w[i] = (ce->skip >> i) & 1 ? 0 : get_le(rec + 8 + 8 * i, n < 8 ? n : 8);
		if ((ce->zz >> i) & 1)
			w[i] = zig(w[i]);
		codes[2 + i] = (uint8_t)wcode(w[i]);
		len += ww[codes[2 + i]];
	}
	ntag = (2 + nw + 3) / 4;
	len += ntag;
	longf = len > 254;
	if (longf)
		len += 2;
	old = wr->head;
	wr->head += len | (1ull << TRIGREC_CR_POS_BITS);
	pos = old & TRIGREC_CR_POS_MASK;
	seq = (uint32_t)(old >> TRIGREC_CR_POS_BITS);
	d = at(ring, l, pos);
	memset(d, 0, len);
	d[1] = (uint8_t)(ev | (sized ? 0x80 : 0));
	o = 2;
	if (longf) {
		put_le(d + o, len, 2);
		o += 2;
	}
	if (sized) {
		put_le(d + o, size, 2);
		o += 2;
	}
	for (uint32_t i = 0; i < 2 + nw; i++)
		d[o + i / 4] |= (uint8_t)(codes[i] << (2 * (i % 4)));
	o += ntag;
	put_le(d + o, now, tw[codes[0]]);
	o += tw[codes[0]];
	if (!same) {
		put_le(d + o, pid, 1u << codes[1]);
		o += 1u << codes[1];
	}
	for (uint32_t i = 0; i < nw; i++) {
		put_le(d + o, w[i], ww[codes[2 + i]]);
		o += ww[codes[2 + i]];
	}
	memcpy(d + o, rec + 8 + 8 * nw, tail);
	wr->last = now;
	wr->pid = (uint32_t)pid + 1;
	/* The block this record crosses into (or the ring's first) gets its header. */
	e = pos + len;
	if (pos == 0 || (pos / TRIGREC_CR_BLOCK) != (e / TRIGREC_CR_BLOCK)) {
		uint64_t b = pos == 0 ? 0 : e & ~(uint64_t)(TRIGREC_CR_BLOCK - 1);
		struct trigrec_cblk *k = blk_at(ring, l, b);

		k->base = now;
		k->seq = pos == 0 ? seq : seq + 1;
		k->first = (uint16_t)(pos == 0 ? 0 : e - b);
		k->pos = (b & TRIGREC_CR_POS_MASK) | (pid & 0xffffff) << TRIGREC_CR_POS_BITS;
		/* A record crossing two blocks (longer than a block) cannot happen: len <= 512. */
	}
	d[0] = longf ? 255 : (uint8_t)len;
	return len;
}

/* One record at d (avail bytes readable): its length, or 0 if it does not decode. */
static uint32_t decode_one(const uint8_t *d, uint32_t avail, uint64_t *prev, uint32_t *prevpid,
			   uint32_t *ev_out, const struct cr_event *evs, uint32_t nev, uint8_t *out,
			   uint32_t *size_out)
{
	uint32_t len = d[0], o = 2, ev, size, nw, ntag, code, w, tail, to, pid;
	uint64_t v, t;

	if (avail < 3)
		return 0;
	ev = d[1] & 0x7f;
	if (ev >= nev)
		return 0;
	if (len == 255) {
		len = (uint32_t)get_le(d + 2, 2);
		o = 4;
	}
	if (len < 4 || len > avail || len > TRIGREC_CR_SLACK)
		return 0;
	size = evs[ev].fixed;
	if (d[1] & 0x80) {
		if (o + 2 > len)
			return 0;
		size = (uint32_t)get_le(d + o, 2);
		o += 2;
	}
	if (size < 8 || size > TRIGREC_MAX_RECORD)
		return 0;
	nw = nwords(size);
	ntag = (2 + nw + 3) / 4;
	to = o;
	o += ntag;
	if (o > len)
		return 0;
#define CODE(i) ((d[to + (i) / 4] >> (2 * ((i) % 4))) & 3)
	code = CODE(0);
	if (o + tw[code] > len)
		return 0;
	v = get_le(d + o, tw[code]);
	o += tw[code];
	if (code == 3) {
		t = v;
	} else {
		uint32_t k = 8 * tw[code];
		uint64_t m = ((uint64_t)1 << k) - 1, diff = (v - *prev) & m;

		t = diff >= ((uint64_t)1 << (k - 1)) ? *prev - (((uint64_t)1 << k) - diff) :
						       *prev + diff;
	}
	memset(out, 0, (size + 7) & ~7u);
	put_le(out, evs[ev].tp_id, 2);
	if (CODE(1) == TRIGREC_CR_SAME_PID) {
		pid = *prevpid; /* the previous record's */
	} else {
		w = 1u << CODE(1);
		if (o + w > len)
			return 0;
		pid = (uint32_t)get_le(d + o, w);
		o += w;
	}
	put_le(out + 4, pid, 4);
	for (uint32_t i = 0; i < nw; i++) {
		uint32_t n = size - 8 - 8 * i;

		if ((evs[ev].skip >> i) & 1)
			continue; /* not written: 0, filled in later */
		w = ww[CODE(2 + i)];
		if (o + w > len)
			return 0;
		v = get_le(d + o, w);
		o += w;
		if ((evs[ev].zz >> i) & 1)
			v = unzig(v);
		put_le(out + 8 + 8 * i, v, n < 8 ? n : 8);
	}
#undef CODE
	tail = size > 8 + 8 * nw ? size - 8 - 8 * nw : 0;
	if (o + tail != len)
		return 0;
	memcpy(out + 8 + 8 * nw, d + o, tail);
	*prev = t;
	*prevpid = pid;
	*ev_out = ev;
	*size_out = size;
	return len;
}

int cr_decode(const void *ring, const struct cr_layout *l, uint64_t head_before,
	      uint64_t head_after, const struct cr_event *evs, uint32_t nev, cr_rec_fn fn,
	      void *ctx, struct cr_stats *st)
{
	uint64_t hi = head_before & TRIGREC_CR_POS_MASK, ha = head_after & TRIGREC_CR_POS_MASK;
	uint64_t rsize = (uint64_t)l->nseg << l->seg_shift, lo = ha > rsize ? ha - rsize : 0;
	uint8_t out[TRIGREC_MAX_RECORD + 8];

	if (!l->nseg || (l->nseg & (l->nseg - 1)) || l->seg_shift < 12 || l->seg_shift > 30 ||
	    ha < hi)
		return -EINVAL;
	lo = (lo + TRIGREC_CR_BLOCK - 1) & ~(uint64_t)(TRIGREC_CR_BLOCK - 1);
	for (uint64_t b = lo; b < hi; b += TRIGREC_CR_BLOCK) {
		const struct trigrec_cblk *k = blk_at(ring, l, b);
		uint64_t p, prev, end = b + TRIGREC_CR_BLOCK;
		uint32_t seq, prevpid;

		if ((k->pos & TRIGREC_CR_POS_MASK) != b || k->first >= TRIGREC_CR_BLOCK) {
			st->bad_blocks++;
			continue;
		}
		p = b + k->first;
		seq = k->seq;
		prev = k->base;
		prevpid = (uint32_t)(k->pos >> TRIGREC_CR_POS_BITS);
		while (p < end && p < hi) {
			const uint8_t *d = at(ring, l, p);
			uint32_t ev, size, len;
			uint64_t t;
			int ret;

			if (!d[0]) {
				st->torn++;
				break;
			}
			len = decode_one(
				d,
				(uint32_t)(hi - p < TRIGREC_CR_SLACK ? hi - p : TRIGREC_CR_SLACK),
				&prev, &prevpid, &ev, evs, nev, out, &size);
			if (!len) {
				st->bad++;
				break;
			}
			t = prev;
			ret = fn(ctx, seq & 0xffffff, t, ev, out, size, d);
			if (ret)
				return ret;
			st->records++;
			seq++;
			p += len;
		}
	}
	return 0;
}

uint32_t cr_decode_at(const uint8_t *src, uint32_t pid, const struct cr_event *evs, uint32_t nev,
		      uint8_t *out, uint32_t *ev, uint32_t *size)
{
	uint64_t prev = 0; /* the time is not wanted: the caller has it */

	/* It decoded with at most TRIGREC_CR_SLACK bytes readable, and reads only its own. */
	return decode_one(src, TRIGREC_CR_SLACK, &prev, &pid, ev, evs, nev, out, size);
}
