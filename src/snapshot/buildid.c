// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Build-ids and perf's build-id cache. The cache layout is perf's
 * (tools/perf/util/build-id.c): DIR/<path>/<hex>/elf (or kallsyms, vdso,
 * debug) and the link DIR/.build-id/<2 hex>/<38 hex> -> ../../<path>/<hex>.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include "snapshot/buildid.h"
#include "util/log.h"
#include "util/util.h"

#define NOTE_MAX (1u << 16) /* a build-id note segment is tiny; bound what we read */

/* ---------------------------------------------------------------- notes -- */

/* What one file's notes may cost (buildid.h): a budget spent by notes_scan(). */
struct note_budget {
	unsigned notes;	  /* notes left to look at */
	uint64_t bytes;	  /* note bytes left to read */
	unsigned headers; /* program + section headers left to read */
};

static int notes_scan(const void *notes, size_t len, size_t align, struct build_id *bid,
		      struct note_budget *b)
{
	const unsigned char *p = notes, *end = p + len;

	if (align != 8)
		align = 4;
	while ((size_t)(end - p) >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh; /* the same as Elf32_Nhdr: three u32 */
		size_t nsz, dsz;

		if (!b->notes)
			return -E2BIG;
		b->notes--;
		memcpy(&nh, p, sizeof(nh));
		p += sizeof(nh);
		nsz = (nh.n_namesz + align - 1) & ~(align - 1);
		dsz = (nh.n_descsz + align - 1) & ~(align - 1);
		if (nsz > (size_t)(end - p) || dsz > (size_t)(end - p - nsz))
			break;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(p, "GNU", 4) &&
		    nh.n_descsz > 0) {
			memset(bid, 0, sizeof(*bid));
			bid->size = nh.n_descsz > PD_BUILD_ID_MAX ? PD_BUILD_ID_MAX : nh.n_descsz;
			memcpy(bid->data, p + nsz, bid->size);
			return 0;
		}
		p += nsz + dsz;
	}
	return -ENOENT;
}

int build_id__from_notes(const void *notes, size_t len, size_t align, struct build_id *bid)
{
	struct note_budget b = { .notes = BID_NOTES_MAX };
	int err = notes_scan(notes, len, align, bid, &b);

	return err == -E2BIG ? -ENOENT : err;
}

void build_id__hex(const struct build_id *bid, char *out)
{
	for (int i = 0; i < bid->size; i++)
		sprintf(out + 2 * i, "%02x", bid->data[i]);
	out[2 * bid->size] = 0;
}

/* ----------------------------------------------------------------- ELF -- */

/*
 * Notes in [off, off + size) of the file: read them (bounded) and look.
 * 0, -E2BIG once the file's budget is spent (stop looking), or another -errno.
 */
static int notes_at(int fd, uint64_t off, uint64_t size, size_t align, struct build_id *bid,
		    struct note_budget *b)
{
	unsigned char *buf;
	ssize_t n;
	int err;

	if (!size)
		return -ENOENT;
	if (size > NOTE_MAX)
		size = NOTE_MAX;
	if (!b->bytes)
		return -E2BIG;
	if (size > b->bytes)
		size = b->bytes;
	b->bytes -= size;
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	n = pread(fd, buf, size, off);
	err = n > 0 ? notes_scan(buf, n, align, bid, b) : -EIO;
	free(buf);
	return err;
}

/* The next header may be read (and counted), or the file's budget is spent. */
static int header_ok(struct note_budget *b)
{
	if (!b->headers)
		return 0;
	b->headers--;
	return 1;
}

/*
 * ELF32 and ELF64 of the host's byte order (what processes here map). The
 * program headers first (always there in what can be mapped), then the
 * section headers, like perf's readers.
 */
