// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include "service/retention.h"
#include "util/log.h"
#include "util/util.h"

struct retention {
	char *path;
	char instance[RETENTION_INSTANCE_MAX + 1];
	int fd;
	struct retention_limits l;
	struct ret_snap *snaps; /* scan buffer, reused: no allocation per snapshot once grown */
	size_t cap;
	struct retention_stats st;
	/* The one-line-per-10-s summary after snapshots: counts since the last line. */
	struct log_limit lim;
	uint64_t pend_n, pend_bytes, pend_failed;
	int pend_why;
	int last_err;
};

static int snap_cmp(const void *a, const void *b)
{
	const struct ret_snap *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return strcmp(x->base, y->base);
}

size_t retention_choose(struct ret_snap *snaps, size_t n, const struct retention_limits *l,
			int64_t now_ns, const char *protect)
{
	uint64_t files = n, bytes = 0, marked = 0;
	int64_t horizon =
		l->age_ns && (uint64_t)now_ns > l->age_ns ? now_ns - (int64_t)l->age_ns : INT64_MIN;

	if (n) /* qsort(NULL, 0, ...) is undefined */
		qsort(snaps, n, sizeof(*snaps), snap_cmp);
	for (size_t i = 0; i < n; i++) {
		snaps[i].del = 0;
		bytes += snaps[i].bytes;
	}
	for (size_t i = 0; i < n; i++) {
		struct ret_snap *s = &snaps[i];
		int why = 0;

		if (l->files && files > l->files)
			why |= RET_OVER_FILES;
		if (l->bytes && bytes > l->bytes)
			why |= RET_OVER_BYTES;
		if (s->time_ns < horizon)
			why |= RET_OVER_AGE;
		/* Oldest first: once nothing is over, everything newer stays too. */
		if (!why)
			break;
		if (protect && !strcmp(s->base, protect))
			continue;
		s->del = why;
		files--;
		bytes -= s->bytes;
		marked++;
	}
	return marked;
}

/*
 * mktime() of the hour the stamp falls in ("YYYYmmdd-HH"), remembered:
 * glibc's mktime() stats /etc/localtime on every call, a third of a scan of
 * 1000 snapshots. Offsets change on whole hours (where it is not a whole
 * hour, the ambiguity of a DST change is there anyway).
 */
static time_t hour_start(const char *stamp, const struct tm *in)
{
	static __thread struct {
		char key[12];
		time_t t;
	} cache[16];
	unsigned h = 0;
	struct tm tm = *in;

	for (int i = 0; i < 11; i++)
		h = h * 31 + (unsigned char)stamp[i];
	h %= 16;
	if (!memcmp(cache[h].key, stamp, 11) && cache[h].key[11] == 1)
		return cache[h].t;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	tm.tm_min = tm.tm_sec = 0;
	tm.tm_isdst = -1;
	memcpy(cache[h].key, stamp, 11);
	cache[h].key[11] = 1;
	return cache[h].t = mktime(&tm);
}

size_t retention_data_name(const char *full, int64_t *time_ns)
{
	size_t len = strlen(full), pl = 23;
	struct tm tm = { .tm_isdst = -1 };
	int off = outdir_stamp_offset(full);
	const char *name;
	time_t sec;
	int us;

	/* A `name PREFIX` comes before the stamp. */
	if (off < 0)
		return 0;
	name = full + off;
	if (len <= off + pl + 5 || len - 5 > OUTDIR_NAME_MAX || strcmp(full + len - 5, ".data"))
		return 0;
	/* The stamp is the writer's localtime_r(): mktime() is its inverse (DST picks one). */
	sscanf(name, "%4d%2d%2d-%2d%2d%2d.%6d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
	       &tm.tm_min, &tm.tm_sec, &us);
	if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
	    tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60) {
		*time_ns = -1;
		return len - 5;
	}
	sec = hour_start(name, &tm);
	/* Past 2262 (or before 1677) nanoseconds overflow: such a stamp is no date for us. */
	if (sec != (time_t)-1 &&
	    (sec > INT64_MAX / 1000000000 - 3600 || sec < INT64_MIN / 1000000000 + 3600))
		sec = (time_t)-1;
	*time_ns = sec == (time_t)-1 ? -1 :
				       ((int64_t)sec + tm.tm_min * 60 + tm.tm_sec) * 1000000000 +
					       (int64_t)us * 1000;
	return len - 5;
}

