/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Reading perf.data back (`trigrec show`). Made for trigrec's own snapshots
 * (docs/perf-data.md): every attr has PERF_SAMPLE_IDENTIFIER, tracepoint
 * formats come from TRACING_DATA, names from EVENT_DESC, and the data
 * section may be PERF_RECORD_COMPRESSED (zstd). perf's own files with those
 * properties (or a single attr) read too.
 */
#ifndef TRIGREC_PDREAD_H
#define TRIGREC_PDREAD_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/perf_event.h>
#include "capture/tracefs.h"

/*
 * The most CPUs Linux supports (NR_CPUS of x86's MAXSMP, arm64, powerpc): a
 * sample on a CPU at or above it is a damaged file, refused, so per-CPU
 * tables stay small.
 */
#define PDR_MAX_CPUS 8192

/*
 * The data section may decompress to at most this many times its size, plus
 * PDR_ZSTD_SLACK: perf's -z and trigrec's zstd reach 20-30 on real records;
 * more is a crafted file (a "zstd bomb"), refused.
 */
#define PDR_ZSTD_MAX_RATIO 256
#define PDR_ZSTD_SLACK (64u << 20)

struct pdr_attr {
	struct perf_event_attr attr; /* the file's attr (size as the file has it, at most ours) */
	uint64_t *ids;
	uint32_t nr_ids;
	char name[256]; /* EVENT_DESC, else "sys:name" from TRACING_DATA, else "attrN" */
	const struct tp_format *fmt; /* tracepoint format, or NULL */
};

/*
 * One record of the data section, decoded as far as show needs: 48 bytes,
 * one per record of a file that may hold millions (a sample's ip, which
 * only samples of non-tracepoint events print, is read back from the
 * record by pdr_sample_ip()).
 */
struct pdr_rec {
	const struct perf_event_header *hdr;
	const uint8_t *raw; /* SAMPLE with RAW: the tracepoint entry */
	uint64_t time;	    /* 0 when the record has none */
	int attr;	    /* index in attrs, -1: unknown id */
	uint32_t type;	    /* hdr->type, so a pass over the records need not touch the file */
	uint32_t pid, tid, cpu;
	uint32_t raw_size;
};

/* An id of the attrs' tables, to its attr (attr + 1; 0: a free slot). */
struct pdr_id {
	uint64_t id;
	int attr;
};

struct pdr_file {
	struct pdr_attr *attrs;
	int nr_attrs;
	/*
	 * In file order (trigrec writes them sorted); NULL: PDR_STREAM, or
	 * taken over by show (analyse() turns it into its records in place)
	 */
	struct pdr_rec *recs;
	size_t nr_recs;
	/*
	 * The data section the records are read from (in the file, or
	 * decompressed or realigned: then offsets count from data_base), as
	 * pdr_next() walks it.
	 */
	const uint8_t *data;
	size_t data_len;
	uint64_t data_base;
	uint64_t first_time, last_time;		      /* SAMPLE_TIME feature, 0 when absent */
	char hostname[128], osrelease[128], arch[32]; /* arch: uname -m of the host */
	int compressed; /* the data section held PERF_RECORD_COMPRESSED */
	/* private */
	void *map;
	size_t map_len;
	uint8_t *plain;	    /* decompressed data section */
	uint8_t *plain_old; /* PDR_STREAM: the realigned copy decompression replaced */
	struct tp_format **fmts;
	int nr_fmts;
	struct pdr_id *idtab; /* sample ids to attrs: open addressing, idmask + 1 slots */
	const uint8_t *sect;  /* the data section as the file has it */
	size_t sect_len;
	uint32_t idmask;
};

/*
 * PDR_STREAM: read the header, attrs, formats and names, and check the
 * data section's place, but build no index of its records (recs stays
 * NULL), nor scan them for compression: the caller walks them once with
 * pdr_next(). The file is mapped for a sequential read (and populated at
 * once when it is at most half of the free memory). `trigrec test` reads
 * this way.
 */
#define PDR_STREAM 1

/*
 * Read a whole file. NULL with the reason in err: the path, then what is
 * wrong and where (the file offset, or the offset in the decompressed data,
 * and the record type). Never reads outside the file, and memory is bounded
 * by its size: ids, records and decompressed data.
 */
struct pdr_file *pdr_open(const char *path, char *err, size_t errlen);
/* The same from memory (not copied; buf must outlive the result). */
struct pdr_file *pdr_open_mem(const void *buf, size_t len, char *err, size_t errlen);
struct pdr_file *pdr_open_flags(const char *path, int flags, char *err, size_t errlen);
struct pdr_file *pdr_open_mem_flags(const void *buf, size_t len, int flags, char *err,
				    size_t errlen);
void pdr_close(struct pdr_file *f);

/*
 * The next record of f's data section from *off (0 at the start), decoded
 * and checked as pdr_open() does (perf's own user records are passed
 * over): 1 with rec filled and *off past it, 0 at the end, or -errno with
 * err saying what is wrong and where (the offset in the file or the
 * decompressed data; the path is the caller's to add). rec points into f.
 * A compressed section is decompressed when its first compressed record
 * comes (the memory bound of pdr_open() holds).
 */
int pdr_next(struct pdr_file *f, size_t *off, struct pdr_rec *rec, char *err, size_t errlen);
/* A sample's PERF_SAMPLE_IP, read from the record (its attr, as decoded; 0: none). */
uint64_t pdr_sample_ip(const struct pdr_file *f, int attr, const struct perf_event_header *hdr);

/*
 * Make text from a file safe for a terminal, in place: control characters
 * (C0, DEL, C1 raw or UTF-8 encoded) and broken UTF-8 become '?', printable
 * UTF-8 stays. Every string `trigrec show` prints passes through it.
 */
void pdr_clean_text(char *s);

/* Parse a TRACING_DATA payload into formats (malloc'ed array in *out). Count or -errno. */
int pdr_tracing_formats(const uint8_t *p, size_t len, struct tp_format ***out);

/*
 * A tracepoint field's value as text, perf-like but plain: integers in
 * decimal, pointers in hex (0x...), char arrays and __data_loc strings as
 * text (not quoted), other arrays as [a, b]. Into buf (always terminated).
 */
void pdr_field_str(const struct tp_field *fl, const uint8_t *raw, uint32_t raw_size, char *buf,
		   size_t len);
/* Every non-common field, "name=value name=value". */
void pdr_fields_str(const struct tp_format *fmt, const uint8_t *raw, uint32_t raw_size, char *buf,
		    size_t len);
/* A field's integer value (0 when absent or not an integer). */
int pdr_field_int(const struct tp_format *fmt, const uint8_t *raw, uint32_t raw_size,
		  const char *name, int64_t *out);
/* The same, of a field already looked up (fl may be NULL: -ENOENT). */
int pdr_fl_int(const struct tp_field *fl, const uint8_t *raw, uint32_t raw_size, int64_t *out);

#endif
