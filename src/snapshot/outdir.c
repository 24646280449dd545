// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include "snapshot/outdir.h"
#include "util/log.h"

struct outdir {
	char *path;
	int fd;
	int tmpfile_ok;	   /* the filesystem has O_TMPFILE */
	uint64_t max_pair; /* outdir__set_max_pair(); 0 = no limit */
	uint64_t refused;  /* size of the last pair refused for it */
};

static int tmpfile_missing(int err)
{
	/* EISDIR/ENOENT: kernels and filesystems from before O_TMPFILE. */
	return err == EOPNOTSUPP || err == EISDIR || err == ENOENT;
}

int outdir__create(struct outdir *d, struct out_file *f)
{
	f->name[0] = 0;
	if (d->tmpfile_ok) {
		f->fd = openat(d->fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (f->fd >= 0)
			return 0;
		if (!tmpfile_missing(errno))
			return -errno;
		d->tmpfile_ok = 0;
	}
	for (int i = 0; i < 100; i++) {
		uint64_t rnd;

		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
			return f->fd = -1, -errno;
		snprintf(f->name, sizeof(f->name), ".trigrec-%d-%016" PRIx64 ".tmp", (int)getpid(),
			 rnd);
		f->fd = openat(d->fd, f->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			       0600);
		if (f->fd >= 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	f->name[0] = 0;
	return -errno;
}

void outdir__discard(struct outdir *d, struct out_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->name[0])
		unlinkat(d->fd, f->name, 0);
	f->name[0] = 0;
}

/* Give a file its name. 0, -EEXIST when anything has that name, or -errno. */
static int name_file(struct outdir *d, struct out_file *f, const char *name)
{
	char proc[64];

	if (f->name[0]) {
		if (!renameat2(d->fd, f->name, d->fd, name, RENAME_NOREPLACE)) {
			f->name[0] = 0;
			return 0;
		}
		if (errno != EINVAL && errno != ENOSYS)
			return -errno;
		/* No RENAME_NOREPLACE on this filesystem: link(2) never replaces either. */
		if (linkat(d->fd, f->name, d->fd, name, 0))
			return -errno;
		unlinkat(d->fd, f->name, 0);
		f->name[0] = 0;
		return 0;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
	if (!linkat(AT_FDCWD, proc, d->fd, name, AT_SYMLINK_FOLLOW))
		return 0;
	if (errno != ENOENT)
		return -errno;
	/* No /proc mounted: AT_EMPTY_PATH does the same (needs CAP_DAC_READ_SEARCH). */
	return linkat(f->fd, "", d->fd, name, AT_EMPTY_PATH) ? -errno : 0;
}

/* Does anything (a file, a dangling symlink, a directory) have this name? */
static int name_taken(struct outdir *d, const char *name)
{
	struct stat st;

	return !fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) || errno != ENOENT;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= w;
	}
	return 0;
}

int outdir__publish_pair(struct outdir *d, struct out_file *data, const char *base,
			 outdir_render_fn render, void *ctx, char *path, size_t pathlen)
{
	char dname[OUTDIR_NAME_MAX + 1], jname[OUTDIR_NAME_MAX + 1];
	int err = -EEXIST;

	if (strlen(base) > OUTDIR_BASE_MAX)
		return -ENAMETOOLONG;
	for (int n = 1; n <= 1000 && err == -EEXIST; n++) {
		struct out_file js = { .fd = -1 };
		char *buf = NULL;
		size_t len = 0;

		snprintf(dname, sizeof(dname), n == 1 ? "%s.data" : "%s-%d.data", base, n);
		snprintf(jname, sizeof(jname), n == 1 ? "%s.json" : "%s-%d.json", base, n);
		if (name_taken(d, dname) || name_taken(d, jname))
			continue;
		if ((size_t)snprintf(path, pathlen, "%s/%s", d->path, dname) >= pathlen)
			return -ENAMETOOLONG; /* outdir__open() made sure it fits PATH_MAX */
		err = render(ctx, path, &buf, &len);
		if (!err && d->max_pair) {
			struct stat st;

			/* Before anything is named: a refused snapshot leaves nothing behind. */
			if (fstat(data->fd, &st))
				err = -errno;
			else if ((uint64_t)st.st_size + len > d->max_pair)
				d->refused = st.st_size + len, err = -EFBIG;
		}
		if (!err)
			err = outdir__create(d, &js);
		if (!err)
			err = write_all(js.fd, buf, len);
		free(buf);
		if (!err && fsync(js.fd))
			err = -errno;
		if (!err)
			err = name_file(d, &js, jname);
		if (!err) {
			err = name_file(d, data, dname);
			if (err) /* never a sidecar without its data */
				unlinkat(d->fd, jname, 0);
		}
		/* A name taken meanwhile, by anything: the next one, with a fresh sidecar. */
		outdir__discard(d, &js);
	}
	if (err)
		return err;
	/* The names survive a crash only once the directory is on disk. */
	return fsync(d->fd) ? -errno : 0;
}

static int stamp_at(const char *p)
{
	static const char pat[] = "dddddddd-dddddd.dddddd-";

	for (size_t i = 0; i < sizeof(pat) - 1; i++)
		if (pat[i] == 'd' ? p[i] < '0' || p[i] > '9' : p[i] != pat[i])
			return 0;
	return 1;
}

int outdir_stamp_offset(const char *name)
{
	size_t len = strnlen(name, OUTDIR_NAME_MAX + 1);

	if (len < 23)
		return -1;
	if (stamp_at(name))
		return 0;
	/* PREFIX- then the stamp: the prefix's characters only, at most 63 of them. */
	for (int i = 0; i < 63 && name[i]; i++) {
		char c = name[i];

		if (c == '-' && i > 0 && len - i - 1 >= 23 && stamp_at(name + i + 1))
			return i + 1;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return -1;
	}
	return -1;
}

int outdir_is_sidecar_name(const char *name)
{
	size_t len = strlen(name);
	int off = outdir_stamp_offset(name);

	return off >= 0 && len > (size_t)off + 23 + 5 && !strcmp(name + len - 5, ".json");
}

int outdir_tmp_name_pid(const char *name)
{
	int pid, n = 0;

	if (sscanf(name, ".trigrec-%d-%*[0-9a-f]%n", &pid, &n) != 1 || !n ||
	    strcmp(name + n, ".tmp"))
		return 0;
	return pid > 0 ? pid : 0;
}

/* Is the run that made a temporary over? (its PID is gone, or is not a trigrec any more) */
static int run_is_over(int pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	if (pid == getpid())
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	return strncmp(comm, "trigrec", 7) != 0;
}

/*
 * What a run killed mid-write (kill -9, power loss) leaves: named
 * temporaries (only without O_TMPFILE) and a sidecar whose .data never got
 * its name. Only ours is removed: our uid, regular files, our names, and for
 * temporaries a run that is over.
 */
static void clean_leftovers(struct outdir *d)
{
	int fd = openat(d->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	unsigned long tmps = 0, sidecars = 0;
	struct dirent *de;
	DIR *dir;

	if (fd < 0 || !(dir = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(dir))) {
		char dname[OUTDIR_NAME_MAX + 8];
		size_t len = strlen(de->d_name);
		struct stat st;
		int pid;

		if (fstatat(d->fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		if (outdir_is_sidecar_name(de->d_name) && len <= OUTDIR_NAME_MAX) {
			snprintf(dname, sizeof(dname), "%.*s.data", (int)len - 5, de->d_name);
			if (!name_taken(d, dname) && !unlinkat(d->fd, de->d_name, 0))
				sidecars++;
		} else if ((pid = outdir_tmp_name_pid(de->d_name)) && run_is_over(pid)) {
			if (!unlinkat(d->fd, de->d_name, 0))
				tmps++;
		}
	}
	closedir(dir);
	if (tmps || sidecars)
		ilog("removed what a killed run left in %s: %lu temporary file%s, %lu sidecar%s "
		     "without its .data",
		     d->path, tmps, tmps == 1 ? "" : "s", sidecars, sidecars == 1 ? "" : "s");
}

int outdir_trusted(int fd, const char *path, const char *what)
{
	struct stat st;
	uid_t me = geteuid();

	if (fstat(fd, &st)) {
		elog("%s %s: %s", what, path, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		elog("%s %s is not a directory", what, path);
		return -ENOTDIR;
	}
	if (st.st_uid != me && st.st_uid != 0) {
		elog("%s %s is owned by uid %u, not by trigrec's user (uid %u) or root: its owner "
		     "could delete, replace or read what trigrec writes there; use a directory "
		     "of your own (such as /var/lib/trigrec/NAME, mode 0700), or chown it",
		     what, path, (unsigned)st.st_uid, (unsigned)me);
		return -EPERM;
	}
	if (st.st_mode & S_ISVTX)
		return 0; /* sticky: others may add files, never remove or rename ours */
	if (st.st_mode & S_IWOTH) {
		elog("%s %s is writable by every user (mode %04o) without the sticky bit: anyone "
		     "could remove, replace or plant files there; chmod o-w %s (or +t), or use a "
		     "directory of your own",
		     what, path, (unsigned)(st.st_mode & 07777), path);
		return -EPERM;
	}
	if ((st.st_mode & S_IWGRP) && st.st_gid != 0 && st.st_gid != getegid()) {
		elog("%s %s is writable by group %u (mode %04o) without the sticky bit: its "
		     "members could remove, replace or plant files there; chmod g-w %s (or +t), "
		     "or use a directory of your own",
		     what, path, (unsigned)st.st_gid, (unsigned)(st.st_mode & 07777), path);
		return -EPERM;
	}
	return 0;
}

/* The directory itself, never a symbolic link to it. fd or -errno after elog(). */
static int open_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), err;

	if (fd < 0) {
		struct stat st;

		err = errno;
		/* O_DIRECTORY | O_NOFOLLOW on a link: ENOTDIR (ELOOP without O_DIRECTORY). */
		if (err == ELOOP || (err == ENOTDIR && !lstat(path, &st) && S_ISLNK(st.st_mode))) {
			err = ELOOP;
			elog("output directory %s is a symbolic link: trigrec writes only into the "
			     "directory itself; give its real path with -o (realpath %s)",
			     path, path);
		} else if (err == ENOTDIR) {
			elog("output %s is not a directory: -o takes a directory", path);
		} else {
			elog("output directory %s: %s (create it, or choose another with -o)", path,
			     strerror(err));
		}
		return -err;
	}
	err = outdir_trusted(fd, path, "output directory");
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int outdir_check(const char *path, int *fd)
{
	char parent[PATH_MAX];
	struct stat st;
	char *slash;

	*fd = -1;
	if (!lstat(path, &st)) {
		int r = open_dir(path);

		if (r < 0)
			return r;
		if (faccessat(r, ".", W_OK | X_OK, 0)) {
			elog("output directory %s is not writable: %s (fix its permissions or use -o)",
			     path, strerror(errno));
			close(r);
			return -EACCES;
		}
		*fd = r;
		return 0;
	}
	if (errno != ENOENT) {
		elog("output directory %s: %s (choose another with -o)", path, strerror(errno));
		return -errno;
	}
	snprintf(parent, sizeof(parent), "%s", path);
	slash = strrchr(parent, '/');
	if (!slash)
		snprintf(parent, sizeof(parent), ".");
	else if (slash == parent)
		slash[1] = 0;
	else
		*slash = 0;
	/* trigrec's state directory is made too (outdir_make()), as the units' StateDirectory=. */
	if (!strcmp(parent, OUTDIR_STATE_DIR) && access(parent, F_OK) && errno == ENOENT)
		snprintf(parent, sizeof(parent), "%s", "/var/lib");
	if (access(parent, W_OK | X_OK)) {
		elog("output directory %s: cannot create it in %s: %s (create it, or choose "
		     "another with -o)",
		     path, parent, strerror(errno));
		return -errno;
	}
	return 1;
}

int outdir_make(const char *path)
{
	size_t sl = strlen(OUTDIR_STATE_DIR);

	/* Only the state directory, only right above -o: a typo elsewhere is still an error. */
	if (!strncmp(path, OUTDIR_STATE_DIR "/", sl + 1) && !strchr(path + sl + 1, '/') &&
	    mkdir(OUTDIR_STATE_DIR, 0755) && errno != EEXIST) {
		elog("output directory %s: cannot create %s: %s (create it, or choose another "
		     "with -o)",
		     path, OUTDIR_STATE_DIR, strerror(errno));
		return -errno;
	}
	if (mkdir(path, 0700)) {
		int err = errno;

		if (err == EEXIST)
			elog("output directory %s appeared while trigrec was setting up (it did not "
			     "exist when checked): something else created it meanwhile, and its "
			     "files cannot be trusted; find out who (ls -ld %s), remove it or "
			     "choose another with -o",
			     path, path);
		else
			elog("output directory %s: %s (create it, or choose another with -o)", path,
			     strerror(err));
		return -err;
	}
	return open_dir(path);
}

struct outdir *outdir__open_at(int dirfd, const char *path)
{
	size_t len = strlen(path);
	struct outdir *d;
	int fd;

	/* Refuse now what would otherwise cut every snapshot's name short later. */
	if (len + 1 + OUTDIR_NAME_MAX >= PATH_MAX) {
		elog("output directory path is %zu bytes long: with a snapshot's file name (up to "
		     "%d bytes) it exceeds PATH_MAX (%d); choose a shorter -o",
		     len, OUTDIR_NAME_MAX, PATH_MAX);
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d || !(d->path = strdup(path))) {
		elog("out of memory");
		free(d);
		return NULL;
	}
	d->fd = dirfd >= 0 ? fcntl(dirfd, F_DUPFD_CLOEXEC, 3) : open_dir(path);
	if (d->fd < 0) {
		if (dirfd >= 0)
			elog("output directory %s: %s", path, strerror(errno));
		d->fd = -1;
		goto fail;
	}
	/* Probe O_TMPFILE once; it also tells whether files can be created at all. */
	fd = openat(d->fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	d->tmpfile_ok = fd >= 0;
	if (fd >= 0) {
		close(fd);
	} else if (!tmpfile_missing(errno)) {
		elog("output directory %s: cannot create files there: %s (fix its permissions, "
		     "or choose another with -o)",
		     path, strerror(errno));
		goto fail;
	} else {
		vlog("%s has no O_TMPFILE: snapshots are written under unguessable temporary names",
		     path);
	}
	clean_leftovers(d);
	return d;
fail:
	outdir__free(d);
	return NULL;
}

struct outdir *outdir__open(const char *path)
{
	return outdir__open_at(-1, path);
}

void outdir__free(struct outdir *d)
{
	if (!d)
		return;
	if (d->fd >= 0)
		close(d->fd);
	free(d->path);
	free(d);
}

const char *outdir__path(const struct outdir *d)
{
	return d->path;
}

void outdir__set_max_pair(struct outdir *d, uint64_t bytes)
{
	d->max_pair = bytes;
}

uint64_t outdir__refused_bytes(const struct outdir *d)
{
	return d->refused;
}

void outdir__force_named_tmp(struct outdir *d)
{
	d->tmpfile_ok = 0;
}
