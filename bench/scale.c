// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The snapshot write path at the scale of big hosts, without big hosts.
 *
 * Records are captured once from this machine's kernel (trigrec's own
 * recorder, perf-written rings: sched_switch, sched_wakeup and raw syscall
 * entries of whatever runs, plus a syscall loop of our own). They are then
 * replayed into synthetic ring images for N simulated CPUs of M MiB each:
 * every CPU gets its own stream with its own rate (so the streams
 * interleave unevenly, as on a real host), laid out newest first as
 * ring_copy_linear() leaves a harvested ring, and each ring full (wrapped).
 * snapshot__write(), the code the side-band thread runs, turns that
 * harvest into a perf.data file and its sidecar; this program times it.
 *
 * Per configuration: trigger-to-file (the write, from harvest to a named
 * file), the writer's CPU time, kept ring bytes per second, and the peak
 * RSS of the write over the ring images (VmHWM after clear_refs 5: the
 * images themselves count, as the harvested copy does in trigrec). Then a
 * least-squares fit of time against kept bytes, and time per byte by CPU
 * count (flat = linear in bytes).
 *
 * usage: scale [-c CPUS] [-m MIBS] [-r RUNS] [-o DIR] [-z LEVEL] [-s | -C] [-w] [-k] [-K FILE]
 *   -c 2,16,64      simulated CPU counts
 *   -m 1,4          MiB per CPU
 *   -r 3            runs per configuration (the median is shown)
 *   -o /dev/shm/... output directory (default: tmpfs, i.e. into the page
 *                   cache: fsync is free there, so disk speed is left out)
 *   -z LEVEL        zstd-compress the data (perf record -z)
 *   -s              ring sets (rings=bpf, the default recording path): two
 *                   BPF-output rings per CPU of M MiB each, both full, in
 *                   the layout trigrec.bpf.c writes, so the writer's
 *                   conversion (bpfrec.c) is timed too
 *   -C              compact rings (rings=compact, the default recording
 *                   path): per CPU one byte ring of M MiB, full (written past
 *                   its end), each record encoded by cr_put() as
 *                   bpf/records.bpf.h's cr_body() encodes it, plus its empty
 *                   carry (the spare's 1/8), so the decoding, expansion and
 *                   name filling (compact.c, bpfrec.c) are timed too
 *   -w              the sidecar's why analysis (show/why.c) as a trigger
 *                   snapshot has it, whatever the size: a triggering thread
 *                   (this program's, whose syscall loop is in the records)
 *                   and no record bound; its cost is the "why ms (CPU)"
 *                   column (part of trigger-to-file). Without -w it is a
 *                   manual one: its why needs no records
 *   -k              keep each configuration's last snapshot (and sidecar)
 *                   in DIR and name it on stderr: the input for timing
 *                   `trigrec show` and perf on a snapshot of that size
 *   -K FILE         the capture from FILE if it exists, else captured and
 *                   saved there, with the clock it was taken at: two builds
 *                   then write their snapshots from the same records at the
 *                   same times (with -k, `perf script` on both compares a
 *                   change to the writer record for record)
 * Needs root (the one capture). Prints a markdown table.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "capture/recorder.h"
#include "trigrec_abi.h"
#include "capture/ring_reader.h"
#include "engine/crwords.h"
#include "snapshot/compact.h"
#include "snapshot/snapshot.h"
#include "util/log.h"

#define MAX_CFG 16

/* A captured record, as the kernel wrote it. */
struct tmpl {
	const struct perf_event_header *h;
	uint32_t time_off; /* offset of the TIME field in the record */
	int ev;		   /* index in the recorder's events */
	uint32_t idj;	   /* which of the event's ids the record carries (-K) */
};

struct capture {
	struct tmpl *recs;
	size_t n, cap;
	size_t bytes;
	const struct tmpl *track; /* tracking records (COMM, FORK, EXIT) */
	size_t ntrack;
	struct recorder *r;
	struct harvest *h;
	int tracking; /* collecting from a tracking ring */
	struct tmpl *trk;
	size_t ntrk, captrk;
};

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Offset of TIME in a record of this layout, or 0 when it has none. */
static uint32_t time_offset(const struct perf_event_header *h, const struct perf_event_attr *a)
{
	uint64_t st = a->sample_type;
	uint32_t off = sizeof(*h);

	if (!(st & PERF_SAMPLE_TIME))
		return 0;
	if (h->type != PERF_RECORD_SAMPLE) {
		/* sample_id_all trailer: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER */
		uint32_t n = 0;

		if (!a->sample_id_all)
			return 0;
		n += !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
		     !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
		     !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER);
		return h->size - 8 * n + 8 * !!(st & PERF_SAMPLE_TID);
	}
	off += 8 * !!(st & PERF_SAMPLE_IDENTIFIER);
	off += 8 * !!(st & PERF_SAMPLE_IP);
	off += 8 * !!(st & PERF_SAMPLE_TID);
	return off;
}

static int add(struct tmpl **v, size_t *n, size_t *cap, const struct perf_event_header *h,
	       uint32_t off, int ev, uint32_t idj)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 4096;
		struct tmpl *nv = realloc(*v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = (struct tmpl){ h, off, ev, idj };
	return 0;
}

static int collect(const struct perf_event_header *h, void *ctx)
{
	struct capture *c = ctx;
	int ev = -1;
	uint64_t id;
	uint32_t off, idj = 0;

	if (h->size < 16)
		return 0;
	id = h->type == PERF_RECORD_SAMPLE ? *(const uint64_t *)(h + 1) :
					     *(const uint64_t *)((const char *)h + h->size - 8);
	for (int i = 0; i < c->r->nr_evs && ev < 0; i++)
		for (uint32_t j = 0; j < c->r->evs[i].pd.nr_ids; j++)
			if (c->r->evs[i].pd.ids[j] == id) {
				ev = i;
				idj = j;
			}
	if (ev < 0)
		return 0;
	off = time_offset(h, &c->r->evs[ev].pd.attr);
	if (!off)
		return 0;
	if (c->tracking)
		return add(&c->trk, &c->ntrk, &c->captrk, h, off, ev, idj);
	if (h->type != PERF_RECORD_SAMPLE)
		return 0;
	c->bytes += h->size;
	return add(&c->recs, &c->n, &c->cap, h, off, ev, idj);
}

/* -K: the clock the capture was taken at, the simulated streams' end (0: now). */
static uint64_t t_fixed;

static int save_recs(FILE *f, const struct tmpl *v, size_t n)
{
	if (fwrite(&n, sizeof(n), 1, f) != 1)
		return -EIO;
	for (size_t i = 0; i < n; i++)
		if (fwrite(&v[i].time_off, 4, 1, f) != 1 || fwrite(&v[i].ev, 4, 1, f) != 1 ||
		    fwrite(&v[i].idj, 4, 1, f) != 1 || fwrite(v[i].h, v[i].h->size, 1, f) != 1)
			return -EIO;
	return 0;
}

/*
 * The records of a saved capture, their ids made this run's: the recorder
 * is opened anew, and its formats are this kernel's.
 */
static int load_recs(FILE *f, const struct recorder *r, struct tmpl **v, size_t *n, size_t *cap)
{
	if (fread(n, sizeof(*n), 1, f) != 1 || *n > (1u << 24))
		return -EINVAL;
	*v = calloc(*n ? *n : 1, sizeof(**v));
	if (!*v)
		return -ENOMEM;
	*cap = *n;
	for (size_t i = 0; i < *n; i++) {
		struct tmpl *t = &(*v)[i];
		struct perf_event_header ph;
		uint8_t *b;
		uint64_t id;

		if (fread(&t->time_off, 4, 1, f) != 1 || fread(&t->ev, 4, 1, f) != 1 ||
		    fread(&t->idj, 4, 1, f) != 1 || fread(&ph, sizeof(ph), 1, f) != 1 ||
		    ph.size < 16 || t->ev < 0 || t->ev >= r->nr_evs ||
		    t->idj >= r->evs[t->ev].pd.nr_ids)
			return -EINVAL;
		b = malloc(ph.size);
		if (!b)
			return -ENOMEM;
		memcpy(b, &ph, sizeof(ph));
		if (fread(b + sizeof(ph), ph.size - sizeof(ph), 1, f) != 1) {
			free(b);
			return -EINVAL;
		}
		id = r->evs[t->ev].pd.ids[t->idj];
		memcpy(ph.type == PERF_RECORD_SAMPLE ? b + 8 : b + ph.size - 8, &id, 8);
		t->h = (const struct perf_event_header *)b;
	}
	return 0;
}

/* -K FILE: 1 when the capture came from it, 0 when there is none yet, or an error. */
static int capture_load(struct capture *c, const char *path)
{
	FILE *f = fopen(path, "rb");
	int err;

	if (!f)
		return errno == ENOENT ? 0 : -errno;
	err = fread(&t_fixed, sizeof(t_fixed), 1, f) == 1 ? 0 : -EINVAL;
	if (!err)
		err = load_recs(f, c->r, &c->recs, &c->n, &c->cap);
	if (!err)
		err = load_recs(f, c->r, &c->trk, &c->ntrk, &c->captrk);
	fclose(f);
	for (size_t i = 0; !err && i < c->n; i++)
		c->bytes += c->recs[i].h->size;
	return err ? err : 1;
}

static int capture_save(const struct capture *c, const char *path)
{
	FILE *f = fopen(path, "wb");
	int err;

	if (!f)
		return -errno;
	t_fixed = now_ns(CLOCK_MONOTONIC);
	err = fwrite(&t_fixed, sizeof(t_fixed), 1, f) == 1 ? 0 : -EIO;
	if (!err)
		err = save_recs(f, c->recs, c->n);
	if (!err)
		err = save_recs(f, c->trk, c->ntrk);
	if (fclose(f) && !err)
		err = -EIO;
	return err;
}

/*
 * Record what this machine does for a moment, into 1 MiB perf-written rings
 * (or, with -K, read what an earlier run recorded).
 */
static int capture(struct capture *c, const char *path)
{
	static const struct rec_event_spec ev[] = {
		{ "sched:sched_switch", NULL },
		{ "sched:sched_wakeup", NULL },
		{ "raw_syscalls:sys_enter", NULL },
	};
	struct recorder_opts o = {
		.events = ev,
		.nr_events = 3,
		.mmap_pages = 256,
		.track_pages = 16,
		.rings = REC_RINGS_PERF,
	};
	pid_t kid;
	int err;

	c->r = recorder__new(&o);
	if (!c->r)
		return -EINVAL;
	err = recorder__open(c->r);
	if (err) {
		fprintf(stderr, "scale: cannot open the capture's events: %s (run as root)\n",
			strerror(-err));
		return err;
	}
	if (path) {
		err = capture_load(c, path);
		if (err < 0) {
			fprintf(stderr, "scale: %s: %s\n", path, strerror(-err));
			return err;
		}
		if (err)
			return 0;
	}
	/* Something to record: a child that forks, sleeps and calls getppid. */
	kid = fork();
	if (kid == 0) {
		for (int i = 0; i < 200; i++) {
			pid_t g = fork();

			if (g == 0)
				_exit(0);
			waitpid(g, NULL, 0);
			for (int j = 0; j < 200; j++)
				syscall(SYS_getppid);
			usleep(200);
		}
		_exit(0);
	}
	waitpid(kid, NULL, 0);
	c->h = harvest__new(c->r);
	if (!c->h)
		return -errno;
	err = recorder__harvest(c->r, c->h);
	if (err)
		return err;
	recorder__disable(c->r);
	for (int i = 0; i < c->r->nr_rings; i++) {
		c->tracking = c->r->rings[i].tracking;
		ring_walk(c->h->rings[i].buf, c->h->rings[i].len, collect, c, NULL);
	}
	if (c->n < 1000) {
		fprintf(stderr, "scale: the capture holds only %zu records\n", c->n);
		return -ENODATA;
	}
	if (path) {
		err = capture_save(c, path);
		if (err)
			fprintf(stderr, "scale: %s: %s\n", path, strerror(-err));
	}
	return err;
}

/* What a configuration measured, one run. */
struct result {
	double ms, cpu_ms, sys_ms, floor_ms, why_ms, why_cpu_ms;
	uint64_t kept_bytes, records, ring_bytes, file_bytes;
	double hwm_mib;
};

static double vm_hwm_mib(void)
{
	char line[256];
	double kb = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %lf", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb / 1024;
}

static void reset_hwm(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");

	if (f) {
		fputs("5", f);
		fclose(f);
	}
}

/*
 * One simulated host: ncpu main rings of mib MiB each, full, plus a tracking
 * ring per CPU (the captured COMM/FORK/EXIT on CPU 0's). CPU c's stream runs
 * at its own rate: record gaps of 500 + 37 * (c % 11) ns, all streams ending
 * within the same microsecond (the trigger), so the oldest ends differ by CPU.
 */
/*
 * The ring copies of one simulated host, as a harvest leaves them.
 * perf's path (sets 0): per CPU one main ring of `size` bytes, full.
 * Ring sets (sets 2): per CPU two BPF-output rings of `size` bytes, both
 * full, the newest records in set 0 and the older ones, numbered on without
 * a gap, in set 1 (a flip a ring's length ago), each record as
 * trigrec.bpf.c writes it (header, raw size, trigrec_rec_hdr, the entry).
 * Then a tracking ring per CPU (the captured COMM/FORK/EXIT on CPU 0's).
 * CPU c's stream runs at its own rate: record gaps of 500 + 37 * (c % 11)
 * ns, all streams ending at t_end (the trigger), so the oldest ends differ.
 */
static void build_images(const struct capture *c, struct recorder *fr, struct harvest *h, int ncpu,
			 size_t size, int sets, uint64_t t_end)
{
	int nmain = ncpu * (sets ? sets : 1);

	for (int i = 0; i < fr->nr_rings; i++) {
		int cpu = i % ncpu, track = i >= nmain, set = sets ? i / ncpu : -1;
		size_t cap = h->rings[i].cap, pos = 0, per = 0;
		char *buf = h->rings[i].buf;

		fr->rings[i] = (struct rec_ring){ .cpu = cpu,
						  .fd = -1,
						  .tracking = track,
						  .size = cap,
						  .set = track ? -1 : set };
		h->rings[i].wrapped = !track;
		if (!track) {
			uint64_t gap = 500 + 37 * (cpu % 11), t = t_end - cpu % 7;
			uint32_t seq = 0x40000000;
			size_t k = (size_t)cpu * 7919 % c->n;

			/* Set 1 continues where set 0's records end (older, numbered on). */
			for (int s = 0; s < set; s++) {
				per = 0;
				while (per + c->recs[k].h->size <= cap) {
					per += c->recs[k].h->size;
					t -= gap;
					seq--;
					k = k ? k - 1 : c->n - 1;
				}
			}
			/* Newest first: each record older than the one before it. */
			for (;;) {
				const struct tmpl *tp = &c->recs[k];

				if (pos + tp->h->size > cap)
					break;
				memcpy(buf + pos, tp->h, tp->h->size);
				if (sets) {
					/* perf's id, time, raw size -> raw size + 16, trigrec_rec_hdr */
					struct trigrec_rec_hdr rh = { .time = t,
								      .seq = seq,
								      .ev = tp->ev };
					uint32_t raw;

					memcpy(&raw, buf + pos + 24, 4);
					raw += sizeof(rh);
					memcpy(buf + pos + 8, &raw, 4);
					memcpy(buf + pos + 12, &rh, sizeof(rh));
				} else {
					memcpy(buf + pos + tp->time_off, &t, 8);
				}
				pos += tp->h->size;
				t -= gap;
				seq--;
				k = k ? k - 1 : c->n - 1;
			}
		} else if (cpu == 0) {
			/* Tracking records older than every stream: names, not history. */
			uint64_t tt = t_end - 4000000000ull;

			for (size_t j = 0; j < c->ntrk && pos + c->trk[j].h->size <= cap; j++) {
				memcpy(buf + pos, c->trk[j].h, c->trk[j].h->size);
				memcpy(buf + pos + c->trk[j].time_off, &tt, 8);
				pos += c->trk[j].h->size;
				tt -= 1000;
			}
		}
		/* The unused tail reads as "never written" (size 0). */
		if (pos + 8 <= cap)
			memset(buf + pos, 0, 8);
		h->rings[i].len = pos;
	}
}

/*
 * rings=compact: per CPU its main byte ring, full, then its carry (the
 * spare's copy, empty: no cut happened before), as recorder.c's
 * add_compact() orders them; then a tracking ring per CPU as above. Each
 * captured record goes through cr_put(), the encoder that writes as the
 * BPF programs do, oldest first, until the ring has been written past its
 * end by an eighth (so it wrapped and its oldest block is overwritten, as
 * in a long run). The same streams and times as build_images(): a first
 * pass counts the records that takes, the second writes them with the
 * times ending at t_end.
 */
static void build_compact(const struct capture *c, struct recorder *fr, struct harvest *h, int ncpu,
			  const struct cr_event *ce, uint64_t t_end)
{
	struct cr_layout l = cr_layout_of(fr->cr_shift, fr->cr_nseg);
	uint64_t bytes = (uint64_t)fr->cr_nseg << fr->cr_shift, target = bytes + bytes / 8;

	for (int i = 0; i < fr->nr_rings; i++) {
		int main_ring = i < 2 * ncpu && i % 2 == 0, track = i >= 2 * ncpu;
		int cpu = track ? i - 2 * ncpu : i / 2;

		fr->rings[i] = (struct rec_ring){ .cpu = cpu,
						  .fd = -1,
						  .tracking = track,
						  .size = h->rings[i].cap,
						  .set = track ? -1 : i % 2,
						  .compact = !track };
		h->rings[i].wrapped = 0;
		h->rings[i].len = track ? 0 : h->rings[i].cap;
		if (!track)
			memset(h->rings[i].buf, 0, h->rings[i].cap);
		if (main_ring) {
			uint8_t *ring = (uint8_t *)h->rings[i].buf + REC_CR_HDR;
			uint64_t gap = 500 + 37 * (cpu % 11), n = 0;
			struct cr_writer w;
			struct rec_cr_hdr hdr = { 0 };

			for (int pass = 0; pass < 2; pass++) {
				size_t k = (size_t)cpu * 7919 % c->n;
				uint64_t todo = n;

				memset(&w, 0, sizeof(w));
				if (pass)
					memset(ring, 0, (size_t)l.nseg * l.elem);
				while (pass ? todo > 0 : (w.head & TRIGREC_CR_POS_MASK) < target) {
					const struct tmpl *tp = &c->recs[k];
					const uint8_t *raw = (const uint8_t *)tp->h + 28;
					uint32_t size;

					/* The raw size counts perf's padding to 8 bytes: not the record's. */
					memcpy(&size, (const uint8_t *)tp->h + 24, 4);
					if (size >= ce[tp->ev].fixed && size - ce[tp->ev].fixed < 8)
						size = ce[tp->ev].fixed;
					k = k + 1 == c->n ? 0 : k + 1;
					if (!pass) {
						/* the same gaps: time deltas encode to the same widths */
						n += !!cr_put(ring, &l, &w, tp->ev, raw, size,
							      &ce[tp->ev], (n + 1) * gap);
						continue;
					}
					if (cr_put(ring, &l, &w, tp->ev, raw, size, &ce[tp->ev],
						   t_end - cpu % 7 - (todo - 1) * gap))
						todo--;
				}
			}
			hdr.head_before = hdr.head_after = w.head;
			memcpy(h->rings[i].buf, &hdr, sizeof(hdr));
		} else if (track && cpu == 0) {
			uint64_t tt = t_end - 4000000000ull;
			size_t pos = 0;
			char *buf = h->rings[i].buf;

			for (size_t j = 0;
			     j < c->ntrk && pos + c->trk[j].h->size <= h->rings[i].cap; j++) {
				memcpy(buf + pos, c->trk[j].h, c->trk[j].h->size);
				memcpy(buf + pos + c->trk[j].time_off, &tt, 8);
				pos += c->trk[j].h->size;
				tt -= 1000;
			}
			if (pos + 8 <= h->rings[i].cap)
				memset(buf + pos, 0, 8);
			h->rings[i].len = pos;
		}
	}
}

/* -k: keep the last snapshot of each configuration; -w: a trigger snapshot's why, unbounded. */
static int keep, why;
/* -C: compact rings (sets is then 0). */
static int compact;

static int run_one(struct capture *c, int ncpu, int mib, int sets, const char *dir, int zlevel,
		   int runs, struct result *all)
{
	struct recorder fr = *c->r;
	struct harvest h = { 0 };
	struct snapshot_ctx sc = { .outdir = dir, .no_buildid_cache = 1, .zstd_level = zlevel };
	struct result *res = all;
	struct snap_written out;
	struct snap_trigger t = { .name = "scale", .text = "scale benchmark", .id = -1 };
	struct trigrec_trigger_msg m = { .tid = (uint32_t)getpid(), .pid = (uint32_t)getpid() };
	size_t size = (size_t)mib << 20;
	uint64_t t_end = (t_fixed ? t_fixed : now_ns(CLOCK_MONOTONIC)) - 1000000000ull, t0, c0;
	struct rec_event evs[16];
	int *cpus = NULL, nmain = ncpu * (sets ? sets : compact ? 2 : 1);
	struct cr_event ce[16] = { 0 };
	uint64_t *ids = NULL;
	struct rusage ru0, ru1;
	int err = 0;

	memset(all, 0, runs * sizeof(*all));
	fr.nr_rings = nmain + ncpu;
	fr.rings = calloc(fr.nr_rings, sizeof(*fr.rings));
	h.nr_rings = fr.nr_rings;
	h.rings = calloc(fr.nr_rings, sizeof(*h.rings));
	if (!fr.rings || !h.rings || !c->n || c->r->nr_evs > 16) {
		err = -ENOMEM;
		goto out;
	}
	if (sets || compact) {
		/* The recorded events as rings=bpf has them: written by BPF, ids of trigrec's own. */
		cpus = calloc(ncpu, sizeof(*cpus));
		ids = calloc((size_t)ncpu * c->r->nr_evs, sizeof(*ids));
		if (!cpus || !ids) {
			err = -ENOMEM;
			goto out;
		}
		memcpy(evs, c->r->evs, c->r->nr_evs * sizeof(*evs));
		for (int i = 0; i < c->r->nr_evs; i++) {
			if (evs[i].kind != REC_EV_TRACEPOINT)
				continue;
			evs[i].bpf_rec = 1;
			evs[i].pd.ids = ids + (size_t)i * ncpu;
			evs[i].pd.nr_ids = ncpu;
			for (int k = 0; k < ncpu; k++)
				evs[i].pd.ids[k] = REC_BPF_ID(i, k);
		}
		for (int k = 0; k < ncpu; k++)
			cpus[k] = k;
		fr.evs = evs;
		fr.nr_bpf_evs = c->r->nr_evs - 1;
		fr.cpus = cpus;
		fr.nr_cpus = ncpu;
	}
	if (compact) {
		/* recorder.c's compact_layout(): 8 segments or more, of at most TRIGREC_CR_MAX_SEG */
		size_t seg = size / TRIGREC_CR_SPARE_DIV < TRIGREC_CR_MAX_SEG ?
				     size / TRIGREC_CR_SPARE_DIV :
				     TRIGREC_CR_MAX_SEG;

		fr.compact = 1;
		fr.cr_shift = (uint32_t)__builtin_ctzll(seg);
		fr.cr_nseg = (uint32_t)(size / seg);
		fr.cr_elem = TRIGREC_CR_ELEM(seg);
		fr.cr_mem = NULL;
		for (int i = 0; i < c->r->nr_evs; i++)
			if (evs[i].bpf_rec && evs[i].fmt)
				ce[i] = (struct cr_event){ .fixed = evs[i].fmt->fixed_size,
							   .tp_id = (uint16_t)evs[i].fmt->id,
							   .skip = cr_skip_words(evs[i].fmt),
							   .zz = cr_zz_words(evs[i].fmt) };
	}
	for (int i = 0; i < fr.nr_rings; i++) {
		size_t cap = i >= nmain ? 64 << 10 : size;

		if (compact && i < nmain)
			cap = REC_CR_HDR +
			      (size_t)(i % 2 ? fr.cr_nseg / TRIGREC_CR_SPARE_DIV : fr.cr_nseg) *
				      fr.cr_elem;

		h.rings[i] = (struct ring_copy){ .buf = malloc(cap), .cap = cap };
		if (!h.rings[i].buf) {
			err = -ENOMEM;
			goto out;
		}
	}
	if (compact)
		build_compact(c, &fr, &h, ncpu, ce, t_end);
	else
		build_images(c, &fr, &h, ncpu, size, sets, t_end);
	t.freeze_at = t_end + 1;
	if (why) {
		/* fired by this program's thread at the cut: a why over the 100 ms before */
		m.time_ns = m.freeze_at = t_end;
		snprintf(m.comm, sizeof(m.comm), "scale");
		t.msg = &m;
		sc.why_max_records = SIZE_MAX;
	}
	err = snapshot_ctx__init(&sc, &fr);
	if (err)
		goto out;
	/*
	 * Run 0 warms up what trigrec's writer keeps from one snapshot to the
	 * next (its record index, the build-id cache, thread names); runs 1..N
	 * are measured, as the steady state of a long run.
	 */
	for (int k = 0; k <= runs && !err; k++) {
		res = &all[k ? k - 1 : 0];
		memset(res, 0, sizeof(*res));
		/* Ring sets are rewritten in place by the writer (bpfrec.c): fresh ones each run. */
		if (sets && k)
			build_images(c, &fr, &h, ncpu, size, sets, t_end);
		/* Compact ring copies are only read, but the expansion lent them its length. */
		for (int i = 0; compact && i < nmain; i++)
			h.rings[i].len = h.rings[i].cap;
		reset_hwm();
		getrusage(RUSAGE_THREAD, &ru0);
		t0 = now_ns(CLOCK_MONOTONIC);
		c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		err = snapshot__write(&sc, &fr, &h, &t, &(struct snap_timing){ 0 }, &out);
		res->cpu_ms = (now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / 1e6;
		getrusage(RUSAGE_THREAD, &ru1);
		res->sys_ms = (ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) * 1e3 +
			      (ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e3;
		res->ms = (now_ns(CLOCK_MONOTONIC) - t0) / 1e6;
		res->hwm_mib = vm_hwm_mib();
		if (err)
			break;
		res->records = out.records;
		res->why_ms = out.why_ns / 1e6;
		res->why_cpu_ms = out.why_cpu_ns / 1e6;
		res->file_bytes = out.data_bytes;
		for (int i = 0; i < nmain; i++) {
			/*
			 * Compact: the main ring's data bytes are what it keeps
			 * (the carry is empty); ring memory is main and spare.
			 */
			if (compact) {
				res->kept_bytes += i % 2 ? 0 : size;
				res->ring_bytes += i % 2 ? size / TRIGREC_CR_SPARE_DIV : size;
				continue;
			}
			res->kept_bytes += h.rings[i].len;
			res->ring_bytes += h.rings[i].cap;
		}
		if (keep && k == runs) {
			fprintf(stderr, "scale: kept %s\n", out.path);
		} else {
			unlink(out.path);
			unlink(out.sidecar);
		}
	}
	for (int i = 0; compact && i < nmain; i++)
		h.rings[i].len = h.rings[i].cap;
	/*
	 * The floor: the same bytes written to a new file in the same directory
	 * with 4 MiB pwrite()s and an fsync, as the writer does, and nothing else.
	 * What trigger-to-file takes beyond it is trigrec's own work.
	 */
	for (int k = 0; k < runs && !err; k++) {
		char path[4096];
		uint64_t off = 0;
		int fd;

		snprintf(path, sizeof(path), "%s/floor.tmp", dir);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0) {
			err = -errno;
			break;
		}
		t0 = now_ns(CLOCK_MONOTONIC);
		for (int i = 0; i < nmain && !err; i++)
			for (size_t o = 0; o < h.rings[i].len; o += 4 << 20) {
				size_t n = h.rings[i].len - o < (4u << 20) ? h.rings[i].len - o :
									     4 << 20;

				if (pwrite(fd, (char *)h.rings[i].buf + o, n, off) != (ssize_t)n) {
					err = -EIO;
					break;
				}
				off += n;
			}
		/*
		 * Compact rings expand into a file several times their size: the
		 * floor writes as many bytes as the file's data, the ring copies'
		 * bytes over again (after the ones above).
		 */
		for (uint64_t want = all[k].file_bytes; compact && off < want && !err;)
			for (int i = 0; i < nmain && off < want; i++) {
				size_t n = h.rings[i].len < (4u << 20) ? h.rings[i].len : 4 << 20;

				n = want - off < n ? want - off : n;
				if (pwrite(fd, h.rings[i].buf, n, off) != (ssize_t)n) {
					err = -EIO;
					break;
				}
				off += n;
			}
		if (fsync(fd))
			err = -errno;
		all[k].floor_ms = (now_ns(CLOCK_MONOTONIC) - t0) / 1e6;
		close(fd);
		unlink(path);
	}
out:
	snapshot_ctx__fini(&sc);
	for (int i = 0; h.rings && i < h.nr_rings; i++)
		free(h.rings[i].buf);
	free(h.rings);
	free(fr.rings);
	free(cpus);
	free(ids);
	return err;
}

static int parse_list(const char *s, int *v, int max)
{
	int n = 0;
	char *end;

	while (*s && n < max) {
		long x = strtol(s, &end, 10);

		if (end == s || x <= 0 || x > 4096)
			return -1;
		v[n++] = x;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return n;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int cpus[MAX_CFG] = { 2, 16, 64 }, mibs[MAX_CFG] = { 1, 4 }, ncpus = 3, nmibs = 2;
	int runs = 3, zlevel = 0, sets = 0, opt, err;
	const char *dir = "/dev/shm/trigrec-scale", *capfile = NULL;
	struct capture c = { 0 };
	double sx = 0, sy = 0, sxx = 0, sxy = 0, per_mib[MAX_CFG][MAX_CFG];
	int npts = 0;
	char cmd[512];

	while ((opt = getopt(argc, argv, "c:m:r:o:z:sCwkK:")) != -1) {
		switch (opt) {
		case 's': sets = TRIGREC_RING_SETS; break;
		case 'C': compact = 1; break;
		case 'w': why = 1; break;
		case 'k': keep = 1; break;
		case 'K': capfile = optarg; break;
		case 'c': ncpus = parse_list(optarg, cpus, MAX_CFG); break;
		case 'm': nmibs = parse_list(optarg, mibs, MAX_CFG); break;
		case 'r': runs = atoi(optarg); break;
		case 'o': dir = optarg; break;
		case 'z': zlevel = atoi(optarg); break;
		default:
			fprintf(stderr,
				"usage: %s [-c CPUS,..] [-m MIB,..] [-r RUNS] [-o DIR] [-z LEVEL] [-s | -C] [-w] "
				"[-k] [-K FILE]\n",
				argv[0]);
			return 2;
		}
	}
	if (ncpus <= 0 || nmibs <= 0 || runs <= 0 || runs > 15 || (sets && compact)) {
		fprintf(stderr,
			"scale: -c and -m take comma lists of positive numbers, -r 1..15; -s or -C\n");
		return 2;
	}
	log_level = LOG_QUIET; /* errors still print: they are what stops a run */
	err = capture(&c, capfile);
	if (err)
		return 1;
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
	if (system(cmd))
		return 1;
	printf("captured %zu records (%zu bytes, %.0f bytes each) and %zu tracking records; %s\n\n",
	       c.n, c.bytes, (double)c.bytes / c.n, c.ntrk,
	       sets    ? "ring sets: 2 BPF-output rings of MiB/CPU per CPU, both full" :
	       compact ? "compact rings: one byte ring of MiB/CPU per CPU, full, and its "
			 "spare's empty carry (MiB/CPU / 8)" :
			 "perf-written rings: one ring of MiB/CPU per CPU, full");
	printf("| CPUs | MiB/CPU | ring MiB | records kept | trigger-to-file ms | CPU ms (of it "
	       "kernel) | page-cache floor ms | GB/s | ns/record | peak RSS MiB | RSS / rings | "
	       "why ms (CPU) |\n");
	printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < ncpus; i++) {
		for (int j = 0; j < nmibs; j++) {
			struct result r[15], med;
			double ms[15], cpu[15], sys[15], hwm[15], flo[15], wy[15], wc[15];

			err = run_one(&c, cpus[i], mibs[j], sets, dir, zlevel, runs, r);
			if (err) {
				fprintf(stderr, "scale: %d CPUs x %d MiB: %s\n", cpus[i], mibs[j],
					strerror(-err));
				return 1;
			}
			for (int k = 0; k < runs; k++) {
				ms[k] = r[k].ms;
				cpu[k] = r[k].cpu_ms;
				sys[k] = r[k].sys_ms;
				flo[k] = r[k].floor_ms;
				hwm[k] = r[k].hwm_mib;
				wy[k] = r[k].why_ms;
				wc[k] = r[k].why_cpu_ms;
			}
			qsort(wy, runs, sizeof(double), cmp_d);
			qsort(wc, runs, sizeof(double), cmp_d);
			qsort(ms, runs, sizeof(double), cmp_d);
			qsort(cpu, runs, sizeof(double), cmp_d);
			qsort(hwm, runs, sizeof(double), cmp_d);
			qsort(sys, runs, sizeof(double), cmp_d);
			qsort(flo, runs, sizeof(double), cmp_d);
			med = r[0];
			med.ms = ms[runs / 2];
			med.cpu_ms = cpu[runs / 2];
			med.sys_ms = sys[runs / 2];
			med.floor_ms = flo[runs / 2];
			med.hwm_mib = hwm[runs / 2];
			med.why_ms = wy[runs / 2];
			med.why_cpu_ms = wc[runs / 2];
			printf("| %d | %d | %.0f | %" PRIu64
			       " | %.1f | %.1f (%.1f) | %.1f | %.2f | %.0f | %.0f | "
			       "%.2f | %.1f (%.1f) |\n",
			       cpus[i], mibs[j], med.ring_bytes / 1048576.0, med.records, med.ms,
			       med.cpu_ms, med.sys_ms, med.floor_ms,
			       med.kept_bytes / (med.ms * 1e6),
			       med.ms * 1e6 / (med.records ? med.records : 1), med.hwm_mib,
			       med.hwm_mib / (med.ring_bytes / 1048576.0), med.why_ms,
			       med.why_cpu_ms);
			fflush(stdout);
			per_mib[i][j] = med.ms / (med.kept_bytes / 1048576.0);
			sx += med.kept_bytes;
			sy += med.ms;
			sxx += (double)med.kept_bytes * med.kept_bytes;
			sxy += (double)med.kept_bytes * med.ms;
			npts++;
		}
	}
	if (npts >= 2 && npts * sxx - sx * sx > 0) {
		double slope = (npts * sxy - sx * sy) / (npts * sxx - sx * sx);
		double icpt = (sy - slope * sx) / npts;

		printf("\nfit: time = %.3f ms + %.3f ms per MiB kept (%.2f GB/s at the margin)\n",
		       icpt, slope * 1048576, 1 / (slope * 1e6));
	}
	/* Linear in bytes means the time per MiB does not grow with the CPU count. */
	for (int j = 0; j < nmibs && ncpus > 1; j++) {
		double lo = per_mib[0][j], hi = per_mib[0][j];

		printf("%s%d MiB/CPU, ms per MiB kept by CPU count:", j ? "" : "\n", mibs[j]);
		for (int i = 0; i < ncpus; i++) {
			printf(" %d: %.3f", cpus[i], per_mib[i][j]);
			lo = per_mib[i][j] < lo ? per_mib[i][j] : lo;
			hi = per_mib[i][j] > hi ? per_mib[i][j] : hi;
		}
		printf("; largest / smallest %.2f\n", hi / lo);
	}
	return 0;
}