#define SCAN_ELF(Ehdr, Phdr, Shdr)                                                             \
	do {                                                                                   \
		struct note_budget b = { BID_NOTES_MAX, BID_NOTE_BYTES_MAX, BID_HEADERS_MAX }; \
		Ehdr eh;                                                                       \
		int r;                                                                         \
		if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))                               \
			return -ENOEXEC;                                                       \
		for (int i = 0; i < eh.e_phnum && header_ok(&b); i++) {                        \
			Phdr ph;                                                               \
			if (eh.e_phentsize < sizeof(ph) ||                                     \
			    pread(fd, &ph, sizeof(ph),                                         \
				  eh.e_phoff + (uint64_t)i * eh.e_phentsize) != sizeof(ph))    \
				break;                                                         \
			if (ph.p_type != PT_NOTE)                                              \
				continue;                                                      \
			r = notes_at(fd, ph.p_offset, ph.p_filesz, ph.p_align, bid, &b);       \
			if (r == 0 || r == -E2BIG)                                             \
				return r ? -ENOENT : 0;                                        \
		}                                                                              \
		for (int i = 0; i < eh.e_shnum && header_ok(&b); i++) {                        \
			Shdr sh;                                                               \
			if (eh.e_shentsize < sizeof(sh) ||                                     \
			    pread(fd, &sh, sizeof(sh),                                         \
				  eh.e_shoff + (uint64_t)i * eh.e_shentsize) != sizeof(sh))    \
				break;                                                         \
			if (sh.sh_type != SHT_NOTE)                                            \
				continue;                                                      \
			r = notes_at(fd, sh.sh_offset, sh.sh_size, sh.sh_addralign, bid, &b);  \
			if (r == 0 || r == -E2BIG)                                             \
				return r ? -ENOENT : 0;                                        \
		}                                                                              \
		return -ENOENT;                                                                \
	} while (0)

int build_id__from_fd(int fd, struct build_id *bid)
{
	unsigned char ident[EI_NIDENT];
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	const int data = ELFDATA2MSB;
#else
	const int data = ELFDATA2LSB;
#endif

	if (pread(fd, ident, sizeof(ident), 0) != sizeof(ident) || memcmp(ident, ELFMAG, SELFMAG) ||
	    ident[EI_DATA] != data)
		return -ENOEXEC;
	if (ident[EI_CLASS] == ELFCLASS64)
		SCAN_ELF(Elf64_Ehdr, Elf64_Phdr, Elf64_Shdr);
	if (ident[EI_CLASS] == ELFCLASS32)
		SCAN_ELF(Elf32_Ehdr, Elf32_Phdr, Elf32_Shdr);
	return -ENOEXEC;
}

/* ------------------------------------------------------- kernel and vdso -- */

int build_id__kernel(struct build_id *bid)
{
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	unsigned char buf[4096];
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -ENOENT;
	return build_id__from_notes(buf, n, 4, bid);
}

int build_id__vdso(struct build_id *bid, const void **img, size_t *len)
{
	const unsigned char *base = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)base;
	char line[512];
	FILE *f;

	*img = NULL;
	*len = 0;
	if (!base || memcmp(base, ELFMAG, SELFMAG) || base[EI_CLASS] != ELFCLASS64)
		return -ENOENT;
	/* the image is the whole [vdso] mapping, as perf copies it */
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e;

		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &s, &e) == 2 &&
		    s == (uintptr_t)base)
			*len = e - s;
	}
	fclose(f);
	if (!*len)
		return -ENOENT;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(base + eh->e_phoff + i * eh->e_phentsize);

		if (ph->p_type == PT_NOTE && ph->p_offset + ph->p_filesz <= *len &&
		    !build_id__from_notes(base + ph->p_offset, ph->p_filesz, ph->p_align, bid)) {
			*img = base;
			return 0;
		}
	}
	return -ENOENT;
}

/* ------------------------------------------------------------ the cache -- */

struct bid_ent {
	char *path;
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	struct build_id bid; /* size 0: the file has none (remembered too) */
};

struct bid_cache {
	char *dir; /* perf's build-id cache, NULL = do not fill it */
	int dirfd; /* dir, opened once and checked (owner, mode); -1 = do not fill it */
	struct bid_ent *v;
	size_t n, cap;
	struct build_id kernel, vdso;
	int kernel_done, vdso_done;
	unsigned long stored;
	/* Bytes copied into the cache, per snapshot (bid_set__new() starts one). */
	uint64_t copy_cap, copied;
	unsigned long capped; /* objects left out by the cap in this snapshot */
};

const char *bid_cache__default_dir(char *buf, size_t len)
{
	const char *d = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");

	if (d && *d)
		snprintf(buf, len, "%s", d);
	else if (home && *home)
		snprintf(buf, len, "%s/.debug", home);
	else
		return NULL;
	return buf;
}

