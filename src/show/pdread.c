// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <zstd.h>
#include "show/pdread.h"

#define PERF_MAGIC2 0x32454c4946524550ull /* "PERFILE2" */
#define FEAT_TRACING_DATA 1
#define FEAT_HOSTNAME 3
#define FEAT_OSRELEASE 4
#define FEAT_ARCH 6
#define FEAT_EVENT_DESC 12
#define FEAT_SAMPLE_TIME 21
#define REC_COMPRESSED 81

struct sect {
	uint64_t offset, size;
};
struct file_header {
	uint64_t magic, size, attr_size;
	struct sect attrs, data, event_types;
	uint64_t features[4];
};

/* Bounds-checked reads from the mapped file. */
struct rd {
	const uint8_t *p, *end;
	int bad;
};

static const void *rd_take(struct rd *r, size_t n)
{
	const void *q = r->p;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return NULL;
	}
	r->p += n;
	return q;
}

static uint32_t rd_u32(struct rd *r)
{
	const void *q = rd_take(r, 4);
	uint32_t v = 0;

	if (q)
		memcpy(&v, q, 4);
	return v;
}

static uint64_t rd_u64(struct rd *r)
{
	const void *q = rd_take(r, 8);
	uint64_t v = 0;

	if (q)
		memcpy(&v, q, 8);
	return v;
}

/* perf's header string: u32 length (padding included), then the bytes. */
static void rd_str(struct rd *r, char *out, size_t outlen)
{
	uint32_t n = rd_u32(r);
	const char *s = rd_take(r, n);

	out[0] = 0;
	if (s && outlen)
		snprintf(out, outlen, "%.*s", (int)strnlen(s, n), s);
}

/* A NUL-terminated string in TRACING_DATA. */
static const char *rd_cstr(struct rd *r)
{
	const uint8_t *z = r->bad ? NULL : memchr(r->p, 0, r->end - r->p);
	const char *s = (const char *)r->p;

	if (!z) {
		r->bad = 1;
		return NULL;
	}
	r->p = z + 1;
	return s;
}

static struct tp_format *parse_one_format(const char *sys, const char *text, size_t len)
{
	const char *end = text + len, *n = NULL;
	char name[128] = "";

	/* every read stays inside [text, end): the section is not NUL-terminated */
	for (const char *q = text; q && q < end;) {
		const char *eol = memchr(q, '\n', end - q);

		if (end - q >= 6 && !memcmp(q, "name: ", 6)) {
			n = q + 6;
			break;
		}
		q = eol ? eol + 1 : NULL;
	}
	if (n) {
		const char *e = memchr(n, '\n', end - n);
		size_t l = (e ? e : end) - n;

		snprintf(name, sizeof(name), "%.*s", (int)(l < sizeof(name) ? l : sizeof(name) - 1),
			 n);
	}
	return tp_format__parse(sys, name, text, len);
}

int pdr_tracing_formats(const uint8_t *p, size_t len, struct tp_format ***out)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct rd r = { p, p + len };
	struct tp_format **v = NULL;
	uint32_t nsys, nft;
	int n = 0, cap = 0;

	*out = NULL;
	if (len < sizeof(magic) || memcmp(p, magic, sizeof(magic)))
		return -EINVAL;
	rd_take(&r, sizeof(magic));
	rd_cstr(&r);		      /* version */
	rd_take(&r, 2);		      /* endianness, sizeof(long) */
	rd_u32(&r);		      /* page size */
	for (int i = 0; i < 2; i++) { /* header_page, header_event */
		uint64_t sz;

		rd_cstr(&r);
		sz = rd_u64(&r);
		if (sz > (uint64_t)(r.end - r.p))
			return -EINVAL;
		rd_take(&r, sz);
	}
	nft = rd_u32(&r);
	for (uint32_t i = 0; i < nft && !r.bad; i++) {
		uint64_t sz = rd_u64(&r);

		if (sz > (uint64_t)(r.end - r.p))
			return -EINVAL;
		rd_take(&r, sz);
	}
	nsys = rd_u32(&r);
	for (uint32_t i = 0; i < nsys && !r.bad; i++) {
		const char *sys = rd_cstr(&r);
		uint32_t nev = rd_u32(&r);

		for (uint32_t k = 0; k < nev && !r.bad; k++) {
			uint64_t sz = rd_u64(&r);
			const char *txt;
			struct tp_format *f;

			if (r.bad || sz > (uint64_t)(r.end - r.p))
				goto bad; /* the size itself cut short, or more than is left */
			txt = rd_take(&r, sz);
			f = parse_one_format(sys, txt, sz);
			if (!f)
				continue; /* one unreadable format leaves that event's fields undecoded */
			if (n == cap) {
				/* NOLINTBEGIN(bugprone-sizeof-expression): an array of pointers */
				struct tp_format **nv =
					realloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*v));
				/* NOLINTEND(bugprone-sizeof-expression) */

				if (!nv) {
					tp_format__free(f);
					goto bad;
				}
				v = nv;
			}
			v[n++] = f;
		}
	}
	if (r.bad)
		goto bad;
	*out = v;
	return n;
