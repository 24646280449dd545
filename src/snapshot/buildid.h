/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Build-ids of the kernel, the vdso and the files a snapshot's maps name:
 * what the BUILD_ID feature lists, so that `perf buildid-list`, `perf
 * archive` and `perf report` on another machine find the right binaries.
 *
 * Read on the writer thread (never while recording is frozen) and cached
 * for the run by path, device, inode and mtime. Like perf record, the files
 * also go into perf's build-id cache (~/.debug, or $PERF_BUILDID_DIR), which
 * is where `perf archive` takes them from.
 */
#ifndef TRIGREC_BUILDID_H
#define TRIGREC_BUILDID_H
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include "snapshot/perfdata.h"

struct build_id {
	uint8_t data[PD_BUILD_ID_MAX];
	uint8_t size; /* 0: none */
};

/*
 * What one file's build-id may cost, however it was crafted: notes looked
 * at (a real file has a handful; the build-id comes first or nearly so),
 * note bytes read, and program + section headers read. Past them the file
 * has no build-id for us (-ENOENT): a snapshot is never stalled by one.
 */
#define BID_NOTES_MAX 256
#define BID_NOTE_BYTES_MAX (1u << 20)
#define BID_HEADERS_MAX 4096

/* The NT_GNU_BUILD_ID of an ELF note stream (align: 4 or 8), within BID_NOTES_MAX. 0 or -ENOENT. */
int build_id__from_notes(const void *notes, size_t len, size_t align, struct build_id *bid);
/* An ELF file's build-id (PT_NOTE segments, else SHT_NOTE sections). 0 or -errno. */
int build_id__from_fd(int fd, struct build_id *bid);
/* The running kernel's (/sys/kernel/notes). */
int build_id__kernel(struct build_id *bid);
/* This process's vdso: its build-id and image (in memory, len bytes). */
int build_id__vdso(struct build_id *bid, const void **img, size_t *len);
/* Lower-case hex, NUL-terminated (out: at least 2 * PD_BUILD_ID_MAX + 1). */
void build_id__hex(const struct build_id *bid, char *out);

/* Per run: build-ids by file identity, and the build-id cache directory. */
struct bid_cache;
/*
 * debug_dir: perf's build-id cache to fill ("~/.debug"), or NULL for none.
 * It is made if missing and filled only if it is this user's (owner, not
 * writable by others: else one warning and it is left alone), relative to
 * its fd, never through a symlink below it. NULL and errno on allocation
 * failure.
 */
struct bid_cache *bid_cache__new(const char *debug_dir);
void bid_cache__free(struct bid_cache *c);
/*
 * Bytes copied into the cache per snapshot (hard links cost none): past it
 * the rest of the snapshot's files are left out, and the log says so once
 * per snapshot. BID_COPY_MAX unless set (tests).
 */
#define BID_COPY_MAX (256ull << 20)
void bid_cache__set_copy_cap(struct bid_cache *c, uint64_t bytes);
/* Files put into the build-id cache so far (for the tests and the log). */
unsigned long bid_cache__stored(const struct bid_cache *c);
/* perf's default cache directory: $PERF_BUILDID_DIR, else $HOME/.debug; NULL if neither. */
const char *bid_cache__default_dir(char *buf, size_t len);

/* The DSOs of one snapshot, deduplicated by name, with their build-ids. */
struct bid_set;
struct bid_set *bid_set__new(struct bid_cache *c);
void bid_set__free(struct bid_set *s);
/* The running kernel, as "[kernel.kallsyms]". */
int bid_set__kernel(struct bid_set *s);
/*
 * A map [start, start + len) of process pid: "[vdso]", or a file (other
 * names are ignored). ino 0 = unknown. Files that cannot be read, have no
 * build-id, or were replaced since they were mapped are skipped.
 */
int bid_set__map(struct bid_set *s, uint32_t pid, uint64_t start, uint64_t len, uint64_t ino,
		 const char *name);
/* The same from an MMAP2 record (a build-id carried in the record is used as is). */
int bid_set__mmap2(struct bid_set *s, const struct perf_event_header *rec);
/* The entries for pd_meta.build_ids (valid until the set is freed). */
const struct pd_build_id *bid_set__entries(const struct bid_set *s, int *nr);

#endif
