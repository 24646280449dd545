/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rings=compact: the byte rings BPF programs write themselves (the layout
 * and encoding are in include/trigrec_abi.h, above trigrec_cblk). The
 * decoder turns a copy of a ring back into the tracepoint records they
 * were made from; the encoder writes records the way bpf/records.bpf.h
 * does (cr_body()), for the tests and the fuzzer.
 */
#ifndef TRIGREC_COMPACT_H
#define TRIGREC_COMPACT_H
#include <stddef.h>
#include <stdint.h>

/* One ring of one CPU: nseg segments of 2^seg_shift bytes, elem bytes apart. */
struct cr_layout {
	uint32_t seg_shift;
	uint32_t nseg;
	size_t elem;
};

/* Bytes of one map element (a segment, its slack and its block headers), 8-aligned. */
size_t cr_elem_size(uint32_t seg_shift);
/* The layout of a ring of nseg segments of 2^seg_shift bytes. */
struct cr_layout cr_layout_of(uint32_t seg_shift, uint32_t nseg);

/* What the decoder knows of each event: its format's fixed size and id, the words left out. */
struct cr_event {
	uint32_t fixed;
	uint16_t tp_id;
	uint16_t skip; /* hook_cfg.cr_skip: bit i, word i (record bytes 8 + 8i) is not written */
	uint8_t zz;    /* hook_cfg.cr_zz: bit i, word i is one signed field, zigzagged */
};

/*
 * A record, rebuilt: common fields (type, flags and preempt_count 0, pid),
 * then the rest; src is where its encoding lies in the ring copy, for
 * cr_decode_at().
 */
typedef int (*cr_rec_fn)(void *ctx, uint32_t seq, uint64_t time, uint32_t ev, const uint8_t *rec,
			 uint32_t size, const uint8_t *src);

struct cr_stats {
	uint64_t records;    /* decoded */
	uint64_t torn;	     /* blocks that end in a record still being written */
	uint64_t bad_blocks; /* blocks whose header is not theirs (overwritten) */
	uint64_t bad;	     /* records that do not decode (the rest of their block skipped) */
};

/*
 * Walk the records of a ring copy (the ring's bytes as the layout says)
 * whose head read head_before before the copy and head_after after it,
 * oldest first: every record in an intact block between head_after - ring
 * size and head_before. fn's non-zero return stops the walk and is
 * returned. 0 or that.
 */
int cr_decode(const void *ring, const struct cr_layout *l, uint64_t head_before,
	      uint64_t head_after, const struct cr_event *evs, uint32_t nev, cr_rec_fn fn,
	      void *ctx, struct cr_stats *st);

/*
 * The record whose encoding cr_decode() found at src once more, into out
 * (TRIGREC_MAX_RECORD + 8 bytes, zero-padded to 8), given its pid (a record
 * may say "the previous record's pid"): its event in *ev, its size in *size.
 * The encoding's length, or 0 if it does not decode.
 */
uint32_t cr_decode_at(const uint8_t *src, uint32_t pid, const struct cr_event *evs, uint32_t nev,
		      uint8_t *out, uint32_t *ev, uint32_t *size);

/* A ring's writer state, as rec_cpu holds it for BPF. Zeroed to start. */
struct cr_writer {
	uint64_t head; /* bytes (low 40 bits) and records (high 24) */
	uint64_t last; /* the latest record's time */
	uint32_t pid;  /* the latest record's pid + 1 (0: none) */
	int keep_pid;  /* write every record's pid (cr_same_pid 0: a PREEMPT_RT kernel) */
};

/*
 * Write one record as the BPF programs do: rec (size bytes, common fields
 * first) of event ev (e: its format's fixed part, the words left out),
 * stamped now, into ring at w->head. Returns the record's length, or 0
 * when it does not fit a record (TRIGREC_CR_SLACK).
 */
uint32_t cr_put(void *ring, const struct cr_layout *l, struct cr_writer *w, uint32_t ev,
		const uint8_t *rec, uint32_t size, const struct cr_event *e, uint64_t now);

#endif