bad:
	while (n)
		tp_format__free(v[--n]);
	free(v);
	return -EINVAL;
}

void pdr_clean_text(char *s)
{
	unsigned char *in = (unsigned char *)s, *out = in;

	while (in && *in) {
		unsigned char c = *in;
		size_t n = c < 0x80		  ? 1 :
			   c >= 0xc2 && c <= 0xdf ? 2 :
			   c >= 0xe0 && c <= 0xef ? 3 :
			   c >= 0xf0 && c <= 0xf4 ? 4 :
						    0;
		uint32_t cp = n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;
		size_t k;

		for (k = 1; k < n && (in[k] & 0xc0) == 0x80; k++)
			cp = cp << 6 | (in[k] & 0x3f);
		if (n == 1 && c >= 0x20 && c != 0x7f) {
			*out++ = c;
			in++;
		} else if (n > 1 && k == n && cp >= 0xa0 && !(n == 3 && cp < 0x800) &&
			   !(n == 4 && (cp < 0x10000 || cp > 0x10ffff)) &&
			   !(cp >= 0xd800 && cp <= 0xdfff)) {
			memmove(out, in, n); /* printable UTF-8 stays */
			out += n;
			in += n;
		} else {
			/* C0, DEL, C1 (raw or as UTF-8), a broken sequence: one '?' */
			*out++ = '?';
			in += n > 1 && k == n ? n : 1;
		}
	}
	if (out)
		*out = 0;
}

/* ---- records ---- */

struct idmap_ent {
	uint64_t id;
	int attr;
};

static int id_cmp(const void *a, const void *b)
{
	const struct idmap_ent *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Samples: the fields before RAW, in the kernel's order (perf_output_sample). */
static int decode_sample(const struct pdr_attr *a, const struct perf_event_header *h,
			 struct pdr_rec *rec, uint64_t *ip)
{
	uint64_t st = a->attr.sample_type;
	struct rd r = { (const uint8_t *)(h + 1), (const uint8_t *)h + h->size };

	if (st & PERF_SAMPLE_IDENTIFIER)
		rd_u64(&r);
	if (st & PERF_SAMPLE_IP)
		*ip = rd_u64(&r);
	if (st & PERF_SAMPLE_TID) {
		rec->pid = rd_u32(&r);
		rec->tid = rd_u32(&r);
	}
	if (st & PERF_SAMPLE_TIME)
		rec->time = rd_u64(&r);
	if (st & PERF_SAMPLE_ADDR)
		rd_u64(&r);
	if (st & PERF_SAMPLE_ID)
		rd_u64(&r);
	if (st & PERF_SAMPLE_STREAM_ID)
		rd_u64(&r);
	if (st & PERF_SAMPLE_CPU) {
		rec->cpu = rd_u32(&r);
		rd_u32(&r);
	}
	if (st & PERF_SAMPLE_PERIOD)
		rd_u64(&r);
	if (st & PERF_SAMPLE_READ)
		return r.bad ? -EINVAL : 0; /* not in trigrec's files: stop before it */
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = rd_u64(&r);

		if (nr > (uint64_t)(r.end - r.p) / 8)
			return -EINVAL;
		rd_take(&r, nr * 8);
	}
	if (st & PERF_SAMPLE_RAW) {
		rec->raw_size = rd_u32(&r);
		rec->raw = rd_take(&r, rec->raw_size);
		if (!rec->raw)
			rec->raw_size = 0;
	}
	return r.bad ? -EINVAL : 0;
}

/* Other records: the sample_id trailer (TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER). */
static void decode_trailer(const struct pdr_attr *a, const struct perf_event_header *h,
			   struct pdr_rec *rec)
{
	uint64_t st = a->attr.sample_type;
	int n = !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ID) +
		!!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU) +
		!!(st & PERF_SAMPLE_IDENTIFIER);
	struct rd r;

	if (!a->attr.sample_id_all || h->size < sizeof(*h) + n * 8u)
		return;
	r = (struct rd){ (const uint8_t *)h + h->size - n * 8, (const uint8_t *)h + h->size };
	if (st & PERF_SAMPLE_TID) {
		rec->pid = rd_u32(&r);
		rec->tid = rd_u32(&r);
	}
	if (st & PERF_SAMPLE_TIME)
		rec->time = rd_u64(&r);
	if (st & PERF_SAMPLE_ID)
		rd_u64(&r);
	if (st & PERF_SAMPLE_STREAM_ID)
		rd_u64(&r);
	if (st & PERF_SAMPLE_CPU)
		rec->cpu = rd_u32(&r);
}

