// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* tracefs: finding/mounting it, listing tracepoints, reading event formats. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <mntent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/log.h"
#include "capture/tracefs.h"
#include "util/util.h"

#define TRACEFS_DEFAULT "/sys/kernel/tracing"
#define TRACEFS_DEBUGFS "/sys/kernel/debug/tracing"

/* Cache: where tracefs lives does not change while we run. */
static char root_path[PATH_MAX];
static const char *root_result;
static pthread_once_t root_once = PTHREAD_ONCE_INIT;

/* A tracefs we found but may not read, for the message. */
static char denied_path[PATH_MAX];
static int denied_errno;

/* A usable tracefs has an events/ directory (debugfs alone does not). */
static int has_events(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/events", dir) >= (int)sizeof(path))
		return 0;
	if (!stat(path, &st))
		return S_ISDIR(st.st_mode);
	if ((errno == EACCES || errno == EPERM) && !denied_path[0]) {
		snprintf(denied_path, sizeof(denied_path), "%s", dir);
		denied_errno = errno;
	}
	return 0;
}

static int use_root(const char *dir)
{
	if (strlen(dir) >= sizeof(root_path) || !has_events(dir))
		return 0;
	strcpy(root_path, dir);
	root_result = root_path;
	return 1;
}

/* Why find_root() found no tracefs (not the denied case), logged once by tracefs_root(). */
static char root_err[1024];

static void find_root(void);

int access_problem(int need_caps, char *out, size_t len)
{
	uint64_t eff = caps_effective();
	int no_perf = need_caps && !caps_privileged(eff, 0);
	int no_bpf = need_caps && !caps_privileged(eff, 1);
	int closed, caps;
	char exe[PATH_MAX] = "trigrec";
	struct stat st;
	size_t o = 0;
	ssize_t n;

	pthread_once(&root_once, find_root);
	closed = !root_result && denied_path[0];
	caps = no_perf || no_bpf;
	if (!caps && !closed)
		return 0;
	str_append(
		out, len, &o,
		"trigrec needs root, or CAP_PERFMON and CAP_BPF and read access to tracefs; uid %u",
		(unsigned)geteuid());
	if (caps)
		str_append(out, len, &o, " is missing %s%s%s", no_perf ? "CAP_PERFMON" : "",
			   no_perf && no_bpf ? " and " : "", no_bpf ? "CAP_BPF" : "");
	if (closed) {
		str_append(out, len, &o, "%s cannot read tracefs at %s", caps ? " and" : "",
			   denied_path);
		if (!stat(denied_path, &st))
			str_append(out, len, &o, " (mode %04o, owner %u:%u)",
				   (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid,
				   (unsigned)st.st_gid);
	}
	str_append(out, len, &o,
		   ". Least change: run it as root (sudo); or, to let this user run it,");
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 7] = '\0';
	if (caps)
		str_append(out, len, &o, " `sudo setcap cap_perfmon,cap_bpf+ep %s`%s", exe,
			   closed ? " and" : "");
	if (closed)
		str_append(out, len, &o,
			   " `sudo mount -o remount,gid=GID,mode=0750 %s` with GID a group of this "
			   "user (only that group gets in)",
			   denied_path);
	return 1;
}

static void find_root(void)
{
	struct mntent ent, *m;
	char buf[4096], alt[PATH_MAX];
	FILE *f;
	int found = 0;

	f = setmntent("/proc/mounts", "r");
	/* The kernel may have mounted it somewhere unusual; /proc/mounts knows. */
	while (f && !found && (m = getmntent_r(f, &ent, buf, sizeof(buf)))) {
		if (!strcmp(m->mnt_type, "tracefs")) {
			found = use_root(m->mnt_dir);
		} else if (!strcmp(m->mnt_type, "debugfs")) {
			if (snprintf(alt, sizeof(alt), "%s/tracing", m->mnt_dir) < (int)sizeof(alt))
				found = use_root(alt);
		}
	}
	if (f)
		endmntent(f);
	if (found || use_root(TRACEFS_DEFAULT) || use_root(TRACEFS_DEBUGFS))
		return;
	if (denied_path[0])
		return; /* tracefs_root() says it with the capabilities: access_problem() */

	if (mount("nodev", TRACEFS_DEFAULT, "tracefs", 0, NULL)) {
		int e = errno;

		snprintf(root_err, sizeof(root_err),
			 "tracefs is not mounted and mounting it at %s failed (%s)%s; "
			 "run `mount -t tracefs nodev %s` as root",
			 TRACEFS_DEFAULT, strerror(e),
			 e == EPERM		    ? ": this needs root (CAP_SYS_ADMIN)" :
			 e == ENOENT || e == ENODEV ? ": the kernel may lack CONFIG_TRACING" :
						      "",
			 TRACEFS_DEFAULT);
		return;
	}
	vlog("mounted tracefs at %s", TRACEFS_DEFAULT);
	if (!use_root(TRACEFS_DEFAULT))
		snprintf(root_err, sizeof(root_err),
			 "tracefs mounted at %s has no events/ directory; the kernel needs "
			 "CONFIG_FTRACE/CONFIG_TRACEPOINTS for tracepoints",
			 TRACEFS_DEFAULT);
}

