/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The output directory: how a snapshot's files get their names.
 *
 * A snapshot is a pair, BASE.json then BASE.data. Each is written in full to
 * a file without a name (O_TMPFILE; where the filesystem lacks it, a
 * ".trigrec-PID-RANDOM.tmp" nobody can guess or plant), fsync'd, then named
 * with a link that never replaces anything. The .data is named last, so a
 * visible .data is complete and has its sidecar; the directory is fsync'd
 * after. Names are made relative to the directory's fd: anything already
 * there under a name (a file, a dangling symlink) makes the pair take the
 * next free name (BASE-2, ...); nothing is ever written through a link.
 * Used by the writer thread only, never while recording is frozen.
 */
#ifndef TRIGREC_OUTDIR_H
#define TRIGREC_OUTDIR_H
#include <stddef.h>
#include <stdint.h>

/* Longest BASE a caller may pass: name prefix (63), '-', stamp (22), '-', trigger name (63). */
#define OUTDIR_BASE_MAX (63 + 1 + 22 + 1 + 63)
/* Longest name the directory must hold: BASE, "-NNNN", ".data". */
#define OUTDIR_NAME_MAX (OUTDIR_BASE_MAX + 5 + 5)

struct outdir;

/*
 * Where the time stamp (YYYYmmdd-HHMMSS.uuuuuu-) of a snapshot file name
 * starts: 0, or after a `name PREFIX` ("web-"; PREFIX is 1-63 of
 * A-Z a-z 0-9 _ . -). -1 when the name is not a snapshot's. Any prefix is
 * accepted, so files named under an earlier prefix are still recognised.
 */
int outdir_stamp_offset(const char *name);
/* 1 if name is a sidecar's: [PREFIX-]STAMP-NAME.json (STAMP as above). */
int outdir_is_sidecar_name(const char *name);
/* .trigrec-PID-HEX.tmp (also the PID-N of older versions): the PID, or 0. */
int outdir_tmp_name_pid(const char *name);

/* A file being written, not yet named. */
struct out_file {
	int fd;	       /* -1 when closed */
	char name[64]; /* its temporary name without O_TMPFILE, else "" */
};

/*
 * Who may write where snapshots go: the directory must be owned by
 * trigrec's user or root, and be writable by no other user or group (not
 * root's, not ours) unless it has the sticky bit. what names it in the
 * error ("output directory"). 0, or -errno after an elog() saying what to do.
 */
int outdir_trusted(int fd, const char *path, const char *what);

/*
 * Before anything is recorded: 0 with *fd the directory, opened once
 * (O_NOFOLLOW: never through a symbolic link) and trusted (outdir_trusted());
 * 1 when it does not exist yet but can be created (outdir_make() once set-up
 * succeeded, so a failed run leaves nothing behind); -errno after an elog().
 */
int outdir_check(const char *path, int *fd);
/* Made (0755) when missing if -o is right below it, as the units' StateDirectory= does. */
#define OUTDIR_STATE_DIR "/var/lib/trigrec"
/*
 * Create what outdir_check() found missing (mode 0700; OUTDIR_STATE_DIR too
 * when -o is right below it) and open it: the fd,
 * or -errno after an elog(). Anything at path by then (a directory, a
 * symlink) was made by someone else between the check and now: -EEXIST.
 */
int outdir_make(const char *path);

/*
 * The output directory for snapshots, from dirfd (an fd of outdir_check() or
 * outdir_make(), duplicated: every name is made relative to it) or, with
 * dirfd -1, from path opened and checked as outdir_check() does. Refuses a
 * path too long to hold snapshot names (PATH_MAX) or one where files cannot
 * be created, and removes what runs killed mid-write left there (see
 * outdir.c). NULL after an elog().
 */
struct outdir *outdir__open_at(int dirfd, const char *path);
struct outdir *outdir__open(const char *path);
void outdir__free(struct outdir *d);
const char *outdir__path(const struct outdir *d);

/* A new unnamed file (mode 0600). 0 or -errno. */
int outdir__create(struct outdir *d, struct out_file *f);
/* Close and remove a file that was not published. */
void outdir__discard(struct outdir *d, struct out_file *f);

/* The sidecar's contents for the .data at datapath (malloc'd into *buf). 0 or -errno. */
typedef int (*outdir_render_fn)(void *ctx, const char *datapath, char **buf, size_t *len);

/*
 * Publish data (written and fsync'd by the caller) as BASE.data, its sidecar
 * from render() as BASE.json, under the first BASE, BASE-2, ... BASE-1000
 * whose two names are free. path gets DIR/NAME.data. 0 or -errno; on error
 * neither name exists and data is left for outdir__discard().
 */
int outdir__publish_pair(struct outdir *d, struct out_file *data, const char *base,
			 outdir_render_fn render, void *ctx, char *path, size_t pathlen);

/*
 * Refuse to publish a pair bigger than bytes (.data + .json; 0 = no limit):
 * outdir__publish_pair() then returns -EFBIG before either name exists. The
 * retention byte budget (service/retention.h): a snapshot that alone would
 * exceed it is never published only to be deleted.
 */
void outdir__set_max_pair(struct outdir *d, uint64_t bytes);
/* The size the last -EFBIG refusal was about (.data + .json). */
uint64_t outdir__refused_bytes(const struct outdir *d);

/* Tests: write as on a filesystem without O_TMPFILE (named temporaries). */
void outdir__force_named_tmp(struct outdir *d);

#endif