/*
 * The attr of a sample id: an open-addressing table (ids are the kernel's
 * event ids, dense and few: a multiplicative hash spreads them), built once
 * per file for the index and the streaming reader alike.
 */
static uint32_t id_hash(uint64_t id, uint32_t mask)
{
	return (uint32_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

static int idtab_build(struct pdr_file *f, const struct idmap_ent *map, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n)
		cap <<= 1;
	f->idtab = cap <= (1ull << 31) ? calloc(cap, sizeof(*f->idtab)) : NULL;
	if (!f->idtab)
		return -ENOMEM;
	f->idmask = (uint32_t)(cap - 1);
	for (size_t i = 0; i < n; i++) {
		uint32_t k = id_hash(map[i].id, f->idmask);

		/* an id two attrs claim (a damaged file): the first one in the map keeps it */
		while (f->idtab[k].attr && f->idtab[k].id != map[i].id)
			k = (k + 1) & f->idmask;
		if (!f->idtab[k].attr)
			f->idtab[k] = (struct pdr_id){ map[i].id, map[i].attr + 1 };
	}
	return 0;
}

static int find_attr(const struct pdr_file *f, uint64_t id)
{
	for (uint32_t k = id_hash(id, f->idmask); f->idtab[k].attr; k = (k + 1) & f->idmask)
		if (f->idtab[k].id == id)
			return f->idtab[k].attr - 1;
	return f->nr_attrs == 1 ? 0 : -1;
}

/*
 * The record at p (len bytes left, at base_off in the file or the
 * decompressed data), checked and decoded into rec. Its size, 0 for one
 * that carries no event (perf's own user records: rec not filled), or
 * -errno with err.
 */
static long decode_one(const struct pdr_file *f, const uint8_t *p, size_t len, uint64_t base_off,
		       struct pdr_rec *rec, char *err, size_t errlen)
{
	const struct perf_event_header *h = (const void *)p;
	uint64_t id = 0, ip = 0;

	if (len < sizeof(*h) || h->size < sizeof(*h) || h->size > len) {
		snprintf(err, errlen,
			 "record at %s offset %" PRIu64 " has size %u but %zu bytes "
			 "are left: the file is cut short or corrupt",
			 f->compressed ? "decompressed" : "file", base_off,
			 len >= sizeof(*h) ? h->size : 0, len);
		return -EINVAL;
	}
	if (h->size % 8 && h->size < len) {
		/* the next record would be misaligned: the kernel's sizes are multiples of 8 */
		snprintf(err, errlen,
			 "%s offset %" PRIu64 ": record type %u of %u bytes, not a multiple "
			 "of 8: the file is corrupt",
			 f->compressed ? "decompressed" : "file", base_off, h->type, h->size);
		return -EINVAL;
	}
	if ((h->type == PERF_RECORD_COMM && h->size < sizeof(*h) + 16) ||
	    (h->type == PERF_RECORD_FORK && h->size < sizeof(*h) + 24)) {
		snprintf(err, errlen,
			 "%s offset %" PRIu64 ": PERF_RECORD_%s of %u bytes, shorter than "
			 "its header, %s (%zu): the file is corrupt",
			 f->compressed ? "decompressed" : "file", base_off,
			 h->type == PERF_RECORD_COMM ? "COMM" : "FORK", h->size,
			 h->type == PERF_RECORD_COMM ? "pid, tid and name" :
						       "pid, ppid, tid, ptid and time",
			 sizeof(*h) + (h->type == PERF_RECORD_COMM ? 16 : 24));
		return -EINVAL;
	}
	if (h->type >= 64) /* perf's own user records (FINISHED_ROUND...): no events */
		return 0;
	memset(rec, 0, sizeof(*rec));
	rec->hdr = h;
	rec->type = h->type;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (h->size >= sizeof(*h) + 8)
			memcpy(&id, h + 1, 8);
		rec->attr = find_attr(f, id);
		if (rec->attr >= 0 &&
		    !(f->attrs[rec->attr].attr.sample_type & PERF_SAMPLE_IDENTIFIER))
			rec->attr = f->nr_attrs == 1 ? 0 : -1;
		if (rec->attr >= 0 && decode_sample(&f->attrs[rec->attr], h, rec, &ip))
			rec->attr = -1;
		if (rec->attr >= 0 && rec->cpu >= PDR_MAX_CPUS &&
		    (f->attrs[rec->attr].attr.sample_type & PERF_SAMPLE_CPU)) {
			snprintf(err, errlen,
				 "%s offset %" PRIu64 ": PERF_RECORD_SAMPLE of %s says CPU "
				 "%" PRIu32 ", not below %d (the most Linux has): the file "
				 "is corrupt",
				 f->compressed ? "decompressed" : "file", base_off,
				 f->attrs[rec->attr].name, rec->cpu, PDR_MAX_CPUS);
			return -EINVAL;
		}
	} else {
		if (h->size >= sizeof(*h) + 8)
			memcpy(&id, (const uint8_t *)h + h->size - 8, 8);
		rec->attr = find_attr(f, id);
		if (rec->attr >= 0)
			decode_trailer(&f->attrs[rec->attr], h, rec);
	}
	return h->size;
}

