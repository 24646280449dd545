// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * perf.data: record decoding, record synthesis, and a writer whose output
 * stock perf 6.1+ reads. The layout and the reasons behind each choice are
 * in docs/perf-data.md.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_c_srcSizeHint */
#include <zstd.h>
#include "snapshot/perfdata.h"
#include "capture/tracefs.h"

#define PD_ATTR_SIZE 128		  /* the largest attr.size perf 6.1 accepts */
#define PD_ATTR_ENTRY (PD_ATTR_SIZE + 16) /* attr + {ids offset, ids size} */
#define PD_HEADER_SIZE 104
#define PD_WBUF_SIZE PD_WRITER_BUF_SIZE
#define PD_MAX_REC 65535

/* Feature bits (tools/perf/util/header.h). */
enum {
	FEAT_TRACING_DATA = 1,
	FEAT_BUILD_ID = 2,
	FEAT_HOSTNAME = 3,
	FEAT_OSRELEASE = 4,
	FEAT_VERSION = 5,
	FEAT_ARCH = 6,
	FEAT_NRCPUS = 7,
	FEAT_CPUDESC = 8,
	FEAT_CPUID = 9,
	FEAT_TOTAL_MEM = 10,
	FEAT_CMDLINE = 11,
	FEAT_EVENT_DESC = 12,
	FEAT_CPU_TOPOLOGY = 13,
	FEAT_NUMA_TOPOLOGY = 14,
	FEAT_PMU_MAPPINGS = 16,
	FEAT_CACHE = 20,
	FEAT_SAMPLE_TIME = 21,
	FEAT_MEM_TOPOLOGY = 22,
	FEAT_CLOCKID = 23,
	FEAT_BPF_PROG_INFO = 25,
	FEAT_BPF_BTF = 26,
	FEAT_COMPRESSED = 27,
	FEAT_CPU_PMU_CAPS = 28,
	FEAT_CLOCK_DATA = 29,
	FEAT_PMU_CAPS = 31,
	FEAT_MAX = 32,
};

/* Fields of the sample_id trailer, in the order the kernel writes them. */
#define PD_ID_FIELDS                                                                   \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

static inline size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* ---------------------------------------------------------------- idmap -- */

struct pd_idmap {
	uint64_t mask;
	uint64_t *keys;
	int *vals; /* event index, -1 = empty slot */
};

static inline uint64_t id_hash(uint64_t id)
{
	/* kernel ids are small and sequential: spread them */
	return (id * 0x9E3779B97F4A7C15ull) >> 17;
}

struct pd_idmap *pd_idmap__new(const struct pd_event *evs, int nr)
{
	struct pd_idmap *m;
	uint64_t total = 0, cap = 16;

	for (int i = 0; i < nr; i++)
		total += evs[i].nr_ids;
	while (cap < 2 * total)
		cap <<= 1;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->mask = cap - 1;
	m->keys = calloc(cap, sizeof(*m->keys));
	m->vals = malloc(cap * sizeof(*m->vals));
	if (!m->keys || !m->vals) {
		pd_idmap__free(m);
		errno = ENOMEM;
		return NULL;
	}
	for (uint64_t s = 0; s < cap; s++)
		m->vals[s] = -1;
	for (int i = 0; i < nr; i++) {
		for (uint32_t j = 0; j < evs[i].nr_ids; j++) {
			uint64_t id = evs[i].ids[j], s = id_hash(id) & m->mask;

			while (m->vals[s] >= 0 && m->keys[s] != id)
				s = (s + 1) & m->mask;
			if (m->vals[s] >= 0)
				continue; /* duplicate id: the first event keeps it */
			m->keys[s] = id;
			m->vals[s] = i;
		}
	}
	return m;
}

int pd_idmap__find(const struct pd_idmap *m, uint64_t id)
{
	uint64_t s;

	if (!m)
		return -1;
	s = id_hash(id) & m->mask;
	while (m->vals[s] >= 0) {
		if (m->keys[s] == id)
			return m->vals[s];
		s = (s + 1) & m->mask;
	}
	return -1;
}

void pd_idmap__free(struct pd_idmap *m)
{
	if (!m)
		return;
	free(m->keys);
	free(m->vals);
	free(m);
}

/* --------------------------------------------------------------- decode -- */