/*
 * The cache directory, made if missing (as perf does: mkdir -p, 0755), then
 * opened once and trusted only if it is ours: owned by this user, and
 * writable by no one else unless sticky. Else the cache is not filled
 * (one warning saying what to do); the snapshots still carry build-ids.
 */
static int open_cache_dir(const char *dir)
{
	char p[4096];
	struct stat st;
	int fd;

	snprintf(p, sizeof(p), "%s", dir);
	for (char *q = p + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = 0;
		mkdir(p, 0755);
		*q = '/';
	}
	mkdir(p, 0755);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		wlog("build-id cache %s: %s; not filling it (perf archive then finds the DSOs only "
		     "while they exist; --no-buildid-cache says so)",
		     dir, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || st.st_uid != geteuid()) {
		wlog("build-id cache %s is owned by uid %u, not by trigrec's user (uid %u): not "
		     "filling it (its owner could redirect what trigrec writes); set "
		     "PERF_BUILDID_DIR to a directory of your own, or --no-buildid-cache",
		     dir, (unsigned)st.st_uid, (unsigned)geteuid());
		close(fd);
		return -1;
	}
	if (!(st.st_mode & S_ISVTX) &&
	    ((st.st_mode & S_IWOTH) || ((st.st_mode & S_IWGRP) && st.st_gid != getegid()))) {
		wlog("build-id cache %s is writable by others (mode %04o): not filling it; chmod "
		     "go-w %s, or set PERF_BUILDID_DIR to a directory of your own",
		     dir, (unsigned)(st.st_mode & 07777), dir);
		close(fd);
		return -1;
	}
	return fd;
}

struct bid_cache *bid_cache__new(const char *debug_dir)
{
	struct bid_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->dirfd = -1;
	c->copy_cap = BID_COPY_MAX;
	if (debug_dir) {
		c->dir = strdup(debug_dir);
		if (!c->dir) {
			free(c);
			return NULL;
		}
		c->dirfd = open_cache_dir(debug_dir);
	}
	return c;
}

void bid_cache__free(struct bid_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].path);
	free(c->v);
	free(c->dir);
	if (c->dirfd >= 0)
		close(c->dirfd);
	free(c);
}

unsigned long bid_cache__stored(const struct bid_cache *c)
{
	return c ? c->stored : 0;
}

void bid_cache__set_copy_cap(struct bid_cache *c, uint64_t bytes)
{
	c->copy_cap = bytes;
}

/*
 * The directory rel (components separated by '/', none empty, "." or "..")
 * below dfd, each made if missing and opened with O_NOFOLLOW: a symlink
 * anywhere below the cache directory is never followed. Its fd, or -errno.
 */
static int open_below(int dfd, const char *rel)
{
	int fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);

	while (fd >= 0 && *rel) {
		char comp[256];
		size_t n = strcspn(rel, "/");
		int next;

		if (!n || n >= sizeof(comp) || (n == 1 && rel[0] == '.') ||
		    (n == 2 && rel[0] == '.' && rel[1] == '.')) {
			close(fd);
			return -EINVAL;
		}
		memcpy(comp, rel, n);
		comp[n] = 0;
		rel += n + (rel[n] == '/');
		if (mkdirat(fd, comp, 0755) && errno != EEXIST) {
			next = -errno;
		} else {
			next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (next < 0)
				next = -errno;
		}
		close(fd);
		fd = next;
	}
	return fd;
}

/*
 * Write src (fd, or bytes) as name in dfd through a temporary name, mode
 * kept; at most *budget bytes (-EFBIG past it, nothing left behind), which
 * it lowers by what it wrote.
 */
static int copy_to(int dfd, const char *name, int sfd, const void *bytes, size_t len, mode_t mode,
		   uint64_t *budget)
{
	char tmp[300], buf[65536];
	int fd, err = 0;

	snprintf(tmp, sizeof(tmp), ".%s.trigrec-%d", name, (int)getpid());
	unlinkat(dfd, tmp, 0); /* ours, left by a crash (a link or file: never followed) */
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	if (bytes) {
		if (len > *budget)
			err = -EFBIG;
		else if (write(fd, bytes, len) != (ssize_t)len)
			err = -EIO;
		else
			*budget -= len;
	} else {
		off_t off = 0;
		ssize_t n;

		while ((n = pread(sfd, buf, sizeof(buf), off)) > 0) {
			if ((uint64_t)n > *budget) {
				err = -EFBIG;
				break;
			}
			if (write(fd, buf, n) != n) {
				err = -EIO;
				break;
			}
			*budget -= n;
			off += n;
		}
		if (n < 0 && !err)
			err = -errno;
	}
	if (close(fd) && !err)
		err = -EIO;
	if (!err && renameat(dfd, tmp, dfd, name))
		err = -errno;
	if (err)
		unlinkat(dfd, tmp, 0);
	return err;
}