const char *retention_limits_fmt(const struct retention_limits *l, char *buf, size_t len)
{
	char a[32], b[32];
	int o = 0;

	buf[0] = 0;
	if (l->files)
		o += snprintf(buf + o, len - o, "%llu files", (unsigned long long)l->files);
	if (l->bytes && o < (int)len)
		o += snprintf(buf + o, len - o, "%s%s", o ? ", " : "",
			      fmt_size(l->bytes, a, sizeof(a)));
	if (l->age_ns && o < (int)len)
		o += snprintf(buf + o, len - o, "%s%s", o ? ", " : "",
			      fmt_duration_as_written(l->age_ns, b, sizeof(b)));
	if (!o)
		snprintf(buf, len, "none");
	return buf;
}

static const char *why_fmt(int why)
{
	static const char *names[] = {
		"",
		"over the file count",
		"over the byte budget",
		"over the file count and bytes",
		"too old",
		"too old and over the file count",
		"too old and over the byte budget",
		"too old and over the file count and bytes",
	};
	return names[why & 7];
}

int retention_instance_ok(const char *id)
{
	size_t n = strnlen(id, RETENTION_INSTANCE_MAX + 1);

	if (!n || n > RETENTION_INSTANCE_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = id[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return 0;
	}
	return 1;
}

void retention_instance_random(char *out)
{
	uint64_t v = 0;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v)) {
		struct timespec ts;

		/* No entropy yet (early boot): distinct enough per run. */
		clock_gettime(CLOCK_REALTIME, &ts);
		v = ((uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec) ^ ((uint64_t)getpid() << 40);
	}
	snprintf(out, 17, "%016llx", (unsigned long long)v);
}

int retention_sidecar_instance(const char *buf, size_t len, char *out)
{
	static const char head[] = "{\n  \"instance\": \"";
	size_t h = sizeof(head) - 1, n = 0;

	if (len < h || memcmp(buf, head, h))
		return -1;
	while (h + n < len && n <= RETENTION_INSTANCE_MAX && buf[h + n] != '"')
		out[n] = buf[h + n], n++;
	if (h + n >= len || buf[h + n] != '"' || n > RETENTION_INSTANCE_MAX)
		return -1;
	out[n] = 0;
	/* Every byte checked: a NUL inside must not make "ab\0c" the ID "ab". */
	return retention_instance_ok(out) && strlen(out) == n ? (int)n : -1;
}

struct retention *retention__new(int dirfd, const char *path, const char *instance,
				 const struct retention_limits *l)
{
	struct retention *r = calloc(1, sizeof(*r));

	if (!r || !(r->path = strdup(path))) {
		elog("out of memory");
		free(r);
		return NULL;
	}
	r->l = *l;
	if (!retention_instance_ok(instance)) {
		elog("retention: '%s' is not an instance ID (1-%d of A-Z a-z 0-9 _ . -)", instance,
		     RETENTION_INSTANCE_MAX);
		retention__free(r);
		return NULL;
	}
	snprintf(r->instance, sizeof(r->instance), "%s", instance);
	r->lim = (struct log_limit)LOG_LIMIT_INIT(10 * 1000000000ull);
	r->fd = dirfd >= 0 ? fcntl(dirfd, F_DUPFD_CLOEXEC, 3) :
			     open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (r->fd < 0) {
		elog("output directory %s: %s (create it, or choose another with -o)", path,
		     strerror(errno));
		retention__free(r);
		return NULL;
	}
	return r;
}