/* the index of a 4 M record snapshot is 200 MB: every byte of it is written and read twice */
_Static_assert(sizeof(void *) != 8 || sizeof(struct pdr_rec) == 48, "struct pdr_rec grew");

uint64_t pdr_sample_ip(const struct pdr_file *f, int attr, const struct perf_event_header *hdr)
{
	struct pdr_rec tmp;
	uint64_t ip = 0;

	/* decoded once already (decode_one): it fits in the record */
	if (hdr && hdr->type == PERF_RECORD_SAMPLE && attr >= 0 && attr < f->nr_attrs)
		decode_sample(&f->attrs[attr], hdr, &tmp, &ip);
	return ip;
}

/* From o on, a PERF_RECORD_COMPRESSED as the header chain of d (len bytes) reaches it. */
static int has_compressed(const uint8_t *d, size_t len, size_t o)
{
	while (o + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header h;

		memcpy(&h, d + o, sizeof(h));
		if (h.type == REC_COMPRESSED)
			return 1;
		if (h.size < sizeof(h))
			return 0;
		o += h.size;
	}
	return 0;
}

static int decompress(struct pdr_file *f, const uint8_t *p, size_t len, size_t *plain_len,
		      char *err, size_t errlen);

/*
 * One walk of f->data into the index (*cap: its allocated length). 1: a
 * PERF_RECORD_COMPRESSED was met (or follows a record that is not valid)
 * while reading the file in place: the caller decompresses and walks again.
 */
static int walk_index(struct pdr_file *f, size_t *cap, char *err, size_t errlen)
{
	for (size_t o = 0; f->data && o < f->data_len;) {
		struct pdr_rec rec;
		long n;

		if (!f->plain && f->data_len - o >= sizeof(struct perf_event_header) &&
		    ((const struct perf_event_header *)(f->data + o))->type == REC_COMPRESSED)
			return 1;
		/* a few records ahead: the file is read once, from memory, never from the cache */
		__builtin_prefetch(f->data + o + 1024);
		n = decode_one(f, f->data + o, f->data_len - o, f->data_base + o, &rec, err,
			       errlen);
		if (n < 0)
			return !f->plain && has_compressed(f->data, f->data_len, o) ? 1 : (int)n;
		if (!n) {
			o += ((const struct perf_event_header *)(f->data + o))->size;
			continue;
		}
		o += n;
		if (f->nr_recs == *cap) {
			size_t nc = *cap ? *cap * 2 : 4096;
			struct pdr_rec *nr = realloc(f->recs, nc * sizeof(*nr));

			if (!nr) {
				snprintf(err, errlen, "out of memory for %zu records", nc);
				return -ENOMEM;
			}
			f->recs = nr;
			*cap = nc;
		}
		f->recs[f->nr_recs++] = rec;
	}
	return 0;
}

/*
 * The index of every record. The file is walked in place (aligned, see
 * pdr_open_mem_flags()) until a PERF_RECORD_COMPRESSED appears, or a
 * record that is not valid is followed by one: then the whole section is
 * decompressed and walked again, the records before counted once. A plain
 * file is so read once, not twice (a scan for compression first was a
 * fifth of `trigrec show`'s time on a 475 MB snapshot).
 */
static int walk_records(struct pdr_file *f, char *err, size_t errlen)
{
	size_t cap = 0, plain_len = 0;
	int r = walk_index(f, &cap, err, errlen);

	if (r != 1)
		return r;
	f->compressed = 1;
	f->nr_recs = 0;
	if (decompress(f, f->sect, f->sect_len, &plain_len, err, errlen))
		return -EINVAL;
	f->data = f->plain;
	f->data_len = plain_len;
	f->data_base = 0;
	return walk_index(f, &cap, err, errlen); /* f->plain now: never 1 */
}

int pdr_next(struct pdr_file *f, size_t *off, struct pdr_rec *rec, char *err, size_t errlen)
{
	while (*off < f->data_len) {
		long n;

		if (!f->compressed && f->data_len - *off >= sizeof(struct perf_event_header) &&
		    ((const struct perf_event_header *)(f->data + *off))->type == REC_COMPRESSED) {
			/*
			 * The first compressed record (PDR_STREAM): the whole section
			 * decompressed, as pdr_open() reads it. The plain records before
			 * it are copied as they are, so *off is the same place there.
			 */
			size_t plain_len = 0;

			f->compressed = 1;
			/* a realigned copy: records already handed out may still point into it */
			f->plain_old = f->plain;
			f->plain = NULL;
			if (decompress(f, f->sect, f->sect_len, &plain_len, err, errlen))
				return -EINVAL;
			f->data = f->plain;
			f->data_len = plain_len;
			f->data_base = 0;
			continue;
		}
		/* a few records ahead: the file is read once, from memory, never from the cache */
		__builtin_prefetch(f->data + *off + 1024);
		n = decode_one(f, f->data + *off, f->data_len - *off, f->data_base + *off, rec, err,
			       errlen);

		if (n < 0)
			return (int)n;
		if (!n) {
			*off += ((const struct perf_event_header *)(f->data + *off))->size;
			continue;
		}
		*off += n;
		return 1;
	}
	return 0;
}

