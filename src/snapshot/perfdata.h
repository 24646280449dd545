/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * perf.data: decoding the records trigrec keeps, and writing files that
 * stock perf (6.1+) reads. Format notes: docs/perf-data.md.
 */
#ifndef TRIGREC_PERFDATA_H
#define TRIGREC_PERFDATA_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/perf_event.h>
#include "capture/pdevent.h" /* struct pd_event */

/* ---- decoding records by the attr their id belongs to ---- */

/* What trigrec needs to know of any record (sample or not). */
struct pd_rec_info {
	int event; /* index into the pd_event array, -1 when the id is unknown */
	uint64_t id;
	uint64_t time; /* 0 when the record carries none */
	uint32_t pid, tid;
	uint32_t cpu;
	int has_time;
};

/* Fast id -> event lookup. */
struct pd_idmap;
struct pd_idmap *pd_idmap__new(const struct pd_event *evs, int nr);
void pd_idmap__free(struct pd_idmap *m);
/* Index of the event owning id, or -1. */
int pd_idmap__find(const struct pd_idmap *m, uint64_t id);

/*
 * Decode a kernel-written record. Requires PERF_SAMPLE_IDENTIFIER in every
 * attr (first u64 of samples, last u64 of other records' trailers).
 * Returns 0, or -EINVAL when the record is malformed/too short.
 */
int pd_rec_decode(const struct pd_idmap *m, const struct pd_event *evs,
		  const struct perf_event_header *rec, struct pd_rec_info *info);

/* ---- synthesizing records (trailer laid out per attr->sample_type) ---- */

/*
 * Each builder writes one record into buf (capacity cap) and returns its size,
 * or -ENOSPC. The sample_id trailer uses attr's sample_type (TID, TIME, ID,
 * STREAM_ID, CPU, IDENTIFIER as set) with the given id, time and cpu.
 */
int pd_synth_comm(void *buf, size_t cap, const struct perf_event_attr *attr, uint64_t id,
		  uint32_t pid, uint32_t tid, const char *comm, int exec, uint64_t time,
		  uint32_t cpu);
/* Kernel map: pid -1, misc KERNEL, "[kernel.kallsyms]_text", start = pgoff = _text. */
int pd_synth_kernel_mmap(void *buf, size_t cap, const struct perf_event_attr *attr, uint64_t id,
			 uint64_t start, uint64_t len);
/*
 * A kernel module's map, as perf record synthesizes it: pid -1, misc KERNEL,
 * pgoff 0, the module's .ko path or "[name]".
 */
int pd_synth_module_mmap(void *buf, size_t cap, const struct perf_event_attr *attr, uint64_t id,
			 uint64_t start, uint64_t len, const char *filename);
/*
 * A BPF program's JITed code (PERF_RECORD_KSYMBOL, type BPF), as perf record
 * synthesizes one for every loaded program: samples inside it resolve to
 * name ("bpf_prog_<tag>_<name>"), not [unknown].
 */
int pd_synth_ksymbol_bpf(void *buf, size_t cap, const struct perf_event_attr *attr, uint64_t id,
			 uint64_t addr, uint32_t len, const char *name);
/* User map (MMAP2) from a /proc/PID/maps line's values. */
int pd_synth_mmap2(void *buf, size_t cap, const struct perf_event_attr *attr, uint64_t id,
		   uint32_t pid, uint32_t tid, uint64_t start, uint64_t len, uint64_t pgoff,
		   uint32_t maj, uint32_t min, uint64_t ino, uint32_t prot, uint32_t flags,
		   const char *filename);

/* ---- writing the file ---- */

/*
 * A growing byte buffer, for feature payloads built ahead of time. Errors
 * are sticky: after a failed allocation err is -ENOMEM and puts do nothing.
 */
struct pd_buf {
	unsigned char *p;
	size_t len, cap;
	int err;
};
void pd_buf__put(struct pd_buf *b, const void *src, size_t n);
void pd_buf__u32(struct pd_buf *b, uint32_t v);
void pd_buf__u64(struct pd_buf *b, uint64_t v);
/* perf's header string: u32 length (NUL included, rounded up to 64), zero padded. */
void pd_buf__str(struct pd_buf *b, const char *s);
void pd_buf__free(struct pd_buf *b);

/* One BUILD_ID feature entry (perf's struct perf_record_header_build_id). */
#define PD_BUILD_ID_MAX 20
struct pd_build_id {
	int32_t pid;   /* -1: the host */
	uint16_t misc; /* PERF_RECORD_MISC_KERNEL or PERF_RECORD_MISC_USER */
	uint8_t size;  /* bytes used in data */
	uint8_t data[PD_BUILD_ID_MAX];
	const char *name; /* "[kernel.kallsyms]", "[vdso]" or the file's path */
};

/* Payloads of the features that describe the host, built once (pdhost.h). */
enum pd_host_feat {
	PD_HOST_CPU_TOPOLOGY,
	PD_HOST_NUMA_TOPOLOGY,
	PD_HOST_PMU_MAPPINGS,
	PD_HOST_CACHE,
	PD_HOST_MEM_TOPOLOGY,
	PD_HOST_BPF_PROG_INFO,
	PD_HOST_BPF_BTF,
	PD_HOST_CPU_PMU_CAPS,
	PD_HOST_PMU_CAPS,
	PD_HOST_NR,
};

