// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cgroup path conditions into cgroup ids: one walk of the cgroup2 tree,
 * then each condition matched against every path (engine/cgsel.h).
 */
#include "engine/cgsel.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/util.h"

static const char *root_override;

void cgsel_set_root(const char *root)
{
	root_override = root;
}

void cgsel_mount(char *out, size_t len)
{
	if (root_override)
		snprintf(out, len, "%s", root_override);
	else if (!cgroup_mount(1, NULL, out, len))
		snprintf(out, len, "/sys/fs/cgroup");
}

struct walk {
	struct cgsel_tree *t;
	int cap;
	char *err;
	size_t errlen;
};

static int add_node(struct walk *w, uint64_t id, const char *path)
{
	if (w->t->n >= CGSEL_MAX_WALK) {
		seterr(w->err, w->errlen,
		       "more than %d cgroups under the cgroup2 root (CGSEL_MAX_WALK): cgroup "
		       "path conditions cannot resolve on this host",
		       CGSEL_MAX_WALK);
		return -E2BIG;
	}
	if (w->t->n == w->cap) {
		int cap = w->cap ? w->cap * 2 : 256;
		struct cgsel_node *v = realloc(w->t->v, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		w->t->v = v;
		w->cap = cap;
	}
	w->t->v[w->t->n].id = id;
	w->t->v[w->t->n].path = strdup(path);
	if (!w->t->v[w->t->n].path)
		return -ENOMEM;
	w->t->n++;
	return 0;
}

/* dfd is the directory at path (owned: closed here). */
static int walk_dir(struct walk *w, int dfd, const char *path, int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	int ret = 0;

	if (!d) {
		close(dfd);
		return 0; /* gone or unreadable: a cgroup removed during the walk */
	}
	while (!ret && (de = readdir(d))) {
		char sub[4096];
		struct stat st;
		int fd;

		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path[1] ? path : "", de->d_name) >=
		    (int)sizeof(sub))
			continue;
		ret = add_node(w, (uint64_t)st.st_ino, sub);
		if (ret || depth + 1 >= CGSEL_MAX_DEPTH)
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			ret = walk_dir(w, fd, sub, depth + 1);
	}
	closedir(d);
	return ret;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct cgsel_node *)a)->path, ((const struct cgsel_node *)b)->path);
}

int cgsel_walk(const char *root, struct cgsel_tree *t, char *err, size_t errlen)
{
	struct walk w = { .t = t, .err = err, .errlen = errlen };
	struct stat st;
	int fd, ret;

	memset(t, 0, sizeof(*t));
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno;
		seterr(err, errlen,
		       "cannot read the cgroup2 tree at %s: %s (cgroup path conditions need cgroup "
		       "v2: mount -t cgroup2 none /sys/fs/cgroup)",
		       root, strerror(errno));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	ret = add_node(&w, (uint64_t)st.st_ino, "/");
	if (ret) {
		close(fd);
	} else {
		ret = walk_dir(&w, fd, "/", 0);
	}
	if (ret == -ENOMEM)
		seterr(err, errlen, "out of memory walking %s", root);
	if (ret) {
		cgsel_tree_free(t);
		return ret;
	}
	qsort(t->v, (size_t)t->n, sizeof(*t->v), by_path);
	return 0;
}