/* Room for n more bytes in f->plain (doubling). */
static int plain_room(struct pdr_file *f, size_t *cap, size_t len, size_t n)
{
	uint8_t *np;
	size_t nc = *cap;

	while (nc - len < n)
		nc = nc * 2 + n;
	if (nc == *cap)
		return 0;
	np = realloc(f->plain, nc);
	if (!np)
		return -ENOMEM;
	f->plain = np;
	*cap = nc;
	return 0;
}

/*
 * The data section with every PERF_RECORD_COMPRESSED replaced by what it
 * holds: one zstd stream through the whole section, as perf reads it
 * (records may continue from one payload into the next).
 */
static int decompress(struct pdr_file *f, const uint8_t *p, size_t len, size_t *plain_len,
		      char *err, size_t errlen)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	size_t cap = len * 4 + 65536, n = 0;
	uint64_t max = (uint64_t)len * PDR_ZSTD_MAX_RATIO + PDR_ZSTD_SLACK;
	int ret = 0;

	f->plain = malloc(cap);
	if (!ds || !f->plain)
		goto oom;
	ZSTD_initDStream(ds);
	for (size_t o = 0; o < len;) {
		/* COMPRESSED sizes are not multiples of 8: headers are copied, never cast */
		struct perf_event_header hh = { 0 }, *h = &hh;

		if (len - o >= sizeof(hh))
			memcpy(&hh, p + o, sizeof(hh));
		if (len - o < sizeof(*h) || h->size < sizeof(*h) || h->size > len - o) {
			snprintf(err, errlen, "record at data offset %zu is cut short", o);
			ret = -EINVAL;
			goto out;
		}
		if (h->type != REC_COMPRESSED) {
			if (n + h->size > max) /* never: plain records are in the file */
				goto oom;
			if (plain_room(f, &cap, n, h->size))
				goto oom;
			memcpy(f->plain + n, p + o, h->size);
			n += h->size;
		} else {
			ZSTD_inBuffer in = { p + o + sizeof(hh), h->size - sizeof(hh), 0 };

			/* until the payload is consumed and zstd holds nothing back (output not full) */
			for (;;) {
				ZSTD_outBuffer ob;
				size_t r;

				if (plain_room(f, &cap, n, 65536))
					goto oom;
				ob = (ZSTD_outBuffer){ f->plain + n, cap - n, 0 };
				r = ZSTD_decompressStream(ds, &ob, &in);
				if (ZSTD_isError(r)) {
					snprintf(err, errlen,
						 "PERF_RECORD_COMPRESSED at data offset %zu: "
						 "zstd: %s",
						 o, ZSTD_getErrorName(r));
					ret = -EINVAL;
					goto out;
				}
				n += ob.pos;
				if (n > max) {
					snprintf(
						err, errlen,
						"PERF_RECORD_COMPRESSED at data offset %zu: the "
						"%zu bytes of data decompress to more than %" PRIu64
						" (%d times and %u MiB): a crafted or corrupt file",
						o, len, max, PDR_ZSTD_MAX_RATIO,
						PDR_ZSTD_SLACK >> 20);
					ret = -E2BIG;
					goto out;
				}
				if (in.pos == in.size && ob.pos < ob.size)
					break;
			}
		}
		o += h->size;
	}
	*plain_len = n;
	goto out;
oom:
	snprintf(err, errlen, "out of memory for the decompressed data");
	ret = -ENOMEM;
out:
	ZSTD_freeDStream(ds);
	return ret;
}

