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

#define NOTE_MAX (1u << 16) /* a build-id note segment is tiny; bound what we read */

/* ---------------------------------------------------------------- notes -- */

int build_id__from_notes(const void *notes, size_t len, size_t align, struct build_id *bid)
{
	const unsigned char *p = notes, *end = p + len;

	if (align != 8)
		align = 4;
	while ((size_t)(end - p) >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh; /* the same as Elf32_Nhdr: three u32 */
		size_t nsz, dsz;

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

void build_id__hex(const struct build_id *bid, char *out)
{
	for (int i = 0; i < bid->size; i++)
		sprintf(out + 2 * i, "%02x", bid->data[i]);
	out[2 * bid->size] = 0;
}

/* ----------------------------------------------------------------- ELF -- */

/* Notes in [off, off + size) of the file: read them (bounded) and look. */
static int notes_at(int fd, uint64_t off, uint64_t size, size_t align, struct build_id *bid)
{
	unsigned char *buf;
	ssize_t n;
	int err;

	if (!size)
		return -ENOENT;
	if (size > NOTE_MAX)
		size = NOTE_MAX;
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	n = pread(fd, buf, size, off);
	err = n > 0 ? build_id__from_notes(buf, n, align, bid) : -EIO;
	free(buf);
	return err;
}

/*
 * ELF32 and ELF64 of the host's byte order (what processes here map). The
 * program headers first (always there in what can be mapped), then the
 * section headers, like perf's readers.
 */
#define SCAN_ELF(Ehdr, Phdr, Shdr)                                                          \
	do {                                                                                \
		Ehdr eh;                                                                    \
		if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))                            \
			return -ENOEXEC;                                                    \
		for (int i = 0; i < eh.e_phnum; i++) {                                      \
			Phdr ph;                                                            \
			if (eh.e_phentsize < sizeof(ph) ||                                  \
			    pread(fd, &ph, sizeof(ph),                                      \
				  eh.e_phoff + (uint64_t)i * eh.e_phentsize) != sizeof(ph)) \
				break;                                                      \
			if (ph.p_type == PT_NOTE &&                                         \
			    !notes_at(fd, ph.p_offset, ph.p_filesz, ph.p_align, bid))       \
				return 0;                                                   \
		}                                                                           \
		for (int i = 0; i < eh.e_shnum; i++) {                                      \
			Shdr sh;                                                            \
			if (eh.e_shentsize < sizeof(sh) ||                                  \
			    pread(fd, &sh, sizeof(sh),                                      \
				  eh.e_shoff + (uint64_t)i * eh.e_shentsize) != sizeof(sh)) \
				break;                                                      \
			if (sh.sh_type == SHT_NOTE &&                                       \
			    !notes_at(fd, sh.sh_offset, sh.sh_size, sh.sh_addralign, bid))  \
				return 0;                                                   \
		}                                                                           \
		return -ENOENT;                                                             \
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
	struct bid_ent *v;
	size_t n, cap;
	struct build_id kernel, vdso;
	int kernel_done, vdso_done;
	unsigned long stored;
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

struct bid_cache *bid_cache__new(const char *debug_dir)
{
	struct bid_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (debug_dir) {
		c->dir = strdup(debug_dir);
		if (!c->dir) {
			free(c);
			return NULL;
		}
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
	free(c);
}

unsigned long bid_cache__stored(const struct bid_cache *c)
{
	return c ? c->stored : 0;
}

/* mkdir -p of path's directories up to (not including) its last component. */
static int mkdir_parents(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return 0;
}

/* Write src (fd, or bytes) to dst through a temporary name, mode kept. */
static int copy_to(const char *dst, int sfd, const void *bytes, size_t len, mode_t mode)
{
	char tmp[4200], buf[65536];
	int fd, err = 0;

	snprintf(tmp, sizeof(tmp), "%s.trigrec-%d", dst, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	if (bytes) {
		if (write(fd, bytes, len) != (ssize_t)len)
			err = -EIO;
	} else {
		off_t off = 0;
		ssize_t n;

		while ((n = pread(sfd, buf, sizeof(buf), off)) > 0) {
			if (write(fd, buf, n) != n) {
				err = -EIO;
				break;
			}
			off += n;
		}
		if (n < 0)
			err = -errno;
	}
	if (close(fd) && !err)
		err = -EIO;
	if (!err && rename(tmp, dst))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/*
 * Put one object in perf's build-id cache: DIR/<name>/<hex>/<file>, then
 * the .build-id link, last (a link means the entry is complete). name is a
 * path ("/usr/lib/libc.so.6") or "[kernel.kallsyms]" / "[vdso]". The source
 * is a hard link of src_path when that is the same file, else a copy of
 * sfd (or of bytes).
 */
static void cache_store(struct bid_cache *c, const struct build_id *bid, const char *name,
			const char *file, const char *src_path, int sfd, const void *bytes,
			size_t len, mode_t mode)
{
	char hex[2 * PD_BUILD_ID_MAX + 1], link_path[4200], obj[4200], target[4200];
	struct stat st;

	if (!c->dir || !bid->size)
		return;
	build_id__hex(bid, hex);
	snprintf(link_path, sizeof(link_path), "%s/.build-id/%.2s/%s", c->dir, hex, hex + 2);
	if (!lstat(link_path, &st))
		return; /* already there (perf's or ours) */
	snprintf(obj, sizeof(obj), "%s/%s/%s/%s", c->dir, name + (name[0] == '/'), hex, file);
	if (mkdir_parents(obj) || mkdir_parents(link_path))
		return;
	/* a hard link when it is the same file (and filesystem), else a copy */
	if (!src_path || (link(src_path, obj) && errno != EEXIST)) {
		if (copy_to(obj, sfd, bytes, len, mode))
			return;
	}
	/* the debug info of a file, when installed (perf puts it beside as "debug") */
	if (name[0] == '/') {
		char dbg[256], dobj[4200];
		int dfd;

		snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
		snprintf(dobj, sizeof(dobj), "%s/%s/%s/debug", c->dir, name + 1, hex);
		if (!access(dbg, R_OK) && link(dbg, dobj) && errno != EEXIST) {
			dfd = open(dbg, O_RDONLY | O_CLOEXEC);
			if (dfd >= 0) {
				copy_to(dobj, dfd, NULL, 0, 0644);
				close(dfd);
			}
		}
	}
	snprintf(target, sizeof(target), "../../%s/%s", name + (name[0] == '/'), hex);
	if (!symlink(target, link_path))
		c->stored++;
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
			cache_store(c, &c->kernel, "[kernel.kallsyms]", "kallsyms", NULL, fd, NULL,
				    0, 0644);
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
			cache_store(c, &c->vdso, "[vdso]", "vdso", NULL, -1, img, len, 0644);
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
	struct stat st, pst;
	struct bid_ent *e = NULL;
	int fd = -1, by_path = 0, same;

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
	same = by_path || (!stat(path, &pst) && pst.st_dev == st.st_dev && pst.st_ino == st.st_ino);
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
		cache_store(c, &e->bid, path, "elf", same ? path : NULL, fd, NULL, 0,
			    st.st_mode & 0777);
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
	return s;
}

void bid_set__free(struct bid_set *s)
{
	if (!s)
		return;
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