struct pd_meta {
	/*
	 * Strings: written even when NULL (as ""): perf 6.1's `perf data
	 * convert --to-json` dereferences hostname, os-release, arch, cpudesc,
	 * cpuid and version without checking that the file had them.
	 */
	const char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t total_mem_kb; /* TOTAL_MEM, when != 0 */
	int argc;
	char **argv;			/* CMDLINE feature */
	uint64_t first_time, last_time; /* SAMPLE_TIME */
	uint32_t clockid;		/* CLOCKID / CLOCK_DATA */
	uint64_t clock_res_ns;
	uint64_t tod_ns, clockid_ns; /* a pair read at the same moment, for CLOCK_DATA */
	const void *tracing_data;    /* built by pd_tracing_data() */
	size_t tracing_data_len;
	/* Written as they are when len != 0 (and not written otherwise). */
	const struct pd_buf *host[PD_HOST_NR];
	const struct pd_build_id *build_ids; /* BUILD_ID, when nr_build_ids != 0 */
	int nr_build_ids;
};

/*
 * Build the TRACING_DATA payload for the tracepoint events in evs (their
 * formats, header_page, header_event read from tracefs). malloc'ed into *out.
 */
int pd_tracing_data(const struct pd_event *evs, int nr, void **out, size_t *len);

struct pd_writer;
/*
 * Writes to fd (a new, empty file). Sequence: new, begin (header placeholder,
 * attrs, ids), write* (records), finish (features, then the header is
 * rewritten with exact sizes). Every call returns 0 or -errno (ENOSPC, EIO...);
 * after an error the caller unlinks the file.
 * evs (and the ids arrays) must stay valid until finish: they are written
 * twice, as the attr section and as EVENT_DESC.
 */
struct pd_writer *pd_writer__new(int fd, const struct pd_event *evs, int nr);
/*
 * The same, writing through buf (PD_WRITER_BUF_SIZE bytes, the caller's, not
 * freed by pd_writer__free): a writer that writes file after file keeps one
 * buffer, and its pages stay faulted in.
 */
#define PD_WRITER_BUF_SIZE (4u << 20)
struct pd_writer *pd_writer__new_buf(int fd, const struct pd_event *evs, int nr, void *buf);
int pd_writer__begin(struct pd_writer *w);
int pd_writer__write(struct pd_writer *w, const void *rec, size_t len);
int pd_writer__finish(struct pd_writer *w, const struct pd_meta *meta);
uint64_t pd_writer__data_size(const struct pd_writer *w);
void pd_writer__free(struct pd_writer *w);

/*
 * Compression, as `perf record -z` writes it: the data section becomes
 * PERF_RECORD_COMPRESSED records (one zstd stream, flushed in slices, a
 * frame per ~1 MiB compressed on the spare CPUs' worker threads), and the
 * COMPRESSED feature says how to read them. Call between new and begin.
 * level: 1 (fastest) to PD_ZSTD_LEVEL_MAX (smallest); 0 leaves compression
 * off. size_hint: about how many bytes will be written (0 = unknown), so
 * zstd sizes its window to the data, not to the level's maximum (level 22
 * would otherwise allocate ~800 MiB). Returns 0, -EINVAL or -ENOMEM.
 */
#define PD_ZSTD_LEVEL_MAX 22
#define PD_RECORD_COMPRESSED 81 /* PERF_RECORD_COMPRESSED (tools/perf/util/event.h) */
int pd_writer__set_zstd(struct pd_writer *w, int level, uint64_t size_hint);

/*
 * The compression workers, kept by a caller that writes one file after
 * another (the snapshot writer): their threads, zstd contexts and buffers
 * are set up once, not per file (per file they cost more than a small
 * snapshot's compression). pd_writer__use_zpool() compresses w's data
 * with them (between new and begin; the pool must outlive w, one writer
 * at a time). pd_zpool__new() returns NULL with errno (EINVAL: level not
 * 1..PD_ZSTD_LEVEL_MAX).
 */
struct pd_zpool;
struct pd_zpool *pd_zpool__new(int level, uint64_t size_hint);
int pd_zpool__level(const struct pd_zpool *zp);
void pd_zpool__free(struct pd_zpool *zp);
int pd_writer__use_zpool(struct pd_writer *w, struct pd_zpool *zp);

struct pd_comp_stats {
	int level;	    /* 0: not compressed */
	uint64_t bytes_in;  /* records given to pd_writer__write */
	uint64_t bytes_out; /* COMPRESSED records written, headers included */
	uint64_t records;   /* COMPRESSED records written */
	uint64_t ns;	    /* time spent in zstd, summed over the workers */
	int workers;	    /* compression threads that ran (spare CPUs, at most 8) */
};
void pd_writer__comp_stats(const struct pd_writer *w, struct pd_comp_stats *st);

#endif