static void name_attrs(struct pdr_file *f, const uint8_t *ed, size_t edlen)
{
	struct rd r = { ed, ed ? ed + edlen : NULL }; /* no EVENT_DESC: NULL + 0 is UB */
	uint32_t nr = ed ? rd_u32(&r) : 0, asz = ed ? rd_u32(&r) : 0;

	/* EVENT_DESC: perf matches its entries to the attrs by index. */
	for (uint32_t i = 0; i < nr && !r.bad; i++) {
		uint32_t nids;
		char name[256];

		rd_take(&r, asz);
		nids = rd_u32(&r);
		rd_str(&r, name, sizeof(name));
		if (nids > (uint64_t)(r.end - r.p) / 8)
			break;
		rd_take(&r, nids * 8ull);
		if (!r.bad && (int)i < f->nr_attrs)
			snprintf(f->attrs[i].name, sizeof(f->attrs[i].name), "%s", name);
		if ((int)i < f->nr_attrs)
			pdr_clean_text(f->attrs[i].name);
	}
	for (int i = 0; i < f->nr_attrs; i++) {
		struct pdr_attr *a = &f->attrs[i];

		if (a->attr.type == PERF_TYPE_TRACEPOINT)
			for (int k = 0; k < f->nr_fmts && !a->fmt; k++)
				if (f->fmts[k]->id == (int)a->attr.config)
					a->fmt = f->fmts[k];
		if (!a->name[0] && a->fmt) {
			snprintf(a->name, sizeof(a->name), "%s:%s", a->fmt->sys, a->fmt->name);
			pdr_clean_text(a->name);
		}
		if (!a->name[0])
			snprintf(a->name, sizeof(a->name), "attr%d", i);
	}
}

struct pdr_file *pdr_open_mem_flags(const void *buf, size_t len, int flags, char *err,
				    size_t errlen)
{
	const uint8_t *b = buf;
	struct pdr_file *f = calloc(1, sizeof(*f));
	struct file_header fh;
	struct idmap_ent *map = NULL;
	size_t nmap = 0, nattr, plain_len = 0;
	const uint8_t *ed = NULL, *data;
	size_t edlen = 0;
	struct rd ft;
	uint64_t ids_total = 0;
	int bit_i = 0;

	if (!f) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (len < sizeof(fh)) {
		snprintf(err, errlen, "%zu bytes: too short for a perf.data header (104)", len);
		goto fail;
	}
	memcpy(&fh, b, sizeof(fh));
	if (fh.magic != PERF_MAGIC2) {
		snprintf(err, errlen, "not a perf.data file (magic %016" PRIx64 "%s)", fh.magic,
			 fh.magic ? "" : "; all zeros: a write that never finished");
		goto fail;
	}
	if (fh.attr_size < 16 + PERF_ATTR_SIZE_VER0 || fh.attrs.offset > len ||
	    fh.attrs.size > len - fh.attrs.offset || fh.data.offset > len ||
	    fh.data.size > len - fh.data.offset) {
		snprintf(err, errlen,
			 "header sections out of the file's %zu bytes (attrs %" PRIu64 "+%" PRIu64
			 ", data %" PRIu64 "+%" PRIu64 "): cut short?",
			 len, fh.attrs.offset, fh.attrs.size, fh.data.offset, fh.data.size);
		goto fail;
	}
	nattr = fh.attrs.size / fh.attr_size;
	f->attrs = calloc(nattr ? nattr : 1, sizeof(*f->attrs));
	if (!f->attrs)
		goto oom;
	f->nr_attrs = nattr;
	for (size_t i = 0; i < nattr; i++) {
		const uint8_t *e = b + fh.attrs.offset + i * fh.attr_size;
		size_t asz = fh.attr_size - 16;
		struct sect ids;

		memcpy(&f->attrs[i].attr, e,
		       asz < sizeof(struct perf_event_attr) ? asz : sizeof(struct perf_event_attr));
		memcpy(&ids, e + asz, sizeof(ids));
		if (ids.offset > len || ids.size > len - ids.offset) {
			snprintf(err, errlen,
				 "attr %zu (file offset %zu): its ids (%" PRIu64 "+%" PRIu64
				 ") are out of the file's %zu bytes",
				 i, (size_t)(e - b), ids.offset, ids.size, len);
			goto fail;
		}
		/* the tables may not overlap: all of them together fit in the file */
		ids_total += ids.size;
		if (ids_total > len) {
			snprintf(
				err, errlen,
				"attr %zu (file offset %zu): the attrs' id tables add up to %" PRIu64
				" bytes, more than the file's %zu: they overlap, the file is "
				"crafted or corrupt",
				i, (size_t)(e - b), ids_total, len);
			goto fail;
		}
		f->attrs[i].nr_ids = ids.size / 8;
		f->attrs[i].ids = malloc(ids.size + 8);
		if (!f->attrs[i].ids)
			goto oom;
		memcpy(f->attrs[i].ids, b + ids.offset, ids.size);
		nmap += f->attrs[i].nr_ids;
	}
	map = malloc((nmap + 1) * sizeof(*map));
	if (!map)
		goto oom;
	nmap = 0;
	for (size_t i = 0; i < nattr; i++)
		for (uint32_t k = 0; k < f->attrs[i].nr_ids; k++)
			map[nmap++] = (struct idmap_ent){ f->attrs[i].ids[k], i };
	qsort(map, nmap, sizeof(*map), id_cmp);
	if (idtab_build(f, map, nmap))
		goto oom;
	free(map);
	map = NULL;

	/* Features: one {offset, size} per set bit, after the data section. */
	ft = (struct rd){ b + fh.data.offset + fh.data.size, b + len };
	for (int bit = 0; bit < 256; bit++) {
		struct sect s;

		if (!(fh.features[bit / 64] >> (bit % 64) & 1))
			continue;
		s.offset = rd_u64(&ft);
		s.size = rd_u64(&ft);
		bit_i++;
		if (ft.bad || s.offset > len || s.size > len - s.offset)
			break; /* a damaged table loses names and formats, not the records */
		if (bit == FEAT_TRACING_DATA) {
			int n = pdr_tracing_formats(b + s.offset, s.size, &f->fmts);

			f->nr_fmts = n > 0 ? n : 0;
		} else if (bit == FEAT_EVENT_DESC) {
			ed = b + s.offset;
			edlen = s.size;
		} else if (bit == FEAT_HOSTNAME || bit == FEAT_OSRELEASE || bit == FEAT_ARCH) {
			struct rd r = { b + s.offset, b + s.offset + s.size };

			if (bit == FEAT_HOSTNAME)
				rd_str(&r, f->hostname, sizeof(f->hostname));
			else if (bit == FEAT_OSRELEASE)
				rd_str(&r, f->osrelease, sizeof(f->osrelease));
			else
				rd_str(&r, f->arch, sizeof(f->arch));
			pdr_clean_text(f->hostname);
			pdr_clean_text(f->osrelease);
			pdr_clean_text(f->arch);
		} else if (bit == FEAT_SAMPLE_TIME && s.size >= 16) {
			memcpy(&f->first_time, b + s.offset, 8);
			memcpy(&f->last_time, b + s.offset + 8, 8);
		}
	}
	name_attrs(f, ed, edlen);

	data = b + fh.data.offset;
	f->sect = data;
	f->sect_len = fh.data.size;
	/*
	 * Records are read in place, so they must be 8-byte aligned: copy them
	 * when not, decompressed if any is compressed (a scan of every
	 * record's header, only then). In place, walk_records() decompresses
	 * when it meets the first compressed record, and so does pdr_next()
	 * when streaming: a plain file is read once, not twice.
	 */
	if ((uintptr_t)data % 8) {
		f->compressed = !(flags & PDR_STREAM) && has_compressed(data, fh.data.size, 0);
		if (decompress(f, data, fh.data.size, &plain_len, err, errlen))
			goto fail;
		f->data = f->plain;
		f->data_len = plain_len;
		f->data_base = f->compressed ? 0 : fh.data.offset;
	} else {
		f->data = data;
		f->data_len = fh.data.size;
		f->data_base = fh.data.offset;
	}
	if (!(flags & PDR_STREAM) && walk_records(f, err, errlen))
		goto fail;
	free(map);
	return f;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	free(map);
	pdr_close(f);
	return NULL;
}