static inline uint64_t get_u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t get_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* The fields common to samples and trailers, from p (bounded by end). */
static int decode_id_fields(uint64_t st, const unsigned char *p, const unsigned char *end,
			    int sample, struct pd_rec_info *info)
{
	/* samples start with IDENTIFIER and carry IP and ADDR; trailers end with it */
	if (sample && (st & PERF_SAMPLE_IDENTIFIER))
		p += 8;
	if (sample && (st & PERF_SAMPLE_IP))
		p += 8;
	if (st & PERF_SAMPLE_TID) {
		if (end - p < 8)
			return -EINVAL;
		info->pid = get_u32(p);
		info->tid = get_u32(p + 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		if (end - p < 8)
			return -EINVAL;
		info->time = get_u64(p);
		info->has_time = 1;
		p += 8;
	}
	if (sample && (st & PERF_SAMPLE_ADDR))
		p += 8;
	if (st & PERF_SAMPLE_ID)
		p += 8;
	if (st & PERF_SAMPLE_STREAM_ID)
		p += 8;
	if (st & PERF_SAMPLE_CPU) {
		if (end - p < 8)
			return -EINVAL;
		info->cpu = get_u32(p);
		p += 8;
	}
	if (p > end)
		return -EINVAL;
	return 0;
}

int pd_rec_decode(const struct pd_idmap *m, const struct pd_event *evs,
		  const struct perf_event_header *rec, struct pd_rec_info *info)
{
	const unsigned char *b = (const void *)rec, *end = b + rec->size;
	const struct perf_event_attr *attr;
	uint64_t st;

	memset(info, 0, sizeof(*info));
	info->event = -1;
	if (rec->size < sizeof(*rec) + 8 || (rec->size & 7))
		return -EINVAL;
	if (rec->type == PERF_RECORD_SAMPLE)
		info->id = get_u64(b + sizeof(*rec));
	else
		info->id = get_u64(end - 8);
	info->event = pd_idmap__find(m, info->id);
	if (info->event < 0)
		return 0; /* layout unknown: the caller drops it */
	attr = &evs[info->event].attr;
	st = attr->sample_type;
	if (rec->type == PERF_RECORD_SAMPLE)
		return decode_id_fields(st, b + sizeof(*rec), end, 1, info);
	if (!attr->sample_id_all)
		return 0;
	{
		size_t tsize = 8 * __builtin_popcountll(st & PD_ID_FIELDS);

		if (rec->size < sizeof(*rec) + tsize)
			return -EINVAL;
		return decode_id_fields(st, end - tsize, end, 0, info);
	}
}

/* ------------------------------------------------------------ synthesis -- */

static size_t id_trailer_size(const struct perf_event_attr *attr)
{
	if (!attr->sample_id_all)
		return 0;
	return 8 * __builtin_popcountll(attr->sample_type & PD_ID_FIELDS);
}

static void put_id_trailer(unsigned char *p, const struct perf_event_attr *attr, uint64_t id,
			   uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu)
{
	uint64_t st = attr->sample_type;
	uint32_t pair[2];

	if (!attr->sample_id_all)
		return;
	if (st & PERF_SAMPLE_TID) {
		pair[0] = pid;
		pair[1] = tid;
		memcpy(p, pair, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		memcpy(p, &time, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		memcpy(p, &id, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		memcpy(p, &id, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		pair[0] = cpu;
		pair[1] = 0;
		memcpy(p, pair, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		memcpy(p, &id, 8);
}

int pd_synth_comm(void *buf, size_t cap, const struct perf_event_attr *attr, uint64_t id,
		  uint32_t pid, uint32_t tid, const char *comm, int exec, uint64_t time,
		  uint32_t cpu)
{
	size_t clen = strnlen(comm, 4095) + 1;
	size_t body = sizeof(struct perf_event_header) + 8 + align8(clen);
	size_t size = body + id_trailer_size(attr);
	struct perf_event_header h = {
		.type = PERF_RECORD_COMM,
		.misc = exec ? PERF_RECORD_MISC_COMM_EXEC : 0,
		.size = size,
	};
	unsigned char *p = buf;
	uint32_t pt[2] = { pid, tid };

	if (size > cap || size > PD_MAX_REC)
		return -ENOSPC;
	memset(p, 0, size);
	memcpy(p, &h, sizeof(h));
	memcpy(p + 8, pt, 8);
	memcpy(p + 16, comm, clen - 1);
	put_id_trailer(p + body, attr, id, pid, tid, time, cpu);
	return size;
}

/* MMAP and MMAP2 differ only in the fields between pgoff and the name. */
static int synth_map(void *buf, size_t cap, const struct perf_event_attr *attr, uint64_t id,
		     uint32_t type, uint16_t misc, uint32_t pid, uint32_t tid, const void *mid,
		     size_t mid_len, uint64_t start, uint64_t len, uint64_t pgoff,
		     const char *filename)
{
	size_t flen = strnlen(filename, 4095) + 1;
	size_t body = sizeof(struct perf_event_header) + 8 + 24 + mid_len + align8(flen);
	size_t size = body + id_trailer_size(attr);
	struct perf_event_header h = { .type = type, .misc = misc, .size = size };
	unsigned char *p = buf;
	uint32_t pt[2] = { pid, tid };
	uint64_t v[3] = { start, len, pgoff };

	if (size > cap || size > PD_MAX_REC)
		return -ENOSPC;
	memset(p, 0, size);
	memcpy(p, &h, sizeof(h));
	memcpy(p + 8, pt, 8);
	memcpy(p + 16, v, 24);
	if (mid_len)
		memcpy(p + 40, mid, mid_len);
	memcpy(p + 40 + mid_len, filename, flen - 1);
	/* time 0: perf delivers it before anything else, as it must be */
	put_id_trailer(p + body, attr, id, pid, tid, 0, 0);
	return size;
}

int pd_synth_kernel_mmap(void *buf, size_t cap, const struct perf_event_attr *attr, uint64_t id,
			 uint64_t start, uint64_t len)
{
	return synth_map(buf, cap, attr, id, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL,
			 (uint32_t)-1, 0, NULL, 0, start, len, start, "[kernel.kallsyms]_text");
}

int pd_synth_module_mmap(void *buf, size_t cap, const struct perf_event_attr *attr, uint64_t id,
			 uint64_t start, uint64_t len, const char *filename)
{
	return synth_map(buf, cap, attr, id, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL,
			 (uint32_t)-1, 0, NULL, 0, start, len, 0, filename);
}

int pd_synth_ksymbol_bpf(void *buf, size_t cap, const struct perf_event_attr *attr, uint64_t id,
			 uint64_t addr, uint32_t len, const char *name)
{
	size_t nlen = strnlen(name, 511) + 1;
	size_t body = sizeof(struct perf_event_header) + 16 + align8(nlen);
	size_t size = body + id_trailer_size(attr);
	struct perf_event_header h = { .type = PERF_RECORD_KSYMBOL, .size = size };
	uint16_t type = PERF_RECORD_KSYMBOL_TYPE_BPF, flags = 0;
	unsigned char *p = buf;

	if (size > cap || size > PD_MAX_REC)
		return -ENOSPC;
	memset(p, 0, size);
	memcpy(p, &h, sizeof(h));
	memcpy(p + 8, &addr, 8);
	memcpy(p + 16, &len, 4);
	memcpy(p + 20, &type, 2);
	memcpy(p + 22, &flags, 2);
	memcpy(p + 24, name, nlen - 1);
	/* time 0, as the maps: known before any sample */
	put_id_trailer(p + body, attr, id, (uint32_t)-1, 0, 0, 0);
	return size;
}

int pd_synth_mmap2(void *buf, size_t cap, const struct perf_event_attr *attr, uint64_t id,
		   uint32_t pid, uint32_t tid, uint64_t start, uint64_t len, uint64_t pgoff,
		   uint32_t maj, uint32_t min, uint64_t ino, uint32_t prot, uint32_t flags,
		   const char *filename)
{
	struct {
		uint32_t maj, min;
		uint64_t ino, ino_generation;
		uint32_t prot, flags;
	} mid = { maj, min, ino, 0, prot, flags };
	uint16_t misc = PERF_RECORD_MISC_USER;

	_Static_assert(sizeof(mid) == 32, "mmap2 middle");
	if (!(prot & 4)) /* PROT_EXEC */
		misc |= PERF_RECORD_MISC_MMAP_DATA;
	return synth_map(buf, cap, attr, id, PERF_RECORD_MMAP2, misc, pid, tid, &mid, sizeof(mid),
			 start, len, pgoff, filename);
}

/* ------------------------------------------------------- growable buffer -- */

void pd_buf__put(struct pd_buf *d, const void *src, size_t n)
{
	if (d->err || !n)
		return;
	if (d->len + n > d->cap) {
		size_t cap = d->cap ? d->cap : 4096;
		unsigned char *np;

		while (cap < d->len + n)
			cap *= 2;
		np = realloc(d->p, cap);
		if (!np) {
			d->err = -ENOMEM;
			return;
		}
		d->p = np;
		d->cap = cap;
	}
	memcpy(d->p + d->len, src, n);
	d->len += n;
}

void pd_buf__u32(struct pd_buf *d, uint32_t v)
{
	pd_buf__put(d, &v, 4);
}
void pd_buf__u64(struct pd_buf *d, uint64_t v)
{
	pd_buf__put(d, &v, 8);
}
static void db_u8(struct pd_buf *d, uint8_t v)
{
	pd_buf__put(d, &v, 1);
}
static void db_cstr(struct pd_buf *d, const char *s)
{
	pd_buf__put(d, s, strlen(s) + 1);
}

static void db_zero(struct pd_buf *d, size_t n)
{
	static const unsigned char z[64];

	while (n) {
		size_t k = n < sizeof(z) ? n : sizeof(z);

		pd_buf__put(d, z, k);
		n -= k;
	}
}

void pd_buf__str(struct pd_buf *d, const char *s)
{
	size_t len = strlen(s) + 1, olen = (len + 63) & ~(size_t)63;

	pd_buf__u32(d, olen);
	pd_buf__put(d, s, len);
	db_zero(d, olen - len);
}

void pd_buf__free(struct pd_buf *d)
{
	free(d->p);
	memset(d, 0, sizeof(*d));
}

/* --------------------------------------------------------- TRACING_DATA -- */

static int read_tracefs_into(struct pd_buf *d, const char *rel)
{
	size_t len = 0;
	char *txt;

	errno = 0;
	txt = tracefs_read(rel, &len);
	if (!txt)
		return errno ? -errno : -EIO;
	pd_buf__u64(d, len);
	pd_buf__put(d, txt, len);
	free(txt);
	return 0;
}

static int is_tracepoint(const struct pd_event *e)
{
	return e->attr.type == PERF_TYPE_TRACEPOINT && e->tp_sys[0] && e->tp_name[0];
}

/*
 * For each event: 1 if it is the first with its tracepoint, 2 if also the
 * first of its system, 0 otherwise. O(n^2) once rather than per system.
 */
static unsigned char *tp_firsts(const struct pd_event *evs, int nr)
{
	unsigned char *f = calloc(nr ? nr : 1, 1);

	if (!f)
		return NULL;
	for (int i = 0; i < nr; i++) {
		int dup = 0, sys_seen = 0;

		if (!is_tracepoint(&evs[i]))
			continue;
		for (int j = 0; j < i && !dup; j++) {
			if (!f[j] || strcmp(evs[j].tp_sys, evs[i].tp_sys))
				continue;
			sys_seen = 1;
			dup = !strcmp(evs[j].tp_name, evs[i].tp_name);
		}
		if (!dup)
			f[i] = sys_seen ? 1 : 2;
	}
	return f;
}

int pd_tracing_data(const struct pd_event *evs, int nr, void **out, size_t *len)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct pd_buf d = { 0 };
	unsigned char *first = NULL;
	char path[256];
	uint32_t nsys = 0;
	int err;

	*out = NULL;
	*len = 0;
	pd_buf__put(&d, magic, sizeof(magic));
	db_cstr(&d, "0.6");
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	db_u8(&d, 1);
#else
	db_u8(&d, 0);
#endif
	db_u8(&d, sizeof(long));
	pd_buf__u32(&d, sysconf(_SC_PAGESIZE));
	pd_buf__put(&d, "header_page", 12);
	err = read_tracefs_into(&d, "events/header_page");
	if (err)
		goto fail;
	pd_buf__put(&d, "header_event", 13);
	err = read_tracefs_into(&d, "events/header_event");
	if (err)
		goto fail;
	pd_buf__u32(&d, 0); /* ftrace internal formats: none */

	first = tp_firsts(evs, nr);
	if (!first) {
		err = -ENOMEM;
		goto fail;
	}
	for (int i = 0; i < nr; i++)
		nsys += first[i] == 2;
	pd_buf__u32(&d, nsys);
	/* one block per system, its events in first-seen order, each format once */
	for (int i = 0; i < nr; i++) {
		uint32_t nev = 0;

		if (first[i] != 2)
			continue;
		for (int j = i; j < nr; j++)
			nev += first[j] && !strcmp(evs[j].tp_sys, evs[i].tp_sys);
		db_cstr(&d, evs[i].tp_sys);
		pd_buf__u32(&d, nev);
		for (int j = i; j < nr; j++) {
			if (!first[j] || strcmp(evs[j].tp_sys, evs[i].tp_sys))
				continue;
			snprintf(path, sizeof(path), "events/%s/%s/format", evs[j].tp_sys,
				 evs[j].tp_name);
			err = read_tracefs_into(&d, path);
			if (err)
				goto fail;
		}
	}
	pd_buf__u32(&d, 0); /* kallsyms */
	pd_buf__u32(&d, 0); /* printk formats */
	pd_buf__u64(&d, 0); /* saved_cmdlines */
	if (d.err) {
		err = d.err;
		goto fail;
	}
	free(first);
	*out = d.p;
	*len = d.len;
	return 0;
fail:
	free(first);
	free(d.p);
	return err;
}

/* --------------------------------------------------------------- writer -- */

struct pd_writer {
	int fd;
	const struct pd_event *evs;
	int nr;
	unsigned char *buf; /* pending bytes, written at file offset `flushed` */
	int own_buf;	    /* buf is ours to free */
	size_t blen;
	uint64_t flushed;
	uint64_t attrs_offset, data_offset, data_size;
	int err; /* sticky: once a write failed, everything fails */
	int begun, finished;
	/* Compression (pd_writer__set_zstd, pd_writer__use_zpool), NULL zp when off. */
	struct pd_zpool *zp;
	int own_zp;	     /* zp is ours to free (set_zstd), not the caller's (use_zpool) */
	struct zchunk *zcur; /* the chunk being filled */
	unsigned char *zin;  /* the slice being filled, uncompressed (inside zcur) */
	size_t zin_len;
	unsigned char *zrec; /* the COMPRESSED record being filled: header + payload */
	size_t zrec_len;
	uint64_t zrec_raw; /* uncompressed bytes its payload decompresses to */
	struct pd_comp_stats zst;
};

struct pd_writer *pd_writer__new_buf(int fd, const struct pd_event *evs, int nr, void *buf)
{
	struct pd_writer *w;

	if (fd < 0 || nr < 0 || (nr && !evs)) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->own_buf = !buf;
	w->buf = buf ? buf : malloc(PD_WBUF_SIZE);
	if (!w->buf) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	w->fd = fd;
	w->evs = evs;
	w->nr = nr;
	return w;
}

static int pwrite_all(int fd, const void *p, size_t n, uint64_t off)
{
	const unsigned char *s = p;

	while (n) {
		ssize_t r = pwrite(fd, s, n, off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -ENOSPC; /* no progress on a regular file means full */
		s += r;
		n -= r;
		off += r;
	}
	return 0;
}

static int w_flush(struct pd_writer *w)
{
	int err;

	if (w->err)
		return w->err;
	if (!w->blen)
		return 0;
	err = pwrite_all(w->fd, w->buf, w->blen, w->flushed);
	if (err)
		return w->err = err;
	w->flushed += w->blen;
	w->blen = 0;
	return 0;
}

static int w_put(struct pd_writer *w, const void *p, size_t n)
{
	int err;

	if (w->err)
		return w->err;
	if (!n)
		return 0;
	if (w->blen + n > PD_WBUF_SIZE) {
		err = w_flush(w);
		if (err)
			return err;
		/* too big to be worth buffering: straight to the file */
		if (n >= PD_WBUF_SIZE) {
			err = pwrite_all(w->fd, p, n, w->flushed);
			if (err)
				return w->err = err;
			w->flushed += n;
			return 0;
		}
	}
	memcpy(w->buf + w->blen, p, n);
	w->blen += n;
	return 0;
}

static inline uint64_t w_pos(const struct pd_writer *w)
{
	return w->flushed + w->blen;
}

/*
 * Compression. perf 6.1 reads a PERF_RECORD_COMPRESSED record
 * (perf_session__process_compressed_event) by decompressing its payload,
 * through one zstd stream for the whole file, into a fresh buffer of
 * comp_mmap_len bytes (the COMPRESSED feature) after the unprocessed tail of
 * the previous one, then processes the whole records in it. So:
 *  - a payload must decompress to at most comp_mmap_len bytes: whatever does
 *    not fit is lost, and the stream with it;
 *  - a payload must decompress to at least one byte: 0 is "Couldn't
 *    decompress data" and perf stops;
 *  - a record may end in the next payload (the tail is carried over), but
 *    perf before 5.3 and other readers do not carry it: records are kept
 *    whole within a slice unless one alone is larger than a slice.
 * zstd only decodes complete blocks (raw ones excepted), so a block cut
 * between two payloads can leave the first decompressing to nothing. Each
 * slice of input is therefore flushed on its own, and a slice is small
 * enough that its flush (at most one block, the slice plus a 3-byte block
 * header, plus the frame header the first time) always fits one payload.
 * Whole flushes are then packed into a payload while it has room and its
 * decompressed size stays within comp_mmap_len. Compared with perf, which
 * flushes once per ring read, the extra block ends cost about 1% of ratio.
 */
#define PD_COMP_SLICE (63u << 10)	 /* input per flush */
#define PD_COMP_MAX_PAYLOAD (65535u - 8) /* header.size is a u16 */
#define PD_COMP_MMAP_LEN (512u << 10)	 /* comp_mmap_len (perf's default is 516 KiB) */

_Static_assert(PD_COMP_SLICE + 3 + ZSTD_FRAMEHEADERSIZE_MAX + 4 <= PD_COMP_MAX_PAYLOAD,
	       "a flushed slice must fit one COMPRESSED record");

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * The compression workers. zstd runs off the thread that merges and writes
 * the records, on as many threads as the process has spare CPUs (those it may
 * run on, minus that thread, at least one, at most PD_ZSTD_WORKERS_MAX). Each chunk
 * of PD_COMP_CHUNK_SLICES slices is a zstd frame of its own, so chunks are
 * compressed independently; perf reads the file's frames one after the
 * other through its one stream (zstd starts the next frame where one ends).
 * The writer packs the chunks' flushed slices into COMPRESSED records in
 * order, as before. Each frame restarts zstd's window: on test_perfdata's
 * 3.2 MB mix at level 1 that cost 59 bytes (of 2.3 MB); it buys compression
 * on every spare CPU.
 */
#define PD_COMP_CHUNK_SLICES 16
#define PD_ZSTD_WORKERS_MAX 8
#define PD_COMP_OUT_SLICE (ZSTD_COMPRESSBOUND(PD_COMP_SLICE) + ZSTD_FRAMEHEADERSIZE_MAX + 4)

enum { ZC_FREE, ZC_FILLING, ZC_QUEUED, ZC_BUSY, ZC_DONE };

struct zchunk {
	int state;
	uint64_t seq;			       /* submission order: packed in this order */
	unsigned char *in;		       /* PD_COMP_CHUNK_SLICES slices, back to back */
	size_t in_len;			       /* bytes of whole slices */
	uint32_t n;			       /* slices */
	uint32_t in_sz[PD_COMP_CHUNK_SLICES];  /* each slice's input */
	uint32_t out_sz[PD_COMP_CHUNK_SLICES]; /* each slice's flush */
	unsigned char *out;
	size_t out_len;
	int err;
	uint64_t ns; /* time in zstd */
};

struct pd_zpool {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	int level;
	uint64_t size_hint;
	int max_workers, nworkers, stop;
	pthread_t tid[PD_ZSTD_WORKERS_MAX];
	struct zchunk *ch;
	int nch;
	uint64_t next_seq, pack_seq; /* next to submit, next to pack */
};

/* The CPUs this process may run on (a unit's CPUAffinity=, taskset, a cpuset), less one. */
static int spare_cpus(void)
{
	cpu_set_t set;
	long n = sched_getaffinity(0, sizeof(set), &set) ? sysconf(_SC_NPROCESSORS_ONLN) - 1 :
							   CPU_COUNT(&set) - 1;

	return n < 1 ? 1 : n > PD_ZSTD_WORKERS_MAX ? PD_ZSTD_WORKERS_MAX : (int)n;
}

/* One chunk: every slice flushed, the last one ending the frame. */
static void z_compress(ZSTD_CCtx *cc, struct zchunk *c)
{
	uint64_t t0 = now_ns();
	size_t in_off = 0;

	c->out_len = 0;
	for (uint32_t i = 0; i < c->n && !c->err; i++) {
		ZSTD_inBuffer in = { c->in + in_off, c->in_sz[i], 0 };
		ZSTD_outBuffer out = { c->out, (size_t)PD_COMP_CHUNK_SLICES * PD_COMP_OUT_SLICE,
				       c->out_len };
		ZSTD_EndDirective mode = i + 1 == c->n ? ZSTD_e_end : ZSTD_e_flush;
		size_t left;

		do {
			left = ZSTD_compressStream2(cc, &out, &in, mode);
			if (ZSTD_isError(left)) {
				c->err = -EIO;
				break;
			}
		} while (left && out.pos < out.size);
		/* Cannot happen (the static assert above); refuse rather than write what perf would drop. */
		if (!c->err && (left || out.pos - c->out_len > PD_COMP_MAX_PAYLOAD))
			c->err = -EOVERFLOW;
		c->out_sz[i] = (uint32_t)(out.pos - c->out_len);
		c->out_len = out.pos;
		in_off += c->in_sz[i];
	}
	c->ns = now_ns() - t0;
}

static void *z_worker(void *arg)
{
	struct pd_zpool *zp = arg;
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	int bad =
		!cc || ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, zp->level));

	/* Only a hint: a libzstd without it still compresses, with a bigger window. */
	if (!bad && zp->size_hint)
		ZSTD_CCtx_setParameter(cc, ZSTD_c_srcSizeHint, (int)zp->size_hint);
	pthread_mutex_lock(&zp->mu);
	for (;;) {
		struct zchunk *c = NULL;

		for (int i = 0; i < zp->nch; i++)
			if (zp->ch[i].state == ZC_QUEUED && (!c || zp->ch[i].seq < c->seq))
				c = &zp->ch[i];
		if (!c) {
			if (zp->stop)
				break;
			pthread_cond_wait(&zp->work, &zp->mu);
			continue;
		}
		c->state = ZC_BUSY;
		pthread_mutex_unlock(&zp->mu);
		if (bad)
			c->err = -ENOMEM;
		else
			z_compress(cc, c);
		pthread_mutex_lock(&zp->mu);
		c->state = ZC_DONE;
		pthread_cond_broadcast(&zp->done);
	}
	pthread_mutex_unlock(&zp->mu);
	ZSTD_freeCCtx(cc);
	return NULL;
}

void pd_zpool__free(struct pd_zpool *zp)
{
	if (!zp)
		return;
	pthread_mutex_lock(&zp->mu);
	zp->stop = 1;
	pthread_cond_broadcast(&zp->work);
	pthread_mutex_unlock(&zp->mu);
	for (int i = 0; i < zp->nworkers; i++)
		pthread_join(zp->tid[i], NULL);
	for (int i = 0; i < zp->nch; i++) {
		free(zp->ch[i].in);
		free(zp->ch[i].out);
	}
	free(zp->ch);
	pthread_cond_destroy(&zp->work);
	pthread_cond_destroy(&zp->done);
	pthread_mutex_destroy(&zp->mu);
	free(zp);
}

/* Workers start with the chunks that need them: a small snapshot starts one. */
static int zpool_start_worker(struct pd_zpool *zp)
{
	sigset_t all, old;
	int err;

	/* Signals are the main thread's business (Ctrl-C, SIGTERM, SIGHUP). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&zp->tid[zp->nworkers], NULL, z_worker, zp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return zp->nworkers ? 0 : -err; /* fewer workers still compress */
	zp->nworkers++;
	return 0;
}

struct pd_zpool *pd_zpool__new(int level, uint64_t size_hint)
{
	struct pd_zpool *zp;
	uint64_t chunk = (uint64_t)PD_COMP_CHUNK_SLICES * PD_COMP_SLICE;

	if (level < 1 || level > PD_ZSTD_LEVEL_MAX) {
		errno = EINVAL;
		return NULL;
	}
	zp = calloc(1, sizeof(*zp));
	if (!zp)
		return NULL;
	pthread_mutex_init(&zp->mu, NULL);
	pthread_cond_init(&zp->work, NULL);
	pthread_cond_init(&zp->done, NULL);
	zp->level = level;
	/* A frame holds a chunk at most: zstd sizes its window to that, not to the level's. */
	zp->size_hint = size_hint && size_hint < chunk ? size_hint : chunk;
	zp->max_workers = spare_cpus();
	/* One being filled, one being packed, one per worker. */
	zp->nch = zp->max_workers + 2;
	zp->ch = calloc(zp->nch, sizeof(*zp->ch));
	if (!zp->ch) {
		pd_zpool__free(zp);
		errno = ENOMEM;
		return NULL;
	}
	return zp;
}

int pd_zpool__level(const struct pd_zpool *zp)
{
	return zp ? zp->level : 0;
}

/*
 * Back to idle for the next file: a writer freed half-way (a write error)
 * can leave chunks queued or being compressed; they are waited for and
 * dropped.
 */
static void zpool_reset(struct pd_zpool *zp)
{
	pthread_mutex_lock(&zp->mu);
	for (;;) {
		int busy = 0;

		for (int i = 0; i < zp->nch; i++)
			busy |= zp->ch[i].state == ZC_QUEUED || zp->ch[i].state == ZC_BUSY;
		if (!busy)
			break;
		pthread_cond_wait(&zp->done, &zp->mu);
	}
	for (int i = 0; i < zp->nch; i++)
		zp->ch[i].state = ZC_FREE;
	zp->pack_seq = zp->next_seq;
	pthread_mutex_unlock(&zp->mu);
}

int pd_writer__use_zpool(struct pd_writer *w, struct pd_zpool *zp)
{
	if (w->begun || w->zp || !zp)
		return -EINVAL;
	w->zrec = malloc(8 + PD_COMP_MAX_PAYLOAD);
	if (!w->zrec)
		return -ENOMEM;
	zpool_reset(zp);
	w->zp = zp;
	w->zrec_len = 8;
	w->zst.level = zp->level;
	return 0;
}

int pd_writer__set_zstd(struct pd_writer *w, int level, uint64_t size_hint)
{
	struct pd_zpool *zp;
	int err;

	if (w->begun || w->zp || level < 0 || level > PD_ZSTD_LEVEL_MAX)
		return -EINVAL;
	if (!level)
		return 0;
	zp = pd_zpool__new(level, size_hint);
	if (!zp)
		return -ENOMEM;
	err = pd_writer__use_zpool(w, zp);
	if (err) {
		pd_zpool__free(zp);
		return err;
	}
	w->own_zp = 1;
	return 0;
}

void pd_writer__comp_stats(const struct pd_writer *w, struct pd_comp_stats *st)
{
	*st = w->zst;
	st->workers = w->zp ? w->zp->nworkers : 0;
}

/* The pending COMPRESSED record to the file. */
static int z_emit(struct pd_writer *w)
{
	struct perf_event_header h = {
		.type = PD_RECORD_COMPRESSED,
		.size = (uint16_t)w->zrec_len,
	};
	int err;

	if (w->zrec_len <= 8)
		return 0;
	memcpy(w->zrec, &h, sizeof(h));
	err = w_put(w, w->zrec, w->zrec_len);
	w->zst.bytes_out += w->zrec_len;
	w->zst.records++;
	w->zrec_len = 8;
	w->zrec_raw = 0;
	return err;
}

/* A compressed chunk's flushed slices, packed into COMPRESSED records in order. */
static int z_pack(struct pd_writer *w, struct zchunk *c)
{
	const unsigned char *p = c->out;
	int err = c->err;

	w->zst.ns += c->ns;
	for (uint32_t i = 0; i < c->n && !err; i++) {
		if (w->zrec_len + c->out_sz[i] > 8 + PD_COMP_MAX_PAYLOAD ||
		    w->zrec_raw + c->in_sz[i] > PD_COMP_MMAP_LEN)
			err = z_emit(w);
		if (err)
			break;
		memcpy(w->zrec + w->zrec_len, p, c->out_sz[i]);
		w->zrec_len += c->out_sz[i];
		w->zrec_raw += c->in_sz[i];
		w->zst.bytes_in += c->in_sz[i];
		p += c->out_sz[i];
	}
	return err;
}

/*
 * Pack the compressed chunks that are next in order (all of them when
 * all: the end of the file); called with zp->mu held, which it drops
 * around the packing so workers go on meanwhile.
 */
static int z_collect(struct pd_writer *w, int all)
{
	struct pd_zpool *zp = w->zp;
	int err = 0;

	while (!err && zp->pack_seq < zp->next_seq) {
		struct zchunk *c = NULL;

		for (int i = 0; i < zp->nch && !c; i++)
			if (zp->ch[i].state != ZC_FREE && zp->ch[i].state != ZC_FILLING &&
			    zp->ch[i].seq == zp->pack_seq)
				c = &zp->ch[i];
		if (!c)
			return -EIO; /* cannot happen: every submitted chunk is in the table */
		if (c->state != ZC_DONE) {
			if (!all)
				break;
			pthread_cond_wait(&zp->done, &zp->mu);
			continue;
		}
		pthread_mutex_unlock(&zp->mu);
		err = z_pack(w, c);
		pthread_mutex_lock(&zp->mu);
		c->state = ZC_FREE;
		zp->pack_seq++;
	}
	return err;
}

/* The chunk being filled goes to the workers; the next one to fill is set up. */
static int z_submit(struct pd_writer *w, int last)
{
	struct pd_zpool *zp = w->zp;
	struct zchunk *c = w->zcur;
	int err = 0;

	pthread_mutex_lock(&zp->mu);
	if (c && c->n) {
		c->seq = zp->next_seq++;
		c->state = ZC_QUEUED;
		w->zcur = NULL;
		if (zp->nworkers < zp->max_workers && zp->next_seq > (uint64_t)zp->nworkers)
			err = zpool_start_worker(zp);
		pthread_cond_signal(&zp->work);
	}
	/* Pack what is done; wait only when no chunk is free to fill (or at the end). */
	while (!err) {
		err = z_collect(w, last);
		if (err || last || w->zcur)
			break;
		for (int i = 0; i < zp->nch && !w->zcur; i++)
			if (zp->ch[i].state == ZC_FREE)
				w->zcur = &zp->ch[i];
		if (!w->zcur)
			pthread_cond_wait(&zp->done, &zp->mu);
	}
	pthread_mutex_unlock(&zp->mu);
	if (err || last)
		return err;
	c = w->zcur;
	if (!c->in) {
		c->in = malloc((size_t)PD_COMP_CHUNK_SLICES * PD_COMP_SLICE);
		c->out = malloc((size_t)PD_COMP_CHUNK_SLICES * PD_COMP_OUT_SLICE);
		if (!c->in || !c->out) {
			free(c->in);
			free(c->out);
			c->in = c->out = NULL;
			w->zcur = NULL;
			return -ENOMEM;
		}
	}
	c->state = ZC_FILLING;
	c->n = 0;
	c->in_len = 0;
	c->err = 0;
	w->zin = c->in;
	w->zin_len = 0;
	return 0;
}

/* The slice being filled is complete: into the chunk, and the chunk out when full. */
static int z_slice(struct pd_writer *w)
{
	struct zchunk *c = w->zcur;

	c->in_sz[c->n++] = (uint32_t)w->zin_len;
	c->in_len += w->zin_len;
	w->zin = c->in + c->in_len;
	w->zin_len = 0;
	return c->n == PD_COMP_CHUNK_SLICES ? z_submit(w, 0) : 0;
}

static int z_put(struct pd_writer *w, const unsigned char *p, size_t n)
{
	int err = 0;

	if (!w->zcur)
		err = z_submit(w, 0);
	while (n && !err) {
		size_t k;

		/*
		 * Whole records per slice, unless one alone is bigger than a
		 * slice. A full slice waits for more data: the last one, never
		 * empty, then ends the frame in a payload that has data too.
		 */
		if (w->zin_len == PD_COMP_SLICE ||
		    (w->zin_len && w->zin_len + n > PD_COMP_SLICE && n <= PD_COMP_SLICE))
			err = z_slice(w);
		if (err)
			break;
		k = PD_COMP_SLICE - w->zin_len < n ? PD_COMP_SLICE - w->zin_len : n;
		memcpy(w->zin + w->zin_len, p, k);
		w->zin_len += k;
		p += k;
		n -= k;
	}
	if (err)
		w->err = err;
	return err;
}

/* The last slice ends the last frame, every chunk is packed, the last record goes out. */
static int z_finish(struct pd_writer *w)
{
	int err = 0;

	if (w->zcur && w->zin_len) {
		struct zchunk *c = w->zcur;

		c->in_sz[c->n++] = (uint32_t)w->zin_len;
		c->in_len += w->zin_len;
		w->zin_len = 0;
	}
	if (!w->zcur && w->zp->next_seq == w->zp->pack_seq)
		return 0; /* nothing was written: no frame at all */
	err = z_submit(w, 1);
	return err ? err : z_emit(w);
}

/* The attr as it goes in the file: 128 bytes, size forced to 128. */
static void file_attr(const struct perf_event_attr *a, unsigned char out[PD_ATTR_SIZE])
{
	struct perf_event_attr *fa = (void *)out;
	size_t n = sizeof(*a) < PD_ATTR_SIZE ? sizeof(*a) : PD_ATTR_SIZE;

	_Static_assert(sizeof(struct perf_event_attr) >= 64, "attr");
	memset(out, 0, PD_ATTR_SIZE);
	memcpy(out, a, n);
	fa->size = PD_ATTR_SIZE;
}

static void event_name(const struct pd_event *e, int idx, char *out, size_t len)
{
	if (e->name[0])
		snprintf(out, len, "%.*s", (int)sizeof(e->name), e->name);
	else if (is_tracepoint(e))
		snprintf(out, len, "%s:%s", e->tp_sys, e->tp_name);
	else
		snprintf(out, len, "event%d", idx);
}

int pd_writer__begin(struct pd_writer *w)
{
	static const unsigned char zero[PD_HEADER_SIZE];
	unsigned char attr[PD_ATTR_SIZE];
	uint64_t ids_off;
	int err;

	if (w->begun)
		return -EINVAL;
	w->begun = 1;
	/* placeholder: no magic until finish, so a torn file is never taken for a good one */
	err = w_put(w, zero, sizeof(zero));
	for (int i = 0; i < w->nr && !err; i++)
		err = w_put(w, w->evs[i].ids, w->evs[i].nr_ids * sizeof(uint64_t));
	if (err)
		return err;
	w->attrs_offset = w_pos(w);
	ids_off = PD_HEADER_SIZE;
	for (int i = 0; i < w->nr && !err; i++) {
		uint64_t sec[2] = { ids_off, w->evs[i].nr_ids * sizeof(uint64_t) };

		file_attr(&w->evs[i].attr, attr);
		err = w_put(w, attr, sizeof(attr));
		if (!err)
			err = w_put(w, sec, sizeof(sec));
		ids_off += sec[1];
	}
	w->data_offset = w_pos(w);
	return err;
}

int pd_writer__write(struct pd_writer *w, const void *rec, size_t len)
{
	if (!w->begun || w->finished || (len & 7))
		return -EINVAL;
	if (w->zp)
		return w->err ? w->err : z_put(w, rec, len);
	return w_put(w, rec, len);
}

uint64_t pd_writer__data_size(const struct pd_writer *w)
{
	if (w->finished)
		return w->data_size;
	return w->begun ? w_pos(w) - w->data_offset : 0;
}

/*
 * One entry as perf's write_buildid() lays it out: a perf_event_header (type
 * left 0, as perf does; misc says kernel or user and that size is valid),
 * pid, 20 bytes of build-id, its size, 3 reserved bytes, then the name
 * NUL-terminated and zero-padded to a multiple of 64.
 */
static void build_id_entry(struct pd_buf *d, const struct pd_build_id *b)
{
	size_t nlen = strlen(b->name) + 1, plen = (nlen + 63) & ~(size_t)63;
	struct perf_event_header h = {
		.type = 0,
		.misc = b->misc | (1 << 15), /* PERF_RECORD_MISC_BUILD_ID_SIZE */
		.size = 8 + 4 + 24 + plen,
	};
	unsigned char id[24] = { 0 };
	uint8_t size = b->size > PD_BUILD_ID_MAX ? PD_BUILD_ID_MAX : b->size;

	memcpy(id, b->data, size);
	id[20] = size;
	pd_buf__put(d, &h, sizeof(h));
	pd_buf__put(d, &b->pid, 4);
	pd_buf__put(d, id, sizeof(id));
	pd_buf__put(d, b->name, nlen);
	db_zero(d, plen - nlen);
}

/* Payload of one feature into d; 0 = written, 1 = not applicable. */
static int feature_payload(const struct pd_writer *w, const struct pd_meta *meta, int bit,
			   struct pd_buf *d)
{
	static const signed char host_bit[PD_HOST_NR] = {
		[PD_HOST_CPU_TOPOLOGY] = FEAT_CPU_TOPOLOGY,
		[PD_HOST_NUMA_TOPOLOGY] = FEAT_NUMA_TOPOLOGY,
		[PD_HOST_PMU_MAPPINGS] = FEAT_PMU_MAPPINGS,
		[PD_HOST_CACHE] = FEAT_CACHE,
		[PD_HOST_MEM_TOPOLOGY] = FEAT_MEM_TOPOLOGY,
		[PD_HOST_BPF_PROG_INFO] = FEAT_BPF_PROG_INFO,
		[PD_HOST_BPF_BTF] = FEAT_BPF_BTF,
		[PD_HOST_CPU_PMU_CAPS] = FEAT_CPU_PMU_CAPS,
		[PD_HOST_PMU_CAPS] = FEAT_PMU_CAPS,
	};
	const char *s = NULL;

	for (int i = 0; i < PD_HOST_NR; i++) {
		const struct pd_buf *b = meta->host[i];

		if (host_bit[i] != bit)
			continue;
		if (!b || !b->len)
			return 1;
		pd_buf__put(d, b->p, b->len);
		return 0;
	}
	switch (bit) {
	case FEAT_BUILD_ID:
		if (meta->nr_build_ids <= 0 || !meta->build_ids)
			return 1;
		for (int i = 0; i < meta->nr_build_ids; i++)
			build_id_entry(d, &meta->build_ids[i]);
		return 0;
	case FEAT_HOSTNAME: s = meta->hostname; break;
	case FEAT_OSRELEASE: s = meta->osrelease; break;
	case FEAT_VERSION: s = meta->version; break;
	case FEAT_ARCH: s = meta->arch; break;
	case FEAT_CPUDESC: s = meta->cpudesc; break;
	case FEAT_CPUID: s = meta->cpuid; break;
	case FEAT_TOTAL_MEM:
		if (!meta->total_mem_kb)
			return 1;
		pd_buf__u64(d, meta->total_mem_kb);
		return 0;
	case FEAT_NRCPUS:
		if (!meta->nr_cpus_avail)
			return 1;
		pd_buf__u32(d, meta->nr_cpus_avail);
		pd_buf__u32(d, meta->nr_cpus_online ? meta->nr_cpus_online : meta->nr_cpus_avail);
		return 0;
	case FEAT_CMDLINE:
		if (meta->argc <= 0 || !meta->argv)
			return 1;
		pd_buf__u32(d, meta->argc);
		for (int i = 0; i < meta->argc; i++)
			pd_buf__str(d, meta->argv[i] ? meta->argv[i] : "");
		return 0;
	case FEAT_EVENT_DESC: {
		unsigned char attr[PD_ATTR_SIZE];
		char name[256];

		if (!w->nr)
			return 1;
		/* perf 6.1 matches these to the attrs by index: all of them, in order */
		pd_buf__u32(d, w->nr);
		pd_buf__u32(d, PD_ATTR_SIZE);
		for (int i = 0; i < w->nr; i++) {
			file_attr(&w->evs[i].attr, attr);
			pd_buf__put(d, attr, sizeof(attr));
			pd_buf__u32(d, w->evs[i].nr_ids);
			event_name(&w->evs[i], i, name, sizeof(name));
			pd_buf__str(d, name);
			pd_buf__put(d, w->evs[i].ids, w->evs[i].nr_ids * sizeof(uint64_t));
		}
		return 0;
	}
	case FEAT_SAMPLE_TIME:
		if (!meta->first_time && !meta->last_time)
			return 1;
		pd_buf__u64(d, meta->first_time);
		pd_buf__u64(d, meta->last_time);
		return 0;
	case FEAT_CLOCKID:
		if (!meta->clock_res_ns)
			return 1;
		pd_buf__u64(d, meta->clock_res_ns);
		return 0;
	case FEAT_COMPRESSED:
		if (!w->zp)
			return 1;
		/* perf's write_compressed(): version, type, level, ratio, mmap_len, all u32 */
		pd_buf__u32(d, 1);
		pd_buf__u32(d, 1); /* PERF_COMP_ZSTD */
		pd_buf__u32(d, w->zst.level);
		pd_buf__u32(d,
			    w->zst.bytes_out ?
				    (uint32_t)((double)w->zst.bytes_in / w->zst.bytes_out + 0.5) :
				    0);
		pd_buf__u32(d, PD_COMP_MMAP_LEN);
		return 0;
	case FEAT_CLOCK_DATA:
		if (!meta->tod_ns)
			return 1;
		pd_buf__u32(d, 1);
		pd_buf__u32(d, meta->clockid);
		pd_buf__u64(d, meta->tod_ns);
		pd_buf__u64(d, meta->clockid_ns);
		return 0;
	default: return 1;
	}
	pd_buf__str(d, s ? s : "");
	return 0;
}

int pd_writer__finish(struct pd_writer *w, const struct pd_meta *meta)
{
	static const struct pd_meta none;
	struct pd_buf feat[FEAT_MAX] = { 0 };
	uint64_t bitmap[4] = { 0 }, table[FEAT_MAX][2], off;
	unsigned char hdr[PD_HEADER_SIZE];
	int nfeat = 0, err = 0;

	if (!w->begun || w->finished)
		return -EINVAL;
	if (w->err)
		return w->err;
	if (!meta)
		meta = &none;
	if (w->zp) {
		err = z_finish(w);
		if (err)
			return err;
	}
	w->finished = 1;
	w->data_size = w_pos(w) - w->data_offset;

	for (int bit = 0; bit < FEAT_MAX; bit++) {
		if (bit == FEAT_TRACING_DATA) {
			if (!meta->tracing_data || !meta->tracing_data_len)
				continue;
		} else if (feature_payload(w, meta, bit, &feat[bit])) {
			continue;
		}
		if (feat[bit].err) {
			err = feat[bit].err;
			goto out;
		}
		bitmap[bit / 64] |= 1ull << (bit % 64);
		nfeat++;
	}
	/* table first (one entry per set bit, increasing), payloads after it */
	off = w->data_offset + w->data_size + nfeat * 16ull;
	for (int bit = 0, k = 0; bit < FEAT_MAX; bit++) {
		if (!(bitmap[bit / 64] & (1ull << (bit % 64))))
			continue;
		table[k][0] = off;
		table[k][1] = bit == FEAT_TRACING_DATA ? meta->tracing_data_len : feat[bit].len;
		off += table[k][1];
		k++;
	}
	err = w_put(w, table, nfeat * 16);
	for (int bit = 0; bit < FEAT_MAX && !err; bit++) {
		if (!(bitmap[bit / 64] & (1ull << (bit % 64))))
			continue;
		if (bit == FEAT_TRACING_DATA)
			err = w_put(w, meta->tracing_data, meta->tracing_data_len);
		else
			err = w_put(w, feat[bit].p, feat[bit].len);
	}
	if (!err)
		err = w_flush(w);
	if (err)
		goto out;

	/* the real header last: a file cut short by an error has no magic */
	memset(hdr, 0, sizeof(hdr));
	{
		uint64_t v[9] = {
			0x32454c4946524550ull, /* "PERFILE2" */
			PD_HEADER_SIZE,
			PD_ATTR_ENTRY,
			w->attrs_offset,
			(uint64_t)w->nr * PD_ATTR_ENTRY,
			w->data_offset,
			w->data_size,
			0,
			0, /* event_types */
		};

		memcpy(hdr, v, sizeof(v));
		memcpy(hdr + sizeof(v), bitmap, sizeof(bitmap));
	}
	err = pwrite_all(w->fd, hdr, sizeof(hdr), 0);
	if (err)
		w->err = err;
out:
	for (int bit = 0; bit < FEAT_MAX; bit++)
		free(feat[bit].p);
	if (err && !w->err)
		w->err = err;
	return err;
}

struct pd_writer *pd_writer__new(int fd, const struct pd_event *evs, int nr)
{
	return pd_writer__new_buf(fd, evs, nr, NULL);
}

void pd_writer__free(struct pd_writer *w)
{
	if (!w)
		return;
	if (w->zp && w->own_zp)
		pd_zpool__free(w->zp);
	else if (w->zp)
		zpool_reset(w->zp);
	free(w->zrec);
	if (w->own_buf)
		free(w->buf);
	free(w);
}