/* A hard link of the open file sfd as name in dfd (the very file read). 0 or -errno. */
static int link_fd(int sfd, int dfd, const char *name)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", sfd);
	return linkat(AT_FDCWD, proc, dfd, name, AT_SYMLINK_FOLLOW) ? -errno : 0;
}

/*
 * Put one object in perf's build-id cache: DIR/<name>/<hex>/<file>, then
 * the .build-id link, last (a link means the entry is complete). name is a
 * path ("/usr/lib/libc.so.6") or "[kernel.kallsyms]" / "[vdso]". The
 * object is a hard link of sfd when link_ok (the same filesystem), else a
 * copy of sfd (or of bytes), within the snapshot's copy cap. Everything is
 * made relative to the cache directory's fd, never through a symlink.
 */
static void cache_store(struct bid_cache *c, const struct build_id *bid, const char *name,
			const char *file, int link_ok, int sfd, const void *bytes, size_t len,
			mode_t mode)
{
	char hex[2 * PD_BUILD_ID_MAX + 1], rel[4200], target[4210], top[16];
	uint64_t left = c->copy_cap > c->copied ? c->copy_cap - c->copied : 0, budget = left;
	int bfd, ofd, err;
	struct stat st;

	if (c->dirfd < 0 || !bid->size)
		return;
	build_id__hex(bid, hex);
	snprintf(top, sizeof(top), ".build-id/%.2s", hex);
	bfd = open_below(c->dirfd, top);
	if (bfd < 0)
		return;
	if (!fstatat(bfd, hex + 2, &st, AT_SYMLINK_NOFOLLOW)) {
		close(bfd);
		return; /* already there (perf's or ours) */
	}
	if ((size_t)snprintf(rel, sizeof(rel), "%s/%s", name + (name[0] == '/'), hex) >=
	    sizeof(rel)) {
		close(bfd);
		return;
	}
	ofd = open_below(c->dirfd, rel);
	if (ofd < 0) {
		close(bfd);
		return;
	}
	/* a hard link when it is the same file (and filesystem), else a copy */
	err = link_ok && sfd >= 0 ? link_fd(sfd, ofd, file) : -EXDEV;
	if (err && err != -EEXIST)
		err = copy_to(ofd, file, sfd, bytes, len, mode, &budget);
	else
		err = 0;
	if (err == -EFBIG)
		c->capped++;
	/* the debug info of a file, when installed (perf puts it beside as "debug") */
	if (!err && name[0] == '/') {
		char dbg[256];
		int dfd;

		snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
		dfd = open(dbg, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd >= 0) {
			if (link_fd(dfd, ofd, "debug") &&
			    copy_to(ofd, "debug", dfd, NULL, 0, 0644, &budget) == -EFBIG)
				c->capped++;
			close(dfd);
		}
	}
	c->copied += left - budget;
	close(ofd);
	snprintf(target, sizeof(target), "../../%s", rel);
	if (!err && !symlinkat(target, bfd, hex + 2))
		c->stored++;
	close(bfd);
}

static int cache_kernel(struct bid_cache *c, struct build_id *bid)
{
	if (!c->kernel_done) {
		int fd;

		c->kernel_done = 1;
		if (build_id__kernel(&c->kernel))
			c->kernel.size = 0;
		/* kallsyms: what perf report uses for the kernel on another machine */
		fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			cache_store(c, &c->kernel, "[kernel.kallsyms]", "kallsyms", 0, fd, NULL, 0,
				    0644);
			close(fd);
		}
	}
	*bid = c->kernel;
	return bid->size ? 0 : -ENOENT;
}

static int cache_vdso(struct bid_cache *c, struct build_id *bid)
{
	if (!c->vdso_done) {
		const void *img;
		size_t len;

		c->vdso_done = 1;
		if (build_id__vdso(&c->vdso, &img, &len))
			c->vdso.size = 0;
		else
			cache_store(c, &c->vdso, "[vdso]", "vdso", 0, -1, img, len, 0644);
	}
	*bid = c->vdso;
	return bid->size ? 0 : -ENOENT;
}