/* Is this a regular file of ours? Its size in *bytes (and mtime). */
static int own_file(int dfd, const char *name, uid_t uid, uint64_t *bytes, int64_t *mtime_ns)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
	    st.st_uid != uid)
		return 0;
	*bytes = st.st_size;
	if (mtime_ns)
		*mtime_ns = st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec;
	return 1;
}

/* Was the sidecar name (a regular file of ours) written by this instance? */
static int our_instance(const struct retention *r, const char *name)
{
	char buf[sizeof("{\n  \"instance\": \"\"") + RETENTION_INSTANCE_MAX],
		id[RETENTION_INSTANCE_MAX + 1];
	int fd = openat(r->fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = pread(fd, buf, sizeof(buf), 0);
	close(fd);
	return n > 0 && retention_sidecar_instance(buf, n, id) >= 0 && !strcmp(id, r->instance);
}

/* The snapshots in the directory into r->snaps; their count, or -errno. */
static long scan(struct retention *r)
{
	int fd = openat(r->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	uid_t uid = geteuid(); /* once: a syscall per file shows at 1000 snapshots */
	size_t n = 0;
	DIR *dir;

	if (fd < 0 || !(dir = fdopendir(fd))) {
		int err = -errno;

		if (fd >= 0)
			close(fd);
		return err;
	}
	while ((de = readdir(dir))) {
		char json[OUTDIR_NAME_MAX + 8];
		uint64_t db, jb;
		int64_t t, mt;
		size_t bl = retention_data_name(de->d_name, &t);

		if (!bl || !own_file(r->fd, de->d_name, uid, &db, &mt))
			continue;
		snprintf(json, sizeof(json), "%.*s.json", (int)bl, de->d_name);
		if (!own_file(r->fd, json, uid, &jb, NULL))
			continue; /* not a whole pair: not ours to count or remove */
		if (!our_instance(r, json))
			continue; /* another recorder's (or a copy's): never ours to remove */
		if (n == r->cap) {
			size_t cap = r->cap ? 2 * r->cap : 64;
			struct ret_snap *p = realloc(r->snaps, cap * sizeof(*p));

			if (!p) {
				closedir(dir);
				return -ENOMEM;
			}
			r->snaps = p;
			r->cap = cap;
		}
		memcpy(r->snaps[n].base, de->d_name, bl);
		r->snaps[n].base[bl] = 0;
		r->snaps[n].time_ns = t >= 0 ? t : mt;
		r->snaps[n].bytes = db + jb;
		n++;
	}
	closedir(dir);
	return n;
}

/* The periodic line (and the end's): what was removed since the last one. */
static void summary_line(struct retention *r, const char *more)
{
	char a[32], b[32], lims[96], kv[256] = "event=retention";

	log_kv_add(kv, sizeof(kv), "dir", r->path);
	log_kv_addu(kv, sizeof(kv), "removed", r->pend_n);
	log_kv_addu(kv, sizeof(kv), "removed_bytes", r->pend_bytes);
	log_kv_addu(kv, sizeof(kv), "snapshots", r->st.files);
	log_kv_addu(kv, sizeof(kv), "bytes", r->st.bytes);
	log_event(LOG_INFO, kv,
		  "retention: removed %llu snapshot%s (%s) from %s, %s (keep %s)%s%s; "
		  "%llu snapshot%s (%s) there now",
		  (unsigned long long)r->pend_n, r->pend_n == 1 ? "" : "s",
		  fmt_size(r->pend_bytes, a, sizeof(a)), r->path, why_fmt(r->pend_why),
		  retention_limits_fmt(&r->l, lims, sizeof(lims)), more ? more : "",
		  r->pend_failed ? "; some could not be removed (-v says why)" : "",
		  (unsigned long long)r->st.files, r->st.files == 1 ? "" : "s",
		  fmt_size(r->st.bytes, b, sizeof(b)));
	r->pend_n = r->pend_bytes = r->pend_failed = 0;
	r->pend_why = 0;
}

int retention__enforce(struct retention *r, const char *just_published, uint64_t published_bytes)
{
	const char *protect = NULL;
	char pbase[OUTDIR_NAME_MAX + 1];
	uint64_t t0 = mono_ns();
	struct timespec now;
	long n;
	int removed = 0;

	if (!r->l.files && !r->l.bytes && !r->l.age_ns) {
		/* Accounting only: a full scan per snapshot would cost without a limit to keep. */
		if (just_published) {
			r->st.files++;
			r->st.bytes += published_bytes;
			return 0;
		}
	}
	if (just_published) {
		const char *name = strrchr(just_published, '/');
		int64_t t;
		size_t bl;

		name = name ? name + 1 : just_published;
		bl = retention_data_name(name, &t);
		if (bl) {
			memcpy(pbase, name, bl);
			pbase[bl] = 0;
			protect = pbase;
		}
	}
	n = scan(r);
	if (n < 0) {
		if (n != r->last_err)
			wlog("retention: cannot read %s: %s; nothing removed", r->path,
			     strerror(-n));
		r->last_err = n;
		return n;
	}
	r->last_err = 0;
	clock_gettime(CLOCK_REALTIME, &now);
	retention_choose(r->snaps, n, &r->l, now.tv_sec * 1000000000ll + now.tv_nsec, protect);
	r->st.files = r->st.bytes = 0;
	for (long i = 0; i < n; i++) {
		struct ret_snap *s = &r->snaps[i];
		char name[OUTDIR_NAME_MAX + 8], sz[32];
		int err = 0;

		if (s->del) {
			/* The .data first: a visible .data always has its sidecar. */
			snprintf(name, sizeof(name), "%s.data", s->base);
			if (unlinkat(r->fd, name, 0) && errno != ENOENT)
				err = errno;
			snprintf(name, sizeof(name), "%s.json", s->base);
			if (!err && unlinkat(r->fd, name, 0) && errno != ENOENT)
				err = errno;
		}
		if (s->del && !err) {
			vlog("retention: removed %s.data and .json (%s, %s)", s->base,
			     fmt_size(s->bytes, sz, sizeof(sz)), why_fmt(s->del));
			removed++;
			r->st.removed++;
			r->st.removed_bytes += s->bytes;
			r->pend_n++;
			r->pend_bytes += s->bytes;
			r->pend_why |= s->del;
			continue;
		}
		if (s->del) {
			vlog("retention: cannot remove %s.data/.json: %s", s->base, strerror(err));
			r->st.failed++;
			r->pend_failed++;
		}
		r->st.files++;
		r->st.bytes += s->bytes;
	}
	r->st.last_ns = mono_ns() - t0;
	if (r->pend_n || r->pend_failed) {
		unsigned long left;
		uint64_t span;

		/* At start-up always one line; after snapshots one per 10 s. */
		if (!just_published) {
			summary_line(r, " at start-up");
		} else if (log_limit__hit(&r->lim, mono_ns(), &left, &span)) {
			char more[64], d[32];

			snprintf(more, sizeof(more), " in the last %s",
				 fmt_duration(span, d, sizeof(d)));
			summary_line(r, left ? more : NULL);
		}
	}
	return removed;
}

void retention__stats(const struct retention *r, struct retention_stats *out)
{
	*out = r->st;
}

void retention__free(struct retention *r)
{
	if (!r)
		return;
	if (r->pend_n || r->pend_failed) {
		uint64_t span;
		char more[64], d[32];

		log_limit__flush(&r->lim, mono_ns(), &span);
		snprintf(more, sizeof(more), " in the last %s", fmt_duration(span, d, sizeof(d)));
		summary_line(r, more);
	}
	if (r->fd >= 0)
		close(r->fd);
	free(r->snaps);
	free(r->path);
	free(r);
}