const char *tracefs_root(void)
{
	static int told;

	pthread_once(&root_once, find_root);
	if (!root_result && !__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED)) {
		char msg[2048];

		if (access_problem(1, msg, sizeof(msg)))
			elog("%s", msg);
		else
			elog("%s", root_err[0] ? root_err : "tracefs is not available");
	}
	return root_result;
}

const char *tracefs_unusable(void)
{
	pthread_once(&root_once, find_root);
	if (root_result)
		return NULL;
	return denied_path[0] ? "this user cannot read tracefs (see the message above)" :
	       root_err[0]    ? root_err :
				"tracefs is not available";
}

char *tracefs_read(const char *relpath, size_t *len)
{
	const char *root = tracefs_root();
	char path[PATH_MAX], *buf = NULL, *nb;
	size_t cap = 0, n = 0;
	ssize_t r;
	int fd, e;

	if (!root) {
		errno = ENODEV;
		return NULL;
	}
	if (snprintf(path, sizeof(path), "%s/%s", root, relpath) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	/* tracefs files report st_size 0, so read until EOF. */
	for (;;) {
		if (cap - n < 2) {
			cap = cap ? cap * 2 : 8192;
			nb = realloc(buf, cap);
			if (!nb) {
				e = ENOMEM;
				goto fail;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			goto fail;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
fail:
	free(buf);
	close(fd);
	errno = e;
	return NULL;
}

/* Directory entry names only: no paths, no dot entries. */
static int name_ok(const char *s)
{
	return s && *s && *s != '.' && !strchr(s, '/');
}

int tracefs_event_id(const char *sys, const char *name)
{
	char rel[512], *text, *end;
	long id;

	if (!name_ok(sys) || !name_ok(name))
		return -EINVAL;
	if (!tracefs_root())
		return -ENODEV;
	if (snprintf(rel, sizeof(rel), "events/%s/%s/id", sys, name) >= (int)sizeof(rel))
		return -ENOENT;
	text = tracefs_read(rel, NULL);
	if (!text)
		return -errno;
	errno = 0;
	id = strtol(text, &end, 10);
	if (errno || end == text || id < 0 || id > INT_MAX || (*end && *end != '\n')) {
		free(text);
		return -EINVAL;
	}
	free(text);
	return (int)id;
}

static int is_subdir(int dfd, const struct dirent *d)
{
	struct stat st;

	if (d->d_type == DT_DIR)
		return 1;
	if (d->d_type != DT_UNKNOWN)
		return 0;
	return !fstatat(dfd, d->d_name, &st, 0) && S_ISDIR(st.st_mode);
}

struct tp_list {
	struct tp_name *v;
	int n, cap;
};

static int tp_list_add(struct tp_list *l, const char *sys, const char *name)
{
	struct tp_name *nv;

	/* Names that do not fit struct tp_name cannot be used anyway. */
	if (strlen(sys) >= sizeof(l->v->sys) || strlen(name) >= sizeof(l->v->name)) {
		dlog("skipping tracepoint %s:%s: name too long", sys, name);
		return 0;
	}
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 256;

		nv = realloc(l->v, (size_t)cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->cap = cap;
	}
	strcpy(l->v[l->n].sys, sys);
	strcpy(l->v[l->n].name, name);
	l->n++;
	return 0;
}

static int tp_name_cmp(const void *a, const void *b)
{
	const struct tp_name *x = a, *y = b;
	int c = strcmp(x->sys, y->sys);

	return c ? c : strcmp(x->name, y->name);
}

static int has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Tracepoints of one system directory matching name_pat. */
static int glob_sys(int events_fd, const char *sys, const char *name_pat, struct tp_list *l)
{
	struct dirent *d;
	DIR *dir;
	int fd, ret = 0;

	fd = openat(events_fd, sys, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	dir = fdopendir(fd);
	if (!dir) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while (!ret && (d = readdir(dir))) {
		if (d->d_name[0] == '.' || fnmatch(name_pat, d->d_name, 0))
			continue;
		/* Skips the per-system "enable" and "filter" files. */
		if (is_subdir(fd, d))
			ret = tp_list_add(l, sys, d->d_name);
	}
	closedir(dir);
	return ret;
}

int tracefs_glob(const char *pattern, struct tp_name **out)
{
	const char *root = tracefs_root(), *sep;
	char events[PATH_MAX], sys_pat[256], name_pat[256];
	struct tp_list l = { 0 };
	struct dirent *d;
	DIR *dir;
	int efd, ret = 0;

	*out = NULL;
	if (!pattern || !*pattern)
		return -EINVAL;
	if (!root)
		return -ENODEV;
	/* "sys:name" or perf's "sys/name"; a bare name is looked for in every system. */
	sep = strpbrk(pattern, ":/");
	if (sep) {
		if (sep == pattern || !sep[1] || (size_t)(sep - pattern) >= sizeof(sys_pat) ||
		    strlen(sep + 1) >= sizeof(name_pat))
			return -EINVAL;
		memcpy(sys_pat, pattern, (size_t)(sep - pattern));
		sys_pat[sep - pattern] = '\0';
		strcpy(name_pat, sep + 1);
	} else {
		if (strlen(pattern) >= sizeof(name_pat))
			return -EINVAL;
		strcpy(sys_pat, "*");
		strcpy(name_pat, pattern);
	}
	snprintf(events, sizeof(events), "%s/events", root);
	dir = opendir(events);
	if (!dir)
		return -errno;
	efd = dirfd(dir);
	if (!has_glob(sys_pat)) {
		/* Literal system: no need to scan the ~100 others. */
		if (name_ok(sys_pat))
			ret = glob_sys(efd, sys_pat, name_pat, &l);
	} else {
		while (!ret && (d = readdir(dir))) {
			if (d->d_name[0] == '.' || fnmatch(sys_pat, d->d_name, 0))
				continue;
			/* Skips header_page, header_event, enable, filter. */
			if (is_subdir(efd, d))
				ret = glob_sys(efd, d->d_name, name_pat, &l);
		}
	}
	closedir(dir);
	if (ret) {
		free(l.v);
		return ret;
	}
	if (l.n > 1) {
		int j = 0;

		qsort(l.v, (size_t)l.n, sizeof(*l.v), tp_name_cmp);
		for (int i = 1; i < l.n; i++)
			if (tp_name_cmp(&l.v[j], &l.v[i]))
				l.v[++j] = l.v[i];
		l.n = j + 1;
	}
	if (!l.n) {
		free(l.v);
		return 0;
	}
	*out = l.v;
	return l.n;
}

struct suggestion {
	int score;
	int idx;
};

static int suggestion_cmp(const void *a, const void *b)
{
	const struct suggestion *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? -1 : 1;
	/* Equal scores keep tracefs_glob's sorted order. */
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static void lower(char *dst, const char *src, size_t size)
{
	size_t i;

	for (i = 0; src && i + 1 < size && src[i]; i++)
		dst[i] = (char)tolower((unsigned char)src[i]);
	dst[i] = '\0';
}

void tracefs_suggest(const char *bad, char *out, size_t outlen, int max)
{
	char want_full[256], want_name[256], full[256], cname[256];
	struct tp_name *all = NULL;
	struct suggestion *s;
	const char *sep;
	int n, ns = 0, thr, have_sys;
	size_t used = 0;

	if (!out || !outlen)
		return;
	out[0] = '\0';
	if (!bad || !*bad || max <= 0)
		return;
	lower(want_full, bad, sizeof(want_full));
	sep = strpbrk(want_full, ":/");
	have_sys = sep != NULL;
	if (sep)
		want_full[sep - want_full] = ':';
	lower(want_name, sep ? bad + (sep - want_full) + 1 : bad, sizeof(want_name));
	if (!*want_name)
		return;
	n = tracefs_glob("*:*", &all);
	if (n <= 0)
		return;
	s = malloc((size_t)n * sizeof(*s));
	if (!s) {
		free(all);
		return;
	}
	/* About one typo per four characters, at most four: more is not "close". */
	thr = 1 + (int)strlen(want_name) / 4;
	if (thr > 4)
		thr = 4;
	for (int i = 0; i < n; i++) {
		int d;

		snprintf(full, sizeof(full), "%s:%s", all[i].sys, all[i].name);
		lower(full, full, sizeof(full));
		lower(cname, all[i].name, sizeof(cname));
		/*
		 * The name alone catches a wrong or missing system
		 * ("sched_switch" -> "sched:sched_switch").
		 */
		d = edit_distance(want_name, cname);
		if (have_sys) {
			int df = edit_distance(want_full, full);

			if (df < d)
				d = df;
		}
		if (d <= thr)
			s[ns++] = (struct suggestion){ d, i };
	}
	qsort(s, (size_t)ns, sizeof(*s), suggestion_cmp);
	/* Only the closest ones: a worse second guess is mostly noise. */
	for (int i = 0; i < ns && i < max && s[i].score == s[0].score; i++) {
		const struct tp_name *t = &all[s[i].idx];
		int w = snprintf(out + used, outlen - used, "%s%s:%s", i ? " or " : "", t->sys,
				 t->name);

		/* Whole names only: drop one that does not fit. */
		if (w < 0 || (size_t)w >= outlen - used) {
			out[used] = '\0';
			break;
		}
		used += (size_t)w;
	}
	free(s);
	free(all);
}

/* Value of "key:N;" in a field line's tail, or -1 if absent/bad. */
static long long field_attr(const char *p, const char *eol, const char *key)
{
	size_t kl = strlen(key);
	char *end;
	long long v;

	for (; p < eol; p++) {
		if ((size_t)(eol - p) > kl && !strncmp(p, key, kl) && p[kl] == ':' &&
		    (p[-1] == ';' || isspace((unsigned char)p[-1]))) {
			errno = 0;
			v = strtoll(p + kl + 1, &end, 10);
			if (errno || end == p + kl + 1 || v < 0 || v > UINT32_MAX || end > eol ||
			    (end < eol && *end != ';' && !isspace((unsigned char)*end)))
				return -1;
			return v;
		}
	}
	return -1;
}

static int is_char_type(const char *t)
{
	return !strcmp(t, "char") || !strcmp(t, "const char") || !strcmp(t, "signed char");
}

/* One "field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" line (p after "field:"). */
static int parse_field(const char *p, const char *eol, struct tp_field *fl)
{
	const char *semi = memchr(p, ';', (size_t)(eol - p));
	char decl[256], dims[64] = "", *nm, *br;
	long long off, size, sgn;
	size_t dl, n;

	if (!semi)
		return -EINVAL;
	off = field_attr(semi, eol, "offset");
	size = field_attr(semi, eol, "size");
	sgn = field_attr(semi, eol, "signed");
	if (off < 0 || size < 0)
		return -EINVAL;

	while (p < semi && isspace((unsigned char)*p))
		p++;
	dl = (size_t)(semi - p);
	if (dl >= sizeof(decl))
		return -EINVAL;
	memcpy(decl, p, dl);
	while (dl && isspace((unsigned char)decl[dl - 1]))
		dl--;
	decl[dl] = '\0';

	/* "NAME[16]": the dimensions go to the type ("char[16]"), as perf shows it. */
	if (dl && decl[dl - 1] == ']' && (br = strrchr(decl, '['))) {
		n = 0;
		for (char *q = br; *q && n + 1 < sizeof(dims); q++)
			if (!isspace((unsigned char)*q))
				dims[n++] = *q;
		dims[n] = '\0';
		*br = '\0';
		dl = (size_t)(br - decl);
		while (dl && isspace((unsigned char)decl[dl - 1]))
			decl[--dl] = '\0';
	}
	/* The name is the last word; stars glued to it ("char *p") stay with the type. */
	nm = decl + dl;
	while (nm > decl && !isspace((unsigned char)nm[-1]) && nm[-1] != '*')
		nm--;
	if (!*nm || nm == decl || strlen(nm) >= sizeof(fl->name))
		return -EINVAL;
	strcpy(fl->name, nm);
	*nm = '\0';
	while (nm > decl && isspace((unsigned char)nm[-1]))
		*--nm = '\0';
	/* A longer type text is cut; the kind and size below do not depend on it. */
	if (snprintf(fl->type, sizeof(fl->type), "%s%s", decl, dims) >= (int)sizeof(fl->type))
		dlog("field %s: type '%s%s' truncated", fl->name, decl, dims);

	fl->offset = (uint32_t)off;
	fl->size = (uint32_t)size;
	fl->is_signed = sgn > 0;
	fl->is_common = !strncmp(fl->name, "common_", 7);
	if (!strncmp(decl, "__data_loc", 10) && isspace((unsigned char)decl[10]))
		fl->kind = TP_FIELD_DATALOC;
	else if (dims[0])
		fl->kind = is_char_type(decl) ? TP_FIELD_CHARARRAY : TP_FIELD_ARRAY;
	else if (strchr(decl, '*'))
		fl->kind = TP_FIELD_PTR;
	else if (size == 1 || size == 2 || size == 4 || size == 8)
		fl->kind = TP_FIELD_INT;
	else
		/* Odd-sized scalars (structs by value): raw bytes are all we can do. */
		fl->kind = TP_FIELD_ARRAY;
	return 0;
}

struct tp_format *tp_format__parse(const char *sys, const char *name, const char *text, size_t len)
{
	struct tp_format *f;
	const char *p, *end;
	int cap = 0, ret = -EINVAL;

	if (!sys || !name || !text) {
		errno = EINVAL;
		return NULL;
	}
	if (strlen(sys) >= sizeof(f->sys) || strlen(name) >= sizeof(f->name)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		errno = ENOMEM;
		return NULL;
	}
	strcpy(f->sys, sys);
	strcpy(f->name, name);
	f->id = -1;
	/* Kept verbatim: perf.data's tracing section carries the format text as is. */
	f->text = malloc(len + 1);
	if (!f->text) {
		ret = -ENOMEM;
		goto fail;
	}
	memcpy(f->text, text, len);
	f->text[len] = '\0';
	f->text_len = len;

	for (p = f->text, end = f->text + len; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *q = p;

		if (!eol)
			eol = end;
		while (q < eol && isspace((unsigned char)*q))
			q++;
		if (!strncmp(q, "print fmt:", 10))
			break;
		if (!strncmp(q, "ID:", 3)) {
			f->id = atoi(q + 3);
		} else if (!strncmp(q, "field:", 6)) {
			struct tp_field *fl;
			uint64_t fend;

			if (f->nr_fields == cap) {
				int ncap = cap ? cap * 2 : 16;

				fl = realloc(f->fields, (size_t)ncap * sizeof(*fl));
				if (!fl) {
					ret = -ENOMEM;
					goto fail;
				}
				f->fields = fl;
				cap = ncap;
			}
			fl = &f->fields[f->nr_fields];
			memset(fl, 0, sizeof(*fl));
			ret = parse_field(q + 6, eol, fl);
			if (ret) {
				dlog("%s:%s: bad format line: %.*s", sys, name, (int)(eol - q), q);
				goto fail;
			}
			f->nr_fields++;
			fend = (uint64_t)fl->offset + fl->size;
			if (fend > f->fixed_size)
				f->fixed_size = fend > UINT32_MAX ? UINT32_MAX : (uint32_t)fend;
		}
		p = eol + 1;
	}
	if (!f->nr_fields) {
		ret = -EINVAL;
		goto fail;
	}
	return f;
fail:
	tp_format__free(f);
	errno = -ret;
	return NULL;
}

struct tp_format *tp_format__load(const char *sys, const char *name)
{
	struct tp_format *f;
	char rel[512], *text;
	size_t len;
	int e;

	if (!name_ok(sys) || !name_ok(name)) {
		errno = EINVAL;
		return NULL;
	}
	if (snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, name) >= (int)sizeof(rel)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	text = tracefs_read(rel, &len);
	if (!text)
		return NULL;
	f = tp_format__parse(sys, name, text, len);
	e = errno;
	free(text);
	errno = e;
	return f;
}

const struct tp_field *tp_format__field(const struct tp_format *f, const char *name)
{
	if (!f || !name)
		return NULL;
	for (int i = 0; i < f->nr_fields; i++)
		if (!strcmp(f->fields[i].name, name))
			return &f->fields[i];
	return NULL;
}

void tp_format__free(struct tp_format *f)
{
	if (!f)
		return;
	free(f->fields);
	free(f->text);
	free(f);
}