struct pdr_file *pdr_open_mem(const void *buf, size_t len, char *err, size_t errlen)
{
	return pdr_open_mem_flags(buf, len, 0, err, errlen);
}

/*
 * A file read in one pass is mapped whole at once (no page fault per 64 KiB
 * as the pass goes: about a tenth of `trigrec test`'s time on a 475 MB
 * snapshot), unless it is more than half of the memory free now: then the
 * pages read first would be evicted before their turn and read twice.
 */
static int stream_populate(const struct stat *st, int flags)
{
	long pages = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	return (flags & PDR_STREAM) && pages > 0 && psz > 0 &&
	       (uint64_t)st->st_size <= (uint64_t)pages * (uint64_t)psz / 2;
}

struct pdr_file *pdr_open_flags(const char *path, int flags, char *err, size_t errlen)
{
	struct pdr_file *f;
	struct stat st;
	void *m;
	int fe;
	/* O_NONBLOCK: a FIFO in the snapshot's place must not hang the open */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	fe = fstat(fd, &st) ? errno : 0;
	if (fe || !S_ISREG(st.st_mode) || !st.st_size) {
		snprintf(err, errlen, "%s: %s", path,
			 fe		      ? strerror(fe) :
			 !S_ISREG(st.st_mode) ? "not a regular file" :
						"empty file");
		close(fd);
		return NULL;
	}
	m = mmap(NULL, st.st_size, PROT_READ,
		 MAP_PRIVATE | (stream_populate(&st, flags) ? MAP_POPULATE : 0), fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		snprintf(err, errlen, "%s: mmap: %s", path, strerror(errno));
		return NULL;
	}
	if (flags & PDR_STREAM)
		madvise(m, st.st_size, MADV_SEQUENTIAL); /* one pass, front to back */
	f = pdr_open_mem_flags(m, st.st_size, flags, err, errlen);
	if (!f) {
		char why[512];

		/* what is wrong and where, after the file it is in */
		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "%s: %s", path, why);
		munmap(m, st.st_size);
		return NULL;
	}
	f->map = m;
	f->map_len = st.st_size;
	return f;
}