/*
 * The build-id of the file a process maps: through /proc/PID/map_files (the
 * very file mapped, even if replaced or deleted since) when the process is
 * alive, else by path when the inode still matches the map's.
 */
static int cache_file(struct bid_cache *c, const char *path, uint32_t pid, uint64_t start,
		      uint64_t len, uint64_t ino, struct build_id *bid)
{
	char mf[96];
	struct stat st;
	struct bid_ent *e = NULL;
	int fd = -1, by_path = 0;

	if (pid && pid != (uint32_t)-1) {
		snprintf(mf, sizeof(mf), "/proc/%u/map_files/%llx-%llx", pid,
			 (unsigned long long)start, (unsigned long long)start + len);
		fd = open(mf, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0) {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		by_path = 1;
	}
	if (fd < 0)
		return -errno;
	/* by path, the file may have been replaced since it was mapped: the inode tells */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (by_path && ino && st.st_ino != ino)) {
		close(fd);
		return -ESTALE;
	}
	for (size_t i = 0; i < c->n; i++) {
		struct bid_ent *x = &c->v[i];

		if (x->dev == st.st_dev && x->ino == st.st_ino &&
		    x->mtime.tv_sec == st.st_mtim.tv_sec &&
		    x->mtime.tv_nsec == st.st_mtim.tv_nsec && !strcmp(x->path, path)) {
			e = x;
			break;
		}
	}
	if (!e) {
		if (c->n == c->cap) {
			size_t ncap = c->cap ? 2 * c->cap : 64;
			struct bid_ent *nv = realloc(c->v, ncap * sizeof(*nv));

			if (!nv) {
				close(fd);
				return -ENOMEM;
			}
			c->v = nv;
			c->cap = ncap;
		}
		e = &c->v[c->n];
		memset(e, 0, sizeof(*e));
		e->path = strdup(path);
		if (!e->path) {
			close(fd);
			return -ENOMEM;
		}
		e->dev = st.st_dev;
		e->ino = st.st_ino;
		e->mtime = st.st_mtim;
		if (build_id__from_fd(fd, &e->bid))
			e->bid.size = 0;
		c->n++;
		/* once per file and run: a hard link of the path, or a copy of what is mapped */
		cache_store(c, &e->bid, path, "elf", 1, fd, NULL, 0, st.st_mode & 0777);
	}
	close(fd);
	*bid = e->bid;
	return bid->size ? 0 : -ENOENT;
}

/* ------------------------------------------------------------- the set -- */

struct bid_set {
	struct bid_cache *c;
	struct pd_build_id *v;
	char **names; /* every name seen, found or not (open addressing) */
	size_t n, cap, nnames, hcap;
};

struct bid_set *bid_set__new(struct bid_cache *c)
{
	struct bid_set *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->c = c;
	c->copied = 0; /* the copy cap is per snapshot */
	c->capped = 0;
	return s;
}