void cgsel_tree_free(struct cgsel_tree *t)
{
	for (int i = 0; i < t->n; i++)
		free(t->v[i].path);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

int cgsel_match(const char *path, const char *lit, int form)
{
	size_t pl = strlen(path), ll = strlen(lit);

	switch (form) {
	case TRIGREC_OP_STR_EQ:
	case TRIGREC_OP_GLOB_FULL: return !strcmp(path, lit);
	case TRIGREC_OP_GLOB_PREFIX: return !strncmp(path, lit, ll);
	case TRIGREC_OP_GLOB_SUFFIX: return pl >= ll && !strcmp(path + pl - ll, lit);
	case TRIGREC_OP_GLOB_MIDDLE: return strstr(path, lit) != NULL;
	default: return 0;
	}
}

int cgsel_count(const struct trig_def *trigs, int n)
{
	int k = 0;

	for (int t = 0; t < n; t++)
		k += trigs[t].nr_cg;
	return k;
}

int cgsel_bit(const struct trig_def *trigs, int t, int i)
{
	return cgsel_count(trigs, t) + i;
}

/* The closest existing paths to a missing one, for "did you mean". */
static void closest(const struct cgsel_tree *tr, const char *want, char *out, size_t len)
{
	int best[3] = { -1, -1, -1 }, bd[3] = { 0, 0, 0 };
	const char *base = strrchr(want, '/');
	size_t used = 0;

	base = base ? base + 1 : want;
	out[0] = '\0';
	for (int i = 0; i < tr->n; i++) {
		const char *p = tr->v[i].path, *pb = strrchr(p, '/');
		int d = edit_distance(want, p), db;

		/* The same name elsewhere in the tree is as close as a typo. */
		pb = pb ? pb + 1 : p;
		if (*base && !strcmp(pb, base))
			d = d < 2 ? d : 2;
		db = edit_distance(base, pb);
		if (*base && db < d && db <= 2)
			d = db + 1;
		for (int k = 0; k < 3; k++) {
			if (best[k] < 0 || d < bd[k]) {
				for (int m = 2; m > k; m--) {
					best[m] = best[m - 1];
					bd[m] = bd[m - 1];
				}
				best[k] = i;
				bd[k] = d;
				break;
			}
		}
	}
	for (int k = 0; k < 3 && best[k] >= 0; k++) {
		/* Only plausible ones: at most a third of the path differs. */
		if (bd[k] > 3 + (int)strlen(want) / 3)
			break;
		used += (size_t)snprintf(out + used, used < len ? len - used : 0, "%s%s",
					 k ? ", " : "", tr->v[best[k]].path);
		if (used >= len)
			break;
	}
}

static int by_id(const void *a, const void *b)
{
	uint64_t x = ((const struct cgsel_ent *)a)->id, y = ((const struct cgsel_ent *)b)->id;

	return x < y ? -1 : x > y;
}

int cgsel_resolve(const struct trig_def *trigs, int n, const char *root, struct cgsel *out,
		  cgsel_report_fn report, void *ctx)
{
	struct cgsel_tree tr;
	char msg[1024], near[600];
	uint64_t *mask;
	int nerr = 0, total = cgsel_count(trigs, n);
	size_t rl = strlen(root);

	memset(out, 0, sizeof(*out));
	if (!total)
		return 0;
	if (total > TRIGREC_MAX_CG_CONDS) {
		snprintf(msg, sizeof(msg),
			 "%d cgroup path conditions in this run; at most %d are supported "
			 "(TRIGREC_MAX_CG_CONDS): use one glob for several cgroups",
			 total, TRIGREC_MAX_CG_CONDS);
		report(ctx, 1, -1, -1, msg);
		return 1;
	}
	if (cgsel_walk(root, &tr, msg, sizeof(msg))) {
		report(ctx, 1, -1, -1, msg);
		return 1;
	}
	/* Per cgroup of the walk, the bits of the conditions it matches. */
	mask = calloc((size_t)tr.n + 1, sizeof(*mask)); /* + 1: never a 0-byte allocation */
	if (!mask) {
		cgsel_tree_free(&tr);
		return -ENOMEM;
	}
	out->nr_conds = total;
	for (int t = 0; t < n; t++) {
		for (int i = 0; i < trigs[t].nr_cg; i++) {
			const struct trig_cgcond *c = &trigs[t].cg[i];
			int bit = cgsel_bit(trigs, t, i), k = 0;

			for (int j = 0; j < tr.n; j++)
				k += cgsel_match(tr.v[j].path, c->lit, c->form);
			out->matched[bit] = k;
			if (k > CGSEL_MAX_MATCH) {
				snprintf(
					msg, sizeof(msg),
					"cgroup \"%s\" matches %d cgroups; at most %d are supported "
					"(CGSEL_MAX_MATCH): narrow it, e.g. to one slice or pod "
					"(\"/kubepods.slice/kubepods-burstable.slice/*\")",
					c->text, k, CGSEL_MAX_MATCH);
				report(ctx, 1, t, i, msg);
				nerr++;
				continue;
			}
			if (!k && c->form == TRIGREC_OP_STR_EQ) {
				/* Written with the mount in front: say the path to write. */
				if (!strncmp(c->lit, root, rl) && c->lit[rl] == '/' && rl > 1)
					snprintf(near, sizeof(near), "%s", c->lit + rl);
				else
					closest(&tr, c->lit, near, sizeof(near));
				snprintf(msg, sizeof(msg),
					 "no cgroup %s; cgroups here are under %s (paths as in "
					 "/proc/PID/cgroup, from that root)%s%s%s",
					 c->lit, root, near[0] ? "; did you mean " : "", near,
					 near[0] ? "?" : "");
				report(ctx, 1, t, i, msg);
				nerr++;
				continue;
			}
			if (!k) {
				snprintf(
					msg, sizeof(msg),
					"cgroup ~ \"%s\" matches no cgroup under %s now; it matches "
					"cgroups created later only after a reload",
					c->text, root);
				report(ctx, 0, t, i, msg);
				continue;
			}
			for (int j = 0; j < tr.n; j++)
				if (cgsel_match(tr.v[j].path, c->lit, c->form))
					mask[j] |= 1ull << bit;
		}
	}
	for (int j = 0; j < tr.n; j++)
		out->n += mask[j] != 0;
	if (!nerr && out->n > TRIGREC_MAX_CG_IDS) {
		snprintf(msg, sizeof(msg),
			 "the cgroup path conditions match %d cgroups in all; at most %d are "
			 "supported (TRIGREC_MAX_CG_IDS): narrow the globs",
			 out->n, TRIGREC_MAX_CG_IDS);
		report(ctx, 1, -1, -1, msg);
		nerr++;
	}
	if (!nerr && out->n) {
		out->ent = calloc((size_t)out->n, sizeof(*out->ent));
		if (!out->ent) {
			free(mask);
			cgsel_tree_free(&tr);
			cgsel_free(out);
			return -ENOMEM;
		}
		out->n = 0;
		for (int j = 0; j < tr.n; j++)
			if (mask[j])
				out->ent[out->n++] = (struct cgsel_ent){ tr.v[j].id, mask[j] };
		qsort(out->ent, (size_t)out->n, sizeof(*out->ent), by_id);
	}
	free(mask);
	cgsel_tree_free(&tr);
	if (nerr)
		cgsel_free(out);
	return nerr;
}

void cgsel_free(struct cgsel *cs)
{
	free(cs->ent);
	memset(cs, 0, sizeof(*cs));
}