struct pdr_file *pdr_open(const char *path, char *err, size_t errlen)
{
	return pdr_open_flags(path, 0, err, errlen);
}

void pdr_close(struct pdr_file *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->nr_attrs; i++)
		free(f->attrs[i].ids);
	free(f->attrs);
	free(f->idtab);
	free(f->recs);
	free(f->plain);
	free(f->plain_old);
	for (int i = 0; i < f->nr_fmts; i++)
		tp_format__free(f->fmts[i]);
	free(f->fmts);
	if (f->map)
		munmap(f->map, f->map_len);
	free(f);
}

/* ---- fields ---- */

static uint64_t get_u(const uint8_t *p, uint32_t size)
{
	uint8_t b1;
	uint16_t b2;
	uint32_t b4;
	uint64_t b8 = 0;

	switch (size) {
	case 1: memcpy(&b1, p, 1); return b1;
	case 2: memcpy(&b2, p, 2); return b2;
	case 4: memcpy(&b4, p, 4); return b4;
	default: memcpy(&b8, p, size < 8 ? size : 8); return b8;
	}
}

static int64_t get_s(const uint8_t *p, uint32_t size)
{
	uint64_t v = get_u(p, size);

	if (size < 8 && size && (v >> (size * 8 - 1) & 1))
		v |= ~0ull << (size * 8);
	return (int64_t)v;
}

/* Printable text of at most n bytes (to the first NUL); others as '?'. */
static void put_text(char *buf, size_t len, const uint8_t *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n && s[i] && o + 1 < len; i++)
		buf[o++] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	buf[o] = 0;
}

void pdr_field_str(const struct tp_field *fl, const uint8_t *raw, uint32_t raw_size, char *buf,
		   size_t len)
{
	buf[0] = 0;
	/* 64-bit sums: a format's offset + size may wrap in 32 bits */
	if (!len || (uint64_t)fl->offset + fl->size > raw_size ||
	    (fl->kind == TP_FIELD_DATALOC && fl->size < 4))
		return;
	const uint8_t *d = raw + fl->offset;

	switch (fl->kind) {
	case TP_FIELD_CHARARRAY: put_text(buf, len, d, fl->size); break;
	case TP_FIELD_DATALOC: {
		uint32_t v = get_u(d, 4), off = v & 0xffff, n = v >> 16;

		if (off + n > raw_size)
			n = off < raw_size ? raw_size - off : 0;
		if (strstr(fl->type, "char"))
			put_text(buf, len, raw + off, n);
		else
			snprintf(buf, len, "[%u bytes]", n);
		break;
	}
	case TP_FIELD_ARRAY: {
		const char *b = strchr(fl->type, '[');
		uint32_t n = b ? strtoul(b + 1, NULL, 10) : 0, es = n ? fl->size / n : 0;
		size_t o = snprintf(buf, len, "[");

		for (uint32_t k = 0; es && k < n && o < len; k++)
			o += snprintf(buf + o, len - o, "%s%" PRIu64, k ? ", " : "",
				      get_u(d + k * es, es));
		if (o < len)
			snprintf(buf + o, len - o, "]");
		break;
	}
	case TP_FIELD_PTR: snprintf(buf, len, "0x%" PRIx64, get_u(d, fl->size)); break;
	default:
		if (fl->is_signed)
			snprintf(buf, len, "%" PRId64, get_s(d, fl->size));
		else
			snprintf(buf, len, "%" PRIu64, get_u(d, fl->size));
	}
}

void pdr_fields_str(const struct tp_format *fmt, const uint8_t *raw, uint32_t raw_size, char *buf,
		    size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (int i = 0; fmt && raw && i < fmt->nr_fields && o + 1 < len; i++) {
		const struct tp_field *fl = &fmt->fields[i];
		char v[256];

		if (fl->is_common)
			continue;
		pdr_field_str(fl, raw, raw_size, v, sizeof(v));
		o += snprintf(buf + o, len - o, "%s%s=%s", o ? " " : "", fl->name, v);
	}
	pdr_clean_text(buf); /* the names come from the file's formats too */
	if (o >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
}

int pdr_field_int(const struct tp_format *fmt, const uint8_t *raw, uint32_t raw_size,
		  const char *name, int64_t *out)
{
	return pdr_fl_int(fmt ? tp_format__field(fmt, name) : NULL, raw, raw_size, out);
}

int pdr_fl_int(const struct tp_field *fl, const uint8_t *raw, uint32_t raw_size, int64_t *out)
{
	*out = 0;
	if (!fl || !raw || (fl->kind != TP_FIELD_INT && fl->kind != TP_FIELD_PTR) ||
	    (uint64_t)fl->offset + fl->size > raw_size || fl->size > 8)
		return -ENOENT;
	*out = fl->is_signed ? get_s(raw + fl->offset, fl->size) :
			       (int64_t)get_u(raw + fl->offset, fl->size);
	return 0;
}