void bid_set__free(struct bid_set *s)
{
	if (!s)
		return;
	if (s->c->capped) {
		char a[32], b[32];

		wlog("build-id cache: %lu file%s of this snapshot not copied into %s: the cap of "
		     "%s copied per snapshot was reached (%s copied); perf archive on this host "
		     "still finds them while they exist",
		     s->c->capped, s->c->capped == 1 ? "" : "s", s->c->dir,
		     fmt_size(s->c->copy_cap, a, sizeof(a)), fmt_size(s->c->copied, b, sizeof(b)));
		s->c->capped = 0;
	}
	for (size_t i = 0; i < s->hcap; i++)
		free(s->names[i]);
	free(s->names);
	free(s->v);
	free(s);
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* 1 if name was new (now remembered), 0 if seen, -ENOMEM. */
static int seen_add(struct bid_set *s, const char *name)
{
	size_t i;

	if (2 * (s->nnames + 1) > s->hcap) {
		size_t ncap = s->hcap ? 2 * s->hcap : 64;
		char **nn = calloc(ncap, sizeof(*nn));

		if (!nn)
			return -ENOMEM;
		for (size_t k = 0; k < s->hcap; k++) {
			if (!s->names[k])
				continue;
			for (i = str_hash(s->names[k]) & (ncap - 1); nn[i];
			     i = (i + 1) & (ncap - 1))
				;
			nn[i] = s->names[k];
		}
		free(s->names);
		s->names = nn;
		s->hcap = ncap;
	}
	for (i = str_hash(name) & (s->hcap - 1); s->names[i]; i = (i + 1) & (s->hcap - 1))
		if (!strcmp(s->names[i], name))
			return 0;
	s->names[i] = strdup(name);
	if (!s->names[i])
		return -ENOMEM;
	s->nnames++;
	return 1;
}

static int set_push(struct bid_set *s, const struct build_id *bid, uint16_t misc, const char *name)
{
	struct pd_build_id *e;

	if (s->n == s->cap) {
		size_t ncap = s->cap ? 2 * s->cap : 32;
		struct pd_build_id *nv = realloc(s->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->cap = ncap;
	}
	e = &s->v[s->n++];
	memset(e, 0, sizeof(*e));
	e->pid = -1;
	e->misc = misc;
	e->size = bid->size;
	memcpy(e->data, bid->data, bid->size);
	e->name = name; /* the copy in names[], which lives as long as the set */
	return 0;
}

/* The remembered copy of name (after seen_add). */
static const char *seen_name(const struct bid_set *s, const char *name)
{
	for (size_t i = str_hash(name) & (s->hcap - 1); s->names[i]; i = (i + 1) & (s->hcap - 1))
		if (!strcmp(s->names[i], name))
			return s->names[i];
	return NULL;
}

int bid_set__kernel(struct bid_set *s)
{
	static const char name[] = "[kernel.kallsyms]";
	struct build_id bid = { 0 }; /* -errno of 0 must not push garbage */
	int r = seen_add(s, name);

	if (r <= 0)
		return r;
	if (cache_kernel(s->c, &bid))
		return 0;
	return set_push(s, &bid, PERF_RECORD_MISC_KERNEL, seen_name(s, name));
}

int bid_set__map(struct bid_set *s, uint32_t pid, uint64_t start, uint64_t len, uint64_t ino,
		 const char *name)
{
	struct build_id bid = { 0 }; /* -errno of 0 must not push garbage */
	size_t nl = strlen(name);
	int r;

	if (strcmp(name, "[vdso]") &&
	    (name[0] != '/' || (nl > 10 && !strcmp(name + nl - 10, " (deleted)"))))
		return 0;
	r = seen_add(s, name);
	if (r <= 0)
		return r;
	if (!strcmp(name, "[vdso]"))
		r = cache_vdso(s->c, &bid);
	else
		r = cache_file(s->c, name, pid, start, len, ino, &bid);
	if (r == -ENOMEM)
		return r;
	if (r)
		return 0;
	return set_push(s, &bid, PERF_RECORD_MISC_USER, seen_name(s, name));
}

int bid_set__mmap2(struct bid_set *s, const struct perf_event_header *rec)
{
	/* u32 pid, tid; u64 start, len, pgoff; then maj/min/ino/ino_gen or a build-id */
	const unsigned char *p = (const void *)(rec + 1),
			    *end = (const unsigned char *)rec + rec->size;
	uint32_t pid;
	uint64_t v[3], ino;
	const char *name = (const char *)p + 8 + 24 + 32;

	if (rec->type != PERF_RECORD_MMAP2 || (const unsigned char *)name >= end ||
	    !memchr(name, 0, end - (const unsigned char *)name))
		return 0;
	memcpy(&pid, p, 4);
	memcpy(v, p + 8, 24);
	if (rec->misc & (1 << 14)) { /* PERF_RECORD_MISC_MMAP_BUILD_ID: u8 size, 3 pad, 20 bytes */
		struct build_id bid = { .size = p[32] };
		int r;

		if (bid.size > PD_BUILD_ID_MAX)
			return 0;
		memcpy(bid.data, p + 36, bid.size);
		r = seen_add(s, name);
		return r <= 0 ? r : set_push(s, &bid, PERF_RECORD_MISC_USER, seen_name(s, name));
	}
	memcpy(&ino, p + 32 + 8, 8);
	return bid_set__map(s, pid, v[0], v[1], ino, name);
}

const struct pd_build_id *bid_set__entries(const struct bid_set *s, int *nr)
{
	*nr = s->n;
	return s->v;
}
